/**
 * The Read tool: `read(params)` resolves a path, asks permission, and hands the model numbered
 * lines, a directory listing, or an image/PDF attachment — streaming, in bounded memory.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { readFileSync } from "node:fs"
import { homedir } from "node:os"
import * as Anchors from "./Anchors.js"
import { FileTime } from "./FileTime.js"
import * as Instructions from "./Instructions.js"
import { withPatientFileSystem } from "./internal/io/descriptors.js"
import { readLocal, readScheme } from "./internal/read/dispatch.js"
import { mend } from "./internal/read/decode.js"
import { encodingExamples, encodingExists } from "./internal/core/encoding.js"
import { DEFAULT_LIMIT, MAX_BYTES, MAX_LINE_LENGTH } from "./internal/core/lines.js"
import { MAX_MEDIA_BYTES } from "./internal/core/media.js"
import { resolve } from "./internal/core/resolve.js"
import { DEFAULT_CONTEXT, DEFAULT_MATCHES, MAX_CONTEXT } from "./internal/core/search.js"
import { Lsp } from "./Lsp.js"
import { Permission } from "./Permission.js"
import type { ReadResult } from "./ReadResult.js"
import { InvalidParams, type ReadError } from "./ReadError.js"
import * as Secrets from "./Secrets.js"
import * as SessionMemory from "./SessionMemory.js"
import { Sources } from "./Sources.js"
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
export { RecoveryLimits, type RecoveryLimitsShape } from "./internal/read/recovery.js"
/** Limits for attached images (a `Context.Reference`: 2000 px per side, 5 MB encoded, 100 megapixels). */
export { ImageLimits, type ImageLimitsShape } from "./internal/sources/media.js"
/** What the host carries besides text (a `Context.Reference`: PDFs attached; the MCP server asks for their text). */
export { HostMedia, type HostMediaShape } from "./internal/sources/hostMedia.js"
/** Structure used unasked: a `Context.Reference`, off by default (an unbounded read a page would cut answered with its outline). */
export { StructureDefaults, type StructureDefaultsShape } from "./internal/present/structure.js"
/** The bounds of fetching a web page (a `Context.Reference`: 30 s, 10 MB, 5 redirects). */
export { WebLimits, type WebLimitsShape } from "./internal/sources/webLimits.js"
/** The time budget of a database read's statements, and the query processes kept for the next (a `Context.Reference`: 5 s; 2, 30 s). */
export { QueryLimits, type QueryLimitsShape } from "./internal/sources/databaseExecutor.js"

/** The model-facing description of the tool, from `prompts/read.txt`. */
export const description: string = readFileSync(new URL("../prompts/read.txt", import.meta.url), "utf8")

/** The values of `view`: directories `list` and `tree`; files the text views. */
export const views = ["list", "tree", "outline", "summary", "block", "conflicts"] as const

