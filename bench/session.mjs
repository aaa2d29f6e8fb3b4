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
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as FileTime from "../dist/FileTime.js"
import { applyHunks } from "../dist/internal/core/diff.js"
import * as Lsp from "../dist/Lsp.js"
import * as Permission from "../dist/Permission.js"
import * as Read from "../dist/Read.js"
import * as ReadMany from "../dist/ReadMany.js"
import * as SessionMemory from "../dist/SessionMemory.js"
import * as Workspace from "../dist/Workspace.js"

const args = process.argv.slice(2)
const jsonOut = args.includes("--json") ? args[args.indexOf("--json") + 1] : undefined

const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "effect-read-session-")))
const sourceLine = (i) => `export const value${i} = compute(${i}, "${"x".repeat(i % 40)}") // line ${i}`
const files = {}
for (let f = 0; f < 20; f++) {
  const lines = 40 + ((f * 37) % 160)
  files[`src/module${f}.ts`] = Array.from({ length: lines }, (_, i) => sourceLine(i + 1)).join("\n") + "\n"
}
files["AGENTS.md"] = "# Rules\nRun the tests before you finish.\n"
files["README.md"] = Array.from({ length: 120 }, (_, i) => `Paragraph ${i + 1} of the readme.`).join("\n") + "\n"
for (const [name, content] of Object.entries(files)) {
  fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true })
  fs.writeFileSync(path.join(root, name), content)
}

const runtimeOf = (memory) =>
  ManagedRuntime.make(
    Layer.mergeAll(
      Workspace.layer({ directory: root, sessionId: "bench" }),
      Permission.layerAllowAll,
      Lsp.layerNoop,
      FileTime.layerMemory,
      ...(memory ? [SessionMemory.layerSession()] : [])
    ).pipe(Layer.provideMerge(NodeContext.layer))
  )

/** The script: reads, edits and host events, as an agent session goes. */
const script = () => {
  const steps = []
  const read = (filePath) => steps.push({ read: filePath })
  const m = (i) => `src/module${i}.ts`
  // Orientation: instructions, readme, the modules.
  read("AGENTS.md")
  read("README.md")
  for (let i = 0; i < 10; i++) read(m(i))
  // Work on module3 and module7: re-reads of unchanged files, narrower looks, an edit between.
  read(m(3)); read(`${m(3)}:10-30`); read(m(7)); read(m(3))
  steps.push({ edit: m(3) })
  read(m(3)); read(m(3)); read(`${m(7)}:1-20`)
  steps.push({ edit: m(7), line: 12 })
  read(m(7))
  for (let i = 0; i < 5; i++) read(m(i))
  read("AGENTS.md")
  // The host compacts the conversation: nothing is held any more.
  steps.push({ compacted: true })
  read(m(3)); read(m(7)); read(m(3)); read(m(7)); read("README.md:1-40")
  // An edit outside the lines the session was shown: told, not shown.
  steps.push({ edit: "README.md", line: 90 })
  read("README.md:1-40")
  for (let i = 10; i < 16; i++) read(m(i))
  steps.push({ mark: true })
  read(m(16)); read(m(17))
  steps.push({ rewound: true })
  read(m(16)); read(m(17)); read(m(16))
  steps.push({ edit: m(12) })
  read(m(12)); read(m(12)); read(m(10)); read(m(11)); read(m(13)); read(m(3))
  read("AGENTS.md"); read(m(7)); read(m(14)); read(m(15)); read(m(10))
  steps.push({ edit: m(11), line: 3 })
  read(m(11))
  read(`${m(12)}:1-30`); read(m(18)); read(m(19)); read(`${m(18)}:5-25`); read(m(19))
  return steps
}

