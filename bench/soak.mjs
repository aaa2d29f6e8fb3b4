/**
 * `node bench/soak.mjs [--calls N] [--quick] [--json FILE]` (after `npm run build`; `npm run bench`
 * runs it): one MCP server (`node dist/bin.cjs mcp`), driven by the official SDK client with
 * 10,000 mixed calls, 16 in flight — pages, line ranges and tails of a log, outlines, directory
 * listings and trees, archive listings and members, database tables and queries, a notebook, an
 * image, read_many, reads outside the project (denied), a mistyped path, a misspelled argument and
 * a binary file — every answer checked against what the generated workspace holds.
 *
 * The server's resident memory is sampled from /proc every 100 ms; a `ping` every 50 calls is
 * the baseline (the MCP round trip with no read behind it), measured in the same run. Prints
 * calls per second, latency percentiles of reads and pings, and memory at the end of the warm-up
 * (the first 10% of calls) against the rest. Fails (exit 1) on any wrong answer, or when memory
 * after the warm-up grows past 1.25× its level at the end of the warm-up (median of the last
 * tenth of samples against the median of the warm-up's last tenth).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { prng } from "./data.mjs"

const here = path.dirname(fileURLToPath(import.meta.url))
const args = process.argv.slice(2)
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback)
const CALLS = Number(option("--calls", args.includes("--quick") ? 2000 : 10_000))
const IN_FLIGHT = 16
const WARM_UP = Math.floor(CALLS / 10)
const GROWTH_LIMIT = 1.25
const jsonOut = option("--json", path.join(here, "data", "soak.json"))

const log = (...parts) => console.error("soak:", ...parts)

// ---------------------------------------------------------------------------------------------
// The workspace: generated, so every answer can be checked against it

const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "effect-read-soak-")))
const outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "effect-read-soak-out-")))
const write = (name, content) => {
  fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true })
  fs.writeFileSync(path.join(root, name), content)
}

const LOG_LINES = 20_000
const logLine = (n) => `2026-11-27T10:${String(n % 60).padStart(2, "0")}:00Z INFO request ${n} handled in ${n % 97} ms`
write("big.log", Array.from({ length: LOG_LINES }, (_, i) => logLine(i + 1)).join("\n") + "\n")

const MODULES = 12
const moduleText = (m) =>
  Array.from(
    { length: 8 },
    (_, f) =>
      `export function fn${m}_${f}(value: number): number {\n  const doubled = value * ${
        f + 2
      }\n  return doubled + ${m}\n}\n`
  )
    .join("\n")
for (let m = 0; m < MODULES; m++) write(`src/mod${m}.ts`, moduleText(m))
write("notes.txt", "alpha\nbeta\ngamma\n")
write(
  "nb.ipynb",
  JSON.stringify({
    nbformat: 4,
    nbformat_minor: 5,
    metadata: {},
    cells: [{ cell_type: "code", metadata: {}, execution_count: 1, source: ["print('soak')"], outputs: [] }]
  })
)
write(
  "pixel.png",
  Buffer.from(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
    "base64"
  )
)
write("blob.bin", Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]), Buffer.alloc(2000)]))

// An archive, made by the system's tar from files that are then removed.
write("pack/docs/a.txt", "alpha\nbravo\n")
write("pack/docs/b.md", "# Bee\n")
write("pack/main.txt", "main\n")
execFileSync("tar", ["-C", path.join(root, "pack"), "-cf", path.join(root, "bundle.tar"), "docs", "main.txt"])
fs.rmSync(path.join(root, "pack"), { recursive: true })

const DB_ROWS = 100
{
  const Database = createRequire(createRequire(import.meta.url).resolve("@effect/sql-sqlite-node/package.json"))(
    "better-sqlite3"
  )
  const db = new Database(path.join(root, "app.db"))
  db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)")
  const insert = db.prepare("INSERT INTO t VALUES (?, ?)")
  for (let i = 1; i <= DB_ROWS; i++) insert.run(i, `name-${i}`)
  db.close()
}
fs.writeFileSync(path.join(outside, "secret.txt"), "outside secret soak\n")

// ---------------------------------------------------------------------------------------------
// The calls, each with its check

/** Seeded: the same mix every run. */
const random = prng(0x5eed)
const int = (max) => Math.floor(random() * max)

