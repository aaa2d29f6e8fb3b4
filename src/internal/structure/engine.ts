/**
 * Which engine reads a file's structure for the views (outline, summary, block, syntax context):
 * the syntax engine (tree-sitter, from the optional package effect-read-grammars) when it is
 * installed, has a grammar for the file and gives a structure; otherwise the engines of the core —
 * Markdown headings, JSON/YAML/TOML keys, indentation for everything else. The structure names
 * its engine and language; `fallback` says why the syntax engine was not used.
 */
import * as Effect from "effect/Effect"
import type { FileStructure } from "../core/declarations.js"
import { splitLines } from "../core/diff.js"
import { plainStructure } from "../core/headings.js"
import { languageOfPath, languageOfShebang } from "../core/indentation.js"
import { type Declined, syntaxAnalysis, type SyntaxOptions } from "./syntax.js"

export type { Declined, SyntaxOptions }

export interface StructureRead {
  readonly structure: FileStructure
  /** Why the syntax engine gave no structure; undefined when it gave this one. */
  readonly fallback: Declined | undefined
}

/** The file's structure and why it came from the engine it came from. */
export const readStructure = Effect.fn("readStructure")(function*(path: string, text: string, options?: SyntaxOptions) {
  const syntax = yield* syntaxAnalysis(path, text, options)
  if ("structure" in syntax) return { structure: syntax.structure, fallback: undefined } satisfies StructureRead
  const lines = splitLines(text)
  const language = languageOfPath(path) ?? (lines[0]?.startsWith("#!") ? languageOfShebang(lines[0]) : undefined)
  return { structure: plainStructure(lines, language), fallback: syntax.declined } satisfies StructureRead
})

/** The file's structure from the best engine available for it. */
export const structureOf = (path: string, text: string, options?: SyntaxOptions): Effect.Effect<FileStructure> =>
  Effect.map(readStructure(path, text, options), (read) => read.structure)
