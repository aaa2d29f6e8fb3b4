/**
 * The Read tool for `@effect/ai`: a `Tool`, a `Toolkit` holding it, and the handler `layer` that
 * runs `Read.read`.
 *
 * ```ts
 * const program = LanguageModel.generateText({ prompt, toolkit: ReadTool.toolkit })
 * program.pipe(Effect.provide(ReadTool.layer.pipe(Layer.provide(SessionLive))))
 * ```
 */
import * as Tool from "@effect/ai/Tool"
import * as Toolkit from "@effect/ai/Toolkit"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as JSONSchema from "effect/JSONSchema"
import type * as Layer from "effect/Layer"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { inlineRefs } from "./internal/jsonSchema.js"
import * as Read from "./Read.js"
import { ReadError } from "./ReadError.js"
import * as ReadMany from "./ReadMany.js"

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
        ParseResult.map(ParseResult.encodeUnknown(ReadError)(error), (fields) => ({ ...fields, message: error.message }))
    }
  ).annotations({ identifier: "ReadFailure" })

/** The JSON form of a failure: `_tag`, the error's fields, and `message`. */
export type FailureEncoded = Schema.Schema.Encoded<typeof ReadError> & { readonly message: string }

/** A tool that only reads: failures go back to the model as results, annotated for MCP clients. */
const readOnlyTool = <const Name extends string, Fields extends Schema.Struct.Fields, Success extends Schema.Schema.Any>(
  name: Name,
  title: string,
  description: string,
  parameters: Fields,
  success: Success
) =>
  Tool.make(name, { description, parameters, success, failure: Failure, failureMode: "return" })
    .annotate(Tool.Title, title)
    .annotate(Tool.Readonly, true)
    .annotate(Tool.Destructive, false)
    .annotate(Tool.Idempotent, true)
    .annotate(Tool.OpenWorld, false)

/**
 * The `read` tool. Failures are returned to the model (`failureMode: "return"`) as typed results,
 * so it can read the message and correct itself, instead of failing the whole model call.
 */
export const tool = readOnlyTool("read", "Read", Read.description, Read.ReadParams.fields, Read.ReadResult)

/** The model-facing description of `read_many`. */
export const manyDescription = `Reads several files (or directories, or URLs) in one call: a list of requests with the same fields as the read tool, and/or a glob. At most ${ReadMany.ReadManyLimits.defaultValue().maxFiles} files per call. Each file is shown in the read tool's format, in the order given; a file that cannot be read shows its error in place and the others are still read. The files share one ${
  Math.round(ReadMany.ReadManyLimits.defaultValue().maxBytes / 1024)
} KB output budget, split fairly: a file cut by it is named in the closing line with the read that continues it. Prefer it to several read calls for files you already know you need.`

/** The `read_many` tool: several files in one call (`ReadMany.readMany`). */
export const manyTool = readOnlyTool(
  "read_many",
  "Read many",
  manyDescription,
  ReadMany.ReadManyParams.fields,
  ReadMany.ReadManyResult
)

/** A toolkit holding `read` and `read_many`; merge it with others via `Toolkit.merge`. */
export const toolkit = Toolkit.make(tool, manyTool)

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
        Effect.contextWithEffect((caller: Context.Context<never>) => Effect.provide(self, Context.merge(context, caller)))
      return toolkit.of({
        read: (params) => underCaller(Read.read(params)),
        read_many: (params) => underCaller(ReadMany.readMany(params))
      })
    })
  )

/**
 * `@effect/ai` rejects malformed parameters before the handler runs (an `AiError`); this is the
 * `InvalidParams` that `Read.read` gives for the same input, for doors (MCP) that answer the model.
 */
/** The `InvalidParams` that `read` itself gives for the same malformed arguments. */
export const invalidParams = Read.invalidParams

/** The JSON Schema of `read`'s parameters, fully inlined (no `$ref`, no `$defs`). */
export const jsonSchema: JSONSchema.JsonSchema7 = inlineRefs(Tool.getJsonSchema(tool) as JSONSchema.JsonSchema7Root)

/** The JSON Schema of `read_many`'s parameters, fully inlined. */
export const manyJsonSchema: JSONSchema.JsonSchema7 = inlineRefs(
  Tool.getJsonSchema(manyTool) as JSONSchema.JsonSchema7Root
)
