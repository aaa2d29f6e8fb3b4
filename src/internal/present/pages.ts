/**
 * Pages of a text: what a presentation asks of the text it shows (a page at an offset, a tail),
 * and the pagers over bytes already in memory. Files page through their own pager (the text
 * source); archive members, converted documents and web pages page here.
 */
import * as Effect from "effect/Effect"
import { type Codec, utf8 } from "../core/encoding.js"
import { lineMeasure, LinePager, MAX_BYTES, MAX_LINE_LENGTH, type Page } from "../core/lines.js"
import type { TextFacts } from "../core/render.js"
import type { Selection } from "../core/selector.js"
import { fitNumbered, tailStartOf } from "../core/tail.js"
import type { Params } from "../sources/types.js"

/** One page of lines to produce: from `offset`, at most `limit` lines and `maxBytes` bytes. */
export interface PageRequest {
  readonly offset: number
  readonly limit: number
  readonly column: number
  readonly maxBytes: number
  /** Characters kept of a line (default `MAX_LINE_LENGTH`): the structure views read lines whole. */
  readonly maxLineLength?: number | undefined
}

/** Produces a page of lines: from a file through the line index, or from bytes in memory. */
export type PageAt<E, R> = (request: PageRequest) => Effect.Effect<Page, E, R>

/** What a tail asks: the last `count` lines, `limit` of them from the first (all when undefined). */
export interface TailRequest {
  readonly count: number
  readonly limit: number | undefined
  readonly maxBytes: number
  /** Characters kept of a line (`PageLimits.lineLength`; default `MAX_LINE_LENGTH`). */
  readonly maxLineLength?: number | undefined
}

/**
 * Produces the page of a tail: its first line numbered truly, its total known. When the window
 * reaches the end, the page cap keeps the last lines that fit rather than the first.
 */
export type TailAt<E, R> = (request: TailRequest) => Effect.Effect<Page, E, R>

/** The window reaches the end of the text: the page cap then trims its start, not its end. */
export const reachesEnd = (request: TailRequest): boolean =>
  request.limit === undefined || request.limit >= request.count

/** The pager options of a tail's forward read from its first line. */
export const tailPageOptions = (request: TailRequest, first: number, lines: number) => ({
  offset: first,
  limit: Math.max(1, Math.min(request.limit ?? lines, lines)),
  maxLineLength: request.maxLineLength ?? MAX_LINE_LENGTH,
  maxBytes: request.maxBytes,
  countAhead: Infinity
})

/**
 * A tail of bytes in memory: walk back from the end to the first line wanted, count the lines
 * before it, and page forward from there.
 */
export const memoryTailAt = (bytes: Uint8Array, codec: Codec = utf8): TailAt<never, never> => (request) =>
  // A stateful encoding's shift state is only known from the start: count forward instead.
  codec.tracker !== undefined ? tailByCounting(memoryPageAt(bytes, codec), request) : Effect.sync(() => {
    const scan = tailStartOf(bytes, {
      count: request.count,
      maxBytes: reachesEnd(request) ? request.maxBytes : Infinity,
      unit: codec.unit,
      low: codec.bigEndian ? codec.unit - 1 : 0,
      origin: 0,
      measure: lineMeasure(codec, request.maxLineLength)
    })
    const counted = scan.atOrigin ? 0 : countLines(bytes.subarray(0, scan.position), codec)
    const { lines, position, skipped } = fitNumbered(scan, counted, request.maxBytes)
    const before = counted + skipped
    const pager = new LinePager(tailPageOptions(request, before + 1, lines), codec, { lines: before, position })
    pager.push(bytes.subarray(position))
    return pager.end(true)
  })

/** Lines in bytes that end at a line start (after a terminator, or empty). */
export const countLines = (bytes: Uint8Array, codec: Codec = utf8): number => {
  const pager = new LinePager({
    offset: Number.MAX_SAFE_INTEGER,
    limit: 1,
    maxLineLength: MAX_LINE_LENGTH,
    maxBytes: MAX_BYTES
  }, codec)
  pager.push(bytes)
  return pager.end(true).totalLines ?? 0
}

