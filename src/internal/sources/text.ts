/**
 * The text source over a checked descriptor: text in any encoding, streamed a page at a time
 * through the line pager, stopping as soon as the page and its footer are known.
 */
import type { PlatformError } from "@effect/platform/Error"
import type { File } from "@effect/platform/FileSystem"
import type * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import { isAscii } from "node:buffer"
import { LineIndex } from "../../LineIndex.js"
import { Progress } from "../../Progress.js"
import type { FileChanged, ReadFailed } from "../../ReadError.js"
import { isPaged } from "../../ReadResult.js"
import * as Secrets from "../../Secrets.js"
import { Workspace } from "../../Workspace.js"
import { isBinarySample, SAMPLE_BYTES } from "../core/binary.js"
import {
  type Codec,
  type Detection,
  detectionFor,
  detectOnce,
  firstTelling,
  LOOKAHEAD_BYTES
} from "../core/encoding.js"
import { anchorHeader, HASHLINE_MAX_BYTES, linesBetween, normalize, tagOfNormal } from "../core/hashline.js"
import { searchableBuffers } from "../core/lineFeeds.js"
import { COUNT_AHEAD_BYTES, lineMeasure, LinePager, MAX_BYTES, MAX_LINE_LENGTH, pastEnd } from "../core/lines.js"
import { ChunkSearcher, type SearchCollector } from "../core/search.js"
import { fitNumbered, TailScanner } from "../core/tail.js"
import { readFully } from "../io/bytes.js"
import { fromPlatformError } from "../io/platformError.js"
import { withLeanSpan } from "../io/spans.js"
import { type PageAt, reachesEnd, type TailAt, tailByCounting, tailPageOptions } from "../present/pages.js"
import type { SearchAt } from "../present/search.js"
import { presentText } from "../present/text.js"
import { type Target } from "../read/access.js"
import { refuseBinary } from "../read/facts.js"
import { endedEarly, readAllFrom, snapshotBytes, TAIL_BYTES } from "../read/open.js"
import { anchorPath, AnchorStore } from "../store/anchors.js"
import type { FileSourceRequest } from "./types.js"

/** Bytes read per call while streaming text: large enough to amortise calls on deep scans. */
export const CHUNK_BYTES = 256 * 1024
/** Bytes read per call while the pager skips lines before a deep page: fewer, larger reads. */
export const SKIP_CHUNK_BYTES = 4 * 1024 * 1024
/** Bytes read per call while searching. */
export const SEARCH_READ_BYTES = 4 * 1024 * 1024
/** Bytes the searcher takes at once: each slice's text is one string, garbage once searched. */
export const SEARCH_CHUNK_BYTES = 64 * 1024
/** A tail's first read from the end: a page of lines of up to ~100 bytes, before the 50 KB cap. */
export const TAIL_FIRST_READ = 64 * 1024
/** Most bytes a tail keeps to page and count from; past that it reads them again, a chunk at a time. */
export const TAIL_WINDOW_BYTES = 1024 * 1024

const facts = (info: File.Info) => ({
  size: Number(info.size),
  ...Option.match(info.mtime, { onNone: () => ({}), onSome: (mtime) => ({ mtime: mtime.getTime() }) })
})

