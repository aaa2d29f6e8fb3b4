/**
 * An in-memory `@effect/platform` FileSystem (TODO: being implemented).
 */
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as Layer from "effect/Layer"

export type Entry =
  | string
  | Uint8Array
  | { readonly _tag: "Directory" }
  | { readonly _tag: "Symlink"; readonly target: string }

export declare const layer: (files: Readonly<Record<string, Entry>>) => Layer.Layer<FileSystem.FileSystem>
