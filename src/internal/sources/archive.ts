/**
 * Archives (`.zip`, `.tar`, `.tar.gz`/`.tgz`): `a.zip` lists the root, `a.zip:dir/` a
 * directory, `a.zip:dir/file.ts:10-20` reads a member with the usual numbering and paging.
 *
 * ZIP is read by random access (central directory, then one member's bytes); tar is read once,
 * headers by position (a plain tar's member data is skipped unread), to its end: the last copy
 * of a repeated path wins, as extraction leaves it. Members are capped in size and compression
 * ratio while they inflate, compressed tar streams in total bytes; unsafe member paths (`..`,
 * absolute) are refused in requests and never resolved in archives; links, devices and FIFOs
 * are described, never followed or opened; a binary member is `BinaryFile`, as a binary file is.
 */
import type { PlatformError } from "@effect/platform/Error"
import type { File } from "@effect/platform/FileSystem"
import type * as FileSystem from "@effect/platform/FileSystem"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import { fileTypeFromBuffer } from "file-type"
import { PageLimits } from "../../Limits.js"
import { Progress } from "../../Progress.js"
import {
  ArchiveError,
  BinaryFile,
  formatBytes,
  InvalidParams,
  InvalidSelector,
  OffsetOutOfRange,
  type ReadError
} from "../../ReadError.js"
import type { ReadResult } from "../../ReadResult.js"
import { describeBinary, isBinarySample } from "../core/binary.js"
import { archiveExtension, archiveFormat, looksLikeArchive } from "../core/containers.js"
import { MAX_LINE_LENGTH } from "../core/lines.js"
import { directoryFooter, entriesWithin, PREVIEW_LINES } from "../core/render.js"
import { noSelection, parseSelector, type Selection, SelectorError, splitSelector } from "../core/selector.js"
import { fromPlatformError } from "../io/platformError.js"
import {
  memoryPageAt,
  memoryTailAt,
  type PageAt,
  type PageRequest,
  type TailAt,
  tailByCounting
} from "../present/pages.js"
import { presentText } from "../present/text.js"
import { askContent, askRead, checkRead, CONTENT_SNIFF_BYTES, memberTarget, textOf } from "../read/access.js"
import { confirmUnchanged, openChecked, TAIL_BYTES } from "../read/open.js"
import { type ByteSource, type Content, pageStream, type ScanResult, type Streamed } from "./archive/content.js"
import {
  ARCHIVE_LIMITS,
  ArchiveFailure,
  type ArchiveLimits,
  ArchiveTree,
  checkPath,
  linkTargetPath,
  messages,
  omittedNotice,
  type RawEntry,
  refusedNotice,
  replacedNotice,
  SourceFailure
} from "./archive/model.js"
import { gzipName, isGzip, scanGzip, scanTar } from "./archive/tar.js"
import { scanZip } from "./archive/zip.js"

/** The parsers' `SourceFailure`, carrying the platform's error (the pure parsers know no Effect). */
class PlatformFailure extends SourceFailure {
  constructor(readonly error: PlatformError) {
    super(error.message)
  }
}
import type { ContainerRequest, Params } from "./types.js"

export { archiveFormat, looksLikeArchive } from "../core/containers.js"
export { ARCHIVE_LIMITS, type ArchiveLimits } from "./archive/model.js"

/** A member name's extension, lower case with its dot (`.bin`), as `path.extname` gives it. */
const extensionOf = (name: string): string => {
  const base = name.slice(name.lastIndexOf("/") + 1)
  const dot = base.lastIndexOf(".")
  return dot > 0 ? base.slice(dot).toLowerCase() : ""
}

/** What the text after the archive path asks for, before the archive is opened. */
interface Plan {
  /** The whole inner text as a member path ("" = the root). */
  readonly whole: string
  /** `member:selector`, when the inner text ends in a selector. */
  readonly split: { readonly member: string; readonly selection: Selection | SelectorError } | undefined
  /** The inner text is only a selector (`a.zip:2`, `a.zip:1-10`): applied to the root listing. */
  readonly root: Selection | SelectorError | undefined
}

