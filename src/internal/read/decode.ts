/**
 * What models get wrong that has one meaning, mended before parameters are decoded (every door
 * decodes through `Read.read` / `ReadMany.readMany`, so every door mends alike):
 *
 * - an integer written as a string (`"limit": "3"`): a string of decimal digits, with an optional
 *   leading `-`, that is a safe integer, where the schema wants a number. `"3.5"`, `"1e3"`,
 *   `" 3"` or `"three"` are not mended: they fail as before, with the parameter's own message;
 * - `null` for an optional parameter: the parameter is not given (OpenAI's strict function
 *   calling makes every parameter required and sends `null` for the ones a model leaves out).
 *
 * Everything else is decoded exactly: unknown keys stay, so the decoder still rejects them.
 * The JSON Schemas the doors publish stay exact (integers are `integer`, nothing is nullable):
 * this is forgiveness, not a second contract.
 */
import * as AST from "effect/SchemaAST"

const INTEGER = /^-?\d+$/

/** The type a value must have under refinements (`Int`, `minLength`, …). */
const underlying = (ast: AST.AST): AST.AST => ast._tag === "Refinement" ? underlying(ast.from) : ast

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** `input` with integer strings and `null`s of optional properties mended, as `ast` (a struct) wants. */
export const mend = (ast: AST.AST, input: unknown): unknown => {
  const type = underlying(ast)
  switch (type._tag) {
    case "NumberKeyword": {
      if (typeof input !== "string" || !INTEGER.test(input)) return input
      const value = Number(input)
      return Number.isSafeInteger(value) ? value : input
    }
    case "TypeLiteral": {
      if (!isPlainObject(input)) return input
      const out: Record<string, unknown> = { ...input }
      for (const property of type.propertySignatures) {
        const key = property.name
        if (typeof key !== "string" || !Object.hasOwn(input, key)) continue
        if (input[key] === null && property.isOptional) delete out[key]
        else out[key] = mend(property.type, input[key])
      }
      return out
    }
    case "TupleType": {
      const rest = type.rest[0]
      if (!Array.isArray(input) || type.elements.length > 0 || rest === undefined) return input
      return input.map((element) => mend(rest.type, element))
    }
    case "Union": {
      // `Schema.optional(X)`: X or undefined.
      const defined = type.types.filter((member) => member._tag !== "UndefinedKeyword")
      return defined.length === 1 ? mend(defined[0]!, input) : input
    }
    case "Suspend":
      return mend(type.f(), input)
    default:
      return input
  }
}
