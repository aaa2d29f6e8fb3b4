/**
 * What a path can mean, before anything is read. Pure: the caller tries the meanings in order
 * and takes the first that applies.
 *
 * - `scheme://rest` with a registered scheme goes to that scheme's source.
 * - Otherwise the path as written wins (`notes:12` is a file named so, when it exists); then
 *   each container split, longest container first (`a.zip:dir/f.ts`, `app.db:users`); then a
 *   trailing selector (`src/app.ts:10-20`); the last meaning is used even when nothing is there
 *   (it is what "not found" and path recovery are about).
 * - A leading `:` asks for the literal path after it (`:/abs/notes:12`).
 */
import { splitSelector } from "./selector.js"

export type Meaning =
  /** The path as written (or after `:`), no selector. */
  | { readonly _tag: "AsWritten"; readonly path: string }
  /** A container file and the rest of the path inside it. */
  | { readonly _tag: "Container"; readonly path: string; readonly inner: string }
  /** A path and the selector that followed it (`ifExists`: tried only when that path is there). */
  | { readonly _tag: "Selected"; readonly path: string; readonly selector: string; readonly ifExists?: true }

export type Resolved =
  | {
    readonly _tag: "Scheme"
    /** Lower-case. */
    readonly scheme: string
    readonly input: string
    /** The URL without a trailing selector. */
    readonly url: string
    readonly selector: string | undefined
  }
  | { readonly _tag: "Local"; readonly meanings: ReadonlyArray<Meaning> }

export interface ResolveOptions {
  /** Registered scheme names, lower-case. */
  readonly schemes: { readonly has: (scheme: string) => boolean }
  /** Container extensions as global regexes ending with a `(?=:|$)`-style lookahead. */
  readonly containers: ReadonlyArray<RegExp>
  /** The home directory `~` stands for. */
  readonly home: string
}

const SCHEME = /^([a-z][a-z0-9+.-]*):\/\//i

/** Schemes whose URLs have a host and may have a port. */
const NETWORK_SCHEMES: ReadonlySet<string> = new Set(["http", "https", "ftp", "ws", "wss"])

export const resolve = (input: string, options: ResolveOptions): Resolved => {
  const scheme = SCHEME.exec(input)?.[1]?.toLowerCase()
  if (scheme !== undefined && options.schemes.has(scheme)) {
    // In a URL with a host, a selector follows its path, never its authority: `https://host:8080`
    // has none. Other schemes may take one right after `://` (`memory://notes:5-9`).
    const prefix = scheme.length + 3
    const authorityEnd = input.slice(prefix).search(/[/?#]/)
    const pathStart = !NETWORK_SCHEMES.has(scheme) ? prefix : authorityEnd === -1 ? -1 : prefix + authorityEnd
    const split = pathStart === -1 ? undefined : splitSelector(input.slice(pathStart))
    return split?.selector === undefined
      ? { _tag: "Scheme", scheme, input, url: input, selector: undefined }
      : { _tag: "Scheme", scheme, input, url: input.slice(0, pathStart) + split.path, selector: split.selector }
  }
  return { _tag: "Local", meanings: localMeanings(input, options) }
}

/** A path as a shell spells it, unspelled: `a\ b` is `a b` (a backslash before a letter or digit stays). */
export const shellUnescape = (path: string): string => path.replace(/\\([^A-Za-z0-9])/g, "$1")

/**
 * The meanings of a local path, in the order they are tried. A path with shell escapes
 * (`dir/a\ b:1-2`) means what it says when that is there, else what a shell would read.
 */
export const localMeanings = (
  input: string,
  options: Pick<ResolveOptions, "containers" | "home">
): ReadonlyArray<Meaning> => {
  const unescaped = shellUnescape(input)
  if (unescaped === input || input.startsWith(":")) return literalMeanings(input, options)
  const literal = literalMeanings(input, options)
  const last = literal[literal.length - 1]!
  return [
    ...literal.slice(0, -1),
    ...(last._tag === "Selected" ? [{ ...last, ifExists: true as const }] : [last]),
    ...literalMeanings(unescaped, options)
  ]
}

const literalMeanings = (
  input: string,
  options: Pick<ResolveOptions, "containers" | "home">
): ReadonlyArray<Meaning> => {
  const path = expandHome(input, options.home)
  // Unless `..` follows a colon: `a.zip:pkg/..` must not resolve to the directory holding a.zip.
  const asWritten: ReadonlyArray<Meaning> = /:(.*[\\/])?\.\.([\\/]|$)/.test(path) ? [] : [{ _tag: "AsWritten", path }]
  if (input.startsWith(":") && input.length > 1) {
    return [...asWritten, { _tag: "AsWritten", path: expandHome(input.slice(1), options.home) }]
  }
  const containers = containerSplits(path, options.containers)
  const split = splitSelector(path)
  const last: Meaning = split.selector === undefined
    ? { _tag: "AsWritten", path }
    : { _tag: "Selected", path: split.path, selector: split.selector }
  // A plain path is one meaning, not the same one twice (a read stats each meaning it passes over).
  if (containers.length === 0 && asWritten.length === 1 && last._tag === "AsWritten") return asWritten
  return [...asWritten, ...containers, last]
}

/** Every split of `input` into a container path and what follows it, longest container first. */
export const containerSplits = (input: string, patterns: ReadonlyArray<RegExp>): ReadonlyArray<Meaning> => {
  const found: Array<{ readonly path: string; readonly inner: string }> = []
  for (const pattern of patterns) {
    for (
      const match of input.matchAll(
        new RegExp(pattern.source, pattern.flags.includes("g") ? pattern.flags : `${pattern.flags}g`)
      )
    ) {
      const end = match.index + match[0].length
      if (end === input.length) continue
      const rest = input.slice(end)
      found.push({ path: input.slice(0, end), inner: rest.startsWith(":") ? rest.replace(/^:+/, "") : rest })
    }
  }
  return found
    .sort((a, b) => b.path.length - a.path.length)
    .filter((split, i, all) => all.findIndex((other) => other.path === split.path) === i)
    .map((split) => ({ _tag: "Container", ...split }))
}

/** `~` is the home directory. */
export const expandHome = (input: string, home: string): string =>
  input === "~" ? home : input.startsWith("~/") ? `${home}${input.slice(1)}` : input
