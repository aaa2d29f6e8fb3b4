/**
 * Documents through `read` over the real filesystem: PDF text with page selection, .docx, .xlsx,
 * .pptx, .epub and .odt converted to markdown, line selectors and paging on the converted text,
 * and every failure (corrupt, encrypted, not a zip, bombs, size caps). Every fixture is built
 * by the tests: PDFs by hand with computed xref offsets, zips with a small writer, the
 * workbook with exceljs.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import ExcelJS from "exceljs"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import * as zlib from "node:zlib"
import * as OptionalPackages from "../src/OptionalPackages.js"
import { read, type ReadParams } from "../src/Read.js"
import { fieldsOf, nodeLayer, projectDirs } from "./support/index.js"
import { assemblePdf, makePdf, pdfStream } from "./support/media.js"
import { crc32 } from "./support/zipFixtures.js"

// -----------------------------------------------------------------------------
// Helpers
// -----------------------------------------------------------------------------

const project = projectDirs()

const readIn = (root: string, params: ReadParams) => read(params).pipe(Effect.provide(nodeLayer(root)))
const failIn = (root: string, params: ReadParams) => Effect.flip(readIn(root, params))

const page = (path: string, lines: ReadonlyArray<string>, footer: string, note?: string): string =>
  `${note === undefined ? "" : `${note}\n`}<path>${path}</path>\n<type>file</type>\n<content>\n${
    lines.map((line) => `${line}\n`).join("")
  }\n${footer}\n</content>`

const numbered = (lines: ReadonlyArray<string>, first = 1): Array<string> => lines.map((l, i) => `${first + i}: ${l}`)

const eof = (total: number) => `(End of file - total ${total} lines)`

/** The whole converted text as numbered lines ending in the end-of-file footer. */
const whole = (path: string, text: string, note?: string) => {
  const lines = text.split("\n")
  return page(path, numbered(lines), eof(lines.length), note)
}

// --- zip ----------------------------------------------------------------------

interface ZipOptions {
  /** Entries whose general-purpose flag says "encrypted". */
  readonly encrypted?: ReadonlyArray<string>
  /** Entries whose headers declare another uncompressed size than the real one. */
  readonly declare?: Readonly<Record<string, number>>
}

/** A zip (deflated entries) with local headers, central directory and end record. */
const makeZip = (files: Readonly<Record<string, string | Uint8Array>>, options: ZipOptions = {}): Buffer => {
  const locals: Array<Buffer> = []
  const centrals: Array<Buffer> = []
  let offset = 0
  for (const [name, content] of Object.entries(files)) {
    const data = Buffer.from(content)
    const body = zlib.deflateRawSync(data)
    const nameBytes = Buffer.from(name, "utf8")
    const flags = options.encrypted?.includes(name) ? 1 : 0
    const size = options.declare?.[name] ?? data.length
    const local = Buffer.alloc(30)
    local.writeUInt32LE(0x04034b50, 0)
    local.writeUInt16LE(20, 4)
    local.writeUInt16LE(flags, 6)
    local.writeUInt16LE(8, 8)
    local.writeUInt32LE(crc32(data), 14)
    local.writeUInt32LE(body.length, 18)
    local.writeUInt32LE(size, 22)
    local.writeUInt16LE(nameBytes.length, 26)
    const central = Buffer.alloc(46)
    central.writeUInt32LE(0x02014b50, 0)
    central.writeUInt16LE(20, 4)
    central.writeUInt16LE(20, 6)
    central.writeUInt16LE(flags, 8)
    central.writeUInt16LE(8, 10)
    central.writeUInt32LE(crc32(data), 16)
    central.writeUInt32LE(body.length, 20)
    central.writeUInt32LE(size, 24)
    central.writeUInt16LE(nameBytes.length, 28)
    central.writeUInt32LE(offset, 42)
    locals.push(local, nameBytes, body)
    centrals.push(central, nameBytes)
    offset += 30 + nameBytes.length + body.length
  }
  const directory = Buffer.concat(centrals)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(Object.keys(files).length, 8)
  end.writeUInt16LE(Object.keys(files).length, 10)
  end.writeUInt32LE(directory.length, 12)
  end.writeUInt32LE(offset, 16)
  return Buffer.concat([...locals, directory, end])
}

// --- PDF ----------------------------------------------------------------------

/** A page in a non-embedded Japanese CID font: its text needs pdf.js's predefined CMaps. */
const makeCjkPdf = (): Buffer =>
  assemblePdf([
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
    "<< /Type /Font /Subtype /Type0 /BaseFont /HeiseiMin-W3 /Encoding /UniJIS-UCS2-H /DescendantFonts [6 0 R] >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>",
    pdfStream("BT /F1 12 Tf 72 720 Td <65E5672C8A9E> Tj ET"),
    "<< /Type /Font /Subtype /CIDFontType0 /BaseFont /HeiseiMin-W3 /CIDSystemInfo << /Registry (Adobe) /Ordering (Japan1) /Supplement 2 >> /FontDescriptor 7 0 R >>",
    "<< /Type /FontDescriptor /FontName /HeiseiMin-W3 /Flags 6 /FontBBox [0 0 1000 1000] /ItalicAngle 0 /Ascent 880 /Descent -120 /CapHeight 700 /StemV 80 >>"
  ])

// --- OOXML / ODF / EPUB ----------------------------------------------------------

const XML = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>`
const W = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"`
const REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
const rels = (items: ReadonlyArray<readonly [string, string, string]>) =>
  `${XML}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${
    items.map(([id, type, target]) => `<Relationship Id="${id}" Type="${REL}/${type}" Target="${target}"/>`).join("")
  }</Relationships>`

const wp = (text: string, style?: string, list?: readonly [number, number]) =>
  `<w:p><w:pPr>${style === undefined ? "" : `<w:pStyle w:val="${style}"/>`}${
    list === undefined ? "" : `<w:numPr><w:ilvl w:val="${list[1]}"/><w:numId w:val="${list[0]}"/></w:numPr>`
  }</w:pPr><w:r><w:t xml:space="preserve">${text}</w:t></w:r></w:p>`
