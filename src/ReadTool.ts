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
import * as Effect from "effect/Effect"
import type * as JSONSchema from "effect/JSONSchema"
import type * as Layer from "effect/Layer"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { inlineRefs } from "./internal/jsonSchema.js"
import * as Read from "./Read.js"
import { ReadError } from "./ReadError.js"

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

/**
 * The `read` tool. Failures are returned to the model (`failureMode: "return"`) as typed results,
 * so it can read the message and correct itself, instead of failing the whole model call.
 */
export const tool = Tool.make("read", {
  description: Read.description,
  parameters: Read.ReadParams.fields,
  success: Read.ReadResult,
  failure: Failure,
  failureMode: "return"
})
  .annotate(Tool.Title, "Read")
  .annotate(Tool.Readonly, true)
  .annotate(Tool.Destructive, false)
  .annotate(Tool.Idempotent, true)
  .annotate(Tool.OpenWorld, false)

/** A toolkit holding only `read`; merge it with others via `Toolkit.merge`. */
export const toolkit = Toolkit.make(tool)

/**
 * The handler for `read`. It needs exactly what `Read.read` needs, so a server adds Read with one
 * `Layer.provide(ReadTool.layer)` next to its session layers.
 */
export const layer: Layer.Layer<Tool.Handler<"read">, never, Read.EffectRequirements> = toolkit.toLayer(
  Effect.gen(function*() {
    const context = yield* Effect.context<Read.EffectRequirements>()
    return toolkit.of({
      read: (params) => Read.read(params).pipe(Effect.provide(context))
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
