/**
 * The `outputSchema` of an MCP tool: what its `structuredContent` is, success or failure.
 * Clients check results against it (the TypeScript SDK checks failures' structured content
 * too), so both shapes are in it: the result as a model sees it, or a failure's
 * `{ _tag, message, …fields }`.
 */
import * as JSONSchema from "effect/JSONSchema"
import type * as Schema from "effect/Schema"
import { inlineRefs, withoutTitles } from "../doors/jsonSchema.js"

/** A failure's wire form (`ReadTool.Failure`): its tag and message, and the error's own fields. */
const failure = {
  type: "object",
  description: "The read failed: the error's tag, the message the model reads, and the error's fields",
  required: ["_tag", "message"],
  properties: { _tag: { type: "string" }, message: { type: "string" } }
}

export const outputSchema = (success: Schema.Schema.Any) => {
  const { $schema: _, ...schema } = inlineRefs(JSONSchema.make(success)) as unknown as Record<string, unknown>
  return { type: "object" as const, anyOf: [withoutTitles(schema), failure] }
}
