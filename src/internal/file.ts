/**
 * Regular files: sniff the first bytes, then attach media, refuse binary, or stream a page of
 * text through the line pager, stopping as soon as the page and its footer are known.
 */
import type { File } from "@effect/platform/FileSystem"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { fileTypeFromBuffer } from "file-type"
import { BinaryFile, InvalidMedia, MediaTooLarge, OffsetOutOfRange } from "../ReadError.js"
import type { Target } from "./access.js"
import { binaryExtensions, isBinarySample, SAMPLE_BYTES } from "./binary.js"
import { DEFAULT_LIMIT, LinePager, MAX_BYTES, MAX_LINE_LENGTH, type Page } from "./lines.js"
import { incompleteReason, MAX_MEDIA_BYTES, mediaExtensions, mediaKind } from "./media.js"
import { fromPlatformError } from "./platformError.js"
import { FOOTER_RESERVE, header, renderText } from "./render.js"

const PREVIEW_LINES = 20
/** Bytes read per call while streaming text: large enough to amortise calls, small enough to stay cache-friendly. */
const CHUNK_BYTES = 64 * 1024
const BOM = [0xef, 0xbb, 0xbf] as const

interface Params {
  readonly offset?: number | undefined
  readonly limit?: number | undefined
}

const utf8Length = (text: string): number => new TextEncoder().encode(text).length

const facts = (info: File.Info) => ({
  size: Number(info.size),
  ...Option.match(info.mtime, { onNone: () => ({}), onSome: (mtime) => ({ mtime: mtime.getTime() }) })
})

/** Fill `buffer` from the file's current position; fewer bytes only at end of file. */
const readFully = (file: FileSystem.File, buffer: Uint8Array) =>
  Effect.gen(function*() {
    let filled = 0
    while (filled < buffer.length) {
      const n = Number(yield* file.read(buffer.subarray(filled)))
      if (n === 0) break
      filled += n
    }
    return filled
  })

const sniffMime = (sample: Uint8Array) =>
  Effect.promise(() => fileTypeFromBuffer(sample).catch(() => undefined)).pipe(
    Effect.map((type) => type?.mime)
  )

const attach = Effect.fn("Read.attach")(function*(target: Target, info: File.Info, mime: string) {
  const fs = yield* FileSystem.FileSystem
  const kind = mediaKind(mime)!
  const size = Number(info.size)
  if (size > MAX_MEDIA_BYTES) {
    return yield* new MediaTooLarge({ path: target.absolute, mime, size, maxSize: MAX_MEDIA_BYTES })
  }
  const bytes = yield* fs.readFile(target.absolute).pipe(Effect.mapError((e) => fromPlatformError(target.absolute, e)))
  const incomplete = incompleteReason(mime, bytes)
  if (incomplete !== undefined) return yield* new InvalidMedia({ path: target.absolute, reason: incomplete })
  const message = `${kind === "image" ? "Image" : "PDF"} read successfully`
  // Node's native encoder: `Encoding.encodeBase64` takes seconds on a 20 MB attachment.
  const base64 = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64")
  return {
    title: target.relative,
    output: message,
    metadata: { kind, path: target.absolute, preview: message, truncated: false, mime, ...facts(info) },
    attachments: [{ type: "file" as const, mime, url: `data:${mime};base64,${base64}` }]
  }
})

const streamPage = (file: FileSystem.File, start: number, pager: LinePager) =>
  Effect.gen(function*() {
    yield* file.seek(start, "start")
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES)
    while (!pager.done) {
      const n = Number(yield* file.read(buffer))
      if (n === 0) break
      pager.push(buffer.subarray(0, n))
    }
    return pager.end()
  })

const textResult = (target: Target, info: File.Info, page: Page) => {
  const last = page.offset + page.lines.length - 1
  const more = page.stoppedBy !== "eof"
  return {
    title: target.relative,
    output: renderText(target.absolute, page),
    metadata: {
      kind: "text" as const,
      path: target.absolute,
      preview: page.lines.slice(0, PREVIEW_LINES).join("\n"),
      truncated: more || page.linesCut > 0,
      ...(page.lines.length > 0 ? { startLine: page.offset, endLine: last } : {}),
      ...(page.totalLines !== undefined ? { totalLines: page.totalLines } : {}),
      ...(more ? { nextOffset: last + 1 } : {}),
      ...(page.linesCut > 0 ? { linesCut: page.linesCut } : {}),
      ...facts(info)
    }
  }
}

export const readFile = Effect.fn("Read.file")(function*(target: Target, info: File.Info, params: Params) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const ext = path.extname(target.absolute).toLowerCase()
  const offset = Math.max(1, params.offset ?? 1)
  const promised = mediaExtensions.get(ext)
  const failed = (error: Parameters<typeof fromPlatformError>[1]) => fromPlatformError(target.absolute, error)

  return yield* Effect.scoped(Effect.gen(function*() {
    const file = yield* fs.open(target.absolute, { flag: "r" }).pipe(Effect.mapError(failed))
    const sample = new Uint8Array(Math.min(SAMPLE_BYTES, Number(info.size)))
    const sampled = yield* readFully(file, sample).pipe(Effect.mapError(failed))
    const head = sample.subarray(0, sampled)

    if (head.length === 0 && promised !== undefined) {
      return yield* new InvalidMedia({ path: target.absolute, reason: "the file is empty" })
    }
    // Bytes decide, not names: JPEG bytes in a `.bin` are an image, a `.png` holding HTML is not.
    const sniffed = head.length === 0 ? undefined : yield* sniffMime(head)
    if (sniffed !== undefined && mediaKind(sniffed) !== undefined) {
      return yield* attach(target, info, sniffed)
    }
    if (promised !== undefined) {
      return yield* new InvalidMedia({
        path: target.absolute,
        reason: `the name says ${promised} but the content is ${
          sniffed ?? (isBinarySample(head) ? "not a recognised format" : "text")
        }`
      })
    }
    if (binaryExtensions.has(ext) || isBinarySample(head)) {
      return yield* new BinaryFile({ path: target.absolute })
    }

    const hasBom = BOM.every((byte, i) => head[i] === byte)
    const pager = new LinePager({
      offset,
      limit: params.limit ?? DEFAULT_LIMIT,
      maxLineLength: MAX_LINE_LENGTH,
      maxBytes: MAX_BYTES - utf8Length(header(target.absolute, "file")) - FOOTER_RESERVE
    })
    const page = yield* streamPage(file, hasBom ? BOM.length : 0, pager).pipe(Effect.mapError(failed))
    const total = page.totalLines
    if (total !== undefined && offset > total && !(total === 0 && offset === 1)) {
      return yield* new OffsetOutOfRange({ path: target.absolute, offset, totalLines: total, unit: "lines" })
    }
    return textResult(target, info, page)
  }))
})
