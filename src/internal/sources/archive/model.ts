/**
 * Archives, the pure part: limits and their messages, member-path rules, the table of entries
 * (with parent directories synthesized from member paths), listings and suggestions.
 */
import { formatBytes } from "../../core/format.js"
import { compareNames, suggestEntries } from "../../core/suggest.js"

export interface ArchiveLimits {
  /** Largest member extracted, declared or inflated. */
  readonly maxMemberBytes: number
  /** Largest uncompressed/compressed ratio of a member over `ratioMinBytes`. */
  readonly maxRatio: number
  readonly ratioMinBytes: number
  /** Bytes a compressed tar may inflate to while it is streamed (listing or finding a member). */
  readonly maxInflatedBytes: number
  /** Entries indexed for a listing; more are counted, not kept. */
  readonly maxEntries: number
  /** Longest one pass over an archive may take (listing, or finding and reading a member). */
  readonly maxPassMillis: number
}

export const ARCHIVE_LIMITS: ArchiveLimits = {
  maxMemberBytes: 64 * 1024 * 1024,
  maxRatio: 100,
  ratioMinBytes: 1024 * 1024,
  maxInflatedBytes: 1024 * 1024 * 1024,
  maxEntries: 100_000,
  maxPassMillis: 60_000
}

export type ArchiveFormat = "zip" | "tar" | "tar.gz" | "gz"

/** A failure with the message the model reads; becomes an `ArchiveError`. */
export class ArchiveFailure extends Error {
  readonly reason: string
  constructor(reason: string, readonly member?: string) {
    const oneLine = visibleControls(reason)
    super(oneLine)
    this.reason = oneLine
  }
}

/**
 * Control characters written as escapes (`\n`, `\u0000`): a reason quotes names and bytes from
 * the archive, and a line break in them would break the one-line note or error it goes in.
 */
export const visibleControls = (text: string): string =>
  text.replace(/[\u0000-\u001f\u007f]/g, (c) => JSON.stringify(c).slice(1, -1))

/**
 * The filesystem failed while the archive was being read; becomes a `ReadFailed`. The parsers only
 * pass it through; the Effect side (`../archive.ts`) subclasses it with the platform's error.
 */
export class SourceFailure extends Error {}

export const messages = {
  tooLarge: (member: string, size: number, limits: ArchiveLimits) =>
    `Archive member '${member}' is too large to extract (${formatBytes(size)} > ${
      formatBytes(limits.maxMemberBytes)
    } limit)`,
  inflatesTooLarge: (member: string, declared: number | undefined, limits: ArchiveLimits) =>
    `Archive member '${member}' inflates to more than the ${formatBytes(limits.maxMemberBytes)} limit${
      declared === undefined ? "" : ` (it declares ${formatBytes(declared)})`
    }; refused`,
  bomb: (member: string, compressed: number, size: number, limits: ArchiveLimits, whileInflating: boolean) =>
    `Archive member '${member}' looks like a decompression bomb: ${formatBytes(compressed)} compressed ${
      whileInflating ? "inflates to more than" : "expands to"
    } ${formatBytes(size)}, over the ${limits.maxRatio}:1 ratio allowed for members over ${
      formatBytes(limits.ratioMinBytes)
    }; refused`,
  streamBomb: (limits: ArchiveLimits) =>
    `Archive inflates to more than ${
      formatBytes(limits.maxInflatedBytes)
    } while streaming; refused as a possible decompression bomb`,
  deadline: (limits: ArchiveLimits) =>
    `Reading the archive took longer than ${
      limits.maxPassMillis / 1000
    } s and was stopped; it may be damaged, or too large to list or search in time`,
  parentSegment: (requested: string) =>
    `Archive path cannot contain '..': '${requested}'. Paths inside an archive are relative to its root.`,
  absolute: (requested: string, archive: string) =>
    `Archive path '${requested}' is absolute; paths inside an archive are relative to its root ` +
    `(for example ${archive}:dir/file.txt)`,
  notFound: (member: string, archive: string, suggestions: ReadonlyArray<string>) =>
    `Path '${member}' not found inside archive ${archive}` +
    (suggestions.length === 0 ? "" : `\n\nDid you mean one of these?\n${suggestions.join("\n")}`),
  link: (member: string, hard: boolean, target: string | undefined, readInstead: string | undefined) =>
    `Archive member '${member}' is a ${hard ? "hard link" : "symbolic link"}${
      target === undefined ? "" : ` to '${target}'`
    }; links inside archives are not followed.${readInstead === undefined ? "" : ` Read ${readInstead} instead.`}`,
  nested: (member: string, rest: string, archive: string) =>
    `Archive member '${member}' is itself an archive; archives inside archives are not read, so '${rest}' inside it cannot be reached. Read ${archive}:${member} for what it is.`,
  special: (member: string, kind: string) =>
    `Archive member '${member}' is a ${kind}, not a regular file: it has no content to show, and nothing on this machine is opened for it`,
  encrypted: (member: string) => `Encrypted ZIP entries are not supported: '${member}' is encrypted`,
  method: (member: string, method: number) => {
    const name = zipMethods[method]
    return `Unsupported ZIP compression method: ${method}${
      name === undefined ? "" : ` (${name})`
    } for '${member}'; only stored (0) and deflate (8) entries can be read`
  },
  empty: (format: ArchiveFormat) =>
    format === "gz"
      ? "Invalid gzip file: the file is empty (0 bytes)"
      : `Invalid ${format === "zip" ? "ZIP" : format} archive: the file is empty (0 bytes)`,
  notGzip: (archive: string, text: boolean) =>
    `Not a gzip file: ${archive} has a .gz name but ${text ? "holds text" : "does not start with gzip's signature"}`,
  gzipMember: (requested: string, archive: string, name: string) =>
    `Path '${requested}' not found inside ${archive}: a gzip file holds one file ('${name}'); ` +
    `read ${archive} for its content, or ${archive}:1-50 for lines`,
  multiRange: "Multi-range line selectors are not supported for archive directory listings.",
  pages: "Page selectors (:pages=N) apply to PDF documents; use a line selector such as :1-50 for archive members."
} as const

