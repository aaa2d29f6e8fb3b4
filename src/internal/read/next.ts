/**
 * The read that continues a truncated result (`metadata.next`): the parameters to pass to `read`
 * to see what this result left out, rebuilt from the request and what was shown. A path that
 * carried a selector cannot just take an offset (`a.ts:5-16,960-973` with `offset` is not the
 * second range), so the path is rebuilt: without the selector when parameters say the same,
 * with what is left of it when only a selector can (ranges, a range's outline, PDF pages, raw).
 * Pure: the request, its selector as the read understood it, and the result's metadata.
 */
import * as Schema from "effect/Schema"
import { type MetadataFields, Next } from "../../ReadResult.js"
import { parseSelector, type Selection, SelectorError, splitSelector } from "../core/selector.js"
import type { ReadParams } from "./params.js"

/** The path as asked, split from the selector the read applied (none when a file of the whole name was read). */
export const selectorOf = (
  filePath: string,
  scheme: { readonly url: string; readonly selector: string | undefined } | undefined,
  resolvedPath: string
): { readonly base: string; readonly selector: string | undefined; readonly selection: Selection | undefined } => {
  const split = scheme === undefined ? splitSelector(filePath) : { path: scheme.url, selector: scheme.selector }
  if (split.selector === undefined) return { base: filePath, selector: undefined, selection: undefined }
  // `notes:12`, a file literally named so, was read as written: the whole path is its name.
  if (scheme === undefined && resolvedPath.endsWith(`:${split.selector}`)) {
    return { base: filePath, selector: undefined, selection: undefined }
  }
  const selection = parseSelector(split.selector)
  return selection instanceof SelectorError
    ? { base: filePath, selector: undefined, selection: undefined }
    : { base: split.path, selector: split.selector, selection }
}

/** A range as a selector writes it (one line is `N-N`: a bare `N` reads on from N). */
const rangeText = (start: number, end: number | undefined): string =>
  end === undefined ? `${start}-` : `${start}-${end}`

/** What every continuation of a text keeps: how it was decoded and shown. */
const kept = (request: ReadParams) => ({
  ...(request.encoding === undefined ? {} : { encoding: request.encoding }),
  ...(request.lineFormat === undefined ? {} : { lineFormat: request.lineFormat })
})

/**
 * The next call for `metadata` read by `request` (`base` and `selection` as `selectorOf` split
 * its path); undefined when nothing is left to read on to.
 */
export const nextCall = (
  request: ReadParams,
  base: string,
  selection: Selection | undefined,
  metadata: MetadataFields
): Next | undefined => {
  const nextOffset = metadata.nextOffset
  const limit = request.limit === undefined ? {} : { limit: request.limit }
  // A search: the next page of matches, by the expression as asked.
  if (metadata.search !== undefined) {
    if (nextOffset === undefined) return undefined
    return {
      filePath: base,
      search: request.search ?? selection?.search ?? metadata.search.pattern,
      ...(typeof request.context === "number" ? { context: request.context } : {}),
      offset: nextOffset,
      ...limit,
      ...kept(request)
    }
  }
  const view = selection?.view ?? (request.view === "list" || request.view === "tree" ? undefined : request.view)
  const structure = metadata.structure
  if (view !== undefined && view !== "block" && (structure !== undefined || metadata.conflicts !== undefined)) {
    // The outline of lines A-B keeps its range, which only a selector says.
    const range = view === "outline" ? selection?.ranges[0] : undefined
    const asked = range === undefined
      ? { filePath: base, view }
      : { filePath: `${base}:${rangeText(range.start, range.end)}:outline` }
    const levels = request.levels === undefined ? {} : { levels: request.levels }
    if (nextOffset !== undefined) return { ...asked, ...levels, offset: nextOffset, ...limit, ...kept(request) }
    // The last page of an outline that folds deeper declarations: one level more.
    if (
      structure?.view === "outline" && structure.levels !== undefined && structure.depth !== undefined &&
      structure.levels < structure.depth
    ) {
      return { ...asked, levels: structure.levels + 1, ...limit, ...kept(request) }
    }
    return undefined
  }
  if (view === "block") return metadata.next
  const raw = selection?.raw === true
  // A tail cut by the byte cap: the lines it asked for and did not show.
  const tail = selection?.tail ?? (request.offset !== undefined && request.offset < 0 ? -request.offset : undefined)
  if (tail !== undefined) {
    const total = metadata.totalLines
    const start = metadata.startLine
    if (total === undefined || start === undefined) return undefined
    const first = Math.max(1, total - tail + 1)
    if (start <= first) return undefined
    return raw
      ? { filePath: `${base}:${rangeText(first, start - 1)}:raw`, ...kept(request) }
      : { filePath: base, offset: first, limit: start - first, ...kept(request) }
  }
  if (nextOffset === undefined) return undefined
  const ranges = selection?.ranges ?? []
  // PDF pages or slides: the same pages, read on.
  const pages = selection?.pages === undefined
    ? base
    : `${base}:pages=${rangeText(selection.pages.start, selection.pages.end ?? selection.pages.start)}`
  if (ranges.length === 0) {
    return raw
      ? { filePath: `${pages}:${nextOffset}-:raw`, ...kept(request) }
      : { filePath: pages, offset: nextOffset, ...limit, ...kept(request) }
  }
  // Ranges: what is left of them from the first line not shown; past them, the text read on.
  const left = ranges
    .filter((range) => range.end === undefined || range.end >= nextOffset)
    .map((range) => ({ start: Math.max(range.start, nextOffset), end: range.end }))
  if (left.length === 0) return { filePath: pages, offset: nextOffset, ...kept(request) }
  // An open range read on is an offset; what is left of closed ranges stays a selector, so the
  // page after them is a whole page again (as an offset and limit, the limit would stay).
  if (left.length === 1 && !raw && left[0]!.end === undefined) {
    return { filePath: pages, offset: left[0]!.start, ...kept(request) }
  }
  return {
    filePath: `${pages}:${left.map((range) => rangeText(range.start, range.end)).join(",")}${raw ? ":raw" : ""}`,
    ...kept(request)
  }
}

