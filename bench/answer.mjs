/**
 * When the answers of a fresh process arrive (`run.mjs --only floor`), timed from just before the
 * spawn: what a client waits for, which a whole command's time does not show for a server that
 * goes on loading after its first answer.
 *
 *   node bench/answer.mjs plain <file>              the plain script (bench/plain-read.mjs): its output, its exit
 *   node bench/answer.mjs mcp <cwd> <file>          `effect-read mcp`: the answer to `initialize`, then (asked
 *                                                   each after the last answer) `tools/list`, a `read` of <file>;
 *                                                   stdin closes; the exit
 *
 * Prints one JSON line: `{ first, list?, call?, exit }` in milliseconds.
 */
import { spawn } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const here = path.dirname(fileURLToPath(import.meta.url))
const [mode, ...rest] = process.argv.slice(2)
const line = (message) => `${JSON.stringify(message)}\n`

const args = mode === "plain"
  ? [path.join(here, "plain-read.mjs"), rest[0]]
  : [path.join(here, "..", "dist", "bin.cjs"), "mcp", "--cwd", rest[0]]
const started = performance.now()
const child = spawn(process.execPath, args, { stdio: ["pipe", "pipe", "inherit"] })
const times = {}
const since = () => performance.now() - started
let pending = ""
child.stdout.on("data", (chunk) => {
  times.first ??= since()
  if (mode === "plain") return
  pending += chunk
  let newline
  while ((newline = pending.indexOf("\n")) !== -1) {
    const message = JSON.parse(pending.slice(0, newline))
    pending = pending.slice(newline + 1)
    if (message.error !== undefined || message.result?.isError === true) {
      throw new Error(`effect-read mcp answered ${JSON.stringify(message).slice(0, 500)}`)
    }
    if (message.id === 1) {
      child.stdin.write(line({ jsonrpc: "2.0", method: "notifications/initialized" }))
      child.stdin.write(line({ jsonrpc: "2.0", id: 2, method: "tools/list" }))
    } else if (message.id === 2) {
      times.list = since()
      child.stdin.write(line({
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: { name: "read", arguments: { filePath: rest[1] } }
      }))
    } else if (message.id === 3) {
      times.call = since()
      child.stdin.end()
    }
  }
})
child.on("exit", (code) => {
  if (code !== 0) throw new Error(`${args.join(" ")} exited with ${code}`)
  times.exit = since()
  process.stdout.write(line(times))
})
if (mode === "plain") child.stdin.end()
else {
  child.stdin.write(line({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } }
  }))
}
