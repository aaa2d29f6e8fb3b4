/**
 * `npm run bench`: generate the data once (bench/data/, git-ignored), then measure every case
 * against its baselines in the same run — interleaved run by run, so a change in machine load
 * hits both sides — and print a Markdown table (medians, ratios, peak RSS) and the targets.
 *
 *   node bench/run.mjs [--quick] [--json FILE]   measure (the JSON defaults to bench/data/results.json)
 *   node bench/run.mjs --only recovery [--quick]  only the wrong-path rows (bench/recovery.mjs)
 *   node bench/run.mjs --only structure [--quick] only the syntax engine's rows (bench/structure.mjs)
 *   node bench/run.mjs --only floor [--quick]     only the per-read floor's rows (start-up, small file,
 *                                                 a host's memory, the 100,000-entry directory, structure)
 *   node bench/run.mjs --only search [--quick]    only the search near the end of the 1 GB log vs grep
 *   node bench/run.mjs --only economy             only the token economy: bytes handed to the model
 *                                                 for a task set vs opencode-style paging (bench/economy.mjs)
 *   node bench/run.mjs --only soak [--quick]      only the MCP soak: 10,000 mixed calls (bench/soak.mjs)
 *   node bench/run.mjs --only description         only the description's size: tools/list, full and short
 *   node bench/run.mjs --render FILE             print the report of saved results again
 *
 * Ours runs in a fresh child process per run (bench/child.mjs) and is timed around the read
 * only; its peak RSS is that child's `maxRSS`. Shell baselines are timed from here as whole
 * commands (`sh -c '...'`, spawn included); a `sh -c true` measured in the same runs gives the
 * spawn cost, and ratios against shell commands use the command's time net of it.
 */
