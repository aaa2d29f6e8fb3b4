/**
 * A PDF's pages as images (`pageImages: true`), for a model that sees images: the pages of the
 * `:pages=` selection (default from page 1), at most `PdfPageImages.maxPages` a read, rendered by
 * pdf.js on @napi-rs/canvas (pdfjs-dist's optional dependency) and attached as PNG within
 * `ImageLimits` (the longest side at most `maxDimension`, and re-encoded past `maxBytes` as any
 * image is). The answer names the pages attached, and says when more were asked for.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { ModelInput } from "../../ModelInput.js"
import { loadOptional, purposes } from "../../OptionalPackages.js"
import { ConversionFailed, formatBytes, InvalidParams, InvalidSelector, MissingPackage } from "../../ReadError.js"
import type { ReadResult } from "../../ReadResult.js"
import { readAllFrom } from "../read/open.js"
import { PageOutOfRange, reasonOf } from "./document/failure.js"
import { MAX_DOCUMENT_BYTES } from "./document/limits.js"
import { type CreateCanvas, type PdfJs, renderPdfPages } from "./document/pdf.js"
import { dataUrl, ImageLimits, prepareImage } from "./media.js"
import type { FileSourceRequest } from "./types.js"

/** Lives in `Limits` with the other tunables (`Limits.layer({ pdfPageImages: { maxPages: 10 } })`). */
import { PdfPageImages } from "../../Limits.js"
export { PdfPageImages, type PdfPageImagesShape } from "../../Limits.js"

const span = (first: number, last: number) => first === last ? `page ${first}` : `pages ${first}-${last}`

export const readPdfPageImages = Effect.fn("Read.pdfPageImages")(function*(request: FileSourceRequest) {
  const { info, target } = request
  const path = target.absolute
  if (!(yield* ModelInput).images) {
    return yield* new InvalidParams({
      reason: `pageImages: the model here cannot see images; read ${target.relative} without it for its text`
    })
  }
  const pdfjs = yield* loadOptional("pdfjs-dist")
  if (pdfjs === undefined) {
    return yield* new MissingPackage({ path, package: "pdfjs-dist", purpose: "rendering PDF pages as images" })
  }
  const canvas = yield* loadOptional("@napi-rs/canvas")
  if (canvas === undefined) {
    return yield* new MissingPackage({ path, package: "@napi-rs/canvas", purpose: purposes["@napi-rs/canvas"] })
  }
  const size = Number(info.size)
  if (size > MAX_DOCUMENT_BYTES) {
    return yield* new ConversionFailed({
      path,
      format: "pdf",
      reason: `the file is ${formatBytes(size)}, over the ${formatBytes(MAX_DOCUMENT_BYTES)} limit for rendering a PDF`
    })
  }
  const { maxPages } = yield* PdfPageImages
  const limits = yield* ImageLimits
  const bytes = yield* readAllFrom(request.file, target, size)
  const rendered = yield* Effect.tryPromise({
    try: (signal) =>
      renderPdfPages(
        pdfjs as PdfJs,
        (canvas as { readonly createCanvas: CreateCanvas }).createCanvas,
        bytes,
        { pages: request.selection.pages, maxPages, maxSide: limits.maxDimension },
        signal
      ),
    catch: (error) =>
      error instanceof PageOutOfRange
        ? new InvalidSelector({ path, reason: error.message })
        : new ConversionFailed({ path, format: "pdf", reason: reasonOf(error) })
  })
  const attachments: Array<{ readonly type: "file"; readonly mime: string; readonly url: string }> = []
  const described: Array<string> = []
  for (const page of rendered.pages) {
    // The image path every attachment takes: checked, and re-encoded past the byte limit.
    const image = yield* prepareImage(`${path} page ${page.page}`, page.png, "image/png")
    if (image === undefined && page.png.length > limits.maxBytes) {
      return yield* new MissingPackage({
        path,
        package: "sharp",
        purpose: `fitting a rendered page of ${formatBytes(page.png.length)} to the ${
          formatBytes(limits.maxBytes)
        } attachment limit`
      })
    }
    const attached = image?.attached ??
      { mime: "image/png", bytes: page.png, width: page.width, height: page.height, format: "png" }
    attachments.push({ type: "file", mime: attached.mime, url: dataUrl(attached.mime, attached.bytes) })
    described.push(`page ${page.page}: ${attached.width}x${attached.height} ${attached.format.toUpperCase()}`)
  }
  const shown = rendered.pages.map((page) => page.page)
  const first = shown[0]!
  const last = shown[shown.length - 1]!
  const more = rendered.asked.last > last
  const lines = [
    `PDF ${span(first, last)} of ${rendered.count} attached as images, in order (${described.join("; ")}).`,
    ...(rendered.note === undefined ? [] : [rendered.note]),
    ...(more
      ? [
        `(${
          span(rendered.asked.first, rendered.asked.last)
        } were asked for; at most ${maxPages} are rendered a read. Next: ${target.relative}:pages=${last + 1}-${
          Math.min(rendered.asked.last, last + maxPages)
        } with pageImages.)`
      ]
      : [])
  ]
  const output = lines.join("\n")
  const result: ReadResult = {
    title: target.relative,
    output,
    metadata: {
      kind: "pdf",
      path,
      preview: output,
      truncated: more,
      size,
      ...Option.match(info.mtime, { onNone: () => ({}), onSome: (date) => ({ mtime: date.getTime() }) }),
      mime: "application/pdf",
      pageImages: shown
    },
    attachments
  }
  return result
})
