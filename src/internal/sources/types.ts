/**
 * What sources are and what they receive. A source is a value: a name, a `claims` predicate over
 * what is known of a file (or a URL scheme it answers), and a `read`. The registry
 * (`src/Sources.ts`) holds them in order; `src/internal/read/dispatch.ts` asks them.
 */
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import type * as Effect from "effect/Effect"
import type { Permission } from "../../Permission.js"
import type { ReadError } from "../../ReadError.js"
import type { ReadResult } from "../../ReadResult.js"
import type { Workspace } from "../../Workspace.js"
import type { Selection } from "../core/selector.js"
import type { Target } from "../read/access.js"
import type { Params } from "../read/params.js"

/** What a source is asked for besides the path: every parameter of a read but `filePath` (derived from `ReadParams`). */
export type { Params }

/** The services a source may use: the ones every `read` has. */
export type SourceServices = FileSystem.FileSystem | Path.Path | Workspace | Permission

/** What every request to a source names: the checked file, as it was when looked at, and the params. */
interface SourceInput {
  readonly target: Target
  readonly info: FileSystem.File.Info
  readonly params: Params
  /** The descriptor the registry opened and checked, when there is one: read it, not the path again. */
  readonly file?: FileSystem.File | undefined
}

/** A container file (archive, database) and what the path asks for inside it. */
export interface ContainerRequest extends SourceInput {
  /** The text after the container path without its leading `:` — `dir/file.ts:10-20`, `users?limit=5`, or "". */
  readonly inner: string
}

/** A file read as a whole (notebook, office document, PDF text). */
export interface FileRequest extends SourceInput {
  readonly selection: Selection
}

/**
 * What is known of a regular file before a source is chosen: its name, its first bytes, what
 * those bytes are, and what the request asks. Content beats extension: `mime` comes from magic
 * bytes, never from the name.
 */
export interface FileFacts {
  readonly target: Target
  readonly info: FileSystem.File.Info
  /** Lower-case extension with its dot (`.zip`), or "". */
  readonly extension: string
  /** The first bytes (up to 4 KB). */
  readonly head: Uint8Array
  /** The format the first bytes show (magic numbers), when recognised. */
  readonly sniffed: { readonly mime: string; readonly ext: string } | undefined
  /** The first bytes read as plain text in their detected encoding, no byte replaced. */
  readonly text: boolean
  /** The first bytes are binary data (or a recognised format that is not text). */
  readonly binary: boolean
  readonly params: Params
  readonly selection: Selection
  /**
   * Set when the path reaches inside this file (`a.zip:dir/f.ts`, `app.db:users`): only sources
   * with `container` are asked, and one that claims gets the rest of the path.
   */
  readonly inner: string | undefined
}

/** What a file source's `read` gets: the facts, the open (checked) descriptor, a recovery note. */
export interface FileSourceRequest extends FileFacts {
  /** The descriptor that was opened and checked; every byte must come from it or the target's path. */
  readonly file: FileSystem.File
  /** `(Showing X instead: …)` when the path was recovered; sources that page text print it first. */
  readonly note: string | undefined
  /** The file's last bytes (up to 4 KB) as they were when it was opened, when they could be read. */
  readonly end?: Uint8Array | undefined
}

export interface FileSource {
  readonly _tag: "FileSource"
  readonly name: string
  /**
   * Extensions that mark a container in a path (`/\.zip(?=:|$)/gi`): for `a.zip:dir/f.ts` the
   * registry asks this source about `a.zip` with `inner` = `dir/f.ts`.
   */
  readonly container?: RegExp | undefined
  readonly claims: (facts: FileFacts) => boolean
  readonly read: (request: FileSourceRequest) => Effect.Effect<ReadResult, ReadError, SourceServices>
}

/** What a scheme source's `read` gets for `scheme://rest` (a selector after the URL is split off). */
export interface SchemeRequest {
  /** The path as written, selector included. */
  readonly input: string
  /** The URL without a trailing selector. */
  readonly url: string
  /** The selector's text after the colon (`50-100`), when there is one. */
  readonly selector: string | undefined
  readonly selection: Selection
  readonly params: Params
}

export interface SchemeSource {
  readonly _tag: "SchemeSource"
  readonly name: string
  /** Lower-case scheme names without `://` (`"https"`). */
  readonly schemes: ReadonlyArray<string>
  /**
   * For schemes that name local files (`file://`, `skill://name`): the path the input names,
   * selector and container parts kept, read through the whole file pipeline (permissions,
   * containers, selectors, recovery, FileTime). Throwing means the input is read as a plain path.
   */
  readonly toPath?: ((input: string) => string) | undefined
  /** For schemes that answer with content (`https://`, `memory://key`). */
  readonly read?: ((request: SchemeRequest) => Effect.Effect<ReadResult, ReadError, SourceServices>) | undefined
}

export type Source = FileSource | SchemeSource
