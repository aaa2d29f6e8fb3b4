/**
 * What every source behind `read` receives. Sources return a `ReadResult` through the same
 * renderers (`presentText` for text, `renderDirectory`-style listings) so output rules hold.
 */
import type { File } from "@effect/platform/FileSystem"
import type { Target } from "../access.js"
import type { Selection } from "../selector.js"

export interface Params {
  readonly offset?: number | undefined
  readonly limit?: number | undefined
  readonly column?: number | undefined
}

/** A container file (archive, database) and what the path asks for inside it. */
export interface ContainerRequest {
  readonly target: Target
  readonly info: File.Info
  /** The text after the container path without its leading `:` — `dir/file.ts:10-20`, `users?limit=5`, or "". */
  readonly inner: string
  readonly params: Params
}

/** A file read as a whole document (notebook, office document, PDF text). */
export interface FileRequest {
  readonly target: Target
  readonly info: File.Info
  readonly params: Params
  readonly selection: Selection
}