/** Stream from `start` through the pager until it has the page and footer, or the file ends. */
const streamPage = (file: FileSystem.File, start: number, size: number, pager: LinePager, path: string) =>
  Effect.gen(function*() {
    const progress = yield* Progress
    const task = `Reading ${path}`
    // A snapshot's bytes, when the loop below would take them in one read: pushed in place, no copy.
    const held = snapshotBytes(file)
    if (held !== undefined && held.length === size && size - start <= CHUNK_BYTES) {
      const pushed = !pager.done && start < size
      if (pushed) {
        pager.push(held.subarray(start, size))
        progress.report({ task, done: size, total: size, unit: "bytes" })
      }
      return { page: pager.end(pushed || start >= size), early: false }
    }
    yield* file.seek(start, "start")
    // Two buffers: while the pager skips lines in one chunk, the next is read into the other, so
    // counting and reading overlap (the read waits on the disk or page cache, the count on the CPU).
    // Skipping chunks live where the pager's line-feed search is fastest (`searchableBuffers`).
    let buffers: ReadonlyArray<Buffer | undefined> = [undefined, undefined]
    const view = (which: number, length: number): Buffer => {
      let buffer = buffers[which]
      if (buffer === undefined || buffer.length < length) {
        if (length > CHUNK_BYTES) buffers = searchableBuffers(SKIP_CHUNK_BYTES)
        else buffers = which === 0 ? [Buffer.allocUnsafe(length), buffers[1]] : [buffers[0], Buffer.allocUnsafe(length)]
        buffer = buffers[which]!
      }
      return buffer.subarray(0, length)
    }
    let current = 0
    let chunk = CHUNK_BYTES
    let ahead: { readonly fiber: Fiber.RuntimeFiber<number, PlatformError>; readonly into: Buffer } | undefined
    let position = start
    let eof = position >= size
    while (!pager.done && !eof) {
      // Still skipping after a whole chunk: the page is deep, read on in larger chunks.
      if (pager.skipping && position > start) chunk = SKIP_CHUNK_BYTES
      let into: Buffer
      let n: number
      if (ahead !== undefined) {
        into = ahead.into
        n = yield* Fiber.join(ahead.fiber)
        ahead = undefined
        current = 1 - current
      } else {
        into = view(current, Math.min(chunk, size - position))
        n = yield* readFully(file, into)
      }
      // Bytes appended since the open are not this version's: the read ends at the size it had.
      const taken = Math.min(n, size - position)
      if (pager.skipping && n === into.length && position + taken < size) {
        // The size the next read would have had: larger only once a whole chunk was skipped.
        const next = view(1 - current, Math.min(position > start ? SKIP_CHUNK_BYTES : chunk, size - position - taken))
        ahead = { fiber: yield* Effect.fork(readFully(file, next)), into: next }
        // Let the read start before the count takes the thread.
        yield* Effect.yieldNow()
      }
      pager.push(into.subarray(0, taken))
      position += taken
      progress.report({ task, done: position, total: size, unit: "bytes" })
      eof = position >= size
      // The bytes ended before the size the file had when opened (see `endedEarly`).
      if (!eof && n < into.length) return { page: pager.end(true), early: true }
    }
    // The page ended inside the chunk before the one read ahead: that read is let finish, unused.
    if (ahead !== undefined) yield* Fiber.await(ahead.fiber)
    return { page: pager.end(eof), early: false }
  })

/**
 * An all-ASCII start says nothing of a file's encoding: look on (up to `LOOKAHEAD_BYTES`) for the
 * first byte that does, and judge the start together with the sample that byte opens.
 */
const lookAhead = (file: FileSystem.File, head: Uint8Array, size: number) =>
  Effect.gen(function*() {
    const held = snapshotBytes(file)
    if (held !== undefined && held.length === size) return lookAheadIn(held, head, size)
    const limit = Math.min(size, head.length + LOOKAHEAD_BYTES)
    const buffer = new Uint8Array(Math.max(1, Math.min(CHUNK_BYTES, limit - head.length)))
    let position = head.length
    yield* file.seek(position, "start")
    while (position < limit) {
      const n = yield* readFully(file, buffer.subarray(0, Math.min(buffer.length, limit - position)))
      if (n === 0) break
      const at = firstTelling(buffer.subarray(0, n))
      if (at !== -1) {
        const window = new Uint8Array(Math.min(SAMPLE_BYTES, size - position - at))
        yield* file.seek(position + at, "start")
        const got = yield* readFully(file, window)
        const sample = new Uint8Array(head.length + got)
        sample.set(head)
        sample.set(window.subarray(0, got), head.length)
        return { sample, complete: position + at + got >= size, from: position + at }
      }
      position += n
    }
    return { sample: head, complete: false }
  })

/** `lookAhead` in the bytes of a whole file, in memory. */
const lookAheadIn = (bytes: Uint8Array, head: Uint8Array, size: number) => {
  const limit = Math.min(size, head.length + LOOKAHEAD_BYTES)
  const at = head.length < limit ? firstTelling(bytes.subarray(head.length, limit)) : -1
  if (at === -1) return { sample: head, complete: false }
  const from = head.length + at
  const window = bytes.subarray(from, from + Math.min(SAMPLE_BYTES, size - from))
  const sample = new Uint8Array(head.length + window.length)
  sample.set(head)
  sample.set(window, head.length)
  return { sample, complete: from + window.length >= size, from }
}

