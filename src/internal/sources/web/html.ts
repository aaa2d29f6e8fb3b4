/**
 * HTML to markdown the way a reader view shows a page: Readability picks the article out of the
 * page (navigation, sidebars and footers dropped) and turndown writes it as markdown. A page
 * Readability finds no article in is converted whole, less scripts and styles. Links and image
 * sources are made absolute against the page's URL first, so they stay usable out of context.
 */
import { Readability } from "@mozilla/readability"
import { parseHTML } from "linkedom"
import TurndownService from "turndown"

/** The few DOM members used here; linkedom and turndown's parser both provide them. */
interface Element {
  readonly nodeName: string
  readonly textContent: string | null
  readonly innerHTML: string
  readonly children: ArrayLike<Element>
  readonly firstElementChild?: Element | null
  getAttribute(name: string): string | null
  setAttribute(name: string, value: string): void
  querySelectorAll(selector: string): ArrayLike<Element>
  remove(): void
}

interface Page {
  readonly document: {
    readonly title: string
    readonly body: Element | null
    readonly documentElement: Element
    querySelectorAll(selector: string): ArrayLike<Element>
  }
}

const LANGUAGE = /(?:^|\s)(?:language|lang)-([\w+#.-]+)/

const languageOf = (node: Element): string => {
  const code = node.firstElementChild
  const classes = `${node.getAttribute("class") ?? ""} ${code?.getAttribute("class") ?? ""}`
  return LANGUAGE.exec(classes)?.[1] ?? ""
}

/** A fence longer than any backtick run in the code. */
const fenceFor = (code: string): string => {
  const longest = Math.max(0, ...(code.match(/`+/g) ?? []).map((run) => run.length))
  return "`".repeat(Math.max(3, longest + 1))
}

const cellText = (service: TurndownService, cell: Element): string =>
  service.turndown(cell.innerHTML).replace(/\s*\n\s*/g, " ").replace(/\|/g, "\\|").trim()

const makeService = (): TurndownService => {
  const service = new TurndownService({
    headingStyle: "atx",
    codeBlockStyle: "fenced",
    bulletListMarker: "-",
    emDelimiter: "_",
    hr: "---"
  })
  service.remove(["script", "style", "noscript", "template", "iframe", "object", "embed", "form", "button"] as never)
  // Every <pre> is a code block, with or without a <code> inside and whatever markup is in it.
  service.addRule("pre", {
    filter: (node) => node.nodeName === "PRE",
    replacement: (_content, node) => {
      const element = node as unknown as Element
      // A newline right after <pre> is not content (HTML parsing rule); trailing blank lines are layout.
      const code = (element.textContent ?? "").replace(/^\r?\n/, "").replace(/\s+$/, "")
      const fence = fenceFor(code)
      return `\n\n${fence}${languageOf(element)}\n${code}\n${fence}\n\n`
    }
  })
  // Heading permalinks (`¶`, `#`, `§`) are page furniture.
  service.addRule("permalink", {
    filter: (node) =>
      node.nodeName === "A" && ((node as unknown as Element).getAttribute("href") ?? "").startsWith("#") &&
      /^[\s¶#§🔗]*$/u.test(node.textContent ?? ""),
    replacement: () => ""
  })
  // Tables of two rows or more as GFM pipe tables, the first row as the header.
  service.addRule("table", {
    filter: (node) => node.nodeName === "TABLE",
    replacement: (_content, node) => {
      const rows = Array.from((node as unknown as Element).querySelectorAll("tr"))
        .map((row) => Array.from(row.children).filter((cell) => cell.nodeName === "TD" || cell.nodeName === "TH"))
        .filter((cells) => cells.length > 0)
      if (rows.length === 0) return ""
      // One row is layout (a navigation bar), not data: its cells as a line of text.
      if (rows.length === 1) return `\n\n${rows[0]!.map((cell) => cellText(service, cell)).filter((t) => t !== "").join(" ")}\n\n`
      const width = Math.max(...rows.map((cells) => cells.length))
      const line = (cells: ReadonlyArray<string>) =>
        `| ${[...cells, ...Array<string>(width - cells.length).fill("")].join(" | ")} |`
      const [head, ...body] = rows.map((cells) => cells.map((cell) => cellText(service, cell)))
      return `\n\n${[line(head!), line(Array<string>(width).fill("---")), ...body.map(line)].join("\n")}\n\n`
    }
  })
  return service
}

const absolutize = (page: Page, base: URL): void => {
  for (const [selector, attribute] of [["a[href]", "href"], ["img[src]", "src"]] as const) {
    for (const element of Array.from(page.document.querySelectorAll(selector))) {
      const value = element.getAttribute(attribute)
      if (value === null || value.startsWith("#") || /^[a-z][a-z0-9+.-]*:/i.test(value)) continue
      try {
        element.setAttribute(attribute, new URL(value, base).href)
      } catch {
        // A malformed reference stays as written.
      }
    }
  }
}

/**
 * Outside code blocks: no trailing spaces, one space after a list marker (turndown pads them to
 * four columns), no blank line between two list items, at most one blank line in a row.
 */
const LIST_ITEM = /^\s*(?:[-*+]|\d+\.) \S/

const tidy = (markdown: string): string => {
  let fence: string | undefined
  const out: Array<string> = []
  for (const line of markdown.split("\n")) {
    if (fence !== undefined) {
      if (line === fence) fence = undefined
      out.push(line)
      continue
    }
    fence = /^(`{3,})/.exec(line)?.[1]
    const tidied = line.replace(/[ \t]+$/, "").replace(/^(\s*)([-*+]|\d+\.) {2,}(?=\S)/, "$1$2 ")
    if (tidied === "" && (out.length === 0 || out[out.length - 1] === "")) continue
    // Items of one list written as paragraphs (`<li><p>`) still follow each other line by line.
    if (LIST_ITEM.test(tidied) && out[out.length - 1] === "" && LIST_ITEM.test(out[out.length - 2] ?? "")) out.pop()
    out.push(tidied)
  }
  return out.join("\n").trim()
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
  const service = makeService()
  const page = parseHTML(html) as unknown as Page
  absolutize(page, url)
  const documentTitle = page.document.title.trim()
  // Readability changes the document it reads, so the fallback parses the page again.
  const parsed = new Readability(page.document as never, { keepClasses: true }).parse()
  let body: string
  let title = documentTitle
  let article = false
  if (parsed !== null && typeof parsed.content === "string" && (parsed.textContent ?? "").trim().length > 0) {
    body = tidy(service.turndown(parsed.content))
    // The page's own <title>: Readability's cleaned-up one sometimes keeps only a fragment of it.
    title = documentTitle || (parsed.title?.trim() ?? "")
    article = true
  } else {
    const whole = parseHTML(html) as unknown as Page
    absolutize(whole, url)
    const root = whole.document.body ?? whole.document.documentElement
    body = tidy(service.turndown(root.innerHTML))
  }
  const heading = title.length > 0 && !body.startsWith(`# ${title}`) ? `# ${title.replace(/\s+/g, " ")}\n\n` : ""
  return { title: title.length > 0 ? title : undefined, text: `${heading}${body}\n`, article }
}
