/**
 * The command line's options as data, defined once: `Cli.ts` builds its `@effect/cli` options from
 * them (help, errors, every unusual form), and `cliArgs.quickParse` parses the common calls with
 * them without loading `@effect/cli` (a plain read, `mcp`: start-up). A read's options come from
 * `ReadParams`: one per parameter but `filePath`, named in kebab case and typed as the parameter
 * is. Only the help lines are written here (the schema's descriptions are written for a model);
 * their record is typed by the parameters, so a new parameter does not compile until it has one.
 */
import * as Option from "effect/Option"
import * as AST from "effect/SchemaAST"
import { type Params, ReadParams } from "../read/params.js"
import { type LimitFlagName, limitFlags } from "./limitFlags.js"

/** How an option's words become its value. */
export type FlagKind =
  /** Given or not (`--json`). */
  | { readonly _tag: "boolean" }
  /** Any text; `repeated`: given any number of times, the values in order. */
  | { readonly _tag: "text"; readonly repeated?: boolean }
  | { readonly _tag: "integer" }
  | { readonly _tag: "float" }
  | { readonly _tag: "choice"; readonly choices: ReadonlyArray<string> }
  /** A word or a whole number (`--context syntax`, `--context 3`). */
  | { readonly _tag: "wordOrNumber" }
  /** Whole numbers, comma-separated in this order (`--region 0,0,640,480`). */
  | { readonly _tag: "wholeNumbers"; readonly fields: ReadonlyArray<string> }
  /** A file's name, the value being `[name, text]` (`--rules FILE`). */
  | { readonly _tag: "fileText" }

export interface Flag {
  /** The key of the command's parsed arguments (`lineFormat`). */
  readonly key: string
  /** The option's name on the command line, without `--` (`line-format`). */
  readonly name: string
  readonly kind: FlagKind
  readonly description: string
  /**
   * Not given: a boolean is `false`, a repeated text `[]`, anything else `Option.none()`. A read's
   * boolean parameter is `Option.some(true)` or `Option.none()` instead (`readParam`): not given is
   * the parameter left out, not `false`.
   */
  readonly readParam?: boolean
}

type Field = Exclude<keyof Params, "filePath">

/** The help line of each read option, for a person at a terminal. */
const help: { readonly [K in Field]-?: string } = {
  offset: "First line to show, 1-based",
  column: "Character (1-based) at which the line at --offset starts: reads on in a cut line",
  limit: "Most lines to show (default 2000, or what --max-lines sets)",
  encoding: "Decode text in this encoding (e.g. shift_jis, windows-1252) instead of detecting it",
  lineFormat: "hashline: a ¶PATH#TAG first line and N:text lines, for edit tools that take anchors",
  view:
    "Directories: list (default) or tree; files: outline, summary, block (the declaration around --offset) or conflicts",
  levels:
    "With --view outline: the depth shown (1 the outermost declarations; default: what fits about a page); with --view block: 1 the innermost declaration around the line, 2 the one around it, …",
  search:
    "Show only the lines matching this regular expression (JavaScript syntax; /re/i or (?i) ignores case), with context; --offset/--limit count matches",
  context:
    "With --search: lines of context around each match (0-50, default 2); otherwise syntax: widen the requested range to the statements or declarations it cuts",
  region: "Images: show the part X,Y,WIDTH,HEIGHT in the original image's pixels, cropped before any downscale",
  frame: "Animated images: the frame to show, 1-based",
  diagnostics: "errors (or warnings: errors and warnings) the language server finds in the file, after the page",
  fullResolution:
    "Images: show the image (or --region) at its original resolution, not downscaled (up to 8000 px a side)",
  pageImages: "PDFs: show the pages (FILE:pages=N-M, at most 5) as PNG images instead of their text"
}

const kebab = (name: string): string => name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)

/** The type a value must have under refinements (`Int`, `minLength`, …). */
const underlying = (ast: AST.AST): AST.AST => ast._tag === "Refinement" ? underlying(ast.from) : ast

