/**
 * Presenting text: one page, several selected ranges, or raw text — the same rules whether the
 * lines stream from a file or come from memory (archive members, notebooks, documents).
 */
import * as Effect from "effect/Effect"
import type { ReadResult } from "../../ReadResult.js"
import { ColumnOutOfRange, InvalidParams, OffsetOutOfRange } from "../../ReadError.js"
import { type Codec, utf8 } from "../core/encoding.js"
import {
  DEFAULT_LIMIT,
  type LineEndings,
  lineMeasure,
  LinePager,
  MAX_BYTES,
  MAX_BYTES_LABEL,
  MAX_LINE_LENGTH,
  type Page
} from "../core/lines.js"
import { FOOTER_RESERVE, header, renderRanges, renderText, type TextFacts } from "../core/render.js"
import { mergeRanges, type TextView } from "../core/selector.js"
import { outlineInstead, presentStructure, StructureDefaults, type ViewSource, widenBySyntax } from "./structure.js"
import type { Params } from "../sources/types.js"
import { fitNumbered, tailStartOf } from "../core/tail.js"
import { ConflictScanner, describeRegion } from "../core/conflicts.js"

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
}

/**
 * Produces the page of a tail: its first line numbered truly, its total known. When the window
 * reaches the end, the page cap keeps the last lines that fit rather than the first.
 */
export type TailAt<E, R> = (request: TailRequest) => Effect.Effect<Page, E, R>

/** The window reaches the end of the text: the page cap then trims its start, not its end. */
export const reachesEnd = (request: TailRequest): boolean => request.limit === undefined || request.limit >= request.count

