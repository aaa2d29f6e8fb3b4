/**
 * Walking a project the way its developers see it: `.gitignore` files (the root's and nested
 * ones) honoured, version-control and dependency directories pruned, symlinked directories
 * never entered (a link could lead outside the worktree without an `external_directory` ask).
 * Shared by path recovery (the suffix search) and the directory tree.
 */
import type { File } from "@effect/platform/FileSystem"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import ignore from "ignore"

type Ignore = ReturnType<typeof ignore>

/** Never worth walking into: version control, dependencies, caches. */
export const PRUNED_ALWAYS: ReadonlySet<string> = new Set([
  ".git",
  ".hg",
  ".svn",
  "node_modules",
  ".venv",
  "__pycache__",
  ".cache",
  ".next",
  ".turbo",
  ".parcel-cache"
])

/** Also left out of a tree: build output (usually gitignored, but not always). */
export const PRUNED_IN_TREE: ReadonlySet<string> = new Set([
  ...PRUNED_ALWAYS,
  "dist",
  "build",
  "target",
  "coverage"
])

/** Files no one means to see. */
export const PRUNED_FILES: ReadonlySet<string> = new Set([".DS_Store"])

/** The rules of one `.gitignore`, relative to the directory holding it. */
export interface IgnoreLevel {
  readonly base: string
  readonly rules: Ignore
}

/** The `.gitignore` files that apply in a directory, outermost first. */
export type IgnoreChain = ReadonlyArray<IgnoreLevel>

const toPosix = (path: Path.Path, relative: string): string => relative.split(path.sep).join("/")

/** A `path.relative` result that leads strictly below its base. */
const isBelow = (path: Path.Path, relative: string): boolean =>
  relative !== "" && relative !== ".." && !relative.startsWith(`..${path.sep}`) && !relative.startsWith("../") &&
  !path.isAbsolute(relative)

/**
 * Is `absolute` ignored under `chain`? As in git, a deeper `.gitignore` overrides a shallower
 * one: the last level with a rule for the path decides, and a `!pattern` re-includes it.
 * (Entries inside an ignored directory are never reached: the walk does not enter it.)
 */
export const isIgnored = (path: Path.Path, chain: IgnoreChain, absolute: string, isDirectory: boolean): boolean => {
  let ignored = false
  for (const level of chain) {
    const relative = toPosix(path, path.relative(level.base, absolute))
    if (!isBelow(path, relative)) continue
    let result: { readonly ignored: boolean; readonly unignored: boolean }
    try {
      result = level.rules.test(isDirectory ? `${relative}/` : relative)
    } catch {
      // `ignore` refuses names it cannot express (`...`): no rule can match them.
      continue
    }
    if (result.ignored) ignored = true
    else if (result.unignored) ignored = false
  }
  return ignored
}

/** The rules of a `.gitignore` in `dir` holding `text`; none when it has none. */
export const ignoreLevel = (dir: string, text: string | undefined): IgnoreLevel | undefined =>
  text === undefined || text.trim() === "" ? undefined : { base: dir, rules: ignore().add(text) }

/** The rules of `dir/.gitignore`; none when it is missing or unreadable. */
export const readIgnoreFile = (dir: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const text = yield* fs.readFileString(path.join(dir, ".gitignore")).pipe(
      Effect.orElseSucceed(() => undefined)
    )
    return ignoreLevel(dir, text)
  })

/** `chain` plus the `.gitignore` of `dir`, when `names` (its entries) hold one. */
export const extendChain = (chain: IgnoreChain, dir: string, names: ReadonlyArray<string>) =>
  names.includes(".gitignore")
    ? Effect.map(readIgnoreFile(dir), (level) => level === undefined ? chain : [...chain, level])
    : Effect.succeed(chain)

/**
 * The `.gitignore` files that apply in `dir` before its own: those of the worktree root and
 * every directory down to `dir`'s parent, when `dir` is inside the worktree.
 */
export const ancestorChain = (worktree: string, dir: string) =>
  Effect.gen(function*() {
    const path = yield* Path.Path
    const relative = path.relative(worktree, dir)
    if (!isBelow(path, relative)) return [] as IgnoreChain
    const chain: Array<IgnoreLevel> = []
    let current = worktree
    for (const part of ["", ...relative.split(path.sep).slice(0, -1)]) {
      current = part === "" ? current : path.join(current, part)
      const level = yield* readIgnoreFile(current)
      if (level !== undefined) chain.push(level)
    }
    return chain as IgnoreChain
  })

/** An entry of a listed directory; `info` is undefined when it could not be stat'ed (a dangling link). */
export interface Listed {
  readonly name: string
  readonly absolute: string
  readonly info: File.Info | undefined
  /** A directory, reached by a symlink: listed, never entered. */
  readonly link: boolean
}

/** Stats in flight while listing one directory. */
const STAT_CONCURRENCY = 32

/** Stat `names` in `dir` (following links) and tell symlinked directories apart. */
export const statEntries = (dir: string, names: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    return yield* Effect.forEach(
      names,
      (name) => {
        const absolute = path.join(dir, name)
        return fs.stat(absolute).pipe(
          Effect.flatMap((info) =>
            info.type === "Directory"
              ? Effect.map(
                fs.readLink(absolute).pipe(Effect.as(true), Effect.orElseSucceed(() => false)),
                (link): Listed => ({ name, absolute, info, link })
              )
              : Effect.succeed<Listed>({ name, absolute, info, link: false })
          ),
          Effect.orElseSucceed((): Listed => ({ name, absolute, info: undefined, link: false }))
        )
      },
      { concurrency: STAT_CONCURRENCY }
    )
  })
