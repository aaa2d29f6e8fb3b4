/**
 * JSON Schema helpers for the front doors.
 */
import type * as JSONSchema from "effect/JSONSchema"

/**
 * A self-contained schema for hosts that cannot resolve references: every local `$ref` is
 * replaced by the definition it names and `$defs` is dropped; keywords next to a `$ref` (a
 * field's `description`) win over the definition's. Effect's `$id` markers (`/schemas/unknown`,
 * …) are dropped too: relative ids that clash when one schema embeds them twice. The schemas
 * here are not recursive, so this terminates.
 */
export const inlineRefs = (schema: JSONSchema.JsonSchema7Root | JSONSchema.JsonSchema7): JSONSchema.JsonSchema7 => {
  const defs: Record<string, unknown> = { ...("$defs" in schema ? schema.$defs : {}) }
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit)
    if (node === null || typeof node !== "object") return node
    const record = node as Record<string, unknown>
    const ref = record.$ref
    if (typeof ref === "string" && ref.startsWith("#/$defs/")) {
      const { $ref: _, ...rest } = record
      const name = ref.slice("#/$defs/".length).replace(/~1/g, "/").replace(/~0/g, "~")
      return { ...(visit(defs[name]) as object), ...(visit(rest) as object) }
    }
    const out: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(record)) {
      if (key === "$defs" || (key === "$id" && typeof value === "string" && value.startsWith("/schemas/"))) continue
      out[key] = visit(value)
    }
    return out
  }
  return visit(schema) as JSONSchema.JsonSchema7
}