import { execSync, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { DATA_DIR, ensureData, paths } from "./data.mjs"
import * as economy from "./economy.mjs"
import { mb, ms, pct, ratio, x } from "./format.mjs"
import * as recovery from "./recovery.mjs"
import * as structure from "./structure.mjs"

const here = path.dirname(fileURLToPath(import.meta.url))
const args = process.argv.slice(2)
const quick = args.includes("--quick")
const jsonOut = args.includes("--json")
  ? args[args.indexOf("--json") + 1]
  : path.join(DATA_DIR, args.includes("--only") ? `${args[args.indexOf("--only") + 1]}.json` : "results.json")
/** Runs per variant, scaled down with --quick. */
const runs = (n) => (quick ? Math.max(1, Math.ceil(n / 3)) : n)
/** File descriptors allowed in the concurrency run: fewer than the 1,000 reads (macOS's default). */
const CONCURRENT_FD_LIMIT = 256
const DEEP_LINE = 5_000_000
/** Later pages after the first deep read: all inside the part of the file it indexed. */
const DEPTHS = [5_000_000, 4_000_001, 2_500_000, 1_000_000, 4_999_000]

const log = (...parts) => console.error("bench:", ...parts)

// ---------------------------------------------------------------------------------------------
// Measuring

const median = (values) => {
  if (values.length === 0) return NaN
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/** One case in a fresh Node process; returns its JSON line. */
const child = (name, options = {}, { fdLimit, nodeArgs = ["--expose-gc"] } = {}) => {
  const argv = [...nodeArgs, path.join(here, "child.mjs"), name, JSON.stringify(options)]
  const quoted = [process.execPath, ...argv].map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(" ")
  const result = fdLimit === undefined
    ? spawnSync(process.execPath, argv, { encoding: "utf8", maxBuffer: 64 << 20 })
    : spawnSync("sh", ["-c", `ulimit -n ${fdLimit} && exec ${quoted}`], { encoding: "utf8", maxBuffer: 64 << 20 })
  const line = result.stdout.trim().split("\n").at(-1)
  if (result.status !== 0 || !line) {
    throw new Error(`child ${name} failed (${result.status ?? result.signal}):\n${result.stderr}`)
  }
  return JSON.parse(line)
}

/** A whole shell command, spawn included, stdout into a pipe. */
const shell = (command) => {
  const started = process.hrtime.bigint()
  const result = spawnSync("sh", ["-c", command], { stdio: ["ignore", "pipe", "pipe"], maxBuffer: 256 << 20 })
  const ms = Number(process.hrtime.bigint() - started) / 1e6
  if (result.status !== 0) throw new Error(`${command} failed (${result.status}): ${result.stderr}`)
  return { ms, stdout: result.stdout }
}

/** Peak RSS of a shell command (one untimed run under /usr/bin/time), in MB; NaN when unavailable. */
const shellRss = (command) => {
  const result = spawnSync("/usr/bin/time", ["-f", "%M", "sh", "-c", `${command} > /dev/null`], { encoding: "utf8" })
  const kb = Number(result.stderr.trim().split("\n").at(-1))
  return result.status === 0 && Number.isFinite(kb) ? (kb * 1024) / 1e6 : NaN
}

/**
 * Run variants interleaved: round i runs every variant that wants more than i runs, in order.
 * Each variant's `once()` returns `{ ms, rssMB?, extra? }` (ms may be an array of samples).
 */
const interleave = (title, variants) => {
  const rounds = Math.max(...variants.map((v) => v.runs))
  const out = Object.fromEntries(variants.map((v) => [v.key, { samples: [], rss: [], extra: [] }]))
  for (let i = 0; i < rounds; i++) {
    for (const v of variants) {
      if (i >= v.runs) continue
      const r = v.once(i)
      out[v.key].samples.push(...[r.ms].flat())
      if (r.rssMB !== undefined) out[v.key].rss.push(r.rssMB)
      if (r.extra !== undefined) out[v.key].extra.push(r.extra)
    }
    process.stderr.write(`\rbench: ${title}: round ${i + 1}/${rounds}   `)
  }
  process.stderr.write("\n")
  for (const v of variants) {
    const o = out[v.key]
    o.median = median(o.samples)
    o.runs = v.runs
    o.peakRss = o.rss.length > 0 ? Math.max(...o.rss) : undefined
  }
  return out
}

const oursVariant = (key, runsWanted, name, options, pick = (r) => r.first, childOptions) => ({
  key,
  runs: runsWanted,
  once: () => {
    const r = child(name, options, childOptions)
    return { ms: pick(r), rssMB: r.rssMB, extra: r }
  }
})

const shellVariant = (key, runsWanted, command) => ({ key, runs: runsWanted, once: () => ({ ms: shell(command).ms }) })

const spawnVariant = (runsWanted) => shellVariant("spawn", runsWanted, "true")

/** One read of `file` (at `offset`) in a fresh process with no warm-up: that read's own peak RSS. */
const freshVariant = (runsWanted, file, offset) =>
  oursVariant("fresh", runsWanted, "page-ours", { file, offset, repeats: 0, warm: false })

// ---------------------------------------------------------------------------------------------
// Machine

const machine = () => {
  const cpu = fs.readFileSync("/proc/cpuinfo", "utf8").match(/model name\s*:\s*(.*)/)?.[1] ?? os.cpus()[0]?.model
  let disk = ""
  try {
    disk = execSync(`df -hT ${JSON.stringify(DATA_DIR)} | tail -1`, { encoding: "utf8" }).trim().split(/\s+/).slice(
      0,
      2
    )
      .join(" ")
  } catch {
    // No df here: the figures say nothing of the disk.
  }
  let revision = "unknown revision"
  try {
    const head = execSync("git rev-parse --short HEAD", { cwd: here, encoding: "utf8" }).trim()
    const dirty = execSync("git status --porcelain -- src", { cwd: here, encoding: "utf8" }).trim() !== ""
    revision = `commit ${head}${dirty ? " with uncommitted changes in src/" : ""}`
  } catch {
    // Not a git checkout: the revision stays unknown.
  }
  return {
    revision,
    date: new Date().toISOString().slice(0, 10),
    cpus: os.availableParallelism?.() ?? os.cpus().length,
    cpu,
    ramGB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    disk,
    load: os.loadavg().map((l) => l.toFixed(2)).join(" ")
  }
}

/**
 * CPU time since boot, in clock ticks: the whole machine's busy time and this process tree's
 * (itself plus the children it waited for). Their difference over the run is what other
 * processes took: a better noise gauge than the load average, which our own run raises.
 */
const cpuTicks = () => {
  try {
    const all = fs.readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1, 9).map(Number)
    const total = all.reduce((a, b) => a + b, 0)
    const busy = total - all[3] - all[4]
    const self = fs.readFileSync("/proc/self/stat", "utf8")
    const fields = self.slice(self.lastIndexOf(")") + 2).split(" ").map(Number)
    // utime, stime, cutime, cstime: fields 14-17 of proc(5), here indexes 11-14.
    const own = fields[11] + fields[12] + fields[13] + fields[14]
    return { total, busy, own }
  } catch {
    return undefined
  }
}

// ---------------------------------------------------------------------------------------------
// Formatting

// ---------------------------------------------------------------------------------------------
// Main

const main = async () => {
  if (!fs.existsSync(path.join(here, "..", "dist", "Read.js"))) {
    throw new Error("dist/ is missing: run `npm run build` first (npm run bench does)")
  }
  const only = args.includes("--only") ? args[args.indexOf("--only") + 1] : undefined
  if (only === "soak") return soak()
  if (only === "description") return describeTools()
  const alone = ["floor", "recovery", "structure", "search", "economy"]
  if (only !== undefined && !alone.includes(only)) {
    throw new Error(
      `--only ${only}: only ${alone.map((a) => `"${a}"`).join(", ")}, "soak" or "description" can run alone`
    )
  }
  // The floor's rows need the small files and the directory, not the 1 GB log.
  const manifest = only === undefined || only === "search" || only === "economy"
    ? ensureData(log)
    : only === "floor"
    ? ensureData(log, ["source", "small", "dir"])
    : undefined
  const started = performance.now()
  const ticksBefore = cpuTicks()
  const info = machine()
  log(`machine: ${info.cpus} × ${info.cpu}, ${info.ramGB} GB, Node ${info.node}, load ${info.load}`)
  const results = {}
  if (only === undefined) measureReads(results)
  if (only === "floor") {
    shell(`ls -f '${paths.dir}' > /dev/null`)
    measureFloor(results)
  }
  // Wrong paths (issue 15): a copy of node_modules as a git repository and as a plain tree.
  if (only === undefined || only === "recovery") results.recovery = await recovery.measure({ runs: runs(9), log })
  // The syntax engine (issue 16): outline of a 5,000-line TypeScript file cold and warm, block lookup.
  if (only === undefined || only === "structure" || only === "floor") {
    results.structure = await structure.measure({ runs: runs(7), log })
  }
  // Search for a line near the end of the 1 GB log (issue 30), against grep.
  if (only === "search") measureSearch(results)
  // The bytes a model is handed for a fixed task set (issue 30): no times, so one run.
  if (only === undefined || only === "economy") results.economy = await economy.measure({ log })

  info.loadAfter = os.loadavg().map((l) => l.toFixed(2)).join(" ")
  const ticksAfter = cpuTicks()
  /** Share of the machine's CPU time (all cores) that other processes used during the run. */
  info.othersCpu = ticksBefore === undefined || ticksAfter === undefined
    ? NaN
    : Math.max(0, (ticksAfter.busy - ticksBefore.busy) - (ticksAfter.own - ticksBefore.own)) /
      (ticksAfter.total - ticksBefore.total)
  info.minutes = ((performance.now() - started) / 60000).toFixed(1)

  const data = { info, manifest, shellRss: results.shellRss, results }
  const { report, targets } = render(data)
  console.log(report)
  fs.mkdirSync(path.dirname(jsonOut), { recursive: true })
  fs.writeFileSync(jsonOut, JSON.stringify({ ...data, targets, report }, null, 2))
  log(`raw results in ${path.relative(process.cwd(), jsonOut)}`)
  if (only !== undefined) return
  // Session memory and read_many (bench/session.mjs, a process of its own; it fails on a missed target).
  const session = spawnSync(process.execPath, [
    path.join(here, "session.mjs"),
    "--json",
    path.join(DATA_DIR, "session.json")
  ], {
    encoding: "utf8"
  })
  process.stdout.write(`\n${session.stdout}`)
  process.stderr.write(session.stderr)
  if (session.status !== 0) process.exitCode = 1
  // Several replicas on one store (bench/replicas.mjs, a process of its own; PostgreSQL from
  // EFFECT_READ_TEST_PG_URL or scripts/pg-test.sh; it fails on a missed correctness target).
  const replicas = spawnSync(
    process.execPath,
    [path.join(here, "replicas.mjs"), "--json", path.join(DATA_DIR, "replicas.json"), ...(quick ? ["--quick"] : [])],
    { encoding: "utf8" }
  )
  process.stdout.write(`\n${replicas.stdout}`)
  process.stderr.write(replicas.stderr)
  if (replicas.status !== 0) process.exitCode = 1
  soak()
  describeTools()
}

/** The tool's description in its two forms: `tools/list` bytes through the MCP client (bench/description.mjs). */
const describeTools = () => {
  log("tools/list, full and short description (bench/description.mjs) ...")
  const described = spawnSync(process.execPath, [
    path.join(here, "description.mjs"),
    "--json",
    path.join(DATA_DIR, "description.json")
  ], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"]
  })
  process.stdout.write(`\n${described.stdout}`)
  if (described.status !== 0) process.exitCode = 1
}

