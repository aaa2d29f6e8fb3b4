/**
 * The parameters of a read, defined once: `ReadParams` is the schema every other shape derives
 * from (a source's `Params`, `read_many`'s continuation, the CLI's options). Decoded exactly for
 * typed callers; for model input, first mended where a mistake has one meaning:
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
import * as Effect from "effect/Effect"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import type * as AST from "effect/SchemaAST"
import { InvalidParams } from "../../ReadError.js"
import { encodingExamples, encodingExists } from "../core/encoding.js"
import { DEFAULT_LIMIT, MAX_LINE_LENGTH } from "../core/lines.js"
import { DEFAULT_CONTEXT, DEFAULT_MATCHES, MAX_CONTEXT } from "../core/search.js"

/** `column`'s description, with the line length in force. */
export const columnDescription = (lineLength: number): string =>
  `The character (1-based) at which to start the line at offset, to read on in a line cut at ${lineLength} characters. Default 1.`

/** `limit`'s description, with the lines of a page in force. */
export const limitDescription = (lines: number): string =>
  `The maximum number of lines to read (default ${lines}). Only for large files.`

/**
 * Each parameter in a few words, for the short form of the tool's description (a host that pays
 * for every byte of `tools/list`): the same parameters and constraints, shorter descriptions.
 */
export const shortDescriptions = (caps: { readonly lines: number; readonly lineLength: number }): {
  readonly [K in keyof typeof ReadParams.fields]: string
} => ({
  filePath: "File or directory path (absolute or relative), or an http(s) URL",
  offset: "1-based line to start at; -N reads the last N lines",
  column: `1-based character to start the line at offset from (lines are cut at ${caps.lineLength})`,
  limit: `Most lines to show (default ${caps.lines})`,
  encoding: "Decode text in this encoding instead of the detected one",
  lineFormat: "\"hashline\": a ¶PATH#TAG line and N:text lines, for anchor edits",
  view: "Directories: list, tree. Files: outline, summary, block (around offset), conflicts",
  levels: "view block: 1 the innermost declaration, 2 the one around it, ...",
  search: "Regular expression (/re/i ignores case): only the matching lines, with context",
  context: `With search: lines around each match (0-${MAX_CONTEXT}, default ${DEFAULT_CONTEXT}); or "syntax"`,
  region: "Images: the part {x, y, width, height} in original pixels",
  frame: "Animated images: the 1-based frame to show",
  diagnostics: "\"errors\" or \"warnings\" from the language server, after the page",
  fullResolution: "Images: not downscaled",
  pageImages: "PDFs: the pages as images"
})

/**
 * A tool's JSON Schema (any dialect) as a host's settings describe it: the caps in force in the
 * descriptions (`limit`'s default, the line length `column` continues) and, for the short form,
 * each parameter's short description — wherever the parameters occur (read_many's files too).
 */
export const schemaWithCaps = <S>(
  schema: S,
  caps: { readonly lines: number; readonly lineLength: number },
  short = false
): S => {
  const replacements = new Map([
    [limitDescription(DEFAULT_LIMIT), limitDescription(caps.lines)],
    [columnDescription(MAX_LINE_LENGTH), columnDescription(caps.lineLength)]
  ])
  const brief: Readonly<Record<string, string>> = short ? shortDescriptions(caps) : {}
  const shorter = (key: string, property: unknown): unknown =>
    brief[key] !== undefined && typeof property === "object" && property !== null && "description" in property
      ? { ...property, description: brief[key] }
      : property
  const walk = (value: unknown): unknown =>
    typeof value === "string"
      ? replacements.get(value) ?? value
      : Array.isArray(value)
      ? value.map(walk)
      : typeof value === "object" && value !== null
      ? Object.fromEntries(
        Object.entries(value).map(([key, inner]) => [
          key,
          key === "properties" && typeof inner === "object" && inner !== null
            ? Object.fromEntries(Object.entries(inner).map(([name, property]) => [name, shorter(name, walk(property))]))
            : walk(inner)
        ])
      )
      : value
  return caps.lines === DEFAULT_LIMIT && caps.lineLength === MAX_LINE_LENGTH && !short ? schema : walk(schema) as S
}

/** The values of `view`: directories `list` and `tree`; files the text views. */
export const views = ["list", "tree", "outline", "summary", "block", "conflicts"] as const