const plan = (request: ContainerRequest) =>
  Effect.gen(function*() {
    const archive = request.target.absolute
    const inner = request.inner.replace(/\\/g, "/")
    const checked = (requested: string) =>
      Effect.gen(function*() {
        const result = checkPath(requested)
        if (result._tag === "Ok") return result.path
        const reason = result._tag === "Absolute"
          ? messages.absolute(requested, archive)
          : messages.parentSegment(requested)
        return yield* new ArchiveError({ path: archive, member: requested, reason })
      })
    const whole = yield* checked(inner)
    const split = splitSelector(inner)
    const selected = split.selector === undefined
      ? undefined
      : { member: yield* checked(split.path), selection: parseSelector(split.selector) }
    const rootSplit = splitSelector(`.:${inner}`)
    const root = inner !== "" && rootSplit.path === "." && rootSplit.selector !== undefined
      ? parseSelector(rootSplit.selector)
      : undefined
    return { whole, split: selected, root } satisfies Plan
  })

/** The members a scan looks for, most literal first: a member named `notes:12` wins. */
const wantedOf = (p: Plan): ReadonlyArray<string> =>
  [...new Set([p.whole, ...(p.split === undefined ? [] : [p.split.member])])].filter((path) => path !== "")

const infoFacts = (info: File.Info) =>
  Option.match(info.mtime, { onNone: () => ({}), onSome: (mtime) => ({ mtime: mtime.getTime() }) })

/** How long closing an archive waits for a read still in flight before interrupting it. */
const CLOSE_GRACE = Duration.seconds(5)

/** Reads through the platform `File`, one at a time (seek + read is not atomic). */
const byteSource = (file: FileSystem.File, size: number, onRead?: (end: number) => void) =>
  Effect.gen(function*() {
    const runtime = yield* Effect.runtime<never>()
    const lock = yield* Effect.makeSemaphore(1)
    const readAt = (position: number, length: number) =>
      lock.withPermits(1)(Effect.gen(function*() {
        yield* file.seek(position, "start")
        const buffer = Buffer.allocUnsafe(Math.max(0, length))
        let filled = 0
        while (filled < length) {
          const n = Number(yield* file.read(buffer.subarray(filled)))
          if (n === 0) break
          filled += n
        }
        return buffer.subarray(0, filled)
      }))
    // Streams may still ask for bytes after the scan settled: refuse them once the scope ends,
    // and let reads in flight finish before the file is closed (its descriptor could be reused).
    // A read that never finishes (a stalled mount) is interrupted after a grace period.
    const pending = new Set<Promise<unknown>>()
    const stop = new AbortController()
    let closed = false
    // Finalizers run uninterruptibly; waiting for reads must stay interruptible to time out.
    const settled = Effect.interruptible(Effect.promise(() => Promise.allSettled([...pending])))
    yield* Effect.addFinalizer(() =>
      Effect.suspend(() => {
        closed = true
        return settled.pipe(
          Effect.timeout(CLOSE_GRACE),
          Effect.catchAll(() => Effect.sync(() => stop.abort()).pipe(Effect.zipRight(settled)))
        )
      })
    )
    const source: ByteSource = {
      size,
      readAt: (position, length) => {
        if (closed) return Promise.reject(new ArchiveFailure("The archive was closed"))
        // Archive metadata can point anywhere: outside the file is its end, never a platform error.
        if (!Number.isSafeInteger(position) || position < 0 || position >= size) {
          return Promise.resolve(new Uint8Array(0))
        }
        const within = Math.max(0, Math.min(length, size - position))
        const read = Runtime.runPromise(runtime, Effect.either(readAt(position, within)), { signal: stop.signal })
          .then((result) => {
            if (result._tag === "Left") throw new PlatformFailure(result.left)
            onRead?.(position + result.right.length)
            return result.right
          })
        pending.add(read)
        const done = () => pending.delete(read)
        read.then(done, done)
        return read
      }
    }
    return { source, at: readAt, head: (length: number) => readAt(0, Math.min(length, size)) }
  })

