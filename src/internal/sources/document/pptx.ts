/**
 * .pptx: slides in presentation order as `## Slide N`, titles as `### …`, body text as bullets
 * (indented by level), other text boxes as lines, tables as markdown, pictures as a notice, and
 * the speaker notes. `:pages=` selects slides.
 */
import type { LineRange } from "../../core/ranges.js"
import { clampPages, Unconvertible } from "./failure.js"
import { markdownTable, tidy } from "./markdown.js"
import type { Converted } from "./types.js"
import {
  attributeOf,
  childOf,
  childrenOf,
  descendantsOf,
  isElement,
  parseXml,
  pathOf,
  textOf,
  type XmlElement
} from "./xml.js"
import { openZip, resolvePart, type Zip } from "./zip.js"

const SLIDE = /^ppt\/slides\/slide(\d+)\.xml$/

const relsOf = async (
  zip: Zip,
  part: string
): Promise<Map<string, { readonly type: string; readonly target: string }>> => {
  const slash = part.lastIndexOf("/")
  const rels = `${part.slice(0, slash)}/_rels/${part.slice(slash + 1)}.rels`
  const map = new Map<string, { readonly type: string; readonly target: string }>()
  if (!zip.has(rels)) return map
  const root = parseXml(await zip.text(rels), rels, "pptx")
  for (const rel of childrenOf(root, "Relationship")) {
    const id = attributeOf(rel, "Id")
    const target = attributeOf(rel, "Target")
    if (id === undefined || target === undefined || attributeOf(rel, "TargetMode") === "External") continue
    map.set(id, { type: attributeOf(rel, "Type") ?? "", target: resolvePart(part, target) })
  }
  return map
}

/** Slide parts in the order of the presentation, or by number when that order is unreadable. */
const slideOrder = async (zip: Zip): Promise<Array<string>> => {
  const byNumber = zip.names
    .filter((name) => SLIDE.test(name))
    .sort((a, b) => Number(SLIDE.exec(a)![1]) - Number(SLIDE.exec(b)![1]))
  if (!zip.has("ppt/presentation.xml")) return byNumber
  const presentation = parseXml(await zip.text("ppt/presentation.xml"), "ppt/presentation.xml", "pptx")
  const rels = await relsOf(zip, "ppt/presentation.xml")
  const list = pathOf(presentation, "sldIdLst")
  if (list === undefined) return byNumber
  const ordered = childrenOf(list, "sldId")
    .map((id) => rels.get(attributeOf(id, "r:id") ?? "")?.target)
    .filter((part): part is string => part !== undefined && zip.has(part))
  return ordered.length > 0 ? ordered : byNumber
}

/** The text of one `a:p`: runs, fields and line breaks. */
const paragraphText = (paragraph: XmlElement): string => {
  let text = ""
  const walk = (element: XmlElement) => {
    for (const child of element.children) {
      if (!isElement(child)) continue
      if (child.local === "t") text += textOf(child)
      else if (child.local === "br") text += "\n"
      else if (child.local === "tab") text += "\t"
      else if (child.local !== "pPr" && child.local !== "rPr") walk(child)
    }
  }
  walk(paragraph)
  return text
}

const placeholderOf = (shape: XmlElement): string | undefined => {
  const ph = descendantsOf(childOf(shape, "nvSpPr") ?? shape, "ph")[0]
  return ph === undefined ? undefined : attributeOf(ph, "type") ?? "body"
}

const shapeLines = (shape: XmlElement): Array<string> => {
  const body = childOf(shape, "txBody")
  if (body === undefined) return []
  const placeholder = placeholderOf(shape)
  if (placeholder === "sldNum" || placeholder === "dt" || placeholder === "ftr" || placeholder === "hdr") return []
  const lines: Array<string> = []
  for (const paragraph of childrenOf(body, "p")) {
    const text = paragraphText(paragraph).trim()
    if (text.length === 0) continue
    if (placeholder === "title" || placeholder === "ctrTitle") {
      lines.push(`### ${text.replace(/\s*\n\s*/g, " ")}`)
      continue
    }
    const properties = childOf(paragraph, "pPr")
    const level = Number(properties === undefined ? 0 : attributeOf(properties, "lvl") ?? 0) || 0
    const explicit = properties === undefined
      ? undefined
      : childOf(properties, "buNone") !== undefined
      ? false
      : childOf(properties, "buChar") !== undefined || childOf(properties, "buAutoNum") !== undefined
      ? true
      : undefined
    const bulleted = explicit ?? (placeholder === "body" || placeholder === "obj")
    const indent = "  ".repeat(Math.min(level, 8))
    lines.push(bulleted ? `${indent}- ${text.replace(/\n/g, `\n${indent}  `)}` : text)
  }
  return lines
}

