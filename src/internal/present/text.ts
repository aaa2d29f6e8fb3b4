/**
 * Presenting text: one page, several selected ranges, or raw text — the same rules whether the
 * lines stream from a file or come from memory (archive members, notebooks, documents).
 */
import * as Effect from "effect/Effect"
import { PageLimits, StructureDefaults } from "../../Limits.js"
import { ColumnOutOfRange, InvalidParams, OffsetOutOfRange } from "../../ReadError.js"
import type { ReadResult } from "../../ReadResult.js"
import { cappedAt, type LineEndings, type Page } from "../core/lines.js"
import { mergeRanges } from "../core/ranges.js"
import { FOOTER_RESERVE, header, PREVIEW_LINES, renderRanges, renderText } from "../core/render.js"
import { type TextView } from "../core/selector.js"
import type { Params } from "../sources/types.js"
import { tailByCounting, type TailRequest } from "./pages.js"
import { presentSearch, searchOf, type SearchPresentOptions } from "./search.js"

/**
 * The views and the syntax-aware range, loaded when a read asks for them (or a host answers long
 * files with their outline): a plain read never loads the structure engine (start-up).
 */
const structure = () => Effect.promise(() => import("./structure.js"))

export type LineEnding = "lf" | "crlf" | "cr" | "mixed" | "none"

