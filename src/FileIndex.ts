/**
 * Where path recovery finds the paths of a workspace: the files and directories a developer
 * sees (`.gitignore` honoured, `.git`/`node_modules`/… pruned, symlinked directories never
 * entered), handed to a visitor one at a time so that the caller keeps only what can match.
 *
 * - `perCall` (the default): each recovery lists anew and keeps nothing. In a git work tree the
 *   paths come from `git ls-files` (streamed; tens of milliseconds for tens of thousands of
 *   files); elsewhere, or when git is missing or fails, from a breadth-first walk.
 * - `layerCached()`: a long-lived host (the MCP server, an agent server) keeps each worktree's
 *   paths in memory, so a later miss costs milliseconds. Before each use it compares a cheap
 *   stamp — the worktree's own mtime and, in git, the index file's mtime and size — and lists
 *   again when it moved; past `revalidateAfter` it serves what it has and lists again in the
 *   background, so files created deep in the tree since are found by the next miss. Recovery
 *   checks every path it offers against the disk, so a removed file is never offered.
 *
 * Permissions are not the index's business: recovery asks about the directories leading to
 * each match, and about each path it offers, before naming any.
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as fsp from "node:fs/promises"
import { unwrapPatient } from "./internal/descriptors.js"
import { listGitFiles } from "./internal/gitFiles.js"
import { compareNames } from "./internal/suggest.js"
import { extendChain, type IgnoreChain, isIgnored, PRUNED_ALWAYS, statEntries } from "./internal/walk.js"
import { Progress } from "./Progress.js"

/** A file or directory of the worktree. */
export interface Entry {
  /** Relative to the worktree, `/`-separated. */
  readonly relative: string
  /** The last component of `relative`. */
  readonly name: string
  /** Components in `relative`: 1 for an entry of the worktree itself. */
  readonly depth: number
}

export interface ScanLimits {
  /** How long listing may take; past it, what was visited is all there is. */
  readonly timeout: Duration.DurationInput
  /** Entries that may be listed; past it, listing stops. */
  readonly maxEntries: number
}

export interface Scanned {
  /** Every path of the worktree was visited, within the limits. */
  readonly complete: boolean
  /** Where the paths came from. */
  readonly source: "git" | "walk" | "cache"
}

export interface FileIndexShape {
  /**
   * Call `visit` with each entry of `worktree` (an absolute path), in no particular order; an
   * entry may come twice. Never fails: what cannot be listed is left out (and the result is
   * then incomplete when it matters).
   */
  readonly scan: (
    worktree: string,
    limits: ScanLimits,
    visit: (entry: Entry) => void
  ) => Effect.Effect<Scanned, never, FileSystem.FileSystem | Path.Path>
  /** Forget what is kept for `worktree` (every worktree when omitted): a host that wrote files may say so. */
  readonly invalidate: (worktree?: string) => Effect.Effect<void>
}

/**
 * The workspace file index behind path recovery. The default lists per call (`perCall`): a
 * one-shot CLI process gains nothing from keeping paths, and a library user pays no memory and
 * never sees a stale list unless it asks for `layerCached()`.
 */
export class FileIndex extends Context.Reference<FileIndex>()("effect-read/FileIndex", {
  defaultValue: (): FileIndexShape => perCall
}) {}

// ---------------------------------------------------------------------------------------------
// Listing once

/** The `.git` of the repository holding `worktree`, if any (a directory, or a file for worktrees and submodules). */
const findGit = (worktree: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    for (let dir = worktree;; dir = path.dirname(dir)) {
      const candidate = path.join(dir, ".git")
      if (yield* fs.exists(candidate).pipe(Effect.orElseSucceed(() => false))) return candidate
      if (path.dirname(dir) === dir) return undefined
    }
  })

/**
 * Paths from `git ls-files`: files, and the directories on their way (each once per run of
 * paths sharing it: git lists paths sorted). Undefined when git failed or listed nothing (a
 * worktree inside an ignored directory): then the caller walks.
 */
const gitScan = (worktree: string, limits: ScanLimits, visit: (entry: Entry) => void) =>
  Effect.gen(function*() {
    let previous: ReadonlyArray<string> = []
    let count = 0
    let overLimit = false
    const listed = yield* listGitFiles(worktree, (line) => {
      if (++count > limits.maxEntries) {
        overLimit = true
        return false
      }
      const parts = line.split("/")
      // Where the previous path's directories stop being this one's.
      let shared = 0
      while (shared < parts.length - 1 && shared < previous.length - 1 && parts[shared] === previous[shared]) shared++
      previous = parts
      for (let i = 0; i < parts.length; i++) {
        const name = parts[i]!
        if (PRUNED_ALWAYS.has(name)) return true
        if (i < shared) continue
        visit({ relative: i === parts.length - 1 ? line : parts.slice(0, i + 1).join("/"), name, depth: i + 1 })
      }
      return true
    }).pipe(Effect.timeoutOption(limits.timeout))
    if (Option.isNone(listed)) return { complete: false, source: "git" } satisfies Scanned
    if (listed.value._tag === "Failed" || (listed.value.count === 0 && !overLimit)) return undefined
    return { complete: !overLimit && !listed.value.stopped, source: "git" } satisfies Scanned
  })