const wtable = (rows: ReadonlyArray<ReadonlyArray<string>>) =>
  `<w:tbl>${
    rows.map((row) => `<w:tr>${row.map((cell) => `<w:tc>${wp(cell)}</w:tc>`).join("")}</w:tr>`).join("")
  }</w:tbl>`

/** A .docx: styles for two heading levels, a bullet and a decimal list, and `body` as document XML. */
const makeDocx = (body: string): Buffer =>
  makeZip({
    "[Content_Types].xml":
      `${XML}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`,
    "_rels/.rels": rels([["rId1", "officeDocument", "word/document.xml"]]),
    "word/_rels/document.xml.rels": rels([["rId1", "styles", "styles.xml"], ["rId2", "numbering", "numbering.xml"]]),
    "word/styles.xml":
      `${XML}<w:styles ${W}><w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/></w:style><w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/></w:style></w:styles>`,
    "word/numbering.xml":
      `${XML}<w:numbering ${W}><w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0"><w:numFmt w:val="bullet"/></w:lvl><w:lvl w:ilvl="1"><w:numFmt w:val="bullet"/></w:lvl></w:abstractNum><w:abstractNum w:abstractNumId="1"><w:lvl w:ilvl="0"><w:numFmt w:val="decimal"/></w:lvl></w:abstractNum><w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num><w:num w:numId="2"><w:abstractNumId w:val="1"/></w:num></w:numbering>`,
    "word/document.xml": `${XML}<w:document ${W}><w:body>${body}</w:body></w:document>`
  })

const DOCX_BODY = [
  wp("Quarterly Report", "Heading1"),
  wp("Intro with *stars*, a_b and 5 &lt; 6."),
  wp("Details", "Heading2"),
  wp("First bullet", undefined, [1, 0]),
  wp("Nested bullet", undefined, [1, 1]),
  wp("Second bullet", undefined, [1, 0]),
  wp("Step one", undefined, [2, 0]),
  wp("Step two", undefined, [2, 0]),
  wtable([["Name", "Qty"], ["Apples", "3"], ["Pears | x", "5"]]),
  wp("The end.")
].join("")

const A = `xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"`
const P = `xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"`
const R = `xmlns:r="${REL}"`
const run = (text: string) => `<a:r><a:rPr lang="en-US"/><a:t>${text}</a:t></a:r>`
const para = (text: string, level?: number) =>
  `<a:p>${level === undefined ? "" : `<a:pPr lvl="${level}"/>`}${run(text)}</a:p>`
const shape = (placeholder: string | undefined, paragraphs: string) =>
  `<p:sp><p:nvSpPr><p:cNvPr id="2" name="s"/><p:cNvSpPr/><p:nvPr>${
    placeholder === undefined ? "" : placeholder === "" ? `<p:ph idx="1"/>` : `<p:ph type="${placeholder}"/>`
  }</p:nvPr></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/>${paragraphs}</p:txBody></p:sp>`
const slideXml = (content: string) =>
  `${XML}<p:sld ${A} ${P} ${R}><p:cSld><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>${content}</p:spTree></p:cSld></p:sld>`

/** A .pptx whose presentation lists slide2.xml before slide1.xml: order comes from the presentation. */
const makePptx = (): Buffer =>
  makeZip({
    "[Content_Types].xml": `${XML}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`,
    "_rels/.rels": rels([["rId1", "officeDocument", "ppt/presentation.xml"]]),
    "ppt/presentation.xml":
      `${XML}<p:presentation ${A} ${P} ${R}><p:sldIdLst><p:sldId id="256" r:id="rId3"/><p:sldId id="257" r:id="rId2"/><p:sldId id="258" r:id="rId4"/></p:sldIdLst></p:presentation>`,
    "ppt/_rels/presentation.xml.rels": rels([
      ["rId2", "slide", "slides/slide1.xml"],
      ["rId3", "slide", "slides/slide2.xml"],
      ["rId4", "slide", "slides/slide3.xml"]
    ]),
    "ppt/slides/slide2.xml": slideXml(
      shape("ctrTitle", para("Launch Plan")) + shape("subTitle", para("Q3 review")) +
        `<p:pic><p:nvPicPr><p:cNvPr id="4" name="Picture" descr="Team photo"/><p:cNvPicPr/><p:nvPr/></p:nvPicPr></p:pic>`
    ),
    "ppt/slides/_rels/slide2.xml.rels": rels([["rId1", "notesSlide", "../notesSlides/notesSlide1.xml"]]),
    "ppt/notesSlides/notesSlide1.xml": `${XML}<p:notes ${A} ${P}><p:cSld><p:spTree>${
      shape("body", para("Mention the budget."))
    }${shape("sldNum", para("1"))}</p:spTree></p:cSld></p:notes>`,
    "ppt/slides/slide1.xml": slideXml(
      shape("title", para("Goals")) +
        shape("", para("Ship v2") + para("Beta in May", 1) + para("Hire two engineers")) +
        shape(undefined, para("Text box note")) +
        `<p:graphicFrame><a:graphic><a:graphicData><a:tbl><a:tr><a:tc><a:txBody>${
          para("Owner")
        }</a:txBody></a:tc><a:tc><a:txBody>${para("Date")}</a:txBody></a:tc></a:tr><a:tr><a:tc><a:txBody>${
          para("Ana")
        }</a:txBody></a:tc><a:tc><a:txBody>${
          para("May 1")
        }</a:txBody></a:tc></a:tr></a:tbl></a:graphicData></a:graphic></p:graphicFrame>`
    ),
    "ppt/slides/slide3.xml": slideXml("")
  })

const OFFICE = [
  `xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"`,
  `xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"`,
  `xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"`,
  `xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"`,
  `xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"`
].join(" ")

const makeOdt = (body: string): Buffer =>
  makeZip({
    mimetype: "application/vnd.oasis.opendocument.text",
    "META-INF/manifest.xml":
      `${XML}<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/></manifest:manifest>`,
    "content.xml":
      `${XML}<office:document-content ${OFFICE}><office:body><office:text><text:sequence-decls/>${body}</office:text></office:body></office:document-content>`
  })

