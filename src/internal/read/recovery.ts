/**
 * A path that does not exist: recover the one entry it plainly meant, or fail with suggestions
 * — offered only from directories the session may read, never a path a rule denies.
 *
 * In order:
 * 1. look-alikes: the same path but for Unicode normalisation, odd spaces or curly quotes; a
 *    missing directory on the way that is a near miss (`scr/` for `src/`, `Src/`) is recovered
 *    one level at a time, up to three ways, for suggestions only;
 * 2. a unique suffix match in the workspace: `nested/unique.txt` finds `a/nested/unique.txt`
 *    (the paths come from the `FileIndex`: git's list in a git work tree, else a walk that
 *    honours `.gitignore`, prunes `.git`/`node_modules`/… and never enters symlinked
 *    directories, bounded by `RecoveryLimits`); it is read with a note saying so;
 * 3. `FileNotFound` with suggestions: near names in the same directory first (case, another
 *    extension, a typo, containment), then other suffix matches, then workspace entries with
 *    the same or a near base name.
 *
 * A directory is listed, and a name offered, only as a read of it would be allowed: on its real
 * path too, so a link out of the workspace shows nothing of the outside to a session that may
 * not read there.
 *
 * Only what can still match is kept while the workspace is listed, so a miss costs what
 * listing costs, in bounded memory.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { type Entry, FileIndex } from "../../FileIndex.js"
import { RecoveryLimits } from "../../Limits.js"
import { FileNotFound } from "../../ReadError.js"
import { Workspace } from "../../Workspace.js"
import {
  compareNames,
  equivalentEntry,
  foldName,
  MAX_SUGGESTIONS,
  nearEntries,
  resemblanceTo,
  suggestEntries
} from "../core/suggest.js"
import { askRead, checkExternalOf, checkRead, realPathOfNearest, type Target, targetOf } from "./access.js"

export { RecoveryLimits, type RecoveryLimitsShape } from "../../Limits.js"

/**
 * List the workspace into the `FileIndex` now, within the recovery limits, when the index keeps
 * lists (`warm`): a long-lived host forks it at start so that the first miss finds it made.
 */
export const warmFileIndex = Effect.gen(function*() {
  const index = yield* FileIndex
  if (index.warm === undefined) return
  const path = yield* Path.Path
  const workspace = yield* Workspace
  yield* index.warm(path.resolve(workspace.worktree), yield* RecoveryLimits)
}).pipe(Effect.withSpan("FileIndex.warm"))

/** Where a missing path led, and the line to print before the content when it is not obvious. */
export interface Recovered {
  readonly target: Target
  readonly note?: string | undefined
}

