/**
 * `node bench/sessions.mjs [--quick]` (after `npm run build`): what a long-lived host keeps for many
 * conversations with session memory on (`SessionMemory.layerSession`, at most `maxSessions`, 256 by
 * default), and what the bound costs a read.
 *
 * 1. Memory: N conversations each remembering 10 files of 100 lines (the lines kept for change
 *    notices), in a fresh process per figure, heap and external memory retained after a forced GC;
 *    with the default bound, and with none (`maxSessions: Infinity`, how every conversation was
 *    kept before the bound).
 * 2. Time: re-reads of a 100-line file answered by the stub, through the full tool in one runtime:
 *    one conversation (its entry never moves) against four taking turns (each read moves its
 *    conversation to the end of the least-recently-used order), interleaved rounds, medians.
 */
import * as Effect from "effect/Effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Read from "../dist/Read.js"
import * as SessionMemory from "../dist/SessionMemory.js"
import * as Workspace from "../dist/Workspace.js"
import { sessionRuntime } from "./sessionRuntime.mjs"

const here = path.dirname(fileURLToPath(import.meta.url))
const quick = process.argv.includes("--quick")
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1]

// 1. Memory, one fresh process per figure.
const retained = (maxSessions, conversations) =>
  Number(
    execFileSync(
      process.execPath,
      ["--expose-gc", path.join(here, "sessionsMemory.mjs"), String(maxSessions), String(conversations)],
      { encoding: "utf8" }
    ).trim().split("\n").at(-1)
  )

const mb = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`
console.log("| conversations (10 files of 100 lines each) | kept, default bound (256) | kept, no bound |")
console.log("|---:|---:|---:|")
for (const n of quick ? [100, 1_000] : [100, 1_000, 5_000]) {
  console.log(
    `| ${n.toLocaleString("en-US")} | ${mb(retained(SessionMemory.defaultMaxSessions, n))} | ${
      mb(retained("Infinity", n))
    } |`
  )
}

// 2. Time per stub re-read: one conversation against four taking turns.
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "effect-read-sessions-")))
fs.writeFileSync(
  path.join(root, "small.ts"),
  Array.from({ length: 100 }, (_, i) => `export const v${i} = ${i}`).join("\n") + "\n"
)
const runtime = sessionRuntime(root, "bench")
const readAs = (sessionId) =>
  Read.read({ filePath: "small.ts" }).pipe(
    Effect.provideService(Workspace.Workspace, { directory: root, worktree: root, sessionId })
  )
const round = async (conversations, calls) => {
  const started = performance.now()
  for (let i = 0; i < calls; i++) {
    const result = await runtime.runPromise(readAs(`conversation-${i % conversations}`))
    if (result.metadata.unchanged !== true) throw new Error("expected a stub")
  }
  return (performance.now() - started) / calls
}
// Each conversation's first read is in full; every read after it is the stub.
for (let i = 0; i < 4; i++) await runtime.runPromise(readAs(`conversation-${i}`))
await round(4, 400)
const one = []
const four = []
for (let r = 0; r < (quick ? 5 : 15); r++) {
  one.push(await round(1, 200))
  four.push(await round(4, 200))
}
await runtime.dispose()
fs.rmSync(root, { recursive: true, force: true })
const ms = (value) => `${value.toFixed(3)} ms`
console.log(
  `\nA stub re-read of a 100-line file, medians of ${one.length} interleaved rounds of 200: one conversation ${
    ms(median(one))
  }, four taking turns ${ms(median(four))} (${(median(four) / median(one)).toFixed(2)}×).`
)
