/**
 * XML parts of documents as a small ordered tree, matched by local name (prefixes vary between
 * producers: `a:t`, `w:t`, `text:p`, …). Parsing validates first, so a truncated part is an error.
 */
import { XMLParser, XMLValidator } from "fast-xml-parser"
import { Unconvertible } from "./failure.js"

export interface XmlElement {
  /** The qualified name as written (`text:p`). */
  readonly name: string
  /** The name without its prefix (`p`). */
  readonly local: string
  readonly attributes: Readonly<Record<string, string>>
  readonly children: ReadonlyArray<XmlNode>
}
export type XmlNode = XmlElement | string

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: "",
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  processEntities: true,
  htmlEntities: true
})

type Ordered = Record<string, unknown>

const localOf = (name: string): string => {
  const colon = name.indexOf(":")
  return colon === -1 ? name : name.slice(colon + 1)
}

const convert = (items: ReadonlyArray<Ordered>): Array<XmlNode> => {
  const nodes: Array<XmlNode> = []
  for (const item of items) {
    for (const key of Object.keys(item)) {
      if (key === ":@") continue
      const value = item[key]
      if (key === "#text") {
        nodes.push(String(value))
        continue
      }
      if (key.startsWith("?") || key.startsWith("!")) continue
      const attributes: Record<string, string> = {}
      const raw = item[":@"]
      if (raw !== null && typeof raw === "object") {
        for (const [name, attribute] of Object.entries(raw as Record<string, unknown>)) {
          attributes[name] = String(attribute)
        }
      }
      nodes.push({
        name: key,
        local: localOf(key),
        attributes,
        children: Array.isArray(value) ? convert(value as Array<Ordered>) : []
      })
    }
  }
  return nodes
}

/** Parse `xml` (the part `part` of a `format` document) to its root element. */
export const parseXml = (xml: string, part: string, format: string): XmlElement => {
  const valid = XMLValidator.validate(xml)
  if (valid !== true) {
    throw new Unconvertible(
      `corrupt ${format} file: ${part} is not well-formed XML (line ${valid.err.line}: ${valid.err.msg})`
    )
  }
  const root = convert(parser.parse(xml) as Array<Ordered>).find((node): node is XmlElement => typeof node !== "string")
  if (root === undefined) throw new Unconvertible(`corrupt ${format} file: ${part} has no root element`)
  return root
}

export const isElement = (node: XmlNode): node is XmlElement => typeof node !== "string"

/** Direct children named `local`. */
export const childrenOf = (element: XmlElement, local: string): Array<XmlElement> =>
  element.children.filter((node): node is XmlElement => isElement(node) && node.local === local)

export const childOf = (element: XmlElement, local: string): XmlElement | undefined =>
  element.children.find((node): node is XmlElement => isElement(node) && node.local === local)

/** The first descendant along `path` of local names. */
export const pathOf = (element: XmlElement, ...path: ReadonlyArray<string>): XmlElement | undefined => {
  let current: XmlElement | undefined = element
  for (const local of path) {
    if (current === undefined) return undefined
    current = childOf(current, local)
  }
  return current
}

/** Every descendant named `local`, in document order (not below a match). */
export const descendantsOf = (element: XmlElement, local: string): Array<XmlElement> => {
  const found: Array<XmlElement> = []
  const walk = (node: XmlElement) => {
    for (const child of node.children) {
      if (!isElement(child)) continue
      if (child.local === local) found.push(child)
      else walk(child)
    }
  }
  walk(element)
  return found
}

/** An attribute by local name (`r:id` matches `id` only when asked as `r:id` or no other `id` exists). */
export const attributeOf = (element: XmlElement, name: string): string | undefined => {
  const exact = element.attributes[name]
  if (exact !== undefined) return exact
  const local = localOf(name)
  for (const [key, value] of Object.entries(element.attributes)) {
    if (localOf(key) === local) return value
  }
  return undefined
}

/** All text below `element`. */
export const textOf = (element: XmlNode): string =>
  typeof element === "string" ? element : element.children.map(textOf).join("")
