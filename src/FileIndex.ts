/**
 * Where path recovery finds the paths of a workspace: the files and directories a developer
 * sees (`.gitignore` honoured, `.git`/`node_modules`/… pruned, symlinked directories never
 * entered), handed to a visitor one at a time so that the caller keeps only what can match. A
 * caller that decides by the name alone says so (`accepts`): only entries whose name it accepts
 * are built and visited, and the name is asked about once, not once per entry bearing it.
 *
 * - `perCall` (the default): each recovery lists anew and keeps nothing. In a git work tree the
 *   paths come from `git ls-files` (streamed; tens of milliseconds for tens of thousands of
 *   files); elsewhere, or when git is missing or fails, from a breadth-first walk.
 * - `layerCached()`: a long-lived host (the MCP server, an agent server) keeps each worktree's
 *   paths in memory, grouped by name with each name folded once, so a later miss asks about
 *   each distinct name once and costs milliseconds (`warm` lists it ahead of the first miss).
 *   Before each use it compares a cheap stamp — the worktree's own mtime and, in git, the index
 *   file's mtime and size — and lists again when it moved; past `revalidateAfter` it serves
 *   what it has and compares the mtimes of every directory it saw in the background, listing
 *   again only when one moved, so files created deep in the tree since are found by the next
 *   miss. A timestamp within `RACY_MARGIN_MS` of the listing's start proves nothing (git's
 *   "racily clean" rule: a change in the same clock tick leaves it as it was), so such a list
 *   is made again at its next use. Recovery checks every path it offers against the disk, so
 *   a removed file is never offered.
 *
 * Permissions are not the index's business: recovery asks about the directories leading to
 * each match, and about each path it offers, before naming any.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { Dirent } from "node:fs"
import * as fsp from "node:fs/promises"
import { foldKey, namesLike, type NameTable, nameTable } from "./internal/core/suggest.js"
import { isNodeFileSystem } from "./internal/io/nodeFileSystem.js"
import { listGitFiles } from "./internal/read/gitFiles.js"
import {
  extendChain,
  type IgnoreChain,
  ignoreLevel,
  isIgnored,
  PRUNED_ALWAYS,
  statEntries
} from "./internal/read/walk.js"
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

/**
 * Whether entries named `name` are wanted, decided by the name alone; `folded` is its
 * `foldKey` (folded, lower-cased: what names are compared by), computed by the index.
 */
export type NameFilter = (name: string, folded: string) => boolean

/**
 * A filter that says what it may accept: only names equal to one of `like` but for case and
 * look-alikes, or resembling one (`resemblanceTo`). An index that keeps names looks those up
 * (`namesLike`) and asks `accepts` of them alone; one that lists asks it of every name.
 */
export interface NameQuery {
  readonly like: ReadonlyArray<string>
  readonly accepts: NameFilter
}

const filterOf = (wanted: NameFilter | NameQuery | undefined): NameFilter | undefined =>
  typeof wanted === "object" ? wanted.accepts : wanted

