/**
 * The typed failures of `read`. Each `message` is exactly what the model should read.
 *
 * They are `Schema.TaggedError`s because they cross wires (MCP, RPC, JSON).
 */
import * as Schema from "effect/Schema"

import { formatBytes, plural } from "./internal/core/format.js"

/** Lives in the pure core; exported here too for importers of `ReadError`. */
export { formatBytes }

/** The path does not exist. `suggestions` are absolute paths of near matches. */
export class FileNotFound extends Schema.TaggedError<FileNotFound>()("FileNotFound", {
  path: Schema.String,
  suggestions: Schema.Array(Schema.String)
}) {
  override get message(): string {
    return this.suggestions.length === 0
      ? `File not found: ${this.path}`
      : `File not found: ${this.path}\n\nDid you mean one of these?\n${this.suggestions.join("\n")}`
  }
}

/** The file holds bytes that are not text the model can use. */
export class BinaryFile extends Schema.TaggedError<BinaryFile>()("BinaryFile", {
  path: Schema.String,
  /** What the bytes look like: a sniffed MIME type, or the first bytes in hex. */
  description: Schema.optional(Schema.String),
  size: Schema.optional(Schema.Number)
}) {
  override get message(): string {
    const facts = [this.description, this.size === undefined ? undefined : formatBytes(this.size)]
      .filter((fact) => fact !== undefined)
    return `Cannot read binary file: ${this.path}${facts.length > 0 ? ` (${facts.join(", ")})` : ""}`
  }
}

/** `offset` points past the last line of a file (or the last entry of a directory). */
export class OffsetOutOfRange extends Schema.TaggedError<OffsetOutOfRange>()("OffsetOutOfRange", {
  path: Schema.String,
  offset: Schema.Number,
  totalLines: Schema.Number,
  unit: Schema.optionalWith(Schema.Literal("lines", "entries"), { default: () => "lines" })
}) {
  override get message(): string {
    return this.unit === "entries"
      ? `Offset ${this.offset} is out of range for this directory (${plural(this.totalLines, "entry", "entries")})`
      : `Offset ${this.offset} is out of range for this file (${plural(this.totalLines, "line")})`
  }
}

/** `column` points past the end of the line it continues. */
export class ColumnOutOfRange extends Schema.TaggedError<ColumnOutOfRange>()("ColumnOutOfRange", {
  path: Schema.String,
  line: Schema.Number,
  column: Schema.Number,
  lineLength: Schema.Number
}) {
  override get message(): string {
    return `Column ${this.column} is past the end of line ${this.line} (${this.lineLength} characters)`
  }
}

/** The session's `Permission` service refused the read. */
export class PermissionDenied extends Schema.TaggedError<PermissionDenied>()("PermissionDenied", {
  permission: Schema.String,
  patterns: Schema.Array(Schema.String),
  /**
   * `"rule"`: a configured rule denied it; `"rejected"`: the user said no; `"unavailable"`: it
   * needed the user's approval and nobody could be asked; `"unanswered"`: nobody answered in time.
   */
  reason: Schema.Literal("rule", "rejected", "unavailable", "unanswered"),
  /** Why nobody could be asked, or how long the question waited. */
  detail: Schema.optional(Schema.String),
  /** How the user can allow it (a flag, a rule). */
  hint: Schema.optional(Schema.String)
}) {
  override get message(): string {
    const what = describePermission(this.permission, this.patterns)
    const hint = this.hint === undefined ? "" : ` ${this.hint}`
    switch (this.reason) {
      case "rule":
        return `Permission denied: ${what} is not allowed in this session. Do not retry it.${hint}`
      case "rejected":
        return `Permission denied: the user refused ${what}.`
      case "unavailable":
        return `Permission denied: ${what} needs the user's approval, and the user could not be asked${
          this.detail === undefined ? "" : ` (${this.detail})`
        }. Do not retry it.${hint}`
      case "unanswered":
        return `Permission denied: ${what} needs the user's approval, and the user did not answer${
          this.detail === undefined ? "" : ` ${this.detail}`
        }.${hint}`
    }
  }
}

/** What a permission lets a read do, in words: `reading .env`, `reading the private key in id.pem`. */
export const describePermission = (permission: string, patterns: ReadonlyArray<string>): string => {
  const list = patterns.join(", ")
  switch (permission) {
    case "external_directory":
      return `reading outside the project (${list})`
    case "read":
      return `reading ${list}`
    case "read_private_key":
      return `reading the private key in ${list}`
    case "read_secret":
      return `reading the credentials in ${list}`
    default:
      return `${permission} ${list}`
  }
}

/** The parameters do not describe a possible read. */
export class InvalidParams extends Schema.TaggedError<InvalidParams>()("InvalidParams", {
  reason: Schema.String
}) {
  override get message(): string {
    return `Invalid parameters: ${this.reason}`
  }
}

