/**
 * Paths that reach inside a file: `a.zip:dir/file.ts:10-20`, `app.db:users?limit=5`.
 * Pure: lists every way to split a path into a container file and what follows it.
 */

export type ContainerKind = "archive" | "database"

export interface ContainerCandidate {
  readonly kind: ContainerKind
  /** The container file's path as written. */
  readonly path: string
  /** What follows it, without the leading `:` (may hold `?query` for databases). */
  readonly inner: string
}

// ZIP under other names (.jar .war .apk .vsix .whl .nupkg), tar, and gzip (a compressed tar or one file).
const ARCHIVE = /\.(?:tar\.gz|tgz|tar|gz|zip|jar|war|apk|vsix|whl|nupkg)(?=:|$)/gi
const DATABASE = /\.(?:sqlite3?|db3?)(?=[:?]|$)/gi

export const archiveExtension = /\.(?:tar\.gz|tgz|tar|gz|zip|jar|war|apk|vsix|whl|nupkg)$/i
export const databaseExtension = /\.(?:sqlite3?|db3?)$/i

/** Every container split of `input`, longest container path first. */
export const containerCandidates = (input: string): ReadonlyArray<ContainerCandidate> => {
  const found: Array<ContainerCandidate> = []
  for (const [kind, pattern] of [["archive", ARCHIVE], ["database", DATABASE]] as const) {
    for (const match of input.matchAll(pattern)) {
      const end = match.index + match[0].length
      if (end === input.length) continue
      const rest = input.slice(end)
      found.push({ kind, path: input.slice(0, end), inner: rest.startsWith(":") ? rest.replace(/^:+/, "") : rest })
    }
  }
  return found.sort((a, b) => b.path.length - a.path.length)
}

/** The 16-byte header every SQLite database file starts with. */
export const SQLITE_HEADER = "SQLite format 3\0"

export const isSqliteHeader = (head: Uint8Array): boolean =>
  head.length >= 16 && String.fromCharCode(...head.subarray(0, 16)) === SQLITE_HEADER
