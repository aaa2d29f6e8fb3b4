/**
 * What the model on the other end can take besides text, as the host knows it. By default it takes
 * images and PDFs (a read attaches them, as before). For a model that cannot see images, an image
 * is described in words — its type, pixel size, frames and the text its metadata carries — and
 * never attached; for one that takes no PDFs, a PDF is read as its text (pages and selectors as for
 * `:pages=`). `read_many` follows the same rule, and the tool's description (`Read.descriptionFor`,
 * `ReadTool.toolkitFor`, the MCP server) then says nothing of attachments.
 *
 * ```ts
 * program.pipe(Effect.provide(ModelInput.layerTextOnly))
 * program.pipe(Effect.provideService(ModelInput.ModelInput, { images: true, pdfs: false }))
 * ```
 */
import * as Context from "effect/Context"
import * as Layer from "effect/Layer"

export interface ModelInputShape {
  /** The model sees images: a read attaches them. */
  readonly images: boolean
  /** The model takes PDF files: a plain read of a PDF attaches it (else its text is read). */
  readonly pdfs: boolean
}

/** Images and PDFs: what a read attaches when nothing else is said. */
export const all: ModelInputShape = { images: true, pdfs: true }

/** Text alone: images described in words, PDFs read as text. */
export const textOnly: ModelInputShape = { images: false, pdfs: false }

export class ModelInput extends Context.Reference<ModelInput>()("effect-read/ModelInput", {
  defaultValue: (): ModelInputShape => all
}) {}

/** The model takes `input`. */
export const layer = (input: ModelInputShape): Layer.Layer<ModelInput> => Layer.succeed(ModelInput, input)

/** A model that takes text alone. */
export const layerTextOnly: Layer.Layer<ModelInput> = layer(textOnly)

/** Does the model take anything besides text? */
export const attaches = (input: ModelInputShape): boolean => input.images || input.pdfs
