/**
 * Directory listings: the flat opencode listing (names sorted case-insensitively, `/` after
 * directories and links to them, paged by `offset`/`limit` like lines), and the tree view
 * (two levels with sizes and ages, `.gitignore` honoured, dependency/VCS/build output pruned).
 */
import type { File } from "@effect/platform/FileSystem"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { PageLimits } from "../../Limits.js"
import { OffsetOutOfRange } from "../../ReadError.js"
import { Workspace } from "../../Workspace.js"
import { entriesWithin, FOOTER_RESERVE, header, PREVIEW_LINES, renderDirectory, renderTree } from "../core/render.js"
import { firstInOrder } from "../core/select.js"
import { compareNames } from "../core/suggest.js"
import { renderTreeLines, type TreeEntry, treeSummary } from "../core/tree.js"
import { isNodeFileSystem, listKinds } from "../io/nodeFileSystem.js"
import { fromPlatformError } from "../io/platformError.js"
import { askRead, type Target, targetOf } from "./access.js"
import { confirmDirectory } from "./open.js"
import {
  ancestorChain,
  extendChain,
  type IgnoreChain,
  isIgnored,
  type Listed,
  PRUNED_FILES,
  PRUNED_IN_TREE,
  statEntries
} from "./walk.js"

/** Stats in flight while marking sub-directories. */
const STAT_CONCURRENCY = 32
/** Sub-directories listed at once for a tree. */
const TREE_CONCURRENCY = 8
/** Names a tree lists in all before it stops listing sub-directories. */
export const MAX_TREE_ENTRIES = 100_000

interface Listing {
  readonly offset?: number | undefined
  readonly limit?: number | undefined
}

const directoryFacts = (info: File.Info) => ({
  size: Number(info.size),
  ...Option.match(info.mtime, { onNone: () => ({}), onSome: (mtime) => ({ mtime: mtime.getTime() }) })
})

/**
 * The listing's order over indices of `names` (`directory[i]`: shown as `name/`): case-insensitive,
 * ties by the exact listed name — `compareNames` of the listed names, each lower-cased once.
 */
const listingOrder = (names: ReadonlyArray<string>, directory: Uint8Array) => {
  const listed = (i: number) => directory[i] === 1 ? `${names[i]}/` : names[i]!
  const keys = names.map((name, i) => directory[i] === 1 ? `${name.toLowerCase()}/` : name.toLowerCase())
  return (a: number, b: number): number => {
    const ka = keys[a]!
    const kb = keys[b]!
    if (ka !== kb) return ka < kb ? -1 : 1
    const la = listed(a)
    const lb = listed(b)
    return la < lb ? -1 : la > lb ? 1 : 0
  }
}

/**
 * `names` in listing order (case-insensitive, ties by exact name), each known directory as
 * `name/`: the order `compareNames` gives the listed entries, keys lower-cased once.
 */
const sortListing = (names: ReadonlyArray<string>, directories: ReadonlyMap<string, boolean>): Array<string> => {
  const directory = Uint8Array.from(names, (name) => directories.get(name) === true ? 1 : 0)
  return Array.from(names.keys()).sort(listingOrder(names, directory)).map((i) => names[i]!)
}

/**
 * The names, in bare-name order, whose place in the listing depends on whether they are
 * directories. A `/` moves a name only against names it is a prefix of, ignoring case
 * (`a.txt` sorts before `a/` but after `a`; `Foo/` and `foo` swap), and those sort right
 * after it; comparisons with any other name are decided before either name ends.
 */
export const needsKind = (sorted: ReadonlyArray<string>): Array<string> => {
  const marked = new Set<string>()
  for (let i = 0; i + 1 < sorted.length; i++) {
    const here = sorted[i]!.toLowerCase()
    const next = sorted[i + 1]!.toLowerCase()
    if (next.startsWith(here)) {
      marked.add(sorted[i]!)
      if (next.length === here.length) marked.add(sorted[i + 1]!)
    }
  }
  return [...marked]
}

