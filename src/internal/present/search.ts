/**
 * The search presentation: the lines of a text that match `search`, with context, paged over
 * matches — the same for every text source (files, archive members, documents, notebooks, web
 * pages). A source that can scan faster than page by page (a file's raw bytes) passes `searchAt`.
 */
import * as Effect from "effect/Effect"
import type { PageLimitsShape } from "../../Limits.js"
import { InvalidParams } from "../../ReadError.js"
import type { ReadResult } from "../../ReadResult.js"
import { bytesLabel } from "../core/lines.js"
import { header, PREVIEW_LINES } from "../core/render.js"
import {
  DEFAULT_CONTEXT,
  DEFAULT_MATCHES,
  MAX_CONTEXT,
  nextMatchOffset,
  parseSearch,
  SEARCH_LINE_CHARS,
  searchBody,
  SearchCollector,
  SearchError,
  searchFooter,
  type SearchPage,
  type SearchPageOptions,
  type SearchQuery
} from "../core/search.js"
import type { Selection } from "../core/selector.js"
import type { Params } from "../sources/types.js"
import { type PageAt, type PresentOptions, SCAN_BYTES, SCAN_LINES } from "./pages.js"

/** A source's own scan: push every line (or every match, with `skip` between) into the collector. */
export type SearchAt<E, R> = (collector: SearchCollector) => Effect.Effect<{ readonly totalLines: number }, E, R>

/** The search asked for, by the selector (`:/re/`) or the parameter; undefined when none is. */
export const searchOf = (selection: Selection, params: Params): string | undefined => selection.search ?? params.search

/** Why a search cannot go with the rest of the request, if it cannot. */
const conflict = (selection: Selection, params: Params): string | undefined => {
  if (selection.view !== undefined || (params.view !== undefined && params.view !== "list")) {
    return "search shows the matching lines; it does not combine with a view (outline, summary, block, conflicts, tree)"
  }
  if (selection.tail !== undefined || (params.offset !== undefined && params.offset < 0)) {
    return "search pages over matches: offset is the first match to show (1-based), not a tail"
  }
  if (selection.ranges.length > 0 || selection.raw || selection.pages !== undefined) {
    return "search looks at the whole text: do not combine it with a line selector, :raw or pages="
  }
  if (params.column !== undefined) return "search does not take column; read a cut line with offset and column instead"
  if (params.lineFormat !== undefined) {
    return "search shows lines as N: text; read the lines you want to edit with lineFormat then"
  }
  if (params.context === "syntax") return "search takes context as a number of lines (0-50), not \"syntax\""
  return undefined
}

/** The query and page options of a search request, or `InvalidParams` saying what is wrong. */
export const searchRequest = (text: string, selection: Selection, params: Params) =>
  Effect.gen(function*() {
    const wrong = conflict(selection, params)
    if (wrong !== undefined) return yield* new InvalidParams({ reason: wrong })
    const query = parseSearch(text)
    if (query instanceof SearchError) return yield* new InvalidParams({ reason: query.message })
    const context = typeof params.context === "number" ? params.context : DEFAULT_CONTEXT
    if (context < 0 || context > MAX_CONTEXT) {
      return yield* new InvalidParams({ reason: `context must be 0-${MAX_CONTEXT} lines around each match` })
    }
    return { query, context }
  })

/** Every line through the collector, a page at a time (lines searched up to `SEARCH_LINE_CHARS`). */
export const searchPages = <E, R>(pageAt: PageAt<E, R>): SearchAt<E, R> => (collector) =>
  Effect.gen(function*() {
    let offset = 1
    for (;;) {
      const page = yield* pageAt({
        offset,
        limit: SCAN_LINES,
        column: 1,
        maxBytes: SCAN_BYTES,
        maxLineLength: SEARCH_LINE_CHARS
      })
      page.lines.forEach((line, i) => collector.push(offset + i, line))
      if (page.stoppedBy === "eof" || page.lines.length === 0) {
        return { totalLines: page.totalLines ?? offset - 1 + page.lines.length }
      }
      offset += page.lines.length
    }
  })

export interface SearchPresentOptions<E, R> extends PresentOptions<E, R> {
  readonly searchAt?: SearchAt<E, R> | undefined
}

/** Search the text and present the page of matches asked for. */
export const presentSearch = <E, R>(
  options: SearchPresentOptions<E, R>,
  text: string,
  budget: number,
  caps: PageLimitsShape
): Effect.Effect<ReadResult, E | InvalidParams, R> =>
  Effect.gen(function*() {
    const { params, selection } = options
    const { context, query } = yield* searchRequest(text, selection, params)
    const offset = Math.max(1, params.offset ?? 1)
    const pageOptions: SearchPageOptions = {
      offset,
      limit: params.limit ?? DEFAULT_MATCHES,
      context,
      maxLineLength: caps.lineLength,
      maxBytes: budget
    }
    const collector = new SearchCollector(query, pageOptions)
    const scan = options.searchAt ?? searchPages(options.pageAt)
    const { totalLines } = yield* scan(collector)
    const page = collector.end(totalLines)
    return searchResult(options, page, offset, caps.bytes)
  })

const searchResult = <E, R>(
  options: PresentOptions<E, R>,
  page: SearchPage,
  offset: number,
  maxBytes: number
): ReadResult => {
  const body = searchBody(page)
  const next = nextMatchOffset(page, offset)
  const matchLines = page.windows.flatMap((window) => window.filter((line) => line.match).map((line) => line.number))
  return {
    title: options.title,
    output: [
      ...(options.note === undefined ? [] : [options.note]),
      header(options.path, "file"),
      ...body,
      "",
      searchFooter(page, offset, bytesLabel(maxBytes)),
      "</content>"
    ].join("\n"),
    metadata: {
      kind: options.kind,
      path: options.path,
      preview: body.slice(0, PREVIEW_LINES).join("\n"),
      truncated: next !== undefined || page.linesCut > 0,
      totalLines: page.totalLines,
      ...(next === undefined ? {} : { nextOffset: next }),
      ...(page.linesCut > 0 ? { linesCut: page.linesCut } : {}),
      search: {
        pattern: page.query.text,
        matches: page.totalMatches,
        ...(page.first === undefined ? {} : { first: page.first, last: page.last! }),
        lines: matchLines
      },
      ...options.metadata
    }
  }
}

export type { SearchQuery }
