/**
 * The command line's options for a read, made from `ReadParams`: one option per parameter but
 * `filePath` (the argument), named in kebab case (`lineFormat` is `--line-format`) and typed as
 * the parameter is — whole numbers, a choice of its literals, or text. Only the help lines are
 * written here (the schema's descriptions are written for a model); their record is typed by the
 * parameters, so a new parameter does not compile until it has one.
 */
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as Options from "@effect/cli/Options"
import * as ValidationError from "@effect/cli/ValidationError"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as AST from "effect/SchemaAST"
import { type Params, ReadParams } from "../read/params.js"

type Field = keyof Params

/** The help line of each option, for a person at a terminal. */
const help: { readonly [K in Field]-?: string } = {
  offset: "First line to show, 1-based",
  column: "Character (1-based) at which the line at --offset starts: reads on in a cut line",
  limit: "Most lines to show (default 2000, or what --max-lines sets)",
  encoding: "Decode text in this encoding (e.g. shift_jis, windows-1252) instead of detecting it",
  lineFormat: "hashline: a ¶PATH#TAG first line and N:text lines, for edit tools that take anchors",
  view: "Directories: list (default) or tree; files: outline, summary, block (the declaration around --offset) or conflicts",
  levels: "With --view outline: the depth shown (1 the outermost declarations; default: what fits about a page); with --view block: 1 the innermost declaration around the line, 2 the one around it, …",
  search: "Show only the lines matching this regular expression (JavaScript syntax; /re/i or (?i) ignores case), with context; --offset/--limit count matches",
  context: "With --search: lines of context around each match (0-50, default 2); otherwise syntax: widen the requested range to the statements or declarations it cuts",
  region: "Images: show the part X,Y,WIDTH,HEIGHT in the original image's pixels, cropped before any downscale",
  frame: "Animated images: the frame to show, 1-based",
  diagnostics: "errors (or warnings: errors and warnings) the language server finds in the file, after the page",
  fullResolution: "Images: show the image (or --region) at its original resolution, not downscaled (up to 8000 px a side)",
  pageImages: "PDFs: show the pages (FILE:pages=N-M, at most 5) as PNG images instead of their text"
}

/** Each option, typed as its parameter; `None` when not given. */
export type ReadOptions = { readonly [K in Field]-?: Options.Options<Option.Option<Exclude<Params[K], undefined>>> }

const kebab = (name: string): string => name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)

/** The type a value must have under refinements (`Int`, `minLength`, …). */
const underlying = (ast: AST.AST): AST.AST => ast._tag === "Refinement" ? underlying(ast.from) : ast

/**
 * A parameter made of whole numbers (`region`: x, y, width, height) as one option, its values
 * comma-separated in the schema's order (`--region 0,0,640,480`); `read` checks their ranges.
 */
const wholeNumbers = (name: string, fields: ReadonlyArray<string>): Options.Options<unknown> =>
  Options.text(name).pipe(
    Options.mapEffect((text) => {
      const values = text.split(",").map((value) => value.trim())
      return values.length === fields.length && values.every((value) => /^-?\d+$/.test(value))
        ? Effect.succeed(Object.fromEntries(fields.map((field, i) => [field, Number(values[i])])))
        : Effect.fail(ValidationError.invalidValue(HelpDoc.p(`--${name} takes ${fields.join(",")} as whole numbers, e.g. ${fields.map(() => "0").join(",")}; got ${text}`)))
    })
  )

/** The option of one parameter, from the type its schema gives it. */
const optionOf = (property: AST.PropertySignature): Options.Options<Option.Option<unknown>> => {
  const name = String(property.name)
  const type = underlying(property.type)
  const literals = type._tag === "Literal"
    ? [type]
    : type._tag === "Union" && type.types.every((member) => member._tag === "Literal")
    ? type.types as ReadonlyArray<AST.Literal>
    : undefined
  // Words or a whole number (`context`: "syntax" or lines): text, a number when it is digits.
  const wordsOrNumber = type._tag === "Union" &&
    type.types.every((member) => {
      const under = underlying(member)
      return under._tag === "NumberKeyword" || (under._tag === "Literal" && typeof under.literal === "string")
    })
  const option: Options.Options<unknown> | undefined = wordsOrNumber
    ? Options.text(kebab(name)).pipe(Options.map((text) => /^\d+$/.test(text) ? Number(text) : text))
    : type._tag === "NumberKeyword"
    ? Options.integer(kebab(name))
    : type._tag === "StringKeyword"
    ? Options.text(kebab(name))
    : type._tag === "BooleanKeyword"
    ? Options.boolean(kebab(name))
    : type._tag === "TypeLiteral"
    ? wholeNumbers(kebab(name), type.propertySignatures.map((field) => String(field.name)))
    : literals !== undefined && literals.every((literal) => typeof literal.literal === "string")
    ? Options.choice(kebab(name), literals.map((literal) => literal.literal as string))
    : undefined
  if (option === undefined) throw new Error(`ReadParams.${name}: no command-line option for a ${type._tag}`)
  // A flag is given or not: not given is the parameter left out, not `false`.
  const given = type._tag === "BooleanKeyword"
    ? option.pipe(Options.map((on) => on === true ? Option.some(true) : Option.none()))
    : option.pipe(Options.optional)
  return given.pipe(Options.withDescription(help[name as Field])) as Options.Options<Option.Option<unknown>>
}

/** The options of a read, in the order of `ReadParams`. */
export const readOptions: ReadOptions = Object.fromEntries(
  AST.getPropertySignatures(ReadParams.ast).filter((property) => property.name !== "filePath").map((
    property
  ) => [property.name, optionOf(property)])
) as unknown as ReadOptions

/** The parameters a command's parsed options give (those of `readOptions`; the ones not given left out). */
export const paramsOf = (parsed: { readonly [K in Field]: Option.Option<Exclude<Params[K], undefined>> }): Params =>
  Object.fromEntries(
    Object.keys(readOptions).flatMap((name) => {
      const value: Option.Option<unknown> = parsed[name as Field]
      return Option.isSome(value) ? [[name, value.value]] : []
    })
  ) as Params
