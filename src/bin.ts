#!/usr/bin/env node
/**
 * The `effect-read` command: a small loader for the bundled command line (`bin-main.cjs`, built by
 * `scripts/bundle.mjs` from `internal/doors/cliMain.ts`), which it runs with V8's code cache of an
 * earlier run (`internal/doors/codeCache.ts`).
 *
 * Built as one CommonJS file, `dist/bin.cjs` (the package's `bin`): Node starts a CommonJS entry
 * without its ES module loader (a few milliseconds of every start). `dist/bin.js` is a one-line
 * ES module that runs it, for `node dist/bin.js`.
 *
 * The V8 flags (WebAssembly's tiers, the young generation's growth, the code cache's checksum) are
 * set before the bundle is compiled: V8 keys a code cache on its flags, so a flag set later in the
 * run would make every cache this process writes unusable by the next.
 */
import * as fs from "node:fs"
import * as Module from "node:module"
import * as path from "node:path"
import { setFlagsFromString } from "node:v8"
import { runBundle, runIncomplete } from "./internal/doors/codeCache.js"
import { version } from "./internal/doors/packageJson.js"
import { baselineWasmOnly } from "./internal/doors/wasmTier.js"
import { checksCannotFail, listen, listenerKey } from "./internal/mcp/earlyInitialize.js"

/** V8's flag for how much the young generation grows after a scavenge (2 by default). */
const YOUNG_GROWTH_FLAG = "--semi-space-growth-factor"

// What every run loads from Node, loaded before V8's flags change: V8 keys a code cache on its
// flags, Node's own cache of its built-in modules included, so a built-in first loaded after the
// change is compiled from source (~3 times the work). `performance` (Effect's clock) and the
// output's stream.
void globalThis.performance
void process.stdout

// This process is ours: a first structure read parses faster without V8's optimising tier.
baselineWasmOnly()

// And its young generation grows 16 times after a scavenge instead of twice, to V8's usual
// maximum: a start makes ~15 MB of objects that live (the command line's modules) while the young
// generation grows from 1 MB, and each of the 6–7 scavenges that took copied most of them (2–3
// now). A process started with its own growth factor keeps it.
if (!process.execArgv.some((argument) => argument.replace(/_/g, "-").startsWith(YOUNG_GROWTH_FLAG))) {
  setFlagsFromString(`${YOUNG_GROWTH_FLAG}=16`)
}

// Node ≥ 22.1: packages loaded from node_modules (document readers, grammars) keep their compiled
// code on disk too. Node 20 has no such cache for ES modules.
const { enableCompileCache } = Module as { readonly enableCompileCache?: () => unknown }
enableCompileCache?.()

const kind = process.argv.includes("mcp") ? "mcp" : "cli"
// An MCP run has done all a session does once it has answered a read (internal/doors/commands.ts).
if (kind === "mcp") (globalThis as Record<symbol, unknown>)[runIncomplete] = true

const isDirectory = (directory: string) => {
  try {
    return fs.statSync(path.resolve(directory)).isDirectory()
  } catch {
    return false
  }
}

// `import.meta.dirname`: this file's directory (`__dirname` in the CommonJS build).
const run = () => runBundle(path.join(import.meta.dirname, "bin-main.cjs"), kind)

// `effect-read mcp [--cwd DIR]` cannot fail its checks: a first `initialize` is answered before the
// command line loads (internal/mcp/earlyInitialize.ts); the `mcp` command takes the listener over.
if (kind === "mcp" && !process.stdin.isTTY && checksCannotFail(process.argv.slice(2), isDirectory)) {
  const listener = listen({ serverInfo: { name: "effect-read", version } })
  ;(globalThis as Record<symbol, unknown>)[listenerKey] = listener
  void listener.settled.then(run)
} else {
  run()
}