const tableLines = (frame: XmlElement): Array<string> => {
  const table = descendantsOf(frame, "tbl")[0]
  if (table === undefined) return []
  const rows = childrenOf(table, "tr").map((row) =>
    childrenOf(row, "tc").map((cell) =>
      descendantsOf(cell, "p").map(paragraphText).filter((text) => text.trim().length > 0).join(" ")
    )
  )
  return rows.length === 0 ? [] : ["", ...markdownTable(rows), ""]
}

/** The content of a shape tree, in drawing order. */
const treeLines = (tree: XmlElement): Array<string> => {
  const lines: Array<string> = []
  for (const child of tree.children) {
    if (!isElement(child)) continue
    switch (child.local) {
      case "sp":
        lines.push(...shapeLines(child))
        break
      case "grpSp":
        lines.push(...treeLines(child))
        break
      case "graphicFrame":
        lines.push(...tableLines(child))
        break
      case "pic": {
        const properties = descendantsOf(child, "cNvPr")[0]
        const alt = (properties === undefined ? "" : attributeOf(properties, "descr") ?? "").trim()
        lines.push(alt.length > 0 ? `[image: ${alt}]` : "[image]")
        break
      }
      case "AlternateContent": {
        const choice = childOf(child, "Choice") ?? childOf(child, "Fallback")
        if (choice !== undefined) lines.push(...treeLines(choice))
        break
      }
    }
  }
  return lines
}

const notesLines = (notes: XmlElement): Array<string> => {
  const tree = pathOf(notes, "cSld", "spTree")
  if (tree === undefined) return []
  return childrenOf(tree, "sp")
    .filter((shape) => placeholderOf(shape) === "body")
    .flatMap((shape) => childrenOf(childOf(shape, "txBody") ?? shape, "p").map(paragraphText))
    .map((text) => text.trim())
    .filter((text) => text.length > 0)
}

export const convertPptx = async (bytes: Buffer, pages: LineRange | undefined): Promise<Converted> => {
  const zip = await openZip(bytes, "pptx")
  try {
    const slides = await slideOrder(zip)
    if (slides.length === 0 && !zip.has("ppt/presentation.xml")) {
      throw new Unconvertible("not a valid pptx file: the package has no ppt/presentation.xml")
    }
    const range = pages === undefined
      ? { first: 1, last: slides.length, note: undefined }
      : clampPages(pages, slides.length, "slide")
    const blocks: Array<string> = []
    for (let n = range.first; n <= range.last; n++) {
      const part = slides[n - 1]!
      const slide = parseXml(await zip.text(part), part, "pptx")
      const hidden = attributeOf(slide, "show") === "0" ? " (hidden)" : ""
      const tree = pathOf(slide, "cSld", "spTree")
      const lines = tree === undefined ? [] : treeLines(tree)
      const rels = await relsOf(zip, part)
      const notesPart = [...rels.values()].find((rel) => rel.type.endsWith("/notesSlide") && zip.has(rel.target))
      const notes = notesPart === undefined
        ? []
        : notesLines(parseXml(await zip.text(notesPart.target), notesPart.target, "pptx"))
      const body = tidy([...lines, ...(notes.length > 0 ? ["", "Notes:", ...notes] : [])].join("\n"))
      blocks.push(`## Slide ${n}${hidden}\n${body.length > 0 ? body : "[no text on this slide]"}`)
    }
    if (slides.length === 0) blocks.push("[the presentation has no slides]")
    return { text: `${blocks.join("\n\n")}\n`, note: range.note }
  } finally {
    zip.close()
  }
}
