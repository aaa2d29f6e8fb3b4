/**
 * Where a small text read's work goes: `node bench/profile.mjs [--json] [--lines N] [--reads N]`
 * (after `npm run build`). One runtime as `bench/child.mjs` builds it (Node layers, allow-all,
 * no language server, the in-memory ledger), warmed on 300 reads of another file; then `--reads`
 * (default 20) reads of an N-line file (default 100), each counted:
 *
 * - filesystem round trips: every request Node hands its thread pool (`FSREQCALLBACK`,
 *   `FSREQPROMISE`, from `async_hooks`), by the call that made it;
 * - Effect runtime steps: every instruction a fiber's run loop evaluates (a supervisor with
 *   `OpSupervision`), attributed to the innermost span open at that step;
 * - fibers started, and spans opened (by name; those that capture a call-site stack counted apart).
 *
 * - bytes allocated: the heap's growth over windows of 20 uncounted reads in which no collection
 *   ran (a `gc` performance entry), the median window; the plain function's too.
 *
 * The counts are deterministic for a given build; times are not. `--time` adds rounds of uncounted
 * reads alternating with rounds of the plain function (`plain.mjs`) in the same process: medians
 * and their ratio, the figure to compare before/after on a shared machine (the bench's `small` row
 * is the same measurement on its own data); CPU time too (it moves less with the machine's load).
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as RuntimeFlags from "effect/RuntimeFlags"
import * as RuntimeFlagsPatch from "effect/RuntimeFlagsPatch"
import * as Supervisor from "effect/Supervisor"
import * as Tracer from "effect/Tracer"
import { createHook } from "node:async_hooks"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { PerformanceObserver } from "node:perf_hooks"
import { pathToFileURL } from "node:url"
import { plainRead } from "./plain.mjs"
import { readModules, readServices } from "./readServices.mjs"

const args = process.argv.slice(2)
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`)
  return at >= 0 ? Number(args[at + 1]) : fallback
}
const asJson = args.includes("--json")
const LINES = option("lines", 100)
const READS = option("reads", 20)
const timed = args.includes("--time")
// `--dist DIR`: another build of the library (e.g. the commit before a change, built with
// `npx tsc -p tsconfig.build.json --outDir DIR`), for a before/after in one sitting.
const distAt = args.indexOf("--dist")
const dist = distAt >= 0
  ? pathToFileURL(path.resolve(args[distAt + 1]) + "/").href
  : new URL("../dist/", import.meta.url).href
const modules = await readModules(dist)
const { Read } = modules

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "effect-read-profile-"))
const small = path.join(dir, "small.ts")
const warm = path.join(dir, "warm.ts")
const source = (n) =>
  Array.from({ length: n }, (_, i) => `export const value${i} = ${i} // line ${i + 1} of a small source file`).join(
    "\n"
  ) +
  "\n"
fs.writeFileSync(small, source(LINES))
fs.writeFileSync(warm, source(200))

// --- counting ---------------------------------------------------------------------------------

let counting = false
const fsCalls = new Map()
const stepsBySpan = new Map()
const spans = new Map()
let steps = 0
let fibers = 0
let spansWithStack = 0

const bump = (map, key, by = 1) => map.set(key, (map.get(key) ?? 0) + by)

/** Which `fs` call made a thread-pool request: the first frame outside Node's own modules. */
const callerOf = () => {
  const stack = new Error().stack?.split("\n").slice(2) ?? []
  const frame = stack.find((line) => line.includes("node:fs") || line.includes("node:internal/fs"))
  const match = frame?.match(/at (?:Object\.|FSReqCallback\.|async )?([\w.]+)/)
  return match?.[1] ?? "?"
}

createHook({
  init(_id, type) {
    if (counting && (type === "FSREQCALLBACK" || type === "FSREQPROMISE")) bump(fsCalls, callerOf())
  }
}).enable()

class Counting extends Supervisor.AbstractSupervisor {
  value = Effect.void
  onStart() {
    if (counting) fibers++
  }
  onEffect(fiber) {
    if (!counting) return
    steps++
    const span = fiber.currentSpan
    bump(stepsBySpan, span?._tag === "Span" ? span.name : "(no span)")
  }
}

const native = await Effect.runPromise(Effect.tracer)
const tracer = Tracer.make({
  span: (name, parent, context, links, startTime, kind, options) => {
    if (counting) {
      bump(spans, name)
      if (options?.captureStackTrace !== undefined && options.captureStackTrace !== false) spansWithStack++
    }
    return native.span(name, parent, context, links, startTime, kind, options)
  },
  context: (f, fiber) => native.context(f, fiber)
})

// --- the runtime ------------------------------------------------------------------------------

const runtime = ManagedRuntime.make(readServices(modules, dir, "profile", Layer.setTracer(tracer)))

const supervisor = new Counting()
const counted = (effect) =>
  effect.pipe(
    Effect.supervised(supervisor),
    Effect.withRuntimeFlagsPatch(RuntimeFlagsPatch.enable(RuntimeFlags.OpSupervision))
  )
const read = (filePath) => runtime.runPromise(counted(Read.read({ filePath })))

