/**
 * Documents converted to text, then paged like text (line selectors, `:raw`, offset/limit and
 * footers all apply to the converted text):
 *
 * - PDF (pdf.js): `--- page N ---` before each page; `report.pdf:pages=3-5` converts pages 3–5.
 * - .docx (mammoth): headings, lists and tables as markdown.
 * - .xlsx (exceljs): `## Sheet: name` and a markdown table per sheet, bounded rows and columns.
 * - .pptx: `## Slide N` with titles, bullets, tables and speaker notes; `:pages=` selects slides.
 * - .epub: chapters in spine order as markdown.
 * - .odt: headings, paragraphs, lists and tables.
 *
 * Files over `MAX_DOCUMENT_BYTES` (50 MB) are refused; zip-based formats may unpack to at most
 * `MAX_UNPACKED_BYTES` (100 MB). Every failure is a typed `ConversionFailed` (or
 * `InvalidSelector` for a page past the end).
 *
 * PDF, .docx and .xlsx need optional packages (pdfjs-dist, mammoth, exceljs). Without mammoth or
 * exceljs the read is `MissingPackage`; without pdfjs-dist a PDF is attached as a file (as a
 * plain read attaches it, within the same size cap) with a note saying its text needs pdfjs-dist.
 */
import * as Effect from "effect/Effect"
import type ExcelJS from "exceljs"
import type Mammoth from "mammoth"
import { ModelInput } from "../../ModelInput.js"
import { loadOptional, type PackageName, purposes } from "../../OptionalPackages.js"
import { InvalidSelector, MissingPackage } from "../../ReadError.js"
import type { ReadResult } from "../../ReadResult.js"
import { convertAndPresent } from "./convert.js"
import { convertDocx } from "./document/docx.js"
import { convertEpub } from "./document/epub.js"
import { Unconvertible } from "./document/failure.js"
import { convertOdt } from "./document/odt.js"
import { convertPdf, type PdfJs } from "./document/pdf.js"
import { convertPptx } from "./document/pptx.js"
import type { Converted } from "./document/types.js"
import { convertXlsx } from "./document/xlsx.js"
import type { FileSourceRequest } from "./types.js"

export { MAX_DOCUMENT_BYTES, MAX_UNPACKED_BYTES } from "./document/limits.js"

type Format = "pdf" | "docx" | "xlsx" | "pptx" | "epub" | "odt"

const mimes: Record<Format, string> = {
  pdf: "application/pdf",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  epub: "application/epub+zip",
  odt: "application/vnd.oasis.opendocument.text"
}

/** The format by extension; anything else reaching here was sniffed as a PDF. */
const formatOf = (absolute: string): Format => {
  const dot = absolute.lastIndexOf(".")
  const ext = dot === -1 ? "" : absolute.slice(dot + 1).toLowerCase()
  return ext === "docx" || ext === "xlsx" || ext === "pptx" || ext === "epub" || ext === "odt" ? ext : "pdf"
}

const isPdf = (bytes: Uint8Array): boolean =>
  Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 1024)).includes("%PDF-")

const asBuffer = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)

/** What a plain read of the PDF shows, with why its text is not there. */
const attachedInstead = Effect.fnUntraced(function*(request: FileSourceRequest) {
  const result: ReadResult = yield* Effect.flatMap(
    Effect.promise(() => import("./media.js")),
    (m) => m.readMedia(request)
  )
  const output =
    `${result.output} (attached as a file: its text was not extracted, since that needs the optional package pdfjs-dist, which is not installed; npm install pdfjs-dist adds it)`
  return { ...result, output, metadata: { ...result.metadata, preview: output } } satisfies ReadResult
})

export const readDocument = Effect.fn("Read.document")(function*(request: FileSourceRequest) {
  const format = formatOf(request.target.absolute)
  const pages = request.selection.pages
  if (pages !== undefined && format !== "pdf" && format !== "pptx") {
    return yield* new InvalidSelector({
      path: request.target.absolute,
      reason:
        `Page selectors (:pages=N-M) apply to PDF and .pptx files only; select lines of the converted ${format} text with :N-M.`
    })
  }
  const needed: PackageName | undefined = format === "pdf"
    ? "pdfjs-dist"
    : format === "docx"
    ? "mammoth"
    : format === "xlsx"
    ? "exceljs"
    : undefined
  const module = needed === undefined ? undefined : yield* loadOptional(needed)
  if (needed !== undefined && module === undefined) {
    // Attached instead, unless the model takes no PDF files: then its text is missing, and said so.
    if (needed === "pdfjs-dist" && request.sniffed?.mime === "application/pdf" && (yield* ModelInput).pdfs) {
      return yield* attachedInstead(request)
    }
    return yield* new MissingPackage({ path: request.target.absolute, package: needed, purpose: purposes[needed] })
  }
  const convert = (bytes: Uint8Array, signal: AbortSignal): Promise<Converted> => {
    switch (format) {
      case "pdf":
        if (!isPdf(bytes)) return Promise.reject(new Unconvertible("not a PDF (no %PDF- header)"))
        return convertPdf(module as PdfJs, bytes, pages, signal)
      case "docx":
        return convertDocx((module as { readonly default: typeof Mammoth }).default, asBuffer(bytes))
      case "xlsx":
        return convertXlsx((module as { readonly default: typeof ExcelJS }).default, asBuffer(bytes))
      case "pptx":
        return convertPptx(asBuffer(bytes), pages)
      case "epub":
        return convertEpub(asBuffer(bytes))
      case "odt":
        return convertOdt(asBuffer(bytes))
    }
  }
  return yield* convertAndPresent(request, {
    format,
    kind: "document",
    mime: mimes[format],
    variant: pages === undefined ? "" : `${pages.start}-${pages.end ?? pages.start}`,
    convert
  })
})
