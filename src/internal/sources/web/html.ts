/**
 * HTML to markdown the way a reader view shows a page: Readability picks the article out of the
 * page (navigation, sidebars and footers dropped) and `domToMarkdown` writes it as markdown. A
 * page Readability finds no article in is converted whole, less scripts and styles. Links and
 * image sources are made absolute against the page's URL (or its `<base href>`) first, so they
 * stay usable out of context.
 */
import { Readability } from "@mozilla/readability"
import { domToMarkdown, type MarkdownOptions } from "../../html/markdown.js"
import { type DomDocument, type DomNode, normalize, parseDocument } from "../../html/parse.js"

const OPTIONS: MarkdownOptions = { emphasis: "_", imageLinks: true, fragmentLinks: true }

const absolutize = (document: DomDocument, base: URL): void => {
  for (const [tag, name] of [["a", "href"], ["img", "src"]] as const) {
    for (const element of document.getElementsByTagName(tag)) {
      const value = element.getAttribute(name)?.trim()
      if (value === undefined || value === "" || value.startsWith("#") || /^[a-z][a-z0-9+.-]*:/i.test(value)) continue
      try {
        element.setAttribute(name, new URL(value, base).href)
      } catch {
        // A malformed reference stays as written.
      }
    }
  }
}

export interface Markdown {
  readonly title: string | undefined
  /** The markdown, led by the title as a `#` heading. */
  readonly text: string
  /** Whether Readability found an article (otherwise the whole body was converted). */
  readonly article: boolean
}

/** Convert an HTML page fetched from `url` to markdown. */
export const htmlToMarkdown = (html: string, url: URL): Markdown => {
  const normalized = normalize(html)
  let base = url
  try {
    if (normalized.base !== undefined) base = new URL(normalized.base, url)
  } catch {
    // An unusable <base href> is ignored, as browsers do.
  }
  const open = (): DomDocument => {
    const document = parseDocument(normalized, base.href)
    absolutize(document, base)
    return document
  }
  const documentTitle = normalized.title
  // Readability changes the document it reads, so the fallback parses the page again.
  const parsed = new Readability<DomNode>(open() as never, {
    keepClasses: true,
    serializer: (element) => element as DomNode
  })
    .parse()
  let body: string
  let title = documentTitle
  let article = false
  if (
    parsed !== null && parsed.content !== undefined && parsed.content !== null &&
    (parsed.textContent ?? "").trim().length > 0
  ) {
    body = domToMarkdown(parsed.content, OPTIONS)
    // The page's own <title>: Readability's cleaned-up one sometimes keeps only a fragment of it.
    title = documentTitle || (parsed.title?.trim() ?? "")
    article = true
  } else {
    const whole = open()
    body = domToMarkdown(whole.body ?? whole.documentElement, OPTIONS)
  }
  const heading = title.length > 0 && !body.startsWith(`# ${title}`) ? `# ${title.replace(/\s+/g, " ")}\n\n` : ""
  return { title: title.length > 0 ? title : undefined, text: `${heading}${body}\n`, article }
}
