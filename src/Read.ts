/**
 * The Read tool: `read(params)` resolves a path, asks permission, and hands the model numbered
 * lines, a directory listing, or an image/PDF attachment — streaming, in bounded memory.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { readFileSync } from "node:fs"
import { homedir } from "node:os"
import { fileURLToPath } from "node:url"
import { FileTime } from "./FileTime.js"
import { checkAccess, resolveTarget } from "./internal/access.js"
import { readHead } from "./internal/bytes.js"
import { withPatientFileSystem } from "./internal/descriptors.js"
import { encodingExamples, encodingExists } from "./internal/encoding.js"
import { readDirectory, readTree } from "./internal/directory.js"
import { readFile } from "./internal/file.js"
import { recoverMissing } from "./internal/notFound.js"
import { fromPlatformError, isNotFound } from "./internal/platformError.js"
import { containerCandidates, isSqliteHeader } from "./internal/containers.js"
import { noSelection, parseSelector, SelectorError, splitSelector } from "./internal/selector.js"
import { readArchive } from "./internal/sources/archive.js"
import { readDatabase } from "./internal/sources/database.js"
import { DEFAULT_LIMIT, MAX_BYTES, MAX_LINE_LENGTH } from "./internal/lines.js"
import { MAX_MEDIA_BYTES } from "./internal/media.js"
import { Lsp } from "./Lsp.js"
import { Permission } from "./Permission.js"
import type { ReadResult } from "./ReadResult.js"
import { FileChanged, InvalidParams, InvalidSelector, NotAFile, type ReadError } from "./ReadError.js"
import { Workspace } from "./Workspace.js"

/** The limits `read` applies; the model-facing description (`prompts/read.txt`) states them. */
export const limits = {
  /** Lines per page when `limit` is not given. */
  defaultLimit: DEFAULT_LIMIT,
  /** Characters (UTF-16 code units) shown of one line. */
  maxLineLength: MAX_LINE_LENGTH,
  /** Bytes of output per page. */
  maxBytes: MAX_BYTES,
  /** Largest image or PDF attached. */
  maxMediaBytes: MAX_MEDIA_BYTES
} as const

/** Bounds of the workspace walk behind path recovery (a `Context.Reference`: 2 s, 50,000 entries). */
export { RecoveryLimits, type RecoveryLimitsShape } from "./internal/notFound.js"
/** Limits for attached images (a `Context.Reference`: 2000 px per side, 5 MB encoded, 100 megapixels). */
export { ImageLimits, type ImageLimitsShape } from "./internal/sources/image.js"
/** The time budget of a database read's statements (a `Context.Reference`: 5 s). */
export { QueryLimits, type QueryLimitsShape } from "./internal/sources/database/executor.js"

/** The model-facing description of the tool, from `prompts/read.txt`. */
export const description: string = readFileSync(new URL("../prompts/read.txt", import.meta.url), "utf8")

export const ReadParams = Schema.Struct({
  filePath: Schema.String.pipe(
    Schema.minLength(1, { message: () => "filePath must not be empty" }),
    // `jsonSchema: {}` keeps the field's description in generated JSON Schemas.
    Schema.filter((path) => !path.includes("\0"), { message: () => "filePath must not contain a NUL byte", jsonSchema: {} })
  ).annotations({
    description: "The path of the file or directory to read: absolute, or relative to the working directory"
  }),
  offset: Schema.optionalWith(
    Schema.Int.pipe(Schema.nonNegative({ message: () => "offset must be a line number (1-based; 0 means 1)" })),
    { exact: true }
  ).annotations({
    description: "The line number to start reading from (1-based; 0 is treated as 1). Only for large files."
  }),
  column: Schema.optionalWith(
    Schema.Int.pipe(Schema.greaterThanOrEqualTo(1, { message: () => "column must be at least 1" })),
    { exact: true }
  ).annotations({
    description:
      `The character (1-based) at which to start the line at offset, to read on in a line cut at ${MAX_LINE_LENGTH} characters. Default 1.`
  }),
  limit: Schema.optionalWith(
    Schema.Int.pipe(Schema.greaterThanOrEqualTo(1, { message: () => "limit must be at least 1" })),
    { exact: true }
  ).annotations({
    description: `The maximum number of lines to read (default ${DEFAULT_LIMIT}). Only for large files.`
  }),
  encoding: Schema.optionalWith(
    Schema.String.pipe(
      Schema.filter((name) => encodingExists(name), {
        message: (issue) =>
          `unknown encoding ${JSON.stringify(issue.actual)}; use a WHATWG or iconv-lite encoding name such as ${encodingExamples}, or leave encoding out to detect it`,
        jsonSchema: {}
      })
    ),
    { exact: true }
  ).annotations({
    description:
      "Text files only: decode the file in this encoding instead of the detected one (e.g. \"shift_jis\", \"windows-1252\", \"iso-2022-jp\", \"cp949\"). Only when the detected encoding (shown when it is not UTF-8) is wrong."
  }),
  view: Schema.optionalWith(Schema.Literal("list", "tree"), { exact: true }).annotations({
    description:
      "Directories only: \"list\" (default) names every entry; \"tree\" shows two levels with sizes and ages, at most 12 entries per sub-directory, skipping .gitignored files, node_modules, .git and build output. Same as the :tree path selector."
  })
}).annotations({ identifier: "ReadParams", title: "Read parameters" })
export type ReadParams = typeof ReadParams.Type

