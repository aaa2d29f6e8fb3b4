/**
 * How many threads V8 may give to optimising WebAssembly in the background. The syntax engine's
 * first parse runs in V8's baseline tier while the optimising tier compiles the parser's hot
 * functions on background threads (the tree-sitter runtime's largest function alone takes ~75 ms
 * to optimise). With V8's default, on a two-core machine those threads take the core the parse is
 * running on: the first parse of a 5,000-line TypeScript file took 75–100 ms on Node 20, against
 * ~55 ms with one task, and later parses still reach the optimised code.
 *
 * The front doors (the CLI and the MCP server) own their process and leave the main thread a
 * core: at most one task fewer than the cores. The library never changes a host's V8 flags; a
 * host can pass `--wasm-num-compilation-tasks=1` to node itself (docs/views.md, structure engines).
 */
import { availableParallelism } from "node:os"
import { setFlagsFromString } from "node:v8"

const FLAG = "--wasm-num-compilation-tasks"

/** The tasks for a machine with `cores` cores: one fewer, at least one. */
export const wasmTasksFor = (cores: number): number => Math.max(1, Math.floor(cores) - 1)

/** Set the flag for this process, unless node was started with it. Returns the tasks set, if any. */
export const leaveMainThreadACore = (execArgv: ReadonlyArray<string> = process.execArgv): number | undefined => {
  if (execArgv.some((argument) => argument === FLAG || argument.startsWith(`${FLAG}=`))) return undefined
  const tasks = wasmTasksFor(availableParallelism())
  setFlagsFromString(`${FLAG}=${tasks}`)
  return tasks
}