/** How one parameter is written on the command line, from the type its schema gives it. */
const kindOf = (name: string, type: AST.AST): FlagKind => {
  const literals = type._tag === "Literal"
    ? [type]
    : type._tag === "Union" && type.types.every((member) => member._tag === "Literal")
    ? type.types as ReadonlyArray<AST.Literal>
    : undefined
  const wordOrNumber = type._tag === "Union" &&
    type.types.some((member) => underlying(member)._tag === "NumberKeyword") &&
    type.types.every((member) => {
      const under = underlying(member)
      return under._tag === "NumberKeyword" || (under._tag === "Literal" && typeof under.literal === "string")
    })
  if (wordOrNumber) return { _tag: "wordOrNumber" }
  if (type._tag === "NumberKeyword") return { _tag: "integer" }
  if (type._tag === "StringKeyword") return { _tag: "text" }
  if (type._tag === "BooleanKeyword") return { _tag: "boolean" }
  if (type._tag === "TypeLiteral") {
    return {
      _tag: "wholeNumbers",
      fields: type.propertySignatures.map((field) => String(field.name))
    }
  }
  if (literals !== undefined && literals.every((literal) => typeof literal.literal === "string")) {
    return { _tag: "choice", choices: literals.map((literal) => literal.literal as string) }
  }
  throw new Error(`ReadParams.${name}: no command-line option for a ${type._tag}`)
}

/** The options of a read, in the order of `ReadParams`. */
export const readFlags: ReadonlyArray<Flag> = AST.getPropertySignatures(ReadParams.ast)
  .filter((property) => property.name !== "filePath")
  .map((property) => {
    const key = String(property.name)
    return {
      key,
      name: kebab(key),
      kind: kindOf(key, underlying(property.type)),
      description: help[key as Field],
      readParam: true
    }
  })

const flag = (key: string, kind: FlagKind, description: string): Flag => ({ key, name: kebab(key), kind, description })

export const cwdFlag = flag(
  "cwd",
  { _tag: "text" },
  "Working directory and project root (default: the current directory)"
)

/**
 * The permission flags, what the model takes and the page caps (`--max-lines`, …, from the one
 * table of them), every command takes (after the subcommand or before it).
 */
export const permissionFlags: ReadonlyArray<Flag> = [
  ...Object.entries(limitFlags).map(([key, limit]): Flag => ({
    key,
    name: limit.flag,
    kind: { _tag: "integer" },
    description: limit.description
  })),
  flag("allowExternal", { _tag: "boolean" }, "Allow reading outside the project without asking"),
  flag(
    "textOnly",
    { _tag: "boolean" },
    "For a model that cannot see images or take PDF files: images are described in words, never attached; PDFs are read as text"
  ),
  flag(
    "nextHeader",
    { _tag: "boolean" },
    "Put one line before each result shown in parts: what it shows and the read that continues it, for hosts that cut an output's tail"
  ),
  flag(
    "maskSecrets",
    { _tag: "boolean" },
    "Show secret values as placeholders (‹secret: GitHub token›); env files are then read without asking"
  ),
  flag(
    "rules",
    { _tag: "fileText" },
    "Permission rules (JSON: [{\"permission\", \"pattern\", \"action\"}]) after the defaults"
  ),
  flag(
    "allow",
    { _tag: "text", repeated: true },
    "Allow reading paths matching this glob (relative to --cwd), private keys and credentials included"
  ),
  flag("ask", { _tag: "text", repeated: true }, "Ask before reading paths matching this glob"),
  flag("deny", { _tag: "text", repeated: true }, "Never read paths matching this glob")
]

/** `effect-read [options] <filePath>`: the options besides a read's own. */
export const readCommandFlags: ReadonlyArray<Flag> = [
  cwdFlag,
  ...readFlags,
  flag(
    "format",
    { _tag: "choice", choices: ["text", "json", "envelope"] },
    "text: the tool output (default); json: the ReadResult or {\"error\": …}; envelope: the standard envelope"
  ),
  flag("json", { _tag: "boolean" }, "Short for --format json"),
  flag("filesOnly", { _tag: "boolean" }, "With --format envelope: a directory is an IS_DIRECTORY error"),
  ...permissionFlags
]

