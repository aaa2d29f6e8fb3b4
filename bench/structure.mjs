/**
 * The syntax engine's rows (issue 16): the outline of a 5,000-line TypeScript file in a fresh
 * process (cold: loading web-tree-sitter, its `Parser.init`, the grammar, the parse, the structure
 * and the outline), the same warm (another parse of changed text in that process), and the block
 * around a line once the structure is there. The file is effect's `src/Micro.ts` cut at its last
 * declaration before line 5,000 (real code, with the variance annotations the grammar errs on).
 *
 * `node bench/run.mjs --only structure` runs these rows alone; they are part of `npm run bench`.
 * The deadline is raised to 10 s here so that a slow run is measured, not cut to the fallback.
 *
 * Each run is two processes: one as the CLI and the MCP server run (WebAssembly in V8's baseline
 * tier only: internal/doors/wasmTier.ts), one with V8's defaults, as a host that embeds the
 * library and sets no flags; the target is the first's.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { mb, ms } from "./format.mjs"

const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.join(here, "..")
const DATA = path.join(here, "data")
export const FILE = path.join(DATA, "structure-5000.ts")
const WARM_RUNS = 10
const LOOKUPS = 200

/** Micro.ts up to its last top-level doc comment before line 5,001. */
export const ensureFile = () => {
  if (fs.existsSync(FILE)) return FILE
  const lines = fs.readFileSync(path.join(root, "node_modules", "effect", "src", "Micro.ts"), "utf8").split("\n")
  let cut = 5000
  for (let n = 5000; n > 0; n--) {
    if (lines[n - 1] === "" && lines[n]?.startsWith("/**")) {
      cut = n
      break
    }
  }
  fs.mkdirSync(DATA, { recursive: true })
  fs.writeFileSync(FILE, lines.slice(0, cut - 1).join("\n") + "\n")
  return FILE
}

/** What runs in each fresh process: cold, then warm parses and block lookups. */
const CHILD = `
  import * as Effect from "effect/Effect"
  import * as fs from "node:fs"
  const [file, variant] = process.argv.slice(1)
  if (variant === "front-door") (await import(${
  JSON.stringify(path.join(root, "dist", "internal", "doors", "wasmTier.js"))
})).baselineWasmOnly()
  const text = fs.readFileSync(file, "utf8")
  const lines = text.split("\\n")
  let views
  try { views = await import(${
  JSON.stringify(path.join(root, "dist", "internal", "core", "structureViews.js"))
}) } catch {}
  const outline = (structure) => views?.outline === undefined ? structure.declarations.length : views.outline(structure, lines, { path: file })
  // CPU time besides wall time: the main thread's (Linux: its schedstat) and the whole process's.
  const mainThreadMs = () => {
    try {
      return Number(fs.readFileSync("/proc/self/task/" + process.pid + "/schedstat", "utf8").split(" ")[0]) / 1e6
    } catch {
      return NaN
    }
  }
  const cpu0 = process.cpuUsage()
  const main0 = mainThreadMs()
  const started = performance.now()
  const syntax = await import(${JSON.stringify(path.join(root, "dist", "internal", "structure", "syntax.js"))})
  const structure = await Effect.runPromise(syntax.syntaxStructure(file, text, { deadlineMs: 10_000 }))
  if (structure === undefined) throw new Error("no structure")
  outline(structure)
  const cold = performance.now() - started
  const main = mainThreadMs() - main0
  const { user, system } = process.cpuUsage(cpu0)
  const warm = []
  for (let i = 0; i < ${WARM_RUNS}; i++) {
    const t = performance.now()
    const again = await Effect.runPromise(syntax.syntaxStructure(file, text + "// " + i + "\\n", { deadlineMs: 10_000 }))
    outline(again)
    warm.push(performance.now() - t)
  }
  const find = (declarations, line) => {
    for (const d of declarations) if (d.span.start <= line && line <= d.span.end) return find(d.children, line) ?? d
    return undefined
  }
  const t = performance.now()
  for (let i = 0; i < ${LOOKUPS}; i++) {
    const line = 1 + ((i * 7919) % structure.lines)
    views?.blockAt === undefined ? find(structure.declarations, line) : views.blockAt(structure, line)
  }
  const lookup = (performance.now() - t) / ${LOOKUPS}
  warm.sort((a, b) => a - b)
  console.log(JSON.stringify({
    cold, coldCpu: { main, process: (user + system) / 1000 }, warm: warm[warm.length >> 1], lookup, views: views?.outline !== undefined,
    lines: structure.lines, declarations: structure.declarations.length, errorLines: structure.errorLines,
    rss: process.resourceUsage().maxRSS / 1024
  }))
`

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

