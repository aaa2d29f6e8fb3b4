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
import { limitFlagWords } from "./limitFlags.js"

/** The subcommands, by name. */
export const subcommands = ["mcp", "many"] as const
export type Subcommand = typeof subcommands[number]

/** Options of the permission flags and the page caps, which every command takes. */
const permissionValues = ["rules", "allow", "ask", "deny", ...limitFlagWords]
const permissionFlags = ["allow-external", "mask-secrets", "text-only", "next-header"]

/** Each command's options: those that take a value (the next word, or `--name=value`) and flags. */
export const options: Record<"read" | Subcommand, { readonly values: ReadonlySet<string>; readonly flags: ReadonlySet<string> }> = {
  read: {
    values: new Set([
      "cwd",
      "offset",
      "limit",
      "column",
      "encoding",
      "view",
      "levels",
      "search",
      "context",
      "line-format",
      "region",
      "frame",
      "diagnostics",
      "format",
      ...permissionValues
    ]),
    flags: new Set(["json", "files-only", "full-resolution", "page-images", ...permissionFlags])
  },
  mcp: {
    values: new Set(["cwd", "ask-timeout", "store", ...permissionValues]),
    flags: new Set(["session-memory", "language-server", "short-description", ...permissionFlags])
  },
  many: { values: new Set(["cwd", "glob", ...permissionValues]), flags: new Set(["json", ...permissionFlags]) }
}

/** `@effect/cli`'s own options: with one of them the call is left to it as written. */
const builtIns = new Set(["-h", "--help", "--version", "--wizard", "--completions", "--log-level"])

export interface Scan {
  /** The subcommand, when the first word that is not an option or an option's value names one. */
  readonly subcommand: Subcommand | undefined
  /** The last `--cwd` given, before or after the subcommand. */
  readonly cwd: string | undefined
  /** A built-in option (`--help`, `--version`, …) was given. */
  readonly builtIn: boolean
  /** Words after the subcommand that are neither its options nor their values (before `--`). */
  readonly positionals: ReadonlyArray<string>
  /** Options after the subcommand that it does not take. */
  readonly unknownOptions: ReadonlyArray<string>
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
      if (subcommand !== undefined && !known.values.has(name) && !known.flags.has(name) && !builtIns.has(flag)) {
        unknownOptions.push(flag)
      }
      continue
    }
    if (subcommand === undefined && !seenPositional && isSubcommand(word)) {
      subcommand = word
      continue
    }
    seenPositional = true
    if (subcommand !== undefined) positionals.push(word)
  }
  return { subcommand, cwd, builtIn, positionals, unknownOptions, forced: end === -1 ? [] : args.slice(end + 1) }
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
 * Why the words do not fit their subcommand, or `undefined`: `mcp` takes no paths, and a
 * subcommand takes only its own options (`many --offset 3` would read files named `--offset`
 * and `3`). `many` without files or a glob is its handler's to refuse.
 */
export const misfit = (scanned: Scan): string | undefined => {
  if (scanned.subcommand === undefined || scanned.builtIn) return undefined
  const { subcommand } = scanned
  if (scanned.unknownOptions.length > 0) {
    const list = scanned.unknownOptions.join(", ")
    return `${subcommand} does not take ${scanned.unknownOptions.length === 1 ? "the option" : "the options"} ${list}`
  }
  if (subcommand === "mcp" && (scanned.positionals.length > 0 || scanned.forced.length > 0)) {
    return `mcp takes no paths (it serves MCP on stdin and stdout), and was given ${
      [...scanned.positionals, ...scanned.forced].join(" ")
    }`
  }
  return undefined
}

/**
 * How to read a path that is also a subcommand's name, for an error or a notice: `kind` says what
 * it is (`a directory`, `a file`), `where` the working directory.
 */
export const samePathHint = (name: Subcommand, kind: string, where: string): string =>
  `${name} is also ${kind} in ${where}: to read it, write it as a path (effect-read ./${name}) or after -- (effect-read -- ${name}).`