export const ReadParams = Schema.Struct({
  filePath: Schema.String.pipe(
    Schema.minLength(1, { message: () => "filePath must not be empty" }),
    // `jsonSchema: {}` keeps the field's description in generated JSON Schemas.
    Schema.filter((path) => !path.includes("\0"), { message: () => "filePath must not contain a NUL byte", jsonSchema: {} })
  ).annotations({
    description: "The path of the file or directory to read: absolute, or relative to the working directory; or an http(s):// URL"
  }),
  offset: Schema.optionalWith(
    Schema.Int.annotations({ message: () => "offset must be a whole number: a line number (1-based; 0 means 1), or -N for the last N lines" }),
    { exact: true }
  ).annotations({
    description:
      "The line number to start reading from (1-based; 0 is treated as 1). Only for large files. A negative offset -N reads the last N lines (a tail, with their true line numbers); limit then counts from the first of them."
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
        // Effect asks for this message for a value that is not a string too (and then shows its
        // own "Expected string"): it must not throw on a BigInt or a circular object.
        message: (issue) =>
          `unknown encoding ${
            typeof issue.actual === "string" ? JSON.stringify(issue.actual) : typeof issue.actual
          }; use a WHATWG or iconv-lite encoding name such as ${encodingExamples}, or leave encoding out to detect it`,
        jsonSchema: {}
      })
    ),
    { exact: true }
  ).annotations({
    description:
      "Text files only: decode the file in this encoding instead of the detected one (e.g. \"shift_jis\", \"windows-1252\", \"iso-2022-jp\", \"cp949\"). Only when the detected encoding (shown when it is not UTF-8) is wrong."
  }),
  lineFormat: Schema.optionalWith(Schema.Literal("hashline"), { exact: true }).annotations({
    description:
      "Only when your edit tool takes ¶ anchors: \"hashline\" shows an editable text file as a first line ¶PATH#TAG (TAG names this version of the whole file) and lines as N:text. Read-only sources (archive members, databases, web pages) and :raw are shown as usual and say why."
  }),
  view: Schema.optionalWith(Schema.Literal(...views), { exact: true }).annotations({
    description:
      "Directories: \"list\" (default) names every entry; \"tree\" shows two levels with sizes and ages, at most 12 entries per sub-directory, skipping .gitignored files, node_modules, .git and build output (:tree). Files (also archive members and web pages), to see structure before bodies: \"outline\" lists the declarations (functions, classes, headings, keys) as `A-B: header`, offset/limit counting declarations (:outline); \"summary\" shows the file with bodies of 4+ lines folded into `A-B: … ` rows that name the hidden lines (:summary); \"block\" shows the whole declaration around line offset, with its comments (:N:block); \"conflicts\" shows only the unresolved git merge-conflict regions with line numbers and ours/base/theirs labels (:conflicts)."
  }),
  levels: Schema.optionalWith(
    Schema.Int.pipe(Schema.greaterThanOrEqualTo(1, { message: () => "levels must be at least 1" })),
    { exact: true }
  ).annotations({
    description:
      "view \"block\" only: 1 (default) shows the innermost declaration around the line, 2 the one around that, and so on."
  }),
  search: Schema.optionalWith(
    Schema.String.pipe(Schema.minLength(1, { message: () => "search must not be empty" })),
    { exact: true }
  ).annotations({
    description:
      `A regular expression (JavaScript syntax; /regex/i or a leading (?i) ignores case): show only the lines that match, as N: text, with context lines as N- text and -- between windows; the footer gives the total number of matches. offset/limit then count matches (default ${DEFAULT_MATCHES} a page). Also as a selector: path:/regex/i.`
  }),
  context: Schema.optionalWith(
    Schema.Union(
      Schema.Literal("syntax"),
      Schema.Int.pipe(
        Schema.between(0, MAX_CONTEXT, { message: () => `context must be "syntax" or a number of lines from 0 to ${MAX_CONTEXT}` })
      )
    ),
    { exact: true }
  ).annotations({
    description:
      `With search: the lines shown before and after each match (0-${MAX_CONTEXT}, default ${DEFAULT_CONTEXT}). Otherwise "syntax": widen the range you ask for (offset/limit or a :A-B selector) to the whole statements or declarations it cuts, at most 20 lines each side; the footer says which lines were added. Ranges are never widened otherwise.`
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

/** Parameters decoded exactly, after the mends every door applies (`internal/read/decode.ts`). */
const decodeParams = (input: unknown): Effect.Effect<ReadParams, InvalidParams> =>
  Schema.decodeUnknown(ReadParams, { onExcessProperty: "error" })(mend(ReadParams.ast, input)).pipe(
    Effect.mapError(invalidParams)
  )

/**
 * Read a file, directory or URL for the model. Accepts unknown input and validates it against
 * `ReadParams`, so a model's malformed call is an `InvalidParams`, not a defect. The path's
 * meanings are resolved (scheme, as written, container, selector), access is checked on the one
 * that applies, the registered source that claims it reads it (`Sources`), and a file read is
 * recorded in `FileTime` and warms the language server.
 */
export const read: (
  input: ReadParams | unknown
) => Effect.Effect<ReadResult, ReadError, EffectRequirements> = Effect.fn("Read.read")(function*(
  input: ReadParams | unknown
) {
  const params = yield* decodeParams(input)
  if (params.offset !== undefined && params.offset < 0 && params.column !== undefined) {
    return yield* new InvalidParams({
      reason: "column continues one line: pass it with that line's number as offset, not with a negative offset (a tail)"
    })
  }
  const registry = yield* Sources
  const home = homedir()
  const resolved = resolve(params.filePath, {
    schemes: registry.schemes,
    containers: registry.containers.map((source) => source.container),
    home
  })
  const result = yield* resolved._tag === "Scheme"
    ? readScheme(resolved, params, home)
    : readLocal(params.filePath, params, home)
  // A hashline read says why it has no anchor; it is never a stub (a stub carries no anchor).
  // With a session memory (off by default), held lines of an unchanged file are a short stub.
  // A view (conflicts, outline, …) is not the lines it names: it is never replaced by a stub.
  const shown = params.lineFormat === "hashline"
    ? Anchors.explainOmitted(result)
    : ("conflicts" in result.metadata && result.metadata.conflicts !== undefined) ||
        ("search" in result.metadata && result.metadata.search !== undefined) ||
        ("structure" in result.metadata && result.metadata.structure !== undefined)
    ? result
    : yield* SessionMemory.apply(params, result)
  // Nearby instructions (off by default): AGENTS.md files this session was not shown, once.
  const full = yield* Instructions.append(shown)
  // Secret values masked (off by default) in all of it: the page, a diff of session memory,
  // instructions, archive members, web pages.
  return yield* Secrets.apply(full)
}, withPatientFileSystem)

/** The services `read` needs; every one is swappable by layer. */
export type EffectRequirements =
  | FileSystem.FileSystem
  | Path.Path
  | Workspace
  | Permission
  | Lsp
  | FileTime
