/**
 * The model-facing text: opencode's XML-tagged layout and its exact footers.
 */
import { formatBytes, plural } from "./format.js"
import { hashline } from "./hashline.js"
import type { Page } from "./lines.js"
import { cappedAt } from "./lines.js"

/** Lines (or entries) of a result's `metadata.preview`: its first shown ones, without numbers. */
export const PREVIEW_LINES = 20

/** Bytes kept free in the page's byte cap for the tags, the notices and the longest footer. */
export const FOOTER_RESERVE = 400

export const header = (path: string, type: "file" | "directory"): string =>
  `<path>${path}</path>\n<type>${type}</type>\n<${type === "file" ? "content" : "entries"}>`

export interface TextFacts {
  readonly fileSize: number
  readonly encoding: string
  /** Bytes invalid in the encoding were shown as U+FFFD. */
  readonly replaced: boolean
  /** Why the total is not known, for a page short of the end (a streamed member); instead of the file's size. */
  readonly unknownTotal?: string | undefined
  /** The byte cap of a page in force (`PageLimits.bytes`), as the footer of a capped page states it. */
  readonly maxBytes: number
}

export const textFooter = (page: Page, facts: Pick<TextFacts, "fileSize" | "unknownTotal" | "maxBytes">): string => {
  const first = page.offset
  const last = page.offset + page.lines.length - 1
  switch (page.stoppedBy) {
    case "bytes":
      return `(${cappedAt(facts.maxBytes)}. Showing lines ${first}-${last}. Use offset=${last + 1} to continue.)`
    case "limit":
      // The total is only known when a scan reached the end; otherwise say what is known.
      return page.totalLines !== undefined
        ? `(Showing lines ${first}-${last} of ${page.totalLines}. Use offset=${last + 1} to continue.)`
        : facts.unknownTotal !== undefined
        ? `(Showing lines ${first}-${last} of at least ${page.linesAtLeast}; ${facts.unknownTotal}. Use offset=${
          last + 1
        } to continue.)`
        : `(Showing lines ${first}-${last} of at least ${page.linesAtLeast} in a ${
          formatBytes(facts.fileSize)
        } file. Use offset=${last + 1} to continue.)`
    case "eof":
      return `(End of file - total ${page.totalLines} lines)`
  }
}

/** Notices between the lines and the footer: things the model must not miss. */
const notices = (page: Page, facts: TextFacts): Array<string> => [
  ...(page.column > 1 && page.lines.length > 0
    ? [`(Line ${page.offset} is shown from character ${page.column}.)`]
    : []),
  ...(facts.replaced || page.replaced
    ? [
      `(Some bytes are not valid ${facts.encoding}; they are shown as \uFFFD. If the file is in another encoding, pass it as encoding, e.g. "windows-1252".)`
    ]
    : [])
]

export interface RenderOptions {
  /** No line numbers: the lines as they are. */
  readonly raw?: boolean | undefined
  /** A line printed before the content (e.g. how a path was recovered). */
  readonly note?: string | undefined
  /** Hashline format: `N:text` lines under this `¶PATH#TAG` header (none when the file has no tag). */
  readonly hashline?: { readonly header: string | undefined } | undefined
  /** A footer in place of the paging footer (a tail says how to read the lines before it). */
  readonly footer?: string | undefined
  /** Sentences before the footer (the lines a syntax context added). */
  readonly notices?: ReadonlyArray<string> | undefined
}

const lead = (options: RenderOptions): Array<string> => options.note === undefined ? [] : [options.note]

/** A page's lines as the options ask: raw, hashline `N:text`, or opencode's `N: text`. */
const linesOf = (page: Page, options: RenderOptions): ReadonlyArray<string> =>
  options.raw
    ? page.lines
    : options.hashline !== undefined
    ? page.lines.map((line, i) => hashline(page.offset + i, line))
    : page.rendered

const anchorOf = (options: RenderOptions): Array<string> =>
  options.hashline?.header === undefined || options.raw ? [] : [options.hashline.header]

export const renderText = (path: string, page: Page, facts: TextFacts, options: RenderOptions = {}): string =>
  [
    ...lead(options),
    header(path, "file"),
    ...anchorOf(options),
    ...linesOf(page, options),
    "",
    ...notices(page, facts),
    ...(options.notices ?? []),
    options.footer ?? textFooter(page, facts),
    "</content>"
  ].join("\n")

