/**
 * A DOM (see `parse.ts`) to markdown, written for a model reading the text rather than a renderer:
 * no backslash escapes, compact lists, tables as pipe tables (a one-row table is layout: its
 * cells as one line), every `<pre>` a fenced block, heading permalinks dropped, links kept only
 * when they lead somewhere out of context (http, https, mailto; a web page's own `#sections`).
 */
import { type DomNode, ELEMENT, TEXT } from "./parse.js"

export interface MarkdownOptions {
  /** `*` (documents) or `_` (web pages). */
  readonly emphasis: "*" | "_"
  /** Images with an http(s) source as `![alt](src)`; otherwise (and always for documents) `[image: alt]`. */
  readonly imageLinks: boolean
  /** Links to a part of the same page (`#section`) kept as links (web pages), not only their text. */
  readonly fragmentLinks: boolean
}

/** One table cell: a single line, pipes escaped. */
export const cellText = (text: string): string => text.replace(/\s*\n\s*/g, " ").replace(/\|/g, "\\|").trim()

/** A markdown pipe table; the first row is the header. Rows are padded to the widest row. */
export const markdownTable = (rows: ReadonlyArray<ReadonlyArray<string>>): Array<string> => {
  if (rows.length === 0) return []
  const width = Math.max(1, ...rows.map((row) => row.length))
  const line = (row: ReadonlyArray<string>) =>
    `| ${Array.from({ length: width }, (_, i) => cellText(row[i] ?? "")).join(" | ")} |`
  return [line(rows[0]!), `| ${Array.from({ length: width }, () => "---").join(" | ")} |`, ...rows.slice(1).map(line)]
}

const BLOCK = new Set([
  "ADDRESS",
  "ARTICLE",
  "ASIDE",
  "BLOCKQUOTE",
  "BODY",
  "CENTER",
  "DD",
  "DETAILS",
  "DIALOG",
  "DIR",
  "DIV",
  "DL",
  "DT",
  "FIELDSET",
  "FIGCAPTION",
  "FIGURE",
  "FOOTER",
  "FORM",
  "HEADER",
  "HGROUP",
  "HTML",
  "MAIN",
  "MENU",
  "NAV",
  "P",
  "SECTION",
  "SUMMARY",
  "TBODY",
  "TD",
  "TFOOT",
  "TH",
  "THEAD",
  "TR",
  "CAPTION"
])

/** Page furniture and controls: not text. */
const SKIPPED = new Set([
  "HEAD",
  "SCRIPT",
  "STYLE",
  "NOSCRIPT",
  "TEMPLATE",
  "IFRAME",
  "OBJECT",
  "EMBED",
  "BUTTON",
  "SELECT",
  "TEXTAREA",
  "INPUT",
  "SVG",
  "CANVAS"
])

const attribute = (node: DomNode, name: string): string => (node.getAttribute?.(name) ?? "").trim()

const elements = (node: DomNode): Array<DomNode> => node.childNodes.filter((child) => child.nodeType === ELEMENT)

/**
 * Join converted pieces: no space at the start of a line (an element's own leading space stays,
 * for its parent to place) or before a line break, never two spaces from two collapsed runs of
 * whitespace.
 */
const join = (parts: ReadonlyArray<string>): string => {
  let out = ""
  for (let part of parts) {
    if (part.length === 0) continue
    if (out.endsWith("\n")) part = part.replace(/^ +/, "")
    if (part.startsWith("\n")) out = out.replace(/ +$/, "")
    else if (out.endsWith(" ") && part.startsWith(" ")) part = part.slice(1)
    out += part
  }
  return out
}

const block = (content: string): string => {
  const inner = content.replace(/^\s+|\s+$/g, "")
  return inner.length === 0 ? "" : `\n\n${inner}\n\n`
}

/** Whitespace outside a delimiter, as a renderer would place it: ` **bold** `, not `** bold **`. */
const delimit = (content: string, delimiter: string): string => {
  const text = content.trim()
  if (text.length === 0) return content.length > 0 ? " " : ""
  const lead = /^\s/.test(content) ? " " : ""
  const trail = /\s$/.test(content) ? " " : ""
  return `${lead}${delimiter}${text}${delimiter}${trail}`
}

