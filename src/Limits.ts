/**
 * Every tunable of a read, in one place: each a `Context.Reference` holding its defaults, so a
 * program that sets nothing reads with the values written here, and a host sets what it wants
 * with one layer:
 *
 * ```ts
 * Limits.layer({ image: { maxDimension: 1568 }, web: { timeout: "10 seconds" }, lockTimeout: "5 seconds" })
 * ```
 *
 * `layer` takes a partial record: each group given is merged over what is in force where the
 * layer is built (the defaults, or an outer `Limits.layer`), so a host names only what it
 * changes. One reference can also be provided alone, per program or per call
 * (`Effect.provideService(Limits.ImageLimits, { ... })`).
 *
 * Units are in the names or the comments: bytes are UTF-8 bytes of output unless said otherwise,
 * durations are `Duration.DurationInput` (`"10 seconds"`, `Duration.seconds(10)`, milliseconds).
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { DEFAULT_LIMIT, MAX_BYTES, MAX_LINE_LENGTH } from "./internal/core/lines.js"
import { MAX_MEDIA_BYTES } from "./internal/core/media.js"
import { OUTLINE_ROWS } from "./internal/core/structureViews.js"
import { ModelInput, type ModelInputShape } from "./ModelInput.js"

// -----------------------------------------------------------------------------
// A page
// -----------------------------------------------------------------------------

export interface PageLimitsShape {
  /** Lines on a page when `limit` is not given (default 2000). */
  readonly lines: number
  /** Characters (UTF-16 code units) shown of one line before it is cut (default 2000). */
  readonly lineLength: number
  /** Bytes of output on one page (default 51,200: 50 KB). */
  readonly bytes: number
  /** Bytes of the largest image or PDF attached (default 20 MB). */
  readonly mediaBytes: number
  /** Entries on a page of a directory listing when `limit` is not given (default 2000). */
  readonly directoryEntries: number
}

/**
 * The caps of one page of a read, as every source and view pages by them: text files of any size
 * and encoding, tails, search, archives and their members, databases, notebooks, documents, web
 * pages, directories and trees, the structure views, `read_many`. The tool's description, the
 * parameters' descriptions (`limit`'s default) and every footer and notice state the values in
 * force (`Output capped at 8 KB.`), never these defaults. `Limits.layer({ page: { lines: 500 } })`
 * sets them (checked: a nonsensical cap fails the layer with `InvalidLimits`); CLI and MCP
 * server: `--max-lines`, `--max-line-length`, `--max-bytes`, `--max-media-bytes`,
 * `--max-directory-entries`.
 */
export class PageLimits extends Context.Reference<PageLimits>()("effect-read/Limits/PageLimits", {
  defaultValue: (): PageLimitsShape => ({
    lines: DEFAULT_LIMIT,
    lineLength: MAX_LINE_LENGTH,
    bytes: MAX_BYTES,
    mediaBytes: MAX_MEDIA_BYTES,
    directoryEntries: DEFAULT_LIMIT
  })
}) {}

// -----------------------------------------------------------------------------
// Sources
// -----------------------------------------------------------------------------

export interface ImageLimitsShape {
  /** Pixels on the longest side; a larger image is scaled down to fit (default 2000). */
  readonly maxDimension: number
  /** Bytes of the attached image, encoded; a larger one is re-encoded smaller (default 5 MB). */
  readonly maxBytes: number
  /** Images with more pixels are refused rather than decoded, a decompression bomb guard (default 100,000,000). */
  readonly maxPixels: number
  /** Pixels on the longest side of a full-resolution read (`fullResolution`) (default 8000). */
  readonly maxFullDimension?: number | undefined
}

/** The limits of attached images: 2000 px per side, 5 MB encoded, 100 megapixels decoded, 8000 px at full resolution. */
export class ImageLimits extends Context.Reference<ImageLimits>()("effect-read/ImageLimits", {
  defaultValue: (): ImageLimitsShape => ({
    maxDimension: 2000,
    maxBytes: 5 * 1024 * 1024,
    maxPixels: 100_000_000,
    maxFullDimension: 8000
  })
}) {}