const text = (result) => result.content.filter((c) => c.type === "text").map((c) => c.text).join("\n")
const ok = (result) => {
  if (result.isError) throw new Error(`unexpected error: ${text(result)}`)
  return text(result)
}
const failed = (result, tag) => {
  if (!result.isError || result.structuredContent?._tag !== tag) {
    throw new Error(
      `expected ${tag}, got ${result.isError ? result.structuredContent?._tag : "success"}: ${
        text(result).slice(0, 200)
      }`
    )
  }
  return text(result)
}
const contains = (output, ...parts) => {
  for (const part of parts) {
    if (!output.includes(part)) {
      throw new Error(`missing ${JSON.stringify(part)} in ${JSON.stringify(output.slice(0, 300))}`)
    }
  }
}

const KINDS = [
  ["page", 3, () => {
    const offset = 1 + int(LOG_LINES - 60)
    return {
      args: { filePath: "big.log", offset, limit: 50 },
      check: (r) =>
        contains(
          ok(r),
          `\n${offset}: ${logLine(offset)}\n`,
          `\n${offset + 49}: ${logLine(offset + 49)}\n`,
          `(Showing lines ${offset}-${offset + 49} of ${LOG_LINES}. Use offset=${offset + 50} to continue.)`
        )
    }
  }],
  ["range", 2, () => {
    const from = 1 + int(LOG_LINES - 30)
    return {
      args: { filePath: `big.log:${from}-${from + 20}` },
      check: (r) => contains(ok(r), `\n${from}: ${logLine(from)}\n`, `\n${from + 20}: ${logLine(from + 20)}\n`)
    }
  }],
  ["tail", 1, () => ({
    args: { filePath: "big.log:-20" },
    check: (r) =>
      contains(
        ok(r),
        `\n${LOG_LINES}: ${logLine(LOG_LINES)}\n`,
        `(Showing the last 20 lines: ${LOG_LINES - 19}-${LOG_LINES} of ${LOG_LINES}.`
      )
  })],
  ["outline", 2, () => {
    const m = int(MODULES)
    return {
      args: { filePath: `src/mod${m}.ts`, view: "outline" },
      check: (r) => contains(ok(r), `fn${m}_0`, `fn${m}_7`)
    }
  }],
  [
    "directory",
    1,
    () => ({
      args: { filePath: "src" },
      check: (r) => contains(ok(r), "<type>directory</type>", "mod0.ts", `mod${MODULES - 1}.ts`)
    })
  ],
  ["tree", 1, () => ({ args: { filePath: ".", view: "tree" }, check: (r) => contains(ok(r), "src/", "big.log") })],
  ["archive", 1, () => ({ args: { filePath: "bundle.tar" }, check: (r) => contains(ok(r), "docs/", "main.txt") })],
  [
    "member",
    1,
    () => ({ args: { filePath: "bundle.tar:docs/a.txt" }, check: (r) => contains(ok(r), "1: alpha\n2: bravo\n") })
  ],
  ["table", 1, () => {
    const row = 1 + int(DB_ROWS)
    return { args: { filePath: `app.db:t:${row}` }, check: (r) => contains(ok(r), `name-${row}`) }
  }],
  [
    "query",
    1,
    () => ({
      args: { filePath: "app.db?q=SELECT count(*) AS n FROM t" },
      check: (r) => contains(ok(r), `| ${DB_ROWS} |`)
    })
  ],
  ["notebook", 1, () => ({ args: { filePath: "nb.ipynb" }, check: (r) => contains(ok(r), "print('soak')") })],
  ["image", 1, () => ({
    args: { filePath: "pixel.png" },
    check: (r) => {
      ok(r)
      if (!r.content.some((c) => c.type === "image" && c.mimeType === "image/png")) throw new Error("no image content")
    }
  })],
  ["read_many", 2, () => {
    const m = int(MODULES)
    return {
      tool: "read_many",
      args: { files: [{ filePath: `src/mod${m}.ts` }, { filePath: "notes.txt" }, { filePath: "big.log:1-3" }] },
      check: (r) => contains(ok(r), `export function fn${m}_0`, "1: alpha", `1: ${logLine(1)}`)
    }
  }],
  ["denied", 1, () => ({
    args: { filePath: path.join(outside, "secret.txt") },
    check: (r) => {
      const output = failed(r, "PermissionDenied")
      if (output.includes("outside secret")) throw new Error("the outside file was shown")
    }
  })],
  [
    "missing",
    1,
    () => ({
      args: { filePath: "src/mod1.tss" },
      check: (r) => contains(failed(r, "FileNotFound"), path.join(root, "src/mod1.ts"))
    })
  ],
  [
    "misspelled",
    1,
    () => ({
      args: { filePath: "notes.txt", offest: 2 },
      check: (r) => contains(failed(r, "InvalidParams"), "offest: is unexpected")
    })
  ],
  [
    "binary",
    1,
    () => ({
      args: { filePath: "blob.bin" },
      check: (r) => contains(failed(r, "BinaryFile"), "Cannot read binary file")
    })
  ]
]
const WEIGHTS = KINDS.reduce((sum, [, weight]) => sum + weight, 0)
const nextCall = () => {
  let at = random() * WEIGHTS
  for (const [kind, weight, make] of KINDS) {
    at -= weight
    if (at < 0) return { kind, ...make() }
  }
  return { kind: KINDS[0][0], ...KINDS[0][2]() }
}

