/**
 * The command line's words, looked at before `@effect/cli` parses them, for what it cannot see:
 * whether a word that names a subcommand (`mcp`, `many`) was meant as a path.
 *
 * A path can always be read: written as a path (`./many`) or after `--` (`effect-read -- many`).
 * `@effect/cli` takes `-- many` for the subcommand, so `forcePaths` writes such a word as `./many`
 * before it parses. A call whose subcommand gets words it does not take (`effect-read mcp
 * --offset 3`, which `@effect/cli` would run as the server) is a `misfit`, and the error can then
 * say when the subcommand's name is also a path in the working directory.
 */
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import {
  type Flag,
  manyFlags,
  type McpArgs,
  mcpFlags,
  type ReadArgs,
  readCommandFlags,
  takesValue,
  wholeNumbersOf
} from "./flags.js"

/** The subcommands, by name. */
export const subcommands = ["mcp", "many"] as const
export type Subcommand = typeof subcommands[number]

const namesOf = (flags: ReadonlyArray<Flag>) => ({
  values: new Set(flags.filter(takesValue).map((flag) => flag.name)),
  flags: new Set(flags.filter((flag) => !takesValue(flag)).map((flag) => flag.name))
})

/** Each command's options: those that take a value (the next word, or `--name=value`) and flags. */
export const options: Record<
  "read" | Subcommand,
  { readonly values: ReadonlySet<string>; readonly flags: ReadonlySet<string> }
> = {
  read: namesOf(readCommandFlags),
  mcp: namesOf(mcpFlags),
  many: namesOf(manyFlags)
}

/** Every option by name, whichever command takes it (an option shared by commands has one kind). */
const flagsByName: ReadonlyMap<string, Flag> = new Map(
  [...readCommandFlags, ...mcpFlags, ...manyFlags].map((flag) => [flag.name, flag])
)

/** `@effect/cli`'s own options: with one of them the call is left to it as written. */
const builtIns = new Set(["-h", "--help", "--version", "--wizard", "--completions", "--log-level"])

export interface Scan {
  /** The subcommand, when the first word that is not an option or an option's value names one. */
  readonly subcommand: Subcommand | undefined
  /** The last `--cwd` given, before or after the subcommand. */
  readonly cwd: string | undefined
  /** A built-in option (`--help`, `--version`, …) was given. */
  readonly builtIn: boolean
  /**
   * Words after the subcommand (without one: all words) that are neither options nor their
   * values (before `--`).
   */
  readonly positionals: ReadonlyArray<string>
  /** Options the command does not take: after the subcommand, or anywhere when there is none. */
  readonly unknownOptions: ReadonlyArray<string>
  /** The values given to options, as written (`--offset abc`: `["offset", "abc"]`). */
  readonly values: ReadonlyArray<readonly [name: string, value: string]>
  /** The words after `--`. */
  readonly forced: ReadonlyArray<string>
}

/** What the words say, without `argv`'s first two (node and the script). */
export const scan = (args: ReadonlyArray<string>): Scan => {
  let subcommand: Subcommand | undefined
  let cwd: string | undefined
  let builtIn = false
  const positionals: Array<string> = []
  const unknownOptions: Array<string> = []
  // Options before any subcommand that the read command does not take: unknown if none follows.
  const unknownToRead: Array<string> = []
  const values: Array<readonly [string, string]> = []
  const end = args.indexOf("--")
  const words = end === -1 ? args : args.slice(0, end)
  let seenPositional = false
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!
    const known = options[subcommand ?? "read"]
    if (word.startsWith("-") && word !== "-") {
      const [flag, inline] = splitOption(word)
      if (builtIns.has(flag)) builtIn = true
      const name = flag.replace(/^--?/, "")
      const takesValue = options.read.values.has(name) || options.mcp.values.has(name) || options.many.values.has(name)
      const value = inline ?? (takesValue ? words[++i] : undefined)
      if (name === "cwd" && value !== undefined) cwd = value
      if (value !== undefined) values.push([name, value])
      if (!known.values.has(name) && !known.flags.has(name) && !builtIns.has(flag)) {
        ;(subcommand === undefined ? unknownToRead : unknownOptions).push(flag)
      }
      continue
    }
    if (subcommand === undefined && !seenPositional && isSubcommand(word)) {
      subcommand = word
      continue
    }
    seenPositional = true
    positionals.push(word)
  }
  return {
    subcommand,
    cwd,
    builtIn,
    positionals,
    unknownOptions: subcommand === undefined ? unknownToRead : unknownOptions,
    values,
    forced: end === -1 ? [] : args.slice(end + 1)
  }
}

