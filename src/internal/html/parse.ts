/**
 * HTML as a small DOM, without a browser DOM package: htmlparser2 parses what the web sends
 * (unclosed tags, named entities, stray end tags) and we write it out again well-formed (every
 * element closed, void elements as `<br/>`, text and attributes escaped, scripts, styles and
 * comments dropped); Readability's own parser, `JSDOMParser`, builds a DOM from that. The pair is
 * what Firefox's reader view did: a real parser's serialization read by JSDOMParser.
 */
import JSDOMParser from "@mozilla/readability/JSDOMParser.js"
import { Parser } from "htmlparser2"

/** The DOM members the converters read; JSDOMParser's nodes have them. */
export interface DomNode {
  readonly nodeType: number
  /** Upper case for elements (`"P"`), `#text` for text. */
  readonly nodeName: string
  readonly childNodes: ReadonlyArray<DomNode>
  readonly parentNode: DomNode | null
  readonly textContent: string
  getAttribute?(name: string): string | undefined | null
  setAttribute?(name: string, value: string): void
}

export interface DomElement extends DomNode {
  readonly children: ReadonlyArray<DomElement>
  getAttribute(name: string): string | undefined | null
  setAttribute(name: string, value: string): void
  getElementsByTagName(name: string): ReadonlyArray<DomElement>
}

export interface DomDocument {
  readonly title: string
  readonly body: DomElement | null
  readonly documentElement: DomElement
  getElementsByTagName(name: string): ReadonlyArray<DomElement>
}

export const ELEMENT = 1
export const TEXT = 3

const VOID = new Set([
  "area",
  "base",
  "br",
  "col",
  "embed",
  "hr",
  "img",
  "input",
  "link",
  "meta",
  "param",
  "source",
  "track",
  "wbr"
])

/** Never shown as text: their content is code, styling, or a picture's markup. */
const DROPPED = new Set(["script", "style", "noscript", "template", "svg", "math", "canvas", "iframe", "object"])

/** The document's frame: written once, by us. */
const FRAME = new Set(["html", "head", "body"])

/** Metadata: never part of the text, wherever a page puts it. */
const META = new Set(["title", "base", "meta", "link"])

const escapeText = (text: string): string => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
const escapeAttribute = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;")

/** An attribute name JSDOMParser reads back (it splits at `=` and whitespace). */
const NAME = /^[a-z_:][\w:.-]*$/i

export interface Normalized {
  /** `<html><head><title>…</title></head><body>…</body></html>`, every element closed. */
  readonly html: string
  /** The first `<title>` in the head, whitespace collapsed. */
  readonly title: string
  /** A `<base href>` in the head, as written. */
  readonly base: string | undefined
}

/** Parse `html` as a browser would close its tags, and write it out well-formed. */
export const normalize = (html: string): Normalized => {
  const out: Array<string> = []
  const stack: Array<string> = []
  let dropped = 0
  let inTitle = false
  let title: string | undefined
  let titleText = ""
  let base: string | undefined
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (dropped > 0 || DROPPED.has(name)) {
          if (!VOID.has(name)) dropped++
          return
        }
        if (name === "title") {
          // A second title is not shown either.
          if (title !== undefined || inTitle) return void dropped++
          inTitle = true
        }
        if (name === "base" && base === undefined && attributes.href !== undefined) base = attributes.href
        if (FRAME.has(name) || META.has(name)) return
        let tag = `<${name}`
        for (const [key, value] of Object.entries(attributes)) {
          if (NAME.test(key)) tag += ` ${key}="${escapeAttribute(value)}"`
        }
        if (VOID.has(name)) {
          out.push(`${tag}/>`)
          return
        }
        out.push(`${tag}>`)
        stack.push(name)
      },
      onclosetag(name) {
        if (dropped > 0) {
          if (DROPPED.has(name) || !VOID.has(name)) dropped--
          return
        }
        if (name === "title" && inTitle) {
          inTitle = false
          title = titleText
        }
        if (VOID.has(name) || stack.length === 0 || stack[stack.length - 1] !== name) return
        stack.pop()
        out.push(`</${name}>`)
      },
      ontext(text) {
        if (dropped > 0) return
        if (inTitle) titleText += text
        else out.push(escapeText(text))
      }
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true, recognizeSelfClosing: true }
  )
  parser.end(html)
  while (stack.length > 0) out.push(`</${stack.pop()!}>`)
  const shown = (title ?? "").replace(/\s+/g, " ").trim()
  return {
    html: `<html><head><title>${escapeText(shown)}</title></head><body>${out.join("")}</body></html>`,
    title: shown,
    base
  }
}

/** A DOM of the normalized page; `url` is its address (Readability resolves links against it). */
export const parseDocument = (normalized: Normalized, url?: string): DomDocument =>
  new JSDOMParser().parse(normalized.html, url) as DomDocument