export interface WebLimitsShape {
  /** Time the network part of a read may take in all (DNS, connecting, every hop, the body); not time spent asking permission (default 30 s). */
  readonly timeout: Duration.DurationInput
  /** Bytes of the largest body read, after decompression; reading stops there (default 10 MB). */
  readonly maxBytes: number
  /** Redirects followed before giving up (default 5). */
  readonly maxRedirects: number
  /**
   * How long a fetched page is kept for reads that continue it (an offset, a range, a tail), so
   * its pages come from one response (default 10 minutes; 0 keeps none). A read from its start
   * always fetches anew.
   */
  readonly keepFor?: Duration.DurationInput | undefined
}

/** The bounds of fetching a web page: 30 s, 10 MB, 5 redirects, pages kept 10 minutes. */
export class WebLimits extends Context.Reference<WebLimits>()("effect-read/WebLimits", {
  defaultValue: (): WebLimitsShape => ({
    timeout: Duration.seconds(30),
    maxBytes: 10 * 1024 * 1024,
    maxRedirects: 5,
    keepFor: Duration.minutes(10)
  })
}) {}

export interface QueryLimitsShape {
  /** Time a database read's statements may take (raw `?q=` queries, pages, samples, row lookups); past it the query process is killed and the read fails with a `DatabaseError` saying so (default 5 s). */
  readonly timeout: Duration.DurationInput
  /** Query processes kept waiting for the next read (default 2). */
  readonly idleProcesses?: number | undefined
  /** How long an idle query process is kept (default 30 s). */
  readonly idleTimeout?: Duration.DurationInput | undefined
}

/** The time budget of a database read, and the query processes kept for the next: 5 s; 2 kept for 30 s. */
export class QueryLimits extends Context.Reference<QueryLimits>()("effect-read/QueryLimits", {
  defaultValue: (): QueryLimitsShape => ({
    timeout: Duration.seconds(5),
    idleProcesses: 2,
    idleTimeout: Duration.seconds(30)
  })
}) {}

// -----------------------------------------------------------------------------
// Around the read
// -----------------------------------------------------------------------------

export interface RecoveryLimitsShape {
  /** How long listing the workspace for a suffix match may take; past it, nothing is resolved (default 2 s). */
  readonly timeout: Duration.DurationInput
  /** Entries the listing may visit; past it, nothing is resolved (default 50,000). */
  readonly maxEntries: number
}

/**
 * The bounds of listing the workspace behind path recovery (2 s, 50,000 entries). A listing cut
 * short by either never resolves a path (a match it found might not be unique); its matches are
 * still offered as suggestions.
 */
export class RecoveryLimits extends Context.Reference<RecoveryLimits>()("effect-read/RecoveryLimits", {
  defaultValue: (): RecoveryLimitsShape => ({ timeout: Duration.seconds(2), maxEntries: 50_000 })
}) {}

export interface ReadManyLimitsShape {
  /** Files per call, named and matched together (default 20). */
  readonly maxFiles: number
  /** Bytes of output for the whole call (UTF-8), shared between the files (default 51,200: 50 KB). */
  readonly maxBytes: number
  /** Files read at once (default 2). */
  readonly concurrency: number
  /** Directory entries a glob may visit before it stops (default 10,000). */
  readonly globMaxEntries: number
  /** Bytes of attachments (images, PDFs as data URLs) for the whole call (default 20 MB). */
  readonly maxAttachmentBytes: number
}

/** The bounds of `readMany`: 20 files, 50 KB, 2 at once, 10,000 glob entries, 20 MB of attachments. */
export class ReadManyLimits extends Context.Reference<ReadManyLimits>()("effect-read/ReadManyLimits", {
  defaultValue: (): ReadManyLimitsShape => ({
    maxFiles: 20,
    maxBytes: MAX_BYTES,
    concurrency: 2,
    globMaxEntries: 10_000,
    maxAttachmentBytes: 20 * 1024 * 1024
  })
}) {}