const listingPath = (base: string, directory: string) => (directory === "" ? base : `${base}:${directory}/`)

const listing = (
  request: ContainerRequest,
  tree: ArchiveTree,
  directory: string,
  window: Params,
  notices: ReadonlyArray<string>
) =>
  Effect.gen(function*() {
    const path = listingPath(request.target.absolute, directory)
    const entries = tree.list(directory)
    const caps = yield* PageLimits
    const offset = Math.max(1, window.offset ?? 1)
    const limit = window.limit ?? caps.directoryEntries
    const total = entries.length
    if (offset > total && !(total === 0 && offset === 1)) {
      return yield* new OffsetOutOfRange({ path, offset, totalLines: total, unit: "entries" })
    }
    const page = entries.slice(offset - 1, offset - 1 + limit)
    const render = (shown: ReadonlyArray<string>, capped: boolean) =>
      [
        `<path>${path}</path>`,
        "<type>archive</type>",
        "<entries>",
        ...shown,
        "",
        ...notices,
        directoryFooter({ shown, offset, total, capped, maxBytes: caps.bytes }),
        "</entries>"
      ].join("\n")
    // Whole entries up to the byte cap: torch's wheel lists 7,048 headers in one directory.
    const shown = page.slice(0, entriesWithin(page, Buffer.byteLength(render([], false)), caps.bytes))
    const last = offset - 1 + shown.length
    const more = last < total
    const output = render(shown, shown.length < page.length)
    const result: ReadResult = {
      title: listingPath(request.target.relative, directory),
      output,
      metadata: {
        kind: "archive",
        path,
        preview: shown.slice(0, PREVIEW_LINES).join("\n"),
        truncated: more,
        ...(shown.length > 0 ? { startLine: offset, endLine: last } : {}),
        totalLines: total,
        ...(more ? { nextOffset: last + 1 } : {}),
        size: Number(request.info.size),
        ...infoFacts(request.info)
      }
    }
    return result
  })

/** The page of a listing a selector asks for (`:N` from entry N, `:A-B` entries A..B). */
const listingWindow = (request: ContainerRequest, directory: string, selection: Selection | SelectorError) =>
  Effect.gen(function*() {
    const path = listingPath(request.target.absolute, directory)
    if (selection instanceof SelectorError) return yield* new InvalidSelector({ path, reason: selection.message })
    yield* noParamsWith(request, selection)
    if (selection.pages !== undefined) return yield* new InvalidSelector({ path, reason: messages.pages })
    if (selection.ranges.length > 1) return yield* new InvalidSelector({ path, reason: messages.multiRange })
    if (selection.view !== undefined || selection.tail !== undefined) {
      return yield* new InvalidSelector({
        path,
        reason: `The :${
          selection.view ?? `-${selection.tail}`
        } selector reads a file's text; ${path} is a folder of the archive. Name a member: archive:dir/file:${
          selection.view ?? `-${selection.tail}`
        }.`
      })
    }
    const range = selection.ranges[0]
    return range === undefined
      ? request.params
      : { offset: range.start, ...(range.end === undefined ? {} : { limit: range.end - range.start + 1 }) }
  })

const noParamsWith = (request: ContainerRequest, selection: Selection) => {
  const { column, limit, offset } = request.params
  const selects = selection.ranges.length > 0 || selection.raw || selection.pages !== undefined
  return selects && (offset !== undefined || limit !== undefined || column !== undefined)
    ? new InvalidParams({
      reason: `the path '${request.target.relative}:${request.inner}' has a selector; ` +
        "do not also pass offset, limit or column (use one or the other)"
    })
    : Effect.void
}