const zipMethods: Record<number, string> = {
  1: "shrink",
  6: "implode",
  9: "deflate64",
  12: "bzip2",
  14: "LZMA",
  19: "LZ77",
  93: "zstd",
  95: "xz",
  96: "JPEG",
  97: "WavPack",
  98: "PPMd",
  99: "AES encryption"
}

export type EntryKind = "file" | "directory" | "link" | "special"

/** An entry as the archive stores it (name decoded, not yet checked). */
export interface RawEntry {
  readonly name: string
  readonly kind: EntryKind
  /** Uncompressed size as declared. */
  readonly size: number
  readonly compressedSize?: number
  readonly mtime?: number
  readonly linkTarget?: string
  /** Links: a hard link names an archive path; a symbolic link a path relative to its directory. */
  readonly hardLink?: boolean
  /** Special entries: what they are (`fifo`, `character device 1,3`, …). */
  readonly special?: string
  /** A sparse file: `size` is its full size, holes included. */
  readonly sparse?: boolean
  readonly encrypted?: boolean
}

/** An entry with a safe, normalised path (`dir/file.ts`, no leading or trailing `/`). */
export interface ArchiveEntry extends RawEntry {
  readonly path: string
}

export type PathCheck =
  | { readonly _tag: "Ok"; readonly path: string }
  | { readonly _tag: "Absolute" }
  | { readonly _tag: "Parent" }

/**
 * Normalise a member path: `\` to `/`, drop empty and `.` segments. Absolute paths (`/x`,
 * `C:/x`) and any `..` segment are refused — in requests and in the archive's own entries.
 */
export const checkPath = (name: string): PathCheck => {
  const slashed = name.replace(/\\/g, "/")
  if (slashed.startsWith("/") || /^[A-Za-z]:(?:\/|$)/.test(slashed)) return { _tag: "Absolute" }
  const segments = slashed.split("/")
  if (segments.includes("..")) return { _tag: "Parent" }
  return { _tag: "Ok", path: segments.filter((segment) => segment !== "" && segment !== ".").join("/") }
}

export interface Refused {
  readonly name: string
  readonly reason: "absolute path" | "parent segment"
}

/**
 * Entries as they stream in. A path seen again replaces the earlier entry, as extracting the
 * archive would overwrite it (tar appends updated copies). Unsafe paths are refused.
 */
export class EntryTable {
  readonly entries: Array<ArchiveEntry> = []
  readonly refused: Array<Refused> = []
  /** Entries past `maxEntries`, counted but not kept. */
  omitted = 0
  /** Entries that replaced an earlier one of the same path. */
  replaced = 0
  private readonly index = new Map<string, number>()

  constructor(private readonly maxEntries: number) {}

  /** The entry's normalised path, or undefined when it is refused. */
  add(raw: RawEntry): string | undefined {
    const checked = checkPath(raw.name)
    if (checked._tag !== "Ok") {
      if (this.refused.length < this.maxEntries) {
        this.refused.push({ name: raw.name, reason: checked._tag === "Absolute" ? "absolute path" : "parent segment" })
      }
      return undefined
    }
    if (checked.path === "") return checked.path
    const at = this.index.get(checked.path)
    if (at !== undefined) {
      this.replaced++
      this.entries[at] = { ...raw, path: checked.path }
      return checked.path
    }
    if (this.entries.length >= this.maxEntries) {
      this.omitted++
      return checked.path
    }
    this.index.set(checked.path, this.entries.length)
    this.entries.push({ ...raw, path: checked.path })
    return checked.path
  }

  /** Add what was learnt about an entry after it was indexed (a zip link's target). */
  amend(path: string, facts: Partial<RawEntry>): void {
    const at = this.index.get(path)
    if (at !== undefined) this.entries[at] = { ...this.entries[at]!, ...facts }
  }
}