/** FIFOs, sockets and devices: reading them could block forever or never end. */
export class NotAFile extends Schema.TaggedError<NotAFile>()("NotAFile", {
  path: Schema.String,
  kind: Schema.String
}) {
  override get message(): string {
    return `Cannot read ${this.path}: it is a ${this.kind}, not a regular file or directory`
  }
}

/** An image or PDF too large to attach. */
export class MediaTooLarge extends Schema.TaggedError<MediaTooLarge>()("MediaTooLarge", {
  path: Schema.String,
  mime: Schema.String,
  size: Schema.Number,
  maxSize: Schema.Number
}) {
  override get message(): string {
    return `Cannot attach ${this.path}: the ${this.mime} file is ${formatBytes(this.size)}, over the ${
      formatBytes(this.maxSize)
    } limit for attachments`
  }
}

/** A file that claims to be an image or PDF (by name or magic bytes) but is empty or incomplete. */
export class InvalidMedia extends Schema.TaggedError<InvalidMedia>()("InvalidMedia", {
  path: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `Cannot read ${this.path}: ${this.reason}`
  }
}

/** A selector in the path that is malformed; the message shows the valid forms. */
export class InvalidSelector extends Schema.TaggedError<InvalidSelector>()("InvalidSelector", {
  path: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return this.reason
  }
}

/** An archive that cannot be listed or a member that cannot be read (the reason says which). */
export class ArchiveError extends Schema.TaggedError<ArchiveError>()("ArchiveError", {
  path: Schema.String,
  member: Schema.optional(Schema.String),
  reason: Schema.String
}) {
  override get message(): string {
    return this.reason
  }
}

/** A SQLite selector that cannot run, or a query SQLite refused. */
export class DatabaseError extends Schema.TaggedError<DatabaseError>()("DatabaseError", {
  path: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return this.reason
  }
}

/** A notebook or document that could not be converted to text. */
export class ConversionFailed extends Schema.TaggedError<ConversionFailed>()("ConversionFailed", {
  path: Schema.String,
  format: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `Cannot read ${this.format} file ${this.path}: ${this.reason}`
  }
}

/**
 * The file changed under the read: replaced between the permission check and the open, or
 * shrunk, grown or swapped while it was being read. Reading again sees the new version.
 */
export class FileChanged extends Schema.TaggedError<FileChanged>()("FileChanged", {
  path: Schema.String,
  /** What happened, e.g. `it was replaced between the permission check and opening it`. */
  detail: Schema.String
}) {
  override get message(): string {
    return `Cannot read ${this.path}: ${this.detail}. Read it again.`
  }
}

/** Anything else the operating system refused, with its reason (for example EACCES). */
export class ReadFailed extends Schema.TaggedError<ReadFailed>()("ReadFailed", {
  path: Schema.String,
  reason: Schema.String,
  code: Schema.optional(Schema.String)
}) {
  override get message(): string {
    return `Cannot read ${this.path}: ${this.reason}`
  }
}

/**
 * A web page that could not be fetched: an HTTP error status, a refused or unresolvable address,
 * a timeout, a body over the size limit, too many redirects, or a content type not read.
 */
export class FetchFailed extends Schema.TaggedError<FetchFailed>()("FetchFailed", {
  /** The URL being fetched when it failed (after redirects). */
  url: Schema.String,
  /** What went wrong, for callers that branch on it; `reason` says it in words. */
  problem: Schema.Literal("status", "address", "dns", "network", "timeout", "too-large", "redirects", "content-type"),
  reason: Schema.String,
  /** The HTTP status, for `problem: "status"`. */
  status: Schema.optional(Schema.Number)
}) {
  override get message(): string {
    return `Fetching ${this.url} failed: ${this.reason}`
  }
}

/**
 * Reading this file needs an optional package that is not installed. The message names the
 * package and the command that adds it, for the model to pass on to the user.
 */
export class MissingPackage extends Schema.TaggedError<MissingPackage>()("MissingPackage", {
  path: Schema.String,
  package: Schema.String,
  /** What the package does for this read, e.g. "decoding, checking and resizing images". */
  purpose: Schema.String
}) {
  override get message(): string {
    return `Cannot read ${this.path}: ${this.purpose} needs the optional package ${this.package}, which is not installed. Install it with: npm install ${this.package}`
  }
}

/** Every way `read` can fail, as a schema (for tool definitions) and as a type. */
export const ReadError = Schema.Union(
  FileNotFound,
  BinaryFile,
  OffsetOutOfRange,
  ColumnOutOfRange,
  PermissionDenied,
  InvalidParams,
  NotAFile,
  MediaTooLarge,
  InvalidMedia,
  InvalidSelector,
  ArchiveError,
  DatabaseError,
  ConversionFailed,
  FileChanged,
  ReadFailed,
  FetchFailed,
  MissingPackage
)
export type ReadError = typeof ReadError.Type
