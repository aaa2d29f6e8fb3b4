/**
 * The sources behind `read`, as one ordered registry. A file source claims a file by what is
 * known of it (extension, first bytes, the request); a scheme source answers `scheme://…` paths.
 * The first file source that claims a file reads it; what none claims is refused as binary.
 *
 * The registry is a `Context.Reference` holding `defaults`, so `read` needs no layer for it; an
 * agent server adds or removes sources with a layer:
 *
 * ```ts
 * const withSkills = Sources.layer([skills, ...Sources.defaults])
 * ```
 *
 * Order matters: a source placed before the defaults wins over them for what it claims; the
 * default `text` source claims every file whose first bytes are not binary, so a source meant for
 * text files goes before it.
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { Selection } from "./internal/core/selector.js"
import { memoryPageAt, memoryTailAt } from "./internal/present/pages.js"
import { presentText } from "./internal/present/text.js"
import * as builtins from "./internal/sources/builtins.js"
import type {
  FileFacts,
  FileSource,
  FileSourceRequest,
  Params,
  SchemeRequest,
  SchemeSource,
  Source,
  SourceServices
} from "./internal/sources/types.js"
import type { ColumnOutOfRange, InvalidParams, OffsetOutOfRange } from "./ReadError.js"
import type { ReadResult } from "./ReadResult.js"

export type {
  FileFacts,
  FileSource,
  FileSourceRequest,
  Params,
  SchemeRequest,
  SchemeSource,
  Selection,
  Source,
  SourceServices
}

/** The registry: sources in the order they are asked, and the schemes they answer. */
export interface Registry {
  readonly sources: ReadonlyArray<Source>
  readonly files: ReadonlyArray<FileSource>
  /** File sources that can be reached into with `file.ext:inner` (archives, databases). */
  readonly containers: ReadonlyArray<FileSource & { readonly container: RegExp }>
  /** By lower-case scheme name; the first source naming a scheme answers it. */
  readonly schemes: ReadonlyMap<string, SchemeSource>
}

/** The built-in sources, in order: database, archive, pdf-text, media, notebook, document, text, file-url, web. */
export const defaults: ReadonlyArray<Source> = builtins.defaults

/** SQLite files (`.db`, `.sqlite`, `.sqlite3`, `.db3` with the SQLite header); a container. */
export const database: FileSource = builtins.database
/** ZIP (and its family), tar, tar.gz and gzip; a container. */
export const archive: FileSource = builtins.archive
/** The text of a PDF, when lines or pages of it are asked for. */
export const pdfText: FileSource = builtins.pdfText
/** Images and PDFs attached to the result. */
export const media: FileSource = builtins.media
/** Jupyter notebooks as cells and outputs. */
export const notebook: FileSource = builtins.notebook
/** Word, Excel, PowerPoint, EPUB and OpenDocument text, converted to text. */
export const document: FileSource = builtins.document
/** Text in any encoding, paged through the line index. */
export const text: FileSource = builtins.text
/** `file://` URLs, read as the paths they name. */
export const fileUrl: SchemeSource = builtins.fileUrl
/** `http://` and `https://` web pages (see docs/sources.md, "Web pages"). */
export const web: SchemeSource = builtins.web

/** Build a registry: validates nothing more than the types do; order is kept. */
export const make = (sources: ReadonlyArray<Source>): Registry => {
  const files = sources.filter((source): source is FileSource => source._tag === "FileSource")
  const schemes = new Map<string, SchemeSource>()
  for (const source of sources) {
    if (source._tag !== "SchemeSource") continue
    for (const scheme of source.schemes) {
      const name = scheme.toLowerCase()
      if (!schemes.has(name)) schemes.set(name, source)
    }
  }
  return {
    sources,
    files,
    containers: files.filter((source): source is FileSource & { readonly container: RegExp } =>
      source.container !== undefined
    ),
    schemes
  }
}

/** The sources `read` asks (the defaults unless a layer says otherwise). */
export class Sources extends Context.Reference<Sources>()("effect-read/Sources", {
  defaultValue: (): Registry => make(defaults)
}) {}

/** A layer with exactly these sources, in this order. */
export const layer = (sources: ReadonlyArray<Source>): Layer.Layer<never> => Layer.succeed(Sources, make(sources))

/** A file source: `claims` decides from the facts, `read` reads what it claimed. */
export const fileSource = (options: Omit<FileSource, "_tag">): FileSource => ({ _tag: "FileSource", ...options })

/** A scheme source for `scheme://…` paths. */
export const schemeSource = (options: Omit<SchemeSource, "_tag">): SchemeSource => ({
  _tag: "SchemeSource",
  ...options
})

export interface TextOptions {
  /** Shown in `<path>` and in errors. */
  readonly path: string
  /** The result's title (defaults to `path`). */
  readonly title?: string | undefined
  readonly text: string
  readonly params: Params
  readonly selection: Selection
}

/**
 * Text a source holds in memory, presented like a file's: numbered lines, the same caps,
 * selectors and footers. For scheme sources that answer with content (`memory://key`).
 */
export const textResult = (
  options: TextOptions
): Effect.Effect<ReadResult, OffsetOutOfRange | ColumnOutOfRange | InvalidParams> => {
  const bytes = new TextEncoder().encode(options.text)
  return presentText({
    path: options.path,
    title: options.title ?? options.path,
    kind: "text",
    pageAt: memoryPageAt(bytes),
    tailAt: memoryTailAt(bytes),
    selection: options.selection,
    params: options.params,
    facts: { fileSize: bytes.length, encoding: "utf-8", replaced: false },
    metadata: { size: bytes.length, encoding: "utf-8" }
  })
}