const runSession = async (memory) => {
  const runtime = runtimeOf(memory)
  const mem = await runtime.runPromise(SessionMemory.SessionMemory)
  let bytes = 0
  let reads = 0
  let stubs = 0
  const wrong = []
  // The context model: per file, the lines shown since the last compaction, with the content seen.
  let context = new Map()
  // Per file, the whole text of the version the session last saw (since the last compaction).
  let lastSeen = new Map()
  let marked
  let markedSeen
  let markSeq = 0
  let edits = 0
  const notices = { total: 0, diffs: 0, outside: 0, countsOnly: 0, wrong: [], missed: [] }
  // Time in `read` only (not the script's own checks).
  let readMs = 0
  for (const step of script()) {
    if (step.edit !== undefined) {
      const file = path.join(root, step.edit)
      if (step.line === undefined) fs.appendFileSync(file, `// edit ${++edits}\n`)
      else {
        const lines = fs.readFileSync(file, "utf8").split("\n")
        lines[step.line - 1] += ` // edit ${++edits}`
        fs.writeFileSync(file, lines.join("\n"))
      }
    } else if (step.compacted) {
      context = new Map()
      lastSeen = new Map()
      await runtime.runPromise(mem.compacted("bench"))
    } else if (step.mark) {
      marked = new Map([...context].map(([k, v]) => [k, new Map(v)]))
      markedSeen = new Map(lastSeen)
      markSeq = await runtime.runPromise(mem.mark("bench"))
    } else if (step.rewound) {
      context = marked
      lastSeen = markedSeen
      await runtime.runPromise(mem.rewound("bench", markSeq))
    } else {
      const started = performance.now()
      const result = await runtime.runPromise(Read.read({ filePath: step.read }))
      readMs += performance.now() - started
      reads++
      bytes += Buffer.byteLength(result.output)
      const meta = result.metadata
      const currentText = fs.readFileSync(meta.path, "utf8")
      const current = currentText.split("\n")
      const held = context.get(meta.path) ?? new Map()
      // Instruction files are outside session memory: always shown whole, never a notice.
      const before = step.read.endsWith("AGENTS.md") ? undefined : lastSeen.get(meta.path)
      const changedSince = memory && before !== undefined && before !== currentText
      if (meta.changed !== undefined) {
        notices.total++
        if (!changedSince) notices.wrong.push(`${step.read}: a notice, but unchanged since the last read`)
        else if (meta.changed.diff) {
          notices.diffs++
          const lines = result.output.split("\n")
          const hunks = lines.slice(3, lines.findIndex((line) => line.startsWith("<path>")))
          const seen = before.replace(/\n$/, "").split("\n")
          try {
            const applied = applyHunks(seen, hunks)
            const elsewhere = meta.changed.outsideRemoved + meta.changed.outsideAdded > 0
            if (!elsewhere && applied.join("\n") !== currentText.replace(/\n$/, "")) {
              notices.wrong.push(`${step.read}: the diff does not give the file now`)
            }
          } catch (error) {
            notices.wrong.push(`${step.read}: the diff does not apply to what was seen (${error.message})`)
          }
        } else if (meta.changed.removed === 0 && meta.changed.added === 0) notices.outside++
        else notices.countsOnly++
      } else if (changedSince && !meta.unchanged) notices.missed.push(step.read)
      if (!meta.unchanged) lastSeen.set(meta.path, currentText)
      if (meta.unchanged) {
        stubs++
        for (let line = meta.startLine; line <= meta.endLine; line++) {
          if (held.get(line) !== current[line - 1]) {
            wrong.push(`${step.read} line ${line}`)
            break
          }
        }
      } else {
        for (let line = meta.startLine; line <= meta.endLine; line++) held.set(line, current[line - 1])
        context.set(meta.path, held)
      }
    }
  }
  await runtime.dispose()
  return { reads, bytes, stubs, wrong, notices, readMs }
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
// Run again without edits having accumulated: the files are edited by the first two runs too,
// which is fine — each run reads the project as it is then.
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
console.log(`session of ${withDefault.reads} reads: default ${withDefault.bytes} B, session memory ${withMemory.bytes} B (${
  (saved * 100).toFixed(1)
}% fewer), ${withMemory.stubs} stubs, ${withMemory.wrong.length} wrong; time in read ${withDefault.readMs.toFixed(0)} ms vs ${
  withMemory.readMs.toFixed(0)
} ms`)
const n = withMemory.notices
console.log(`changed since your last read: ${n.total} notices (${n.diffs} with a diff, ${n.outside} outside the lines shown, ${n.countsOnly} counts only), ${n.wrong.length} wrong, ${n.missed.length} missed`)
console.log(`20 small files: 20 reads ${timing.singleMs.toFixed(1)} ms, one read_many ${timing.manyMs.toFixed(1)} ms (${
  (timing.singleMs / timing.manyMs).toFixed(2)
}x)`)
if (jsonOut !== undefined) fs.writeFileSync(jsonOut, JSON.stringify(result, null, 2))
const ok = withMemory.wrong.length === 0 && withDefault.stubs === 0 && saved >= 0.35 && timing.manyMs < timing.singleMs &&
  n.wrong.length === 0 && n.missed.length === 0 && n.total > 0 && withDefault.notices.total === 0
if (!ok) {
  console.error("bench/session: target missed", JSON.stringify(result))
  process.exitCode = 1
}