/**
 * How long an operation of the SQL store (`SqlFileTime`, `SqlSessionMemory`, `SqliteFileTime`)
 * waits for a lock another connection holds before it fails: SQLite's write lock (another process
 * writing, migrating, checkpointing, backing up), a PostgreSQL deadlock or serialization failure.
 * Default 60 s; provided to a store's layer, it holds for everything the layer does, from its
 * migrations on.
 */
export class LockTimeout extends Context.Reference<LockTimeout>()("effect-read/SqlStore/LockTimeout", {
  defaultValue: (): Duration.Duration => Duration.seconds(60)
}) {}

export interface FileTimeLimitsShape {
  /**
   * (session, file) pairs the in-memory ledger (`FileTime.layerMemory`) remembers; past it, the one
   * read longest ago is forgotten first, and an edit guard on it answers `FileNotRead` (default 10,000).
   * It also remembers this many forked subagents exactly (`FileTime.fork`), older ones in a 128 KiB filter.
   */
  readonly maxFiles: number
}

/** The bound of the in-memory read ledger: 10,000 files per layer. */
export class FileTimeLimits extends Context.Reference<FileTimeLimits>()("effect-read/FileTime/MemoryLimits", {
  defaultValue: (): FileTimeLimitsShape => ({ maxFiles: 10_000 })
}) {}

export interface PdfPageImagesShape {
  /** Most pages rendered in one read (default 5). */
  readonly maxPages: number
}

/**
 * How many PDF pages one read renders as images (`pageImages: true`; default 5): every page is an
 * attachment the model pays for.
 */
export class PdfPageImages extends Context.Reference<PdfPageImages>()("effect-read/PdfPageImages", {
  defaultValue: (): PdfPageImagesShape => ({ maxPages: 5 })
}) {}

export interface DiagnosticsOnReadShape {
  /** Diagnostics for every read, without the parameter: `undefined` (default: only when asked), "errors" or "warnings". */
  readonly severity: "errors" | "warnings" | undefined
  /** Longest a read waits for its file's diagnostics. Default 5 seconds. */
  readonly wait: Duration.DurationInput
  /** Diagnostics shown at most. Default 20. */
  readonly maxCount: number
  /** Bytes of diagnostics shown at most (each message cut to fit). Default 4 KB. */
  readonly maxBytes: number
}

/** Diagnostics on read: only when asked, waiting at most 5 s, at most 20 diagnostics and 4 KB. */
export class DiagnosticsOnRead extends Context.Reference<DiagnosticsOnRead>()("effect-read/DiagnosticsOnRead", {
  defaultValue: (): DiagnosticsOnReadShape => ({ severity: undefined, wait: "5 seconds", maxCount: 20, maxBytes: 4096 })
}) {}

// -----------------------------------------------------------------------------
// What the host wants
// -----------------------------------------------------------------------------

/** What the model takes besides text (images, PDFs; default both): `ModelInput`, settable here too. */
export { ModelInput, type ModelInputShape }

export interface DescriptionShape {
  /**
   * `"full"` (default): the tool's description says everything the enabled sources do;
   * `"short"`: at most 1.5 KB, for hosts that pay for every byte of `tools/list`.
   */
  readonly form: "full" | "short"
}

/** Which form of the tool's description a host wants (`Read.description`): full by default. */
export class Description extends Context.Reference<Description>()("effect-read/Description", {
  defaultValue: (): DescriptionShape => ({ form: "full" })
}) {}