/** The pager options of a tail's forward read from its first line. */
export const tailPageOptions = (request: TailRequest, first: number, lines: number) => ({
  offset: first,
  limit: Math.max(1, Math.min(request.limit ?? lines, lines)),
  maxLineLength: MAX_LINE_LENGTH,
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
      measure: lineMeasure(codec)
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
      maxBytes: request.maxBytes
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
  readonly facts: TextFacts
  /** Metadata of the source (size, mtime, encoding, …) merged into the result's. */
  readonly metadata: SourceMetadata
  /** Hashline format (editable files only): `N:text` lines under this header, if any. */
  readonly hashline?: { readonly header: string | undefined } | undefined
}

const outOfRange = (path: string, offset: number, page: Page) => {
  const total = page.totalLines
  return total !== undefined && offset > total && !(total === 0 && offset === 1)
    ? new OffsetOutOfRange({ path, offset, totalLines: total, unit: "lines" })
    : undefined
}

const textViewOf = (view: Params["view"]): TextView | undefined =>
  view === undefined || view === "list" || view === "tree" ? undefined : view

/**
 * The footer of a tail that reached the end: which of the last lines it shows and the read that
 * gives the lines before them (the paging footer says the rest: the whole text, a window).
 */
const tailFooter = (page: Page, asked: number): string | undefined => {
  const total = page.totalLines
  if (page.stoppedBy !== "eof" || page.offset <= 1 || total === undefined || page.lines.length === 0) return undefined
  const shown = page.lines.length
  const from = Math.max(1, page.offset - shown)
  const count = page.offset - from
  const before = `Use offset=${from} limit=${count} to read the ${count === 1 ? "line" : `${count} lines`} before them.`
  return shown < Math.min(asked, total)
    ? `(Output capped at ${MAX_BYTES_LABEL}. Showing the last ${shown} of the ${asked} lines asked: lines ${page.offset}-${total} of ${total}. ${before})`
    : `(Showing the last ${shown} lines: ${page.offset}-${total} of ${total}. ${before})`
}

/** Page and render text by `params` or by the path's selector. */
export const presentText = <E, R>(
  options: PresentOptions<E, R>
): Effect.Effect<ReadResult, E | OffsetOutOfRange | ColumnOutOfRange | InvalidParams, R> =>
  Effect.gen(function*() {
    const { path, selection, params } = options
    const hashline = selection.raw ? undefined : options.hashline
    const budget = MAX_BYTES -
      new TextEncoder().encode(header(path, "file") + (options.note ?? "") + (hashline?.header ?? "")).length -
      FOOTER_RESERVE
    const view = selection.view ?? textViewOf(params.view)
    if (view === "conflicts") return yield* presentConflicts(options, budget)
    if (view !== undefined) return yield* presentStructure(options, view, budget)
    const tail = selection.tail ?? (params.offset !== undefined && params.offset < 0 ? -params.offset : undefined)
    let ranges: ReadonlyArray<{ readonly start: number; readonly end: number | undefined }> = selection.ranges.length > 0
      ? selection.ranges
      : [{ start: Math.max(1, params.offset ?? 1), end: undefined }]
    let contextNotices: ReadonlyArray<string> = []
    if (params.context === "syntax") {
      if (tail !== undefined || (selection.ranges.length === 0 && params.offset === undefined)) {
        return yield* new InvalidParams({
          reason: "context \"syntax\" widens a range you ask for: give offset (and limit) or a line selector such as :40-80"
        })
      }
      const widened = yield* widenBySyntax(options, ranges, params.limit ?? DEFAULT_LIMIT)
      ranges = mergeRanges(widened.ranges)
      contextNotices = widened.notices
    }
    const limitOf = (range: { readonly start: number; readonly end: number | undefined }) =>
      range.end === undefined ? params.limit ?? DEFAULT_LIMIT : range.end - range.start + 1

    const pages: Array<Page> = []
    const skipped: Array<string> = []
    let footer: string | undefined = undefined
    let remaining = budget
    if (tail !== undefined) {
      const tailAt = options.tailAt ?? ((request: TailRequest) => tailByCounting(options.pageAt, request))
      const page = yield* tailAt({ count: tail, limit: params.limit, maxBytes: budget })
      pages.push(page)
      footer = tailFooter(page, tail)
    }
    for (const range of tail === undefined ? ranges : []) {
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
    // A host may answer a plain read that a page would cut with the outline (off by default).
    const plain = selection.ranges.length === 0 && !selection.raw && tail === undefined && hashline === undefined &&
      params.offset === undefined && params.limit === undefined && params.column === undefined
    if (more && plain && (yield* StructureDefaults).outlineWhenTruncated) {
      const outlined = yield* outlineInstead(options, budget)
      if (outlined !== undefined) return outlined
    }
    const notices = contextNotices.filter((notice, i, all) => all.indexOf(notice) === i)
    const body = pages.length === 1 && ranges.length <= 1
      ? renderText(path, first, options.facts, { raw: selection.raw, note: options.note, hashline, footer, notices })
      : renderRanges(path, pages, options.facts, {
        raw: selection.raw,
        note: options.note,
        hashline,
        totalLines,
        skipped,
        notices
      })
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

/** Lines scanned per page when a view walks the whole text. */
const SCAN_LINES = 8192
const SCAN_BYTES = 4 * 1024 * 1024

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

/**
 * The `conflicts` view: each unresolved merge-conflict region under a heading that says its lines,
 * its sides' labels and whether it is well formed, then its numbered lines; a footer counts them.
 * Regions nested in another are shown within it and get their own heading. Paged over regions as
 * an outline is over declarations: `offset` and `limit` count regions, a page holds whole
 * regions up to the byte cap, and the footer says where to continue.
 */
const presentConflicts = <E, R>(options: PresentOptions<E, R>, budget: number) =>
  Effect.gen(function*() {
    const { params, path } = options
    const scanner = new ConflictScanner()
    const totalLines = yield* eachLine(options.pageAt, (number, line) => scanner.push(number, line))
    const regions = scanner.end()
    const offset = Math.max(1, params.offset ?? 1)
    const limit = Math.max(1, params.limit ?? DEFAULT_LIMIT)
    if (regions.length > 0 && offset > regions.length) {
      return yield* new InvalidParams({
        reason: `offset ${offset} is past the last conflict region (${regions.length}); the conflicts view's offset and limit count regions`
      })
    }
    const body: Array<string> = []
    const shownLines: Array<string> = []
    const spans: Array<{ readonly start: number; readonly end: number }> = []
    let remaining = budget
    let shownRegions = 0
    let linesCut = 0
    let stoppedBy: "end" | "limit" | "bytes" = "end"
    /** A region too long for a page by itself: the last of its lines shown. */
    let cutAfter: number | undefined
    /** The last line shown: a region nested in one already shown has its lines there. */
    let shownTo = 0
    for (let i = offset - 1; i < regions.length; i++) {
      if (shownRegions >= limit) {
        stoppedBy = "limit"
        break
      }
      const region = regions[i]!
      const heading = `Conflict ${i + 1} of ${regions.length}: ${describeRegion(region)}`
      const headingBytes = Buffer.byteLength(heading) + 1 + (shownRegions > 0 ? 1 : 0)
      if (remaining - headingBytes <= 0 && shownRegions > 0) {
        stoppedBy = "bytes"
        break
      }
      const mark = body.length
      if (shownRegions > 0) body.push("")
      body.push(heading)
      remaining -= headingBytes
      if (region.start <= shownTo) {
        shownRegions++
        continue
      }
      const size = region.end - region.start + 1
      const page = yield* options.pageAt({ offset: region.start, limit: size, column: 1, maxBytes: Math.max(1, remaining) })
      if (page.lines.length < size && shownRegions > 0) {
        // Not whole on this page: the next page starts with it.
        body.length = mark
        stoppedBy = "bytes"
        break
      }
      body.push(...page.rendered)
      shownLines.push(...page.lines)
      linesCut += page.linesCut
      remaining -= page.rendered.reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0)
      shownRegions++
      if (page.lines.length > 0) {
        spans.push({ start: page.offset, end: page.offset + page.lines.length - 1 })
        shownTo = page.offset + page.lines.length - 1
      }
      if (page.lines.length < size) {
        stoppedBy = "bytes"
        cutAfter = region.start + page.lines.length - 1
        break
      }
    }
    const last = offset - 1 + shownRegions
    const malformed = regions.filter((region) => region.malformed !== undefined).length
    const listed = regions.filter((region) => region.depth === 0).slice(0, 6).map((region) => `${region.start}-${region.end}`)
    const more = regions.filter((region) => region.depth === 0).length > listed.length ? ", …" : ""
    const cut = cutAfter === undefined
      ? ""
      : `; conflict ${last} is longer than a page: read the rest of it with ${path}:${cutAfter + 1}-${regions[last - 1]!.end}`
    const span = `Showing conflict regions ${offset}-${last} of ${regions.length}${cut}.${
      last < regions.length ? ` Use offset=${last + 1} to continue.` : ""
    }`
    const footer = regions.length === 0
      ? `(No unresolved merge conflicts: no <<<<<<< marker at the start of any of the ${totalLines} lines.)`
      : stoppedBy === "bytes"
      ? `(Output capped at ${MAX_BYTES_LABEL}. ${span})`
      : stoppedBy === "limit"
      ? `(${span})`
      : `(${regions.length} unresolved merge-conflict region${regions.length === 1 ? "" : "s"} in ${totalLines} lines, at lines ${
        listed.join(", ")
      }${more}${malformed === 0 ? "" : `; ${malformed} malformed`}.)`
    const output = [
      ...(options.note === undefined ? [] : [options.note]),
      header(path, "file"),
      ...body,
      ...(body.length === 0 ? [] : [""]),
      footer,
      "</content>"
    ].join("\n")
    const result: ReadResult = {
      title: options.title,
      output,
      metadata: {
        kind: options.kind,
        path,
        preview: shownLines.slice(0, PREVIEW_LINES).join("\n"),
        truncated: stoppedBy !== "end" || linesCut > 0,
        ...(last < regions.length ? { nextOffset: last + 1 } : {}),
        ...(spans.length > 0 ? { startLine: spans[0]!.start, endLine: spans[spans.length - 1]!.end, ranges: spans } : {}),
        totalLines,
        ...(linesCut > 0 ? { linesCut } : {}),
        conflicts: { regions: regions.length, malformed },
        ...options.metadata
      }
    }
    return result
  })
