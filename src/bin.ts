#!/usr/bin/env node
/**
 * The `effect-read` command: a small loader for the bundled command line (`bin-main.cjs`, built by
 * `scripts/bundle.mjs` from `internal/doors/cliMain.ts`), which it runs with V8's code cache of an
 * earlier run (`internal/doors/codeCache.ts`).
 *
 * The V8 flags for WebAssembly's tiers are set first: V8 keys a code cache on its flags, so a flag
 * set later in the run would make every cache this process writes unusable by the next.
 */
import * as Module from "node:module"
import { fileURLToPath } from "node:url"
import { runBundle, runIncomplete } from "./internal/doors/codeCache.js"
import { baselineWasmOnly } from "./internal/doors/wasmTier.js"

// This process is ours: a first structure read parses faster without V8's optimising tier.
baselineWasmOnly()

// Node ≥ 22.1: packages loaded from node_modules (document readers, grammars) keep their compiled
// code on disk too. Node 20 has no such cache for ES modules.
const { enableCompileCache } = Module as { readonly enableCompileCache?: () => unknown }
enableCompileCache?.()

const kind = process.argv.includes("mcp") ? "mcp" : "cli"
// An MCP run has done all a session does once it has answered a read (internal/doors/commands.ts).
if (kind === "mcp") (globalThis as Record<symbol, unknown>)[runIncomplete] = true
runBundle(fileURLToPath(new URL("./bin-main.cjs", import.meta.url)), kind)
