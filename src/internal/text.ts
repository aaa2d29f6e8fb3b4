/**
 * Presenting text: one page, several selected ranges, or raw text — the same rules whether the
 * lines stream from a file or come from memory (archive members, notebooks, documents).
 */
import * as Effect from "effect/Effect"
import type { ReadResult } from "../ReadResult.js"
import { ColumnOutOfRange, OffsetOutOfRange } from "../ReadError.js"
import { type Codec, utf8 } from "./core/encoding.js"
import { DEFAULT_LIMIT, type LineEndings, LinePager, MAX_BYTES, MAX_LINE_LENGTH, type Page } from "./core/lines.js"
import { FOOTER_RESERVE, header, renderRanges, renderText, type TextFacts } from "./core/render.js"
import type { Selection } from "./core/selector.js"

const PREVIEW_LINES = 20

export type LineEnding = "lf" | "crlf" | "cr" | "mixed" | "none"

export const lineEndingOf = (endings: LineEndings): LineEnding => {
  const kinds = (["lf", "crlf", "cr"] as const).filter((kind) => endings[kind] > 0)
  return kinds.length === 0 ? "none" : kinds.length === 1 ? kinds[0]! : "mixed"
}

export interface PageRequest {
  readonly offset: number
  readonly limit: number
  readonly column: number
  readonly maxBytes: number
}

/** Produces a page of lines: from a file through the line index, or from bytes in memory. */
export type PageAt<E, R> = (request: PageRequest) => Effect.Effect<Page, E, R>

/** Paging over bytes already in memory (converted documents, archive members). */
export const memoryPageAt = (bytes: Uint8Array, codec: Codec = utf8): PageAt<never, never> => (request) =>
  Effect.sync(() => {
    const pager = new LinePager({
      offset: request.offset,
      limit: request.limit,
      maxLineLength: MAX_LINE_LENGTH,
      maxBytes: request.maxBytes,
      column: request.column
    }, codec)
    pager.push(bytes)
    return pager.end(true)
  })

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

export interface PresentOptions<E, R> {
  /** The path shown in `<path>` (absolute; for members `archive.zip:dir/file`). */
  readonly path: string
  readonly title: string
  readonly kind: "text" | "archive" | "notebook" | "document" | "web"
  readonly pageAt: PageAt<E, R>
  readonly selection: Selection
  readonly params: { readonly offset?: number | undefined; readonly limit?: number | undefined; readonly column?: number | undefined }
  readonly facts: TextFacts
  /** Metadata of the source (size, mtime, encoding, …) merged into the result's. */
  readonly metadata: SourceMetadata
  /** Text printed before the lines (a note such as a path recovery). */
  readonly note?: string | undefined
  /** Hashline format (editable files only): `N:text` lines under this header, if any. */
  readonly hashline?: { readonly header: string | undefined } | undefined
}

const outOfRange = (path: string, offset: number, page: Page) => {
  const total = page.totalLines
  return total !== undefined && offset > total && !(total === 0 && offset === 1)
    ? new OffsetOutOfRange({ path, offset, totalLines: total, unit: "lines" })
    : undefined
}

/** Page and render text by `params` or by the path's selector. */
export const presentText = <E, R>(
  options: PresentOptions<E, R>
): Effect.Effect<ReadResult, E | OffsetOutOfRange | ColumnOutOfRange, R> =>
  Effect.gen(function*() {
    const { path, selection, params } = options
    const hashline = selection.raw ? undefined : options.hashline
    const budget = MAX_BYTES -
      new TextEncoder().encode(header(path, "file") + (options.note ?? "") + (hashline?.header ?? "")).length -
      FOOTER_RESERVE
    const ranges = selection.ranges.length > 0
      ? selection.ranges
      : [{ start: Math.max(1, params.offset ?? 1), end: undefined }]
    const limitOf = (range: { readonly start: number; readonly end: number | undefined }) =>
      range.end === undefined ? params.limit ?? DEFAULT_LIMIT : range.end - range.start + 1

    const pages: Array<Page> = []
    const skipped: Array<string> = []
    let remaining = budget
    for (const range of ranges) {
      const page = yield* options.pageAt({
        offset: range.start,
        limit: limitOf(range),
        column: pages.length === 0 ? params.column ?? 1 : 1,
        maxBytes: remaining
      })
      if (page.columnPastEnd !== undefined) {
        return yield* new ColumnOutOfRange({
          path,
          line: range.start,
          column: params.column ?? 1,
          lineLength: page.columnPastEnd
        })
      }
      const beyond = outOfRange(path, range.start, page)
      if (beyond !== undefined) {
        // One range past the end is an error; in a list of ranges it is skipped with a notice.
        if (ranges.length === 1) return yield* beyond
        skipped.push(
          `(Range ${range.start}${range.end === undefined ? "" : `-${range.end}`} is beyond the end of the file (${beyond.totalLines} lines); skipped.)`
        )
        continue
      }
      pages.push(page)
      remaining -= page.rendered.reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0)
      if (page.stoppedBy === "bytes" || remaining <= 0) break
    }
    if (pages.length === 0) {
      const first = ranges[0]!
      return yield* outOfRange(path, first.start, yield* options.pageAt({ offset: first.start, limit: 1, column: 1, maxBytes: budget }))!
    }

    const first = pages[0]!
    const lastPage = pages[pages.length - 1]!
    const shown = pages.flatMap((page) => page.lines)
    const shownPages = pages.filter((page) => page.lines.length > 0)
    const lastLine = lastPage.offset + lastPage.lines.length - 1
    const more = lastPage.stoppedBy !== "eof" || pages.length + skipped.length < ranges.length
    const totalLines = pages.map((page) => page.totalLines).find((total) => total !== undefined)
    const body = pages.length === 1 && selection.ranges.length <= 1
      ? renderText(path, first, options.facts, { raw: selection.raw, note: options.note, hashline })
      : renderRanges(path, pages, options.facts, { raw: selection.raw, note: options.note, hashline, totalLines, skipped })
    const linesCut = pages.reduce((sum, page) => sum + page.linesCut, 0)
    const endings = pages.reduce(
      (sum, page) => ({ lf: sum.lf + page.endings.lf, crlf: sum.crlf + page.endings.crlf, cr: sum.cr + page.endings.cr }),
      { lf: 0, crlf: 0, cr: 0 }
    )
    const result: ReadResult = {
      title: options.title,
      output: body,
      metadata: {
        kind: options.kind,
        path,
        preview: shown.slice(0, PREVIEW_LINES).join("\n"),
        truncated: more || linesCut > 0 || first.column > 1,
        ...(shown.length > 0 ? { startLine: first.offset, endLine: lastLine } : {}),
        ...(shownPages.length > 1
          ? { ranges: shownPages.map((page) => ({ start: page.offset, end: page.offset + page.lines.length - 1 })) }
          : {}),
        ...(first.column > 1 ? { column: first.column } : {}),
        ...(totalLines !== undefined ? { totalLines } : { totalLinesAtLeast: lastPage.linesAtLeast }),
        ...(lastPage.stoppedBy !== "eof" ? { nextOffset: lastLine + 1 } : {}),
        ...(linesCut > 0 ? { linesCut } : {}),
        lineEnding: lineEndingOf(endings),
        ...(pages.some((page) => page.replaced) || options.facts.replaced ? { invalidBytesReplaced: true } : {}),
        ...(hashline === undefined ? {} : { lineFormat: "hashline" as const }),
        ...options.metadata
      }
    }
    return result
  })