export const ReadParams = Schema.Struct({
  filePath: Schema.String.pipe(
    Schema.minLength(1, { message: () => "filePath must not be empty" }),
    // `jsonSchema: {}` keeps the field's description in generated JSON Schemas.
    Schema.filter((path) => !path.includes("\0"), {
      message: () => "filePath must not contain a NUL byte",
      jsonSchema: {}
    })
  ).annotations({
    description:
      "The path of the file or directory to read: absolute, or relative to the working directory; or an http(s):// URL"
  }),
  offset: Schema.optionalWith(
    Schema.Int.annotations({
      message: () => "offset must be a whole number: a line number (1-based; 0 means 1), or -N for the last N lines"
    }),
    { exact: true }
  ).annotations({
    description:
      "The line number to start reading from (1-based; 0 is treated as 1). Only for large files. A negative offset -N reads the last N lines (a tail, with their true line numbers); limit then counts from the first of them."
  }),
  column: Schema.optionalWith(
    Schema.Int.pipe(Schema.greaterThanOrEqualTo(1, { message: () => "column must be at least 1" })),
    { exact: true }
  ).annotations({
    description: columnDescription(MAX_LINE_LENGTH)
  }),
  limit: Schema.optionalWith(
    Schema.Int.pipe(Schema.greaterThanOrEqualTo(1, { message: () => "limit must be at least 1" })),
    { exact: true }
  ).annotations({
    description: limitDescription(DEFAULT_LIMIT)
  }),
  encoding: Schema.optionalWith(
    Schema.String.pipe(
      Schema.filter((name) => encodingExists(name), {
        // Effect asks for this message for a value that is not a string too (and then shows its
        // own "Expected string"): it must not throw on a BigInt or a circular object.
        message: (issue) =>
          `unknown encoding ${
            typeof issue.actual === "string" ? JSON.stringify(issue.actual) : typeof issue.actual
          }; use a WHATWG or iconv-lite encoding name such as ${encodingExamples}, or leave encoding out to detect it`,
        jsonSchema: {}
      })
    ),
    { exact: true }
  ).annotations({
    description:
      "Text files only: decode the file in this encoding instead of the detected one (e.g. \"shift_jis\", \"windows-1252\", \"iso-2022-jp\", \"cp949\"). Only when the detected encoding (shown when it is not UTF-8) is wrong."
  }),
  lineFormat: Schema.optionalWith(Schema.Literal("hashline"), { exact: true }).annotations({
    description:
      "Only when your edit tool takes ¶ anchors: \"hashline\" shows an editable text file as a first line ¶PATH#TAG (TAG names this version of the whole file) and lines as N:text. Read-only sources (archive members, databases, web pages) and :raw are shown as usual and say why."
  }),
  view: Schema.optionalWith(Schema.Literal(...views), { exact: true }).annotations({
    description:
      "Directories: \"list\" (default) names every entry; \"tree\" shows two levels with sizes and ages, at most 12 entries per sub-directory, skipping .gitignored files, node_modules, .git and build output (:tree). Files (also archive members and web pages), to see structure before bodies: \"outline\" lists the declarations (functions, classes, headings, keys) as `A-B: header`, as deep as fits about a page (levels), offset/limit counting its rows (:outline; :A-B:outline for the declarations inside lines A-B); \"summary\" shows the file with bodies of 4+ lines folded into `A-B: … ` rows that name the hidden lines (:summary); \"block\" shows the whole declaration around line offset, with its comments (:N:block); \"conflicts\" shows only the unresolved git merge-conflict regions with line numbers and ours/base/theirs labels (:conflicts)."
  }),
  levels: Schema.optionalWith(
    Schema.Int.pipe(Schema.greaterThanOrEqualTo(1, { message: () => "levels must be at least 1" })),
    { exact: true }
  ).annotations({
    description:
      "view \"outline\": the depth shown, 1 the outermost declarations only, 2 with their members, and so on; a row that hides deeper ones ends (+N inside: :A-B:outline), the selector that shows them. Default: the deepest levels that fit about one page. view \"block\": 1 (default) the innermost declaration around the line, 2 the one around that, and so on."
  }),
  search: Schema.optionalWith(
    Schema.String.pipe(Schema.minLength(1, { message: () => "search must not be empty" })),
    { exact: true }
  ).annotations({
    description:
      `A regular expression (JavaScript syntax; /regex/i or a leading (?i) ignores case): show only the lines that match, as N: text, with context lines as N- text and -- between windows; the footer gives the total number of matches. offset/limit then count matches (default ${DEFAULT_MATCHES} a page). Also as a selector: path:/regex/i.`
  }),
  context: Schema.optionalWith(
    Schema.Union(
      Schema.Literal("syntax"),
      Schema.Int.pipe(
        Schema.between(0, MAX_CONTEXT, {
          message: () => `context must be "syntax" or a number of lines from 0 to ${MAX_CONTEXT}`
        })
      )
    ),
    { exact: true }
  ).annotations({
    description:
      `With search: the lines shown before and after each match (0-${MAX_CONTEXT}, default ${DEFAULT_CONTEXT}). Otherwise "syntax": widen the range you ask for (offset/limit or a :A-B selector) to the whole statements or declarations it cuts, at most 20 lines each side; the footer says which lines were added. Ranges are never widened otherwise.`
  }),
  region: Schema.optionalWith(
    Schema.Struct({
      x: Schema.Int.pipe(Schema.greaterThanOrEqualTo(0, { message: () => "region.x must be at least 0" })),
      y: Schema.Int.pipe(Schema.greaterThanOrEqualTo(0, { message: () => "region.y must be at least 0" })),
      width: Schema.Int.pipe(Schema.greaterThanOrEqualTo(1, { message: () => "region.width must be at least 1" })),
      height: Schema.Int.pipe(Schema.greaterThanOrEqualTo(1, { message: () => "region.height must be at least 1" }))
    }),
    { exact: true }
  ).annotations({
    description:
      "Images only: show this part of the image, in the original image's pixels (x, y from its top-left corner), cropped before any downscale, to see detail a downscaled image lost (also \"shot.png:region=X,Y,W,H\"). A downscaled image states its original size and scale factor."
  }),
  frame: Schema.optionalWith(
    Schema.Int.pipe(Schema.greaterThanOrEqualTo(1, { message: () => "frame must be at least 1" })),
    { exact: true }
  ).annotations({
    description:
      "Animated images (GIF, WebP) only: the frame to show, 1-based (also \":frame=N\"). Default: the image as it is."
  }),
  diagnostics: Schema.optionalWith(Schema.Literal("errors", "warnings"), { exact: true }).annotations({
    description:
      "Source files a language server knows (TypeScript, JavaScript): \"errors\" appends the errors it finds in the file after the page, \"warnings\" errors and warnings, each as line:column with its message. Waits a few seconds at most."
  }),
  fullResolution: Schema.optionalWith(Schema.Boolean, { exact: true }).annotations({
    description:
      "Images only: true shows the image (or the region) at its original resolution, not downscaled, when its longest side is at most 8000 pixels; otherwise read a region."
  }),
  pageImages: Schema.optionalWith(Schema.Boolean, { exact: true }).annotations({
    description:
      "PDFs only, when you can see images: true shows the pages as PNG images instead of their text, to look at figures, tables and layout; at most 5 pages a read, chosen with \"report.pdf:pages=3-5\" (default: from page 1)."
  })
}).annotations({ identifier: "ReadParams", title: "Read parameters" })
export type ReadParams = typeof ReadParams.Type