export const lineEndingOf = (endings: LineEndings): LineEnding => {
  const kinds = (["lf", "crlf", "cr"] as const).filter((kind) => endings[kind] > 0)
  return kinds.length === 0 ? "none" : kinds.length === 1 ? kinds[0]! : "mixed"
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
const tailFooter = (page: Page, asked: number, maxBytes: number): string | undefined => {
  const total = page.totalLines
  if (page.stoppedBy !== "eof" || page.offset <= 1 || total === undefined || page.lines.length === 0) return undefined
  const shown = page.lines.length
  const from = Math.max(1, page.offset - shown)
  const count = page.offset - from
  const before = `Use offset=${from} limit=${count} to read the ${count === 1 ? "line" : `${count} lines`} before them.`
  return shown < Math.min(asked, total)
    ? `(${
      cappedAt(maxBytes)
    }. Showing the last ${shown} of the ${asked} lines asked: lines ${page.offset}-${total} of ${total}. ${before})`
    : `(Showing the last ${shown} lines: ${page.offset}-${total} of ${total}. ${before})`
}

/** Page and render text by `params` or by the path's selector. */
export const presentText = <E, R>(
  options: SearchPresentOptions<E, R>
): Effect.Effect<ReadResult, E | OffsetOutOfRange | ColumnOutOfRange | InvalidParams, R> =>
  Effect.gen(function*() {
    const { params, path, selection } = options
    const hashline = selection.raw ? undefined : options.hashline
    const caps = yield* PageLimits
    const facts = { ...options.facts, maxBytes: caps.bytes }
    const budget = caps.bytes -
      Buffer.byteLength(header(path, "file") + (options.note ?? "") + (hashline?.header ?? "")) -
      FOOTER_RESERVE
    const view = selection.view ?? textViewOf(params.view)
    if (params.levels !== undefined && view !== "outline" && view !== "block" && view !== "summary") {
      return yield* new InvalidParams({
        reason:
          `levels applies to the outline (view "outline" or ${path}:outline: the depth shown) and to view "block" (which declaration around the line)`
      })
    }
    const search = searchOf(selection, params)
    if (search !== undefined) return yield* presentSearch(options, search, budget, caps)
    if (view === "conflicts") {
      return yield* Effect.flatMap(Effect.promise(() => import("./conflicts.js")), (m) =>
        m.presentConflicts(options, budget, caps))
    }
    if (view !== undefined) {
      return yield* Effect.flatMap(structure(), (m) =>
        m.presentStructure(options, view, budget, caps))
    }
    const tail = selection.tail ?? (params.offset !== undefined && params.offset < 0 ? -params.offset : undefined)
    let ranges: ReadonlyArray<{ readonly start: number; readonly end: number | undefined }> =
      selection.ranges.length > 0
        ? selection.ranges
        : [{ start: Math.max(1, params.offset ?? 1), end: undefined }]
    let contextNotices: ReadonlyArray<string> = []
    if (params.context === "syntax") {
      if (tail !== undefined || (selection.ranges.length === 0 && params.offset === undefined)) {
        return yield* new InvalidParams({
          reason:
            "context \"syntax\" widens a range you ask for: give offset (and limit) or a line selector such as :40-80"
        })
      }
      const widened = yield* Effect.flatMap(structure(), (m) =>
        m.widenBySyntax(options, ranges, params.limit ?? caps.lines))
      ranges = mergeRanges(widened.ranges)
      contextNotices = widened.notices
    }
    const limitOf = (range: { readonly start: number; readonly end: number | undefined }) =>
      range.end === undefined ? params.limit ?? caps.lines : range.end - range.start + 1

    const pages: Array<Page> = []
    const skipped: Array<string> = []
    let footer: string | undefined = undefined
    let remaining = budget
    if (tail !== undefined) {
      const tailAt = options.tailAt ?? ((request: TailRequest) =>
        tailByCounting(options.pageAt, request))
      const page = yield* tailAt({ count: tail, limit: params.limit, maxBytes: budget, maxLineLength: caps.lineLength })
      pages.push(page)
      footer = tailFooter(page, tail, caps.bytes)
    }
    for (const [i, range] of (tail === undefined ? ranges : []).entries()) {
      const page = yield* options.pageAt({
        offset: range.start,
        limit: limitOf(range),
        column: pages.length === 0 ? params.column ?? 1 : 1,
        maxBytes: remaining,
        maxLineLength: caps.lineLength
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
        if (ranges.length === 1) {
          return yield* beyond
        }
        skipped.push(
          `(Range ${range.start}${
            range.end === undefined ? "" : `-${range.end}`
          } is beyond the end of the file (${beyond.totalLines} lines); skipped.)`
        )
        continue
      }
      pages.push(page)
      if (page.stoppedBy === "bytes" || i === ranges.length - 1) break
      // What is left of the budget, for the ranges after this one.
      remaining -= page.rendered.reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0)
      if (remaining <= 0) break
    }
    if (pages.length === 0) {
      const first = ranges[0]!
      return yield* outOfRange(
        path,
        first.start,
        yield* options.pageAt({ offset: first.start, limit: 1, column: 1, maxBytes: budget })
      )!
    }

    const first = pages[0]!
    const lastPage = pages[pages.length - 1]!
    // The first lines shown, for the preview (`Array#flatMap` over every line cost more than a small read's paging).
    const preview: Array<string> = []
    for (const page of pages) {
      for (const line of page.lines) {
        if (preview.length === PREVIEW_LINES) break
        preview.push(line)
      }
    }
    const shownPages = pages.filter((page) => page.lines.length > 0)
    const lastLine = lastPage.offset + lastPage.lines.length - 1
    const more = lastPage.stoppedBy !== "eof" || pages.length + skipped.length < ranges.length
    const totalLines = pages.map((page) => page.totalLines).find((total) => total !== undefined)
    // A host may answer a plain read that a page would cut with the outline (off by default).
    const plain = selection.ranges.length === 0 && !selection.raw && tail === undefined && hashline === undefined &&
      params.offset === undefined && params.limit === undefined && params.column === undefined
    if (more && plain && (yield* StructureDefaults).outlineWhenTruncated) {
      const outlined = yield* Effect.flatMap(structure(), (m) => m.outlineInstead(options, budget, caps))
      if (outlined !== undefined) return outlined
    }
    const notices = contextNotices.filter((notice, i, all) => all.indexOf(notice) === i)
    const body = pages.length === 1 && ranges.length <= 1
      ? renderText(path, first, facts, { raw: selection.raw, note: options.note, hashline, footer, notices })
      : renderRanges(path, pages, facts, {
        raw: selection.raw,
        note: options.note,
        hashline,
        totalLines,
        skipped,
        notices
      })
    const linesCut = pages.reduce((sum, page) => sum + page.linesCut, 0)
    const endings = pages.reduce(
      (sum, page) => ({
        lf: sum.lf + page.endings.lf,
        crlf: sum.crlf + page.endings.crlf,
        cr: sum.cr + page.endings.cr
      }),
      { lf: 0, crlf: 0, cr: 0 }
    )
    const result: ReadResult = {
      title: options.title,
      output: body,
      metadata: {
        kind: options.kind,
        path,
        preview: preview.join("\n"),
        truncated: more || linesCut > 0 || first.column > 1,
        ...(shownPages.length > 0 ? { startLine: first.offset, endLine: lastLine } : {}),
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