export interface FileIndexShape {
  /**
   * Call `visit` with each entry of `worktree` (an absolute path) whose name `accepts` accepts
   * (every entry without it), in no particular order; an entry may come twice. Never fails:
   * what cannot be listed is left out (and the result is then incomplete when it matters).
   */
  readonly scan: (
    worktree: string,
    limits: ScanLimits,
    visit: (entry: Entry) => void,
    accepts?: NameFilter | NameQuery
  ) => Effect.Effect<Scanned, never, FileSystem.FileSystem | Path.Path>
  /**
   * List `worktree` now, so that the first miss finds the list made (a long-lived host calls it
   * at start, in the background). An index that keeps nothing has no use for it.
   */
  readonly warm?: (
    worktree: string,
    limits: ScanLimits
  ) => Effect.Effect<void, never, FileSystem.FileSystem | Path.Path>
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

/** Names whose answer a listing remembers: names repeat (`index.js`), and asking costs more than a lookup. */
const REMEMBERED_NAMES = 16_384

/** `accepts`, asked once per distinct name (remembering a bounded number of answers). */
const askOnce = (wanted: NameFilter | NameQuery | undefined): (name: string) => boolean => {
  const accepts = filterOf(wanted)
  if (accepts === undefined) return () => true
  let known = new Map<string, boolean>()
  return (name) => {
    let answer = known.get(name)
    if (answer === undefined) {
      answer = accepts(name, foldKey(name))
      if (known.size >= REMEMBERED_NAMES) known = new Map()
      known.set(name, answer)
    }
    return answer
  }
}

/**
 * Paths from `git ls-files`: files, and the directories on their way (each once per run of
 * paths sharing it: git lists paths sorted). The index's paths and the untracked ones come from
 * two runs of git at once: the index's are taken while git still walks the work tree for the
 * others. Undefined when git failed or listed nothing (a worktree inside an ignored directory):
 * then the caller walks. Only the names `wanted` accepts become entries.
 */
const gitScan = (
  worktree: string,
  limits: ScanLimits,
  visit: (entry: Entry) => void,
  wanted: (name: string) => boolean
) =>
  Effect.gen(function*() {
    let count = 0
    let overLimit = false
    const take = () => {
      // The previous path's directory, and its components: paths in a row share them.
      let previousDir: string | undefined
      let previous: ReadonlyArray<string> = []
      let pruned = false
      return (line: string): boolean => {
        if (++count > limits.maxEntries) {
          overLimit = true
          return false
        }
        const slash = line.lastIndexOf("/")
        if (slash === -1 ? previousDir !== "" : slash !== previousDir?.length || !line.startsWith(previousDir)) {
          const dir = slash === -1 ? "" : line.slice(0, slash)
          const parts = dir === "" ? [] : dir.split("/")
          // Where the previous path's directories stop being this one's.
          let shared = 0
          while (shared < parts.length && shared < previous.length && parts[shared] === previous[shared]) shared++
          pruned = false
          for (let i = 0; i < parts.length; i++) {
            const name = parts[i]!
            if (PRUNED_ALWAYS.has(name)) {
              pruned = true
              break
            }
            if (i >= shared && wanted(name)) visit({ relative: parts.slice(0, i + 1).join("/"), name, depth: i + 1 })
          }
          previousDir = dir
          previous = parts
        }
        if (pruned) return true
        const name = slash === -1 ? line : line.slice(slash + 1)
        if (!PRUNED_ALWAYS.has(name) && wanted(name)) visit({ relative: line, name, depth: previous.length + 1 })
        return true
      }
    }
    const listed = yield* Effect.all([
      listGitFiles(worktree, "cached", take()),
      listGitFiles(worktree, "others", take())
    ], {
      concurrency: 2
    }).pipe(Effect.timeoutOption(limits.timeout))
    if (Option.isNone(listed)) return { complete: false, source: "git" } satisfies Scanned
    const [cached, others] = listed.value
    if (cached._tag === "Failed" || others._tag === "Failed") return undefined
    if (cached.count + others.count === 0 && !overLimit) return undefined
    return { complete: !overLimit && !cached.stopped && !others.stopped, source: "git" } satisfies Scanned
  })

/** Directories listed at once by the walk, and taken per round. */
const DIRECTORY_CONCURRENCY = 8
const DIRECTORY_BATCH = 64

/** A directory the walk has still to list. */
interface Pending {
  readonly dir: string
  readonly relative: string
  readonly depth: number
  readonly chain: IgnoreChain
}

/** Code-unit order: cheap, and the same on every OS (what a bounded walk reaches must not depend on readdir's order). */
const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

/**
 * Breadth-first over the worktree, one batch of directories at a time, entries sorted (so what
 * a bounded walk reaches does not depend on the OS's order). Holds the directories still to
 * list, never the names already handed to `visit`. On Node's own filesystem it runs on
 * `readdir`'s entry types (`walkNode`); any other FileSystem (in memory, fault-injecting,
 * wrapped by a host or a test) is walked through the service, a `stat` per entry.
 */
const walkScan = (
  worktree: string,
  limits: ScanLimits,
  visit: (entry: Entry) => void,
  wanted: (name: string) => boolean
) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    if (isNodeFileSystem(fs)) return yield* walkNode(worktree, limits, visit, wanted)
    const progress = yield* Progress
    const task = `Looking for the missing path in ${worktree}`
    const path = yield* Path.Path
    const listOne = (next: Pending) =>
      Effect.gen(function*() {
        const names = [...yield* fs.readDirectory(next.dir).pipe(Effect.orElseSucceed((): ReadonlyArray<string> => []))]
          .sort(byCodeUnits)
        if (names.length > limits.maxEntries) return { next, count: names.length, chain: next.chain, listed: [] }
        const chain = yield* extendChain(next.chain, next.dir, names)
        const listed = yield* statEntries(next.dir, names.filter((n) => !PRUNED_ALWAYS.has(n)))
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
        if (entry.info === undefined) continue
        const isDirectory = entry.info.type === "Directory"
        if (isIgnored(path, chain, entry.absolute, isDirectory)) continue
        const relative = next.relative === "" ? entry.name : `${next.relative}/${entry.name}`
        if (wanted(entry.name)) visit({ relative, name: entry.name, depth: next.depth + 1 })
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

/**
 * The walk on Node's own filesystem: the same rules as `walkScan`, in plain code over
 * `readdir`'s entry types (a `stat` only for symlinks), so that a walk of tens of thousands of
 * entries allocates little more than the names it lists: nothing is kept but the directories
 * still to list, and an entry object only for a name `wanted` accepts. Directories are listed a
 * batch at a time, each batch taken in order as soon as it is listed; interrupting (the time
 * budget) stops it between batches, what was taken still counts.
 */
const walkNode = (
  worktree: string,
  limits: ScanLimits,
  visit: (entry: Entry) => void,
  wanted: (name: string) => boolean
) =>
  Effect.gen(function*() {
    const progress = yield* Progress
    const path = yield* Path.Path
    const task = `Looking for the missing path in ${worktree}`
    const queue: Array<Pending> = [{ dir: worktree, relative: "", depth: 0, chain: [] }]
    let visited = 0
    let overLimit = false
    let stopped = false
    const take = async (next: Pending, dirents: ReadonlyArray<Dirent>): Promise<boolean> => {
      if (visited + dirents.length > limits.maxEntries) {
        overLimit = true
        return false
      }
      visited += dirents.length
      progress.report({ task, done: visited, unit: "entries" })
      const sorted = [...dirents].sort((a, b) => byCodeUnits(a.name, b.name))
      let chain = next.chain
      if (sorted.some((dirent) => dirent.name === ".gitignore")) {
        const text = await fsp.readFile(path.join(next.dir, ".gitignore"), "utf8").catch(() => undefined)
        const level = ignoreLevel(next.dir, text)
        if (level !== undefined) chain = [...chain, level]
      }
      for (const dirent of sorted) {
        // Interrupted while awaiting a link's stat: nothing more is visited.
        if (stopped) return false
        const name = dirent.name
        if (PRUNED_ALWAYS.has(name)) continue
        let directory = dirent.isDirectory()
        let link = false
        if (dirent.isSymbolicLink()) {
          // A link to a directory is listed, never entered; a dangling one leads nowhere.
          const info = await fsp.stat(path.join(next.dir, name)).catch(() => undefined)
          if (info === undefined) continue
          directory = info.isDirectory()
          link = directory
        }
        if (chain.length > 0 && isIgnored(path, chain, path.join(next.dir, name), directory)) continue
        const relative = next.relative === "" ? name : `${next.relative}/${name}`
        if (wanted(name)) visit({ relative, name, depth: next.depth + 1 })
        if (directory && !link) queue.push({ dir: path.join(next.dir, name), relative, depth: next.depth + 1, chain })
      }
      return true
    }
    const run = async (): Promise<boolean> => {
      while (queue.length > 0) {
        const batch = queue.splice(0, DIRECTORY_BATCH)
        const listed = await Promise.all(
          batch.map((next) => fsp.readdir(next.dir, { withFileTypes: true }).catch((): Array<Dirent> => []))
        )
        for (let i = 0; i < batch.length; i++) {
          if (stopped || !(await take(batch[i]!, listed[i]!))) return false
        }
      }
      return true
    }
    const finished = yield* Effect.async<boolean>((resume) => {
      run().then((done) => resume(Effect.succeed(done)), () => resume(Effect.succeed(false)))
      return Effect.sync(() => {
        stopped = true
      })
    }).pipe(Effect.timeoutOption(limits.timeout))
    return { complete: Option.getOrElse(finished, () => false) && !overLimit, source: "walk" } satisfies Scanned
  })

/** List `worktree` once: from git in a git work tree, else (or when git fails) by walking. */
const scanOnce = (
  worktree: string,
  limits: ScanLimits,
  visit: (entry: Entry) => void,
  wanted: (name: string) => boolean
) =>
  Effect.gen(function*() {
    if ((yield* findGit(worktree)) !== undefined) {
      const listed = yield* gitScan(worktree, limits, visit, wanted)
      if (listed !== undefined) return listed
    }
    return yield* walkScan(worktree, limits, visit, wanted)
  })

/** Lists per call, keeps nothing (the default). */
export const perCall: FileIndexShape = {
  scan: (worktree, limits, visit, accepts) =>
    Effect.withSpan(scanOnce(worktree, limits, visit, askOnce(accepts)), "FileIndex.scan"),
  invalidate: () => Effect.void
}

/** The default, as a layer. */
export const layerPerCall: Layer.Layer<FileIndex> = Layer.succeed(FileIndex, perCall)

// ---------------------------------------------------------------------------------------------
// Kept between calls

export interface CachedOptions {
  /**
   * Past this age a kept list is served once more while the mtimes of its directories are
   * compared in the background; it is listed again only when one moved (default 2 s).
   */
  readonly revalidateAfter?: Duration.DurationInput | undefined
}

/**
 * How far back from a listing's start a timestamp proves nothing (git's "racily clean"): a
 * file added in the clock tick of the listing leaves its directory's mtime where the listing
 * saw it. Filesystems stamp with a coarse clock (a kernel tick; 2 s on FAT), so 2 s is safe.
 */
export const RACY_MARGIN_MS = 2_000

/** An mtime of the worktree, its directories or git's index; `undefined` when it could not be stat'ed. */
type Mtime = number | undefined

/** The cheap stamp compared before each use: the worktree's own mtime, and git's index (mtime, size). */
interface Stamp {
  readonly key: string
  /** The newest mtime in it, for the racy rule. */
  readonly newest: number
}

/** One worktree's list: distinct names, their folded keys, the entries bearing each (parallel arrays). */
interface Snapshot {
  readonly names: ReadonlyArray<string>
  readonly folded: ReadonlyArray<string>
  /** `folded` arranged for lookups (`NameQuery`). */
  readonly table: NameTable
  readonly entries: ReadonlyArray<ReadonlyArray<Entry>>
  readonly complete: boolean
  /** The `.git` found when listed (undefined outside git): the stamp stats its index. */
  readonly git: string | undefined
  readonly stamp: Stamp
  /** The directories seen, as absolute paths (the worktree first), and their mtimes when listed. */
  readonly dirs: ReadonlyArray<string>
  readonly mtimes: ReadonlyArray<Mtime>
  /** Some timestamp was within `RACY_MARGIN_MS` of the listing's start: the next use lists again. */
  readonly racy: boolean
  readonly listedAt: number
}

interface Kept {
  current: Snapshot | undefined
  /** The listing under way, which every scan that needs a list awaits instead of listing too. */
  listing: Deferred.Deferred<Snapshot> | undefined
  /** A background check of the directories' mtimes is under way. */
  checking: boolean
}

/** How long a background check of a kept list's directories waits before it starts. */
const CHECK_DELAY_MS = 50

/** Stats in flight when stamping every directory of a kept list. */
const STAT_BATCH = 64

/** The mtimes of `paths` (absolute), in order: on Node's filesystem directly, else through the service. */
const mtimesOf = (paths: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    if (isNodeFileSystem(fs)) {
      return yield* Effect.promise(async () => {
        const out: Array<Mtime> = []
        for (let i = 0; i < paths.length; i += STAT_BATCH) {
          const batch = await Promise.all(
            paths.slice(i, i + STAT_BATCH).map((p) => fsp.stat(p).then((info) => info.mtimeMs, () => undefined))
          )
          out.push(...batch)
        }
        return out
      })
    }
    return yield* Effect.forEach(
      paths,
      (p) =>
        fs.stat(p).pipe(
          Effect.map((info) => Option.getOrUndefined(info.mtime)?.getTime()),
          Effect.orElseSucceed(() => undefined)
        ),
      { concurrency: STAT_BATCH }
    )
  })

/**
 * The stamp: a stat or two. A directory's size says nothing (it differs by filesystem), so the
 * worktree gives its mtime only; git's index gives mtime and size, as git compares it.
 */
const stampOf = (worktree: string, git: string | undefined) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const stat = (file: string) =>
      fs.stat(file).pipe(
        Effect.map((info) => ({ mtime: Option.getOrUndefined(info.mtime)?.getTime(), size: Number(info.size) })),
        Effect.orElseSucceed(() => undefined)
      )
    const [top, index] = yield* Effect.all(
      [stat(worktree), git === undefined ? Effect.succeed(undefined) : stat(path.join(git, "index"))],
      { concurrency: 2 }
    )
    return {
      key: `${top?.mtime ?? "-"}|${git ?? ""}|${index === undefined ? "-" : `${index.mtime}:${index.size}`}`,
      newest: Math.max(top?.mtime ?? -Infinity, index?.mtime ?? -Infinity)
    } satisfies Stamp
  })

