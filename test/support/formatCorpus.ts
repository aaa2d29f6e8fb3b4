/**
 * One small valid file of every format the sources claim, built in code: the seeds the fuzz
 * suites mutate (truncated headers, flipped bits, overwritten ranges, another format's head).
 */
import ExcelJS from "exceljs"
import iconv from "iconv-lite"
import { createRequire } from "node:module"
import * as zlib from "node:zlib"
import { GIF, JPEG, PDF, PNG, WEBP } from "./media.js"
import { member, tarOf } from "./tarFixtures.js"
import { zip } from "./zipFixtures.js"

const XML = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>`
const REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
const relationships = (type: string, target: string) =>
  `${XML}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/${type}" Target="${target}"/></Relationships>`

const TEXT = Array.from({ length: 40 }, (_, i) => `line ${i + 1}: the quick brown fox`).join("\n") + "\n"

const CODE = `import { a } from "../a"

/** A class with a method. */
export class Counter {
  private count = 0

  increment(by: number): number {
    this.count += by
    return this.count
  }
}

export function twice(x: number): number {
  const y = x * 2
  return y
}
`

const CONFLICT = "before\n<<<<<<< ours\nmine\n=======\ntheirs\n>>>>>>> branch\nafter\n"

const NOTEBOOK = JSON.stringify({
  nbformat: 4,
  nbformat_minor: 5,
  metadata: { kernelspec: { name: "python3", language: "python" } },
  cells: [
    { cell_type: "markdown", metadata: {}, source: ["# Title\n", "Some prose."] },
    {
      cell_type: "code",
      metadata: {},
      execution_count: 1,
      source: ["print(1 + 1)"],
      outputs: [{ output_type: "stream", name: "stdout", text: ["2\n"] }]
    }
  ]
})

const DOCX = zip([
  {
    name: "[Content_Types].xml",
    data:
      `${XML}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`
  },
  { name: "_rels/.rels", data: relationships("officeDocument", "word/document.xml") },
  {
    name: "word/document.xml",
    data:
      `${XML}<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>Report body</w:t></w:r></w:p><w:p><w:r><w:t>Second paragraph</w:t></w:r></w:p></w:body></w:document>`
  }
])

const PPTX = zip([
  {
    name: "[Content_Types].xml",
    data: `${XML}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`
  },
  { name: "_rels/.rels", data: relationships("officeDocument", "ppt/presentation.xml") },
  {
    name: "ppt/presentation.xml",
    data:
      `${XML}<p:presentation xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:r="${REL}"><p:sldIdLst><p:sldId id="256" r:id="rId1"/></p:sldIdLst></p:presentation>`
  },
  { name: "ppt/_rels/presentation.xml.rels", data: relationships("slide", "slides/slide1.xml") },
  {
    name: "ppt/slides/slide1.xml",
    data:
      `${XML}<p:sld xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"><p:cSld><p:spTree><p:sp><p:txBody><a:p><a:r><a:t>Slide text</a:t></a:r></a:p></p:txBody></p:sp></p:spTree></p:cSld></p:sld>`
  }
])

const ODT = zip([
  { name: "mimetype", data: "application/vnd.oasis.opendocument.text", method: 0 },
  {
    name: "content.xml",
    data:
      `${XML}<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:text><text:h text:outline-level="1">Notes</text:h><text:p>Body text</text:p></office:text></office:body></office:document-content>`
  }
])

const EPUB = zip([
  { name: "mimetype", data: "application/epub+zip", method: 0 },
  {
    name: "META-INF/container.xml",
    data:
      `${XML}<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`
  },
  {
    name: "OEBPS/content.opf",
    data:
      `${XML}<package xmlns="http://www.idpf.org/2007/opf" version="3.0"><manifest><item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/></manifest><spine><itemref idref="c1"/></spine></package>`
  },
  {
    name: "OEBPS/c1.xhtml",
    data: `<html xmlns="http://www.w3.org/1999/xhtml"><body><h1>Chapter</h1><p>Once upon a time.</p></body></html>`
  }
])

const ARCHIVE = zip([
  { name: "dir/", method: 0 },
  { name: "dir/a.txt", data: TEXT },
  { name: "b.md", data: "# Heading\n\ntext\n" },
  { name: "bin.dat", data: Buffer.concat([Buffer.from([0, 1, 2, 3]), Buffer.alloc(600, 7)]) },
  { name: "inner.zip", data: zip([{ name: "deep.txt", data: "deep\n" }]), method: 0 }
])

const TAR = tarOf(
  member({ name: "dir/", type: "5" }),
  member({ name: "dir/a.txt", data: TEXT }),
  member({ name: "link", type: "2", linkname: "dir/a.txt" }),
  member({ name: "b.md", data: "# Heading\n" })
)

/** A SQLite database (a table, an index, a view), as the bytes better-sqlite3 writes. */
const sqlite = (): Buffer => {
  const Database = createRequire(createRequire(import.meta.url).resolve("@effect/sql-sqlite-node/package.json"))(
    "better-sqlite3"
  ) as new(path: string) => { exec(sql: string): void; serialize(): Buffer; close(): void }
  const db = new Database(":memory:")
  db.exec(`
    CREATE TABLE t (x INTEGER PRIMARY KEY, note TEXT, data BLOB);
    INSERT INTO t VALUES (1, 'one', x'00ff'), (2, 'two', NULL), (3, 'three', x'');
    CREATE INDEX t_note ON t(note);
    CREATE VIEW v AS SELECT note FROM t WHERE x > 1;
  `)
  const bytes = db.serialize()
  db.close()
  return bytes
}

const xlsx = async (): Promise<Buffer> => {
  const workbook = new ExcelJS.Workbook()
  const sheet = workbook.addWorksheet("Data")
  sheet.addRow(["name", "qty"])
  sheet.addRow(["apples", 3])
  return Buffer.from(await workbook.xlsx.writeBuffer())
}

/** A valid file of each format, by the name it is usually given. */
export const formatSeeds = async (): Promise<ReadonlyArray<readonly [name: string, bytes: Uint8Array]>> => [
  ["notes.txt", Buffer.from(TEXT)],
  ["app.ts", Buffer.from(CODE)],
  ["merge.txt", Buffer.from(CONFLICT)],
  ["sjis.txt", iconv.encode("日本語のテキスト\n二行目\n", "shift_jis")],
  ["utf16.txt", Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("wide text\nline two\n", "utf16le")])],
  ["page.html", Buffer.from("<html><head><title>T</title></head><body><h1>Hi</h1><p>para</p></body></html>")],
  ["data.json", Buffer.from(`{"a": [1, 2, {"b": "c"}], "d": null}\n`)],
  ["nb.ipynb", Buffer.from(NOTEBOOK)],
  ["pixel.png", PNG],
  ["photo.jpg", JPEG],
  ["anim.gif", GIF],
  ["img.webp", WEBP],
  ["doc.pdf", PDF],
  ["archive.zip", ARCHIVE],
  ["bundle.tar", TAR],
  ["bundle.tgz", zlib.gzipSync(TAR)],
  ["log.gz", zlib.gzipSync(TEXT)],
  ["app.db", sqlite()],
  ["doc.docx", DOCX],
  ["sheet.xlsx", await xlsx()],
  ["deck.pptx", PPTX],
  ["notes.odt", ODT],
  ["book.epub", EPUB]
]
