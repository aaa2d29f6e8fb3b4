/**
 * `node bench/replicas.mjs [--json FILE] [--quick]` (after `npm run build`; `npm run bench` runs
 * it at its end): several replicas of an agent server on one store, SQLite and PostgreSQL.
 *
 * 1. The scripted session of bench/session.mjs (60 reads, edits, a compaction, a rewind) played
 *    on two replica processes (bench/replica.mjs serve), reads alternating between them and the
 *    host's signals going to either; against one process with `layerSession`: the same bytes,
 *    and no stub for content not in the context.
 * 2. 100 concurrent coverage writes from two processes (one file, 100 sessions, a range each):
 *    how many sessions kept both ranges, over 5 trials.
 * 3. Four replicas starting at once on an empty database: how many trials of 20 all started.
 * 4. What a read costs on PostgreSQL on loopback over the in-memory layers: the same process,
 *    interleaved, medians (a re-read: ledger only, then a session-memory stub; a changed file
 *    with session memory: the notice and what it records).
 *
 * PostgreSQL: EFFECT_READ_TEST_PG_URL, else one started with scripts/pg-test.sh (and stopped);
 * without one its rows are not run, and it says so. Exit 1 when a correctness target is missed
 * (bytes, wrong stubs, ranges, starts); the time target is reported, not enforced (shared machines).
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Redacted from "effect/Redacted"
import { execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as readline from "node:readline"
import { fileURLToPath } from "node:url"
import * as FileTime from "../dist/FileTime.js"
import * as Lsp from "../dist/Lsp.js"
import * as Permission from "../dist/Permission.js"
import * as Read from "../dist/Read.js"
import * as SessionMemory from "../dist/SessionMemory.js"
import * as SqlFileTime from "../dist/SqlFileTime.js"
import * as SqlSessionMemory from "../dist/SqlSessionMemory.js"
import * as Workspace from "../dist/Workspace.js"
import { playScript, runtimeBackend, writeProject } from "./sessionScript.mjs"

const here = path.dirname(fileURLToPath(import.meta.url))
const repo = path.join(here, "..")
const args = process.argv.slice(2)
const jsonOut = args.includes("--json") ? args[args.indexOf("--json") + 1] : undefined
const quick = args.includes("--quick")
const scratch = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "effect-read-replicas-")))
const root = path.join(scratch, "project")

// --- PostgreSQL ------------------------------------------------------------------------------

let pg
const startPg = () => {
  if (process.env.EFFECT_READ_TEST_PG_URL) return { url: process.env.EFFECT_READ_TEST_PG_URL, stop: () => {} }
  try {
    const [url, dir] = execFileSync("bash", [path.join(repo, "scripts/pg-test.sh"), "start"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"]
    }).trim().split(" ")
    return {
      url,
      stop: () => execFileSync("bash", [path.join(repo, "scripts/pg-test.sh"), "stop", dir], { stdio: "inherit" })
    }
  } catch (error) {
    return { error: `scripts/pg-test.sh could not start PostgreSQL (${error.message.split("\n")[0]})` }
  }
}

const pgLayer = (url) => PgClient.layer({ url: Redacted.make(url), maxConnections: 8 })
let databases = 0
const freshDatabase = async () => {
  const name = `effect_read_bench_${process.pid}_${++databases}`
  await Effect.runPromise(
    Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`CREATE DATABASE ${name}`)).pipe(
      Effect.provide(pgLayer(pg.url))
    )
  )
  const url = new URL(pg.url)
  url.pathname = `/${name}`
  return url.toString()
}
const dropDatabases = () =>
  Effect.runPromise(
    Effect.flatMap(SqlClient.SqlClient, (sql) =>
      Effect.forEach(
        Array.from({ length: databases }, (_, i) => `effect_read_bench_${process.pid}_${i + 1}`),
        (name) => sql.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      )).pipe(Effect.provide(pgLayer(pg.url)))
  )

let sqliteFiles = 0
const stores = () => [
  { name: "SQLite", fresh: async () => `sqlite:${path.join(scratch, `store-${++sqliteFiles}.db`)}` },
  ...(pg.url === undefined ? [] : [{ name: "PostgreSQL", fresh: freshDatabase }])
]

// --- Replica processes -----------------------------------------------------------------------

const replicaRun = (argv) =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(here, "replica.mjs"), ...argv], {
      stdio: ["ignore", "pipe", "inherit"]
    })
    let out = ""
    child.stdout.on("data", (chunk) => (out += chunk))
    child.on("close", () => {
      try {
        resolve(JSON.parse(out.trim().split("\n").pop()))
      } catch {
        resolve({ ok: false, error: out })
      }
    })
  })
const together = (argvs) => {
  const at = String(Date.now() + 2_500)
  return Promise.all(argvs.map((argv) => replicaRun([...argv, "--at", at])))
}

/** A `replica.mjs serve` process: `send(command)` → its answer. */
const serving = (store) => {
  const child = spawn(process.execPath, [path.join(here, "replica.mjs"), "serve", store, root], {
    stdio: ["pipe", "pipe", "inherit"]
  })
  const waiting = []
  readline.createInterface({ input: child.stdout }).on("line", (line) => waiting.shift()?.(JSON.parse(line)))
  return {
    send: (command) =>
      new Promise((resolve) => {
        waiting.push(resolve)
        child.stdin.write(JSON.stringify(command) + "\n")
      }),
    close: () =>
      new Promise((resolve) => {
        child.on("close", resolve)
        child.stdin.end()
      })
  }
}

