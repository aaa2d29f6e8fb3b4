/**
 * A path that does not exist: recover the one entry it plainly meant, or fail with suggestions
 * — listed only from directories the session may read.
 *
 * In order:
 * 1. look-alikes: the same path but for Unicode normalisation, odd spaces or curly quotes;
 * 2. a unique suffix match in the workspace: `nested/unique.txt` finds `a/nested/unique.txt`
 *    (the walk honours `.gitignore`, prunes `.git`/`node_modules`/…, never enters symlinked
 *    directories and is bounded by `RecoveryLimits`); it is read with a note saying so;
 * 3. `FileNotFound` with suggestions: near names in the same directory first, then other
 *    suffix matches, then workspace entries with a near base name.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { Permission } from "../Permission.js"
import { Progress } from "../Progress.js"
import { FileNotFound } from "../ReadError.js"
import { Workspace } from "../Workspace.js"
import { askRead, checkRead, type Target, targetOf } from "./access.js"
import { compareNames, equivalentEntry, foldName, MAX_SUGGESTIONS, resemblance, suggestEntries } from "./suggest.js"
import { extendChain, type IgnoreChain, isIgnored, PRUNED_ALWAYS, statEntries } from "./walk.js"

export interface RecoveryLimitsShape {
  /** How long the workspace walk for a suffix match may take; past it, nothing is resolved. */
  readonly timeout: Duration.DurationInput
  /** Entries the walk may visit; past it, nothing is resolved. */
  readonly maxEntries: number
}

/**
 * The bounds of the workspace walk behind path recovery (default 2 s, 50,000 entries). A walk
 * cut short by either never resolves a path (a match it found might not be unique); its
 * matches are still offered as suggestions. Override with
 * `Effect.provideService(RecoveryLimits, { timeout: "5 seconds", maxEntries: 200_000 })`.
 */
export class RecoveryLimits extends Context.Reference<RecoveryLimits>()("effect-read/RecoveryLimits", {
  defaultValue: (): RecoveryLimitsShape => ({ timeout: Duration.seconds(2), maxEntries: 50_000 })
}) {}

/** Where a missing path led, and the line to print before the content when it is not obvious. */
export interface Recovered {
  readonly target: Target
  readonly note?: string | undefined
}