/** The MCP soak (bench/soak.mjs, a process of its own; it fails on a wrong answer or memory growth). */
const soak = () => {
  log("MCP soak: one server, mixed calls (bench/soak.mjs) ...")
  const soaked = spawnSync(process.execPath, [path.join(here, "soak.mjs"), ...(quick ? ["--quick"] : [])], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"]
  })
  process.stdout.write(`\n${soaked.stdout}`)
  if (soaked.status !== 0) process.exitCode = 1
}

/** The per-read floor's rows (issue 32): start-up, the small file, a host's memory, the large directory. */
const measureFloor = (results) => {
  const q = (p) => `'${p}'`
  // Start-up: whole commands, spawn included, on the 100-line file.
  const node = q(process.execPath)
  const bin = q(path.join(here, "..", "dist", "bin.cjs"))
  const initialize = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } }
  })
  const commands = {
    node: `${node} -e 0`,
    plain: `${node} ${q(path.join(here, "plain-read.mjs"))} ${q(paths.small)}`,
    cli: `${node} ${bin} --cwd ${q(DATA_DIR)} --json ${q(paths.small)}`,
    // Answers initialize, then exits as stdin closes.
    mcp: `printf '%s\\n' '${initialize}' | ${node} ${bin} mcp --cwd ${q(DATA_DIR)}`
  }
  if (!shell(commands.mcp).stdout.toString().includes("protocolVersion")) {
    throw new Error("mcp did not answer initialize")
  }
  if (!shell(commands.cli).stdout.toString().includes("\"output\"")) throw new Error("the CLI did not read")
  // What a client waits for: each answer's arrival, timed from the spawn (bench/answer.mjs); the
  // plain script's output likewise. A whole command's time includes what a server loads after its
  // first answer.
  const answerVariant = (key, args) => ({
    key,
    runs: runs(15),
    once: () => {
      const result = spawnSync(process.execPath, [path.join(here, "answer.mjs"), ...args], { encoding: "utf8" })
      if (result.status !== 0) throw new Error(`bench/answer.mjs ${args.join(" ")} failed:\n${result.stderr}`)
      const times = JSON.parse(result.stdout.trim().split("\n").at(-1))
      return { ms: times.first, extra: times }
    }
  })
  results.startup = interleave("start-up", [
    ...Object.entries(commands).map(([key, command]) => shellVariant(key, runs(15), command)),
    answerVariant("plainAnswer", ["plain", paths.small]),
    answerVariant("mcpAnswer", ["mcp", DATA_DIR, paths.small])
  ])
  for (const key of ["list", "call"]) {
    results.startup.mcpAnswer[key] = median(results.startup.mcpAnswer.extra.map((times) => times[key]))
  }
  results.startupRss = Object.fromEntries(Object.entries(commands).map(([key, command]) => [key, shellRss(command)]))

  results.small = interleave("small file", [
    oursVariant("ours", runs(3), "small", { rounds: 5, iterations: 200 }, (r) => r.samples),
    freshVariant(runs(3), "small")
  ])
  // The plain function ran in the same processes, its rounds alternating with ours.
  results.small.plain = (() => {
    const samples = results.small.ours.extra.flatMap((r) => r.plainSamples)
    return { samples, median: median(samples), runs: samples.length }
  })()

  // What a host gains: effect-read's modules and one read, then 10,000 small reads (bench/host.mjs);
  // beside it, in alternating processes, what the same reads add with the least Effect program
  // that reads a file, and with the plain function (V8 warming up to them).
  log(`host memory: ${runs(3)} processes of each reader ...`)
  const hostRun = (reader) => {
    const result = spawnSync(process.execPath, ["--expose-gc", path.join(here, "host.mjs"), "--reader", reader], {
      encoding: "utf8"
    })
    if (result.status !== 0) throw new Error(`bench/host.mjs --reader ${reader} failed:\n${result.stderr}`)
    return JSON.parse(result.stdout.trim().split("\n").at(-1))
  }
  const hostRuns = Array.from({ length: runs(3) }, () => ["effect-read", "effect", "plain"].map(hostRun))
  results.host = hostRuns.map(([ours]) => ours)
  results.hostEffect = hostRuns.map(([, effect]) => effect)
  results.hostPlain = hostRuns.map(([, , plain]) => plain)
  results.dir = interleave("100,000-entry directory", [
    spawnVariant(runs(9)),
    oursVariant("ours", runs(5), "page-ours", { file: "dir", repeats: 0 }),
    shellVariant("ls", runs(9), `ls ${q(paths.dir)} | head -n 2000`),
    shellVariant("lsF", runs(9), `ls -f ${q(paths.dir)} | head -n 2000`),
    freshVariant(runs(3), "dir")
  ])
}

/**
 * Search for a line near the end of the 1 GB log (its 1,000th line from the end, by its
 * timestamp): ours timed around the read in a fresh process, grep as a whole command net of spawn;
 * both must find the same line.
 */
const measureSearch = (results) => {
  const q = (p) => `'${p}'`
  // The page cache warm, as for every row (a full run has done this already).
  if (results.first === undefined) shell(`cat ${q(paths.log)} > /dev/null`)
  const line = shell(`tail -n 1000 ${q(paths.log)} | head -n 1`).stdout.toString()
  const pattern = line.split(" ")[0]
  const grep = `grep -n -m1 -F ${q(pattern)} ${q(paths.log)}`
  const expected = Number(shell(grep).stdout.toString().split(":")[0])
  const escaped = pattern.replaceAll(".", "\\.")
  results.search = interleave("search near the end of the 1 GB log", [
    spawnVariant(runs(9)),
    oursVariant("ours", runs(5), "search-ours", { file: "log", search: escaped }),
    shellVariant("grep", runs(9), grep),
    // The search alone in a fresh process (as the CLI runs it): its own peak RSS.
    oursVariant("fresh", runs(3), "search-ours", { file: "log", search: escaped, warm: false })
  ])
  for (const r of [...results.search.ours.extra, ...results.search.fresh.extra]) {
    if (r.lines[0] !== expected) throw new Error(`search found line ${r.lines[0]}, grep -n ${expected}`)
  }
  results.search.pattern = pattern
  results.search.line = expected
  results.search.grepRss = shellRss(grep)
  // The CLI's whole process (bundled bin), for the figure a terminal user sees.
  const bin = path.join(here, "..", "dist", "bin.cjs")
  results.search.cliRss = shellRss(
    `${q(process.execPath)} ${q(bin)} --cwd ${q(path.dirname(paths.log))} --search ${q(escaped)} ${q(paths.log)}`
  )
}