export interface StructureDefaultsShape {
  /**
   * Answer an unbounded read of a file that would be cut (more than a page: 2000 lines or 50 KB)
   * with its outline instead of its first page (default off: the first page).
   */
  readonly outlineWhenTruncated: boolean
  /**
   * The rows an outline aims for when no `levels` is asked (default 250): it shows the deepest
   * levels whose rows fit (and the page), folding deeper declarations into counted rows.
   */
  readonly outlineRows?: number | undefined
}

/** How a host wants structure used: where it was not asked for (default off), and an outline's size. */
export class StructureDefaults extends Context.Reference<StructureDefaults>()("effect-read/StructureDefaults", {
  defaultValue: (): StructureDefaultsShape => ({ outlineWhenTruncated: false, outlineRows: OUTLINE_ROWS })
}) {}

export interface NoticesShape {
  /**
   * Put one line before each paged result, ahead of `<path>`: what it shows and the read that
   * continues it (`metadata.next`), e.g. `(Lines 1-2000 of 5,000 shown. Next: read
   * {"filePath":"src/a.ts","offset":2001})`, so a host that cuts the output's tail (and the
   * footer with it) still leaves the model a way on (default off: the output as opencode's).
   */
  readonly header: boolean
}

/** Where a result's notices go (default: the footer only). */
export class Notices extends Context.Reference<Notices>()("effect-read/Limits/Notices", {
  defaultValue: (): NoticesShape => ({ header: false })
}) {}

export interface HostMediaShape {
  /** `"attach"`: a PDF is an attachment (unless lines or pages are asked for); `"text"`: its text (default `"attach"`). */
  readonly pdf: "attach" | "text"
}

/**
 * What the host can carry to its model besides text. A library host on `@effect/ai` puts a PDF
 * into the prompt as a file part (OpenAI and Anthropic both take PDFs), so a PDF is attached by
 * default; a door whose hosts mostly cannot (MCP: text and image blocks are all a host is sure to
 * pass on) asks for the PDF's text instead, which `read` then pages like any document.
 */
export class HostMedia extends Context.Reference<HostMedia>()("effect-read/HostMedia", {
  defaultValue: (): HostMediaShape => ({ pdf: "attach" })
}) {}

// -----------------------------------------------------------------------------
// Setting them
// -----------------------------------------------------------------------------

/** Any field of `S`, each optional; `undefined` is as good as left out. */
export type Partially<S> = { readonly [K in keyof S]?: S[K] | undefined }

/** What a host may set: any group, any field of it; what is left out keeps the value in force. */
export interface Settings {
  readonly page?: Partially<PageLimitsShape> | undefined
  readonly image?: Partially<ImageLimitsShape> | undefined
  readonly web?: Partially<WebLimitsShape> | undefined
  readonly query?: Partially<QueryLimitsShape> | undefined
  readonly recovery?: Partially<RecoveryLimitsShape> | undefined
  readonly readMany?: Partially<ReadManyLimitsShape> | undefined
  readonly fileTime?: Partially<FileTimeLimitsShape> | undefined
  readonly structure?: Partially<StructureDefaultsShape> | undefined
  readonly hostMedia?: Partially<HostMediaShape> | undefined
  readonly notices?: Partially<NoticesShape> | undefined
  readonly pdfPageImages?: Partially<PdfPageImagesShape> | undefined
  readonly diagnostics?: Partially<DiagnosticsOnReadShape> | undefined
  readonly modelInput?: Partially<ModelInputShape> | undefined
  readonly description?: Partially<DescriptionShape> | undefined
  readonly lockTimeout?: Duration.DurationInput | undefined
}

/**
 * A setting no read could honour (a page of 0 lines, a negative byte cap, a timeout that is not a
 * duration): the layer that sets it fails with this, naming the setting, at start-up — never a
 * silent clamp.
 */
export class InvalidLimits extends Schema.TaggedError<InvalidLimits>()("InvalidLimits", {
  /** `page.lines`, `image.maxDimension`, … */
  setting: Schema.String,
  /** The value given, as text. */
  value: Schema.String,
  /** What the setting must be. */
  expected: Schema.String
}) {
  override get message(): string {
    return `Invalid limit ${this.setting}: ${this.value} (${this.expected})`
  }
}

