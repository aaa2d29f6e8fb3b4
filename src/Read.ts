/**
 * The Read tool: `read(params)` resolves a path, asks permission, and hands the model numbered
 * lines, a directory listing, or an image/PDF attachment — streaming, in bounded memory.
 */
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { readFileSync } from "node:fs"
import { homedir } from "node:os"
import * as Anchors from "./Anchors.js"
import type { FileTime } from "./FileTime.js"
import * as Instructions from "./Instructions.js"
import { type DescriptionInput, renderDescription } from "./internal/core/description.js"
import { DEFAULT_LIMIT, MAX_BYTES, MAX_LINE_LENGTH } from "./internal/core/lines.js"
import { MAX_MEDIA_BYTES } from "./internal/core/media.js"
import { resolve } from "./internal/core/resolve.js"
import { withPatientFileSystem } from "./internal/io/descriptors.js"
import { withLeanSpan } from "./internal/io/spans.js"
import { Programmatic } from "./internal/read/audience.js"
import { appendDiagnostics } from "./internal/read/diagnostics.js"
import { readLocal, readScheme } from "./internal/read/dispatch.js"
import { isLeanRequest, LeanRead, readLean } from "./internal/read/lean.js"
import { headerLine, nextCall, selectorOf } from "./internal/read/next.js"
import { decodeExactly, decodeModelInput, imageOptionsMisplaced, ReadParams } from "./internal/read/params.js"
import { defaults as defaultSources } from "./internal/sources/builtins.js"
import {
  Description,
  type DescriptionShape,
  DiagnosticsOnRead,
  ImageLimits,
  Notices,
  PageLimits,
  PdfPageImages
} from "./Limits.js"
import type { Lsp } from "./Lsp.js"
import { ModelInput, type ModelInputShape } from "./ModelInput.js"
import { installed as installedPackages, purposes } from "./OptionalPackages.js"
import type { Permission } from "./Permission.js"
import { InvalidParams, type ReadError } from "./ReadError.js"
import { isPaged, type MetadataFields, type ReadResult } from "./ReadResult.js"
import * as Secrets from "./Secrets.js"
import * as SessionMemory from "./SessionMemory.js"
import { Sources } from "./Sources.js"
import type { Workspace } from "./Workspace.js"

/**
 * The default caps of a page.
 *
 * @deprecated The caps in force are `Limits.PageLimits` (a host sets them with `Limits.layer({ page:
 * { … } })`); these are only its defaults.
 */
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

/** @deprecated The tunables live in `Limits` (`Limits.layer` sets them); these names stay for 0.1 hosts. */
export {
  HostMedia,
  type HostMediaShape,
  ImageLimits,
  type ImageLimitsShape,
  QueryLimits,
  type QueryLimitsShape,
  RecoveryLimits,
  type RecoveryLimitsShape,
  StructureDefaults,
  type StructureDefaultsShape,
  WebLimits,
  type WebLimitsShape
} from "./Limits.js"
/** How many PDF pages one `pageImages` read renders (a `Context.Reference`: 5). @deprecated In `Limits`. */
export { PdfPageImages, type PdfPageImagesShape } from "./Limits.js"
/** Diagnostics on read (a `Context.Reference`: only when asked, at most 5 s, 20 diagnostics, 4 KB). @deprecated In `Limits`. */
export { DiagnosticsOnRead, type DiagnosticsOnReadShape } from "./Limits.js"

/**
 * Reads for the host itself, not for the model (`Read.programmatic(effect)`; `Programmatic` is the
 * reference it sets): they neither seed nor consume session memory's stubs, record nothing in the
 * ledger (an Edit guard does not count them) and show no nearby instructions.
 */
export { Programmatic, programmatic } from "./internal/read/audience.js"

/** The templates of the model-facing description: `prompts/read.txt` and its short form. */
const templates = {
  full: readFileSync(new URL("../prompts/read.txt", import.meta.url), "utf8"),
  short: readFileSync(new URL("../prompts/read-short.txt", import.meta.url), "utf8")
} as const

/** What the description is generated from (the host's registry, packages, caps and model). */
export type { DescriptionInput }

/**
 * The description for exactly this input, in either form (pure): only the sources, schemes and
 * optional packages named are described, with the caps given. `description` gathers the input
 * from the services in force.
 */
export const describe = (input: DescriptionInput, form: DescriptionShape["form"] = "full"): string =>
  renderDescription(templates[form], input)

