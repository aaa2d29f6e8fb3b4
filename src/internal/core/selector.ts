/**
 * Selectors in the path: `src/app.ts:50-100`, `:50`, `:50-`, `:50+20`, `:L50-L60`,
 * `:5-16,960-973`, `:raw`, `:2-4:raw`, `report.pdf:pages=3-5`, the tail `:-200` (`:-200:raw`),
 * and the views `:conflicts`, `:outline`, `:summary` and `:120:block`. Pure parsing; the caller
 * decides that an existing file whose name merely looks like a selector wins.
 */
import { type LineRange, mergeRanges } from "./ranges.js"

export interface Selection {
  /** Sorted, merged ranges; empty means "from offset, by limit" as without a selector. */
  readonly ranges: ReadonlyArray<LineRange>
  /** No line numbers: the text as it is. */
  readonly raw: boolean
  /** Document pages (PDF), 1-based inclusive. */
  readonly pages: LineRange | undefined
  /** `:tree`: a directory rendered as a tree. */
  readonly tree?: boolean | undefined
  /** `:-N`: the last N lines. */
  readonly tail?: number | undefined
  /**
   * `:conflicts`, `:outline`, `:summary`, `:N:block` (the block's anchor is `ranges[0].start`),
   * `:A-B:outline` (the outline of the declarations inside lines A-B: `ranges[0]`).
   */
  readonly view?: TextView | undefined
  /** `:/re/` or `:/re/i`: the lines matching a regular expression (as written, slashes and flags included). */
  readonly search?: string | undefined
  /** `:region=X,Y,W,H`: a part of an image, in its original pixels. */
  readonly region?:
    | { readonly x: number; readonly y: number; readonly width: number; readonly height: number }
    | undefined
  /** `:frame=N`: one frame of an animated image (1-based). */
  readonly frame?: number | undefined
}

/** The views of a file's text a selector or the `view` parameter asks for. */
export type TextView = "outline" | "summary" | "block" | "conflicts"
/** The text views this build serves. */
export const textViews: ReadonlyArray<TextView> = ["outline", "summary", "block", "conflicts"]

export const noSelection: Selection = { ranges: [], raw: false, pages: undefined }

/** The valid forms, for error messages. */
export const selectorForms =
  "Use :N, :N-M, :N+K, :N- (open-ended), :LN-LM, a comma-separated list of ranges (:5-16,960-973), :-N (the last N lines), :raw, a range with raw (:2-4:raw), a search (:/regex/ or :/regex/i), :conflicts, :outline, :A-B:outline (the declarations inside lines A-B), :summary, :N:block, :tree for a directory, or for an image :region=X,Y,WIDTH,HEIGHT and :frame=N."

export class SelectorError {
  readonly _tag = "SelectorError"
  constructor(readonly message: string) {}
}

const CHUNK = /^L?(\d+)(?:(\.\.|[-+])(?:L?(\d+))?)?$/i
const PAGES = /^pages=(\d+)(?:-(\d+))?$/i
const REGION = /^region=(\d+),(\d+),(\d+),(\d+)$/i
const FRAME = /^frame=(\d+)$/i
/** The image selectors, alone or together (`:region=0,0,640,480:frame=2`). */
const isImage = (text: string): boolean => REGION.test(text) || FRAME.test(text)

const TAIL = /^-(\d+)$/
const VIEW = /^(outline|summary|block|conflicts)$/i
const LINE = /^L?\d+$/i
/** `/re/` with optional flags: a search selector. */
const SEARCH = /^\/.+\/[a-z]*$/s

const isRangeList = (text: string): boolean => text.length > 0 && text.split(",").every((chunk) => CHUNK.test(chunk))
const isRaw = (text: string): boolean => /^raw$/i.test(text)
const isToken = (text: string): boolean =>
  isRaw(text) || /^tree$/i.test(text) || isRangeList(text) || PAGES.test(text) || TAIL.test(text) || VIEW.test(text) ||
  isImage(text)

/**
 * Two selector parts that go together: raw with lines (`:2-4:raw`, `:-20:raw`), a line with block
 * (`:120:block`). A view with any other part pairs too (`:1-5:block`, `:3:outline`,
 * `:conflicts:raw`), so that `parseSelector` says what is wrong with the pair instead of the path
 * ending in `:1-5` being looked for as a file.
 */
const isPair = (before: string, after: string): boolean => {
  const lines = (text: string) => isRangeList(text) || TAIL.test(text)
  const other = (text: string) => lines(text) || isRaw(text) || PAGES.test(text)
  return (isImage(before) && isImage(after)) || (isRaw(before) && lines(after)) || (lines(before) && isRaw(after)) ||
    (VIEW.test(before) && other(after)) || (other(before) && VIEW.test(after))
}

/**
 * Split `path:selector` at the last colon when what follows is a selector (and, for
 * `:2-4:raw` / `:raw:2-4`, the two last parts). A colon at index 0 or a tail that is not a
 * selector leaves the whole string as the path.
 */
