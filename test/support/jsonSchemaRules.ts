/**
 * Providers' documented rules for tool parameter schemas, as checks that list every violation
 * (an empty list: the schema is accepted). Written from each provider's documentation:
 *
 * - OpenAI strict mode (Structured Outputs and `strict: true` function calling): the root is an
 *   object, not `anyOf`; every object has `additionalProperties: false` and lists every property
 *   in `required`; only the supported keywords (no `minLength`/`maxLength`, no
 *   `minProperties`/`maxProperties`, no `patternProperties`, `propertyNames`,
 *   `unevaluatedProperties`, `default`, `allOf`, `not`, `if`/`then`/`else`).
 * - Gemini function declarations' `parameters` (an OpenAPI 3.0 `Schema`): only the fields of
 *   `Schema`, `type` a single name.
 */
type Node = Record<string, unknown>

const isNode = (value: unknown): value is Node => typeof value === "object" && value !== null && !Array.isArray(value)

/** Every schema node of `schema` with its JSON path. */
const nodes = (schema: unknown, path = "#"): Array<readonly [string, Node]> => {
  if (!isNode(schema)) return []
  const found: Array<readonly [string, Node]> = [[path, schema]]
  for (const [key, value] of Object.entries(schema)) {
    if ((key === "properties" || key === "$defs" || key === "definitions") && isNode(value)) {
      for (const [name, sub] of Object.entries(value)) found.push(...nodes(sub, `${path}/${key}/${name}`))
    } else if (key === "items" || key === "additionalProperties" || key === "not") {
      found.push(...nodes(value, `${path}/${key}`))
    } else if ((key === "anyOf" || key === "oneOf" || key === "allOf") && Array.isArray(value)) {
      value.forEach((sub, i) => found.push(...nodes(sub, `${path}/${key}/${i}`)))
    }
  }
  return found
}

const OPENAI_UNSUPPORTED = [
  "minLength",
  "maxLength",
  "minProperties",
  "maxProperties",
  "patternProperties",
  "propertyNames",
  "unevaluatedProperties",
  "default",
  "allOf",
  "not",
  "if",
  "then",
  "else",
  "oneOf"
]

export const strictViolations = (schema: unknown): Array<string> => {
  const violations: Array<string> = []
  if (!isNode(schema) || schema.type !== "object") violations.push("#: the root must be an object")
  if (isNode(schema) && "anyOf" in schema) violations.push("#: the root must not be anyOf")
  for (const [path, node] of nodes(schema)) {
    for (const key of OPENAI_UNSUPPORTED) if (key in node) violations.push(`${path}: ${key} is not supported`)
    if (isNode(node.properties) || node.type === "object") {
      if (node.additionalProperties !== false) violations.push(`${path}: additionalProperties must be false`)
      const required = new Set(Array.isArray(node.required) ? node.required : [])
      for (const name of Object.keys(isNode(node.properties) ? node.properties : {})) {
        if (!required.has(name)) violations.push(`${path}: ${name} must be required`)
      }
    }
  }
  return violations
}

const GEMINI_FIELDS = new Set([
  "type",
  "format",
  "title",
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
  "example",
  "anyOf",
  "propertyOrdering",
  "default",
  "items",
  "minimum",
  "maximum"
])
const GEMINI_TYPES = new Set(["string", "number", "integer", "boolean", "array", "object"])

export const geminiViolations = (schema: unknown): Array<string> => {
  const violations: Array<string> = []
  for (const [path, node] of nodes(schema)) {
    for (const key of Object.keys(node)) {
      if (!GEMINI_FIELDS.has(key)) violations.push(`${path}: ${key} is not a Schema field`)
    }
    if ("type" in node && !(typeof node.type === "string" && GEMINI_TYPES.has(node.type))) {
      violations.push(`${path}: type must be one type name`)
    }
  }
  return violations
}
