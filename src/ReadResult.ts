/**
 * What a read returns: the model's text, metadata about what was shown, and attachments. Every
 * source builds one; this module imports nothing of theirs, so any of them can import it.
 */
import * as Schema from "effect/Schema"

export const Attachment = Schema.Struct({
  type: Schema.Literal("file"),
  mime: Schema.String,
  url: Schema.String.annotations({ description: "A data: URL with the base64 content" })
})
export type Attachment = typeof Attachment.Type

/**
 * Every field a result's metadata may carry, in the order they are written on the wire (each
 * kind below picks its own, in this order). A field's comment says which kinds set it.
 */
/**
 * The read that continues a truncated result: the parameters to pass to `read` (a subset of its
 * parameters; a path that carried a selector is rebuilt, so this is the whole call).
 */
const opt = <S extends Schema.Schema.Any>(schema: S) => Schema.optionalWith(schema, { exact: true })

export const Next = Schema.Struct({
  filePath: Schema.String,
  offset: opt(Schema.Number),
  limit: opt(Schema.Number),
  encoding: opt(Schema.String),
  lineFormat: opt(Schema.Literal("hashline")),
  view: opt(Schema.Literal("list", "tree", "outline", "summary", "block", "conflicts")),
  levels: opt(Schema.Number),
  search: opt(Schema.String),
  context: opt(Schema.Union(Schema.Literal("syntax"), Schema.Number))
}).annotations({
  identifier: "Next",
  // In a JSON Schema, where it repeats in every kind's metadata (an MCP tool's `outputSchema`
  // goes out with `tools/list`): an object with a path; `ReadParams` says the rest.
  jsonSchema: { type: "object", required: ["filePath"], properties: { filePath: { type: "string" } } }
})
export type Next = typeof Next.Type