/**
 * A look-ahead's sample that turned binary at a NUL byte after text (the start, all ASCII, and
 * the window up to the NUL): where the NUL is in the file, and the text sampled before it.
 */
const textBeforeNul = (
  judged: { readonly sample: Uint8Array; readonly from?: number },
  headLength: number
): { readonly nulAt: number; readonly text: Uint8Array } | undefined => {
  if (judged.from === undefined) return undefined
  const at = judged.sample.indexOf(0, headLength)
  if (at === -1) return undefined
  const text = judged.sample.subarray(0, at)
  return isBinarySample(text) ? undefined : { nulAt: judged.from + (at - headLength), text }
}

/** The code unit that ends just before `position`. */
const unitBefore = (file: FileSystem.File, position: number, unit: number) =>
  Effect.gen(function*() {
    yield* file.seek(position - unit, "start")
    const bytes = new Uint8Array(unit)
    return bytes.subarray(0, yield* readFully(file, bytes))
  })

/** Is `unit` a whole `\n` or `\r` code unit in this codec? */
const isTerminator = (unit: Uint8Array, codec: Codec): boolean => {
  if (unit.length !== codec.unit) return false
  const low = codec.bigEndian ? codec.unit - 1 : 0
  return (unit[low] === 10 || unit[low] === 13) && unit.every((byte, k) => k === low || byte === 0)
}

/** The last code unit of the file is a line terminator (from `end`, its last bytes, when read at open). */
const endsWithNewline = (file: FileSystem.File, size: number, detection: Text, end: Uint8Array | undefined) => {
  const { bomLength, codec } = detection
  if (size - bomLength < codec.unit) return Effect.succeed(false)
  // Only when they are all there: fewer means the file holds less than it reports.
  if (end !== undefined && end.length >= codec.unit && end.length === Math.min(TAIL_BYTES, size)) {
    return Effect.succeed(isTerminator(end.subarray(end.length - codec.unit), codec))
  }
  return Effect.map(unitBefore(file, size, codec.unit), (last) => isTerminator(last, codec))
}

type Text = Extract<Detection, { readonly _tag: "Text" }>
/** What a binary file looks like, for a refusal the model can act on. */
export const readText = (request: FileSourceRequest) =>
  // A span around an untraced body: `Effect.fn` would build an `Error` on every call.
  withLeanSpan(textOf(request), "Read.text")