const ODT_BODY = [
  `<text:h text:outline-level="1">Field Notes</text:h>`,
  `<text:p>Spaced<text:s text:c="3"/>out and <text:span>spanned</text:span>   text.</text:p>`,
  `<text:p/>`,
  `<text:h text:outline-level="2">Findings</text:h>`,
  `<text:list><text:list-item><text:p>Birds</text:p><text:list><text:list-item><text:p>Robins</text:p></text:list-item></text:list></text:list-item><text:list-item><text:p>Bees</text:p></text:list-item></text:list>`,
  `<table:table><table:table-column table:number-columns-repeated="2"/><table:table-row><table:table-cell><text:p>Site</text:p></table:table-cell><table:table-cell><text:p>Count</text:p></table:table-cell><table:table-cell table:number-columns-repeated="1020"/></table:table-row><table:table-row><table:table-cell><text:p>North</text:p></table:table-cell><table:table-cell><text:p>12</text:p></table:table-cell></table:table-row></table:table>`,
  `<text:p>Line one<text:line-break/>line two<text:note><text:note-body><text:p>a footnote</text:p></text:note-body></text:note></text:p>`,
  `<text:p><draw:frame><draw:image/><svg:title>Map of the site</svg:title></draw:frame></text:p>`
].join("")

const xhtml = (title: string, body: string) =>
  `<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE html>\n<html xmlns="http://www.w3.org/1999/xhtml"><head><title>${title}</title><style>p{}</style></head><body>${body}</body></html>`

/** An .epub's entries: the spine order (chapter 1, 2, appendix) differs from the manifest order. */
const makeEpubFiles = (): Record<string, string> => ({
  mimetype: "application/epub+zip",
  "META-INF/container.xml":
    `${XML}<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`,
  "OEBPS/content.opf":
    `${XML}<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>The Small Book</dc:title><dc:creator>Ada Writer</dc:creator><dc:creator>Bo Editor</dc:creator></metadata><manifest><item id="appendix" href="text/appendix.xhtml" media-type="application/xhtml+xml"/><item id="c1" href="text/chapter%201.xhtml" media-type="application/xhtml+xml"/><item id="c2" href="text/ch2.xhtml" media-type="application/xhtml+xml"/><item id="css" href="style.css" media-type="text/css"/><item id="img" href="images/map.png" media-type="image/png"/></manifest><spine><itemref idref="c1"/><itemref idref="c2"/><itemref idref="appendix" linear="no"/></spine></package>`,
  "OEBPS/text/chapter 1.xhtml": xhtml(
    "One",
    `<h1>Chapter One</h1><p>It was a <em>dark</em> night, see <a href="ch2.xhtml#x">the next part</a> or <a href="https://example.com/">the site</a>.</p><ul><li>alpha</li><li>beta</li></ul>`
  ),
  "OEBPS/text/ch2.xhtml": xhtml(
    "Two",
    `<h2>Chapter Two</h2><p><img src="../images/map.png" alt="A map"/></p><table><thead><tr><th>Key</th><th>Value</th></tr></thead><tbody><tr><td>a</td><td>1</td></tr></tbody></table><ol><li>first</li><li>second</li></ol>`
  ),
  "OEBPS/text/appendix.xhtml": xhtml("Appendix", `<h2>Appendix</h2><p>Extra notes.</p>`),
  "OEBPS/style.css": "p { margin: 0 }"
})
const makeEpub = (): Buffer => makeZip(makeEpubFiles())

const makeXlsx = async (build: (workbook: ExcelJS.Workbook) => void): Promise<Buffer> => {
  const workbook = new ExcelJS.Workbook()
  build(workbook)
  return Buffer.from(await workbook.xlsx.writeBuffer())
}

const REPORT = makePdf([
  ["Annual Report", "Prepared by the team"],
  ["Revenue grew (a lot)", "Costs fell"],
  ["Outlook: steady"]
])
const REPORT_TEXT = [
  "--- page 1 ---",
  "Annual Report",
  "Prepared by the team",
  "",
  "--- page 2 ---",
  "Revenue grew (a lot)",
  "Costs fell",
  "",
  "--- page 3 ---",
  "Outlook: steady"
]