/** The description's input when nothing is set: the default registry, caps and model, every package there. */
export const defaultDescriptionInput: DescriptionInput = {
  sources: defaultSources.map((source) => source.name),
  schemes: ["file", "http", "https"],
  installed: Object.keys(purposes),
  modelInput: { images: true, pdfs: true },
  page: PageLimits.defaultValue(),
  maxDimension: ImageLimits.defaultValue().maxDimension,
  pdfPages: PdfPageImages.defaultValue().maxPages
}

/** What the description is made of, from the services in force (`description` renders it). */
export const descriptionInput: Effect.Effect<DescriptionInput> = Effect.gen(function*() {
  const registry = yield* Sources
  return {
    sources: registry.sources.map((source) => source.name),
    schemes: [...registry.schemes.keys()],
    installed: yield* installedPackages,
    modelInput: yield* ModelInput,
    page: yield* PageLimits,
    maxDimension: (yield* ImageLimits).maxDimension,
    pdfPages: (yield* PdfPageImages).maxPages
  }
})

/**
 * The model-facing description of the tool, generated from what the host has: the sources and
 * schemes of its registry (`Sources`) whose optional packages are installed (`OptionalPackages`),
 * the caps in force (`Limits.PageLimits`, `ImageLimits`, `PdfPageImages`), what the model takes
 * (`ModelInput`), in the form the host asked for (`Limits.Description`: full, or short at most
 * 1.5 KB). A source the host turned off or cannot load is not described.
 */
export const description: Effect.Effect<string> = Effect.gen(function*() {
  const { form } = yield* Description
  return describe(yield* descriptionInput, form)
})

/** The full description with every default (every package installed): what a host that sets nothing sends. */
export const defaultDescription: string = describe(defaultDescriptionInput)

/**
 * The description for a model that takes `input` (`ModelInput`), everything else at its default:
 * what it says of images and PDFs is what that model will get; for a text-only model it names no
 * attachment.
 *
 * @deprecated Use `description` with the `ModelInput` provided (it follows the registry, the
 * packages and the caps in force too).
 */
export const descriptionFor = (input: ModelInputShape): string =>
  describe({ ...defaultDescriptionInput, modelInput: input })

/** The parameters of `read` (a schema: JSON Schema for a tool definition, a decoder for model input). */
export { ReadParams, views } from "./internal/read/params.js"

/** A schema failure as the model reads it: each issue with the parameter it concerns. */
export { invalidParams } from "./internal/read/params.js"

/** The result types, re-exported: `Read.ReadResult`, `Read.ReadMetadata`, `Read.Attachment`. */
export { Attachment, ReadMetadata, ReadResult } from "./ReadResult.js"

/**
 * Read a file, directory or URL for the model. The path's meanings are resolved (scheme, as
 * written, container, selector), access is checked on the one that applies, the registered
 * source that claims it reads it (`Sources`), and a file read is recorded in `FileTime` and warms
 * the language server. What the types cannot say (whole numbers, ranges, a known encoding, no
 * other key) is checked: a call that breaks it fails with `InvalidParams`. For input from a
 * model (JSON of any shape), use `readUnknown`.
 */
export const read = (params: ReadParams): Effect.Effect<ReadResult, ReadError, EffectRequirements> =>
  // The read path's spans name each phase for tracing; none captures a call-site stack (a
  // capture on every call costs more than a small read's bytes).
  withLeanSpan(readBody(params), "Read.read", { provide: withPatientFileSystem })

