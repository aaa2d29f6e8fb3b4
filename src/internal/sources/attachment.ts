/**
 * Images and PDFs as attachments, from bytes already read (a file's descriptor, a web response):
 * complete (end markers checked), images decoded and fitted to `ImageLimits`, base64 data URLs.
 */
import * as Effect from "effect/Effect"
import { formatBytes, InvalidMedia, MissingPackage } from "../../ReadError.js"
import type { ReadResult } from "../../ReadResult.js"
import { incompleteReason, mediaKind } from "../core/media.js"
import { ImageLimits, prepareImage } from "./image.js"

export interface AttachRequest {
  /** The path (or URL) errors and metadata name. */
  readonly path: string
  readonly title: string
  readonly bytes: Uint8Array
  readonly mime: string
  /** Size and modification time of what the bytes came from. */
  readonly facts: { readonly size: number; readonly mtime?: number }
  /** Extra metadata (a web page's URL and status). */
  readonly metadata?: Readonly<Record<string, unknown>>
}

// Node's native encoder: `Encoding.encodeBase64` takes seconds on a 20 MB attachment.
const dataUrl = (type: string, data: Uint8Array) =>
  `data:${type};base64,${Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("base64")}`

/** Attach an image or a PDF; a truncated or undecodable one is `InvalidMedia`. */
export const attachBytes = Effect.fn("Read.attach")(function*(request: AttachRequest) {
  const { bytes, mime, path } = request
  const kind = mediaKind(mime)
  if (kind === undefined) return yield* new InvalidMedia({ path, reason: `${mime} cannot be attached` })
  const incomplete = incompleteReason(mime, bytes)
  if (incomplete !== undefined) return yield* new InvalidMedia({ path, reason: incomplete })
  const base = { path, truncated: false, mime, ...request.facts, ...request.metadata }
  // The bytes attached as they are, under `message`.
  const asIs = (message: string): ReadResult => ({
    title: request.title,
    output: message,
    metadata: { kind, preview: message, ...base },
    attachments: [{ type: "file", mime, url: dataUrl(mime, bytes) }]
  })
  if (kind === "pdf") return asIs("PDF read successfully")
  const image = yield* prepareImage(path, bytes, mime)
  if (image === undefined) {
    // Without sharp the bytes go as they are: only an image within the size cap.
    const limits = yield* ImageLimits
    if (bytes.length > limits.maxBytes) {
      return yield* new MissingPackage({
        path,
        package: "sharp",
        purpose: `fitting an image of ${formatBytes(bytes.length)} to the ${formatBytes(limits.maxBytes)} attachment limit`
      })
    }
    return asIs(
      "Image read successfully (not validated or resized: the optional package sharp is not installed; npm install sharp adds it)"
    )
  }
  const message = image.detail === undefined ? "Image read successfully" : `Image read successfully (${image.detail})`
  const { bytes: attachedBytes, ...attached } = image.attached
  const result: ReadResult = {
    title: request.title,
    output: message,
    metadata: {
      kind,
      preview: message,
      ...base,
      width: image.original.width,
      height: image.original.height,
      format: image.original.format,
      ...(image.changed ? { attached } : {})
    },
    attachments: [{ type: "file", mime: attached.mime, url: dataUrl(attached.mime, attachedBytes) }]
  }
  return result
})