/** Whole numbers at least `min`: the caps that count lines, bytes, pixels, entries, files. */
const wholeAtLeast = (min: number) => (value: unknown): string | undefined =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= min
    ? undefined
    : `a whole number of at least ${min.toLocaleString("en-US")}`

const duration = (value: unknown): string | undefined => {
  const decoded = Duration.decodeUnknown(value)
  return decoded._tag === "Some" && Duration.toMillis(decoded.value) >= 0
    ? undefined
    : "a duration such as \"10 seconds\""
}

const oneOf = (...values: ReadonlyArray<unknown>) => (value: unknown): string | undefined =>
  values.includes(value) ? undefined : `one of ${values.map((v) => JSON.stringify(v)).join(", ")}`

const boolean = (value: unknown): string | undefined => typeof value === "boolean" ? undefined : "true or false"

/**
 * What each setting must be. A page needs room for its header and footer (`bytes` ≥ 1 KB); a
 * line cut shorter than 16 characters leaves nothing to read.
 */
const rules: {
  readonly [G in Exclude<keyof Settings, "lockTimeout">]-?: Record<string, (value: unknown) => string | undefined>
} = {
  page: {
    lines: wholeAtLeast(1),
    lineLength: wholeAtLeast(16),
    bytes: wholeAtLeast(1024),
    mediaBytes: wholeAtLeast(1),
    directoryEntries: wholeAtLeast(1)
  },
  image: {
    maxDimension: wholeAtLeast(16),
    maxBytes: wholeAtLeast(1024),
    maxPixels: wholeAtLeast(1),
    maxFullDimension: wholeAtLeast(16)
  },
  web: { timeout: duration, maxBytes: wholeAtLeast(1), maxRedirects: wholeAtLeast(0), keepFor: duration },
  query: { timeout: duration, idleProcesses: wholeAtLeast(0), idleTimeout: duration },
  recovery: { timeout: duration, maxEntries: wholeAtLeast(0) },
  readMany: {
    maxFiles: wholeAtLeast(1),
    maxBytes: wholeAtLeast(1024),
    concurrency: wholeAtLeast(1),
    globMaxEntries: wholeAtLeast(1),
    maxAttachmentBytes: wholeAtLeast(0)
  },
  fileTime: { maxFiles: wholeAtLeast(1) },
  structure: { outlineWhenTruncated: boolean, outlineRows: wholeAtLeast(1) },
  hostMedia: { pdf: oneOf("attach", "text") },
  notices: { header: boolean },
  pdfPageImages: { maxPages: wholeAtLeast(1) },
  diagnostics: {
    severity: oneOf("errors", "warnings", undefined),
    wait: duration,
    maxCount: wholeAtLeast(1),
    maxBytes: wholeAtLeast(256)
  },
  modelInput: { images: boolean, pdfs: boolean },
  description: { form: oneOf("full", "short") }
}

const show = (value: unknown): string =>
  typeof value === "string"
    ? JSON.stringify(value)
    : typeof value === "object" && value !== null
    ? JSON.stringify(value)
    : String(value)

/**
 * The first setting no read could honour, or `undefined` when all are sound (fields given as
 * `undefined` are left out, as `layer` treats them). An unknown group or field is refused too: a
 * misspelt cap would otherwise be silently ignored.
 */
