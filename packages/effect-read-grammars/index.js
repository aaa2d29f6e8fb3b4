/**
 * effect-read's grammar pack: the web-tree-sitter runtime (resolved from here, so a host only
 * installs this package) and the grammars in ./grammars, each `<language>.wasm.br` (brotli) with
 * the LICENSE of the package it came from; manifest.json says which package, version and hash.
 * Built by effect-read's scripts/pack-grammars.mjs.
 */
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"

export { Language, Parser } from "web-tree-sitter"

/** Where the `<language>.wasm.br` files are. */
export const grammarsDirectory = fileURLToPath(new URL("./grammars/", import.meta.url))

/** One entry per grammar: language, npmPackage, version, wasm, sha256 (of the raw wasm), size, extensions. */
export const manifest = JSON.parse(readFileSync(new URL("./manifest.json", import.meta.url), "utf8"))