export const readDirectory = Effect.fn("Read.directory")(function*(
  target: Target,
  info: File.Info,
  params: Listing,
  note?: string
) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  // On Node's filesystem the entries say which are directories: no stat but for links.
  const typed = isNodeFileSystem(fs) ? yield* listKinds(target.absolute) : undefined
  const names = typed !== undefined ? typed.names : yield* fs.readDirectory(target.absolute).pipe(
    Effect.mapError((error) => fromPlatformError(target.absolute, error))
  )
  yield* confirmDirectory(target)
  // stat follows links, so a link to a directory is listed as one; a dangling link is a name.
  const isDirectory = (name: string) =>
    fs.stat(path.join(target.absolute, name)).pipe(
      Effect.map((entry) => entry.type === "Directory"),
      Effect.orElseSucceed(() => false)
    )
  const caps = yield* PageLimits
  const offset = Math.max(1, params.offset ?? 1)
  const limit = params.limit ?? caps.directoryEntries
  const total = names.length
  if (offset > total && !(total === 0 && offset === 1)) {
    return yield* new OffsetOutOfRange({ path: target.absolute, offset, totalLines: total, unit: "entries" })
  }
  const known = new Map<string, boolean>()
  let page: ReadonlyArray<string>
  if (typed !== undefined) {
    // Every kind known before the order (a link's is its target's): the page's names are picked
    // out of the rest without sorting them all.
    const directory = Uint8Array.from(typed.kinds, (kind) => kind === 1 ? 1 : 0)
    const links = names.filter((_, i) => typed.kinds[i] === 2)
    const linked = yield* Effect.forEach(links, isDirectory, { concurrency: STAT_CONCURRENCY })
    const linkAt = new Map(links.map((name, i) => [name, linked[i]!] as const))
    names.forEach((name, i) => {
      if (typed.kinds[i] === 2 && linkAt.get(name) === true) directory[i] = 1
    })
    const order = listingOrder(names, directory)
    const first = firstInOrder(Array.from(names.keys()), offset - 1 + limit, order).slice(offset - 1)
    page = first.map((i) => names[i]!)
    first.forEach((i) => known.set(names[i]!, directory[i] === 1))
  } else {
    // Only the names whose place depends on their `/` are stat-ed before sorting; the rest are
    // stat-ed once they are on the page (a 100,000-entry directory: 2,000 stats, not 100,000).
    let sorted = sortListing(names, known)
    const undecided = needsKind(sorted)
    if (undecided.length > 0) {
      const kinds = yield* Effect.forEach(undecided, isDirectory, { concurrency: STAT_CONCURRENCY })
      undecided.forEach((name, i) => known.set(name, kinds[i]!))
      sorted = sortListing(names, known)
    }
    page = sorted.slice(offset - 1, offset - 1 + limit)
  }
  const listed = yield* Effect.forEach(
    page,
    (name) => {
      const kind = known.get(name)
      return Effect.map(
        kind === undefined ? isDirectory(name) : Effect.succeed(kind),
        (directory) => directory ? `${name}/` : name
      )
    },
    { concurrency: STAT_CONCURRENCY }
  )
  // Whole entries up to the byte cap: /usr/share/man/man1's first 2,000 names are 90 KB.
  const fixed = new TextEncoder().encode(
    renderDirectory(target.absolute, { shown: [], offset, total, maxBytes: caps.bytes }, note)
  ).length
  const shown = listed.slice(0, entriesWithin(listed, fixed, caps.bytes))
  const capped = shown.length < listed.length
  const last = offset - 1 + shown.length
  const more = last < total
  return {
    title: target.relative,
    output: renderDirectory(target.absolute, { shown, offset, total, capped, maxBytes: caps.bytes }, note),
    metadata: {
      kind: "directory" as const,
      path: target.absolute,
      preview: shown.slice(0, PREVIEW_LINES).join("\n"),
      truncated: more,
      ...(shown.length > 0 ? { startLine: offset, endLine: last } : {}),
      totalLines: total,
      ...(more ? { nextOffset: last + 1 } : {}),
      ...directoryFacts(info)
    }
  }
})

const toTreeEntry = (entry: Listed, children?: ReadonlyArray<TreeEntry>): TreeEntry => ({
  name: entry.name,
  directory: entry.info?.type === "Directory",
  size: entry.info === undefined || entry.info.type === "Directory" ? undefined : Number(entry.info.size),
  mtime: entry.info === undefined ? undefined : Option.getOrUndefined(Option.map(entry.info.mtime, (d) => d.getTime())),
  ...(children === undefined ? {} : { children })
})

/**
 * The directory as a tree: its entries (uncapped) and theirs (at most 12 per directory),
 * newest first. Sub-directories are listed only when the session may read them; symlinked
 * directories are shown, never entered. Ages are relative to the `Clock` (inject a fixed
 * "now" with `TestClock`). Paged by `offset`/`limit` over the tree's lines.
 */