/** Where a link points inside the archive: its target as an archive path, or undefined when it leaves it. */
export const linkTargetPath = (entry: ArchiveEntry): string | undefined => {
  const target = entry.linkTarget
  if (target === undefined || target === "") return undefined
  const directory = entry.path.includes("/") ? entry.path.slice(0, entry.path.lastIndexOf("/")) : ""
  const joined = entry.hardLink === true || directory === "" ? target : `${directory}/${target}`
  if (/^[\\/]/.test(joined)) return undefined
  // `..` may step back inside the archive (`a/b/../c`), never above its root.
  const segments: Array<string> = []
  for (const segment of joined.replace(/\\/g, "/").split("/")) {
    if (segment === "" || segment === ".") continue
    if (segment !== "..") segments.push(segment)
    else if (segments.pop() === undefined) return undefined
  }
  return segments.length === 0 ? undefined : segments.join("/")
}

interface Child {
  readonly name: string
  readonly entry: ArchiveEntry | undefined
  readonly directory: boolean
}

const childLine = (child: Child): string => {
  if (child.directory) return `${child.name}/`
  const entry = child.entry!
  switch (entry.kind) {
    case "link":
      return entry.linkTarget === undefined
        ? `${child.name} (${entry.hardLink === true ? "hard" : "symbolic"} link)`
        : `${child.name} -> ${entry.linkTarget}${entry.hardLink === true ? " (hard link)" : ""}`
    case "special":
      return `${child.name} (${entry.special ?? "special file"})`
    default:
      return `${child.name} (${formatBytes(entry.size)}${entry.sparse === true ? ", sparse" : ""}${
        entry.encrypted === true ? ", encrypted" : ""
      })`
  }
}

/** The directory tree of a complete table: every directory, explicit or implied by a path. */
export class ArchiveTree {
  private readonly directories = new Map<string, Map<string, Child>>([["", new Map()]])
  private readonly byPath = new Map<string, ArchiveEntry>()

  constructor(readonly table: EntryTable) {
    for (const entry of table.entries) {
      this.byPath.set(entry.path, entry)
      const segments = entry.path.split("/")
      let parent = ""
      segments.forEach((name, i) => {
        const path = parent === "" ? name : `${parent}/${name}`
        const last = i === segments.length - 1
        const directory = !last || entry.kind === "directory"
        const siblings = this.directories.get(parent)!
        const existing = siblings.get(name)
        // A path that is both a file and a parent of others is listed as a directory.
        if (existing === undefined || (directory && !existing.directory)) {
          siblings.set(name, { name, entry: last ? entry : existing?.entry, directory })
        }
        if (directory && !this.directories.has(path)) this.directories.set(path, new Map())
        parent = path
      })
    }
  }

  isDirectory(path: string): boolean {
    return this.directories.has(path)
  }

  entry(path: string): ArchiveEntry | undefined {
    return this.byPath.get(path)
  }

  /** The listing lines of a directory: immediate children, case-insensitive order. */
  list(path: string): ReadonlyArray<string> {
    const children = [...(this.directories.get(path)?.values() ?? [])]
    children.sort((a, b) => compareNames(a.name, b.name))
    return children.map(childLine)
  }

  /**
   * Up to three member paths that look like `member`: files by whole path, then files by base
   * name (`util.ts` finds `src/util.ts`), then directories by base name.
   */
  suggest(member: string): ReadonlyArray<string> {
    const base = (path: string) => path.slice(path.lastIndexOf("/") + 1)
    const files = [...this.byPath.values()].filter((entry) => entry.kind !== "directory").map((entry) => entry.path)
    const directories = [...this.directories.keys()].filter((path) => path !== "")
    const found: Array<string> = []
    const add = (paths: Iterable<string>) => {
      for (const path of paths) if (path !== member && !found.includes(path)) found.push(path)
    }
    const byBase = (paths: ReadonlyArray<string>) => {
      const groups = new Map<string, Array<string>>()
      for (const path of paths) groups.set(base(path), [...(groups.get(base(path)) ?? []), path])
      const wanted = base(member)
      const similar = suggestEntries(wanted, [...groups.keys()]).flatMap((name) => groups.get(name)!)
      return [...(groups.get(wanted) ?? []), ...similar]
    }
    add(suggestEntries(member, files))
    add(byBase(files))
    add(byBase(directories).map((path) => `${path}/`))
    return found.slice(0, 3)
  }
}

export const refusedNotice = (refused: ReadonlyArray<Refused>): string | undefined => {
  if (refused.length === 0) return undefined
  const shown = refused.slice(0, 5).map((entry) => `'${entry.name}' (${entry.reason})`)
  const more = refused.length > shown.length ? `, and ${refused.length - shown.length} more` : ""
  return `(Refused ${refused.length} ${
    refused.length === 1 ? "entry" : "entries"
  } with unsafe paths; they are never read: ${shown.join(", ")}${more}.)`
}

export const replacedNotice = (table: EntryTable): string | undefined =>
  table.replaced === 0
    ? undefined
    : `(${table.replaced} ${
      table.replaced === 1 ? "entry repeats an earlier path" : "entries repeat earlier paths"
    }; the last copy of each is listed and read, as extracting the archive would leave it.)`

export const omittedNotice = (table: EntryTable): string | undefined =>
  table.omitted === 0
    ? undefined
    : `(Indexed the first ${table.entries.length} entries of the archive; ${table.omitted} more are not listed.)`
