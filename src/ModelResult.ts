/**
 * A read's result as a host hands it to its model: the `ReadResult` (or `ReadManyResult`)
 * without attachment bytes and without `metadata.preview` (the output already holds those
 * lines). Each attachment is a reference instead — its index in `attachments`, MIME type, size
 * and how the host carries the bytes — and the bytes go where the host puts media: MCP image
 * content, or a prompt's file parts (`ReadTool.attachmentMessage`).
 *
 * Providers put a tool's encoded result into the prompt as JSON, and some MCP hosts (Codex)
 * hand the model `structuredContent` rather than `content`: a data URL there reaches the model
 * as thousands of characters of base64, never as an image.
 */
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { ReadManyFile, ReadManyResult } from "./ReadMany.js"
import {
  ArchiveMetadata,
  type Attachment,
  DatabaseMetadata,
  DirectoryMetadata,
  DocumentMetadata,
  ImageMetadata,
  NotebookMetadata,
  PdfMetadata,
  ReadResult,
  TextMetadata,
  WebMetadata
} from "./ReadResult.js"

/** How the host carries an attachment's bytes to the model. */
export const Delivery = Schema.Literal("image-content", "resource-link", "prompt-file-part").annotations({
  description:
    "How the bytes reach the model: image-content, an MCP image content block of this result; resource-link, an MCP resource_link block naming the file (its text was not extracted); prompt-file-part, a file part the host adds to the next prompt (ReadTool.attachmentMessage)"
})
export type Delivery = typeof Delivery.Type

export const AttachmentRef = Schema.Struct({
  /** The attachment's position in the result's `attachments` (and `attachmentIndexes` of read_many's files). */
  index: Schema.Number,
  mime: Schema.String,
  /** Bytes of the attached file (after any resizing). */
  size: Schema.Number,
  delivery: Delivery
}).annotations({ description: "An attachment, referenced: its bytes are not in this JSON" })
export type AttachmentRef = typeof AttachmentRef.Type

/** `metadata` without `preview` (the output holds those lines already): one schema per kind, as `ReadMetadata`. */
export const ModelMetadata = Schema.Union(
  TextMetadata.pipe(Schema.omit("preview")),
  DirectoryMetadata.pipe(Schema.omit("preview")),
  ImageMetadata.pipe(Schema.omit("preview")),
  PdfMetadata.pipe(Schema.omit("preview")),
  ArchiveMetadata.pipe(Schema.omit("preview")),
  DatabaseMetadata.pipe(Schema.omit("preview")),
  NotebookMetadata.pipe(Schema.omit("preview")),
  DocumentMetadata.pipe(Schema.omit("preview")),
  WebMetadata.pipe(Schema.omit("preview"))
)
export type ModelMetadata = typeof ModelMetadata.Type

export const ModelReadResult = Schema.Struct({
  title: Schema.String,
  output: Schema.String,
  metadata: ModelMetadata,
  attachments: Schema.optional(Schema.Array(AttachmentRef))
}).annotations({ identifier: "ModelReadResult" })
export type ModelReadResult = typeof ModelReadResult.Type

export const ModelReadManyFile = Schema.Struct({
  ...ReadManyFile.fields,
  metadata: Schema.optional(ModelMetadata)
})

export const ModelReadManyResult = Schema.Struct({
  title: Schema.String,
  output: Schema.String,
  files: Schema.Array(ModelReadManyFile),
  attachments: Schema.optional(Schema.Array(AttachmentRef))
}).annotations({ identifier: "ModelReadManyResult" })
export type ModelReadManyResult = typeof ModelReadManyResult.Type

const DATA_URL = /^data:[^;,]*;base64,/

/** The base64 text of a `data:` URL attachment (`undefined` for any other URL). */
export const base64Of = (attachment: Attachment): string | undefined => {
  const match = DATA_URL.exec(attachment.url)
  return match === null ? undefined : attachment.url.slice(match[0].length)
}

/** The attachment's bytes (empty for a URL that is not a base64 `data:` URL). */
export const bytesOf = (attachment: Attachment): Uint8Array => {
  const base64 = base64Of(attachment)
  return base64 === undefined ? new Uint8Array() : new Uint8Array(Buffer.from(base64, "base64"))
}

/** Bytes a base64 text decodes to, without decoding it. */
const decodedSize = (base64: string): number =>
  Math.floor(base64.length * 3 / 4) - (base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0)

const referenced = (
  attachments: ReadonlyArray<Attachment> | undefined,
  delivery: (attachment: Attachment, index: number) => Delivery
): { readonly attachments?: ReadonlyArray<AttachmentRef> } =>
  attachments === undefined ? {} : {
    attachments: attachments.map((attachment, index) => ({
      index,
      mime: attachment.mime,
      size: decodedSize(base64Of(attachment) ?? ""),
      delivery: delivery(attachment, index)
    }))
  }

/** Each kind's metadata without its preview (a spread alone would lose which kind it is). */
const withoutPreview = <M extends { readonly preview: string }>({ preview: _, ...metadata }: M) =>
  metadata as M extends unknown ? Omit<M, "preview"> : never

/** A `ReadResult` as its model sees it (`delivery` says where each attachment's bytes go). */
export const fromReadResult = (
  result: ReadResult,
  delivery: (attachment: Attachment, index: number) => Delivery
): ModelReadResult => ({
  title: result.title,
  output: result.output,
  metadata: withoutPreview(result.metadata),
  ...referenced(result.attachments, delivery)
})

/** A `ReadManyResult` as its model sees it. */
export const fromReadManyResult = (
  result: ReadManyResult,
  delivery: (attachment: Attachment, index: number) => Delivery
): ModelReadManyResult => ({
  title: result.title,
  output: result.output,
  files: result.files.map(({ metadata, ...file }) =>
    metadata === undefined ? file : { ...file, metadata: withoutPreview(metadata) }
  ),
  ...referenced(result.attachments, delivery)
})

/**
 * A schema whose encoding is what the model sees (`to`'s wire form made by `make`) and whose
 * type is the full result: encoding drops the attachment bytes, so the wire form cannot be
 * decoded back into a result (decoding fails with `Forbidden`).
 */
const towardsModel = <A, W, I>(
  full: Schema.Schema<A, any>,
  wire: Schema.Schema<W, I>,
  make: (result: A) => W,
  what: string
) =>
  Schema.transformOrFail(wire, Schema.typeSchema(full), {
    strict: false,
    decode: (_, __, ast, actual) =>
      ParseResult.fail(
        new ParseResult.Forbidden(
          ast,
          actual,
          `${what} as a model sees it holds references to its attachments, not their bytes: it cannot be decoded back`
        )
      ),
    encode: (result) => ParseResult.succeed(make(result as A))
  })

/** `ReadResult`, encoded as the model sees it, attachments referenced as prompt file parts. */
export const ReadResultForPrompt = towardsModel(
  ReadResult,
  ModelReadResult,
  (result) => fromReadResult(result, () => "prompt-file-part"),
  "A read's result"
).annotations({ identifier: "ReadResultForPrompt" })

/** `ReadManyResult`, encoded as the model sees it, attachments referenced as prompt file parts. */
export const ReadManyResultForPrompt = towardsModel(
  ReadManyResult,
  ModelReadManyResult,
  (result) => fromReadManyResult(result, () => "prompt-file-part"),
  "A read_many result"
).annotations({ identifier: "ReadManyResultForPrompt" })