/** The text of a text member's first `CONTENT_SNIFF_BYTES` (a streamed one is read that far), for what it holds. */
const firstText = (content: Exclude<Content, { readonly _tag: "Binary" }>): Effect.Effect<string | undefined> =>
  content._tag === "Text"
    ? Effect.sync(() => textOf(content.bytes.subarray(0, CONTENT_SNIFF_BYTES)))
    : Effect.tryPromise(async () => {
      const chunks: Array<Uint8Array> = []
      let length = 0
      const stream = content.open()
      try {
        for await (const chunk of stream) {
          chunks.push(chunk)
          length += chunk.length
          if (length >= CONTENT_SNIFF_BYTES) break
        }
      } finally {
        await stream.return(undefined)
      }
      return textOf(Buffer.concat(chunks).subarray(0, CONTENT_SNIFF_BYTES))
    }).pipe(Effect.orElseSucceed(() => undefined))

/** A member shown with the text pipeline; `path` undefined is a plain `.gz` showing its one file. */
const member = (
  request: ContainerRequest,
  limits: ArchiveLimits,
  path: string | undefined,
  entry: RawEntry,
  content: Content,
  selection: Selection,
  note?: string
) =>
  Effect.gen(function*() {
    const shown = path === undefined ? request.target.absolute : `${request.target.absolute}:${path}`
    if (selection.pages !== undefined) return yield* new InvalidSelector({ path: shown, reason: messages.pages })
    yield* noParamsWith(request, selection)
    // A member is asked about as a file at `<archive>/<member>` is: by name, then by what it holds.
    const inside = memberTarget(request.target, path ?? entry.name)
    yield* askRead(inside, inside.real)
    if (content._tag !== "Binary") yield* askContent(inside, firstText(content))
    const title = path === undefined ? request.target.relative : `${request.target.relative}:${path}`
    const mtime = entry.mtime === undefined ? {} : { mtime: entry.mtime }
    // Binary bytes answer as they would in a file of their own: `BinaryFile`, saying what they
    // look like (a member has no other way to be read; a success would claim it was shown).
    if (content._tag === "Binary") {
      const sniffed = yield* Effect.promise(() => fileTypeFromBuffer(content.head).catch(() => undefined))
      const looks = describeBinary(sniffed, content.head, extensionOf(entry.name))
      return yield* path === undefined
        ? new BinaryFile({ path: shown, description: `it compresses '${entry.name}', ${looks}` })
        : new BinaryFile({ path: shown, description: looks, size: entry.size })
    }
    if (content._tag === "Stream") {
      return yield* streamed(request, limits, { path: shown, title, content, selection, mtime, note })
    }
    const { bytes, detection } = content
    const text = bytes.subarray(detection.bomLength)
    const unit = detection.codec.unit
    const lastUnit = text.subarray(Math.max(0, text.length - unit))
    const low = detection.codec.bigEndian ? unit - 1 : 0
    const finalNewline = lastUnit.length === unit && (lastUnit[low] === 10 || lastUnit[low] === 13) &&
      lastUnit.every((byte, k) => k === low || byte === 0)
    return yield* presentText({
      path: shown,
      title,
      kind: "archive",
      pageAt: memoryPageAt(text, detection.codec),
      tailAt: memoryTailAt(text, detection.codec),
      selection,
      ...(note === undefined ? {} : { note }),
      params: request.params,
      facts: { fileSize: bytes.length, encoding: detection.codec.encoding, replaced: detection.fallback },
      metadata: {
        size: bytes.length,
        encoding: detection.codec.encoding,
        bom: detection.bomLength > 0,
        finalNewline,
        ...mtime
      }
    })
  })

/**
 * A text member too large to hold, paged by streaming it from its start for each page (a tail
 * counts its lines in one pass, then pages them in another): bounded memory, and each pass within
 * the archive's time limit. A page short of the end does not know the total, and says so.
 */
