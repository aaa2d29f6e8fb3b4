/**
 * Markdown shared by the converters: pipe tables and HTML → markdown (turndown) tuned for a model
 * reading the text — no backslash escapes, compact lists, tables kept as tables, images as a
 * short notice instead of data URLs, in-book links reduced to their text.
 */
import type TurndownService from "turndown"

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

/** Collapse runs of blank lines and trim trailing spaces: converted text reads like written text. */
export const tidy = (text: string): string =>
  text
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map((line) => line.replace(/[ \t]+$/, ""))
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim()

/** The slice of the DOM turndown hands to rules (domino in Node). */
interface DomNode {
  readonly nodeName: string
  readonly nodeType: number
  readonly childNodes: ArrayLike<DomNode>
  readonly textContent: string | null
  readonly getAttribute?: (name: string) => string | null
  readonly parentNode: DomNode | null
}

const elements = (node: DomNode): Array<DomNode> => Array.from(node.childNodes).filter((child) => child.nodeType === 1)

let service: TurndownService | undefined

const turndown = async (): Promise<TurndownService> => {
  if (service !== undefined) return service
  const Turndown = (await import("turndown")).default
  const created = new Turndown({
    headingStyle: "atx",
    hr: "---",
    bulletListMarker: "-",
    codeBlockStyle: "fenced",
    emDelimiter: "*",
    strongDelimiter: "**"
  })
  // The text is read, not rendered: escapes like `a\_b` are noise.
  created.escape = (text: string) => text
  created.remove(["script", "style", "head", "title", "noscript", "template"] as Array<TurndownService.TagName>)
  created.addRule("listItem", {
    filter: "li",
    replacement: (content, node) => {
      const li = node as unknown as DomNode
      const parent = li.parentNode
      let prefix = "- "
      if (parent !== null && parent.nodeName === "OL") {
        const start = Number(parent.getAttribute?.("start") ?? "1")
        const index = elements(parent).filter((child) => child.nodeName === "LI").indexOf(li)
        prefix = `${(Number.isFinite(start) ? start : 1) + index}. `
      }
      const body = content.replace(/^\n+/, "").replace(/\n+$/, "\n").replace(/\n/gm, `\n${" ".repeat(prefix.length)}`)
      return `${prefix}${body.trimEnd()}\n`
    }
  })
  created.addRule("image", {
    filter: "img",
    replacement: (_content, node) => {
      const alt = ((node as unknown as DomNode).getAttribute?.("alt") ?? "").trim()
      return alt.length > 0 ? `[image: ${alt}]` : "[image]"
    }
  })
  created.addRule("link", {
    filter: (node) => (node as unknown as DomNode).nodeName === "A",
    replacement: (content, node) => {
      const href = ((node as unknown as DomNode).getAttribute?.("href") ?? "").trim()
      return /^(https?:|mailto:)/i.test(href) && content.trim().length > 0 ? `[${content}](${href})` : content
    }
  })
  created.addRule("table", {
    filter: "table",
    replacement: (_content, node) => {
      const rows: Array<Array<string>> = []
      const collect = (parent: DomNode) => {
        for (const child of elements(parent)) {
          if (child.nodeName === "TR") {
            rows.push(
              elements(child)
                .filter((cell) => cell.nodeName === "TD" || cell.nodeName === "TH")
                .map((cell) => created.turndown(cell as unknown as TurndownService.Node))
            )
          } else if (child.nodeName === "THEAD" || child.nodeName === "TBODY" || child.nodeName === "TFOOT") {
            collect(child)
          }
        }
      }
      collect(node as unknown as DomNode)
      return `\n\n${markdownTable(rows).join("\n")}\n\n`
    }
  })
  service = created
  return created
}

/** HTML (or XHTML) to markdown. */
export const htmlToMarkdown = async (html: string): Promise<string> => tidy((await turndown()).turndown(html))
