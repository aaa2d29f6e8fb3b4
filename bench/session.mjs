/**
 * `node bench/session.mjs [--json FILE]` (after `npm run build`): session memory and read_many.
 *
 * 1. A scripted session of 60 reads modelled on agent behaviour — orienting reads of a small
 *    project, re-reads of unchanged files, narrower re-reads, edits between reads, a compaction in
 *    the middle, a rewind — run twice through one runtime each: with the default (nothing
 *    remembered) and with `SessionMemory.layerSession()`. Prints output bytes of both, and checks
 *    every stub against a model of the context: a stub is wrong when the lines it names are not
 *    in the context at the file's current content (the script keeps that model; the tool does not
 *    see it). Fails (exit 1) on any wrong stub. The edits between reads also show the "changed
 *    since your last read" notices: each is checked against the same model (the file really
 *    changed since the session last saw it; its diff applies to what the session saw and, when
 *    nothing changed elsewhere, gives the file now), and a change read without a notice is missed.
 * 2. `read_many` of 20 small files vs 20 `read` calls, through the same runtime, interleaved.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Read from "../dist/Read.js"
import * as ReadMany from "../dist/ReadMany.js"
import * as SessionMemory from "../dist/SessionMemory.js"
import { sessionRuntime } from "./sessionRuntime.mjs"
import { playScript, runtimeBackend, writeProject } from "./sessionScript.mjs"

const args = process.argv.slice(2)
const jsonOut = args.includes("--json") ? args[args.indexOf("--json") + 1] : undefined

const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "effect-read-session-")))

const runtimeOf = (memory) => sessionRuntime(root, "bench", { memory })

const runSession = async (memory) => {
  writeProject(root)
  const runtime = runtimeOf(memory)
  const result = await playScript(root, await runtimeBackend(runtime, Read, SessionMemory), memory)
  await runtime.dispose()
  return result
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

const manyVsSingle = async () => {
  const runtime = runtimeOf(false)
  const requests = Array.from({ length: 20 }, (_, i) => ({ filePath: `src/module${i}.ts` }))
  const single = async () => {
    for (const request of requests) await runtime.runPromise(Read.read(request))
  }
  const many = () => runtime.runPromise(ReadMany.readMany({ files: requests }))
  for (let i = 0; i < 5; i++) {
    await single()
    await many()
  }
  const times = { single: [], many: [] }
  for (let round = 0; round < 15; round++) {
    for (const [key, f] of [["single", single], ["many", many]]) {
      const started = performance.now()
      await f()
      times[key].push(performance.now() - started)
    }
  }
  await runtime.dispose()
  return { singleMs: median(times.single), manyMs: median(times.many) }
}

// A first run warms the JIT, so neither measured run pays for it.
await runSession(false)
const withDefault = await runSession(false)
const withMemory = await runSession(true)
// Each run starts from the project as written (writeProject): the runs compare byte for byte.
const saved = 1 - withMemory.bytes / withDefault.bytes
const timing = await manyVsSingle()
fs.rmSync(root, { recursive: true, force: true })

const result = {
  session: {
    reads: withDefault.reads,
    defaultBytes: withDefault.bytes,
    sessionBytes: withMemory.bytes,
    saved,
    stubs: withMemory.stubs,
    wrongStubs: withMemory.wrong,
    defaultStubs: withDefault.stubs,
    notices: withMemory.notices,
    defaultNotices: withDefault.notices.total,
    defaultReadMs: withDefault.readMs,
    sessionReadMs: withMemory.readMs
  },
  readMany: timing
}
console.log(
  `session of ${withDefault.reads} reads: default ${withDefault.bytes} B, session memory ${withMemory.bytes} B (${
    (saved * 100).toFixed(1)
  }% fewer), ${withMemory.stubs} stubs, ${withMemory.wrong.length} wrong; time in read ${
    withDefault.readMs.toFixed(0)
  } ms vs ${withMemory.readMs.toFixed(0)} ms`
)
const n = withMemory.notices
console.log(
  `changed since your last read: ${n.total} notices (${n.diffs} with a diff, ${n.outside} outside the lines shown, ${n.countsOnly} counts only), ${n.wrong.length} wrong, ${n.missed.length} missed`
)
console.log(
  `20 small files: 20 reads ${timing.singleMs.toFixed(1)} ms, one read_many ${timing.manyMs.toFixed(1)} ms (${
    (timing.singleMs / timing.manyMs).toFixed(2)
  }x)`
)
if (jsonOut !== undefined) fs.writeFileSync(jsonOut, JSON.stringify(result, null, 2))
const ok = withMemory.wrong.length === 0 && withDefault.stubs === 0 && saved >= 0.35 &&
  timing.manyMs < timing.singleMs &&
  n.wrong.length === 0 && n.missed.length === 0 && n.total > 0 && withDefault.notices.total === 0
if (!ok) {
  console.error("bench/session: target missed", JSON.stringify(result))
  process.exitCode = 1
}
