export { Language, Parser } from "web-tree-sitter"

export interface GrammarEntry {
  readonly language: string
  readonly npmPackage: string
  readonly version: string
  /** The file's name in the npm package. */
  readonly wasm: string
  /** SHA-256 of the raw (decompressed) wasm, hex. */
  readonly sha256: string
  /** Bytes of the raw wasm. */
  readonly size: number
  readonly extensions: ReadonlyArray<string>
}

export declare const grammarsDirectory: string
export declare const manifest: ReadonlyArray<GrammarEntry>
