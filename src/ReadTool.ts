/**
 * The Read tool for `@effect/ai`: `read` and `read_many` as `Tool`s, a `Toolkit` holding them
 * (one per JSON Schema dialect a provider needs), the handler `layer` that runs `Read.read`,
 * and `attachmentMessage`, which puts the images and PDFs a read attached into the next prompt.
 *
 * ```ts
 * const response = yield* LanguageModel.generateText({ prompt, toolkit: ReadTool.toolkit })
 * const attachments = ReadTool.attachmentMessage(response.toolResults) // add it to the next prompt
 * program.pipe(Effect.provide(ReadTool.layer.pipe(Layer.provide(SessionLive))))
 * ```
 *
 * Parameters are decoded leniently by the toolkit (any JSON object reaches the handler) and
 * exactly by `Read.read`, so a malformed call is an `InvalidParams` failure the model reads
 * and corrects, never an error that ends the turn. The JSON Schemas stay exact.
 */
import * as Prompt from "@effect/ai/Prompt"
import * as Tool from "@effect/ai/Tool"
import * as Toolkit from "@effect/ai/Toolkit"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as JSONSchema from "effect/JSONSchema"
import type * as Layer from "effect/Layer"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { bytesLabel } from "./internal/core/lines.js"
import { inlineRefs, toGemini, toOpenAiStrict, withoutTitles } from "./internal/doors/jsonSchema.js"
import { schemaWithCaps } from "./internal/read/params.js"
import * as Limits from "./Limits.js"
import { all, type ModelInputShape } from "./ModelInput.js"
import * as ModelResult from "./ModelResult.js"
import * as Read from "./Read.js"
import { ReadError } from "./ReadError.js"
import * as ReadMany from "./ReadMany.js"
import type { Attachment } from "./ReadResult.js"

/**
 * `ReadError` as the model receives it: the error's fields, its `_tag` and its `message`.
 *
 * The decoded side is exactly `ReadError`. A plain `Schema.TaggedError` encodes to its fields
 * only, and providers send a failed tool call's *encoded* result to the model, which would then
 * never see the message written for it; this schema adds `message` on the way out.
 */
export const Failure: Schema.Schema<ReadError, FailureEncoded> = Schema
  .transformOrFail(
    Schema.extend(Schema.encodedSchema(ReadError), Schema.Struct({ message: Schema.String })),
    Schema.typeSchema(ReadError),
    {
      strict: false,
      // `message` is derived from the fields, so decoding drops it and rebuilds the class.
      decode: ({ message: _, ...fields }) => ParseResult.decodeUnknown(ReadError)(fields),
      encode: (error) =>
        ParseResult.map(
          ParseResult.encodeUnknown(ReadError)(error),
          (fields) => ({ ...fields, message: error.message })
        )
    }
  ).annotations({ identifier: "ReadFailure" })

/** The JSON form of a failure: `_tag`, the error's fields, and `message`. */
export type FailureEncoded = Schema.Schema.Encoded<typeof ReadError> & { readonly message: string }

/** The JSON Schema dialects: any JSON Schema host, OpenAI's strict function calling, Gemini's `parameters`. */
export type Dialect = "standard" | "openai-strict" | "gemini"

const standardOf = (schema: Schema.Schema.Any): JSONSchema.JsonSchema7 =>
  withoutTitles(inlineRefs(Tool.getJsonSchemaFromSchemaAst(schema.ast) as JSONSchema.JsonSchema7Root))

/**
 * `read_many` needs files or a glob (`minProperties: 1`: its only properties are those two), and
 * a `files` that names at least one.
 */
const requireFilesOrGlob = (schema: JSONSchema.JsonSchema7): JSONSchema.JsonSchema7 => {
  const object = schema as JSONSchema.JsonSchema7Object
  const files = object.properties.files as JSONSchema.JsonSchema7Array
  return {
    ...object,
    properties: { ...object.properties, files: { ...files, minItems: 1 } },
    minProperties: 1
  } as JSONSchema.JsonSchema7
}

const standard = {
  read: standardOf(Read.ReadParams),
  read_many: requireFilesOrGlob(standardOf(ReadMany.ReadManyParams))
}

const dialects: Record<Dialect, (schema: JSONSchema.JsonSchema7) => JSONSchema.JsonSchema7> = {
  standard: (schema) => schema,
  "openai-strict": toOpenAiStrict,
  gemini: toGemini
}

/**
 * The JSON Schema of a tool's parameters in a dialect: `standard` (MCP, Anthropic, any JSON
 * Schema host: optional parameters left out of `required`), `openai-strict` (every parameter
 * required, the optional ones nullable, keywords strict mode lacks left out), `gemini` (only
 * the fields of Gemini's `Schema`). No `$ref`, no generated titles. The doors enforce every
 * constraint a dialect cannot state.
 */