const fields = {
  /** The resolved absolute path. */
  path: Schema.String,
  /** The first 20 shown lines (or entries), without numbers. */
  preview: Schema.String,
  /** More content exists than was shown: later lines or entries, or lines cut at the length cap. */
  truncated: Schema.Boolean,
  /** First and last shown line (entry for directories), 1-based; absent when nothing was shown. */
  startLine: Schema.optional(Schema.Number),
  endLine: Schema.optional(Schema.Number),
  /** Text read by several ranges (`:5-16,960-973`): the ranges shown; the lines between them were not. */
  ranges: Schema.optional(Schema.Array(Schema.Struct({ start: Schema.Number, end: Schema.Number }))),
  /** Lines in the file (entries in the directory), when known. */
  totalLines: Schema.optional(Schema.Number),
  /** When the total is not known: lines known to exist. */
  totalLinesAtLeast: Schema.optional(Schema.Number),
  /** The character the first shown line starts at, when reading on in a long line. */
  column: Schema.optional(Schema.Number),
  /** The `offset` that continues this read, when there is more. */
  nextOffset: Schema.optional(Schema.Number),
  /**
   * The read that continues this one, when it was cut (a page, a directory page, a page of
   * matches, rows or declarations, an outline's folded levels): pass it to `read` as it is.
   */
  next: Schema.optional(Next),
  /** Shown lines cut to the line-length cap. */
  linesCut: Schema.optional(Schema.Number),
  /** File size in bytes (web pages: body bytes received). */
  size: Schema.Number,
  /** Modification time, epoch milliseconds. */
  mtime: Schema.optional(Schema.Number),
  mime: Schema.optional(Schema.String),
  /** Text: the encoding it was decoded from (`utf-8`, `utf-16le`, `shift_jis`, …). */
  encoding: Schema.optional(Schema.String),
  /** Text: the file starts with a byte-order mark (not shown). */
  bom: Schema.optional(Schema.Boolean),
  /** Text: the line terminators seen in the part that was read. */
  lineEnding: Schema.optional(Schema.Literal("lf", "crlf", "cr", "mixed", "none")),
  /** Text: the file ends with a line terminator. */
  finalNewline: Schema.optional(Schema.Boolean),
  /** Text: some bytes were invalid in the encoding and are shown as U+FFFD. */
  invalidBytesReplaced: Schema.optional(Schema.Boolean),
  /** Images: the file's pixel size (as displayed, EXIF orientation applied) and format (`png`, `jpeg`, `gif`, `webp`). */
  width: Schema.optional(Schema.Number),
  height: Schema.optional(Schema.Number),
  format: Schema.optional(Schema.String),
  /** Images: the frames of an animated image (described: of any image). */
  frames: Schema.optional(Schema.Number),
  /** Images: the frame shown (1-based), when one was asked for. */
  frame: Schema.optional(Schema.Number),
  /** Images: the part shown, in the original image's pixels, when one was asked for. */
  region: Schema.optional(
    Schema.Struct({ x: Schema.Number, y: Schema.Number, width: Schema.Number, height: Schema.Number })
  ),
  /** Text read with `diagnostics`: what the language server found (counted as asked), how many are shown, or that it did not answer in time. */
  diagnostics: Schema.optional(Schema.Struct({
    errors: Schema.Number,
    warnings: Schema.Number,
    shown: Schema.Number,
    timedOut: Schema.optional(Schema.Boolean)
  })),
  /** PDFs read with `pageImages`: the pages attached as images, in order. */
  pageImages: Schema.optional(Schema.Array(Schema.Number)),
  /** Images: attached pixels per original pixel, when the image (or region) was downscaled. */
  scale: Schema.optional(Schema.Number),
  /** Images: what was attached, when the file was resized or re-encoded to fit the image limits. */
  attached: Schema.optional(Schema.Struct({
    width: Schema.Number,
    height: Schema.Number,
    format: Schema.String,
    mime: Schema.String,
    size: Schema.Number
  })),
  /** Web pages: the URL the content came from (after redirects), its HTTP status and `Content-Type` header. */
  url: Schema.optional(Schema.String),
  status: Schema.optional(Schema.Number),
  contentType: Schema.optional(Schema.String),
  /**
   * A structure view (outline, summary, block): the view shown (a summary over a page is an
   * outline), the engine and language that found the structure, the text's lines, the
   * declarations found (an outline of lines `A-B`: those in them), for a summary the spans and
   * lines it hid, for an outline the levels shown.
   */
  structure: Schema.optional(Schema.Struct({
    view: Schema.Literal("outline", "summary", "block"),
    engine: Schema.String,
    language: Schema.optional(Schema.String),
    lines: Schema.Number,
    declarations: Schema.Number,
    spans: Schema.Number,
    elidedLines: Schema.Number,
    /** An outline: the levels shown (1: the outermost declarations), the levels its declarations nest to, and how many deeper ones were folded into counted rows. */
    levels: Schema.optional(Schema.Number),
    depth: Schema.optional(Schema.Number),
    folded: Schema.optional(Schema.Number)
  })),
  /**
   * A search (`search`, `:/re/`): the expression as asked, the matches in the whole text, the
   * numbers (1-based, among matches) of the first and last shown, and the lines of those shown.
   */
  search: Schema.optional(Schema.Struct({
    pattern: Schema.String,
    matches: Schema.Number,
    first: Schema.optional(Schema.Number),
    last: Schema.optional(Schema.Number),
    lines: Schema.Array(Schema.Number)
  })),
  /** The `conflicts` view: merge-conflict regions found (nested ones included), and how many are malformed. */
  conflicts: Schema.optional(Schema.Struct({ regions: Schema.Number, malformed: Schema.Number })),
  /** Directories: `"tree"` when rendered as a tree (absent for the flat listing). */
  view: Schema.optional(Schema.Literal("tree")),
  /** Session memory: the output is the unchanged stub; these lines are still in the conversation. */
  unchanged: Schema.optional(Schema.Boolean),
  /**
   * Session memory: the file changed since this session's last read of it; the output leads with a
   * notice (and `diff`: a unified diff against what the session was shown). Lines removed and added
   * within the lines shown then, and elsewhere, when the versions were compared.
   */
  changed: Schema.optional(Schema.Struct({
    diff: Schema.Boolean,
    removed: Schema.optional(Schema.Number),
    added: Schema.optional(Schema.Number),
    outsideRemoved: Schema.optional(Schema.Number),
    outsideAdded: Schema.optional(Schema.Number)
  })),
  /** `lineFormat: "hashline"` was applied: lines are `N:text`. */
  lineFormat: Schema.optional(Schema.Literal("hashline")),
  /** Hashline reads: the `¶PATH#TAG` header the lines were shown under (an Edit names it). */
  anchor: Schema.optional(Schema.String),
  /** Hashline was asked for and no anchor given: why (read-only source, `:raw`, a file over 4 MiB …). */
  anchorOmitted: Schema.optional(Schema.String),
  /**
   * Secret values masked (`Secrets.layerMask`): how many, the file's lines they were on (when the
   * output numbers them), and how many of each kind (`GitHub token`, `password`, `private key`, …).
   */
  masked: Schema.optional(Schema.Struct({
    secrets: Schema.Number,
    lines: Schema.Array(Schema.Number),
    kinds: Schema.Record({ key: Schema.String, value: Schema.Number })
  })),
  /** Nearby instructions appended (a `<system-reminder>` after the output): their absolute paths. */
  loaded: Schema.optional(Schema.Array(Schema.String))
}

type Field = keyof typeof fields

/** The fields every kind carries: what was read, and what the steps after the source add to any result. */
const common = [
  "path",
  "preview",
  "truncated",
  "size",
  "mtime",
  "changed",
  "anchorOmitted",
  "masked",
  "loaded"
] as const

/** A result shown as numbered lines or entries, paged (`offset`/`limit`). */
const paged = ["startLine", "endLine", "totalLines", "nextOffset", "next"] as const

/** Text, as a source decoded and presented it: the pager's lines, its encoding, its views. */
const text = [
  ...paged,
  "ranges",
  "totalLinesAtLeast",
  "column",
  "linesCut",
  "mime",
  "encoding",
  "bom",
  "lineEnding",
  "finalNewline",
  "invalidBytesReplaced",
  "structure",
  "search",
  "conflicts",
  "lineFormat",
  "anchor",
  "diagnostics"
] as const