/** Directories listed at once by the walk, and taken per round. */
const DIRECTORY_CONCURRENCY = 8
const DIRECTORY_BATCH = 64

/**
 * Breadth-first over the worktree, one batch of directories at a time, entries sorted (so what
 * a bounded walk reaches does not depend on the OS's order). Holds the directories still to
 * list, never the names already handed to `visit`.
 */
const walkScan = (worktree: string, limits: ScanLimits, visit: (entry: Entry) => void) =>
  Effect.gen(function*() {
    const progress = yield* Progress
    const task = `Looking for the missing path in ${worktree}`
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    type Pending = { readonly dir: string; readonly relative: string; readonly depth: number; readonly chain: IgnoreChain }
    const typed = isNodeFileSystem(fs)
    const listOne = (next: Pending) =>
      Effect.gen(function*() {
        const dirents = typed ? yield* direntsOf(next.dir) : undefined
        const names = (dirents === undefined
          ? [...yield* fs.readDirectory(next.dir).pipe(Effect.orElseSucceed((): ReadonlyArray<string> => []))]
          : dirents.map((dirent) => dirent.name)).sort(compareNames)
        if (names.length > limits.maxEntries) return { next, count: names.length, chain: next.chain, listed: [] }
        const chain = yield* extendChain(next.chain, next.dir, names)
        const kept = names.filter((n) => !PRUNED_ALWAYS.has(n))
        const listed: ReadonlyArray<Kind> = dirents === undefined
          ? (yield* statEntries(next.dir, kept)).map((entry) => ({
            name: entry.name,
            absolute: entry.absolute,
            directory: entry.info === undefined ? undefined : entry.info.type === "Directory",
            link: entry.link
          }))
          : yield* kindsOf(next.dir, kept, dirents)
        return { next, count: names.length, chain, listed }
      })
    type Listing = Effect.Effect.Success<ReturnType<typeof listOne>>
    const queue: Array<Pending> = [{ dir: worktree, relative: "", depth: 0, chain: [] }]
    let visited = 0
    let overLimit = false
    /** Take one listed directory; false once the entry limit is reached. */
    const take = (result: Listing): boolean => {
      if (visited + result.count > limits.maxEntries) {
        overLimit = true
        return false
      }
      visited += result.count
      progress.report({ task, done: visited, unit: "entries" })
      const { chain, next } = result
      for (const entry of result.listed) {
        // A dangling link leads nowhere: nothing to resolve to or suggest.
        if (entry.directory === undefined) continue
        const isDirectory = entry.directory
        if (isIgnored(path, chain, entry.absolute, isDirectory)) continue
        const relative = next.relative === "" ? entry.name : `${next.relative}/${entry.name}`
        visit({ relative, name: entry.name, depth: next.depth + 1 })
        if (isDirectory && !entry.link) queue.push({ dir: entry.absolute, relative, depth: next.depth + 1, chain })
      }
      return true
    }
    // The batch being listed: on a timeout, the directories it finished still count.
    let inFlight: Array<Listing | undefined> = []
    const walk = Effect.gen(function*() {
      while (queue.length > 0) {
        const batch = queue.splice(0, DIRECTORY_BATCH)
        const slots: Array<Listing | undefined> = batch.map(() => undefined)
        inFlight = slots
        yield* Effect.forEach(
          batch,
          (pending, i) =>
            Effect.map(listOne(pending), (result) => {
              slots[i] = result
            }),
          { concurrency: DIRECTORY_CONCURRENCY, discard: true }
        )
        inFlight = []
        for (const slot of slots) if (!take(slot!)) return
      }
    })
    const finished = yield* walk.pipe(Effect.timeoutOption(limits.timeout))
    if (Option.isNone(finished)) {
      for (const slot of inFlight) if (slot !== undefined && !take(slot)) break
    }
    return { complete: Option.isSome(finished) && !overLimit && queue.length === 0, source: "walk" } satisfies Scanned
  })

/** An entry of a listed directory: undefined `directory` for a dangling link. */
interface Kind {
  readonly name: string
  readonly absolute: string
  readonly directory: boolean | undefined
  /** A directory reached by a symlink: listed, never entered. */
  readonly link: boolean
}

/**
 * Node's own filesystem (made patient by `read` or not), recognised by its `readDirectory` (a
 * module function, the same in every layer built). With it the walk takes entry types from `readdir` (d_type) instead of a `stat`
 * per entry, ten times fewer calls; any other FileSystem (in memory, fault-injecting, wrapped by
 * a host or a test) is walked through the service, a `stat` per entry.
 */
let nodeReadDirectory: FileSystem.FileSystem["readDirectory"] | undefined
const isNodeFileSystem = (fs: FileSystem.FileSystem): boolean => {
  nodeReadDirectory ??= Effect.runSync(Effect.provide(FileSystem.FileSystem, NodeFileSystem.layer)).readDirectory
  return unwrapPatient(fs).readDirectory === nodeReadDirectory
}

