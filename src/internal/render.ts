/**
 * The model-facing text: opencode's XML-tagged layout and its exact footers.
 */
import type { Page } from "./lines.js"
import { MAX_BYTES_LABEL } from "./lines.js"

/** Bytes kept free in the 50 KB cap for the tags and the longest footer. */
export const FOOTER_RESERVE = 200

export const header = (path: string, type: "file" | "directory"): string =>
  `<path>${path}</path>\n<type>${type}</type>\n<${type === "file" ? "content" : "entries"}>`

export const textFooter = (page: Page): string => {
  const first = page.offset
  const last = page.offset + page.lines.length - 1
  switch (page.stoppedBy) {
    case "bytes":
      return `(Output capped at ${MAX_BYTES_LABEL}. Showing lines ${first}-${last}. Use offset=${last + 1} to continue.)`
    case "limit":
      return `(Showing lines ${first}-${last} of ${page.totalLines}. Use offset=${last + 1} to continue.)`
    case "eof":
      return `(End of file - total ${page.totalLines} lines)`
  }
}

export const renderText = (path: string, page: Page): string =>
  [header(path, "file"), ...page.rendered, "", textFooter(page), "</content>"].join("\n")

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