// ---------------------------------------------------------------------------------------------
// The run

const percentile = (sorted, p) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]
const median = (values) => percentile([...values].sort((a, b) => a - b), 0.5)
const rssOf = (pid) => {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))
    return match === null ? undefined : Number(match[1]) / 1024
  } catch {
    return undefined
  }
}

const main = async () => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [path.join(here, "..", "dist", "bin.cjs"), "mcp", "--cwd", root],
    stderr: "pipe"
  })
  const client = new Client({ name: "effect-read-soak", version: "1.0.0" })
  await client.connect(transport)
  const pid = transport.pid
  const samples = [] // [calls done, MB]
  let done = 0
  const sampler = setInterval(() => {
    const mb = rssOf(pid)
    if (mb !== undefined) samples.push([done, mb])
  }, 100)

  const latencies = new Map(KINDS.map(([kind]) => [kind, []]))
  const pings = []
  const wrong = []
  let issued = 0
  const started = performance.now()
  const worker = async () => {
    while (issued < CALLS) {
      const n = issued++
      if (n % 50 === 0) {
        const t = performance.now()
        await client.ping()
        pings.push(performance.now() - t)
      }
      const call = nextCall()
      const t = performance.now()
      try {
        const result = await client.callTool({ name: call.tool ?? "read", arguments: call.args }, undefined, {
          timeout: 120_000
        })
        latencies.get(call.kind).push(performance.now() - t)
        call.check(result)
      } catch (error) {
        wrong.push(
          `${call.kind} ${JSON.stringify(call.args)}: ${error instanceof Error ? error.message : String(error)}`
        )
      }
      done++
      if (done % 1000 === 0) log(`${done} calls, server ${rssOf(pid)?.toFixed(0)} MB`)
    }
  }
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker))
  const seconds = (performance.now() - started) / 1000
  clearInterval(sampler)
  await client.close()

  const all = [...latencies.values()].flat().sort((a, b) => a - b)
  const sortedPings = [...pings].sort((a, b) => a - b)
  const warmEnd = samples.filter(([calls]) => calls >= WARM_UP * 0.9 && calls <= WARM_UP).map(([, mb]) => mb)
  const after = samples.filter(([calls]) => calls > WARM_UP)
  const lastTenth = after.slice(Math.floor(after.length * 0.9)).map(([, mb]) => mb)
  const atWarmUp = median(warmEnd)
  const atEnd = median(lastTenth)
  const peakAfter = Math.max(...after.map(([, mb]) => mb))
  const growth = atEnd / atWarmUp
  const result = {
    date: new Date().toISOString(),
    node: process.version,
    cpus: os.cpus().length,
    loadAverage: os.loadavg(),
    calls: CALLS,
    inFlight: IN_FLIGHT,
    seconds,
    callsPerSecond: CALLS / seconds,
    latency: { p50: percentile(all, 0.5), p90: percentile(all, 0.9), p99: percentile(all, 0.99), max: all.at(-1) },
    ping: { p50: percentile(sortedPings, 0.5), p90: percentile(sortedPings, 0.9), p99: percentile(sortedPings, 0.99) },
    byKind: Object.fromEntries([...latencies].map(([kind, values]) => {
      const sorted = [...values].sort((a, b) => a - b)
      return [kind, { calls: values.length, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) }]
    })),
    memoryMB: { atWarmUp, atEnd, peakAfter, growth, samples: samples.length },
    wrong: wrong.length,
    firstWrong: wrong.slice(0, 10)
  }
  fs.mkdirSync(path.dirname(jsonOut), { recursive: true })
  fs.writeFileSync(jsonOut, JSON.stringify(result, null, 2))

  const f = (n, digits = 1) => n.toFixed(digits)
  console.log([
    `## MCP soak: ${
      CALLS.toLocaleString("en")
    } calls, ${IN_FLIGHT} in flight, one server (${process.version}, ${os.cpus().length} cores, load ${
      os.loadavg().map((l) => l.toFixed(1)).join(" ")
    })`,
    "",
    "| measure | value |",
    "|---|---|",
    `| calls per second | ${f(result.callsPerSecond, 0)} (${f(seconds)} s) |`,
    `| latency of a call, p50 / p90 / p99 / max | ${f(result.latency.p50)} / ${f(result.latency.p90)} / ${
      f(result.latency.p99)
    } / ${f(result.latency.max)} ms |`,
    `| baseline: a ping in the same run, p50 / p90 / p99 | ${f(result.ping.p50)} / ${f(result.ping.p90)} / ${
      f(result.ping.p99)
    } ms (a call's p50 ${f(result.latency.p50 / result.ping.p50)}× a ping's) |`,
    `| server RSS at the end of the warm-up (${WARM_UP.toLocaleString("en")} calls) / at the end / peak after | ${
      f(atWarmUp, 0)
    } / ${f(atEnd, 0)} / ${f(peakAfter, 0)} MB |`,
    `| growth after the warm-up (limit ${GROWTH_LIMIT}×) | ${f(growth, 2)}× |`,
    `| wrong answers | ${wrong.length} |`,
    "",
    "| call | count | p50 ms | p99 ms |",
    "|---|---|---|---|",
    ...Object.entries(result.byKind).map(([kind, s]) => `| ${kind} | ${s.calls} | ${f(s.p50)} | ${f(s.p99)} |`)
  ].join("\n"))
  for (const line of wrong.slice(0, 10)) log(`wrong: ${line}`)
  fs.rmSync(root, { recursive: true, force: true })
  fs.rmSync(outside, { recursive: true, force: true })
  if (wrong.length > 0 || !(growth <= GROWTH_LIMIT)) {
    log(wrong.length > 0 ? `${wrong.length} wrong answers` : `memory grew ${f(growth, 2)}× after the warm-up`)
    process.exitCode = 1
  }
}

main().catch((error) => {
  console.error(error)
  process.exitCode = 1
})