/** Every row but the wrong-path ones, into `results`. */
const measureReads = (results) => {
  // Warm the page cache: every row measures warm-cache reads (the files fit in RAM many times).
  log("warming the page cache (cat the log and the bundle, list the directory) ...")
  shell(`cat ${paths.log} ${paths.bundle} > /dev/null && ls -f ${paths.dir} > /dev/null`)

  const q = (p) => `'${p}'`

  results.floor = interleave("memory floor", [oursVariant("ours", runs(3), "floor", {}, () => NaN)])
  measureFloor(results)

  results.first = interleave("first page of the 1 GB log", [
    spawnVariant(runs(15)),
    oursVariant("ours", runs(9), "page-ours", { file: "log", repeats: 5 }),
    shellVariant("head", runs(15), `head -n 2000 ${q(paths.log)}`),
    oursVariant("naive", runs(3), "naive", { file: "log" }, (r) => r.first, {
      nodeArgs: ["--max-old-space-size=16384"]
    })
  ])
  // One read in a fresh process, no warm-up: what a CLI call costs, and the read's own peak RSS.
  results.firstCold = interleave("first page, first call in a fresh process", [freshVariant(runs(5), "log")])

  results.deep = interleave(`page at line ${DEEP_LINE.toLocaleString("en")}`, [
    spawnVariant(runs(7)),
    oursVariant("ours", runs(5), "deep-ours", { file: "log", offset: DEEP_LINE, depths: DEPTHS, repeats: 10 }),
    shellVariant("tailHead", runs(7), `tail -n +${DEEP_LINE} ${q(paths.log)} | head -n 2000`),
    shellVariant("wc", runs(7), `wc -l ${q(paths.log)}`),
    freshVariant(runs(3), "log", DEEP_LINE)
  ])
  // The same children's later reads, index warm: deep pages alternating with the first page.
  const pooled = (key) => {
    const samples = results.deep.ours.extra.flatMap((r) => r[key])
    return { samples, median: median(samples), runs: samples.length }
  }
  results.deepRepeat = { ours: pooled("deepSamples"), pageOne: pooled("pageOneSamples") }
  results.firstRepeat = {
    ours: (() => {
      const samples = results.first.ours.extra.flatMap((r) => r.samples)
      return { samples, median: median(samples), runs: samples.length }
    })()
  }

  // The tail: first in each process with the index cold (a forward count of the lines before
  // it), then repeated with the index warm (the total known: only the tail's bytes are read).
  results.tail = interleave("last 2,000 lines of the 1 GB log", [
    spawnVariant(runs(15)),
    oursVariant("ours", runs(5), "page-ours", { file: "log", offset: -2000, repeats: 5 }),
    shellVariant("tail", runs(15), `tail -n 2000 ${q(paths.log)}`),
    shellVariant("wcTail", runs(7), `wc -l ${q(paths.log)} && tail -n 2000 ${q(paths.log)}`),
    freshVariant(runs(3), "log", -2000)
  ])
  results.tail.warm = (() => {
    const samples = results.tail.ours.extra.flatMap((r) => r.samples)
    return { samples, median: median(samples), runs: samples.length }
  })()

  measureSearch(results)

  results.bundle = interleave("first page of the 200 MB single-line file", [
    spawnVariant(runs(15)),
    oursVariant("ours", runs(9), "page-ours", { file: "bundle", repeats: 0 }),
    shellVariant("head", runs(15), `head -c 51200 ${q(paths.bundle)}`),
    freshVariant(runs(3), "bundle")
  ])

  results.attach = interleave("20 MB attachment", [
    oursVariant("ours", runs(3), "attach", { rounds: 5 }, (r) => r.samples)
  ])
  const pooledAttach = (key) => {
    const samples = results.attach.ours.extra.flatMap((r) => r[key])
    return { samples, median: median(samples), runs: samples.length }
  }
  results.attach.base64 = pooledAttach("base64Samples")
  results.attach.answer = pooledAttach("answerSamples")

  results.concurrent = interleave(`1,000 concurrent reads (ulimit -n ${CONCURRENT_FD_LIMIT})`, [
    oursVariant("ours", runs(3), "concurrent-ours", {}, (r) => r.first, { fdLimit: CONCURRENT_FD_LIMIT }),
    // A tenth as many, for the scaling: linear means 1,000 take ten times what 100 take.
    oursVariant("hundred", runs(3), "concurrent-ours", { count: 100 }, (r) => r.first, { fdLimit: CONCURRENT_FD_LIMIT })
  ])

  results.shellRss = {
    head: shellRss(`head -n 2000 ${q(paths.log)}`),
    tailHead: shellRss(`tail -n +${DEEP_LINE} ${q(paths.log)} | head -n 2000`),
    wc: shellRss(`wc -l ${q(paths.log)}`),
    headC: shellRss(`head -c 51200 ${q(paths.bundle)}`),
    ls: shellRss(`ls ${q(paths.dir)} | head -n 2000`)
  }
  log(`shell baselines' peak RSS: ${Object.entries(results.shellRss).map(([k, v]) => `${k} ${mb(v)}`).join(", ")}`)
}