const splitOption = (word: string): readonly [string, string | undefined] => {
  const eq = word.indexOf("=")
  return eq === -1 ? [word, undefined] : [word.slice(0, eq), word.slice(eq + 1)]
}

export const isSubcommand = (word: string): word is Subcommand => (subcommands as ReadonlyArray<string>).includes(word)

/**
 * The words with every path after `--` that is a subcommand's name written as `./name`, when no
 * subcommand comes before `--` (`effect-read -- many` reads `./many`; `effect-read many -- mcp`
 * already reads `mcp`).
 */
export const forcePaths = (args: ReadonlyArray<string>): ReadonlyArray<string> => {
  const end = args.indexOf("--")
  if (end === -1 || scan(args).subcommand !== undefined) return args
  return [...args.slice(0, end + 1), ...args.slice(end + 1).map((word) => isSubcommand(word) ? `./${word}` : word)]
}

/**
 * Why the words do not fit their command, or `undefined`: a command takes only its own options
 * (`many --offset 3` would read files named `--offset` and `3`), each option a value of its kind
 * (said with the option's name: `@effect/cli` says only "'abc' is not a integer"), `mcp` no path
 * and a read one. `many` without files or a glob is its handler's to refuse.
 */
export const misfit = (scanned: Scan): string | undefined => {
  if (scanned.builtIn) return undefined
  const { subcommand } = scanned
  if (scanned.unknownOptions.length > 0) {
    const list = scanned.unknownOptions.join(", ")
    const many = scanned.unknownOptions.length > 1
    return subcommand === undefined
      ? `unknown ${many ? "options" : "option"} ${list}`
      : `${subcommand} does not take ${many ? "the options" : "the option"} ${list}`
  }
  for (const [name, value] of scanned.values) {
    const wanted = valueWanted(flagsByName.get(name), value)
    if (wanted !== undefined) return `--${name} takes ${wanted}, and was given ${JSON.stringify(value)}`
  }
  const paths = [...scanned.positionals, ...scanned.forced]
  if (subcommand === "mcp" && paths.length > 0) {
    return `mcp takes no paths (it serves MCP on stdin and stdout), and was given ${paths.join(" ")}`
  }
  if (subcommand === undefined && paths.length > 1) {
    return `one path at a time (given ${paths.length}: ${paths.join(" ")}); to read several: effect-read many ${
      paths.join(" ")
    }`
  }
  return undefined
}

// As `@effect/cli` parses its integer and float options.
const isInteger = (text: string) =>
  Option.isSome(Schema.decodeUnknownOption(Schema.compose(Schema.NumberFromString, Schema.Int))(text))
const isNumber = (text: string) => Option.isSome(Schema.decodeUnknownOption(Schema.NumberFromString)(text))

/**
 * What `flag` takes, when `value` is not it (as `@effect/cli` would refuse it, in words that name
 * the option); `undefined` when it is, or when the option's own parsing decides (text, files,
 * whole numbers).
 */
const valueWanted = (flag: Flag | undefined, value: string): string | undefined => {
  switch (flag?.kind._tag) {
    case "integer":
      return isInteger(value) ? undefined : "a whole number"
    case "float":
      return isNumber(value) ? undefined : "a number"
    case "choice": {
      const { choices } = flag.kind
      return choices.includes(value)
        ? undefined
        : `${choices.slice(0, -1).join(", ")} or ${choices.at(-1)}`
    }
    // `--region` names itself in its own parse (readOptions), as text and files do in theirs.
    default:
      return undefined
  }
}

/**
 * How to read a path that is also a subcommand's name, for an error or a notice: `kind` says what
 * it is (`a directory`, `a file`), `where` the working directory.
 */
export const samePathHint = (name: Subcommand, kind: string, where: string): string =>
  `${name} is also ${kind} in ${where}: to read it, write it as a path (effect-read ./${name}) or after -- (effect-read -- ${name}).`

/** A command's arguments as `@effect/cli` gives them to its handler. */
type Parsed = Record<string, unknown>

/** What `quickParse` made of the words: the command and its arguments, typed as its handler takes them. */
export type Quick =
  | { readonly command: "read"; readonly args: ReadArgs }
  | { readonly command: "mcp"; readonly args: McpArgs; readonly parent: ReadArgs }

const byName = (flags: ReadonlyArray<Flag>) => new Map(flags.map((flag) => [flag.name, flag]))
const flagsOf = { read: byName(readCommandFlags), mcp: byName(mcpFlags) }

/** Words `@effect/cli` takes as a boolean option's value (`--json true`): such calls are left to it. */
const booleanWords = /^(true|false|yes|no|on|off|y|n|1|0)$/i