export const check = (settings: Settings): InvalidLimits | undefined => {
  for (const [group, fields] of Object.entries(settings)) {
    if (fields === undefined) continue
    if (group === "lockTimeout") {
      const reason = duration(fields)
      if (reason !== undefined) return new InvalidLimits({ setting: group, value: show(fields), expected: reason })
      continue
    }
    const groupRules = (rules as Record<string, Record<string, (value: unknown) => string | undefined>>)[group]
    if (groupRules === undefined) {
      return new InvalidLimits({
        setting: group,
        value: show(fields),
        expected: `a group of ${Object.keys(rules).join(", ")}, lockTimeout`
      })
    }
    for (const [field, value] of Object.entries(fields as object)) {
      if (value === undefined) continue
      const rule = groupRules[field]
      const reason = rule === undefined ? `a field of ${group}: ${Object.keys(groupRules).join(", ")}` : rule(value)
      if (reason !== undefined) {
        return new InvalidLimits({ setting: `${group}.${field}`, value: show(value), expected: reason })
      }
    }
  }
  return undefined
}

/** `partial` over the value of `reference` in force where the layer is built. */
const over = <I, S extends object>(reference: Context.Reference<I, S>, partial: Partially<S> | undefined) =>
  partial === undefined
    ? Layer.empty
    : Layer.effect(reference, Effect.map(reference, (current): S => ({ ...current, ...withoutUndefined(partial) })))

/** Fields given as `undefined` keep the value in force, as fields left out do. */
const withoutUndefined = <S extends object>(partial: Partially<S>): Partial<S> =>
  Object.fromEntries(Object.entries(partial).filter(([, value]) => value !== undefined)) as Partial<S>

/**
 * The limits a host sets, each group merged over the value in force: `Limits.layer({ page: {
 * lines: 500 }, web: { timeout: "10 seconds" } })`. Provide it with the other layers of `read`.
 * A setting no read could honour fails the layer with `InvalidLimits` when it is built.
 */
export const layer = (settings: Settings): Layer.Layer<never, InvalidLimits> => {
  const invalid = check(settings)
  return invalid === undefined ? layerChecked(settings) : Layer.fail(invalid)
}

const layerChecked = (settings: Settings): Layer.Layer<never> =>
  Layer.mergeAll(
    over(PageLimits, settings.page),
    over(ImageLimits, settings.image),
    over(WebLimits, settings.web),
    over(QueryLimits, settings.query),
    over(RecoveryLimits, settings.recovery),
    over(ReadManyLimits, settings.readMany),
    over(FileTimeLimits, settings.fileTime),
    over(StructureDefaults, settings.structure),
    over(HostMedia, settings.hostMedia),
    over(Notices, settings.notices),
    over(PdfPageImages, settings.pdfPageImages),
    over(DiagnosticsOnRead, settings.diagnostics),
    over(ModelInput, settings.modelInput),
    over(Description, settings.description),
    settings.lockTimeout === undefined ? Layer.empty : Layer.succeed(LockTimeout, Duration.decode(settings.lockTimeout))
  )

/** Every limit's value in force, as one record (for a door that states them, or a test). */
export const current: Effect.Effect<{
  readonly page: PageLimitsShape
  readonly image: ImageLimitsShape
  readonly web: WebLimitsShape
  readonly query: QueryLimitsShape
  readonly recovery: RecoveryLimitsShape
  readonly readMany: ReadManyLimitsShape
  readonly fileTime: FileTimeLimitsShape
  readonly structure: StructureDefaultsShape
  readonly hostMedia: HostMediaShape
  readonly notices: NoticesShape
  readonly pdfPageImages: PdfPageImagesShape
  readonly diagnostics: DiagnosticsOnReadShape
  readonly modelInput: ModelInputShape
  readonly description: DescriptionShape
  readonly lockTimeout: Duration.Duration
}> = Effect.all({
  page: PageLimits,
  image: ImageLimits,
  web: WebLimits,
  query: QueryLimits,
  recovery: RecoveryLimits,
  readMany: ReadManyLimits,
  fileTime: FileTimeLimits,
  structure: StructureDefaults,
  hostMedia: HostMedia,
  notices: Notices,
  pdfPageImages: PdfPageImages,
  diagnostics: DiagnosticsOnRead,
  modelInput: ModelInput,
  description: Description,
  lockTimeout: LockTimeout
})