export const splitSelector = (input: string): { readonly path: string; readonly selector: string | undefined } => {
  // `path:/re/flags`: the first `:/` after which the rest is one slashed expression (a regex may hold colons).
  for (let at = input.indexOf(":/", 1); at > 0; at = input.indexOf(":/", at + 1)) {
    if (SEARCH.test(input.slice(at + 1))) return { path: input.slice(0, at), selector: input.slice(at + 1) }
  }
  const last = input.lastIndexOf(":")
  if (last <= 0) return { path: input, selector: undefined }
  const tail = input.slice(last + 1)
  if (!isToken(tail)) return { path: input, selector: undefined }
  const head = input.slice(0, last)
  const previous = head.lastIndexOf(":")
  if (previous > 0) {
    const before = head.slice(previous + 1)
    if (isPair(before, tail)) return { path: head.slice(0, previous), selector: `${before}:${tail}` }
  }
  return { path: head, selector: tail }
}

const parseChunk = (chunk: string): LineRange | SelectorError => {
  const match = CHUNK.exec(chunk)!
  const start = Number(match[1])
  const op = match[2]
  const second = match[3] === undefined ? undefined : Number(match[3])
  if (start === 0) return new SelectorError("Line selector 0 is invalid; lines are 1-indexed. Use :1.")
  if (op === "+") {
    if (second === undefined || second < 1) {
      return new SelectorError(`Invalid range ${start}+${second ?? 0}: count must be >= 1.`)
    }
    return { start, end: start + second - 1 }
  }
  if (op === undefined || second === undefined) return { start, end: undefined }
  if (second < start) return new SelectorError(`Invalid range ${start}-${second}: end must be >= start.`)
  return { start, end: second }
}

/** Parse a selector split off a path. */
export const parseSelector = (selector: string): Selection | SelectorError => {
  if (SEARCH.test(selector)) return { ...noSelection, search: selector }
  const parts = selector.split(":")
  let raw = false
  let ranges: ReadonlyArray<LineRange> = []
  let pages: LineRange | undefined = undefined
  let tree = false
  let tail: number | undefined = undefined
  let view: TextView | undefined = undefined
  let region: Selection["region"] = undefined
  let frame: number | undefined = undefined
  /** The block's anchor is one line (`:120`), not a range that merely has no end (`:120-`). */
  let oneLine = false
  for (const part of parts) {
    const last = TAIL.exec(part)
    if (last !== null) {
      tail = Number(last[1])
      if (tail === 0) return new SelectorError("Tail selector :-0 is empty; use :-N for the last N lines (N >= 1).")
      continue
    }
    if (VIEW.test(part)) {
      view = part.toLowerCase() as TextView
      continue
    }
    if (/^raw$/i.test(part)) {
      raw = true
      continue
    }
    if (/^tree$/i.test(part)) {
      tree = true
      continue
    }
    const crop = REGION.exec(part)
    if (crop !== null) {
      const [x, y, width, height] = crop.slice(1, 5).map(Number) as [number, number, number, number]
      if (width === 0 || height === 0) {
        return new SelectorError(
          `Region ${x},${y},${width},${height} is empty; width and height must be at least 1 (:region=X,Y,WIDTH,HEIGHT).`
        )
      }
      region = { x, y, width, height }
      continue
    }
    const still = FRAME.exec(part)
    if (still !== null) {
      frame = Number(still[1])
      if (frame === 0) return new SelectorError("Frame selector 0 is invalid; frames are 1-indexed. Use :frame=1.")
      continue
    }
    const page = PAGES.exec(part)
    if (page !== null) {
      const first = Number(page[1])
      const last = page[2] === undefined ? first : Number(page[2])
      if (first === 0) return new SelectorError("Page selector 0 is invalid; pages are 1-indexed. Use :pages=1.")
      if (last < first) return new SelectorError(`Invalid page range ${first}-${last}: end must be >= start.`)
      pages = { start: first, end: last }
      continue
    }
    if (!isRangeList(part)) return new SelectorError(`Invalid selector ':${selector}'. ${selectorForms}`)
    const parsed: Array<LineRange> = []
    for (const chunk of part.split(",")) {
      const range = parseChunk(chunk)
      if (range instanceof SelectorError) return range
      parsed.push(range)
    }
    ranges = mergeRanges(parsed)
    oneLine = LINE.test(part)
  }
  if (view !== undefined) {
    const anchor = ranges.length === 1 && ranges[0]!.end === undefined && oneLine
    const closed = ranges.length === 1 && ranges[0]!.end !== undefined
    if (view === "block" ? !anchor : view === "outline" ? ranges.length > 0 && !closed : ranges.length > 0) {
      return new SelectorError(
        view === "block"
          ? `Invalid selector ':${selector}'. The block view needs one line to start from: :N:block (e.g. :${
            ranges[0]?.start ?? 120
          }:block).`
          : view === "outline"
          ? `Invalid selector ':${selector}'. :outline shows the whole file, or with one range A-B the declarations inside lines A-B (:A-B:outline, e.g. :120-480:outline).`
          : `Invalid selector ':${selector}'. :${view} shows the whole file; it takes no line range.`
      )
    }
    if (raw || tail !== undefined || pages !== undefined) {
      return new SelectorError(`Invalid selector ':${selector}'. :${view} cannot be combined with other selectors.`)
    }
  }
  return {
    ranges,
    raw,
    pages,
    ...(tree ? { tree } : {}),
    ...(tail === undefined ? {} : { tail }),
    ...(view === undefined ? {} : { view }),
    ...(region === undefined ? {} : { region }),
    ...(frame === undefined ? {} : { frame })
  }
}