const count = (n: number): string => n.toLocaleString("en-US")

/** What a result shows, in a few words: `Lines 1-2000 of 5,000`, `Matches 1-100 of 250`, … */
const shownOf = (request: ReadParams, metadata: MetadataFields): string | undefined => {
  const from = Math.max(1, request.offset ?? 1)
  if (metadata.search !== undefined) {
    const { first, last, matches } = metadata.search
    return first === undefined || last === undefined
      ? `0 of ${count(matches)} matches`
      : `Matches ${first}-${last} of ${count(matches)}`
  }
  const structure = metadata.structure
  if (structure !== undefined) {
    if (structure.view === "outline") {
      const rows = metadata.nextOffset === undefined ? "" : `, rows ${from}-${metadata.nextOffset - 1}`
      const levels =
        structure.levels !== undefined && structure.depth !== undefined && structure.levels < structure.depth
          ? `, levels 1-${structure.levels} of ${structure.depth}`
          : ""
      return `Outline of ${count(structure.declarations)} declarations${levels}${rows}`
    }
    if (structure.view === "summary") return `Summary of ${count(structure.lines)} lines`
  }
  if (metadata.conflicts !== undefined) {
    const last = metadata.nextOffset === undefined ? metadata.conflicts.regions : metadata.nextOffset - 1
    return `Conflict regions ${from}-${last} of ${metadata.conflicts.regions}`
  }
  const { endLine, startLine } = metadata
  if (startLine === undefined || endLine === undefined) return undefined
  const unit = metadata.kind === "directory" ? "Entries" : "Lines"
  const ranges = metadata.ranges === undefined
    ? `${startLine}-${endLine}`
    : metadata.ranges.map((range) => `${range.start}-${range.end}`).join(", ")
  const total = metadata.totalLines !== undefined
    ? ` of ${count(metadata.totalLines)}`
    : metadata.totalLinesAtLeast !== undefined
    ? ` of at least ${count(metadata.totalLinesAtLeast)}`
    : ""
  return `${unit} ${ranges}${total}`
}

/**
 * The one line a host may put before a result (`Limits.Notices`): what it shows and the read that
 * continues it, so a host that cuts the output's tail (and its footer) still leaves the model a
 * way on. Undefined for what is not shown in parts (an image, a PDF).
 */
export const headerLine = (request: ReadParams, metadata: MetadataFields): string | undefined => {
  const shown = shownOf(request, metadata)
  const next = metadata.next
  // In the schema's order, as the metadata reaches a client.
  if (next !== undefined) {
    return `(${shown ?? "Part of it"} shown. Next: read ${JSON.stringify(Schema.encodeSync(Next)(next))})`
  }
  if (shown === undefined) return undefined
  return metadata.truncated ? `(${shown} shown.)` : `(${shown} shown: all of it.)`
}