describe("PDF text", () => {
  it.effect(":pages=2-3 converts those pages, each marked, as numbered text", () =>
    Effect.gen(function*() {
      const root = project({ "report.pdf": REPORT })
      const path = nodePath.join(root, "report.pdf")
      const result = yield* readIn(root, { filePath: "report.pdf:pages=2-3" })
      expect(result.output).toBe(whole(path, REPORT_TEXT.slice(4).join("\n")))
      expect(result.title).toBe("report.pdf")
      expect(result.metadata).toMatchObject({
        kind: "document",
        path,
        mime: "application/pdf",
        size: REPORT.length,
        totalLines: 6,
        truncated: false
      })
      expect(result.attachments).toBeUndefined()
      const one = yield* readIn(root, { filePath: "report.pdf:pages=2" })
      expect(one.output).toBe(whole(path, "--- page 2 ---\nRevenue grew (a lot)\nCosts fell"))
    }))

  it.effect(":raw gives every page's text without numbers; a plain read still attaches the PDF", () =>
    Effect.gen(function*() {
      const root = project({ "report.pdf": REPORT })
      const path = nodePath.join(root, "report.pdf")
      const raw = yield* readIn(root, { filePath: "report.pdf:raw" })
      expect(raw.output).toBe(page(path, REPORT_TEXT, eof(REPORT_TEXT.length)))
      const plain = yield* readIn(root, { filePath: "report.pdf" })
      expect(plain.metadata.kind).toBe("pdf")
      expect(plain.attachments?.[0]?.mime).toBe("application/pdf")
    }))

  it.effect("line selectors apply to the text of all pages; pages and raw combine", () =>
    Effect.gen(function*() {
      const root = project({ "report.pdf": REPORT })
      const path = nodePath.join(root, "report.pdf")
      const lines = yield* readIn(root, { filePath: "report.pdf:5-7" })
      expect(lines.output).toBe(
        page(path, numbered(REPORT_TEXT.slice(4, 7), 5), "(Showing lines 5-7 of 10. Use offset=8 to continue.)")
      )
      expect(lines.metadata).toMatchObject({
        kind: "document",
        startLine: 5,
        endLine: 7,
        nextOffset: 8,
        totalLines: 10
      })
      const ranges = yield* readIn(root, { filePath: "report.pdf:1-2,9-10" })
      expect(ranges.output).toBe(page(
        path,
        [...numbered(REPORT_TEXT.slice(0, 2)), "…", ...numbered(REPORT_TEXT.slice(8), 9)],
        "(Showing lines 1-2, 9-10 of 10.)"
      ))
      const past = yield* failIn(root, { filePath: "report.pdf:40" })
      expect(past._tag).toBe("OffsetOutOfRange")
      expect(past.message).toBe("Offset 40 is out of range for this file (10 lines)")
    }))

  // libtasn1.pdf:-20 (or view outline) attached the PDF: the tail and the views ask for its text
  // as much as a line selector does, and a .docx answered them from its text.
  it.effect("a tail or a view of a PDF reads its text, as a line selector does", () =>
    Effect.gen(function*() {
      const root = project({ "report.pdf": REPORT })
      const path = nodePath.join(root, "report.pdf")
      for (const params of [{ filePath: "report.pdf:-2" }, { filePath: "report.pdf", offset: -2 }]) {
        const tail = yield* readIn(root, params)
        expect(tail.attachments).toBeUndefined()
        expect(tail.metadata).toMatchObject({ kind: "document", startLine: 9, endLine: 10, totalLines: 10 })
        expect(tail.output).toContain(`<content>\n9: --- page 3 ---\n10: Outlook: steady\n`)
      }
      for (const params of [{ filePath: "report.pdf:outline" }, { filePath: "report.pdf", view: "summary" as const }]) {
        const view = yield* readIn(root, params)
        expect(view.attachments).toBeUndefined()
        expect(view.metadata.kind).toBe("document")
        expect(view.output).toContain(path)
      }
      // A plain read still attaches it.
      expect((yield* readIn(root, { filePath: "report.pdf" })).attachments?.[0]?.mime).toBe("application/pdf")
    }))

  it.effect("a page range running past the end shows the pages that exist, with a note", () =>
    Effect.gen(function*() {
      const root = project({ "report.pdf": REPORT })
      const path = nodePath.join(root, "report.pdf")
      const result = yield* readIn(root, { filePath: "report.pdf:pages=2-9" })
      expect(result.output).toBe(whole(
        path,
        REPORT_TEXT.slice(4).join("\n"),
        "(The document has 3 pages; pages 4-9 are beyond its end. Showing pages 2-3.)"
      ))
      const last = yield* readIn(root, { filePath: "report.pdf:pages=3-4" })
      expect(last.output).toBe(whole(
        path,
        "--- page 3 ---\nOutlook: steady",
        "(The document has 3 pages; page 4 is beyond its end. Showing page 3.)"
      ))
    }))

  it.effect("a page past the last one is an InvalidSelector naming the page count", () =>
    Effect.gen(function*() {
      const root = project({ "report.pdf": REPORT, "one.pdf": makePdf([["only"]]) })
      const error = yield* failIn(root, { filePath: "report.pdf:pages=7" })
      expect(error._tag).toBe("InvalidSelector")
      expect(error.message).toBe("Page 7 is beyond the end of the document (3 pages). Use :pages=1-3.")
      expect((yield* failIn(root, { filePath: "one.pdf:pages=2-3" })).message).toBe(
        "Page 2 is beyond the end of the document (1 page). Use :pages=1."
      )
      expect((yield* failIn(root, { filePath: "report.pdf:pages=0" })).message).toBe(
        "Page selector 0 is invalid; pages are 1-indexed. Use :pages=1."
      )
    }))

  it.effect("CJK text in a non-embedded CID font is extracted through the predefined CMaps", () =>
    Effect.gen(function*() {
      const root = project({ "ja.pdf": makeCjkPdf() })
      const result = yield* readIn(root, { filePath: "ja.pdf:pages=1" })
      expect(result.output).toBe(whole(nodePath.join(root, "ja.pdf"), "--- page 1 ---\n日本語"))
    }))

  it.effect("a page without text says so", () =>
    Effect.gen(function*() {
      const root = project({ "scan.pdf": makePdf([["cover"], []]) })
      const result = yield* readIn(root, { filePath: "scan.pdf:pages=2" })
      expect(result.output).toBe(
        whole(nodePath.join(root, "scan.pdf"), "--- page 2 ---\n[no extractable text on this page]")
      )
    }))

  it.effect("encrypted and corrupt PDFs fail with ConversionFailed", () =>
    Effect.gen(function*() {
      const encrypted = makePdf(
        [["secret"]],
        ` /Encrypt << /Filter /Standard /V 1 /R 2 /O <${"11".repeat(32)}> /U <${"22".repeat(32)}> /P -4 >> /ID [<${
          "33".repeat(16)
        }> <${"33".repeat(16)}>]`
      )
      const root = project({
        "locked.pdf": encrypted,
        "broken.pdf": Buffer.concat([REPORT.subarray(0, 120), Buffer.from("\n%%EOF\n")])
      })
      const locked = yield* failIn(root, { filePath: "locked.pdf:pages=1" })
      expect(locked._tag).toBe("ConversionFailed")
      expect(locked.message).toBe(
        `Cannot read pdf file ${
          nodePath.join(root, "locked.pdf")
        }: the PDF is encrypted and needs a password; its text cannot be extracted`
      )
      const broken = yield* failIn(root, { filePath: "broken.pdf:raw" })
      expect(broken._tag).toBe("ConversionFailed")
      expect(broken.message).toBe(
        `Cannot read pdf file ${nodePath.join(root, "broken.pdf")}: not a valid PDF (Invalid PDF structure.)`
      )
    }))

  it.effect("a PDF over the 50 MB conversion cap is refused before it is read", () =>
    Effect.gen(function*() {
      const root = project({ "huge.pdf": "%PDF-1.4\n" })
      const huge = nodePath.join(root, "huge.pdf")
      fs.truncateSync(huge, 51 * 1024 * 1024)
      const error = yield* failIn(root, { filePath: "huge.pdf:pages=1" })
      expect(error._tag).toBe("ConversionFailed")
      expect(error.message).toBe(
        `Cannot read pdf file ${huge}: the file is 51.0 MiB, over the 50.0 MiB limit for converting a document to text`
      )
    }))
})