export const inputSchema = (name: "read" | "read_many", dialect: Dialect = "standard"): JSONSchema.JsonSchema7 =>
  dialects[dialect](standard[name])

/**
 * Parameters as the toolkit decodes them: any JSON object, every key kept (so `Read.read`
 * rejects the unknown ones). The JSON Schema offered to the model is the exact one.
 */
const lenientParameters = (jsonSchema: JSONSchema.JsonSchema7) =>
  Schema.Struct({}, Schema.Record({ key: Schema.String, value: Schema.Unknown })).annotations({ jsonSchema })

/** A tool that only reads: failures go back to the model as results, annotated for MCP clients. */
const readOnlyTool = <const Name extends "read" | "read_many", Success extends Schema.Schema.Any>(
  name: Name,
  title: string,
  description: string,
  dialect: Dialect,
  success: Success,
  described: Pick<Described, "caps" | "short">
) =>
  Tool.make(name, { description, success, failure: Failure, failureMode: "return" })
    .setParameters(lenientParameters(schemaWithCaps(inputSchema(name, dialect), described.caps, described.short)))
    .annotate(Tool.Title, title)
    .annotate(Tool.Readonly, true)
    .annotate(Tool.Destructive, false)
    .annotate(Tool.Idempotent, true)
    .annotate(Tool.OpenWorld, false)

/** The model-facing description of `read_many`, with its bounds in force (`ReadManyLimits`). */
export const manyDescriptionFor = (limits: Pick<ReadMany.ReadManyLimitsShape, "maxFiles" | "maxBytes">): string =>
  `Reads several files (or directories, or URLs) in one call: a list of requests with the same fields as the read tool, and/or a glob (at least one of the two). At most ${limits.maxFiles} files per call. Each file is shown in the read tool's format, in the order given; a file that cannot be read shows its error in place and the others are still read. The files share one ${
    bytesLabel(limits.maxBytes)
  } output budget, split fairly: a file cut by it is named in the closing line with the read that continues it. Prefer it to several read calls for files you already know you need.`

/** `read_many`'s description in the short form (`Limits.Description`), with its bounds in force. */
export const manyShortDescriptionFor = (limits: Pick<ReadMany.ReadManyLimitsShape, "maxFiles" | "maxBytes">): string =>
  `Read several files in one call: files (each with the read tool's fields) and/or a glob; at most ${limits.maxFiles} files sharing ${
    bytesLabel(limits.maxBytes)
  } of output, each in the read tool's format; a file cut short names the read that continues it.`

/** The model-facing description of `read_many` with the default bounds. */
export const manyDescription = manyDescriptionFor(ReadMany.ReadManyLimits.defaultValue())

/** What the tools say of themselves: their descriptions and the caps their schemas state. */
interface Described {
  readonly read: string
  readonly readMany: string
  readonly caps: { readonly lines: number; readonly lineLength: number }
  /** The short form: the parameters' descriptions in a few words too. */
  readonly short: boolean
}

const describedByDefault: Described = {
  read: Read.defaultDescription,
  readMany: manyDescription,
  caps: Limits.PageLimits.defaultValue(),
  short: false
}

const toolsWith = (dialect: Dialect, described: Described) => ({
  read: readOnlyTool("read", "Read", described.read, dialect, ModelResult.ReadResultForPrompt, described),
  read_many: readOnlyTool(
    "read_many",
    "Read many",
    described.readMany,
    dialect,
    ModelResult.ReadManyResultForPrompt,
    described
  )
})

const toolsFor = (dialect: Dialect, input: ModelInputShape = all) =>
  toolsWith(dialect, { ...describedByDefault, read: Read.descriptionFor(input) })

const standardTools = toolsFor("standard")

/**
 * What the tools say with the host's services in force: `Read.description` (the registry, the
 * installed packages, the caps, the model, the form), `read_many`'s bounds, and the caps in the
 * parameters' descriptions (`limit`'s default).
 */
export const described: Effect.Effect<Described> = Effect.gen(function*() {
  const page = yield* Limits.PageLimits
  const { form } = yield* Limits.Description
  return {
    read: yield* Read.description,
    readMany: (form === "short" ? manyShortDescriptionFor : manyDescriptionFor)(yield* Limits.ReadManyLimits),
    caps: page,
    short: form === "short"
  }
})

/**
 * The toolkit as the host's services describe it (`Read.description`: only the sources enabled
 * and installed, the caps in force, the model's input, full or short), its parameters' JSON
 * Schemas in `dialect` stating the caps in force. Same names and handlers as `toolkit`
 * (`ReadTool.layer` handles it).
 */
export const toolkitWith = (dialect: Dialect = "standard") =>
  Effect.map(described, (text) => {
    const tools = toolsWith(dialect, text)
    return Toolkit.make(tools.read, tools.read_many)
  })

