/**
 * Markdown shared by the converters: pipe tables, tidy text, and HTML → markdown (mammoth's
 * output, epub chapters) through `html/markdown.ts`.
 */
import { domToMarkdown, type MarkdownOptions } from "../../html/markdown.js"
export { cellText, markdownTable } from "../../html/markdown.js"
import { normalize, parseDocument } from "../../html/parse.js"

/** Collapse runs of blank lines and trim trailing spaces: converted text reads like written text. */
export const tidy = (text: string): string =>
  text
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map((line) => line.replace(/[ \t]+$/, ""))
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim()

const OPTIONS: MarkdownOptions = { emphasis: "*", imageLinks: false, fragmentLinks: false }

/** HTML (or XHTML) to markdown: images as a short notice, in-book links reduced to their text. */
export const htmlToMarkdown = async (html: string): Promise<string> => {
  const document = parseDocument(normalize(html))
  return domToMarkdown(document.body ?? document.documentElement, OPTIONS)
}