/** A tail from any pager: count every line (a page past the end), then page the last ones. */
export const tailByCounting = <E, R>(pageAt: PageAt<E, R>, request: TailRequest): Effect.Effect<Page, E, R> =>
  Effect.gen(function*() {
    const past = yield* pageAt({ offset: Number.MAX_SAFE_INTEGER, limit: 1, column: 1, maxBytes: request.maxBytes })
    const total = past.totalLines ?? past.linesAtLeast
    const first = Math.max(1, total - request.count + 1)
    return yield* pageAt({
      offset: first,
      limit: Math.min(request.limit ?? request.count, total - first + 1, request.count) || 1,
      column: 1,
      maxBytes: request.maxBytes,
      maxLineLength: request.maxLineLength
    })
  })

/** Paging over bytes already in memory (converted documents, archive members). */
export const memoryPageAt = (bytes: Uint8Array, codec: Codec = utf8): PageAt<never, never> => (request) =>
  Effect.sync(() => {
    const pager = new LinePager({
      offset: request.offset,
      limit: request.limit,
      maxLineLength: request.maxLineLength ?? MAX_LINE_LENGTH,
      maxBytes: request.maxBytes,
      column: request.column
    }, codec)
    pager.push(bytes)
    return pager.end(true)
  })

/** What a view needs of the text being presented (`PresentOptions` below extends it). */
export interface ViewSource<E, R> {
  /** The path shown in `<path>` (absolute; for members `archive.zip:dir/file`). */
  readonly path: string
  readonly title: string
  readonly kind: "text" | "archive" | "notebook" | "document" | "web"
  readonly pageAt: PageAt<E, R>
  readonly selection: Selection
  readonly params: Params
  /** Text printed before the lines (a note such as a path recovery). */
  readonly note?: string | undefined
  readonly metadata: object
}

export interface SourceMetadata {
  readonly size: number
  readonly mtime?: number
  readonly encoding?: string
  readonly bom?: boolean
  readonly finalNewline?: boolean
  readonly mime?: string
  /** Web pages: the final URL, HTTP status and `Content-Type`. */
  readonly url?: string
  readonly status?: number
  readonly contentType?: string
  /** Hashline reads: the `¶PATH#TAG` header, or why the file has none. */
  readonly anchor?: string
  readonly anchorOmitted?: string
}

/** The text to present: what a view reads (path, title, kind, pages, selection, params, note), and more. */
export interface PresentOptions<E, R> extends ViewSource<E, R> {
  /** The tail of the text (a negative offset, `:-N`); counted from `pageAt` when not given. */
  readonly tailAt?: TailAt<E, R> | undefined
  /** What the footers say of the text; the page's byte cap is added by `presentText` (the one in force). */
  readonly facts: Omit<TextFacts, "maxBytes">
  /** Metadata of the source (size, mtime, encoding, …) merged into the result's. */
  readonly metadata: SourceMetadata
  /** Hashline format (editable files only): `N:text` lines under this header, if any. */
  readonly hashline?: { readonly header: string | undefined } | undefined
}

/** Lines scanned per page when a view walks the whole text. */
export const SCAN_LINES = 8192
export const SCAN_BYTES = 4 * 1024 * 1024

/**
 * Every line of the text, in order, a page at a time: memory stays at one page whatever the
 * size (a file's line index makes each next page start near its first line).
 */
export const eachLine = <E, R>(pageAt: PageAt<E, R>, f: (number: number, line: string) => void) =>
  Effect.gen(function*() {
    let offset = 1
    for (;;) {
      const page = yield* pageAt({ offset, limit: SCAN_LINES, column: 1, maxBytes: SCAN_BYTES })
      page.lines.forEach((line, i) => f(offset + i, line))
      if (page.stoppedBy === "eof" || page.lines.length === 0) return page.totalLines ?? offset - 1 + page.lines.length
      offset += page.lines.length
    }
  })