/** The Markdown report (header, table, targets) of measured results; also `--render FILE`. */
const render = (data) => {
  const { info, results } = data
  const none = { rows: [], targets: [], notes: [] }
  const parts = [
    results.small === undefined ? none : renderReads(data),
    results.recovery === undefined ? none : renderRecovery(results.recovery),
    results.structure === undefined ? none : renderStructure(results.structure),
    results.search === undefined || results.small !== undefined ? none : renderSearch(results.search)
  ]
  const rows = parts.flatMap((p) => p.rows)
  const targets = parts.flatMap((p) => p.targets)
  const cell = (text) => String(text).replaceAll("|", "\\|")
  const table = [
    "| case | ours (median) | ours peak RSS: timed process / one read in a fresh process | baseline | baseline (median) | ours / baseline | runs (ours / baseline) |",
    "|---|---:|---:|---|---:|---:|---:|",
    ...rows.map((r) => `| ${[r.caseName, r.ours, r.rss, r.baseline, r.base, r.r, r.runsText].map(cell).join(" | ")} |`)
  ].join("\n")
  const header = [
    `Measured ${info.date} on ${info.cpus} × ${info.cpu}, ${info.ramGB} GB RAM, Node ${info.node}, ` +
    `${info.disk || "local disk"}; page cache warm (the data is read once before measuring); ` +
    `other processes used ${
      Number.isFinite(info.othersCpu) ? `${(info.othersCpu * 100).toFixed(0)}%` : "an unknown share"
    } of the CPU time during the run (load average ${info.load} before, ${
      info.loadAfter ?? "?"
    } after); ${info.revision}; ${info.minutes} min.`,
    ...parts.flatMap((p) => p.notes)
  ].join("\n")
  const busy = info.othersCpu > 0.1
  const economyPart = results.economy === undefined ? undefined : economy.render(results.economy)
  if (economyPart !== undefined) {
    targets.push({ ...economyPart.target, met: economyPart.target.value <= economyPart.target.limit, show: pct })
  }
  const report = [
    header,
    ...(busy
      ? [
        "",
        `**Warning:** other processes took ${
          (info.othersCpu * 100).toFixed(0)
        }% of the CPU during the run: times are noisy.`
      ]
      : []),
    ...(rows.length === 0 ? [] : ["", table]),
    ...(economyPart === undefined ? [] : [
      "",
      "Token economy: bytes handed to the model per task, effect-read at its best vs opencode-style paging " +
      "(2,000-line pages of numbered lines, a 50 KB cap, re-reads in full, a plain not-found error then a listing); " +
      "every answer on both sides checked for what the task needs (bench/economy.mjs).",
      "",
      economyPart.table,
      "",
      economyPart.description
    ]),
    "",
    "Targets:",
    "",
    ...targets.map((t) => `- ${t.met ? "met" : "**missed**"}: ${t.name} — ${t.show(t.value)}`)
  ].join("\n")
  return { report, targets: targets.map(({ show, ...t }) => ({ ...t, shown: show(t.value) })) }
}

/** The search row alone (`--only search`; a full run shows it among the reads). */
const renderSearch = (search) => {
  const { rows, targets } = searchRows(search)
  const note = "Ours: timed around the read only, in a fresh process per run that first reads another file 200 " +
    "times (start-up excluded; this file's index cold); its peak RSS is that process's `maxRSS`. grep: the whole " +
    "command from Node, net of a `sh -c true` measured in the same runs."
  return { rows, targets, notes: [note] }
}

/** The search near the end of the log: ours net of start-up vs `grep -n -m1` net of spawn. */
const searchRows = (search) => {
  const grepNet = search.grep.median - search.spawn.median
  const r = ratio(search.ours.median, grepNet)
  return {
    rows: [{
      caseName: `search for a line near the end of the 1 GB log (line ${
        search.line.toLocaleString("en-US")
      }, \`${search.pattern}\`), every match counted`,
      ours: ms(search.ours.median),
      rss: `${mb(search.ours.peakRss)} / ${mb(search.fresh.peakRss)}`,
      baseline: `\`grep -n -m1 -F\` (stops at the first match; ${mb(search.grepRss)})`,
      base: `${ms(search.grep.median)} (net ${ms(grepNet)})`,
      r: x(r),
      runsText: `${search.ours.runs} / ${search.grep.runs}`
    }],
    targets: [
      {
        name: "search near the end of the 1 GB log ≤ 2× `grep -n -m1` net of start-up",
        value: r,
        limit: 2,
        met: r <= 2,
        show: x
      },
      {
        name: "search near the end of the 1 GB log: peak RSS ≤ 150 MB (the search alone in a fresh process)",
        value: search.fresh.peakRss,
        limit: 150,
        met: search.fresh.peakRss <= 150,
        show: (v) =>
          `${mb(v)} (the CLI's whole process: ${mb(search.cliRss)}; after 200 reads of another file first: ${
            mb(search.ours.peakRss)
          })`
      }
    ]
  }
}

/** The wrong-path rows and targets (bench/recovery.mjs's measurements). */
const renderRecovery = (measured) => {
  const { note, rows, targets } = recovery.rows(measured)
  return {
    rows,
    targets: targets.map((t) => ({ name: t.name, value: t.value, limit: t.limit, met: t.met, show: t.show })),
    notes: [note]
  }
}

/** The syntax engine's rows and targets (bench/structure.mjs's measurements). */
const renderStructure = (measured) => {
  const { note, rows, targets } = structure.rows(measured)
  return { rows, targets, notes: [note] }
}

