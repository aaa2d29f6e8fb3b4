/**
 * The cap on PDF pages rendered as images in one read, apart from the renderer (`pdfPages.ts`,
 * loaded only when a read asks for page images): `Read` exports it, and importing it loads none of
 * pdf.js's glue.
 */
import * as Context from "effect/Context"

export interface PdfPageImagesShape {
  /** Most pages rendered in one read. */
  readonly maxPages: number
}

/**
 * How many PDF pages one read renders as images (default 5): every page is an attachment the
 * model pays for. `Effect.provideService(PdfPageImages, { maxPages: 10 })` changes it.
 */
export class PdfPageImages extends Context.Reference<PdfPageImages>()("effect-read/PdfPageImages", {
  defaultValue: (): PdfPageImagesShape => ({ maxPages: 5 })
}) {}
