/**
 * The front doors (the CLI and the MCP server) run WebAssembly in V8's baseline tier (Liftoff)
 * only. By default V8 also recompiles a module's hot functions with its optimising tier on
 * background threads while they run; for the syntax engine that work never pays in time for the
 * first parse, the one a fresh process waits for: the tree-sitter runtime's largest function
 * alone takes ~75 ms to optimise, and on Node 20 a cold outline of a 5,000-line TypeScript file
 * used ~190 ms of CPU with it against ~115 ms without (the main thread's share, ~80 ms, the same),
 * so on a loaded machine the optimising threads took the parse's core. Later parses run ~35 %
 * slower in the baseline tier (a fresh 5,000-line parse ~45 ms against ~34 ms; an incremental
 * re-parse after an edit about the same), which a front door's reads do not notice.
 *
 * The library never changes a host's V8 flags; a host can start node with the same flags itself
 * (docs/views.md, structure engines). A process started with any flag of V8's WebAssembly tiers
 * keeps its own.
 */
import { setFlagsFromString } from "node:v8"

/** Both: `--no-wasm-dynamic-tiering` alone makes V8 optimise every function up front instead. */
export const BASELINE_TIER_FLAGS: ReadonlyArray<string> = ["--no-wasm-dynamic-tiering", "--no-wasm-tier-up"]

/** The flags that choose V8's WebAssembly tiers (V8 reads `_` and `-` alike in flag names). */
const TIER_FLAG = /^--(?:no-?)?(?:wasm-dynamic-tiering|wasm-tier-up|liftoff|liftoff-only)(?:=|$)/

/** Whether node was started with a flag of V8's WebAssembly tiers. */
export const choosesWasmTiers = (execArgv: ReadonlyArray<string>): boolean =>
  execArgv.some((argument) => TIER_FLAG.test(argument.replace(/_/g, "-")))

/** Run WebAssembly in the baseline tier only, unless node was started with a tier flag. Returns whether set. */
export const baselineWasmOnly = (execArgv: ReadonlyArray<string> = process.execArgv): boolean => {
  if (choosesWasmTiers(execArgv)) return false
  for (const flag of BASELINE_TIER_FLAGS) setFlagsFromString(flag)
  return true
}