const DOCX_TEXT = [
  "# Quarterly Report",
  "",
  "Intro with *stars*, a_b and 5 < 6.",
  "",
  "## Details",
  "",
  "- First bullet",
  "  - Nested bullet",
  "- Second bullet",
  "",
  "1. Step one",
  "2. Step two",
  "",
  "| Name | Qty |",
  "| --- | --- |",
  "| Apples | 3 |",
  "| Pears \\| x | 5 |",
  "",
  "The end."
]

describe(".docx", () => {
  it.effect("headings, lists and tables become markdown, numbered like a file", () =>
    Effect.gen(function*() {
      const docx = makeDocx(DOCX_BODY)
      const root = project({ "a.docx": docx })
      const path = nodePath.join(root, "a.docx")
      const result = yield* readIn(root, { filePath: "a.docx" })
      expect(result.output).toBe(whole(path, DOCX_TEXT.join("\n")))
      expect(result.metadata).toMatchObject({
        kind: "document",
        mime: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        size: docx.length,
        totalLines: DOCX_TEXT.length,
        lineEnding: "lf"
      })
      const raw = yield* readIn(root, { filePath: "a.docx:raw" })
      expect(raw.output).toBe(page(path, DOCX_TEXT, eof(DOCX_TEXT.length)))
    }))

  it.effect("struck-out and emphasised runs keep their marks", () =>
    Effect.gen(function*() {
      const runs = [
        `<w:r><w:t xml:space="preserve">Today's special: </w:t></w:r>`,
        `<w:r><w:rPr><w:strike/></w:rPr><w:t>salmon</w:t></w:r>`,
        `<w:r><w:t xml:space="preserve"> </w:t></w:r>`,
        `<w:r><w:rPr><w:b/></w:rPr><w:t>sold out</w:t></w:r>`
      ]
      const root = project({ "menu.docx": makeDocx(`<w:p>${runs.join("")}</w:p>`) })
      const result = yield* readIn(root, { filePath: "menu.docx" })
      expect(result.output).toContain("1: Today's special: ~~salmon~~ **sold out**")
    }))

  it.effect("selectors, offset and limit page the converted text with the usual footers", () =>
    Effect.gen(function*() {
      const root = project({ "a.docx": makeDocx(DOCX_BODY) })
      const path = nodePath.join(root, "a.docx")
      const total = DOCX_TEXT.length
      const first = yield* readIn(root, { filePath: "a.docx", limit: 5 })
      expect(first.output).toBe(
        page(path, numbered(DOCX_TEXT.slice(0, 5)), `(Showing lines 1-5 of ${total}. Use offset=6 to continue.)`)
      )
      expect(first.metadata).toMatchObject({ truncated: true, nextOffset: 6 })
      const next = yield* readIn(root, { filePath: "a.docx", offset: 6, limit: 5 })
      expect(next.output).toBe(
        page(path, numbered(DOCX_TEXT.slice(5, 10), 6), `(Showing lines 6-10 of ${total}. Use offset=11 to continue.)`)
      )
      const rest = yield* readIn(root, { filePath: "a.docx", offset: 11 })
      expect(rest.output).toBe(page(path, numbered(DOCX_TEXT.slice(10), 11), eof(total)))
      const table = yield* readIn(root, { filePath: "a.docx:L14+4" })
      expect(table.output).toBe(
        page(
          path,
          numbered(DOCX_TEXT.slice(13, 17), 14),
          `(Showing lines 14-17 of ${total}. Use offset=18 to continue.)`
        )
      )
      const rawRange = yield* readIn(root, { filePath: "a.docx:1-1:raw" })
      expect(rawRange.output).toBe(
        page(path, ["# Quarterly Report"], `(Showing lines 1-1 of ${total}. Use offset=2 to continue.)`)
      )
      const mixed = yield* failIn(root, { filePath: "a.docx:1-3", offset: 2 })
      expect(mixed._tag).toBe("InvalidParams")
      const pages = yield* failIn(root, { filePath: "a.docx:pages=1" })
      expect(pages._tag).toBe("InvalidSelector")
      expect(pages.message).toBe(
        "Page selectors (:pages=N-M) apply to PDF and .pptx files only; select lines of the converted docx text with :N-M."
      )
    }))

  it.effect("not a zip, an encrypted (OLE) file, a zip without a document: ConversionFailed", () =>
    Effect.gen(function*() {
      const root = project({
        "text.docx": "just some text, not a package",
        "locked.docx": Buffer.concat([Buffer.from("d0cf11e0a1b11ae1", "hex"), Buffer.alloc(504)]),
        "empty.docx": makeZip({ "readme.txt": "nothing here" })
      })
      const at = (name: string) => nodePath.join(root, name)
      const text = yield* failIn(root, { filePath: "text.docx" })
      expect(text._tag).toBe("ConversionFailed")
      expect(text.message).toBe(
        `Cannot read docx file ${
          at("text.docx")
        }: not a valid docx file: it is not a readable zip archive (End of central directory record signature not found. Either not a zip file, or file is truncated.)`
      )
      expect((yield* failIn(root, { filePath: "locked.docx" })).message).toBe(
        `Cannot read docx file ${
          at("locked.docx")
        }: the file is an OLE compound document, not a docx (zip) package: either a password-protected (encrypted) Office file, which cannot be converted, or a legacy binary format such as .doc, .xls or .ppt`
      )
      expect((yield* failIn(root, { filePath: "empty.docx" })).message).toBe(
        `Cannot read docx file ${
          at("empty.docx")
        }: Could not find main document part. Are you sure this is a valid .docx file?`
      )
    }))

  it.effect("decompression bombs, lying sizes and encrypted entries are refused before the converter runs", () =>
    Effect.gen(function*() {
      const body = `${XML}<w:document ${W}><w:body>${wp("x")}</w:body></w:document>`
      const root = project({
        "bomb.docx": makeZip({ "word/document.xml": body }, { declare: { "word/document.xml": 200 * 1024 * 1024 } }),
        "liar.docx": makeZip({ "word/document.xml": body }, { declare: { "word/document.xml": 10 } }),
        "sealed.docx": makeZip({ "word/document.xml": body }, { encrypted: ["word/document.xml"] })
      })
      const at = (name: string) => nodePath.join(root, name)
      expect((yield* failIn(root, { filePath: "bomb.docx" })).message).toBe(
        `Cannot read docx file ${
          at("bomb.docx")
        }: the docx package would unpack to 200.0 MiB, over the 100.0 MiB limit for conversion`
      )
      expect((yield* failIn(root, { filePath: "liar.docx" })).message).toBe(
        `Cannot read docx file ${
          at("liar.docx")
        }: corrupt docx package: cannot inflate word/document.xml (too many bytes in the stream. expected 10. got at least 238)`
      )
      expect((yield* failIn(root, { filePath: "sealed.docx" })).message).toBe(
        `Cannot read docx file ${
          at("sealed.docx")
        }: the docx package is encrypted (word/document.xml); it cannot be converted`
      )
    }))

  it.effect("a document over the 50 MB conversion cap is refused before it is read", () =>
    Effect.gen(function*() {
      const root = project({ "big.docx": "" })
      fs.truncateSync(nodePath.join(root, "big.docx"), 60 * 1024 * 1024)
      const error = yield* failIn(root, { filePath: "big.docx" })
      expect(error._tag).toBe("ConversionFailed")
      expect(error.message).toBe(
        `Cannot read docx file ${
          nodePath.join(root, "big.docx")
        }: the file is 60.0 MiB, over the 50.0 MiB limit for converting a document to text`
      )
    }))
})