const direntsOf = (dir: string) =>
  Effect.tryPromise(() => fsp.readdir(dir, { withFileTypes: true })).pipe(
    Effect.orElseSucceed((): ReadonlyArray<import("node:fs").Dirent> => [])
  )

/** Kinds from `readdir`'s types; only symlinks are stat'ed (a link to a directory is listed, not entered). */
const kindsOf = (dir: string, names: ReadonlyArray<string>, dirents: ReadonlyArray<import("node:fs").Dirent>) =>
  Effect.gen(function*() {
    const path = yield* Path.Path
    const byName = new Map(dirents.map((dirent) => [dirent.name, dirent]))
    const links = names.filter((name) => byName.get(name)?.isSymbolicLink() === true)
    const linked = links.length === 0 ? [] : yield* statEntries(dir, links)
    const linkKinds = new Map(linked.map((entry) => [entry.name, entry]))
    return names.map((name): Kind => {
      const absolute = path.join(dir, name)
      const link = linkKinds.get(name)
      if (link !== undefined) {
        const directory = link.info === undefined ? undefined : link.info.type === "Directory"
        return { name, absolute, directory, link: directory === true }
      }
      return { name, absolute, directory: byName.get(name)!.isDirectory(), link: false }
    })
  })

/** List `worktree` once: from git in a git work tree, else (or when git fails) by walking. */
const scanOnce = (worktree: string, limits: ScanLimits, visit: (entry: Entry) => void) =>
  Effect.gen(function*() {
    if ((yield* findGit(worktree)) !== undefined) {
      const listed = yield* gitScan(worktree, limits, visit)
      if (listed !== undefined) return listed
    }
    return yield* walkScan(worktree, limits, visit)
  })

/** Lists per call, keeps nothing (the default). */
export const perCall: FileIndexShape = {
  scan: (worktree, limits, visit) => Effect.withSpan(scanOnce(worktree, limits, visit), "FileIndex.scan"),
  invalidate: () => Effect.void
}

/** The default, as a layer. */
export const layerPerCall: Layer.Layer<FileIndex> = Layer.succeed(FileIndex, perCall)

// ---------------------------------------------------------------------------------------------
// Kept between calls

export interface CachedOptions {
  /** Past this age a kept list is served once more and listed again in the background (default 2 s). */
  readonly revalidateAfter?: Duration.DurationInput | undefined
}

interface Kept {
  readonly entries: ReadonlyArray<Entry>
  readonly complete: boolean
  readonly stamp: string
  readonly listedAt: number
  refreshing: boolean
}

/** What moves when the worktree changes in a way a kept list must follow: a stat or two. */
const stampOf = (worktree: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const mtime = (file: string) =>
      fs.stat(file).pipe(
        Effect.map((info) => `${Option.getOrUndefined(info.mtime)?.getTime()}:${info.size}`),
        Effect.orElseSucceed(() => "-")
      )
    const git = yield* findGit(worktree)
    const index = git === undefined ? "" : yield* mtime(path.join(git, "index"))
    return `${yield* mtime(worktree)}|${git ?? ""}|${index}`
  })

/** A file index that keeps each worktree's paths (see the module's description). */
export const makeCached = (options: CachedOptions = {}): FileIndexShape => {
  const revalidateAfter = Duration.toMillis(Duration.decode(options.revalidateAfter ?? Duration.seconds(2)))
  const kept = new Map<string, Kept>()
  const list = (worktree: string, limits: ScanLimits, stamp: string) =>
    Effect.gen(function*() {
      const entries: Array<Entry> = []
      const scanned = yield* scanOnce(worktree, limits, (entry) => entries.push(entry))
      const listedAt = yield* Clock.currentTimeMillis
      const fresh: Kept = { entries, complete: scanned.complete, stamp, listedAt, refreshing: false }
      kept.set(worktree, fresh)
      return fresh
    })
  return {
    scan: (worktree, limits, visit) =>
      Effect.gen(function*() {
        const stamp = yield* stampOf(worktree)
        let current = kept.get(worktree)
        if (current === undefined || current.stamp !== stamp) {
          current = yield* list(worktree, limits, stamp)
        } else if (!current.refreshing && (yield* Clock.currentTimeMillis) - current.listedAt >= revalidateAfter) {
          current.refreshing = true
          const stale = current
          yield* list(worktree, limits, stamp).pipe(
            Effect.ensuring(Effect.sync(() => {
              stale.refreshing = false
            })),
            Effect.forkDaemon
          )
        }
        for (const entry of current.entries) visit(entry)
        return { complete: current.complete, source: "cache" } satisfies Scanned
      }).pipe(Effect.withSpan("FileIndex.scan")),
    invalidate: (worktree) =>
      Effect.sync(() => {
        if (worktree === undefined) kept.clear()
        else kept.delete(worktree)
      })
  }
}

/** A file index kept between calls, for a long-lived host. */
export const layerCached = (options: CachedOptions = {}): Layer.Layer<FileIndex> =>
  Layer.sync(FileIndex, () => makeCached(options))