const streamed = (
  request: ContainerRequest,
  limits: ArchiveLimits,
  member: {
    readonly path: string
    readonly title: string
    readonly content: Streamed
    readonly selection: Selection
    readonly mtime: { readonly mtime?: number }
    readonly note: string | undefined
  }
) =>
  Effect.gen(function*() {
    const { content, path, selection } = member
    const view = selection.view ?? request.params.view
    const search = selection.search ?? request.params.search
    if (view !== undefined || request.params.context !== undefined || search !== undefined) {
      return yield* new InvalidParams({
        reason: `${path} inflates to more than ${formatBytes(limits.maxMemberBytes)}, so it is read page by page: ${
          search !== undefined ? "search" : view === undefined ? "context" : `view "${view}"`
        } needs it whole. Read it with offset/limit (a negative offset reads its end).`
      })
    }
    const { codec } = content.detection
    const failed = (error: unknown) =>
      error instanceof ArchiveFailure
        ? new ArchiveError({ path: request.target.absolute, reason: error.reason })
        : error instanceof PlatformFailure
        ? fromPlatformError(request.target.absolute, error.error)
        : new ArchiveError({ path: request.target.absolute, reason: `Cannot read archive: ${String(error)}` })
    const pageTo = (page: PageRequest, countAhead: number) =>
      Effect.tryPromise({
        try: (signal) =>
          pageStream(content, {
            offset: page.offset,
            limit: page.limit,
            column: page.column,
            maxBytes: page.maxBytes,
            maxLineLength: page.maxLineLength ?? MAX_LINE_LENGTH,
            countAhead
          }, signal),
        catch: failed
      }).pipe(
        Effect.timeoutFail({
          duration: Duration.millis(limits.maxPassMillis),
          onTimeout: () => new ArchiveError({ path: request.target.absolute, reason: messages.deadline(limits) })
        })
      )
    const pageAt: PageAt<ArchiveError | ReadError, never> = (page) => pageTo(page, 0)
    // A tail: one pass counts the lines, a second pages the last ones to the end (its total known).
    const tailAt: TailAt<ArchiveError | ReadError, never> = (tail) =>
      tailByCounting((page) => page.offset === Number.MAX_SAFE_INTEGER ? pageAt(page) : pageTo(page, Infinity), tail)
    const size = content.size ?? Number(request.info.size)
    const whole = content.size === undefined
      ? `the ${formatBytes(size)} gzip file`
      : `the ${formatBytes(size)} member`
    return yield* presentText({
      path,
      title: member.title,
      kind: "archive",
      pageAt,
      tailAt,
      selection,
      ...(member.note === undefined ? {} : { note: member.note }),
      params: request.params,
      facts: {
        fileSize: size,
        encoding: codec.encoding,
        replaced: content.detection.fallback,
        unknownTotal: `the total is not known without inflating all of ${whole} (a negative offset reads its end)`
      },
      metadata: { size, encoding: codec.encoding, bom: content.detection.bomLength > 0, ...member.mtime }
    })
  })

/** A plain `.gz`: its one file, whole (`a.gz`, `a.gz:<name>`) or by lines (`a.gz:10-20`, `a.gz:<name>:10-20`). */
const single = (request: ContainerRequest, limits: ArchiveLimits, p: Plan, file: NonNullable<ScanResult["single"]>) =>
  Effect.gen(function*() {
    const archive = request.target.absolute
    const selection = p.whole === "" || p.whole === file.name
      ? noSelection
      : p.split !== undefined && p.split.member === file.name
      ? p.split.selection
      : p.root
    if (selection === undefined) {
      return yield* new ArchiveError({
        path: archive,
        member: p.whole,
        reason: messages.gzipMember(p.whole, archive, file.name)
      })
    }
    if (selection instanceof SelectorError) {
      return yield* new InvalidSelector({ path: archive, reason: selection.message })
    }
    const entry: RawEntry = { name: file.name, kind: "file", size: file.size, ...infoFacts(request.info) }
    return yield* member(request, limits, undefined, entry, file.content, selection)
  })