describe(".xlsx", () => {
  it.effect("each sheet is a heading and a markdown table; values are typed, pipes escaped", () =>
    Effect.gen(function*() {
      const xlsx = yield* Effect.promise(() =>
        makeXlsx((workbook) => {
          const data = workbook.addWorksheet("Data")
          data.addRow(["Name", "Qty", "When", "Total", "Note"])
          data.addRow(["Apples", 3, new Date(Date.UTC(2024, 0, 15)), { formula: "B2*2", result: 6 }, "a|b"])
          data.addRow(["Pears", 5.5, new Date(Date.UTC(2024, 0, 15, 10, 30)), { formula: "B3*2" }, true])
          data.addRow([])
          data.addRow([
            { richText: [{ text: "rich " }, { text: "text" }] },
            { text: "link", hyperlink: "https://x" },
            {
              error: "#DIV/0!"
            },
            null,
            "two\nlines"
          ])
          workbook.addWorksheet("Empty")
          const hidden = workbook.addWorksheet("Secret", { state: "hidden" })
          hidden.addRow(["k", "v"])
        })
      )
      const root = project({ "book.xlsx": xlsx })
      const result = yield* readIn(root, { filePath: "book.xlsx" })
      expect(result.output).toBe(whole(
        nodePath.join(root, "book.xlsx"),
        [
          "## Sheet: Data",
          "",
          "| Name | Qty | When | Total | Note |",
          "| --- | --- | --- | --- | --- |",
          "| Apples | 3 | 2024-01-15 | 6 | a\\|b |",
          "| Pears | 5.5 | 2024-01-15T10:30:00Z | =B3*2 | TRUE |",
          "| rich text | link | #DIV/0! |  | two lines |",
          "",
          "## Sheet: Empty",
          "",
          "[empty sheet]",
          "",
          "## Sheet: Secret (hidden)",
          "",
          "| k | v |",
          "| --- | --- |"
        ].join("\n")
      ))
      expect(fieldsOf(result).mime).toBe("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")
    }))

  it.effect("rows and columns past the caps are left out with notices", () =>
    Effect.gen(function*() {
      const xlsx = yield* Effect.promise(() =>
        makeXlsx((workbook) => {
          const tall = workbook.addWorksheet("Tall")
          tall.addRow(["n"])
          for (let i = 1; i <= 1004; i++) tall.addRow([i])
          const wide = workbook.addWorksheet("Wide")
          wide.addRow(Array.from({ length: 55 }, (_, i) => `c${i + 1}`))
        })
      )
      const root = project({ "caps.xlsx": xlsx })
      const result = yield* readIn(root, { filePath: "caps.xlsx:1003-1015:raw" })
      const wideHeader = `| ${Array.from({ length: 50 }, (_, i) => `c${i + 1}`).join(" | ")} |`
      expect(result.output).toBe(page(
        nodePath.join(root, "caps.xlsx"),
        [
          "| 999 |",
          "| 1000 |",
          "",
          "[4 more rows not shown; the sheet has 1005 non-empty rows]",
          "",
          "## Sheet: Wide",
          "",
          wideHeader,
          `| ${Array.from({ length: 50 }, () => "---").join(" | ")} |`,
          "",
          "[5 more columns not shown; the sheet has 55 columns]"
        ],
        "(End of file - total 1013 lines)"
      ))
    }))

  it.effect("a workbook that is not a zip fails with ConversionFailed", () =>
    Effect.gen(function*() {
      const root = project({ "bad.xlsx": "name,qty\napples,3\n" })
      const error = yield* failIn(root, { filePath: "bad.xlsx" })
      expect(error._tag).toBe("ConversionFailed")
      expect(error.message).toContain(`Cannot read xlsx file ${nodePath.join(root, "bad.xlsx")}: not a valid xlsx file`)
    }))
})

const PPTX_TEXT = [
  "## Slide 1",
  "### Launch Plan",
  "Q3 review",
  "[image: Team photo]",
  "",
  "Notes:",
  "Mention the budget.",
  "",
  "## Slide 2",
  "### Goals",
  "- Ship v2",
  "  - Beta in May",
  "- Hire two engineers",
  "Text box note",
  "",
  "| Owner | Date |",
  "| --- | --- |",
  "| Ana | May 1 |",
  "",
  "## Slide 3",
  "[no text on this slide]"
]