for (let i = 0; i < 300; i++) await read(warm)

const started = performance.now()
counting = true
let output = ""
for (let i = 0; i < READS; i++) output = (await read(small)).output
counting = false
const millis = (performance.now() - started) / READS

/**
 * Rounds of 200 uncounted reads alternating with rounds of the plain function: per-call medians of
 * wall time, and of CPU time (the process's, every thread: on a shared machine it moves less than
 * wall time, which also counts the waits for a core).
 */
const timing = async (rounds = 15, iterations = 200) => {
  const plainRead_ = () => plainRead(small)
  for (let i = 0; i < 1000; i++) await plainRead_()
  const ours = { wall: [], cpu: [] }
  const plain = { wall: [], cpu: [] }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  const round = async (into, call) => {
    const cpu = process.cpuUsage()
    const t = performance.now()
    for (let i = 0; i < iterations; i++) await call()
    into.wall.push((performance.now() - t) / iterations)
    const used = process.cpuUsage(cpu)
    into.cpu.push((used.user + used.system) / 1000 / iterations)
  }
  for (let r = 0; r < rounds; r++) {
    await round(ours, () => runtime.runPromise(Read.read({ filePath: small })))
    await round(plain, plainRead_)
  }
  return {
    oursMs: median(ours.wall),
    plainMs: median(plain.wall),
    ratio: median(ours.wall) / median(plain.wall),
    oursCpuMs: median(ours.cpu),
    plainCpuMs: median(plain.cpu),
    cpuRatio: median(ours.cpu) / median(plain.cpu)
  }
}
const times = timed ? await timing() : undefined

/** Bytes one call allocates: heap growth over windows of `size` calls with no collection in them, the median. */
const allocation = async (call, windows = 15, size = 20) => {
  let collections = 0
  const observer = new PerformanceObserver((list) => {
    collections += list.getEntries().length
  })
  observer.observe({ entryTypes: ["gc"] })
  const samples = []
  for (let w = 0; w < windows * 10 && samples.length < windows; w++) {
    const before = collections
    const heap = process.memoryUsage().heapUsed
    for (let i = 0; i < size; i++) await call()
    const grown = process.memoryUsage().heapUsed - heap
    // A collection's entry arrives after it: let it in before judging the window.
    await new Promise((resolve) => setImmediate(resolve))
    if (collections === before) samples.push(grown / size)
  }
  observer.disconnect()
  const sorted = samples.sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]
}
const allocated = {
  ours: await allocation(() => runtime.runPromise(Read.read({ filePath: small }))),
  plain: await allocation(() => plainRead(small))
}

await runtime.dispose()
fs.rmSync(dir, { recursive: true, force: true })

const perRead = (map) =>
  Object.fromEntries(
    [...map].sort((a, b) => b[1] - a[1]).map(([key, count]) => [key, Math.round((count / READS) * 10) / 10])
  )
const sum = (map) => [...map.values()].reduce((a, b) => a + b, 0)
const report = {
  lines: LINES,
  reads: READS,
  outputLines: output.split("\n").length,
  perRead: {
    fsRoundTrips: sum(fsCalls) / READS,
    runtimeSteps: steps / READS,
    fibers: fibers / READS,
    spans: sum(spans) / READS,
    spansCapturingStack: spansWithStack / READS,
    kilobytesAllocated: Math.round(allocated.ours / 102.4) / 10,
    plainKilobytesAllocated: Math.round(allocated.plain / 102.4) / 10,
    roughMillis: Math.round(millis * 1000) / 1000
  },
  fsCalls: perRead(fsCalls),
  spans: perRead(spans),
  stepsBySpan: perRead(stepsBySpan),
  ...(times === undefined ? {} : { times })
}

if (asJson) {
  process.stdout.write(JSON.stringify(report) + "\n")
} else {
  const p = report.perRead
  console.log(`A ${LINES}-line text file, ${READS} reads in a warm process; per read:`)
  console.log(`  filesystem round trips  ${p.fsRoundTrips}`)
  console.log(`  Effect runtime steps    ${p.runtimeSteps}`)
  console.log(`  fibers started          ${p.fibers}`)
  console.log(`  spans opened            ${p.spans} (${p.spansCapturingStack} capturing a call-site stack)`)
  console.log(
    `  bytes allocated         ${p.kilobytesAllocated} KB (the plain function: ${p.plainKilobytesAllocated} KB)`
  )
  console.log(`  time (rough, counting on) ${p.roughMillis} ms`)
  console.log("filesystem calls:", report.fsCalls)
  console.log("spans:", report.spans)
  console.log("runtime steps by innermost span:", report.stepsBySpan)
  if (times !== undefined) {
    console.log(
      `uncounted, median per call: ours ${times.oursMs.toFixed(3)} ms, plain ${times.plainMs.toFixed(3)} ms: ${
        times.ratio.toFixed(2)
      }×`
    )
    console.log(
      `CPU time, median per call: ours ${times.oursCpuMs.toFixed(3)} ms, plain ${times.plainCpuMs.toFixed(3)} ms: ${
        times.cpuRatio.toFixed(2)
      }×`
    )
  }
}
