/**
 * .epub: the OPF package named by `META-INF/container.xml`, its spine in reading order, each
 * XHTML chapter as markdown under a `--- chapter N: path ---` marker. Title and authors first.
 */
import { formatBytes } from "../../core/format.js"
import { Unconvertible } from "./failure.js"
import { MAX_TEXT_CHARS } from "./limits.js"
import { htmlToMarkdown } from "./markdown.js"
import type { Converted } from "./types.js"
import { attributeOf, childOf, childrenOf, descendantsOf, parseXml, textOf } from "./xml.js"
import { openZip, resolvePart, type Zip } from "./zip.js"

const HTML_TYPES = new Set(["application/xhtml+xml", "text/html", "application/x-dtbook+xml"])

const decodeHref = (href: string): string => {
  const path = href.split("#")[0]!
  try {
    return decodeURIComponent(path)
  } catch {
    return path
  }
}

/** Font obfuscation (IDPF, Adobe) is not DRM: the text is still readable. */
const FONT_OBFUSCATION = new Set(["http://www.idpf.org/2008/embedding", "http://ns.adobe.com/pdf/enc#RC"])

/** Package paths encrypted by DRM, from `META-INF/encryption.xml`. */
const encryptedParts = async (zip: Zip): Promise<Set<string>> => {
  const parts = new Set<string>()
  if (!zip.has("META-INF/encryption.xml")) return parts
  const encryption = parseXml(await zip.text("META-INF/encryption.xml"), "META-INF/encryption.xml", "epub")
  for (const data of descendantsOf(encryption, "EncryptedData")) {
    const method = descendantsOf(data, "EncryptionMethod")[0]
    if (FONT_OBFUSCATION.has((method === undefined ? undefined : attributeOf(method, "Algorithm")) ?? "")) continue
    for (const reference of descendantsOf(data, "CipherReference")) {
      const uri = attributeOf(reference, "URI")
      if (uri !== undefined) parts.add(decodeHref(uri).replace(/^\//, ""))
    }
  }
  return parts
}

/** The inside of `<body>`, so the head (title, styles) never reaches the text. */
const bodyOf = (xhtml: string): string => {
  const open = /<body\b[^>]*>/i.exec(xhtml)
  if (open === null) return xhtml
  const close = xhtml.toLowerCase().lastIndexOf("</body>")
  return xhtml.slice(open.index + open[0].length, close > open.index ? close : undefined)
}

export const convertEpub = async (bytes: Buffer): Promise<Converted> => {
  const zip = await openZip(bytes, "epub")
  try {
    if (!zip.has("META-INF/container.xml")) {
      throw new Unconvertible("not a valid epub file: the package has no META-INF/container.xml")
    }
    const container = parseXml(await zip.text("META-INF/container.xml"), "META-INF/container.xml", "epub")
    const rootfile = descendantsOf(container, "rootfile").map((element) => attributeOf(element, "full-path")).find(
      (path): path is string => path !== undefined
    )
    if (rootfile === undefined) {
      throw new Unconvertible("not a valid epub file: META-INF/container.xml names no rootfile")
    }
    const opfPath = decodeHref(rootfile)
    if (!zip.has(opfPath)) throw new Unconvertible(`not a valid epub file: the package has no ${opfPath}`)
    const opf = parseXml(await zip.text(opfPath), opfPath, "epub")

    const metadata = childOf(opf, "metadata")
    const title = metadata === undefined
      ? undefined
      : childrenOf(metadata, "title").map(textOf).map((t) => t.trim()).find((t) => t)
    const authors = metadata === undefined
      ? []
      : childrenOf(metadata, "creator").map(textOf).map((t) => t.trim()).filter((t) => t)

    const manifest = new Map<string, { readonly href: string; readonly type: string }>()
    for (const item of childrenOf(childOf(opf, "manifest") ?? opf, "item")) {
      const id = attributeOf(item, "id")
      const href = attributeOf(item, "href")
      if (id !== undefined && href !== undefined) {
        manifest.set(id, { href: resolvePart(opfPath, decodeHref(href)), type: attributeOf(item, "media-type") ?? "" })
      }
    }
    const spine = childrenOf(childOf(opf, "spine") ?? opf, "itemref")
      .map((ref) => manifest.get(attributeOf(ref, "idref") ?? ""))
      .filter((item): item is { readonly href: string; readonly type: string } =>
        item !== undefined && HTML_TYPES.has(item.type)
      )

    const encrypted = await encryptedParts(zip)
    if (spine.some((item) => encrypted.has(item.href))) {
      throw new Unconvertible("the epub is DRM-protected: its chapters are encrypted and cannot be converted")
    }

    const parts: Array<string> = []
    const head = [
      ...(title === undefined ? [] : [`Title: ${title}`]),
      ...(authors.length === 0 ? [] : [`Author${authors.length === 1 ? "" : "s"}: ${authors.join(", ")}`])
    ]
    if (head.length > 0) parts.push(head.join("\n"))
    let chars = 0
    let chapter = 0
    for (const item of spine) {
      chapter++
      if (!zip.has(item.href)) {
        parts.push(`--- chapter ${chapter}: ${item.href} ---\n[missing from the package]`)
        continue
      }
      const markdown = await htmlToMarkdown(bodyOf(await zip.text(item.href)))
      parts.push(`--- chapter ${chapter}: ${item.href} ---${markdown.length > 0 ? `\n${markdown}` : ""}`)
      chars += markdown.length
      if (chars > MAX_TEXT_CHARS && chapter < spine.length) {
        parts.push(
          `[conversion stopped after chapter ${chapter} of ${spine.length}: the text passed ${
            formatBytes(MAX_TEXT_CHARS)
          }]`
        )
        break
      }
    }
    if (spine.length === 0) parts.push("[the book's spine lists no chapters]")
    return { text: `${parts.join("\n\n")}\n` }
  } finally {
    zip.close()
  }
}