export const measure = async ({ log = console.error, runs = 7 } = {}) => {
  ensureFile()
  log(`structure: ${runs} fresh processes on ${path.relative(root, FILE)}`)
  const samples = []
  const hostSamples = []
  const child = (variant) => {
    const result = spawnSync(process.execPath, ["--input-type=module", "-e", CHILD, FILE, variant], {
      cwd: root,
      encoding: "utf8"
    })
    if (result.status !== 0) throw new Error(`structure bench failed:\n${result.stderr}`)
    return JSON.parse(result.stdout.trim().split("\n").at(-1))
  }
  for (let run = 0; run < runs; run++) {
    samples.push(child("front-door"))
    hostSamples.push(child("host"))
  }
  const first = samples[0]
  return {
    runs,
    cold: median(samples.map((s) => s.cold)),
    // The target is every run, not the median: the slowest of the first five.
    coldOfFive: samples.slice(0, 5).map((s) => s.cold),
    coldHost: median(hostSamples.map((s) => s.cold)),
    // CPU time of the cold outline: load does not stretch it as it stretches wall time.
    coldCpu: median(samples.map((s) => s.coldCpu.process)),
    coldMainCpu: median(samples.map((s) => s.coldCpu.main)),
    coldHostCpu: median(hostSamples.map((s) => s.coldCpu.process)),
    warm: median(samples.map((s) => s.warm)),
    lookup: median(samples.map((s) => s.lookup)),
    rss: median(samples.map((s) => s.rss)),
    views: first.views,
    lines: first.lines,
    declarations: first.declarations,
    errorLines: first.errorLines
  }
}

/** Rows in bench/run.mjs's table shape, its targets and a note. */
export const rows = (r) => {
  const what = r.views ? "outline" : "structure (the outline view was not built)"
  const file = `a ${
    r.lines.toLocaleString("en")
  }-line TypeScript file (effect's Micro.ts, ${r.errorLines} lines in ERROR nodes)`
  return {
    rows: [
      {
        caseName: `${what} of ${file}, cold: web-tree-sitter, grammar, parse, ${
          r.views ? "outline" : "structure"
        } in a fresh process, as the CLI and MCP server run (WebAssembly in V8's baseline tier)`,
        ours: ms(r.cold),
        rss: mb(r.rss),
        baseline: "target",
        base: "150 ms",
        r: `${(r.cold / 150).toFixed(2)}×`,
        runsText: `${r.runs}`
      },
      ...(r.coldHost === undefined ? [] : [{
        caseName: `the same, cold, in a host's process with V8's defaults (the library sets no V8 flag)`,
        ours: ms(r.coldHost),
        rss: "—",
        baseline: "the front doors' cold outline, same runs",
        base: ms(r.cold),
        r: `${(r.coldHost / r.cold).toFixed(2)}×`,
        runsText: `${r.runs} / ${r.runs}`
      }]),
      {
        caseName: `${what} of the same file changed by a line, warm (parse included; median of 10 per process)`,
        ours: ms(r.warm),
        rss: "—",
        baseline: "target",
        base: "40 ms",
        r: `${(r.warm / 40).toFixed(2)}×`,
        runsText: `${r.runs}`
      },
      {
        caseName: `block around a line once parsed (${
          r.views ? "blockAt" : "the enclosing declaration"
        }; mean of 200 lines)`,
        ours: ms(r.lookup),
        rss: "—",
        baseline: "target",
        base: "5 ms",
        r: `${(r.lookup / 5).toFixed(2)}×`,
        runsText: `${r.runs}`
      }
    ],
    targets: [
      { name: "outline of a 5,000-line TypeScript file, cold ≤ 150 ms (median)", value: r.cold, limit: 150, show: ms },
      ...(r.coldOfFive === undefined || r.coldOfFive.length < 5 ? [] : [{
        name: "outline of a 5,000-line TypeScript file, cold ≤ 150 ms in five runs of five",
        value: Math.max(...r.coldOfFive),
        limit: 150,
        show: () => r.coldOfFive.map(ms).join(", ")
      }]),
      { name: "outline of a 5,000-line TypeScript file, warm ≤ 40 ms", value: r.warm, limit: 40, show: ms },
      { name: "block lookup after the parse ≤ 5 ms", value: r.lookup, limit: 5, show: ms }
    ].map((t) => ({ ...t, met: Number.isFinite(t.value) && t.value <= t.limit })),
    note:
      `Structure: ${r.declarations} top-level declarations; cold is timed from importing the syntax engine (effect already ` +
      `loaded) to the outline; ${r.runs} fresh processes per variant (front doors' V8 flags, host's defaults), alternating, medians.` +
      (r.coldCpu === undefined ?
        "" :
        ` CPU time of the cold outline: ${ms(r.coldMainCpu)} on the main thread and ${
          ms(r.coldCpu)
        } in all threads as the front doors run it; ${ms(r.coldHostCpu)} in all threads with V8's defaults.`)
  }
}