const textOf = Effect.fnUntraced(function*(request: FileSourceRequest) {
  const { file, head, info, note, params, selection, sniffed, target } = request
  const failed = (error: Parameters<typeof fromPlatformError>[1]) => fromPlatformError(target.absolute, error)
  const index = yield* LineIndex
  const size = Number(info.size)
  const sampled = head.length
  const requested = params.encoding
  const judged = requested === undefined && sampled < size && firstTelling(head) === -1
    ? yield* lookAhead(file, head, size).pipe(Effect.mapError(failed))
    : { sample: head, complete: sampled >= size }
  const detection = requested === undefined ? detectOnce(judged.sample, judged.complete) : detectionFor(requested, head)
  // Content first: a `.dat` holding text is read; a recognised container format is not text,
  // whatever encoding the caller names (a named encoding only overrules the NUL heuristic).
  const binary = requested === undefined
    ? detection._tag === "Binary" || (sniffed !== undefined && detection.fallback)
    : request.binary
  if (binary || detection._tag === "Binary") return yield* refuseBinary(request, textBeforeNul(judged, head.length))

  const mtime = Option.match(info.mtime, { onNone: () => 0, onSome: (date) => date.getTime() })
  const key = `${info.dev}:${Option.getOrElse(info.ino, () => 0)}:${size}:${mtime}:${detection.codec.encoding}`
  const pageAt: PageAt<ReadFailed | FileChanged, never> = (request) =>
    Effect.gen(function*() {
      const knownTotal = yield* index.totalLines(target.absolute, key)
      if (knownTotal !== undefined && request.offset > knownTotal) {
        // The end is known to be before the page: answer without reading.
        return pastEnd(request.offset, knownTotal)
      }
      // A stateful encoding's shift state at a checkpoint is not recorded: read from the start.
      let checkpoint = detection.codec.tracker === undefined
        ? yield* index.lookup(target.absolute, key, request.offset)
        : { lines: 0, position: 0 }
      // The key cannot see an in-place rewrite of the same size within one mtime tick: a
      // checkpoint must sit right after a line terminator, or the index is dropped.
      if (checkpoint.position > detection.bomLength) {
        const before = yield* unitBefore(file, checkpoint.position, detection.codec.unit)
        if (!isTerminator(before, detection.codec)) {
          yield* index.forget(target.absolute)
          checkpoint = { lines: 0, position: 0 }
        }
      }
      const start = { lines: checkpoint.lines, position: Math.max(checkpoint.position, detection.bomLength) }
      const pager = new LinePager(
        {
          ...request,
          maxLineLength: request.maxLineLength ?? MAX_LINE_LENGTH,
          countAhead: COUNT_AHEAD_BYTES,
          checkpointEvery: index.every
        },
        detection.codec,
        start,
        detection.bomLength
      )
      const streamed = yield* streamPage(file, start.position, size, pager, target.absolute)
      if (streamed.early) yield* endedEarly(file, target, size)
      const scanned = streamed.page
      yield* index.record(target.absolute, key, scanned.checkpoints, scanned.totalLines)
      // An earlier scan may have counted to the end: an exact total beats a lower bound.
      return scanned.totalLines === undefined && knownTotal !== undefined && scanned.stoppedBy !== "bytes"
        ? {
          ...scanned,
          totalLines: knownTotal,
          linesAtLeast: knownTotal,
          stoppedBy: scanned.offset - 1 + scanned.lines.length === knownTotal ? "eof" as const : scanned.stoppedBy
        }
        : scanned
    }).pipe(Effect.mapError((error) => error._tag === "FileChanged" ? error : failed(error)))

  /**
   * The last lines: walk back from the end to where they start (reading only their bytes), number
   * them by counting the lines before them from the index's last checkpoint (or from the start:
   * a forward scan in bounded memory that also fills the index), then page forward from there.
   *
   * The bytes read walking back are kept (up to `TAIL_WINDOW_BYTES`): the page and the count come
   * from them, not from second reads. With the index warm its last checkpoint lies near the end,
   * so the first read starts there and a tail is one read of the file.
   */
  const tailAt: TailAt<ReadFailed | FileChanged, never> = (request) =>
    detection.codec.tracker !== undefined ? tailByCounting(pageAt, request) : Effect.gen(function*() {
      const { bomLength: origin, codec } = detection
      const unit = codec.unit
      const alignDown = (position: number) => Math.max(origin, origin + Math.floor((position - origin) / unit) * unit)
      const scanner = new TailScanner({
        count: request.count,
        maxBytes: reachesEnd(request) ? request.maxBytes : Infinity,
        unit,
        low: codec.bigEndian ? unit - 1 : 0,
        origin,
        end: size,
        measure: lineMeasure(codec, request.maxLineLength)
      })
      const last = yield* index.lookup(target.absolute, key, Number.MAX_SAFE_INTEGER)
      // The unit before the checkpoint is read too: it must be a line terminator (see `pageAt`).
      const checkpointFrom = last.position > origin ? last.position - unit : undefined
      let next = alignDown(Math.min(
        size - TAIL_FIRST_READ,
        checkpointFrom !== undefined && size - checkpointFrom <= TAIL_WINDOW_BYTES ? checkpointFrom : size
      ))
      // Chunks read, the last first, while they fit the window; then one buffer, reused.
      const kept: Array<Uint8Array> = []
      let keptFrom: number | undefined = size
      let reused: Buffer | undefined
      let position = size
      while (!scanner.done && position > origin) {
        const start = Math.min(next, alignDown(position - unit))
        const length = position - start
        if (keptFrom !== undefined && size - start > TAIL_WINDOW_BYTES) {
          kept.length = 0
          keptFrom = undefined
        }
        const buffer = keptFrom !== undefined
          ? Buffer.allocUnsafe(length)
          : (reused ??= Buffer.allocUnsafe(CHUNK_BYTES + unit)).subarray(0, length)
        yield* file.seek(start, "start")
        const n = yield* readFully(file, buffer)
        if (n < length) {
          yield* endedEarly(file, target, size)
          // A file that reports more than it holds (FUSE): the rest of the buffer was never
          // written, so nothing is kept; the page and the count read what is there.
          kept.length = 0
          keptFrom = undefined
        }
        scanner.pushBackward(buffer.subarray(0, n), start)
        if (keptFrom !== undefined) {
          kept.push(buffer)
          keptFrom = start
        }
        position = start
        next = alignDown(position - CHUNK_BYTES)
      }
      const scan = scanner.result()
      // The bytes from `keptFrom` to the end, in one piece.
      const window = keptFrom === undefined ? undefined : kept.length === 1 ? kept[0]! : Buffer.concat(kept.reverse())
      const held: Held = (from, to) =>
        window !== undefined && keptFrom !== undefined && from >= keptFrom
          ? window.subarray(from - keptFrom, to - keptFrom)
          : undefined

      const counted = scan.atOrigin ? 0 : yield* linesBefore(scan.position, last, held)
      const { lines, position: from, skipped } = fitNumbered(scan, counted, request.maxBytes)
      const before = counted + skipped
      const pager = new LinePager(
        { ...tailPageOptions(request, before + 1, lines), checkpointEvery: index.every },
        codec,
        { lines: before, position: from },
        origin
      )
      const page = yield* pageBetween(pager, from, size, held)
      yield* index.record(target.absolute, key, page.checkpoints, page.totalLines)
      return page
    }).pipe(Effect.mapError((error) => error._tag === "FileChanged" ? error : failed(error)))

  /** The bytes of a tail's walk back, `from`–`to` of them when it kept those. */
  type Held = (from: number, to: number) => Uint8Array | undefined

  /** The pager fed the bytes from `from` to `to`: those `held` when it has them, else read. */
  const pageBetween = (pager: LinePager, from: number, to: number, held: Held) =>
    Effect.gen(function*() {
      const bytes = held(from, to)
      if (bytes !== undefined) {
        pager.push(bytes)
        return pager.end(true)
      }
      const streamed = yield* streamPage(file, from, to, pager, target.absolute)
      if (streamed.early) yield* endedEarly(file, target, size)
      return streamed.page
    })

  /**
   * Lines before byte `position` (a line start), counted from the index's `last` checkpoint when
   * it lies before the position, else from the start; from the bytes `held` when they cover the
   * count, else read again.
   */
  const linesBefore = (position: number, last: { readonly lines: number; readonly position: number }, held: Held) =>
    Effect.gen(function*() {
      const { bomLength: origin, codec } = detection
      const terminated = (at: number) =>
        Effect.map(
          Effect.suspend(() => {
            const unit = held(at - codec.unit, at)
            return unit !== undefined ? Effect.succeed(unit) : unitBefore(file, at, codec.unit)
          }),
          (unit) => isTerminator(unit, codec)
        )
      const valid = last.position > origin && last.position <= position && (yield* terminated(last.position))
      const start = valid ? last : { lines: 0, position: origin }
      const counter = new LinePager(
        {
          offset: Number.MAX_SAFE_INTEGER,
          limit: 1,
          maxLineLength: MAX_LINE_LENGTH,
          maxBytes: MAX_BYTES,
          checkpointEvery: index.every
        },
        codec,
        start,
        origin
      )
      const counted = yield* pageBetween(counter, start.position, position, held)
      yield* index.record(target.absolute, key, counted.checkpoints, undefined)
      return counted.totalLines ?? counted.linesAtLeast
    })

  /**
   * A search of a UTF-8 file: its bytes in large chunks, each chunk's lines searched at once
   * (`ChunkSearcher`), in bounded memory; the total it counts goes to the line index.
   */
  const searchUtf8: SearchAt<ReadFailed | FileChanged, never> = (collector: SearchCollector) =>
    Effect.gen(function*() {
      const progress = yield* Progress
      const task = `Searching ${target.absolute}`
      const searcher = new ChunkSearcher(collector, (bytes) => {
        const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
        // ASCII (most of most files) decodes fastest as Latin-1, to the strings regexes run fastest on.
        return isAscii(buffer) ? buffer.toString("latin1") : buffer.toString("utf8")
      })
      // Two buffers where line feeds are counted fastest (`nthLineFeed`): while the searcher works
      // through one, the next chunk is read into the other. It gets the chunk a slice at a time,
      // so the strings it decodes stay small (young, cheap garbage) however large the reads.
      let [current, other] = searchableBuffers(Math.min(SEARCH_READ_BYTES, Math.max(1, size)))
      let position = detection.bomLength
      yield* file.seek(position, "start")
      let n = position < size
        ? yield* readFully(file, current.subarray(0, Math.min(current.length, size - position)))
        : 0
      while (n > 0) {
        const wanted = Math.min(current.length, size - position)
        const more = n === wanted && position + n < size
        const ahead = more
          ? yield* Effect.fork(readFully(file, other.subarray(0, Math.min(other.length, size - position - n))))
          : undefined
        // Let the read start before the search takes the thread.
        if (ahead !== undefined) yield* Effect.yieldNow()
        for (let at = 0; at < n; at += SEARCH_CHUNK_BYTES) {
          searcher.push(current.subarray(at, Math.min(n, at + SEARCH_CHUNK_BYTES)))
        }
        position += n
        progress.report({ task, done: position, total: size, unit: "bytes" })
        if (ahead === undefined) break
        n = yield* Fiber.join(ahead)
        ;[current, other] = [other, current]
      }
      if (position < size) yield* endedEarly(file, target, size)
      const totalLines = searcher.end()
      yield* index.record(target.absolute, key, [], totalLines)
      return { totalLines }
    }).pipe(Effect.mapError((error) => error._tag === "FileChanged" ? error : failed(error)))

  const finalNewline = yield* endsWithNewline(file, size, detection, request.end).pipe(Effect.mapError(failed))
  const anchor = params.lineFormat === "hashline" && !selection.raw
    ? yield* anchorOf(file, target, size, detection)
    : undefined
  const result = yield* presentText({
    path: target.absolute,
    title: target.relative,
    kind: "text",
    pageAt,
    tailAt,
    ...(detection.codec.encoding === "utf-8" && detection.codec.tracker === undefined ? { searchAt: searchUtf8 } : {}),
    selection,
    params,
    note,
    facts: { fileSize: size, encoding: detection.codec.encoding, replaced: detection.fallback },
    ...(anchor === undefined ? {} : { hashline: { header: anchor.header } }),
    metadata: {
      encoding: detection.codec.encoding,
      bom: detection.bomLength > 0,
      finalNewline,
      ...facts(info),
      ...(anchor?.header === undefined ? {} : { anchor: anchor.header }),
      ...(anchor?.omitted === undefined ? {} : { anchorOmitted: anchor.omitted }),
      ...(params.lineFormat === "hashline" && selection.raw ? { anchorOmitted: RAW_OMITTED } : {})
    }
  })
  // The lines shown, whole, under their tag: an Edit naming this tag later finds them (Anchors.verify).
  const { endLine, startLine } = isPaged(result.metadata)
    ? result.metadata
    : { endLine: undefined, startLine: undefined }
  if (anchor?.tag !== undefined && startLine !== undefined && endLine !== undefined) {
    const store = yield* AnchorStore
    const { sessionId } = yield* Workspace
    yield* store.record(sessionId, target.absolute, anchor.tag, startLine, anchor.lines(startLine, endLine))
  }
  return result
})

