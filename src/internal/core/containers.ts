/**
 * Container files: the names that mark a path reaching inside one (`a.zip:dir/file.ts:10-20`,
 * `app.db:users?limit=5`) and the first bytes that confirm one. Pure.
 */
import { isGzip, isTarHeader } from "../sources/archive/headers.js"
import type { ArchiveFormat } from "../sources/archive/model.js"

// ZIP under other names (.jar .war .apk .vsix .whl .nupkg), tar, and gzip (a compressed tar or one file).
export const ARCHIVE_CONTAINER = /\.(?:tar\.gz|tgz|tar|gz|zip|jar|war|apk|vsix|whl|nupkg)(?=:|$)/gi
export const DATABASE_CONTAINER = /\.(?:sqlite3?|db3?)(?=[:?]|$)/gi

export const archiveExtension = /\.(?:tar\.gz|tgz|tar|gz|zip|jar|war|apk|vsix|whl|nupkg)$/i
export const databaseExtension = /\.(?:sqlite3?|db3?)$/i

/** The 16-byte header every SQLite database file starts with. */
export const SQLITE_HEADER = "SQLite format 3\0"

export const isSqliteHeader = (head: Uint8Array): boolean =>
  head.length >= 16 && String.fromCharCode(...head.subarray(0, 16)) === SQLITE_HEADER

/** ZIP and the formats that are ZIP archives under another name (Java, Android, VS Code, Python, NuGet). */
const ZIP_FAMILY = /\.(?:zip|jar|war|apk|vsix|whl|nupkg)$/i

export const archiveFormat = (path: string): ArchiveFormat =>
  ZIP_FAMILY.test(path)
    ? "zip"
    : /\.(?:tar\.gz|tgz)$/i.test(path)
    ? "tar.gz"
    : /\.gz$/i.test(path)
    ? "gz"
    : "tar"

/**
 * Whether a file's first bytes (512 or more) look like the archive its name says: for callers
 * deciding between reading an `a.zip` as an archive or as the text it really holds.
 */
export const looksLikeArchive = (path: string, head: Uint8Array): boolean => {
  const format = archiveFormat(path)
  if (format === "zip") return head.length >= 4 && head[0] === 0x50 && head[1] === 0x4b
  if (format === "gz") return isGzip(head)
  return isGzip(head) || isTarHeader(head) || (head.length >= 512 && head.subarray(0, 512).every((b) => b === 0))
}