/** Decide what the scan found: a member, a directory listing, or why neither. */
const resolve = (request: ContainerRequest, limits: ArchiveLimits, p: Plan, scan: ScanResult) =>
  Effect.gen(function*() {
    const archive = request.target.absolute
    if (scan.single !== undefined) return yield* single(request, limits, p, scan.single)
    if (scan.found !== undefined) {
      const { content, entry, path } = scan.found
      const selection = path === p.whole ? noSelection : p.split!.selection
      if (selection instanceof SelectorError) {
        return yield* new InvalidSelector({ path: `${archive}:${path}`, reason: selection.message })
      }
      const note = scan.damaged === undefined
        ? undefined
        : `(The archive is damaged after this member, so a later copy of it could not be looked for: ${scan.damaged})`
      return yield* member(request, limits, path, entry, content, selection, note)
    }
    const tree = new ArchiveTree(scan.table)
    const rootNotices = [
      ...(scan.table.entries.length === 0 && scan.table.refused.length === 0 ? ["(Empty archive)"] : []),
      ...[refusedNotice(scan.table.refused), replacedNotice(scan.table), omittedNotice(scan.table)].filter(
        (n): n is string => n !== undefined
      )
    ]
    const notices = (directory: string) => (directory === "" ? rootNotices : [])
    if (tree.isDirectory(p.whole)) return yield* listing(request, tree, p.whole, request.params, notices(p.whole))
    if (p.split !== undefined && tree.isDirectory(p.split.member)) {
      const window = yield* listingWindow(request, p.split.member, p.split.selection)
      return yield* listing(request, tree, p.split.member, window, notices(p.split.member))
    }
    if (p.root !== undefined) {
      return yield* listing(request, tree, "", yield* listingWindow(request, "", p.root), rootNotices)
    }
    for (const path of wantedOf(p)) {
      const entry = tree.entry(path)
      if (entry?.kind === "link") {
        const target = linkTargetPath(entry)
        const inside = target !== undefined && (tree.entry(target) !== undefined || tree.isDirectory(target))
        return yield* new ArchiveError({
          path: archive,
          member: path,
          reason: messages.link(
            path,
            entry.hardLink === true,
            entry.linkTarget,
            inside ? `${archive}:${target}` : undefined
          )
        })
      }
      if (entry?.kind === "special") {
        return yield* new ArchiveError({
          path: archive,
          member: path,
          reason: messages.special(path, entry.special ?? "special file")
        })
      }
    }
    const missing = p.split?.member ?? p.whole
    // `inner.zip:x` names a member of an archive inside this one: say that, not "not found".
    for (const match of missing.matchAll(/:/g)) {
      const outer = missing.slice(0, match.index)
      if (tree.entry(outer)?.kind === "file" && archiveExtension.test(outer)) {
        const rest = missing.slice(match.index + 1)
        return yield* new ArchiveError({
          path: archive,
          member: missing,
          reason: messages.nested(outer, rest, archive)
        })
      }
    }
    // A member a rule denies is never named.
    const suggestions = yield* Effect.filter(
      tree.suggest(missing),
      (path) => Effect.map(checkRead(memberTarget(request.target, path)), (action) => action !== "deny")
    ).pipe(Effect.map((paths) => paths.map((path) => `${archive}:${path}`)))
    const omitted = scan.table.omitted > 0
      ? `\n\n(Only the first ${scan.table.entries.length} entries of the archive were indexed.)`
      : ""
    return yield* new ArchiveError({
      path: archive,
      member: missing,
      reason: messages.notFound(missing, archive, suggestions) + omitted
    })
  })

