/**
 * Small valid media files built in code, for the front-door tests.
 */
import * as zlib from "node:zlib"
import { crc32 } from "./zipFixtures.js"

/** A PNG chunk with its real CRC. */
export const pngChunk = (type: string, data: Uint8Array): Buffer => {
  const length = Buffer.alloc(4)
  length.writeUInt32BE(data.length)
  const body = Buffer.concat([Buffer.from(type, "ascii"), data])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(body))
  return Buffer.concat([length, body, crc])
}

/** A valid 1x1 RGBA PNG (one red pixel), chunk by chunk with real CRCs. */
export const PNG: Buffer = (() => {
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(1, 0)
  ihdr.writeUInt32BE(1, 4)
  ihdr[8] = 8 // bit depth
  ihdr[9] = 6 // colour type RGBA
  const pixels = zlib.deflateSync(Buffer.from([0, 0xff, 0x00, 0x00, 0xff]))
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk("IHDR", ihdr),
    pngChunk("IDAT", pixels),
    pngChunk("IEND", new Uint8Array(0))
  ])
})()

/** A 1x1 GIF89a. */
export const GIF = Buffer.from(
  "47494638396101000100800000000000ffffff21f90401000000002c00000000010001000002024401003b",
  "hex"
)
/** A 1x1 red baseline JPEG (images are decoded before they are attached: it must hold a real image). */
export const JPEG = Buffer.from(
  "/9j/2wBDAAMCAgMCAgMDAwMEAwMEBQgFBQQEBQoHBwYIDAoMDAsKCwsNDhIQDQ4RDgsLEBYQERMUFRUVDA8XGBYUGBIUFRT/2wBDAQMEBAUEBQkFBQkUDQsNFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBT/wAARCAABAAEDASIAAhEBAxEB/8QAFQABAQAAAAAAAAAAAAAAAAAAAAj/xAAUEAEAAAAAAAAAAAAAAAAAAAAA/8QAFQEBAQAAAAAAAAAAAAAAAAAABwn/xAAUEQEAAAAAAAAAAAAAAAAAAAAA/9oADAMBAAIRAxEAPwCdAAYqm//Z",
  "base64"
)
/** A 1x1 lossless WebP. */
export const WEBP = Buffer.from("UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==", "base64")

/** A minimal PDF: catalog, empty page tree, trailer, `%%EOF`. */
export const PDF: Buffer = Buffer.from(
  "%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n" +
    "2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\n" +
    "trailer << /Root 1 0 R >>\n%%EOF\n",
  "latin1"
)

/** A PDF 1.4 of `objects` (numbered from 1, the catalog first) with computed xref offsets. */
export const assemblePdf = (objects: ReadonlyArray<string>, trailerExtra = ""): Buffer => {
  let out = "%PDF-1.4\n"
  const offsets: Array<number> = []
  objects.forEach((object, i) => {
    offsets.push(Buffer.byteLength(out, "latin1"))
    out += `${i + 1} 0 obj\n${object}\nendobj\n`
  })
  const xref = Buffer.byteLength(out, "latin1")
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`
  for (const offset of offsets) out += `${String(offset).padStart(10, "0")} 00000 n \n`
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R${trailerExtra} >>\nstartxref\n${xref}\n%%EOF\n`
  return Buffer.from(out, "latin1")
}

export const pdfStream = (content: string) =>
  `<< /Length ${Buffer.byteLength(content, "latin1")} >>\nstream\n${content}\nendstream`

/**
 * One page per entry of `pages`, each line drawn in Helvetica. Objects: 1 catalog, 2 page tree,
 * 3 font, then a page and its content stream per page.
 */
export const makePdf = (pages: ReadonlyArray<ReadonlyArray<string>>, trailerExtra = ""): Buffer =>
  assemblePdf([
    "<< /Type /Catalog /Pages 2 0 R >>",
    `<< /Type /Pages /Kids [${pages.map((_, i) => `${4 + i * 2} 0 R`).join(" ")}] /Count ${pages.length} >>`,
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ...pages.flatMap((lines) => [
      "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents __NEXT__ 0 R >>",
      pdfStream(
        lines.map((line, k) => `BT /F1 12 Tf 72 ${720 - k * 16} Td (${line.replace(/[()\\]/g, (c) => `\\${c}`)}) Tj ET`)
          .join("\n")
      )
    ]).map((object, i) => object.replace("__NEXT__", String(i + 5)))
  ], trailerExtra)

/** What the host tests read: a 120-line source file (quotes included, as JSON escapes them) and a one-page text PDF. */
export const HOST_SOURCE: string = Array.from({ length: 120 }, (_, i) =>
  i % 7 === 0
    ? `export function step${i}(input: string): string {`
    : i % 7 === 6
    ? "}"
    : `  const value${i} = input.replace(/"/g, "'").trim() // line ${i}`).join("\n") + "\n"
export const HOST_PDF: Buffer = makePdf([["Quarterly report from the host test", "Revenue went up."]])