const RAW_OMITTED = ":raw shows lines as they are: no line numbers, no anchor"

/**
 * The hashline header of a file: its whole text (at most `HASHLINE_MAX_BYTES`), read from the
 * checked descriptor, hashed. The path is relative to the working directory (POSIX separators)
 * when inside it, else absolute.
 */
const anchorOf = (file: FileSystem.File, target: Target, size: number, detection: Text) =>
  Effect.gen(function*() {
    if (size > HASHLINE_MAX_BYTES) {
      return {
        header: undefined,
        tag: undefined,
        lines: () => [],
        omitted: `the file is over ${HASHLINE_MAX_BYTES / 1024 / 1024} MiB: its lines are numbered, with no ¶ anchor`
      }
    }
    const bytes = yield* readAllFrom(file, target, size)
    // With masking on, the tag and the lines kept for `Anchors.verify` are of the masked text, the
    // text the model is shown: no tag can confirm a guess of a masked value.
    const text = yield* Secrets.maskFileText(
      detection.codec.decode(bytes.subarray(detection.bomLength)).text,
      target.absolute
    )
    const normal = normalize(text)
    const tag = tagOfNormal(normal)
    return {
      header: anchorHeader(yield* anchorPath(target.absolute), tag),
      tag,
      lines: (from: number, to: number) => linesBetween(normal, from, to),
      omitted: undefined
    }
  })
