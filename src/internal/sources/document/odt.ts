/**
 * .odt: `content.xml` of the OpenDocument text — headings by outline level, paragraphs, lists
 * (nested, `- `), tables as markdown, frames' text boxes and images as a notice. Whitespace
 * follows ODF rules: runs collapse, `text:s` / `text:tab` / `text:line-break` are explicit.
 */
import { Unconvertible } from "./failure.js"
import { markdownTable, tidy } from "./markdown.js"
import type { Converted } from "./types.js"
import { attributeOf, childOf, isElement, parseXml, type XmlElement, type XmlNode } from "./xml.js"
import { openZip } from "./zip.js"

/** Elements that hold no reading text. */
const skipped = new Set([
  "sequence-decls",
  "variable-decls",
  "user-field-decls",
  "tracked-changes",
  "forms",
  "annotation",
  "note",
  "soft-page-break",
  "bookmark",
  "bookmark-start",
  "bookmark-end",
  "reference-mark",
  "table-columns",
  "table-column",
  "table-column-group"
])

/** The inline text of a paragraph or heading. */
const inline = (node: XmlNode): string => {
  if (typeof node === "string") return node.replace(/[ \t\r\n]+/g, " ")
  switch (node.local) {
    case "s": {
      const count = Number(attributeOf(node, "c") ?? 1)
      return " ".repeat(Number.isFinite(count) ? Math.min(Math.max(count, 1), 1000) : 1)
    }
    case "tab":
      return "\t"
    case "line-break":
      return "\n"
    case "frame":
      return frameText(node)
    default:
      return skipped.has(node.local) ? "" : node.children.map(inline).join("")
  }
}

const frameText = (frame: XmlElement): string => {
  const box = childOf(frame, "text-box")
  if (box !== undefined) return blocks(box, 0).join(" ")
  if (childOf(frame, "image") !== undefined) {
    const title = childOf(frame, "title") ?? childOf(frame, "desc")
    const alt = title === undefined ? "" : inline(title).trim()
    return alt.length > 0 ? `[image: ${alt}]` : "[image]"
  }
  return ""
}

const tableRows = (table: XmlElement): Array<Array<string>> => {
  const rows: Array<Array<string>> = []
  const walk = (element: XmlElement) => {
    for (const child of element.children) {
      if (!isElement(child)) continue
      if (child.local === "table-row") {
        const cells: Array<string> = []
        for (const cell of child.children) {
          if (!isElement(cell) || (cell.local !== "table-cell" && cell.local !== "covered-table-cell")) continue
          const text = blocks(cell, 0).join(" ")
          // Producers repeat empty trailing cells up to the sheet width (1024): keep real ones only.
          const repeat = Math.min(Number(attributeOf(cell, "number-columns-repeated") ?? 1) || 1, 64)
          for (let i = 0; i < repeat; i++) cells.push(text)
        }
        while (cells.length > 0 && cells[cells.length - 1]!.trim() === "") cells.pop()
        rows.push(cells)
      } else if (
        child.local === "table-header-rows" || child.local === "table-rows" || child.local === "table-row-group"
      ) {
        walk(child)
      }
    }
  }
  walk(table)
  return rows
}

/** Block-level content as markdown blocks. */
const blocks = (element: XmlElement, depth: number): Array<string> => {
  const out: Array<string> = []
  for (const child of element.children) {
    if (!isElement(child) || skipped.has(child.local)) continue
    switch (child.local) {
      case "h": {
        const level = Math.min(Math.max(Number(attributeOf(child, "outline-level") ?? 1) || 1, 1), 6)
        const text = inline(child).trim()
        if (text.length > 0) out.push(`${"#".repeat(level)} ${text.replace(/\s*\n\s*/g, " ")}`)
        break
      }
      case "p": {
        const text = inline(child).trim()
        if (text.length > 0) out.push(text)
        break
      }
      case "list": {
        const indent = "  ".repeat(depth)
        const items: Array<string> = []
        for (const item of child.children) {
          if (!isElement(item) || (item.local !== "list-item" && item.local !== "list-header")) continue
          const [first, ...rest] = blocks(item, depth + 1)
          if (first === undefined) continue
          items.push(`${indent}- ${first}`, ...rest)
        }
        out.push(items.join("\n"))
        break
      }
      case "table": {
        const rows = tableRows(child).filter((row) => row.length > 0)
        if (rows.length > 0) out.push(markdownTable(rows).join("\n"))
        break
      }
      default:
        // Sections, index bodies, frames and other containers: their blocks in order.
        out.push(...blocks(child, depth))
    }
  }
  return out.filter((block) => block.length > 0)
}

export const convertOdt = async (bytes: Buffer): Promise<Converted> => {
  const zip = await openZip(bytes, "odt")
  try {
    if (!zip.has("content.xml")) throw new Unconvertible("not a valid odt file: the package has no content.xml")
    const content = parseXml(await zip.text("content.xml"), "content.xml", "odt")
    const text = childOf(childOf(content, "body") ?? content, "text")
    if (text === undefined) throw new Unconvertible("not an OpenDocument text: content.xml has no office:text body")
    const markdown = tidy(blocks(text, 0).join("\n\n"))
    return { text: markdown.length === 0 ? "[the document has no text]\n" : `${markdown}\n` }
  } finally {
    zip.close()
  }
}