// --- 1. The conversation ---------------------------------------------------------------------

const servicesIn = (dir, state) =>
  Layer.mergeAll(
    Workspace.layer({ directory: dir, sessionId: "bench" }),
    Permission.layerAllowAll,
    Lsp.layerNoop,
    state
  )
    .pipe(Layer.provideMerge(NodeContext.layer))

const oneProcess = async () => {
  writeProject(root)
  const runtime = ManagedRuntime.make(servicesIn(root, Layer.merge(FileTime.layerMemory, SessionMemory.layerSession())))
  const result = await playScript(root, await runtimeBackend(runtime, Read, SessionMemory), true)
  await runtime.dispose()
  return result
}

const twoProcesses = async (store) => {
  writeProject(root)
  const a = serving(store)
  const b = serving(store)
  let turn = 0
  // Reads alternate; the compaction goes to A, the mark is taken on B and the rewind told to A.
  const result = await playScript(root, {
    read: (filePath) => (turn++ % 2 === 0 ? a : b).send({ read: filePath }),
    compacted: () => a.send({ compacted: true }),
    mark: () => b.send({ mark: true }).then((answer) => answer.mark),
    rewound: (mark) => a.send({ rewound: mark })
  }, true)
  await Promise.all([a.close(), b.close()])
  return result
}

// --- 2, 3. Coverage and first boots ----------------------------------------------------------

const coverageTrial = async (store) => {
  const file = path.join(scratch, `coverage-${Date.now()}.txt`)
  fs.writeFileSync(file, Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join("\n") + "\n")
  const outcomes = await together([
    ["coverage", store, file, "1", "3", "100"],
    ["coverage", store, file, "10", "12", "100"]
  ])
  if (!outcomes.every((outcome) => outcome.ok)) return { kept: 0, error: outcomes.find((o) => !o.ok).error }
  const Store = await import("../dist/internal/doors/storeOption.js")
  const spec = Store.parseStore(store, process.cwd())
  const ranges = await Effect.runPromise(
    Effect.flatMap(
      FileTime.FileTime,
      (ledger) =>
        Effect.forEach(
          Array.from({ length: 100 }, (_, i) => `s${i}`),
          (session) =>
            Effect.map(ledger.coverage(session, file), (c) => c.ranges.map((r) => `${r.start}-${r.end}`).join(","))
        )
    ).pipe(
      Effect.provide(Store.layer(spec.right, { sessionMemory: false }).pipe(Layer.provide(NodeContext.layer)))
    )
  )
  return { kept: ranges.filter((kept) => kept === "1-3,10-12").length }
}

const bootTrial = async (store) => {
  const outcomes = await together([1, 2, 3, 4].map(() => ["start", store]))
  return { ok: outcomes.every((outcome) => outcome.ok), errors: outcomes.filter((o) => !o.ok).map((o) => o.error) }
}

// --- 4. What a read costs --------------------------------------------------------------------

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

const latency = async () => {
  const url = await freshDatabase()
  const dir = path.join(scratch, "latency")
  fs.mkdirSync(dir, { recursive: true })
  const steady = path.join(dir, "steady.ts")
  const changing = path.join(dir, "changing.ts")
  const lines = Array.from({ length: 100 }, (_, i) => `export const value${i} = ${i} // line ${i + 1}`)
  fs.writeFileSync(steady, lines.join("\n") + "\n")
  fs.writeFileSync(changing, lines.join("\n") + "\n")
  const pgState = (memory) =>
    Layer.merge(SqlFileTime.layerClient, memory ? SqlSessionMemory.layerClient() : Layer.empty).pipe(
      Layer.provide(pgLayer(url))
    )
  const memState = (memory) => Layer.merge(FileTime.layerMemory, memory ? SessionMemory.layerSession() : Layer.empty)
  const runtimes = {
    memoryLedger: ManagedRuntime.make(servicesIn(dir, memState(false))),
    pgLedger: ManagedRuntime.make(servicesIn(dir, pgState(false))),
    memorySession: ManagedRuntime.make(servicesIn(dir, memState(true))),
    pgSession: ManagedRuntime.make(servicesIn(dir, pgState(true)))
  }
  const time = async (runtime, filePath) => {
    const started = performance.now()
    await runtime.runPromise(Read.read({ filePath }))
    return performance.now() - started
  }
  const rounds = quick ? 60 : 300
  const pairs = [
    ["re-read, ledger only", "memoryLedger", "pgLedger", () => steady],
    ["re-read, session memory (a stub)", "memorySession", "pgSession", () => steady],
    ["changed file, session memory (notice + diff)", "memorySession", "pgSession", (i) => {
      fs.appendFileSync(changing, `// edit ${i}\n`)
      return changing
    }]
  ]
  const rows = []
  for (const [label, base, store, fileOf] of pairs) {
    const times = { base: [], store: [] }
    for (let i = 0; i < rounds + 20; i++) {
      const file = fileOf(i)
      // Interleaved, the order swapped each round.
      const order = i % 2 === 0 ? [["base", base], ["store", store]] : [["store", store], ["base", base]]
      for (const [key, name] of order) {
        const ms = await time(runtimes[name], file)
        if (i >= 20) times[key].push(ms)
      }
    }
    rows.push({
      label,
      memoryMs: median(times.base),
      postgresMs: median(times.store),
      extraMs: median(times.store) - median(times.base)
    })
  }
  for (const runtime of Object.values(runtimes)) await runtime.dispose()
  return rows
}