/** What a source is asked for besides the path: every parameter of a read but `filePath`. */
export type Params = Omit<ReadParams, "filePath">

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

/** A schema failure as the model should read it: each issue with the parameter it concerns. */
export const invalidParams = (error: ParseResult.ParseError): InvalidParams =>
  new InvalidParams({
    reason: ParseResult.ArrayFormatter.formatErrorSync(error)
      .map((issue) => issue.path.length > 0 ? `${issue.path.join(".")}: ${issue.message}` : issue.message)
      .join("; ")
  })

/** Parameters checked against their schema: what types cannot say (integers, ranges, encodings), and no unknown key. */
export const decodeExactly = <A, I>(schema: Schema.Schema<A, I>) => (input: unknown): Effect.Effect<A, InvalidParams> =>
  Schema.decodeUnknown(schema, { onExcessProperty: "error" })(input).pipe(Effect.mapError(invalidParams))

/** Model input decoded: mended (see above), then exactly. */
export const decodeModelInput =
  <A, I>(schema: Schema.Schema<A, I>) => (input: unknown): Effect.Effect<A, InvalidParams> =>
    decodeExactly(schema)(mend(schema.ast, input))

/**
 * A region, frame or full-resolution read of what is not an image: what is wrong, to fail with
 * (the options are for images only, and a read must not pass over one it was given).
 */
export const imageOptionsMisplaced = (
  params: Pick<ReadParams, "region" | "frame" | "fullResolution">,
  selection: { readonly region?: unknown; readonly frame?: unknown } | undefined,
  result: { readonly metadata: { readonly kind: string; readonly path: string } }
): InvalidParams | undefined => {
  if (result.metadata.kind === "image") return undefined
  const given = [
    params.region !== undefined || selection?.region !== undefined ? "region" : undefined,
    params.frame !== undefined || selection?.frame !== undefined ? "frame" : undefined,
    params.fullResolution === true ? "fullResolution" : undefined
  ].filter((name) => name !== undefined)
  if (given.length === 0) return undefined
  return new InvalidParams({
    reason: `${given.join(", ")} ${
      given.length === 1 ? "applies" : "apply"
    } to images (PNG, JPEG, GIF, WebP); ${result.metadata.path} is read as ${result.metadata.kind}`
  })
}