/** Where a web page's content came from. */
const fetched = ["url", "status", "contentType"] as const

const order = Object.keys(fields) as ReadonlyArray<Field>

/** The metadata of one kind: `kind`, then its fields in wire order. */
const metadataOf = <const Kind extends string, const Names extends ReadonlyArray<Field>>(kind: Kind, names: Names) => {
  const picked = order.filter((name) => names.includes(name))
  return Schema.Struct({
    kind: Schema.Literal(kind),
    ...(Object.fromEntries(picked.map((name) => [name, fields[name]])) as Pick<typeof fields, Names[number]>)
  }).annotations({ identifier: `${kind[0]!.toUpperCase()}${kind.slice(1)}Metadata` })
}

/** A text file (any encoding), or text a host's own source holds in memory. */
export const TextMetadata = metadataOf("text", [...common, ...text, "unchanged"])
/** A directory: the flat listing (entries as lines), or the tree (`view: "tree"`). */
export const DirectoryMetadata = metadataOf("directory", [...common, ...paged, "view"])
/** An attached image: its own size and format, and what was attached when it had to be fitted. */
export const ImageMetadata = metadataOf("image", [
  ...common,
  "mime",
  "width",
  "height",
  "format",
  "frames",
  "frame",
  "region",
  "scale",
  "attached",
  ...fetched
])
/** An attached PDF, or its pages as images (`pageImages`). */
export const PdfMetadata = metadataOf("pdf", [...common, "mime", "pageImages", ...fetched])
/** An archive: its listing, or a member's text. */
export const ArchiveMetadata = metadataOf("archive", [...common, ...text])
/** A SQLite database: its tables, a table's schema and rows, or a query's rows. */
export const DatabaseMetadata = metadataOf("database", [...common, "next"])
/** A Jupyter notebook, as cells and outputs. */
export const NotebookMetadata = metadataOf("notebook", [...common, ...text])
/** An office document, an EPUB or a PDF's text, converted to text. */
export const DocumentMetadata = metadataOf("document", [...common, ...text])
/** A web page, converted to text (HTML as Markdown). */
export const WebMetadata = metadataOf("web", [...common, ...text, ...fetched])

/** What a result says about what was shown: one schema per `kind`. */
export const ReadMetadata = Schema.Union(
  TextMetadata,
  DirectoryMetadata,
  ImageMetadata,
  PdfMetadata,
  ArchiveMetadata,
  DatabaseMetadata,
  NotebookMetadata,
  DocumentMetadata,
  WebMetadata
).annotations({ identifier: "ReadMetadata" })
export type ReadMetadata = typeof ReadMetadata.Type

/**
 * Every field any kind may carry, each optional (absent where a kind has none): any metadata is
 * one (`const fields: MetadataFields = result.metadata`), for code that reads a field whatever
 * the kind, as a renderer does. To know which fields a kind sets, narrow on `kind` instead.
 */
export type MetadataFields = { readonly kind: ReadMetadata["kind"] } & Partial<Schema.Struct.Type<typeof fields>>

/** The kinds shown as numbered lines, or entries (`startLine`-`endLine` of `totalLines`, `nextOffset`). */
export type PagedMetadata = Exclude<ReadMetadata, ImageMetadata | PdfMetadata | DatabaseMetadata>

/** The kinds whose content is text a source decoded (its encoding, line endings, views), paged by line. */
export type TextualMetadata = Exclude<PagedMetadata, DirectoryMetadata>

/** Is it shown as numbered lines or entries? */
export const isPaged = (metadata: ReadMetadata): metadata is PagedMetadata =>
  metadata.kind !== "image" && metadata.kind !== "pdf" && metadata.kind !== "database"

/** Is it text a source decoded? */
export const isTextual = (metadata: ReadMetadata): metadata is TextualMetadata =>
  isPaged(metadata) && metadata.kind !== "directory"

export type TextMetadata = typeof TextMetadata.Type
export type DirectoryMetadata = typeof DirectoryMetadata.Type
export type ImageMetadata = typeof ImageMetadata.Type
export type PdfMetadata = typeof PdfMetadata.Type
export type ArchiveMetadata = typeof ArchiveMetadata.Type
export type DatabaseMetadata = typeof DatabaseMetadata.Type
export type NotebookMetadata = typeof NotebookMetadata.Type
export type DocumentMetadata = typeof DocumentMetadata.Type
export type WebMetadata = typeof WebMetadata.Type

export const ReadResult = Schema.Struct({
  /** The path relative to the worktree (absolute when outside it). */
  title: Schema.String,
  /** Exactly what the model reads. */
  output: Schema.String,
  metadata: ReadMetadata,
  attachments: Schema.optional(Schema.Array(Attachment))
}).annotations({ identifier: "ReadResult" })
export type ReadResult = typeof ReadResult.Type