/** A value of `kind` from its word, or `undefined` when it is not one this parser is sure of. */
const valueOf = (kind: Flag["kind"], text: string): unknown => {
  switch (kind._tag) {
    case "integer":
      return /^\d{1,15}$/.test(text) ? Number(text) : undefined
    case "float":
      return /^\d{1,15}(\.\d{1,15})?$/.test(text) ? Number(text) : undefined
    case "choice":
      return kind.choices.includes(text) ? text : undefined
    case "wordOrNumber":
      return /^\d{1,15}$/.test(text) ? Number(text) : /^\d/.test(text) ? undefined : text
    case "wholeNumbers":
      return wholeNumbersOf(text, kind.fields)
    case "text":
      return text
    default:
      // A boolean takes no word; a file to read (`--rules`) is left to `@effect/cli`.
      return undefined
  }
}

/** The arguments of a command with `flags`, from the values given (as its handler gets them). */
const argumentsOf = (flags: ReadonlyArray<Flag>, given: ReadonlyMap<Flag, unknown>): Parsed =>
  Object.fromEntries(flags.map((flag) => {
    const value = given.get(flag)
    const repeated = flag.kind._tag === "text" && flag.kind.repeated === true
    if (flag.kind._tag === "boolean") {
      return [flag.key, flag.readParam === true ? (value === true ? Option.some(true) : Option.none()) : value === true]
    }
    return [flag.key, repeated ? value ?? [] : value === undefined ? Option.none() : Option.some(value)]
  }))

/**
 * The common calls parsed without `@effect/cli` (start-up: it is most of what a plain read
 * would load): a read (`effect-read [options] <path>`) and `mcp` (`effect-read [options] mcp
 * [options]`), each option written `--name value` or `--name=value`, once (the repeated ones any
 * number of times), its value of its type. Anything else is `undefined` and `@effect/cli` parses
 * it, with its help and its errors: no path, help and the other built-ins, `--`, short options,
 * an unknown or repeated option, a value that starts with `-` or is not of its type, a boolean
 * followed by a word it would take as the boolean's value, a value that is a subcommand's name
 * (`--cwd many`), `--allow=glob` (a repeated option written with `=`), `--rules` (a file to
 * read), `many`.
 * Where this parses, it gives what `@effect/cli` gives (a property test holds the two together).
 */
export const quickParse = (words: ReadonlyArray<string>): Quick | undefined => {
  let command: "read" | "mcp" = "read"
  let filePath: string | undefined
  const given = { read: new Map<Flag, unknown>(), mcp: new Map<Flag, unknown>() }
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!
    if (!word.startsWith("-")) {
      if (word === "") return undefined
      if (command === "read" && filePath === undefined && word === "mcp") {
        command = "mcp"
        continue
      }
      if (command === "mcp" || filePath !== undefined || isSubcommand(word)) return undefined
      filePath = word
      continue
    }
    if (!word.startsWith("--") || word === "--") return undefined
    const eq = word.indexOf("=")
    const flag = flagsOf[command].get(eq === -1 ? word.slice(2) : word.slice(2, eq))
    if (flag === undefined) return undefined
    let value: unknown
    if (flag.kind._tag === "boolean") {
      const next = words[i + 1]
      if (eq !== -1 || (next !== undefined && booleanWords.test(next))) return undefined
      value = true
    } else {
      // `@effect/cli` takes a repeated option only as `--name value` (`--allow=a` is "invalid subcommand").
      if (eq !== -1 && flag.kind._tag === "text" && flag.kind.repeated === true) return undefined
      const text = eq === -1 ? words[++i] : word.slice(eq + 1)
      // `@effect/cli` takes a subcommand's name for the subcommand even as an option's value.
      if (text === undefined || text === "" || text.startsWith("-") || isSubcommand(text)) return undefined
      value = valueOf(flag.kind, text)
      if (value === undefined) return undefined
    }
    const values = given[command]
    if (flag.kind._tag === "text" && flag.kind.repeated === true) {
      values.set(flag, [...(values.get(flag) as ReadonlyArray<string> | undefined ?? []), value])
    } else if (values.has(flag)) {
      return undefined
    } else {
      values.set(flag, value)
    }
  }
  const read = (path: string | undefined): Parsed => ({
    filePath: path === undefined ? Option.none() : Option.some(path),
    ...argumentsOf(readCommandFlags, given.read)
  })
  // Typed by what each flag's kind gives (`argumentsOf`), as `@effect/cli` types them.
  if (command === "mcp") {
    return {
      command,
      args: argumentsOf(mcpFlags, given.mcp) as unknown as McpArgs,
      parent: read(undefined) as unknown as ReadArgs
    }
  }
  return filePath === undefined ? undefined : { command, args: read(filePath) as unknown as ReadArgs }
}
