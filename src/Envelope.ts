/**
 * The "standard envelope" rendering of a read (a unified tool-response protocol's envelope): one JSON object with `status`, `data`,
 * `text`, `stats` and `context`, plus `error` when `status` is `"error"`.
 *
 * It is a second renderer of the same `ReadResult` / `ReadError`; nothing is read twice.
 *
 * Error codes (`error.code`):
 *
 * | code | from |
 * |---|---|
 * | `NOT_FOUND` | `FileNotFound`; `FetchFailed` with HTTP 404 or 410 |
 * | `ACCESS_DENIED` | `PermissionDenied`; `ReadFailed` with `EACCES` / `EPERM`; `FetchFailed` for a refused address |
 * | `IS_DIRECTORY` | a directory, only when the caller asked for files only (`filesOnly`) |
 * | `BINARY_FILE` | `BinaryFile` |
 * | `INVALID_PARAM` | `InvalidParams`, `OffsetOutOfRange`, `ColumnOutOfRange`, `InvalidSelector` |
 * | `NOT_A_FILE` | `NotAFile` (FIFO, socket, device) |
 * | `FILE_TOO_LARGE` | `MediaTooLarge`; `FetchFailed` for a body over the size limit |
 * | `INVALID_MEDIA` | `InvalidMedia` |
 * | `READ_FAILED` | any other `ReadFailed`; `ArchiveError`, `DatabaseError`, `ConversionFailed`, `FileChanged`, `MissingPackage`; any other `FetchFailed` |
 */
import * as Path from "@effect/platform/Path"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as JSONSchema from "effect/JSONSchema"
import * as Schema from "effect/Schema"
import { inlineRefs } from "./internal/doors/jsonSchema.js"
import { targetOf } from "./internal/read/access.js"
import * as Read from "./Read.js"
import type { FetchFailed, ReadError } from "./ReadError.js"
import type { MetadataFields } from "./ReadResult.js"
import { Workspace } from "./Workspace.js"

// -----------------------------------------------------------------------------
// Schema
// -----------------------------------------------------------------------------

const Count = Schema.Int.pipe(Schema.nonNegative())
const described = <S extends Schema.Schema.Any>(schema: S, description: string) =>
  schema.annotations({ description }) as S

export const ErrorCode = Schema.Literal(
  "NOT_FOUND",
  "ACCESS_DENIED",
  "IS_DIRECTORY",
  "BINARY_FILE",
  "INVALID_PARAM",
  "NOT_A_FILE",
  "FILE_TOO_LARGE",
  "INVALID_MEDIA",
  "READ_FAILED"
).annotations({ identifier: "ErrorCode" })
export type ErrorCode = typeof ErrorCode.Type

export const Data = Schema.Struct({
  content: described(
    Schema.String,
    "The shown lines (entries for a directory), each formatted \"%4d | %s\\n\"; empty when nothing is shown"
  ),
  truncated: described(
    Schema.Boolean,
    "More exists than was shown: later lines or entries, or lines cut at the length cap"
  ),
  fallback_encoding: Schema.optionalWith(
    described(Schema.String, "Present only when decoding fell back, e.g. \"replace\""),
    { exact: true }
  ),
  attachments: Schema.optionalWith(
    described(Schema.Array(Read.Attachment), "Images and PDFs as data: URLs (an addition to the standard envelope)"),
    { exact: true }
  )
})

const statsFields = {
  time_ms: described(Count, "How long the read took, in milliseconds"),
  lines_read: described(Count, "Lines (entries for a directory) shown"),
  chars_read: described(
    Count,
    "Characters (code points) of the file in the shown lines: no numbering, line ends or truncation notices"
  ),
  total_lines: Schema.optionalWith(
    described(Count, "Lines in the file (entries in the directory); absent when the page stopped before a known end"),
    { exact: true }
  ),
  file_mtime_ms: Schema.optionalWith(described(Schema.Number, "Modification time, epoch milliseconds"), {
    exact: true
  }),
  encoding: Schema.optionalWith(
    described(Schema.String, "The text encoding, detected or named by the encoding parameter; only for text files"),
    { exact: true }
  )
}