const LANGUAGE = /(?:^|\s)(?:language|lang)-([\w+#.-]+)/

const languageOf = (node: DomNode): string => {
  const code = elements(node)[0]
  return LANGUAGE.exec(`${attribute(node, "class")} ${code === undefined ? "" : attribute(code, "class")}`)?.[1] ?? ""
}

/** A fence (or an inline code delimiter) longer than any backtick run in the code. */
const backticks = (code: string, least: number): string => {
  const longest = Math.max(0, ...(code.match(/`+/g) ?? []).map((run) => run.length))
  return "`".repeat(Math.max(least, longest + 1))
}

/** An in-page link that is only a mark: a heading's permalink, a footnote's way back (↑, ↩, ^). */
const isMarkLink = (node: DomNode): boolean =>
  attribute(node, "href").startsWith("#") && /^(?:[\s¶#§🔗↑↩⤴^]|\uFE0E|\uFE0F)*$/u.test(node.textContent)

export const domToMarkdown = (root: DomNode, options: MarkdownOptions): string => {
  const children = (node: DomNode): string => join(node.childNodes.map(convert))

  const inlineLine = (node: DomNode): string => children(node).replace(/\s*\n\s*/g, " ").trim()

  const listItem = (node: DomNode, parent: DomNode | null): string => {
    let prefix = "- "
    if (parent !== null && parent.nodeName === "OL") {
      const start = Number.parseInt(attribute(parent, "start") || "1", 10)
      const index = elements(parent).filter((child) => child.nodeName === "LI").indexOf(node)
      prefix = `${(Number.isFinite(start) ? start : 1) + Math.max(0, index)}. `
    }
    const content = children(node).replace(/^\s+|\s+$/g, "")
    return `${prefix}${content.replace(/\n/g, `\n${" ".repeat(prefix.length)}`)}\n`
  }

  const table = (node: DomNode): string => {
    const rows: Array<Array<string>> = []
    const collect = (parent: DomNode) => {
      for (const child of elements(parent)) {
        if (child.nodeName === "TR") {
          const cells = elements(child).filter((cell) => cell.nodeName === "TD" || cell.nodeName === "TH")
          if (cells.length > 0) rows.push(cells.map(inlineLine))
        } else if (child.nodeName === "THEAD" || child.nodeName === "TBODY" || child.nodeName === "TFOOT") {
          collect(child)
        }
      }
    }
    collect(node)
    const caption = elements(node).find((child) => child.nodeName === "CAPTION")
    const title = caption === undefined ? "" : block(inlineLine(caption))
    if (rows.length === 0) return title
    // One row is layout (a navigation bar), not data: its cells as a line of text.
    if (rows.length === 1) return title + block(rows[0]!.filter((cell) => cell !== "").join(" "))
    return title + block(markdownTable(rows).join("\n"))
  }

  const convert = (node: DomNode): string => {
    if (node.nodeType === TEXT) {
      return node.textContent.replace(/[ \t\n\r\f]+/g, " ")
    }
    if (node.nodeType !== ELEMENT) return ""
    const name = node.nodeName
    if (SKIPPED.has(name)) return ""
    switch (name) {
      case "H1":
      case "H2":
      case "H3":
      case "H4":
      case "H5":
      case "H6": {
        const text = inlineLine(node)
        return text.length === 0 ? "" : block(`${"#".repeat(Number(name[1]))} ${text}`)
      }
      case "BR":
        return "\n"
      case "HR":
        return "\n\n---\n\n"
      case "PRE": {
        // A newline right after <pre> is not content (HTML parsing rule); trailing blank lines are layout.
        const code = node.textContent.replace(/^\r?\n/, "").replace(/\s+$/, "")
        if (code.length === 0) return ""
        const fence = backticks(code, 3)
        return `\n\n${fence}${languageOf(node)}\n${code}\n${fence}\n\n`
      }
      case "CODE":
      case "KBD":
      case "SAMP":
      case "TT": {
        const collapsed = node.textContent.replace(/[ \t\n\r\f]+/g, " ")
        const code = collapsed.trim()
        if (code.length === 0) return collapsed.length > 0 ? " " : ""
        const delimiter = backticks(code, 1)
        const pad = code.startsWith("`") || code.endsWith("`") ? " " : ""
        // Spaces inside the element go outside the delimiters.
        const lead = collapsed.startsWith(" ") ? " " : ""
        const trail = collapsed.endsWith(" ") ? " " : ""
        return `${lead}${delimiter}${pad}${code}${pad}${delimiter}${trail}`
      }
      case "STRONG":
      case "B":
        return delimit(children(node), "**")
      case "EM":
      case "I":
      case "CITE":
      case "DFN":
        return delimit(children(node), options.emphasis)
      // Struck-out text says it was struck (GFM's delimiter): a price "Salmon" crossed out is not on offer.
      case "S":
      case "DEL":
      case "STRIKE":
        return delimit(children(node), "~~")
      case "A": {
        if (isMarkLink(node)) return ""
        const content = children(node)
        const href = attribute(node, "href")
        const kept = /^(?:https?:|mailto:)/i.test(href) || (options.fragmentLinks && /^#./.test(href))
        if (!kept || content.trim().length === 0) return content
        const lead = /^\s/.test(content) ? " " : ""
        const trail = /\s$/.test(content) ? " " : ""
        return `${lead}[${content.trim()}](${href.replace(/[ ()]/g, encodeURIComponent)})${trail}`
      }
      case "IMG": {
        const alt = attribute(node, "alt").replace(/\s+/g, " ")
        const src = attribute(node, "src")
        if (options.imageLinks && /^https?:/i.test(src)) {
          return `![${alt}](${src.replace(/[ ()]/g, encodeURIComponent)})`
        }
        return alt.length > 0 ? `[image: ${alt}]` : "[image]"
      }
      case "UL":
      case "OL": {
        // Items, and whatever else a page nests in a list: a list right inside a list belongs to
        // the item before it, as browsers show it.
        const other = (child: DomNode): string => {
          const text = convert(child).replace(/^\s+|\s+$/g, "")
          if (text.length === 0) return ""
          return child.nodeName === "UL" || child.nodeName === "OL" ? `  ${text.replace(/\n/g, "\n  ")}\n` : `${text}\n`
        }
        // Whole lines each, so concatenated (`join` would take the indentation for whitespace).
        const items = elements(node).map((child) => child.nodeName === "LI" ? listItem(child, node) : other(child))
          .join("")
        if (items.trim().length === 0) return ""
        // A list inside an item follows its text line by line.
        return node.parentNode?.nodeName === "LI" ? `\n${items}` : `\n\n${items}\n\n`
      }
      case "LI":
        return listItem(node, null)
      case "TABLE":
        return table(node)
      case "BLOCKQUOTE": {
        const content = block(children(node)).trim()
        return content.length === 0
          ? ""
          : block(content.split("\n").map((line) => line.length === 0 ? ">" : `> ${line}`).join("\n"))
      }
      default:
        return BLOCK.has(name) ? block(children(node)) : children(node)
    }
  }

  return tidy(convert(root))
}

/**
 * Outside code blocks: no trailing spaces, at most one blank line in a row, none at the ends.
 * Inside them, the code as it was.
 */
export const tidy = (markdown: string): string => {
  let fence: string | undefined
  const out: Array<string> = []
  for (const line of markdown.split("\n")) {
    if (fence !== undefined) {
      if (line.trim() === fence) fence = undefined
      out.push(line)
      continue
    }
    fence = /^\s*(`{3,})/.exec(line)?.[1]
    const tidied = line.replace(/[ \t]+$/, "")
    if (tidied === "" && (out.length === 0 || out[out.length - 1] === "")) continue
    out.push(tidied)
  }
  while (out.length > 0 && out[out.length - 1] === "") out.pop()
  return out.join("\n")
}
