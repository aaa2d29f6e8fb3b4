/**
 * The model-facing text: opencode's XML-tagged layout and its exact footers.
 */
import type { Page } from "./lines.js"
import { formatBytes } from "../ReadError.js"
import { MAX_BYTES_LABEL } from "./lines.js"

/** Bytes kept free in the 50 KB cap for the tags, the notices and the longest footer. */
export const FOOTER_RESERVE = 400

export const header = (path: string, type: "file" | "directory"): string =>
  `<path>${path}</path>\n<type>${type}</type>\n<${type === "file" ? "content" : "entries"}>`

export interface TextFacts {
  readonly fileSize: number
  readonly encoding: string
  /** Bytes invalid in the encoding were shown as U+FFFD. */
  readonly replaced: boolean
}

export const textFooter = (page: Page, facts: Pick<TextFacts, "fileSize">): string => {
  const first = page.offset
  const last = page.offset + page.lines.length - 1
  switch (page.stoppedBy) {
    case "bytes":
      return `(Output capped at ${MAX_BYTES_LABEL}. Showing lines ${first}-${last}. Use offset=${last + 1} to continue.)`
    case "limit":
      // The total is only known when a scan reached the end; otherwise say what is known.
      return page.totalLines !== undefined
        ? `(Showing lines ${first}-${last} of ${page.totalLines}. Use offset=${last + 1} to continue.)`
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
  ...(facts.replaced
    ? [`(Some bytes are not valid ${facts.encoding}; they are shown as \uFFFD.)`]
    : [])
]

export const renderText = (path: string, page: Page, facts: TextFacts): string =>
  [header(path, "file"), ...page.rendered, "", ...notices(page, facts), textFooter(page, facts), "</content>"].join(
    "\n"
  )

export interface DirectoryPage {
  readonly shown: ReadonlyArray<string>
  readonly offset: number
  readonly total: number
}

export const directoryFooter = (page: DirectoryPage): string =>
  page.offset - 1 + page.shown.length < page.total
    ? `(Showing ${page.shown.length} of ${page.total} entries. Use 'offset' parameter to read beyond entry ${
      page.offset - 1 + page.shown.length
    })`
    : `(${page.total} entries)`

export const renderDirectory = (path: string, page: DirectoryPage): string =>
  [header(path, "directory"), ...page.shown, "", directoryFooter(page), "</entries>"].join("\n")