/** Statistics of a successful read: the size is always known. */
export const Stats = Schema.Struct({
  ...statsFields,
  file_size_bytes: described(Count, "Size in bytes")
})

/** Statistics of a failed read: the size only when the error happened after `stat`. */
export const ErrorStats = Schema.Struct({
  ...statsFields,
  file_size_bytes: Schema.optionalWith(described(Count, "Size in bytes"), { exact: true })
})

export const EnvelopeContext = Schema.Struct({
  cwd: described(Schema.String, "The working directory relative to the project root (\".\" mostly)"),
  params_input: described(Schema.Unknown, "The parameters as given, unvalidated"),
  path_resolved: Schema.optionalWith(
    described(Schema.String, "The target relative to the project root, POSIX style (absolute when outside it)"),
    { exact: true }
  )
})

export const SuccessEnvelope = Schema.Struct({
  status: described(Schema.Literal("success", "partial"), "partial when truncated or decoded with a fallback"),
  data: Data,
  text: Schema.String,
  stats: Stats,
  context: EnvelopeContext
}).annotations({ identifier: "SuccessEnvelope" })
export type SuccessEnvelope = typeof SuccessEnvelope.Type

export const ErrorEnvelope = Schema.Struct({
  status: Schema.Literal("error"),
  data: Data,
  text: Schema.String,
  stats: ErrorStats,
  context: EnvelopeContext,
  error: Schema.Struct({ code: ErrorCode, message: Schema.String })
}).annotations({ identifier: "ErrorEnvelope" })
export type ErrorEnvelope = typeof ErrorEnvelope.Type

export const Envelope = Schema.Union(SuccessEnvelope, ErrorEnvelope).annotations({
  identifier: "Envelope",
  title: "Read result in the standard envelope"
})
export type Envelope = typeof Envelope.Type

/** The JSON Schema (draft-07) of `Envelope`, fully inlined. */
export const jsonSchema: JSONSchema.JsonSchema7 = inlineRefs(JSONSchema.make(Envelope))

// -----------------------------------------------------------------------------
// Rendering
// -----------------------------------------------------------------------------

export interface RenderOptions {
  /** The parameters as the caller gave them (`context.params_input`). */
  readonly params: unknown
  /** The working directory relative to the project root; default `"."`. */
  readonly cwd?: string | undefined
  /** How long the read took; default 0. */
  readonly timeMs?: number | undefined
  /** The caller wants files only: a directory is an `IS_DIRECTORY` error. */
  readonly filesOnly?: boolean | undefined
  /** For errors: where the path led (relative to the project root), when known. */
  readonly pathResolved?: string | undefined
}

/** `%4d | %s\n`, as the standard envelope numbers lines: every line ends with a newline, the last one too. */
export const numberLines = (lines: ReadonlyArray<string>, first: number): string =>
  lines.map((line, i) => `${String(first + i).padStart(4)} | ${line}\n`).join("")

/**
 * The shown lines (or entries) of a result, recovered from its `output`: the block between the
 * header and the footer, without the `N: ` prefixes. File lines never contain a newline; a
 * directory entry whose name does would count as two lines here.
 */
export const shownLines = (result: Read.ReadResult): ReadonlyArray<string> => {
  const { endLine, kind, path, startLine }: MetadataFields = result.metadata
  if (startLine === undefined || endLine === undefined || kind === "image" || kind === "pdf") return []
  const output = result.output
  const pathTag = `<path>${path}</path>\n`
  // `<type>file</type>\n<content>\n` for text, `<type>directory</type>\n<entries>\n`, and the like.
  const tags = output.startsWith(pathTag)
    ? /^<type>[^<\n]*<\/type>\n<[a-z]+>\n/.exec(output.slice(pathTag.length))
    : null
  if (tags === null) return []
  const open = pathTag.length + tags[0].length
  // Rendered lines are never empty (`N: …`), so the first blank line ends them; notices and the
  // footer follow. Directory entries are followed by the footer only.
  const end = kind === "directory" ? output.lastIndexOf("\n\n(") : output.indexOf("\n\n", open)
  const block = end > open ? output.slice(open, end) : ""
  if (block === "") return []
  const lines = block.split("\n")
  if (kind === "directory") return lines
  return lines.map((line, i) => {
    const prefix = `${startLine + i}: `
    return line.startsWith(prefix) ? line.slice(prefix.length) : line
  })
}