/** A file index that keeps each worktree's paths (see the module's description). */
export const makeCached = (options: CachedOptions = {}): FileIndexShape => {
  const revalidateAfter = Duration.toMillis(Duration.decode(options.revalidateAfter ?? Duration.seconds(2)))
  const kept = new Map<string, Kept>()
  const keptFor = (worktree: string): Kept => {
    let k = kept.get(worktree)
    if (k === undefined) kept.set(worktree, k = { current: undefined, listing: undefined, checking: false })
    return k
  }
  const absolutes = (path: Path.Path, worktree: string, dirs: ReadonlyArray<string>) =>
    dirs.map((dir) => dir === "" ? worktree : path.join(worktree, ...dir.split("/")))

  /** List `worktree` whole and stamp it. */
  const listOnce = (worktree: string, limits: ScanLimits) =>
    Effect.gen(function*() {
      const path = yield* Path.Path
      // The filesystem's clock, not the program's (a test clock must not make every stamp racy).
      const started = Date.now()
      const git = yield* findGit(worktree)
      const stamp = yield* stampOf(worktree, git)
      const byName = new Map<string, Array<Entry>>()
      const dirs = new Set<string>([""])
      const scanned = yield* scanOnce(worktree, limits, (entry) => {
        const entries = byName.get(entry.name)
        if (entries === undefined) byName.set(entry.name, [entry])
        // git lists a directory once per run of its paths; listed twice, it is kept once.
        else if (entries.at(-1)!.relative !== entry.relative) entries.push(entry)
        const slash = entry.relative.lastIndexOf("/")
        if (slash !== -1) dirs.add(entry.relative.slice(0, slash))
      }, () => true)
      const dirList = absolutes(path, worktree, [...dirs])
      const mtimes = yield* mtimesOf(dirList)
      const threshold = started - RACY_MARGIN_MS
      const names = [...byName.keys()]
      const folded = names.map(foldKey)
      return {
        names,
        folded,
        table: nameTable(folded),
        entries: [...byName.values()],
        complete: scanned.complete,
        git,
        stamp,
        dirs: dirList,
        mtimes,
        racy: stamp.newest >= threshold || mtimes.some((mtime) => mtime !== undefined && mtime >= threshold),
        listedAt: yield* Clock.currentTimeMillis
      } satisfies Snapshot
    })

  /**
   * The list of `worktree` made now, or by the listing already under way. The listing runs on
   * its own fiber: a scan interrupted while waiting leaves it to finish for the next one.
   */
  const relist = (worktree: string, limits: ScanLimits) =>
    Effect.gen(function*() {
      const k = keptFor(worktree)
      if (k.listing !== undefined) return yield* Deferred.await(k.listing)
      const listing = yield* Deferred.make<Snapshot>()
      k.listing = listing
      yield* listOnce(worktree, limits).pipe(
        Effect.tap((snapshot) =>
          Effect.sync(() => {
            if (kept.get(worktree) === k) k.current = snapshot
          })
        ),
        Effect.exit,
        Effect.flatMap((exit) =>
          Effect.sync(() => {
            if (k.listing === listing) k.listing = undefined
          }).pipe(Effect.zipRight(Deferred.done(listing, exit)))
        ),
        Effect.forkDaemon
      )
      return yield* Deferred.await(listing)
    })

  /**
   * In the background: stat every directory kept; list again only when one moved. It waits a
   * moment first (the wall clock's, like the stamps: a test clock must not hold it), so that
   * the scan that started it answers before a few thousand stats share its thread.
   */
  const check = (worktree: string, k: Kept, snapshot: Snapshot, limits: ScanLimits) =>
    Effect.gen(function*() {
      yield* Effect.async<void>((resume) => {
        const timer = setTimeout(() => resume(Effect.void), CHECK_DELAY_MS)
        return Effect.sync(() => clearTimeout(timer))
      })
      const mtimes = yield* mtimesOf(snapshot.dirs)
      if (mtimes.some((mtime, i) => mtime !== snapshot.mtimes[i])) yield* relist(worktree, limits)
      else if (k.current === snapshot) k.current = { ...snapshot, listedAt: yield* Clock.currentTimeMillis }
    }).pipe(
      Effect.ensuring(Effect.sync(() => {
        k.checking = false
      }))
    )

  /** A list of `worktree` to serve now: the kept one while its stamp holds, else a new one. */
  const current = (worktree: string, limits: ScanLimits) =>
    Effect.gen(function*() {
      const k = keptFor(worktree)
      const snapshot = k.current
      if (snapshot === undefined || snapshot.racy) return yield* relist(worktree, limits)
      const stamp = yield* stampOf(worktree, snapshot.git)
      if (stamp.key !== snapshot.stamp.key) return yield* relist(worktree, limits)
      if (
        !k.checking && k.listing === undefined &&
        (yield* Clock.currentTimeMillis) - snapshot.listedAt >= revalidateAfter
      ) {
        k.checking = true
        yield* Effect.forkDaemon(check(worktree, k, snapshot, limits))
      }
      return snapshot
    })

  return {
    scan: (worktree, limits, visit, wanted) =>
      Effect.gen(function*() {
        const snapshot = yield* current(worktree, limits)
        const { entries, folded, names, table } = snapshot
        const accepts = filterOf(wanted)
        const take = (i: number) => {
          if (accepts !== undefined && !accepts(names[i]!, folded[i]!)) return
          for (const entry of entries[i]!) visit(entry)
        }
        if (typeof wanted === "object") {
          const candidates = new Set<number>()
          for (const like of wanted.like) for (const i of namesLike(table, like)) candidates.add(i)
          for (const i of candidates) take(i)
        } else {
          for (let i = 0; i < names.length; i++) take(i)
        }
        return { complete: snapshot.complete, source: "cache" } satisfies Scanned
      }).pipe(Effect.withSpan("FileIndex.scan")),
    warm: (worktree, limits) => Effect.asVoid(current(worktree, limits)),
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