const readBody = Effect.fnUntraced(function*(input: ReadParams) {
  const params = isPlainRequest(input) ? input : yield* decodeExactly(ReadParams)(input)
  if (params.offset !== undefined && params.offset < 0 && params.column !== undefined) {
    return yield* new InvalidParams({
      reason:
        "column continues one line: pass it with that line's number as offset, not with a negative offset (a tail)"
    })
  }
  const context = yield* Effect.context<never>()
  const registry = yield* Sources
  const home = homedir()
  const resolved = resolve(params.filePath, {
    schemes: registry.schemes,
    containers: registry.containers.map((source) => source.container),
    home
  })
  // The common read (a small file's lines) takes the straight way when it can (`internal/read/lean.ts`).
  const lean = resolved._tag === "Local" && isLeanRequest(params) && Context.get(context, LeanRead)
    ? yield* readLean(resolved.meanings, params)
    : undefined
  const result = withNext(
    params,
    resolved._tag === "Scheme" ? resolved : undefined,
    lean ?? (yield* resolved._tag === "Scheme"
      ? readScheme(resolved, params, home)
      : readLocal(params.filePath, params, home))
  )
  // Region, frame and full resolution are for images (a selector's are checked where it is parsed).
  const misplaced = imageOptionsMisplaced(params, undefined, result)
  if (misplaced !== undefined) return yield* misplaced
  if (params.pageImages === true && !("pageImages" in result.metadata && result.metadata.pageImages !== undefined)) {
    return yield* new InvalidParams({
      reason: `pageImages applies to PDF files; ${result.metadata.path} is read as ${result.metadata.kind}`
    })
  }
  // What follows is off by default; each step is taken only when it is on (the settings are
  // read at once from the context).
  const masking = Context.get(context, Secrets.Masking).enabled
  // A hashline read says why it has no anchor; it is never a stub (a stub carries no anchor).
  // With a session memory (off by default), held lines of an unchanged file are a short stub.
  // A view (conflicts, outline, …) is not the lines it names: it is never replaced by a stub.
  // A programmatic read (the host's own) is not in the model's context: no stub, nothing remembered.
  if (Context.get(context, Programmatic)) {
    const own = params.lineFormat === "hashline" ? Anchors.explainOmitted(result) : result
    return masking ? yield* Secrets.apply(own) : own
  }
  const shown = params.lineFormat === "hashline"
    ? Anchors.explainOmitted(result)
    : ("conflicts" in result.metadata && result.metadata.conflicts !== undefined) ||
        ("search" in result.metadata && result.metadata.search !== undefined) ||
        ("structure" in result.metadata && result.metadata.structure !== undefined) ||
        !Context.get(context, SessionMemory.SessionMemory).enabled
    ? result
    : yield* SessionMemory.apply(params, result)
  // The file's diagnostics (when asked, bounded in time) after the page.
  const checked = (params.diagnostics ?? Context.get(context, DiagnosticsOnRead).severity) === undefined
    ? shown
    : yield* appendDiagnostics(params.diagnostics, shown)
  // Nearby instructions (off by default): AGENTS.md files this session was not shown, once.
  const full = Context.get(context, Instructions.Instructions).enabled ? yield* Instructions.append(checked) : checked
  // The host's one-line header (off by default): what is shown and the next read, first.
  const headed = Context.get(context, Notices).header ? withHeader(params, full) : full
  // Secret values masked (off by default) in all of it: the page, a diff of session memory,
  // instructions, archive members, web pages.
  return masking ? yield* Secrets.apply(headed) : headed
})

/**
 * A request as typed callers most often write it, `{ filePath }` with a path the schema takes:
 * what decoding would give is the request itself (anything else is decoded, and fails the same).
 */
const isPlainRequest = (input: unknown): input is ReadParams => {
  if (typeof input !== "object" || input === null || Object.getPrototypeOf(input) !== Object.prototype) return false
  let keys = 0
  for (const key in input) {
    if (key !== "filePath" || ++keys > 1) return false
  }
  const filePath = (input as { readonly filePath?: unknown }).filePath
  return typeof filePath === "string" && filePath.length > 0 && !filePath.includes("\0")
}

/**
 * The result with `metadata.next`, the read that continues it (a source may have set it; else it
 * is rebuilt from the request, its selector and what was shown).
 */
const withNext = (
  params: ReadParams,
  scheme: { readonly url: string; readonly selector: string | undefined } | undefined,
  result: ReadResult
): ReadResult => {
  const metadata: MetadataFields = result.metadata
  if (metadata.next !== undefined || !(isPaged(result.metadata) || result.metadata.kind === "database")) return result
  const { base, selection } = selectorOf(params.filePath, scheme, metadata.path ?? params.filePath)
  const next = nextCall(params, base, selection, metadata)
  return next === undefined ? result : { ...result, metadata: { ...result.metadata, next } as ReadResult["metadata"] }
}

/** The output led by the host's one-line header, when the result is shown in parts. */
const withHeader = (params: ReadParams, result: ReadResult): ReadResult => {
  const line = headerLine(params, result.metadata)
  return line === undefined ? result : { ...result, output: `${line}\n${result.output}` }
}

/** The services `read` needs; every one is swappable by layer. */
export type EffectRequirements =
  | FileSystem.FileSystem
  | Path.Path
  | Workspace
  | Permission
  | Lsp
  | FileTime

/**
 * `read` for input from a model or any JSON: the arguments as a tool call carries them are
 * decoded against `ReadParams` (after the mends every door applies: an integer written as a
 * string, `null` for a parameter left out), so a malformed call is an `InvalidParams` that names
 * what is wrong, never a defect. The tool doors (`ReadTool`, `McpServer`, `Envelope`) use it.
 */
export const readUnknown = (input: unknown): Effect.Effect<ReadResult, ReadError, EffectRequirements> =>
  Effect.flatMap(decodeModelInput(ReadParams)(input), read)
