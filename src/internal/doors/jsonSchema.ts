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

type Node = Record<string, unknown>

const isNode = (value: unknown): value is Node => typeof value === "object" && value !== null && !Array.isArray(value)

/** Keywords whose value is a map of names to schemas. */
const SCHEMA_MAPS = new Set(["properties", "$defs", "definitions", "patternProperties"])
/** Keywords whose value is a schema, or an array of schemas. */
const SCHEMA_VALUES = new Set([
  "items",
  "additionalProperties",
  "not",
  "contains",
  "anyOf",
  "oneOf",
  "allOf",
  "prefixItems"
])

/**
 * Rebuild every schema node of `schema` bottom-up with `f` (its sub-schemas already rebuilt).
 * Only schema positions are visited: a property named `title` is a name, not the keyword.
 */
export const mapNodes = (schema: unknown, f: (node: Node) => Node): unknown => {
  if (Array.isArray(schema)) return schema.map((item) => mapNodes(item, f))
  if (!isNode(schema)) return schema
  const out: Node = {}
  for (const [key, value] of Object.entries(schema)) {
    if (SCHEMA_MAPS.has(key) && isNode(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, mapNodes(sub, f)]))
    } else if (SCHEMA_VALUES.has(key)) {
      out[key] = mapNodes(value, f)
    } else {
      out[key] = value
    }
  }
  return f(out)
}

/**
 * The schema without `title`s: Effect names refinements in them (`"minLength(1)"`, `"int"`),
 * which costs tokens on every `tools/list` and shows up as labels in forms that use titles.
 */
export const withoutTitles = <S>(schema: S): S => mapNodes(schema, ({ title: _, ...node }) => node) as S

const typesOf = (node: Node): Array<string> =>
  Array.isArray(node.type) ? node.type as Array<string> : typeof node.type === "string" ? [node.type] : []

/** `node`, also accepting `null`. */
const orNull = (node: Node): Node => {
  const types = typesOf(node)
  if (types.length === 0) return { anyOf: [node, { type: "null" }] }
  const nullable: Node = { ...node, type: types.includes("null") ? types : [...types, "null"] }
  if (Array.isArray(node.enum) && !node.enum.includes(null)) nullable.enum = [...node.enum, null]
  return nullable
}

/**
 * Keywords OpenAI's strict mode (Structured Outputs, `strict: true` function calling) does not
 * support; its documentation lists what it does support: `pattern`/`format` for strings,
 * `minimum`/`maximum`/`multipleOf` for numbers, `minItems`/`maxItems` for arrays.
 */
const OPENAI_UNSUPPORTED = [
  "minLength",
  "maxLength",
  "minProperties",
  "maxProperties",
  "patternProperties",
  "unevaluatedProperties",
  "propertyNames",
  "default",
  "examples",
  "title",
  "$schema",
  "$id"
]

/**
 * The form OpenAI's strict function calling accepts: every object closed
 * (`additionalProperties: false`) with every property required, a property that was optional
 * accepting `null` instead (the doors read `null` as "not given"), and the keywords strict
 * mode does not support left out (the doors still enforce them on the arguments).
 */
export const toOpenAiStrict = (schema: JSONSchema.JsonSchema7): JSONSchema.JsonSchema7 =>
  mapNodes(schema, (node) => {
    const out: Node = { ...node }
    for (const key of OPENAI_UNSUPPORTED) delete out[key]
    if (isNode(out.properties)) {
      const required = new Set(Array.isArray(out.required) ? out.required as Array<string> : [])
      const properties = out.properties as Record<string, Node>
      out.properties = Object.fromEntries(
        Object.entries(properties).map(([name, property]) => [name, required.has(name) ? property : orNull(property)])
      )
      out.required = Object.keys(properties)
      out.additionalProperties = false
    }
    return out
  }) as JSONSchema.JsonSchema7

/**
 * The fields of Gemini's `Schema` object (the OpenAPI 3.0 subset its function declarations'
 * `parameters` take); anything else is an unknown field the API rejects.
 */
const GEMINI_FIELDS = new Set([
  "type",
  "format",
  "description",
  "nullable",
  "enum",
  "maxItems",
  "minItems",
  "properties",
  "required",
  "minProperties",
  "maxProperties",
  "minLength",
  "maxLength",
  "pattern",
  "anyOf",
  "propertyOrdering",
  "items",
  "minimum",
  "maximum"
])

/**
 * The form Gemini's function declarations take in `parameters`: only its `Schema` fields (no
 * `additionalProperties`, no `$schema`, `const` as a one-value `enum`), one `type` per schema
 * with `nullable` for `null`.
 */
export const toGemini = (schema: JSONSchema.JsonSchema7): JSONSchema.JsonSchema7 =>
  mapNodes(schema, (node) => {
    const source: Node = "const" in node && !("enum" in node) ? { ...node, enum: [node.const] } : node
    const out: Node = {}
    for (const [key, value] of Object.entries(source)) if (GEMINI_FIELDS.has(key)) out[key] = value
    const types = typesOf(out)
    if (types.length > 1) {
      const others = types.filter((type) => type !== "null")
      if (others.length === 1) {
        out.type = others[0]
        if (types.includes("null")) out.nullable = true
      } else {
        delete out.type
        out.anyOf = others.map((type) => ({ type }))
      }
    }
    return out
  }) as JSONSchema.JsonSchema7
