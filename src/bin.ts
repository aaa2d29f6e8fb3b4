#!/usr/bin/env node
/**
 * The `effect-read` command. Node's compile cache goes on first (Node ≥ 22.1: the V8 code of
 * every module this process compiles is kept on disk, and the next start skips compiling it; Node
 * 20 has no such cache for ES modules and gets nothing), then the command line is loaded.
 */
import * as Module from "node:module"
;(Module as { readonly enableCompileCache?: () => unknown }).enableCompileCache?.()
await import("./internal/doors/cliMain.js")