/** A backslash before a character a shell would otherwise split or expand on. */
const SHELL_ESCAPE = /\\([ \t()[\]{}'"&;!$#*?<>|~`])/g

/** Directories listed at once by the workspace walk, and taken per round. */
const DIRECTORY_CONCURRENCY = 8
const DIRECTORY_BATCH = 64

/** Shorter base names contain, or are contained in, too many names across a whole workspace. */
const MIN_WORKSPACE_CONTAINED = 6

interface Walked {
  /** Relative to the worktree, `/`-separated. */
  readonly relative: string
  readonly absolute: string
  readonly name: string
  readonly depth: number
}

interface WalkResult {
  readonly entries: ReadonlyArray<Walked>
  /** The whole workspace was walked, within the limits. */
  readonly complete: boolean
}

/** The path to look for as a suffix, `/`-separated, or undefined when there is none to try. */
const suffixOf = (path: Path.Path, worktree: string, written: string, target: Target): string | undefined => {
  const relative = path.isAbsolute(written)
    ? target.relative === target.absolute ? undefined : path.relative(worktree, path.normalize(written))
    : path.normalize(written)
  if (relative === undefined) return undefined
  const parts = relative.split(path.sep).join("/").split("/").filter((part) => part !== "" && part !== ".")
  if (parts.length === 0 || parts.includes("..")) return undefined
  return parts.join("/")
}

const endsWithPath = (relative: string, suffix: string): boolean =>
  relative === suffix || relative.endsWith(`/${suffix}`)

/** Entries whose path ends with `suffix`: exact matches, or else matches up to look-alikes. */
const suffixMatches = (entries: ReadonlyArray<Walked>, suffix: string): ReadonlyArray<Walked> => {
  const exact = entries.filter((entry) => endsWithPath(entry.relative, suffix))
  if (exact.length > 0) return exact
  const folded = foldName(suffix)
  const base = folded.slice(folded.lastIndexOf("/") + 1)
  return entries.filter((entry) => foldName(entry.name) === base && endsWithPath(foldName(entry.relative), folded))
}

const byDepthThenPath = (a: Walked, b: Walked): number => a.depth - b.depth || compareNames(a.relative, b.relative)

export const recoverMissing = Effect.fn("Read.recoverMissing")(function*(target: Target, written?: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const workspace = yield* Workspace
  const limits = yield* RecoveryLimits
  const worktree = path.resolve(workspace.worktree)
  const name = path.basename(target.absolute)

  // One ask per directory per recovery, whatever the phases: a refusal is not asked again.
  const answers = new Map<string, boolean>()
  const mayList = (dir: string) => {
    const known = answers.get(dir)
    if (known !== undefined) return Effect.succeed(known)
    return askRead(targetOf(path, worktree, dir)).pipe(
      Effect.as(true),
      Effect.orElseSucceed(() => false),
      Effect.tap((allowed) => Effect.sync(() => answers.set(dir, allowed)))
    )
  }
  // The entries of a directory, only once the session may read it; none when denied or missing.
  const list = (dir: string) =>
    Effect.flatMap(mayList(dir), (allowed) =>
      allowed
        ? fs.readDirectory(dir).pipe(Effect.orElseSucceed((): ReadonlyArray<string> => []))
        : Effect.succeed<ReadonlyArray<string>>([]))

  // 0. A shell-escaped path copied from a terminal: `my\ file.txt` is `my file.txt`.
  const unescapedPath = written?.replace(SHELL_ESCAPE, "$1")
  if (unescapedPath !== undefined && unescapedPath !== written) {
    const unescaped = path.resolve(workspace.directory, unescapedPath)
    if (yield* fs.exists(unescaped).pipe(Effect.orElseSucceed(() => false))) {
      return { target: targetOf(path, worktree, unescaped) } satisfies Recovered
    }
  }

  // 1. Look-alikes. Missing directories on the way may be look-alikes too (`café/` typed NFC, stored NFD).
  let dir = path.dirname(target.absolute)
  const missing: Array<string> = []
  while (!(yield* fs.exists(dir).pipe(Effect.orElseSucceed(() => false))) && path.dirname(dir) !== dir) {
    missing.unshift(path.basename(dir))
    dir = path.dirname(dir)
  }
  let sameDirectory: ReadonlyArray<string> = []
  let reached = true
  for (const component of missing) {
    const match = equivalentEntry(component, yield* list(dir))
    if (match === undefined) {
      reached = false
      break
    }
    dir = path.join(dir, match)
  }
  if (reached) {
    const entries = yield* list(dir)
    // After a recovered directory, the name itself may exist as typed.
    const equivalent = missing.length > 0 && entries.includes(name) ? name : equivalentEntry(name, entries)
    if (equivalent !== undefined) {
      return { target: targetOf(path, worktree, path.join(dir, equivalent)) } satisfies Recovered
    }
    sameDirectory = suggestEntries(name, entries).map((entry) => path.join(dir, entry))
  }

  // 2. The workspace: only for paths inside it.
  const inside = target.relative !== target.absolute
  const walked = inside ? yield* walkWorkspace(worktree, mayList, limits) : { entries: [], complete: true }
  const suffix = written === undefined || !inside ? undefined : suffixOf(path, worktree, written, target)
  const found = suffix === undefined
    ? []
    : suffixMatches(walked.entries, suffix).filter((m) => m.absolute !== target.absolute).sort(byDepthThenPath)
  // A match a rule denies is neither resolved to nor named.
  const matches: Array<Walked> = []
  for (const match of found) {
    if ((yield* checkRead(targetOf(path, worktree, match.absolute))) !== "deny") matches.push(match)
  }
  if (matches.length === 1 && walked.complete) {
    const resolved = targetOf(path, worktree, matches[0]!.absolute)
    return {
      target: resolved,
      note: `[Path '${written}' not found; resolved to '${resolved.relative}' via suffix match]`
    } satisfies Recovered
  }

  // 3. Suggestions: the same directory, other suffix matches, then near base names anywhere.
  const near = walked.entries.flatMap((entry) => {
    const found = resemblance(name, entry.name)
    if (found === undefined) return []
    if (found.rank === 2 && Math.min(entry.name.length, name.length) < MIN_WORKSPACE_CONTAINED) return []
    return [{ entry, ...found }]
  })
  near.sort((a, b) => a.rank - b.rank || a.distance - b.distance || byDepthThenPath(a.entry, b.entry))
  const suggestions: Array<string> = []
  for (const candidate of [...sameDirectory, ...matches.map((m) => m.absolute), ...near.map((n) => n.entry.absolute)]) {
    if (suggestions.length >= MAX_SUGGESTIONS) break
    if (candidate === target.absolute || suggestions.includes(candidate)) continue
    // A path a rule denies is not named, not even as a hint that it exists.
    if ((yield* checkRead(targetOf(path, worktree, candidate))) === "deny") continue
    suggestions.push(candidate)
  }
  return yield* new FileNotFound({ path: target.absolute, suggestions })
})

/**
 * Breadth-first over the worktree, one directory at a time, listing only directories the
 * session may read. Stops at `limits` (the result then says it is incomplete).
 */
const walkWorkspace = (
  worktree: string,
  mayList: (dir: string) => Effect.Effect<boolean, never, Permission | Workspace | FileSystem.FileSystem | Path.Path>,
  limits: RecoveryLimitsShape
) =>
  Effect.gen(function*() {
    const progress = yield* Progress
    const task = `Looking for the missing path in ${worktree}`
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const entries: Array<Walked> = []
    type Pending = { readonly dir: string; readonly relative: string; readonly depth: number; readonly chain: IgnoreChain }
    // List one directory: its entries (sorted, so what a bounded walk reaches does not depend on
    // the OS's order), stat'ed; undefined when the session may not list it.
    const listOne = (next: Pending) =>
      Effect.gen(function*() {
        if (!(yield* mayList(next.dir))) return undefined
        const names = [...yield* fs.readDirectory(next.dir).pipe(Effect.orElseSucceed((): ReadonlyArray<string> => []))]
          .sort(compareNames)
        if (names.length > limits.maxEntries) return { next, count: names.length, chain: next.chain, listed: [] }
        const chain = yield* extendChain(next.chain, next.dir, names)
        const listed = yield* statEntries(next.dir, names.filter((n) => !PRUNED_ALWAYS.has(n)))
        return { next, count: names.length, chain, listed }
      })
    type Listing = Effect.Effect.Success<ReturnType<typeof listOne>>
    const queue: Array<Pending> = [{ dir: worktree, relative: "", depth: 0, chain: [] }]
    let visited = 0
    let overLimit = false
    /** Take one listed directory into the result; false once the entry limit is reached. */
    const take = (result: Listing): boolean => {
      if (result === undefined) return true
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
        entries.push({ relative, absolute: entry.absolute, name: entry.name, depth: next.depth + 1 })
        if (isDirectory && !entry.link) queue.push({ dir: entry.absolute, relative, depth: next.depth + 1, chain })
      }
      return true
    }
    // The batch being listed: on a timeout, the directories it finished still count.
    let inFlight: Array<{ result: Listing; done: boolean }> = []
    const walk = Effect.gen(function*() {
      while (queue.length > 0) {
        // Directories are listed a batch at a time, concurrently, and taken in breadth-first order.
        const batch = queue.splice(0, DIRECTORY_BATCH)
        inFlight = batch.map(() => ({ result: undefined, done: false }))
        const slots = inFlight
        yield* Effect.forEach(
          batch,
          (pending, i) =>
            Effect.map(listOne(pending), (result) => {
              slots[i] = { result, done: true }
            }),
          { concurrency: DIRECTORY_CONCURRENCY, discard: true }
        )
        inFlight = []
        for (const slot of slots) if (!take(slot.result)) return
      }
    })
    const finished = yield* walk.pipe(Effect.timeoutOption(limits.timeout))
    if (Option.isNone(finished)) {
      for (const slot of inFlight) if (slot.done && !take(slot.result)) break
    }
    const complete = Option.isSome(finished) && !overLimit && queue.length === 0
    return { entries, complete } satisfies WalkResult
  })