/** The result types, re-exported: `Read.ReadResult`, `Read.ReadMetadata`, `Read.Attachment`. */
export { Attachment, ReadMetadata, ReadResult } from "./ReadResult.js"

/** A schema failure as the model should read it: each issue with the parameter it concerns. */
export const invalidParams = (error: ParseResult.ParseError): InvalidParams =>
  new InvalidParams({
    reason: ParseResult.ArrayFormatter.formatErrorSync(error)
      .map((issue) => issue.path.length > 0 ? `${issue.path.join(".")}: ${issue.message}` : issue.message)
      .join("; ")
  })

const decodeParams = (input: unknown): Effect.Effect<ReadParams, InvalidParams> =>
  Schema.decodeUnknown(ReadParams, { onExcessProperty: "error" })(input).pipe(Effect.mapError(invalidParams))

const notAFileKinds: Record<string, string> = {
  FIFO: "named pipe (FIFO)",
  Socket: "socket",
  CharacterDevice: "character device",
  BlockDevice: "block device",
  Unknown: "special file"
}

/**
 * Read a file or directory for the model. Accepts unknown input and validates it against
 * `ReadParams`, so a model's malformed call is an `InvalidParams`, not a defect.
 */
export const read: (
  input: ReadParams | unknown
) => Effect.Effect<ReadResult, ReadError, EffectRequirements> = Effect.fn("Read.read")(function*(
  input: ReadParams | unknown
) {
  const params = yield* decodeParams(input)
  const workspace = yield* Workspace
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path

  const requested = expandPath(params.filePath)
  const exists = (absolute: string) =>
    fs.stat(absolute).pipe(Effect.map((info) => Option.some(info)), Effect.orElseSucceed(() => Option.none()))
  // A container that is there but cannot be stat'ed or opened is that error (EIO, EACCES), not
  // a path that does not exist.
  const containerInfo = (absolute: string) =>
    fs.stat(absolute).pipe(
      Effect.map(Option.some),
      Effect.catchIf(isNotFound, () => Effect.succeed(Option.none())),
      Effect.mapError((error) => fromPlatformError(absolute, error))
    )
  const hasSqliteHeader = (absolute: string) =>
    fs.open(absolute, { flag: "r" }).pipe(
      Effect.flatMap((file) => readHead(file, 16)),
      Effect.map(isSqliteHeader),
      Effect.scoped,
      Effect.mapError((error) => fromPlatformError(absolute, error))
    )
  const explicit = params.offset !== undefined || params.limit !== undefined || params.column !== undefined

  // The path as written wins: a file really named `notes:12` is read, not line 12 of `notes`.
  let target = yield* resolveTarget(requested)
  let written = requested
  let selection = noSelection
  // Unless `..` follows a colon: `a.zip:pkg/..` must not resolve to the directory holding a.zip.
  const literal = /:(.*[\\/])?\.\.([\\/]|$)/.test(requested) ? Option.none() : yield* exists(target.absolute)
  // A leading `:` asks for the literal path after it: `:/abs/notes:12`, `:./backup.zip:old`.
  const forced = Option.isNone(literal) && params.filePath.startsWith(":") && params.filePath.length > 1
  if (forced) {
    written = expandPath(params.filePath.slice(1))
    target = yield* resolveTarget(written)
  } else if (Option.isNone(literal)) {
    for (const candidate of containerCandidates(requested)) {
      const container = yield* resolveTarget(candidate.path)
      const info = yield* containerInfo(container.absolute)
      // A `.db` that is not a SQLite database is a plain file: `notes.db:5` is line 5 of it.
      const isContainer = Option.isSome(info) && info.value.type === "File" &&
        (candidate.kind === "archive" || (yield* hasSqliteHeader(container.absolute)))
      if (Option.isSome(info) && isContainer) {
        // Archives page members and listings by offset/limit too; a database query says its own paging.
        if (explicit && candidate.kind === "database" && candidate.inner.length > 0) {
          yield* selectorWithParams(params.filePath)
        }
        const checked = yield* checkAccess(container)
        const kind = candidate.kind
        return yield* onceMoreIfChanged(
          checked.absolute,
          info.value,
          (current): Effect.Effect<ReadResult, ReadError, EffectRequirements> => {
            const request = { target: checked, info: current, inner: candidate.inner, params }
            return kind === "archive" ? readArchive(request) : readDatabase(request)
          }
        )
      }
    }
    const split = splitSelector(requested)
    if (split.selector !== undefined) {
      const parsed = parseSelector(split.selector)
      if (parsed instanceof SelectorError) {
        return yield* new InvalidSelector({ path: path.resolve(workspace.directory, split.path), reason: parsed.message })
      }
      // `report.pdf:pages=3-5` picks pages; offset/limit still page the text they convert to.
      const pagesOnly = parsed.ranges.length === 0 && !parsed.raw && parsed.pages !== undefined
      if (explicit && !pagesOnly) yield* selectorWithParams(params.filePath)
      target = yield* resolveTarget(split.path)
      written = split.path
      selection = parsed
    }
  }
  target = yield* checkAccess(target)

  const statOf = (absolute: string) =>
    fs.stat(absolute).pipe(Effect.mapError((error) => fromPlatformError(absolute, error)))
  const found = yield* fs.stat(target.absolute).pipe(
    Effect.map(Option.some),
    Effect.catchIf(isNotFound, () => Effect.succeed(Option.none())),
    Effect.mapError((error) => fromPlatformError(target.absolute, error))
  )
  // A path recovered by a suffix match says so on its first line.
  let note: string | undefined
  if (Option.isNone(found)) {
    const recovered = yield* recoverMissing(target, written)
    note = recovered.note
    target = yield* checkAccess(recovered.target)
  }
  const stat = Option.isSome(found) ? found.value : yield* statOf(target.absolute)

  if (stat.type === "Directory") {
    if (selection.ranges.length > 1) {
      return yield* new InvalidSelector({
        path: target.absolute,
        reason: "Multi-range line selectors are not supported for directory listings."
      })
    }
    const range = selection.ranges[0]
    const listing = range === undefined
      ? params
      : { offset: range.start, ...(range.end === undefined ? {} : { limit: range.end - range.start + 1 }) }
    // The flat listing stays the default (the opencode contract); a tree is asked for.
    return yield* params.view === "tree" || selection.tree === true
      ? readTree(target, stat, listing, note)
      : readDirectory(target, stat, listing, note)
  }
  if (stat.type !== "File") {
    return yield* new NotAFile({ path: target.absolute, kind: notAFileKinds[stat.type] ?? "special file" })
  }
  if (selection.tree === true) {
    return yield* new InvalidSelector({
      path: target.absolute,
      reason: `The :tree selector shows a directory as a tree; ${target.absolute} is a file.`
    })
  }
  const opened = target
  const fileResult = yield* onceMoreIfChanged(
    target.absolute,
    stat,
    (current) => readFile(opened, current, params, selection, note)
  )
  // Sources that do not print the note themselves (media, containers) get it as a first line.
  const result = note === undefined || fileResult.output.startsWith(note)
    ? fileResult
    : { ...fileResult, output: `${note}\n${fileResult.output}` }

  const fileTime = yield* FileTime
  yield* fileTime.read(workspace.sessionId, target.absolute)
  const lsp = yield* Lsp
  // The language server only warms up for later edits: never let it fail or delay the read.
  yield* lsp.touchFile(target.absolute).pipe(
    Effect.timeout("30 seconds"),
    Effect.catchAllCause((cause) => Effect.logDebug("Lsp.touchFile failed", cause)),
    Effect.forkDaemon
  )
  return result
}, withPatientFileSystem)