// --- Run -------------------------------------------------------------------------------------

pg = startPg()
const result = {
  postgres: pg.url === undefined ? pg.error : "on loopback",
  conversation: {},
  coverage: {},
  boots: {},
  latency: undefined
}
const missed = []
try {
  const baseline = await oneProcess()
  result.conversation.oneProcess = { bytes: baseline.bytes, stubs: baseline.stubs, wrong: baseline.wrong.length }
  for (const store of stores()) {
    const replicas = await twoProcesses(await store.fresh())
    result.conversation[store.name] = {
      bytes: replicas.bytes,
      stubs: replicas.stubs,
      wrong: replicas.wrong,
      notices: { total: replicas.notices.total, wrong: replicas.notices.wrong, missed: replicas.notices.missed }
    }
    if (replicas.bytes !== baseline.bytes) {
      missed.push(`${store.name}: ${replicas.bytes} bytes, one process ${baseline.bytes}`)
    }
    if (replicas.wrong.length > 0) missed.push(`${store.name}: wrong stubs ${replicas.wrong.join("; ")}`)
    if (replicas.notices.wrong.length + replicas.notices.missed.length > 0) {
      missed.push(`${store.name}: notices wrong or missed`)
    }

    const trials = []
    for (let t = 0; t < 5; t++) trials.push(await coverageTrial(await store.fresh()))
    result.coverage[store.name] = trials.map((trial) => trial.kept)
    if (trials.some((trial) => trial.kept !== 100)) missed.push(`${store.name}: coverage ${JSON.stringify(trials)}`)

    const boots = []
    for (let t = 0; t < (quick ? 5 : 20); t++) boots.push(await bootTrial(await store.fresh()))
    result.boots[store.name] = {
      started: boots.filter((boot) => boot.ok).length,
      trials: boots.length,
      errors: boots.flatMap((b) => b.errors)
    }
    if (boots.some((boot) => !boot.ok)) {
      missed.push(`${store.name}: first boots ${JSON.stringify(result.boots[store.name])}`)
    }
  }
  if (pg.url !== undefined) result.latency = await latency()
} finally {
  if (pg.url !== undefined) await dropDatabases().catch(() => {})
  pg.stop?.()
  fs.rmSync(scratch, { recursive: true, force: true })
}

const c = result.conversation
console.log(
  `replicas: one process with layerSession ${c.oneProcess.bytes} B, ${c.oneProcess.stubs} stubs, ${c.oneProcess.wrong} wrong`
)
for (const store of ["SQLite", "PostgreSQL"]) {
  if (c[store] === undefined) continue
  console.log(
    `replicas: two processes on ${store}: ${c[store].bytes} B (${
      c[store].bytes === c.oneProcess.bytes ? "the same" : "DIFFERENT"
    }), ${c[store].stubs} stubs, ${c[store].wrong.length} wrong; notices ${c[store].notices.total}, ${
      c[store].notices.wrong.length
    } wrong, ${c[store].notices.missed.length} missed`
  )
  console.log(
    `replicas: coverage from two processes on ${store}, 100 sessions, 5 trials: ${
      result.coverage[store].join(", ")
    } kept`
  )
  const boots = result.boots[store]
  console.log(
    `replicas: four replicas on an empty ${store} database: ${boots.started} of ${boots.trials} trials all started`
  )
}
if (result.latency === undefined) console.log(`replicas: PostgreSQL rows not run: ${result.postgres}`)
else {
  for (const row of result.latency) {
    console.log(
      `replicas: ${row.label}: in memory ${row.memoryMs.toFixed(2)} ms, PostgreSQL ${row.postgresMs.toFixed(2)} ms (+${
        row.extraMs.toFixed(2)
      } ms; target +2 ms: ${row.extraMs <= 2 ? "met" : "missed"})`
    )
  }
}
if (jsonOut !== undefined) fs.writeFileSync(jsonOut, JSON.stringify(result, null, 2))
if (missed.length > 0) {
  console.error("bench/replicas: target missed:", missed.join(" | "))
  process.exitCode = 1
}