/** Several selected ranges: their lines, a `…` line for each gap, one footer for all. */
export const renderRanges = (
  path: string,
  pages: ReadonlyArray<Page>,
  facts: TextFacts,
  options: RenderOptions & { readonly totalLines: number | undefined; readonly skipped: ReadonlyArray<string> }
): string => {
  const body: Array<string> = []
  pages.forEach((page, i) => {
    if (i > 0) body.push("…")
    body.push(...linesOf(page, options))
  })
  const spans = pages.filter((page) => page.lines.length > 0).map((page) =>
    `${page.offset}-${page.offset + page.lines.length - 1}`
  )
  const last = pages[pages.length - 1]!
  const next = last.offset + last.lines.length
  const footer = last.stoppedBy === "bytes"
    ? `(${cappedAt(facts.maxBytes)}. Showing lines ${spans.join(", ")}. Use offset=${next} to continue.)`
    : `(Showing lines ${spans.join(", ")}${options.totalLines === undefined ? "" : ` of ${options.totalLines}`}.)`
  return [
    ...lead(options),
    header(path, "file"),
    ...anchorOf(options),
    ...body,
    "",
    ...pages.flatMap((page) => notices(page, facts)).filter((notice, i, all) => all.indexOf(notice) === i),
    ...options.skipped,
    ...(options.notices ?? []),
    footer,
    "</content>"
  ].join("\n")
}

export interface DirectoryPage {
  readonly shown: ReadonlyArray<string>
  readonly offset: number
  readonly total: number
  /** The byte cap ended the page before `limit` entries. */
  readonly capped?: boolean
  /** The byte cap in force (`PageLimits.bytes`). */
  readonly maxBytes: number
}

/** As the newest opencode: the entry named is the `offset` that continues (offset + shown). */
export const directoryFooter = (page: DirectoryPage): string =>
  page.offset - 1 + page.shown.length < page.total
    ? `(${
      page.capped === true ? `${cappedAt(page.maxBytes)}. ` : ""
    }Showing ${page.shown.length} of ${page.total} entries. Use 'offset' parameter to read beyond entry ${
      page.offset + page.shown.length
    })`
    : `(${plural(page.total, "entry", "entries")})`

/**
 * How many of a listing's entries fit the byte cap, one line each, after `fixed` bytes of tags
 * and notices: at least one, so paging moves on.
 */
export const entriesWithin = (entries: ReadonlyArray<string>, fixed: number, maxBytes: number): number => {
  const encoder = new TextEncoder()
  let left = maxBytes - FOOTER_RESERVE - fixed
  for (let i = 0; i < entries.length; i++) {
    left -= encoder.encode(entries[i]!).length + 1
    if (left < 0) return Math.max(1, i)
  }
  return entries.length
}

export const renderDirectory = (path: string, page: DirectoryPage, note?: string): string =>
  [...lead({ note }), header(path, "directory"), ...page.shown, "", directoryFooter(page), "</entries>"].join("\n")

export interface TreePage {
  /** The tree lines shown. */
  readonly shown: ReadonlyArray<string>
  /** The first shown line, 1-based (line 1 is `.`). */
  readonly offset: number
  /** Lines in the whole tree. */
  readonly total: number
  /** What ended the page before the last line: the line limit or the byte cap. */
  readonly stoppedBy: "limit" | "bytes" | "end"
  /** The byte cap in force (`PageLimits.bytes`). */
  readonly maxBytes: number
}

/** The paging footer of a tree, when lines remain. */
export const treePageFooter = (page: TreePage): string | undefined => {
  const last = page.offset - 1 + page.shown.length
  if (page.stoppedBy === "end" || last >= page.total) return undefined
  const span = `Showing lines ${page.offset}-${last} of ${page.total}. Use offset=${last + 1} to continue.`
  return page.stoppedBy === "bytes" ? `(${cappedAt(page.maxBytes)}. ${span})` : `(${span})`
}

/** A directory as a tree: the lines, then what was left out, then how to page on. */
export const renderTree = (path: string, page: TreePage, summary: string, note?: string): string => {
  const paging = treePageFooter(page)
  return [
    ...lead({ note }),
    header(path, "directory"),
    ...page.shown,
    "",
    summary,
    ...(paging === undefined ? [] : [paging]),
    "</entries>"
  ].join("\n")
}