describe(".pptx", () => {
  it.effect("slides in presentation order: titles, bullets by level, text boxes, tables, pictures, notes", () =>
    Effect.gen(function*() {
      const root = project({ "deck.pptx": makePptx() })
      const result = yield* readIn(root, { filePath: "deck.pptx" })
      expect(result.output).toBe(whole(nodePath.join(root, "deck.pptx"), PPTX_TEXT.join("\n")))
      expect(fieldsOf(result).mime).toBe("application/vnd.openxmlformats-officedocument.presentationml.presentation")
    }))

  it.effect(":pages= selects slides; past the end is a note or an InvalidSelector", () =>
    Effect.gen(function*() {
      const root = project({ "deck.pptx": makePptx() })
      const path = nodePath.join(root, "deck.pptx")
      const two = yield* readIn(root, { filePath: "deck.pptx:pages=2" })
      expect(two.output).toBe(whole(path, PPTX_TEXT.slice(8, 18).join("\n")))
      const tail = yield* readIn(root, { filePath: "deck.pptx:pages=3-4" })
      expect(tail.output).toBe(whole(
        path,
        "## Slide 3\n[no text on this slide]",
        "(The document has 3 slides; slide 4 is beyond its end. Showing slide 3.)"
      ))
      const error = yield* failIn(root, { filePath: "deck.pptx:pages=9" })
      expect(error._tag).toBe("InvalidSelector")
      expect(error.message).toBe("Slide 9 is beyond the end of the document (3 slides). Use :pages=1-3.")
    }))

  it.effect("a slide that is not well-formed XML fails with ConversionFailed", () =>
    Effect.gen(function*() {
      const root = project({
        "bad.pptx": makeZip({ "ppt/slides/slide1.xml": `${XML}<p:sld ${P}><p:cSld><p:spTree></p:cSld></p:sld>` })
      })
      const error = yield* failIn(root, { filePath: "bad.pptx" })
      expect(error._tag).toBe("ConversionFailed")
      expect(error.message).toBe(
        `Cannot read pptx file ${
          nodePath.join(root, "bad.pptx")
        }: corrupt pptx file: ppt/slides/slide1.xml is not well-formed XML (line 1: Expected closing tag 'p:spTree' (opened in line 1, col 140) instead of closing tag 'p:cSld'.)`
      )
    }))
})

describe(".odt", () => {
  it.effect("headings by outline level, collapsed whitespace, nested lists, tables without padding cells, images", () =>
    Effect.gen(function*() {
      const root = project({ "notes.odt": makeOdt(ODT_BODY) })
      const result = yield* readIn(root, { filePath: "notes.odt" })
      expect(result.output).toBe(whole(
        nodePath.join(root, "notes.odt"),
        [
          "# Field Notes",
          "",
          "Spaced   out and spanned text.",
          "",
          "## Findings",
          "",
          "- Birds",
          "  - Robins",
          "- Bees",
          "",
          "| Site | Count |",
          "| --- | --- |",
          "| North | 12 |",
          "",
          "Line one",
          "line two",
          "",
          "[image: Map of the site]"
        ].join("\n")
      ))
      expect(fieldsOf(result).mime).toBe("application/vnd.oasis.opendocument.text")
    }))

  it.effect("search finds lines of the converted text, under their numbers there", () =>
    Effect.gen(function*() {
      const root = project({ "notes.odt": makeOdt(ODT_BODY) })
      const result = yield* readIn(root, { filePath: "notes.odt:/north|robins/i", context: 0 })
      expect(result.output).toContain("8:   - Robins\n--\n13: | North | 12 |\n")
      expect(result.output).toContain("(2 matches for /north|robins/i in 18 lines.)")
    }))

  it.effect("a package without content.xml, or with broken XML, fails with ConversionFailed", () =>
    Effect.gen(function*() {
      const root = project({
        "none.odt": makeZip({ mimetype: "application/vnd.oasis.opendocument.text" }),
        "broken.odt": makeZip({ "content.xml": `${XML}<office:document-content ${OFFICE}><office:body>` })
      })
      expect((yield* failIn(root, { filePath: "none.odt" })).message).toBe(
        `Cannot read odt file ${nodePath.join(root, "none.odt")}: not a valid odt file: the package has no content.xml`
      )
      const broken = yield* failIn(root, { filePath: "broken.odt" })
      expect(broken._tag).toBe("ConversionFailed")
      expect(broken.message).toMatch(/: corrupt odt file: content\.xml is not well-formed XML \(line 1: .+\)$/)
    }))
})

const EPUB_TEXT = [
  "Title: The Small Book",
  "Authors: Ada Writer, Bo Editor",
  "",
  "--- chapter 1: OEBPS/text/chapter 1.xhtml ---",
  "# Chapter One",
  "",
  "It was a *dark* night, see the next part or [the site](https://example.com/).",
  "",
  "- alpha",
  "- beta",
  "",
  "--- chapter 2: OEBPS/text/ch2.xhtml ---",
  "## Chapter Two",
  "",
  "[image: A map]",
  "",
  "| Key | Value |",
  "| --- | --- |",
  "| a | 1 |",
  "",
  "1. first",
  "2. second",
  "",
  "--- chapter 3: OEBPS/text/appendix.xhtml ---",
  "## Appendix",
  "",
  "Extra notes."
]

describe(".epub", () => {
  it.effect("chapters in spine order as markdown, after the title and authors", () =>
    Effect.gen(function*() {
      const root = project({ "book.epub": makeEpub() })
      const path = nodePath.join(root, "book.epub")
      const result = yield* readIn(root, { filePath: "book.epub" })
      expect(result.output).toBe(whole(path, EPUB_TEXT.join("\n")))
      expect(fieldsOf(result).mime).toBe("application/epub+zip")
      const chapter = yield* readIn(root, { filePath: "book.epub:12-15" })
      expect(chapter.output).toBe(
        page(
          path,
          numbered(EPUB_TEXT.slice(11, 15), 12),
          `(Showing lines 12-15 of ${EPUB_TEXT.length}. Use offset=16 to continue.)`
        )
      )
    }))

  it.effect("a DRM-encrypted book fails with ConversionFailed; obfuscated fonts alone do not", () =>
    Effect.gen(function*() {
      const encryption = (algorithm: string, uri: string) =>
        `${XML}<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData><enc:EncryptionMethod Algorithm="${algorithm}"/><enc:CipherData><enc:CipherReference URI="${uri}"/></enc:CipherData></enc:EncryptedData></encryption>`
      const withEncryption = (xml: string) => {
        const files: Record<string, Buffer> = {}
        // Re-pack the book's entries with an encryption.xml added.
        const book = makeEpubFiles()
        for (const [name, content] of Object.entries(book)) files[name] = Buffer.from(content)
        files["META-INF/encryption.xml"] = Buffer.from(xml)
        return makeZip(files)
      }
      const root = project({
        "drm.epub": withEncryption(encryption("http://www.w3.org/2001/04/xmlenc#aes128-cbc", "OEBPS/text/ch2.xhtml")),
        "fonts.epub": withEncryption(encryption("http://www.idpf.org/2008/embedding", "OEBPS/fonts/a.otf"))
      })
      const error = yield* failIn(root, { filePath: "drm.epub" })
      expect(error._tag).toBe("ConversionFailed")
      expect(error.message).toBe(
        `Cannot read epub file ${
          nodePath.join(root, "drm.epub")
        }: the epub is DRM-protected: its chapters are encrypted and cannot be converted`
      )
      const fonts = yield* readIn(root, { filePath: "fonts.epub" })
      expect(fonts.output).toBe(whole(nodePath.join(root, "fonts.epub"), EPUB_TEXT.join("\n")))
    }))

  it.effect("a book without a container or package document fails with ConversionFailed", () =>
    Effect.gen(function*() {
      const root = project({
        "nocontainer.epub": makeZip({ mimetype: "application/epub+zip" }),
        "noopf.epub": makeZip({
          "META-INF/container.xml":
            `${XML}<container xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="content.opf"/></rootfiles></container>`
        })
      })
      expect((yield* failIn(root, { filePath: "nocontainer.epub" })).message).toBe(
        `Cannot read epub file ${
          nodePath.join(root, "nocontainer.epub")
        }: not a valid epub file: the package has no META-INF/container.xml`
      )
      expect((yield* failIn(root, { filePath: "noopf.epub" })).message).toBe(
        `Cannot read epub file ${
          nodePath.join(root, "noopf.epub")
        }: not a valid epub file: the package has no content.opf`
      )
    }))
})

