/**
 * A directory as a tree (pure rendering): two levels, newest first, at most 12 entries per
 * sub-directory, each line with a size (files) and a relative age.
 *
 * ```
 * .
 *   - src/                    2m ago
 *     - index.ts    1.5KB     2m ago
 *     - util.ts     120B      3h ago
 *   - README.md     2.0KB     2d ago
 * ```
 *
 * The root's own entries are never capped, so every top-level name is shown; a capped
 * directory shows its 11 newest entries, a `- … N more` line, then its oldest entry.
 */
import { compareNames } from "./suggest.js"

/** Levels below the directory read: its entries (1) and theirs (2). */
export const TREE_DEPTH = 2
/** Entries shown per sub-directory (the directory read itself is not capped). */
export const TREE_PER_DIRECTORY = 12

export interface TreeEntry {
  readonly name: string
  readonly directory: boolean
  /** Bytes, for files. */
  readonly size: number | undefined
  /** Modification time, epoch milliseconds, when known. */
  readonly mtime: number | undefined
  /** A listed directory's entries (not pruned or ignored); undefined when not listed. */
  readonly children?: ReadonlyArray<TreeEntry> | undefined
}

/** `512B`, `1.5KiB`, `2.0MiB`, `1.2GiB`: short enough for a column. */
export const compactBytes = (bytes: number): string =>
  bytes < 1024
    ? `${bytes}B`
    : bytes < 1024 * 1024
    ? `${(bytes / 1024).toFixed(1)}KiB`
    : bytes < 1024 * 1024 * 1024
    ? `${(bytes / (1024 * 1024)).toFixed(1)}MiB`
    : `${(bytes / (1024 * 1024 * 1024)).toFixed(1)}GiB`

/** `just now` (under a minute, or in the future), `5m ago`, `3h ago`, `2d ago`, `3w ago`, `4mo ago`, `2y ago`. */
export const relativeAge = (now: number, mtime: number): string => {
  const seconds = Math.floor((now - mtime) / 1000)
  if (seconds < 60) return "just now"
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ago`
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h ago`
  const days = Math.floor(seconds / 86_400)
  if (days < 7) return `${days}d ago`
  if (days < 30) return `${Math.floor(days / 7)}w ago`
  if (days < 365) return `${Math.floor(days / 30)}mo ago`
  return `${Math.floor(days / 365)}y ago`
}

/** Newest first; unknown times last; ties by name. */
export const byRecency = (a: TreeEntry, b: TreeEntry): number =>
  (b.mtime ?? -Infinity) - (a.mtime ?? -Infinity) || compareNames(a.name, b.name)

interface Row {
  readonly label: string
  readonly size: string
  readonly age: string
  readonly marker: boolean
}

export interface RenderedTree {
  /** Every line, the first being `.`. */
  readonly lines: ReadonlyArray<string>
  /** Entry lines (not counting `.` and `… N more` lines). */
  readonly shown: number
  /** Entries left out by the per-directory cap. */
  readonly hidden: number
}

/** Render `entries` (the directory's own) as tree lines, ages relative to `now`. */
export const renderTreeLines = (entries: ReadonlyArray<TreeEntry>, now: number): RenderedTree => {
  const rows: Array<Row> = []
  let hidden = 0
  const emit = (level: ReadonlyArray<TreeEntry>, depth: number) => {
    const sorted = [...level].sort(byRecency)
    const indent = "  ".repeat(depth)
    let shown: ReadonlyArray<TreeEntry | number> = sorted
    // The directory read is uncapped; its sub-directories show the newest, a marker and the oldest.
    if (depth > 1 && sorted.length > TREE_PER_DIRECTORY) {
      const more = sorted.length - TREE_PER_DIRECTORY
      hidden += more
      shown = [...sorted.slice(0, TREE_PER_DIRECTORY - 1), more, sorted[sorted.length - 1]!]
    }
    for (const entry of shown) {
      if (typeof entry === "number") {
        rows.push({ label: `${indent}- … ${entry} more`, size: "", age: "", marker: true })
        continue
      }
      rows.push({
        label: `${indent}- ${entry.name}${entry.directory ? "/" : ""}`,
        size: entry.directory || entry.size === undefined ? "" : compactBytes(entry.size),
        age: entry.mtime === undefined ? "" : relativeAge(now, entry.mtime),
        marker: false
      })
      if (entry.children !== undefined && depth < TREE_DEPTH) emit(entry.children, depth + 1)
    }
  }
  emit(entries, 1)
  const width = rows.reduce((max, row) => row.marker ? max : Math.max(max, row.label.length), 0) + 2
  const lines = rows.map((row) =>
    row.marker ? row.label : `${row.label.padEnd(width)}${row.size.padEnd(8)}  ${row.age}`.trimEnd()
  )
  return { lines: [".", ...lines], shown: rows.filter((row) => !row.marker).length, hidden }
}

/** What the tree left out, for its footer. */
export interface TreeOmissions {
  /** Entries left out by the per-directory cap. */
  readonly hidden: number
  /** Names pruned (dependency, VCS and build directories, `.DS_Store`), `/` after directories. */
  readonly pruned: ReadonlyArray<string>
  /** Entries matched by a `.gitignore`. */
  readonly ignored: number
  /** Sub-directories the session may not list (a rule), or the operating system will not (EACCES). */
  readonly denied: number
  /** Sub-directories whose listing failed (an I/O error, removed meanwhile). */
  readonly unreadable?: number | undefined
  /** Sub-directories not listed because the tree reached its entry limit. */
  readonly unlisted: number
}

/** `(Tree, depth 2: 14 entries; 3 more in capped directories; pruned: .git/, node_modules/; 2 gitignored)`. */
export const treeSummary = (shown: number, omissions: TreeOmissions): string => {
  const parts = [`${shown} ${shown === 1 ? "entry" : "entries"}`]
  if (omissions.hidden > 0) parts.push(`${omissions.hidden} more in capped directories`)
  if (omissions.pruned.length > 0) parts.push(`pruned: ${omissions.pruned.join(", ")}`)
  if (omissions.ignored > 0) parts.push(`${omissions.ignored} gitignored`)
  if (omissions.denied > 0) {
    parts.push(`${omissions.denied} ${omissions.denied === 1 ? "directory" : "directories"} not listed (permission)`)
  }
  const unreadable = omissions.unreadable ?? 0
  if (unreadable > 0) {
    parts.push(`${unreadable} ${unreadable === 1 ? "directory" : "directories"} not listed (unreadable)`)
  }
  if (omissions.unlisted > 0) {
    parts.push(
      `${omissions.unlisted} ${omissions.unlisted === 1 ? "directory" : "directories"} not listed (entry limit)`
    )
  }
  return parts.length === 1 && shown === 0 ? "(empty directory)" : `(Tree, depth ${TREE_DEPTH}: ${parts.join("; ")})`
}