/** `effect-read mcp [options]`. */
export const mcpFlags: ReadonlyArray<Flag> = [
  cwdFlag,
  flag("askTimeout", { _tag: "float" }, "Seconds to wait for the person to answer a permission question (default 120)"),
  ...permissionFlags,
  flag(
    "store",
    { _tag: "text" },
    "Keep the read ledger and session memory on this store, shared by every server on it: sqlite:FILE or postgres://…"
  ),
  flag(
    "languageServer",
    { _tag: "boolean" },
    "Run language servers (typescript-language-server for TypeScript and JavaScript) so that a read's diagnostics parameter appends the file's errors"
  ),
  flag(
    "sessionMemory",
    { _tag: "boolean" },
    "Session memory: a re-read of lines the conversation still holds is a short stub; a changed file leads with a diff"
  ),
  flag(
    "shortDescription",
    { _tag: "boolean" },
    "Describe the read tool in its short form (at most 1.5 KB) in tools/list, for hosts that pay for every byte of it"
  )
]

/** `effect-read many [options] <filePath>...`. */
export const manyFlags: ReadonlyArray<Flag> = [
  flag("glob", { _tag: "text" }, "Also read the files matching this glob (relative to --cwd; .gitignore honoured)"),
  flag("json", { _tag: "boolean" }, "Print the ReadManyResult or {\"error\": …} as JSON"),
  cwdFlag,
  ...permissionFlags
]

/** Takes a value (the next word, or `--name=value`), as opposed to a flag given or not. */
export const takesValue = (flag: Flag): boolean => flag.kind._tag !== "boolean"

/** The parameters a read's parsed options give (those of `readFlags`; the ones not given left out). */
export const paramsOf = (parsed: { readonly [K in Field]: Option.Option<Exclude<Params[K], undefined>> }): Params =>
  Object.fromEntries(
    readFlags.flatMap(({ key }) => {
      const value: Option.Option<unknown> = parsed[key as Field]
      return Option.isSome(value) ? [[key, value.value]] : []
    })
  ) as Params

/** `0,0,640,480` as `{ x: 0, y: 0, width: 640, height: 480 }` for `fields`, or `undefined`. */
export const wholeNumbersOf = (text: string, fields: ReadonlyArray<string>): Record<string, number> | undefined => {
  const values = text.split(",").map((value) => value.trim())
  return values.length === fields.length && values.every((value) => /^-?\d+$/.test(value))
    ? Object.fromEntries(fields.map((field, i) => [field, Number(values[i])]))
    : undefined
}

/** How a read prints its result: the tool output, the `ReadResult` as JSON, or the standard envelope. */
export type Format = "text" | "json" | "envelope"

/** The permission flags and the page caps, parsed. */
export type PermissionArgs = { readonly [K in LimitFlagName]: Option.Option<number> } & {
  readonly allowExternal: boolean
  readonly textOnly: boolean
  readonly nextHeader: boolean
  readonly maskSecrets: boolean
  readonly rules: Option.Option<readonly [path: string, content: string]>
  readonly allow: ReadonlyArray<string>
  readonly ask: ReadonlyArray<string>
  readonly deny: ReadonlyArray<string>
}

/** `effect-read [options] <filePath>`, parsed. */
export type ReadArgs = PermissionArgs & { readonly [K in Field]: Option.Option<Exclude<Params[K], undefined>> } & {
  /** Optional only so that `effect-read mcp` parses; a read without it is a usage error. */
  readonly filePath: Option.Option<string>
  readonly cwd: Option.Option<string>
  readonly format: Option.Option<Format>
  readonly json: boolean
  readonly filesOnly: boolean
}

/** `effect-read mcp [options]`, parsed. */
export interface McpArgs extends PermissionArgs {
  readonly cwd: Option.Option<string>
  readonly askTimeout: Option.Option<number>
  readonly store: Option.Option<string>
  readonly languageServer: boolean
  readonly sessionMemory: boolean
  readonly shortDescription: boolean
}

/** `effect-read many [options] <filePath>...`, parsed. */
export interface ManyArgs extends PermissionArgs {
  readonly filePaths: ReadonlyArray<string>
  readonly glob: Option.Option<string>
  readonly json: boolean
  readonly cwd: Option.Option<string>
}