/** The rows, targets and notes of the reading cases. */
const renderReads = ({ manifest, results, shellRss: shellRssOf }) => {
  // ---- rows
  const net = (group, key) => group[key].median - group.spawn.median
  /** A row's last three cells against a shell command timed whole: its time (and net of spawn), ours over it (net and whole), the runs. */
  const againstCommand = (group, key, ours = group.ours) => [
    `${ms(group[key].median)} (net ${ms(net(group, key))})`,
    `${x(ratio(ours.median, net(group, key)))} (whole: ${x(ratio(ours.median, group[key].median))})`,
    `${ours.runs} / ${group[key].runs}`
  ]
  /** Peak RSS: the timed process (with its warm-up and repeats) / one read in a fresh process. */
  const rss = (group, timed = group.ours.peakRss) =>
    group.fresh === undefined ? mb(timed) : `${mb(timed)} / ${mb(group.fresh.peakRss)}`
  const same = "″"
  const rows = []
  const row = (caseName, ours, rssText, baseline, base, r, runsText) =>
    rows.push({ caseName, ours, rss: rssText, baseline, base, r, runsText })

  const startup = results.startup
  const startupRss = results.startupRss ?? {}
  if (startup !== undefined) {
    row(
      "start-up: `effect-read --json` of the 100-line file, whole command (bundled bin)",
      ms(startup.cli.median),
      mb(startupRss.cli),
      `a Node script that reads it with \`readFileSync\` and prints it numbered (\`node -e 0\`: ${
        ms(startup.node.median)
      }, ${mb(startupRss.node)})`,
      ms(startup.plain.median),
      x(ratio(startup.cli.median, startup.plain.median)),
      `${startup.cli.runs} / ${startup.plain.runs}`
    )
    if (startup.mcpAnswer !== undefined) {
      const answerRow = (what, value) =>
        row(
          `start-up: \`effect-read mcp\`, ${what} arrives (from the spawn; each request sent after the last answer)`,
          ms(value),
          what === "the answer to `initialize`" ? mb(startupRss.mcp) : "—",
          "the plain script's output arrives (from the spawn)",
          ms(startup.plainAnswer.median),
          x(ratio(value, startup.plainAnswer.median)),
          `${startup.mcpAnswer.runs} / ${startup.plainAnswer.runs}`
        )
      answerRow("the answer to `initialize`", startup.mcpAnswer.median)
      answerRow("the answer to the first `tools/list`", startup.mcpAnswer.list)
      answerRow("the answer to the first `tools/call` (a read of the 100-line file)", startup.mcpAnswer.call)
    }
    row(
      "start-up: `effect-read mcp` answering `initialize` (then stdin closes), whole command",
      ms(startup.mcp.median),
      mb(startupRss.mcp),
      "the plain script, whole command",
      ms(startup.plain.median),
      x(ratio(startup.mcp.median, startup.plain.median)),
      `${startup.mcp.runs} / ${startup.plain.runs}`
    )
  }
  const small = results.small
  row(
    `small file (${
      manifest.small === undefined ? "200" : manifest.small.lines
    } lines), full tool, per call in a warm process`,
    ms(small.ours.median),
    rss(small),
    "plain `fs.readFile` + split + format",
    ms(small.plain.median),
    x(ratio(small.ours.median, small.plain.median)),
    `${small.ours.samples.length} / ${small.plain.samples.length} rounds of 200 calls, alternating in the same processes`
  )
  const dir = results.dir
  row(
    "100,000-entry directory, first page (2000 entries)",
    ms(dir.ours.median),
    rss(dir),
    "`ls | head -n 2000` (sorted, as ours is)",
    ...againstCommand(dir, "ls")
  )
  if (dir.lsF !== undefined) {
    row(
      same,
      same,
      same,
      "`ls -f | head -n 2000` (unsorted: directory order)",
      ...againstCommand(dir, "lsF")
    )
  }
  // What a host gains (bench/host.mjs): medians over its processes.
  const host = results.host
  const gainOf = (runs, at, measure) => median(runs.map((r) => r[at][measure] - r.before[measure]))
  const hostGain = (at, measure) => gainOf(host, at, measure)
  // What the reads after the first added: V8 warming up to them, and whatever the reader keeps.
  const readsAdded = (runs) => gainOf(runs, "many", "retainedMB") - gainOf(runs, "one", "retainedMB")
  const mb1 = (v) => (Number.isFinite(v) ? `${v.toFixed(1)} MB` : "—")
  if (host !== undefined) {
    row(
      "memory a host gains (it already runs Effect and @effect/platform-node): effect-read loaded, one small file read",
      `+${mb1(hostGain("one", "retainedMB"))} retained`,
      `+${mb1(hostGain("one", "rssMB"))} RSS`,
      "target",
      "20 MB",
      x(ratio(hostGain("one", "retainedMB"), 20)),
      `${host.length}`
    )
    row(
      `″, after ${host[0].reads.toLocaleString("en")} small reads (${
        host[0].files.toLocaleString("en")
      } files, round after round)`,
      `+${mb1(hostGain("many", "retainedMB"))} retained`,
      `+${mb1(hostGain("many", "rssMB"))} RSS`,
      "after one read",
      `+${mb1(hostGain("one", "retainedMB"))}`,
      x(ratio(hostGain("many", "retainedMB"), hostGain("one", "retainedMB"))),
      `${host.length}`
    )
    // Where the growth sits: V8's compiled code (code space), objects and the code's metadata (old
    // space), large objects (bench/host.mjs; bench/heap-diff.mjs says more from its snapshots).
    if (host[0].many.codeSpaceMB !== undefined) {
      const grew = (space) => `+${mb1(hostGain("many", space) - hostGain("one", space))}`
      row(
        `″, what the ${host[0].reads.toLocaleString("en")} reads added, by V8 heap space`,
        `code ${grew("codeSpaceMB")}, old ${grew("oldSpaceMB")}, large objects ${grew("largeObjectSpaceMB")}`,
        "—",
        "—",
        "—",
        "—",
        `${host.length}`
      )
    }
    if (results.hostEffect !== undefined) {
      const mb2 = (v) => `${v.toFixed(2)} MB`
      row(
        `″, what the ${
          host[0].reads.toLocaleString("en")
        } reads added, against the least Effect read (an \`Effect.fn\`: \`stat\`, \`readFileString\`, number the lines; the plain function: +${
          mb2(readsAdded(results.hostPlain))
        })`,
        `+${mb2(readsAdded(host))} retained`,
        "—",
        "the least Effect read",
        `+${mb2(readsAdded(results.hostEffect))}`,
        x(ratio(readsAdded(host), readsAdded(results.hostEffect))),
        `${host.length}`
      )
    }
    row(
      `″, after ${(2 * host[0].reads).toLocaleString("en")} small reads`,
      `+${mb1(hostGain("twice", "retainedMB"))} retained`,
      `+${mb1(hostGain("twice", "rssMB"))} RSS`,
      `after ${host[0].reads.toLocaleString("en")}`,
      `+${mb1(hostGain("many", "retainedMB"))}`,
      x(ratio(hostGain("twice", "retainedMB"), hostGain("many", "retainedMB"))),
      `${host.length}`
    )
  }
  // The per-read floor's targets (issue 32): also all a `--only floor` run measures.
  const floorTargets = [
    ...(startup === undefined ? [] : [
      {
        name: "start-up: `effect-read --json small.txt` within 2× a plain `readFileSync` script",
        value: ratio(startup.cli.median, startup.plain.median),
        limit: 2,
        show: (v) => x(v)
      },
      {
        name:
          "start-up: `effect-read mcp` answers `initialize` within 2× the same script (each timed from the spawn to its answer)",
        value: startup.mcpAnswer === undefined
          ? ratio(startup.mcp.median, startup.plain.median)
          : ratio(startup.mcpAnswer.median, startup.plainAnswer.median),
        limit: 2,
        show: (v) => x(v)
      }
    ]),
    {
      name: "small file through the full tool within 3× of the plain function",
      value: ratio(small.ours.median, small.plain.median),
      limit: 3,
      show: (v) => x(v)
    },
    {
      name: "100,000-entry directory, first page within 3× of `ls | head -n 2000` (sorted, as ours is; net of spawn)",
      value: ratio(dir.ours.median, net(dir, "ls")),
      limit: 3,
      show: (v) => `${x(v)} (whole command: ${x(ratio(dir.ours.median, dir.ls.median))})`
    },
    ...(host === undefined ? [] : [{
      name:
        "memory a host gains by loading effect-read and reading one file ≤ 20 MB (retained: heap in use and buffers, after GC)",
      value: hostGain("one", "retainedMB"),
      limit: 20,
      show: (v) => `${mb1(v)} (RSS: +${mb1(hostGain("one", "rssMB"))})`
    }, {
      name: `after ${host[0].reads.toLocaleString("en")} small reads ≤ 1.2× that`,
      value: ratio(hostGain("many", "retainedMB"), hostGain("one", "retainedMB")),
      limit: 1.2,
      show: (v) => `${x(v)}: ${mb1(hostGain("many", "retainedMB"))} (RSS: +${mb1(hostGain("many", "rssMB"))})`
    }])
  ].map((t) => ({ ...t, met: Number.isFinite(t.value) && t.value < t.limit }))
  if (results.first === undefined) return { rows, targets: floorTargets, notes: [] }

  const first = results.first
  const firstCold = results.firstCold.fresh
  row(
    "first page of the 1 GB log",
    ms(first.ours.median),
    `${mb(first.ours.peakRss)} / ${mb(firstCold.peakRss)}`,
    "`head -n 2000`",
    ...againstCommand(first, "head")
  )
  row(
    same,
    same,
    same,
    `naive whole-file reader (read all, split, slice); its peak RSS ${mb(first.naive.peakRss)}`,
    ms(first.naive.median),
    x(ratio(first.ours.median, first.naive.median)),
    `${first.ours.runs} / ${first.naive.runs}`
  )
  row(
    "first page of the 1 GB log, same process, repeated",
    ms(results.firstRepeat.ours.median),
    same,
    "`head -n 2000`",
    `net ${ms(net(first, "head"))}`,
    x(ratio(results.firstRepeat.ours.median, net(first, "head"))),
    `${results.firstRepeat.ours.runs} / ${first.head.runs}`
  )
  row(
    "first page of the 1 GB log, first call of a fresh process (no warm-up: what one CLI call sees)",
    ms(firstCold.median),
    mb(firstCold.peakRss),
    "`head -n 2000`",
    `net ${ms(net(first, "head"))}`,
    x(ratio(firstCold.median, net(first, "head"))),
    `${firstCold.runs} / ${first.head.runs}`
  )
  const deep = results.deep
  row(
    `page at line ${DEEP_LINE.toLocaleString("en")}, first time (fresh process, index cold)`,
    ms(deep.ours.median),
    rss(deep),
    "`tail -n +5000000 | head -n 2000`",
    ...againstCommand(deep, "tailHead")
  )
  row(
    same,
    same,
    same,
    "`wc -l` (the raw scan of all 1 GB)",
    `${ms(deep.wc.median)} (net ${ms(net(deep, "wc"))})`,
    x(ratio(deep.ours.median, net(deep, "wc"))),
    `${deep.ours.runs} / ${deep.wc.runs}`
  )
  const deepRepeat = results.deepRepeat.ours
  const pageOne = results.deepRepeat.pageOne
  row(
    `later pages at lines 1,000,000-5,000,000 (same process, index warm)`,
    ms(deepRepeat.median),
    same,
    "our first page of the same file, alternating with them in the same processes",
    ms(pageOne.median),
    x(ratio(deepRepeat.median, pageOne.median)),
    `${deepRepeat.runs} / ${pageOne.runs}`
  )
  row(
    same,
    same,
    same,
    "`tail -n +5000000 | head -n 2000`",
    `net ${ms(net(deep, "tailHead"))}`,
    x(ratio(deepRepeat.median, net(deep, "tailHead"))),
    `${deepRepeat.runs} / ${deep.tailHead.runs}`
  )
  const tail = results.tail
  if (tail !== undefined) {
    row(
      "last 2,000 lines of the 1 GB log (`offset: -2000`), index cold: the lines before counted forward",
      ms(tail.ours.median),
      rss(tail),
      "`wc -l && tail -n 2000`",
      ...againstCommand(tail, "wcTail")
    )
    row(
      "the same tail again, index warm (same process)",
      ms(tail.warm.median),
      same,
      "`tail -n 2000`",
      ...againstCommand(tail, "tail", tail.warm)
    )
  }
  const searched = results.search === undefined ? undefined : searchRows(results.search)
  for (const searchRow of searched?.rows ?? []) rows.push(searchRow)
  const bundle = results.bundle
  row(
    "first page of the 200 MB single-line file",
    ms(bundle.ours.median),
    rss(bundle),
    "`head -c 51200`",
    ...againstCommand(bundle, "head")
  )
  row(
    same,
    same,
    same,
    "our first page of the 1 GB log (same kind of process)",
    ms(first.ours.median),
    x(ratio(bundle.ours.median, first.ours.median)),
    `${bundle.ours.runs} / ${first.ours.runs}`
  )
  const attach = results.attach
  if (attach !== undefined) {
    row(
      "20 MB attachment (a PDF, attached as it is): bytes to base64 data URL",
      ms(attach.ours.median),
      mb(attach.ours.peakRss),
      "`Buffer#toString(\"base64\")` of the same bytes, alternating in the same processes",
      ms(attach.base64.median),
      x(ratio(attach.ours.median, attach.base64.median)),
      `${attach.ours.samples.length} / ${attach.base64.runs}`
    )
    row(
      "″, then the MCP tool result and its JSON-RPC line (the data twice: content and structured result)",
      ms(attach.answer.median),
      same,
      same,
      ms(attach.base64.median),
      x(ratio(attach.answer.median, attach.base64.median)),
      `${attach.answer.runs} / ${attach.base64.runs}`
    )
  }
  const concurrent = results.concurrent.ours
  const okCounts = concurrent.extra.map((r) => `${r.ok}/${r.reads}`)
  const failures = [...new Set(concurrent.extra.flatMap((r) => r.failures))]
  row(
    `1,000 concurrent reads of distinct 200-line files, one runtime, \`ulimit -n ${CONCURRENT_FD_LIMIT}\``,
    ms(concurrent.median),
    mb(concurrent.peakRss),
    `none; succeeded: ${okCounts.join(", ")}${failures.length > 0 ? `; ${failures.join("; ")}` : ""}`,
    `${ms(concurrent.median / 1000)} per read`,
    "—",
    `${concurrent.runs}`
  )
  const hundred = results.concurrent.hundred
  if (hundred !== undefined) {
    row(
      same,
      same,
      same,
      "10 × the time of 100 concurrent reads (same runs, interleaved)",
      ms(10 * hundred.median),
      x(ratio(concurrent.median, 10 * hundred.median)),
      `${concurrent.runs} / ${hundred.runs}`
    )
  }
  row(
    "memory floor: modules loaded, runtime built, no read",
    "—",
    mb(results.floor.ours.peakRss),
    "",
    "",
    "",
    `${results.floor.ours.runs}`
  )

  // ---- targets
  // Memory per case: one read in a fresh process (the read's own footprint); the timed
  // processes' peaks (after a warm-up and repeats) are listed too.
  const rssCases = [
    ["small file", small.fresh.peakRss, small.ours.peakRss],
    ["first page", firstCold.peakRss, first.ours.peakRss],
    ["deep page", deep.fresh.peakRss, deep.ours.peakRss],
    ...(tail === undefined ? [] : [["tail", tail.fresh.peakRss, tail.ours.peakRss]]),
    ["single-line file", bundle.fresh.peakRss, bundle.ours.peakRss],
    ["directory", dir.fresh.peakRss, dir.ours.peakRss],
    ["1,000 concurrent reads", concurrent.peakRss, concurrent.peakRss],
    ["memory floor", results.floor.ours.peakRss, results.floor.ours.peakRss]
  ]
  if (startup !== undefined) {
    rssCases.unshift(["CLI read", startupRss.cli, startupRss.cli], ["MCP initialize", startupRss.mcp, startupRss.mcp])
  }
  const over = (v) => (v !== undefined && v >= 100 ? " ✗" : "")
  const targets = [
    ...floorTargets,
    { name: "first page of the 1 GB file under 20 ms", value: first.ours.median, limit: 20, show: ms },
    {
      name: "first page of the 1 GB file within 3× of `head` (net of spawn)",
      value: ratio(first.ours.median, net(first, "head")),
      limit: 3,
      show: (v) => `${x(v)} (whole command: ${x(ratio(first.ours.median, first.head.median))})`
    },
    {
      name: "repeated deep pages within 2× of the first page (alternating in the same processes)",
      value: ratio(deepRepeat.median, pageOne.median),
      limit: 2,
      show: (v) => x(v)
    },
    {
      name: "first deep read within 2× of `tail | head` (net of spawn)",
      value: ratio(deep.ours.median, net(deep, "tailHead")),
      limit: 2,
      show: (v) => x(v)
    },
    ...(tail === undefined ? [] : [{
      name: "tail of the 1 GB log, index cold, within 2× of `wc -l && tail -n 2000` (net of spawn)",
      value: ratio(tail.ours.median, net(tail, "wcTail")),
      limit: 2,
      show: (v) => x(v)
    }, {
      name: "tail of the 1 GB log, index warm, within 2× of `tail -n 2000` (net of spawn)",
      value: ratio(tail.warm.median, net(tail, "tail")),
      limit: 2,
      show: (v) => `${x(v)} (whole command: ${x(ratio(tail.warm.median, tail.tail.median))})`
    }]),
    {
      name: "peak RSS under 100 MB in every case (one read in a fresh process; timed process in brackets)",
      value: Math.max(...rssCases.map(([, v]) => v ?? 0)),
      limit: 100,
      show: () => rssCases.map(([n, v, t]) => `${n} ${mb(v)}${over(v)} (${mb(t)}${over(t)})`).join(", ")
    },
    {
      name: "200 MB single line, first page bounded: within 2× our first page of the 1 GB log",
      value: ratio(bundle.ours.median, first.ours.median),
      limit: 2,
      show: (v) => x(v)
    },
    ...(attach === undefined ? [] : [{
      name: "20 MB attachment to base64 within 2× `Buffer#toString(\"base64\")`",
      value: ratio(attach.ours.median, attach.base64.median),
      limit: 2,
      show: (v) => `${x(v)} (with the MCP answer's JSON: ${x(ratio(attach.answer.median, attach.base64.median))})`
    }]),
    {
      name: "1,000 concurrent reads within 1.2 × (10 × the time of 100): linear",
      value: hundred === undefined ? NaN : ratio(concurrent.median, 10 * hundred.median),
      limit: 1.2,
      show: (v) => hundred === undefined ? "not measured" : x(v)
    },
    {
      name: "1,000 concurrent reads all succeed (no EMFILE)",
      value: failures.length === 0 && concurrent.extra.every((r) => r.ok === r.reads) ? 0 : 1,
      limit: 0.5,
      show: () => okCounts.join(", ")
    }
  ].map((t) => ({ ...t, met: Number.isFinite(t.value) && t.value < t.limit }))

  const notes = [
    `Data: ${(manifest.log.size / 1e9).toFixed(2)} GB log of ${manifest.log.lines.toLocaleString("en")} lines ` +
    `(~${Math.round(manifest.log.size / manifest.log.lines)} bytes each), ` +
    `${(manifest.bundle.size / 2 ** 20).toFixed(0)} MiB single-line bundle, ` +
    `${manifest.dir.entries.toLocaleString("en")}-entry directory, ${manifest.source.lines}-line source file.`,
    `Shell baselines: whole \`sh -c\` command from Node, spawn included; "net" subtracts a \`sh -c true\` ` +
    `measured in the same runs (${ms(first.spawn.median)}); their peak RSS is ${
      Math.max(...Object.values(shellRssOf).filter(Number.isFinite)).toFixed(0)
    } MB or less. Ours: timed around the read only (not process start or module loading), in a fresh ` +
    `process per run that first reads another file 200 times (JIT and runtime warm, this file's index cold). ` +
    `Peak RSS (\`maxRSS\`) of that timed process, and of a fresh process doing only one read. ` +
    `Heap still alive after a forced GC at the end of the timed processes: ${
      [["small", small], ["first page", first], ["deep", deep], ["single line", bundle], ["directory", dir], [
        "concurrent",
        results.concurrent
      ]].map(([n, g]) => `${n} ${mb(median(g.ours.extra.map((r) => r.retainedMB)))}`).join(", ")
    }.`
  ]
  return { rows, targets: [...targets, ...(searched?.targets ?? [])], notes }
}

const renderFrom = args.includes("--render") ? args[args.indexOf("--render") + 1] : undefined
if (renderFrom !== undefined) console.log(render(JSON.parse(fs.readFileSync(renderFrom, "utf8"))).report)
else await main()