/**
 * A file that changed under the read (shrunk, rewritten, replaced) is read once more, from a
 * fresh `stat`: the new version is usually stable by then. If it changes again, the answer is
 * the first change (it says what the file was when the read began).
 */
const onceMoreIfChanged = <A, E, R>(
  absolute: string,
  info: FileSystem.File.Info,
  attempt: (info: FileSystem.File.Info) => Effect.Effect<A, E | FileChanged, R>
) =>
  attempt(info).pipe(
    Effect.catchIf(
      (error): error is FileChanged => error instanceof FileChanged,
      (changed) =>
        Effect.flatMap(FileSystem.FileSystem, (fs) => fs.stat(absolute)).pipe(
          Effect.orElseFail(() => changed),
          Effect.flatMap((current) => current.type === "File" ? attempt(current) : Effect.fail(changed)),
          Effect.catchIf((error): error is FileChanged => error instanceof FileChanged, () => Effect.fail(changed))
        )
    )
  )

/** `~` is the home directory; `file://` URLs are paths. */
const expandPath = (input: string): string => {
  if (/^file:\/\//i.test(input)) {
    try {
      return fileURLToPath(input)
    } catch {
      return input
    }
  }
  return input === "~" ? homedir() : input.startsWith("~/") ? `${homedir()}${input.slice(1)}` : input
}

const selectorWithParams = (filePath: string) =>
  new InvalidParams({
    reason: `the path '${filePath}' has a selector; do not also pass offset, limit or column (use one or the other)`
  })

/** The services `read` needs; every one is swappable by layer. */
export type EffectRequirements =
  | FileSystem.FileSystem
  | Path.Path
  | Workspace
  | Permission
  | Lsp
  | FileTime