export const readTree = Effect.fn("Read.tree")(function*(
  target: Target,
  info: File.Info,
  params: Listing,
  note?: string
) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const workspace = yield* Workspace
  const now = yield* Clock.currentTimeMillis
  const worktree = path.resolve(workspace.worktree)
  const names = yield* fs.readDirectory(target.absolute).pipe(
    Effect.mapError((error) => fromPlatformError(target.absolute, error))
  )
  yield* confirmDirectory(target)

  const pruned = new Set<string>()
  let ignored = 0
  let denied = 0
  let unreadable = 0
  let unlisted = 0
  let budget = MAX_TREE_ENTRIES - names.length

  /** The entries of `dir` worth showing: not pruned, not ignored. */
  const keep = (dir: string, listedNames: ReadonlyArray<string>, chain: IgnoreChain) =>
    Effect.map(statEntries(dir, listedNames), (listed) =>
      listed.filter((entry) => {
        const isDirectory = entry.info?.type === "Directory"
        if (isDirectory ? PRUNED_IN_TREE.has(entry.name) : PRUNED_FILES.has(entry.name)) {
          pruned.add(isDirectory ? `${entry.name}/` : entry.name)
          return false
        }
        if (isIgnored(path, chain, entry.absolute, isDirectory)) {
          ignored++
          return false
        }
        return true
      }))

  // A directory asked for by name is shown even when it is itself ignored (`dist/`, `out/`):
  // then only the `.gitignore` files inside it apply.
  const ancestors = yield* ancestorChain(worktree, target.absolute)
  const applying = isIgnored(path, ancestors, target.absolute, true) ? [] : ancestors
  const chain = yield* extendChain(applying, target.absolute, names)
  const top = yield* keep(target.absolute, names, chain)
  const entries = yield* Effect.forEach(
    top,
    (entry) =>
      Effect.gen(function*() {
        if (entry.info?.type !== "Directory" || entry.link) return toTreeEntry(entry)
        if (budget <= 0) {
          unlisted++
          return toTreeEntry(entry)
        }
        const allowed = yield* askRead(targetOf(path, worktree, entry.absolute)).pipe(
          Effect.as(true),
          Effect.orElseSucceed(() => false)
        )
        if (!allowed) {
          denied++
          return toTreeEntry(entry)
        }
        // A directory that cannot be listed is not shown as empty: the summary counts it.
        const listed = yield* Effect.either(fs.readDirectory(entry.absolute))
        if (listed._tag === "Left") {
          if (listed.left._tag === "SystemError" && listed.left.reason === "PermissionDenied") denied++
          else unreadable++
          return toTreeEntry(entry)
        }
        const inner = listed.right
        budget -= inner.length
        const innerChain = yield* extendChain(chain, entry.absolute, inner)
        const children = yield* keep(entry.absolute, inner, innerChain)
        return toTreeEntry(entry, children.map((child) => toTreeEntry(child)))
      }),
    { concurrency: TREE_CONCURRENCY }
  )

  const tree = renderTreeLines(entries, now)
  const summary = treeSummary(tree.shown, {
    hidden: tree.hidden,
    pruned: [...pruned].sort(compareNames),
    ignored,
    denied,
    unreadable,
    unlisted
  })

  const total = tree.lines.length
  const caps = yield* PageLimits
  const offset = Math.max(1, params.offset ?? 1)
  const limit = params.limit ?? caps.directoryEntries
  if (offset > total) {
    return yield* new OffsetOutOfRange({ path: target.absolute, offset, totalLines: total, unit: "entries" })
  }
  const encoder = new TextEncoder()
  let budgetBytes = caps.bytes - FOOTER_RESERVE - encoder.encode(header(target.absolute, "directory")).length -
    encoder.encode(summary).length - (note === undefined ? 0 : encoder.encode(note).length + 1)
  const shown: Array<string> = []
  let stoppedBy: "limit" | "bytes" | "end" = "end"
  for (let i = offset - 1; i < total; i++) {
    if (shown.length >= limit) {
      stoppedBy = "limit"
      break
    }
    const bytes = encoder.encode(tree.lines[i]!).length + 1
    // Always show at least one line, so paging moves on.
    if (bytes > budgetBytes && shown.length > 0) {
      stoppedBy = "bytes"
      break
    }
    budgetBytes -= bytes
    shown.push(tree.lines[i]!)
  }
  const last = offset - 1 + shown.length
  const more = last < total
  return {
    title: target.relative,
    output: renderTree(target.absolute, { shown, offset, total, stoppedBy, maxBytes: caps.bytes }, summary, note),
    metadata: {
      kind: "directory" as const,
      path: target.absolute,
      preview: shown.slice(0, PREVIEW_LINES).join("\n"),
      truncated: more || tree.hidden > 0,
      startLine: offset,
      endLine: last,
      totalLines: total,
      ...(more ? { nextOffset: last + 1 } : {}),
      ...directoryFacts(info),
      view: "tree" as const
    }
  }
})
