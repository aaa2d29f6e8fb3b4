/**
 * The command line's own code cache: how `bin.cjs` runs the bundled command line
 * (`dist/bin-main.cjs`, one CommonJS file) so that a start skips compiling it.
 *
 * Most of a start was V8 compiling ~1 MB of JavaScript (eagerly at load, then each function at its
 * first call) and Node 20 has no compile cache for ES modules. A `vm.Script` can be given V8's code
 * cache of an earlier run: made at the end of a run, it holds every function that run compiled, so
 * the next run of the same command compiles almost nothing. One cache per command kind (a read and
 * `mcp` run different code), per bundle (its content hash, written on its first line by
 * `scripts/bundle.mjs`), per V8 version and CPU architecture.
 *
 * Where: `$XDG_CACHE_HOME/effect-read` or `~/.cache/effect-read`, else (a home that cannot be
 * written) `effect-read-<uid>` in the OS temp directory; a directory of this user's only (created
 * 0700; one that is not ours or that others may write is not used: a cache is code this process
 * runs). At most `MAX_FILES` files: the oldest go when a new one is written. Off when
 * `NODE_DISABLE_COMPILE_CACHE` is set (Node's own switch for its compile cache). A cache that
 * is missing, unreadable or rejected by V8 (another Node, other flags, a checksum that does not
 * match: `VERIFY_CHECKSUM_FLAG`) is written again at exit; nothing here can make a run fail.
 */
import { isAscii } from "node:buffer"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import { setFlagsFromString } from "node:v8"
import * as vm from "node:vm"

/**
 * `true` on `globalThis` while a run has not yet done all a run of its kind does (`mcp`: set by
 * the bin, cleared once a `tools/call` is answered). A cache holds only the functions its run
 * compiled: one made by a run that did less (an `initialize` alone, a host's probe) would leave
 * every later session compiling the rest at its first calls. Such a cache is kept under a name
 * of its own (`…-partial.v8`), used while there is no other, and replaced by the first complete
 * run's.
 */
export const runIncomplete = Symbol.for("effect-read/code-cache/run-incomplete")

/** The most cache files kept in the directory. */
export const MAX_FILES = 8

/**
 * Where the cache may live, in order, or none when it is off: the user's cache directory, then a
 * directory of this user's in the OS temp directory (for a home that cannot be written, as in
 * many containers).
 */
export const cacheDirectories = (
  env: Readonly<Record<string, string | undefined>> = process.env,
  home: string = os.homedir(),
  temporary: string = os.tmpdir(),
  uid: number | undefined = process.getuid?.()
): Array<string> => {
  if (env.NODE_DISABLE_COMPILE_CACHE !== undefined && env.NODE_DISABLE_COMPILE_CACHE !== "") return []
  const base = env.XDG_CACHE_HOME !== undefined && path.isAbsolute(env.XDG_CACHE_HOME)
    ? env.XDG_CACHE_HOME
    : home === ""
    ? undefined
    : path.join(home, ".cache")
  return [
    ...(base === undefined ? [] : [path.join(base, "effect-read")]),
    path.join(temporary, `effect-read-${uid ?? "user"}`)
  ]
}

/** The directory made (0700) if missing; true only when it is a directory of this user's that no one else may write. */
export const ownDirectory = (directory: string): boolean => {
  try {
    fs.mkdirSync(directory, { recursive: true, mode: 0o700 })
    const stat = fs.lstatSync(directory)
    const uid = process.getuid?.()
    return stat.isDirectory() && (uid === undefined || stat.uid === uid) && (stat.mode & 0o022) === 0
  } catch {
    return false
  }
}

/** The names to delete so that at most `keep` remain: the oldest first (`mtimeMs`), never `current`. */
export const toPrune = (
  files: ReadonlyArray<{ readonly name: string; readonly mtimeMs: number }>,
  current: string,
  keep: number = MAX_FILES
): Array<string> =>
  files.filter((file) => file.name !== current)
    .sort((a, b) => a.mtimeMs - b.mtimeMs || (a.name < b.name ? -1 : 1))
    .slice(0, Math.max(0, files.length - keep))
    .map((file) => file.name)

/**
 * The content hash `scripts/bundle.mjs` writes on the bundle's first line (`//# effect-read <hash>`),
 * of all that follows it: the bundle as one function expression of CommonJS's five names.
 */
export const bundleHash = (source: string): string | undefined =>
  /^\/\/# effect-read ([0-9a-f]{16,})\n/.exec(source)?.[1]