/**
 * The `read` tool. Failures are returned to the model (`failureMode: "return"`) as typed results,
 * so it can read the message and correct itself, instead of failing the whole model call. A
 * success is encoded as the model sees it (`ModelResult.ModelReadResult`): no attachment bytes.
 */
export const tool = standardTools.read

/** The `read_many` tool: several files in one call (`ReadMany.readMany`). */
export const manyTool = standardTools.read_many

/** A toolkit holding `read` and `read_many`; merge it with others via `Toolkit.merge`. */
export const toolkit = Toolkit.make(tool, manyTool)

/**
 * The toolkit with its parameters' JSON Schemas in `dialect`: `toolkitFor("openai-strict")` for
 * `@effect/ai-openai`, which sends tools with `strict: true` unless configured otherwise. Its
 * tools have the same names, so `ReadTool.layer` handles it too. With `input` (what the model
 * takes: `ModelInput`), the description says what that model gets of images and PDFs —
 * `toolkitFor("standard", ModelInput.textOnly)` names no attachment; provide the same `ModelInput`
 * to the handler so that reads match it.
 */
export const toolkitFor = (dialect: Dialect, input: ModelInputShape = all) => {
  const tools = dialect === "standard" && input.images && input.pdfs ? standardTools : toolsFor(dialect, input)
  return Toolkit.make(tools.read, tools.read_many)
}

/**
 * The handlers for `read` and `read_many`. They need exactly what `Read.read` needs, so a server
 * adds Read with one `Layer.provide(ReadTool.layer)` next to its session layers. A service the
 * caller provides around a call wins over the layer's: a server that serves several
 * conversations provides each request's `Workspace` (its `sessionId`) that way.
 */
export const layer: Layer.Layer<Tool.Handler<"read"> | Tool.Handler<"read_many">, never, Read.EffectRequirements> =
  toolkit.toLayer(
    Effect.gen(function*() {
      const context = yield* Effect.context<Read.EffectRequirements>()
      const underCaller = <A, E>(self: Effect.Effect<A, E, Read.EffectRequirements>) =>
        Effect.contextWithEffect((caller: Context.Context<never>) =>
          Effect.provide(self, Context.merge(context, caller))
        )
      return toolkit.of({
        read: (params) => underCaller(Read.readUnknown(params)),
        read_many: (params) => underCaller(ReadMany.readManyUnknown(params))
      })
    })
  )

/** The `InvalidParams` that `read` gives for arguments that fail its schema. */
export const invalidParams = Read.invalidParams

/** The JSON Schema of `read`'s parameters (standard dialect), fully inlined. */
export const jsonSchema: JSONSchema.JsonSchema7 = inputSchema("read")

/** The JSON Schema of `read_many`'s parameters (standard dialect), fully inlined. */
export const manyJsonSchema: JSONSchema.JsonSchema7 = inputSchema("read_many")

/** What `attachmentMessage` reads of a tool result (a `Response.ToolResultPart` has it). */
export interface ToolResultLike {
  readonly id: string
  readonly name: string
  readonly isFailure: boolean
  readonly result: unknown
}

const baseName = (path: string): string => path.slice(path.lastIndexOf("/") + 1)

/**
 * The images and PDFs that `read` and `read_many` calls attached, as a user message to add to
 * the prompt after their tool results: for each attachment a text part naming the call, the
 * attachment's index and the file, then the file part (bytes, MIME type, file name). Providers
 * take files in user messages only; the tool results carry references
 * (`ModelResult.AttachmentRef`), never the bytes. `undefined` when nothing was attached.
 */
export const attachmentMessage = (results: Iterable<ToolResultLike>): Prompt.UserMessage | undefined => {
  const content: Array<Prompt.UserMessagePart> = []
  for (const part of results) {
    if (part.isFailure || (part.name !== tool.name && part.name !== manyTool.name)) continue
    const result = part.result as Read.ReadResult | ReadMany.ReadManyResult
    const attachments: ReadonlyArray<Attachment> = result.attachments ?? []
    attachments.forEach((attachment, index) => {
      const path = "metadata" in result
        ? result.metadata.path
        : result.files.find((file) => file.attachmentIndexes?.includes(index))?.metadata?.path
      content.push(
        Prompt.textPart({
          text: `Attachment ${index} of the ${part.name} call ${part.id}${path === undefined ? "" : ` (${path})`}:`
        }),
        Prompt.filePart({
          mediaType: attachment.mime,
          data: ModelResult.bytesOf(attachment),
          ...(path === undefined ? {} : { fileName: baseName(path) })
        })
      )
    })
  }
  return content.length === 0 ? undefined : Prompt.userMessage({ content })
}