/** The archive read with explicit limits (tests use small ones). */
export const readArchiveWith = (limits: ArchiveLimits) =>
  Effect.fn("Read.archive")(function*(request: ContainerRequest) {
    const archive = request.target.absolute
    const format = archiveFormat(archive)
    const p = yield* plan(request)
    const size = Number(request.info.size)
    if (size === 0) return yield* new ArchiveError({ path: archive, reason: messages.empty(format) })
    const failed = (error: unknown) => {
      if (error instanceof PlatformFailure) return fromPlatformError(archive, error.error)
      if (error instanceof ArchiveFailure) {
        return new ArchiveError({
          path: archive,
          ...(error.member === undefined ? {} : { member: error.member }),
          reason: error.reason
        })
      }
      return new ArchiveError({ path: archive, reason: `Cannot read archive: ${String(error)}` })
    }
    return yield* Effect.scoped(Effect.gen(function*() {
      // The descriptor the registry checked and sniffed: the path may lead elsewhere by now.
      const file = request.file ?? (yield* openChecked(request.target))
      const opened = yield* file.stat.pipe(Effect.mapError((e) => fromPlatformError(archive, e)))
      // Progress: how far into the file a tar scan got; how many central-directory entries a zip's.
      const progress = yield* Progress
      const task = `Scanning ${archive}`
      let reached = 0
      const { at, head, source } = yield* byteSource(file, size, (end) => {
        if (format === "zip" || end <= reached) return
        reached = end
        progress.report({ task, done: end, total: size, unit: "bytes" })
      })
      const first = yield* head(512).pipe(Effect.mapError((e) => fromPlatformError(archive, e)))
      const wanted = wantedOf(p)
      if (format === "gz" && !isGzip(first)) {
        const text = first.length > 0 && !isBinarySample(first)
        return yield* new ArchiveError({ path: archive, reason: messages.notGzip(archive, text) })
      }
      // A plain `.gz` names its one file in its header, or by its own name without `.gz`.
      const compressed = gzipName(first) ?? archive.split(/[\\/]/).pop()!.replace(/\.gz$/i, "")
      // An archive that changes under the scan is reported as changed, not as corrupt.
      // Its last bytes (the zip directory): an append leaves them, a rewrite that grew it does not.
      const openedSize = Number(opened.size)
      const tailAt = Math.max(0, openedSize - TAIL_BYTES)
      const tail = at(tailAt, openedSize - tailAt).pipe(Effect.orElseSucceed(() => undefined))
      const scan = yield* Effect.flatMap(tail, (before) =>
        confirmUnchanged(
          file,
          request.target,
          opened,
          Effect.tryPromise({
            try: (signal) =>
              format === "zip"
                ? scanZip(
                  source,
                  wanted,
                  limits,
                  signal,
                  (done, total) => progress.report({ task, done, total, unit: "entries" })
                )
                : format === "gz"
                ? scanGzip(source, compressed, wanted, limits, signal)
                : scanTar(source, isGzip(first), wanted, limits, signal),
            catch: failed
          }).pipe(
            Effect.catchIf(
              (error): error is ArchiveError =>
                error._tag === "ArchiveError" && format === "zip" && !looksLikeArchive(archive, first),
              (error) => Effect.fail(notAZip(archive, first, error))
            )
          ),
          { before, again: tail }
        )).pipe(
          // Whatever a damaged archive does to the parsers, the pass ends: a typed error, never a hang.
          Effect.timeoutFail({
            duration: Duration.millis(limits.maxPassMillis),
            onTimeout: () => new ArchiveError({ path: archive, reason: messages.deadline(limits) })
          })
        )
      return yield* resolve(request, limits, p, scan)
    }))
  })

/** A `.zip` that is not ZIP data at all: say what it is rather than how the parse failed. */
const notAZip = (archive: string, head: Uint8Array, error: ArchiveError) => {
  return head.length > 0 && !isBinarySample(head)
    ? new ArchiveError({
      path: archive,
      reason: `Not a ZIP archive: ${archive} has a .zip name but holds text (no ZIP signature)`
    })
    : error
}

export const readArchive = readArchiveWith(ARCHIVE_LIMITS)
