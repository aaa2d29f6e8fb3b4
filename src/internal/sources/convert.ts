/**
 * Shared by notebooks and documents: refuse files over the size cap, convert once (a small cache
 * keeps recent conversions so paging through a document does not convert it again), then page,
 * number, cap and continue the text exactly like a file through `presentText`.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { ConversionFailed, formatBytes, InvalidSelector } from "../../ReadError.js"
import { memoryPageAt, memoryTailAt } from "../present/pages.js"
import { presentText } from "../present/text.js"
import { readAllFrom, readChecked } from "../read/open.js"
import { PageOutOfRange, reasonOf } from "./document/failure.js"
import { CACHE_CHARS, CACHE_ENTRIES, MAX_DOCUMENT_BYTES, MAX_TEXT_CHARS } from "./document/limits.js"
import type { Converted } from "./document/types.js"
import type { FileRequest } from "./types.js"

/** Text past `MAX_TEXT_CHARS` is cut at a line boundary, with a notice. */
const capped = (text: string): string => {
  if (text.length <= MAX_TEXT_CHARS) return text
  const cut = text.lastIndexOf("\n", MAX_TEXT_CHARS)
  return `${text.slice(0, cut > 0 ? cut : MAX_TEXT_CHARS)}\n[conversion stopped: the converted text passed ${
    formatBytes(MAX_TEXT_CHARS)
  }; the rest is not shown]\n`
}

interface Entry {
  readonly bytes: Uint8Array
  readonly chars: number
  readonly note: string | undefined
}

/** Least recently used first (Map keeps insertion order; a hit re-inserts). */
const cache = new Map<string, Entry>()

const remember = (key: string, entry: Entry): void => {
  if (entry.chars > CACHE_CHARS) return
  cache.delete(key)
  cache.set(key, entry)
  let total = 0
  for (const cached of cache.values()) total += cached.chars
  for (const [oldest, cached] of cache) {
    if (cache.size <= CACHE_ENTRIES && total <= CACHE_CHARS) break
    cache.delete(oldest)
    total -= cached.chars
  }
}

const recall = (key: string): Entry | undefined => {
  const entry = cache.get(key)
  if (entry !== undefined) {
    cache.delete(key)
    cache.set(key, entry)
  }
  return entry
}

export interface ConvertOptions {
  /** Named in errors: `Cannot read ${format} file …`. */
  readonly format: string
  readonly kind: "notebook" | "document"
  readonly mime: string
  /** What else the conversion depends on besides the file (e.g. the page range). */
  readonly variant: string
  readonly convert: (bytes: Uint8Array, signal: AbortSignal) => Promise<Converted>
}

export const convertAndPresent = Effect.fn("Read.convert")(function*(request: FileRequest, options: ConvertOptions) {
  const { info, target } = request
  const path = target.absolute
  const size = Number(info.size)
  if (size > MAX_DOCUMENT_BYTES) {
    return yield* new ConversionFailed({
      path,
      format: options.format,
      reason: `the file is ${formatBytes(size)}, over the ${
        formatBytes(MAX_DOCUMENT_BYTES)
      } limit for converting a ${options.kind} to text`
    })
  }
  const mtime = Option.match(info.mtime, { onNone: () => 0, onSome: (date) => date.getTime() })
  const key = [options.kind, path, size, mtime, Option.getOrElse(info.ino, () => 0), options.variant].join("\0")
  let entry = recall(key)
  if (entry === undefined) {
    // The descriptor the registry checked, when there is one: the path may lead elsewhere by now.
    const bytes = request.file === undefined
      ? yield* readChecked(target)
      : yield* readAllFrom(request.file, target, size)
    const converted = yield* Effect.tryPromise({
      try: (signal) => options.convert(bytes, signal),
      catch: (error) =>
        error instanceof PageOutOfRange
          ? new InvalidSelector({ path, reason: error.message })
          : new ConversionFailed({ path, format: options.format, reason: reasonOf(error) })
    })
    const text = capped(converted.text)
    entry = { bytes: new TextEncoder().encode(text), chars: text.length, note: converted.note }
    remember(key, entry)
  }
  return yield* presentText({
    path,
    title: target.relative,
    kind: options.kind,
    pageAt: memoryPageAt(entry.bytes),
    tailAt: memoryTailAt(entry.bytes),
    selection: request.selection,
    params: request.params,
    note: entry.note,
    facts: { fileSize: entry.bytes.length, encoding: "utf-8", replaced: false },
    metadata: {
      size,
      ...Option.match(info.mtime, { onNone: () => ({}), onSome: (date) => ({ mtime: date.getTime() }) }),
      mime: options.mime
    }
  })
})