/**
 * The V8 flag under which V8 writes a checksum into every code cache it makes and refuses one whose
 * bytes do not match it (outside debug builds it checks only a cache's source length, version,
 * flags and payload length): a file damaged on disk never reaches the deserializer. Set before
 * any cache is made or used, in every run (V8 keys a cache on its flags). Node 20, 22 and 24 have it.
 */
export const VERIFY_CHECKSUM_FLAG = "--verify-snapshot-checksum"

const readCache = (file: string): Buffer | undefined => {
  try {
    return fs.readFileSync(file)
  } catch {
    return undefined
  }
}

const writeCache = (directory: string, name: string, data: Buffer): void => {
  try {
    const temporary = path.join(directory, `.${name}.${process.pid}.tmp`)
    fs.writeFileSync(temporary, data, { mode: 0o600 })
    fs.renameSync(temporary, path.join(directory, name))
    const files = fs.readdirSync(directory).filter((entry) => entry.endsWith(".v8")).map((entry) => ({
      name: entry,
      mtimeMs: fs.statSync(path.join(directory, entry)).mtimeMs
    }))
    for (const stale of toPrune(files, name)) fs.rmSync(path.join(directory, stale), { force: true })
  } catch {
    // A cache that cannot be written only costs the next run its compile time.
  }
}

/**
 * The bundle's importer of packages outside it (src/internal/io/importPackage.ts): this module
 * is bundled into `bin.cjs`, beside the bundle, so a package resolves as it would from the bundle.
 */
const importPackage = (specifier: string): Promise<unknown> => import(specifier)

/**
 * The bundle's script, held for the life of the process: V8 may otherwise collect it once its
 * top level has run, and a coverage report taken at exit (NODE_V8_COVERAGE, c8) would then miss
 * the functions it ran.
 */
let running: vm.Script | undefined

/**
 * Run the CommonJS bundle at `file` in this context, with V8's code cache for `kind` when there
 * is a usable one, and leave one for the next run when there was not.
 */
/**
 * `text` with every character outside ASCII written as a `\uXXXX` escape, for the bundle
 * (`scripts/bundle.mjs`). esbuild escapes such characters in strings, templates and names but
 * leaves them in regular expression literals (`¶`, `‹…›`, Readability's word lists), where the
 * escape means the same character (in a `u` expression a surrogate pair's two escapes are one code
 * point). A character after an odd run of backslashes (an identity escape, `\é`) takes that
 * backslash's place. Not for tagged templates' raw text (esbuild leaves none with such characters).
 */
export const asciiOnly = (text: string): string =>
  text.replace(
    /(\\*)([^\x00-\x7f])/g,
    (_, slashes: string, char: string) =>
      `${slashes.slice(slashes.length % 2)}\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`
  )

/**
 * The text of the bundle at `file`. `scripts/bundle.mjs` writes it in ASCII, which is also Latin-1:
 * read so, V8 holds it as a one-byte string and nothing decodes UTF-8 (~3 ms of a start for
 * ~2 MB). Any other file is read as UTF-8.
 */
export const readSource = (file: string): string => {
  const bytes = fs.readFileSync(file)
  return bytes.toString(isAscii(bytes) ? "latin1" : "utf8")
}

export const runBundle = (file: string, kind: string): void => {
  setFlagsFromString(VERIFY_CHECKSUM_FLAG)
  const source = readSource(file)
  const hash = bundleHash(source)
  const directory = hash === undefined ? undefined : cacheDirectories().find(ownDirectory)
  const usable = directory !== undefined
  const name = `${kind}-${hash}-${process.versions.v8}-${process.arch}.v8`
  const partial = name.replace(/\.v8$/, "-partial.v8")
  const complete = usable ? readCache(path.join(directory, name)) : undefined
  const cachedData = complete ?? (usable ? readCache(path.join(directory, partial)) : undefined)
  const script = new vm.Script(source, {
    filename: file,
    ...(cachedData === undefined ? {} : { cachedData })
  })
  const accepted = cachedData !== undefined && script.cachedDataRejected !== true
  if (usable && !(accepted && complete !== undefined)) {
    // At exit: the cache then holds every function this run compiled, not only the top level.
    process.once("exit", () => {
      if ((globalThis as Record<symbol, unknown>)[runIncomplete] !== true) {
        writeCache(directory, name, script.createCachedData())
        fs.rmSync(path.join(directory, partial), { force: true })
      } else if (!accepted) {
        writeCache(directory, partial, script.createCachedData())
      }
    })
  }
  running = script
  const module = { exports: {} }
  const run = running.runInThisContext() as (...args: ReadonlyArray<unknown>) => void
  run(module.exports, createRequire(file), module, file, path.dirname(file), importPackage)
}
