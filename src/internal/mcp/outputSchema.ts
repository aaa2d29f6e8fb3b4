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

/** Properties that only attachments have: left out of the schema offered a model that takes text alone. */
const attachmentProperties = new Set(["attachments", "attachmentIndexes", "attached"])

/** `schema` without the properties of attachments, at any depth (for a model that takes text alone). */
export const withoutAttachments = <A>(schema: A): A => {
  if (Array.isArray(schema)) return schema.map(withoutAttachments) as A
  if (typeof schema !== "object" || schema === null) return schema
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(schema)) {
    if (key === "properties" && typeof value === "object" && value !== null) {
      out[key] = Object.fromEntries(
        Object.entries(value).filter(([name]) => !attachmentProperties.has(name)).map((
          [name, v]
        ) => [name, withoutAttachments(v)])
      )
    } else if (key === "required" && Array.isArray(value)) {
      out[key] = value.filter((name) => !attachmentProperties.has(name))
    } else {
      out[key] = withoutAttachments(value)
    }
  }
  return out as A
}