describe("paging converted text", () => {
  it.effect("a long document stops at the 50 KB cap on a whole line; following nextOffset reads every line once", () =>
    Effect.gen(function*() {
      const paragraphs = Array.from(
        { length: 1500 },
        (_, i) => `Paragraph ${String(i + 1).padStart(4, "0")} ${"lorem ipsum ".repeat(4)}`.trim()
      )
      const root = project({ "long.docx": makeDocx(paragraphs.map((text) => wp(text)).join("")) })
      const expected = paragraphs.flatMap((text, i) => (i === 0 ? [text] : ["", text]))
      const seen: Array<string> = []
      let offset = 1
      for (let pages = 0; pages < 10; pages++) {
        const result = yield* readIn(root, { filePath: "long.docx", offset })
        const body = result.output.split("\n<content>\n")[1]!.split("\n\n(")[0]!.split("\n")
        seen.push(...body.map((line) => line.replace(/^\d+: /, "")))
        const next = fieldsOf(result).nextOffset
        expect(Buffer.byteLength(result.output)).toBeLessThanOrEqual(50 * 1024)
        if (next === undefined) {
          expect(result.output.endsWith(`${eof(expected.length)}\n</content>`)).toBe(true)
          break
        }
        expect(result.output).toContain(
          `(Output capped at 50 KB. Showing lines ${offset}-${next - 1}. Use offset=${next} to continue.)`
        )
        offset = next
      }
      expect(seen).toEqual(expected)
    }))
})

describe("documents without their optional packages", () => {
  it.effect("without pdfjs-dist a page selector still attaches the PDF, saying its text needs pdfjs-dist; a plain read is unchanged", () =>
    Effect.gen(function*() {
      const root = project({ "report.pdf": REPORT })
      const without = OptionalPackages.layerWithout(["pdfjs-dist"])
      const result = yield* readIn(root, { filePath: "report.pdf:pages=2-3" }).pipe(Effect.provide(without))
      expect(result.output).toBe(
        "PDF read successfully (attached as a file: its text was not extracted, since that needs the optional package pdfjs-dist, which is not installed; npm install pdfjs-dist adds it)"
      )
      expect(result.attachments).toHaveLength(1)
      expect(result.attachments![0]!.url).toBe(`data:application/pdf;base64,${REPORT.toString("base64")}`)
      expect(result.metadata).toMatchObject({ kind: "pdf", mime: "application/pdf", size: REPORT.length })
      expect((yield* readIn(root, { filePath: "report.pdf" }).pipe(Effect.provide(without))).output).toBe(
        "PDF read successfully"
      )
      // With pdfjs-dist (the default) the same read is the pages' text.
      expect((yield* readIn(root, { filePath: "report.pdf:pages=2-3" })).output).toContain("--- page 2 ---")
    }))

  it.effect("without mammoth a .docx is MissingPackage, naming the package, its purpose and the command", () =>
    Effect.gen(function*() {
      const root = project({ "a.docx": makeDocx(DOCX_BODY) })
      const error = yield* failIn(root, { filePath: "a.docx" }).pipe(
        Effect.provide(OptionalPackages.layerWithout(["mammoth"]))
      )
      expect(error).toMatchObject({ _tag: "MissingPackage", package: "mammoth" })
      expect(error.message).toBe(
        `Cannot read ${
          nodePath.join(root, "a.docx")
        }: converting a .docx document to text needs the optional package mammoth, which is not installed. Install it with: npm install mammoth`
      )
    }))

  it.effect("without exceljs an .xlsx is MissingPackage; the formats we convert ourselves still read", () =>
    Effect.gen(function*() {
      const xlsx = yield* Effect.promise(() =>
        makeXlsx((workbook) => void workbook.addWorksheet("Data").addRow(["a", 1]))
      )
      const root = project({ "b.xlsx": xlsx, "book.epub": makeEpub(), "a.docx": makeDocx(DOCX_BODY) })
      const without = OptionalPackages.layerWithout(["exceljs", "mammoth", "pdfjs-dist", "sharp", "better-sqlite3"])
      const error = yield* failIn(root, { filePath: "b.xlsx" }).pipe(Effect.provide(without))
      expect(error.message).toBe(
        `Cannot read ${
          nodePath.join(root, "b.xlsx")
        }: converting an .xlsx workbook to text needs the optional package exceljs, which is not installed. Install it with: npm install exceljs`
      )
      const epub = yield* readIn(root, { filePath: "book.epub" }).pipe(Effect.provide(without))
      expect(epub.output).toBe(whole(nodePath.join(root, "book.epub"), EPUB_TEXT.join("\n")))
    }))
})