/** The notice `read` appends to a line cut at the length cap (`... (line truncated to 2000 chars…)`). */
const CUT_NOTICE = /\.\.\. \(line truncated to \d+ chars[^)]*\)$/

const codePoints = (text: string): number => {
  let n = 0
  for (const _ of text) n++
  return n
}

/**
 * `encoding` and the fallback, from the metadata: `encoding` (UTF-8 when absent), and
 * `"replace"` when `invalidBytesReplaced` says bytes were shown as U+FFFD (or a reader's own
 * `fallbackEncoding`).
 */
const encodingOf = (metadata: Read.ReadMetadata): { readonly encoding: string; readonly fallback?: string } => {
  // Read through a record: these fields are optional and newer than some readers.
  const extra = metadata as Read.ReadMetadata & Readonly<Record<string, unknown>>
  const encoding = typeof extra.encoding === "string" ? extra.encoding : "utf-8"
  const fallback = typeof extra.fallbackEncoding === "string"
    ? extra.fallbackEncoding
    : extra.invalidBytesReplaced === true
    ? "replace"
    : undefined
  return fallback === undefined ? { encoding } : { encoding, fallback }
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`

/** The continuation line of `text`, or `undefined` when the page reached the end. */
const truncationNote = (metadata: MetadataFields, unit: "lines" | "entries", shown: number): string | undefined => {
  const { endLine, linesCut, nextOffset, startLine, totalLines, totalLinesAtLeast } = metadata
  const total = totalLines !== undefined
    ? `${totalLines}`
    : totalLinesAtLeast !== undefined
    ? `at least ${totalLinesAtLeast}`
    : undefined
  const notes: Array<string> = []
  if (nextOffset !== undefined && startLine !== undefined && endLine !== undefined) {
    const range = total === undefined
      ? `Showing ${unit} ${startLine}-${endLine}; the output cap stopped the page before the end.`
      : startLine === 1
      ? `Showing first ${shown} of ${total} ${unit}.`
      : `Showing ${unit} ${startLine}-${endLine} of ${total}.`
    notes.push(`${range} Use offset=${nextOffset} to continue.`)
  }
  if (linesCut !== undefined && linesCut > 0) {
    notes.push(`${plural(linesCut, "line was", "lines were")} cut at ${Read.limits.maxLineLength} characters.`)
  }
  return notes.length === 0 ? undefined : `[Truncated: ${notes.join(" ")}]`
}

const summary = (result: Read.ReadResult, shown: number, timeMs: number, fallback: string | undefined): string => {
  const { endLine, kind, mime, size, startLine }: MetadataFields = result.metadata
  const where = `'${result.title}'`
  const took = `(Took ${timeMs}ms)`
  if (kind === "image" || kind === "pdf") {
    return `Read ${kind === "image" ? "image" : "PDF"} ${where} (${mime ?? "unknown type"}, ${
      plural(size, "byte", "bytes")
    }); it is in data.attachments.\n${took}`
  }
  // Text, directories, and every other kind that is shown as lines (entries for directories).
  const directory = kind === "directory"
  if (shown === 0) {
    return directory
      ? `Listed 0 entries of ${where} (directory is empty).`
      : kind === "text"
      ? `Read 0 lines from ${where} (file is empty).`
      : `Read 0 lines from ${where}.\n${took}`
  }
  const head = directory
    ? `Listed ${plural(shown, "entry", "entries")} of ${where} (Entries ${startLine}-${endLine}).`
    : `Read ${plural(shown, "line", "lines")} from ${where} (Lines ${startLine}-${endLine}).`
  const notes = [
    truncationNote(result.metadata, directory ? "entries" : "lines", shown),
    fallback === undefined
      ? undefined
      : `[Decoded with fallback '${fallback}': bytes that are not valid text were replaced.]`
  ].filter((note) => note !== undefined)
  return [head, took, ...notes].join("\n")
}

const isDirectoryError = (result: Read.ReadResult, options: RenderOptions): ErrorEnvelope => {
  const message = `Path '${result.title}' is a directory. Read a file inside it instead.`
  return {
    status: "error",
    data: { content: "", truncated: false },
    text: message,
    stats: { time_ms: timeOf(options), lines_read: 0, chars_read: 0, file_size_bytes: result.metadata.size },
    context: contextOf(options, result.title),
    error: { code: "IS_DIRECTORY", message }
  }
}

const timeOf = (options: RenderOptions): number => Math.max(0, Math.round(options.timeMs ?? 0))

const contextOf = (options: RenderOptions, pathResolved: string | undefined): Envelope["context"] => ({
  cwd: options.cwd ?? ".",
  params_input: options.params,
  ...(pathResolved === undefined ? {} : { path_resolved: pathResolved })
})

/** A successful read as an envelope (`IS_DIRECTORY` for a directory when `filesOnly`). */
export const fromResult = (result: Read.ReadResult, options: RenderOptions): Envelope => {
  const metadata = result.metadata
  const { startLine, totalLines }: MetadataFields = metadata
  if (metadata.kind === "directory" && options.filesOnly === true) return isDirectoryError(result, options)
  const lines = shownLines(result)
  const text = metadata.kind === "text"
  const { encoding, fallback } = text ? encodingOf(metadata) : { encoding: undefined, fallback: undefined }
  const timeMs = timeOf(options)
  return {
    status: metadata.truncated || fallback !== undefined ? "partial" : "success",
    data: {
      content: numberLines(lines, startLine ?? 1),
      truncated: metadata.truncated,
      ...(fallback === undefined ? {} : { fallback_encoding: fallback }),
      ...(result.attachments === undefined ? {} : { attachments: result.attachments })
    },
    text: summary(result, lines.length, timeMs, fallback),
    stats: {
      time_ms: timeMs,
      lines_read: lines.length,
      // Characters of the file, so a cut line's notice is not counted.
      chars_read: lines.reduce((sum, line) => sum + codePoints(line.replace(CUT_NOTICE, "")), 0),
      ...(totalLines === undefined ? {} : { total_lines: totalLines }),
      file_size_bytes: metadata.size,
      ...(metadata.mtime === undefined ? {} : { file_mtime_ms: metadata.mtime }),
      ...(encoding === undefined ? {} : { encoding })
    },
    context: contextOf(options, result.title)
  }
}

/**
 * Codes by error tag. A table rather than a `switch`, so an error added to `ReadError` later
 * still renders (as `READ_FAILED`) until it is given its own code.
 */
const codes: Readonly<Record<string, ErrorCode>> = {
  FileNotFound: "NOT_FOUND",
  PermissionDenied: "ACCESS_DENIED",
  BinaryFile: "BINARY_FILE",
  InvalidParams: "INVALID_PARAM",
  OffsetOutOfRange: "INVALID_PARAM",
  ColumnOutOfRange: "INVALID_PARAM",
  InvalidSelector: "INVALID_PARAM",
  NotAFile: "NOT_A_FILE",
  MediaTooLarge: "FILE_TOO_LARGE",
  InvalidMedia: "INVALID_MEDIA",
  ArchiveError: "READ_FAILED",
  DatabaseError: "READ_FAILED",
  ConversionFailed: "READ_FAILED",
  FileChanged: "READ_FAILED",
  ReadFailed: "READ_FAILED",
  FetchFailed: "READ_FAILED",
  MissingPackage: "READ_FAILED"
}

const fetchCode = (error: FetchFailed): ErrorCode | undefined =>
  error.problem === "address"
    ? "ACCESS_DENIED"
    : error.problem === "too-large"
    ? "FILE_TOO_LARGE"
    : error.status === 404 || error.status === 410
    ? "NOT_FOUND"
    : undefined

/**
 * The envelope code of a `ReadError`; an OS refusal (`EACCES`, `EPERM`) is `ACCESS_DENIED`, and
 * a failed fetch takes the code of the file failure it is like (refused, too large, not found).
 */
export const errorCode = (error: ReadError): ErrorCode =>
  error._tag === "ReadFailed" && (error.code === "EACCES" || error.code === "EPERM")
    ? "ACCESS_DENIED"
    : (error._tag === "FetchFailed" ? fetchCode(error) : undefined) ?? codes[error._tag] ?? "READ_FAILED"

/** A failed read as an envelope: `text` and `error.message` are the error's own message. */
export const fromError = (error: ReadError, options: RenderOptions): ErrorEnvelope => ({
  status: "error",
  data: { content: "", truncated: false },
  text: error.message,
  stats: {
    time_ms: timeOf(options),
    lines_read: 0,
    chars_read: 0,
    ...(error._tag === "OffsetOutOfRange" && error.unit === "lines" ? { total_lines: error.totalLines } : {})
  },
  context: contextOf(options, options.pathResolved),
  error: { code: errorCode(error), message: error.message }
})

/** Either outcome of a read as an envelope. */
export const render = (outcome: Either.Either<Read.ReadResult, ReadError>, options: RenderOptions): Envelope =>
  Either.match(outcome, {
    onLeft: (error) => fromError(error, options),
    onRight: (result) => fromResult(result, options)
  })

export interface ReadOptions {
  /** The caller wants files only: a directory is an `IS_DIRECTORY` error. */
  readonly filesOnly?: boolean | undefined
}

/**
 * `render` with the context taken from the session: `cwd` and `path_resolved` relative to the
 * workspace's project root. For callers that run and time `Read.read` themselves (the CLI).
 */
export const renderInWorkspace: (
  outcome: Either.Either<Read.ReadResult, ReadError>,
  options: { readonly params: unknown; readonly timeMs: number } & ReadOptions
) => Effect.Effect<Envelope, never, Path.Path | Workspace> = Effect.fn("Envelope.render")(function*(
  outcome: Either.Either<Read.ReadResult, ReadError>,
  options: { readonly params: unknown; readonly timeMs: number } & ReadOptions
) {
  const path = yield* Path.Path
  const workspace = yield* Workspace
  const relative = (absolute: string) => targetOf(path, workspace.worktree, path.resolve(absolute)).relative
  const params = options.params
  const requested = typeof params === "object" && params !== null && "filePath" in params &&
      typeof params.filePath === "string" && !params.filePath.includes("\0")
    ? path.resolve(workspace.directory, params.filePath)
    : undefined
  // Errors that name a path say where the read really led (after look-alike recovery).
  const errorPath = Either.isLeft(outcome) && "path" in outcome.left ? outcome.left.path : requested
  return render(outcome, {
    params,
    cwd: relative(workspace.directory),
    timeMs: options.timeMs,
    filesOnly: options.filesOnly,
    pathResolved: errorPath === undefined ? undefined : relative(errorPath)
  })
})

/**
 * `Read.readUnknown(params)`, timed, as an envelope. Never fails: every `ReadError` becomes an
 * `"error"` envelope.
 */
export const readEnvelope: (
  params: unknown,
  options?: ReadOptions
) => Effect.Effect<Envelope, never, Read.EffectRequirements> = Effect.fn("Envelope.read")(function*(
  params: unknown,
  options?: ReadOptions
) {
  const [duration, outcome] = yield* Effect.timed(Effect.either(Read.readUnknown(params)))
  return yield* renderInWorkspace(outcome, {
    params,
    timeMs: Duration.toMillis(duration),
    filesOnly: options?.filesOnly
  })
})