/** A backslash before a character a shell would otherwise split or expand on. */
const SHELL_ESCAPE = /\\([ \t()[\]{}'"&;!$#*?<>|~`])/g

/** Shorter base names contain, or are contained in, too many names across a whole workspace. */
const MIN_WORKSPACE_CONTAINED = 6

/** Candidates of one kind kept while listing: the best this many (more only say "not unique"). */
const KEEP = 64

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

const byDepthThenPath = (a: Entry, b: Entry): number => a.depth - b.depth || compareNames(a.relative, b.relative)

/** The best `KEEP` of what is pushed, by `order`, each path once; `seen` counts every distinct path up to a point. */
const keeper = <A extends { readonly entry: Entry }>(order: (a: A, b: A) => number) => {
  let kept: Array<A> = []
  let paths = new Set<string>()
  let dropped = false
  return {
    push: (item: A) => {
      if (paths.has(item.entry.relative)) return
      paths.add(item.entry.relative)
      kept.push(item)
      if (kept.length >= 4 * KEEP) {
        kept = kept.sort(order).slice(0, KEEP)
        paths = new Set(kept.map((k) => k.entry.relative))
        dropped = true
      }
    },
    /** Best first; `more` when some were dropped. */
    done: () => ({ items: kept.sort(order).slice(0, KEEP), more: dropped || kept.length > KEEP })
  }
}

/** How many colons of a missing path are tried, from the last, for a file named before one. */
const MAX_COLONS = 4

export const recoverMissing = Effect.fn("Read.recoverMissing")(function*(target: Target, written?: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const workspace = yield* Workspace
  const limits = yield* RecoveryLimits
  const index = yield* FileIndex
  const worktree = path.resolve(workspace.worktree)
  const name = path.basename(target.absolute)

  // One ask per directory per recovery, whatever the phases: a refusal is not asked again.
  const answers = new Map<string, boolean>()
  /**
   * Whether the session may list a directory, decided on its real path as a read of it would
   * be: a link out of the workspace is listed only where the session may already read (nobody is
   * asked about a directory outside that they did not name), and `read` is asked for both paths.
   */
  const mayList = (dir: string) => {
    const known = answers.get(dir)
    if (known !== undefined) return Effect.succeed(known)
    return Effect.gen(function*() {
      const target = targetOf(path, worktree, dir)
      const real = yield* realPathOfNearest(dir)
      if ((yield* checkExternalOf(target, real)) !== "allow") return false
      return yield* askRead(target, real).pipe(Effect.as(true), Effect.orElseSucceed(() => false))
    }).pipe(Effect.tap((allowed) => Effect.sync(() => answers.set(dir, allowed))))
  }
  // The entries of a directory, only once the session may read it; none when denied or missing.
  const list = (dir: string) =>
    Effect.flatMap(mayList(dir), (allowed) =>
      allowed
        ? fs.readDirectory(dir).pipe(Effect.orElseSucceed((): ReadonlyArray<string> => []))
        : Effect.succeed<ReadonlyArray<string>>([]))
  /** A workspace entry that is there, below directories the session may read. */
  const reachable = (entry: Entry) =>
    Effect.gen(function*() {
      const parts = entry.relative.split("/")
      let dir = worktree
      for (let i = 0; i < parts.length; i++) {
        if (!(yield* mayList(dir))) return false
        dir = path.join(dir, parts[i]!)
      }
      return yield* fs.exists(dir).pipe(Effect.orElseSucceed(() => false))
    })
  const absoluteOf = (entry: Entry) => path.join(worktree, ...entry.relative.split("/"))
  /**
   * Whether a path may be named: no rule denies it (not even as a hint that it exists) and, for
   * an entry of the workspace's list, it is there below directories the session may read.
   */
  const usable = (entry: Entry | undefined, absolute: string) =>
    Effect.gen(function*() {
      if (entry !== undefined && !(yield* reachable(entry))) return false
      return (yield* checkRead(targetOf(path, worktree, absolute))) !== "deny"
    })

  // 0. A shell-escaped path copied from a terminal: `my\ file.txt` is `my file.txt`.
  const unescapedPath = written?.replace(SHELL_ESCAPE, "$1")
  if (unescapedPath !== undefined && unescapedPath !== written) {
    const unescaped = path.resolve(workspace.directory, unescapedPath)
    if (yield* fs.exists(unescaped).pipe(Effect.orElseSucceed(() => false))) {
      return { target: targetOf(path, worktree, unescaped) } satisfies Recovered
    }
  }

  // 2. The workspace, only for paths inside it, listed while the look-alikes are looked for
  // (it needs nothing they find). Only what can still match is kept.
  const inside = target.relative !== target.absolute
  const suffix = written === undefined || !inside ? undefined : suffixOf(path, worktree, written, target)
  const foldedSuffix = suffix === undefined ? undefined : foldName(suffix)
  const foldedBase = foldedSuffix?.slice(foldedSuffix.lastIndexOf("/") + 1)
  const exact = keeper<{ entry: Entry }>((a, b) => byDepthThenPath(a.entry, b.entry))
  const alike = keeper<{ entry: Entry }>((a, b) => byDepthThenPath(a.entry, b.entry))
  type Near = { readonly entry: Entry; readonly rank: number; readonly distance: number }
  const nearest = keeper<Near>((a, b) =>
    a.rank - b.rank || a.distance - b.distance || byDepthThenPath(a.entry, b.entry)
  )
  const resembles = resemblanceTo(name)
  /** Whether a name can make a candidate of any kind below: most of a workspace's names cannot. */
  const suffixBase = suffix?.slice(suffix.lastIndexOf("/") + 1)
  const foldedBaseKey = foldedBase?.toLowerCase()
  const accepts = (entryName: string, folded: string): boolean => {
    if (entryName === name || entryName === suffixBase || folded === foldedBaseKey) return true
    const found = resembles(entryName, folded)
    return found !== undefined &&
      !(found.rank === 3 && Math.min(entryName.length, name.length) < MIN_WORKSPACE_CONTAINED)
  }
  const visit = (entry: Entry) => {
    if (suffix !== undefined) {
      if (endsWithPath(entry.relative, suffix)) return exact.push({ entry })
      if (foldName(entry.name) === foldedBase && endsWithPath(foldName(entry.relative), foldedSuffix!)) {
        return alike.push({ entry })
      }
    }
    // The same name elsewhere (the directories were wrong), or a near one.
    if (entry.name === name) return nearest.push({ entry, rank: 0, distance: 0 })
    const found = resembles(entry.name)
    if (found === undefined) return
    if (found.rank === 3 && Math.min(entry.name.length, name.length) < MIN_WORKSPACE_CONTAINED) return
    nearest.push({ entry, ...found })
  }
  // Every name `accepts` takes is one of these or resembles one: an index that keeps names looks them up.
  const query = { like: suffixBase === undefined || suffixBase === name ? [name] : [name, suffixBase], accepts }
  const scanning = inside ? yield* Effect.fork(index.scan(worktree, limits, visit, query)) : undefined

  // 1. Look-alikes. Missing directories on the way may be look-alikes too (`café/` typed NFC,
  // stored NFD), recovered silently; or near misses (`scr/`), recovered only as suggestions.
  let dir = path.dirname(target.absolute)
  const missing: Array<string> = []
  while (!(yield* fs.exists(dir).pipe(Effect.orElseSucceed(() => false))) && path.dirname(dir) !== dir) {
    missing.unshift(path.basename(dir))
    dir = path.dirname(dir)
  }
  let reached: ReadonlyArray<string> = [dir]
  let exactly = true
  for (const component of missing) {
    const next: Array<string> = []
    for (const from of reached) {
      const entries = yield* list(from)
      const match = equivalentEntry(component, entries)
      const nearDirs = match !== undefined ? [match] : nearEntries(component, entries)
      if (match === undefined) exactly = false
      for (const entry of nearDirs) next.push(path.join(from, entry))
    }
    reached = next.slice(0, MAX_SUGGESTIONS)
  }
  const sameDirectory: Array<string> = []
  const similar: Array<string> = []
  for (const reachedDir of reached) {
    const entries = yield* list(reachedDir)
    if (exactly) {
      // After a recovered directory, the name itself may exist as typed.
      const equivalent = missing.length > 0 && entries.includes(name) ? name : equivalentEntry(name, entries)
      if (equivalent !== undefined) {
        return { target: targetOf(path, worktree, path.join(reachedDir, equivalent)) } satisfies Recovered
      }
    } else if (entries.includes(name)) {
      sameDirectory.push(path.join(reachedDir, name))
      continue
    }
    similar.push(...suggestEntries(name, entries).map((entry) => path.join(reachedDir, entry)))
  }
  sameDirectory.push(...similar)

  // 2. The workspace: the listing started before the look-alikes were looked for (a git
  // child process runs meanwhile), taken now.
  const scanned = scanning === undefined ? { complete: true } : yield* Fiber.join(scanning)
  const exactMatches = exact.done()
  const found = exactMatches.items.length > 0 ? exactMatches : alike.done()
  // Matches that are there, below directories the session may read, that no rule denies: all of
  // them, or at least enough to know whether one is unique and what to suggest.
  const matches: Array<string> = []
  let unchecked = found.more
  for (const [i, match] of found.items.entries()) {
    const absolute = absoluteOf(match.entry)
    if (absolute === target.absolute) continue
    if (matches.length > MAX_SUGGESTIONS) {
      unchecked = unchecked || i < found.items.length
      break
    }
    if (yield* usable(match.entry, absolute)) matches.push(absolute)
  }
  if (matches.length === 1 && !unchecked && scanned.complete) {
    const resolved = targetOf(path, worktree, matches[0]!)
    return {
      target: resolved,
      note: `[Path '${written}' not found; resolved to '${resolved.relative}' via suffix match]`
    } satisfies Recovered
  }

  // 3. Suggestions: a file the path names before a colon (`report.docx:word/document.xml`, a
  // member of what is not read as an archive; `notes.txt:foo`, what is not a selector), the same
  // directory, other suffix matches, then near base names anywhere.
  const beforeColon: Array<string> = []
  let colon = target.absolute.lastIndexOf(":")
  for (let tries = 0; colon > 0 && tries < MAX_COLONS; tries++, colon = target.absolute.lastIndexOf(":", colon - 1)) {
    const before = target.absolute.slice(0, colon)
    // Named only where its directory could be listed, as a same-directory suggestion would be.
    if (
      (yield* mayList(path.dirname(before))) &&
      (yield* fs.stat(before).pipe(Effect.map((info) => info.type === "File"), Effect.orElseSucceed(() => false)))
    ) {
      beforeColon.push(before)
    }
  }
  const suggestions: Array<string> = []
  const named = new Set([target.absolute])
  const candidates = [
    ...[...beforeColon, ...sameDirectory, ...matches].map((absolute) => ({ absolute, entry: undefined })),
    ...nearest.done().items.map(({ entry }) => ({ absolute: absoluteOf(entry), entry }))
  ]
  for (const { absolute, entry } of candidates) {
    if (suggestions.length >= MAX_SUGGESTIONS) break
    if (named.has(absolute)) continue
    named.add(absolute)
    if (yield* usable(entry, absolute)) suggestions.push(absolute)
  }
  return yield* new FileNotFound({ path: target.absolute, suggestions })
})
