/**
 * Wrong paths against right ones, ours against ours (issue 15): a copy of this project's
 * `node_modules` (~25,000 files, hard-linked) as a git repository and as a plain tree, both
 * outside any other repository (under the OS temp directory), read through the CLI (whole
 * command, spawn and start-up included; peak RSS from `/usr/bin/time`) and through one MCP
 * server (each `tools/call` timed from its request to its answer).
 *
 *   node bench/recovery.mjs [--quick]    after `npm run build`; prints a Markdown table
 *
 * `npm run bench` (bench/run.mjs) runs the same as part of its table; `node bench/run.mjs --only
 * recovery` runs only these rows.
 */
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { mb, ms, x } from "./format.mjs"

const here = path.dirname(fileURLToPath(import.meta.url))
const bin = path.join(here, "..", "dist", "bin.cjs")
const TREES = path.join(os.tmpdir(), "effect-read-bench-trees")
export const trees = { git: path.join(TREES, "git"), plain: path.join(TREES, "plain") }

/** A path that is there, and wrong ones a model writes (each ends up in the workspace phase). */
export const HIT = "effect/src/internal/fiberRuntime.ts"
export const MISSES = [
  "src/internal/fibreRuntime.ts",
  "effect/src/internal/fiberRuntim.ts",
  "efect/src/Schema.ts",
  "internal/core-effect.ts"
]

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length === 0 ? NaN : sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/** Hard-link copies of node_modules (nested node_modules included), once; the git one added to git's index. */
export const ensureTrees = (log = console.error) => {
  const source = fs.realpathSync(path.join(here, "..", "node_modules"))
  const marker = path.join(TREES, "ready")
  if (fs.existsSync(marker)) return JSON.parse(fs.readFileSync(marker, "utf8"))
  fs.rmSync(TREES, { recursive: true, force: true })
  fs.mkdirSync(TREES, { recursive: true })
  for (const tree of Object.values(trees)) {
    log(`copying ${source} to ${tree} (hard links) ...`)
    const copied = spawnSync("cp", ["-al", source, tree])
    if (copied.status !== 0) fs.cpSync(source, tree, { recursive: true, verbatimSymlinks: true })
  }
  log("git init + git add in the git copy ...")
  const git = (...args) => {
    const result = spawnSync("git", args, { cwd: trees.git, encoding: "utf8", maxBuffer: 256 << 20 })
    if (result.status !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr}`)
    return result.stdout
  }
  git("init", "-q")
  // Every file, as in a project that commits its dependencies: nothing ignored.
  git("add", "-A", "-f")
  const files = git("ls-files", "-z").split("\0").filter(Boolean).length
  const info = { files, source }
  fs.writeFileSync(marker, JSON.stringify(info))
  return info
}

/** One CLI read, whole command: ms and peak RSS (MB). */
const cli = (tree, filePath) => {
  const started = process.hrtime.bigint()
  const result = spawnSync("/usr/bin/time", ["-f", "%M", process.execPath, bin, "--cwd", tree, filePath], {
    encoding: "utf8",
    maxBuffer: 64 << 20
  })
  const ms = Number(process.hrtime.bigint() - started) / 1e6
  const kb = Number(result.stderr.trim().split("\n").at(-1))
  return { ms, rssMB: (kb * 1024) / 1e6, status: result.status, stderr: result.stderr }
}

/** An MCP server on `tree`: `call(filePath)` answers { ms, isError, text }. */
export const mcpServer = async (tree) => {
  const child = spawn(process.execPath, [bin, "mcp", "--cwd", tree], { stdio: ["pipe", "pipe", "ignore"] })
  let pending = ""
  const waiting = new Map()
  child.stdout.on("data", (chunk) => {
    pending += chunk.toString("utf8")
    let newline
    while ((newline = pending.indexOf("\n")) !== -1) {
      const message = JSON.parse(pending.slice(0, newline))
      pending = pending.slice(newline + 1)
      waiting.get(message.id)?.(message)
      waiting.delete(message.id)
    }
  })
  let id = 0
  const request = (method, params) =>
    new Promise((resolve) => {
      const me = ++id
      waiting.set(me, resolve)
      child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: me, method, params }) + "\n")
    })
  await request("initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "bench", version: "0" }
  })
  child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n")
  return {
    call: async (filePath) => {
      const started = process.hrtime.bigint()
      const answer = await request("tools/call", { name: "read", arguments: { filePath } })
      const ms = Number(process.hrtime.bigint() - started) / 1e6
      return { ms, isError: answer.result?.isError, text: answer.result?.content?.[0]?.text ?? "" }
    },
    close: () => new Promise((resolve) => (child.on("close", resolve), child.stdin.end()))
  }
}

/** Run everything, interleaved run by run; returns the results. */
export const measure = async ({ log = console.error, runs = 7 } = {}) => {
  const info = ensureTrees(log)
  const out = {}
  for (const [kind, tree] of Object.entries(trees)) {
    const hits = []
    const misses = []
    let sample
    for (let i = 0; i < runs; i++) {
      hits.push(cli(tree, HIT))
      const miss = cli(tree, MISSES[0])
      misses.push(miss)
      sample ??= miss.stderr.trim().split("\n").slice(0, -1).join("\n")
      process.stderr.write(`\rbench: recovery (${kind}): round ${i + 1}/${runs}   `)
    }
    process.stderr.write("\n")
    out[kind] = {
      hit: { median: median(hits.map((r) => r.ms)), peakRss: Math.max(...hits.map((r) => r.rssMB)) },
      miss: { median: median(misses.map((r) => r.ms)), peakRss: Math.max(...misses.map((r) => r.rssMB)) },
      sample,
      runs
    }
  }
  for (const [kind, tree] of Object.entries(trees)) {
    const rounds = []
    for (let i = 0; i < Math.max(3, Math.ceil(runs / 2)); i++) {
      const server = await mcpServer(tree)
      const hit = await server.call(HIT)
      const firstMiss = await server.call(MISSES[0])
      const secondMiss = await server.call(MISSES[1])
      // Then the other misses and the first two again, each followed by a hit: the server warm.
      const laterMisses = []
      const laterHits = []
      for (const miss of [...MISSES.slice(2), MISSES[0], MISSES[1]]) {
        laterMisses.push((await server.call(miss)).ms)
        laterHits.push((await server.call(HIT)).ms)
      }
      await server.close()
      rounds.push({ hit: hit.ms, firstMiss: firstMiss.ms, secondMiss: secondMiss.ms, laterMisses, laterHits })
    }
    out[`mcp-${kind}`] = {
      hit: median(rounds.map((r) => r.hit)),
      firstMiss: median(rounds.map((r) => r.firstMiss)),
      secondMiss: median(rounds.map((r) => r.secondMiss)),
      laterMisses: median(rounds.flatMap((r) => r.laterMisses)),
      laterHits: median(rounds.flatMap((r) => r.laterHits)),
      runs: rounds.length
    }
  }
  return { info, results: out }
}

/** Rows in bench/run.mjs's table shape, its targets (`show` formats the value), and a note on the setup. */
export const rows = ({ info, results }) => {
  const r = results
  const files = info.files.toLocaleString("en")
  const treeName = (kind) => (kind === "git" ? "git repository" : "tree without git")
  return {
    rows: [
      ...["git", "plain"].map((kind) => ({
        caseName: `wrong path (\`${MISSES[0]}\`) in a ${files}-file ${treeName(kind)}, one CLI call (whole command)`,
        ours: ms(r[kind].miss.median),
        rss: mb(r[kind].miss.peakRss),
        baseline: `our CLI reading \`${HIT}\` there, alternating (peak RSS ${mb(r[kind].hit.peakRss)})`,
        base: ms(r[kind].hit.median),
        r: `${x(r[kind].miss.median / r[kind].hit.median)} (RSS +${mb(r[kind].miss.peakRss - r[kind].hit.peakRss)})`,
        runsText: `${r[kind].runs} / ${r[kind].runs}`
      })),
      ...["git", "plain"].map((kind) => {
        const m = r[`mcp-${kind}`]
        return {
          caseName: `wrong paths in one MCP server, ${treeName(kind)}: the second miss / later misses`,
          ours: `${ms(m.secondMiss)} / ${ms(m.laterMisses)}`,
          rss: "—",
          baseline:
            "its first call (a hit, while the server lists the tree at start) / its first miss / later hits, alternating with the later misses",
          base: `${ms(m.hit)} / ${ms(m.firstMiss)} / ${ms(m.laterHits)}`,
          r: `${x(m.secondMiss / m.hit)} / ${x(m.laterMisses / m.laterHits)}`,
          runsText: `${m.runs} servers`
        }
      })
    ],
    targets: [
      {
        name: "wrong path, git repository: a miss within 1.3× a hit (CLI)",
        value: r.git.miss.median / r.git.hit.median,
        limit: 1.3,
        show: x
      },
      {
        name: "wrong path, git repository: a miss ≤ 20 MB more peak RSS than a hit",
        value: r.git.miss.peakRss - r.git.hit.peakRss,
        limit: 20,
        show: mb
      },
      {
        name: "wrong path, without git: a miss within 2× a hit (CLI)",
        value: r.plain.miss.median / r.plain.hit.median,
        limit: 2,
        show: x
      },
      {
        name: "wrong path, without git: a miss ≤ 20 MB more peak RSS than a hit",
        value: r.plain.miss.peakRss - r.plain.hit.peakRss,
        limit: 20,
        show: mb
      },
      {
        name: "wrong path, MCP server, git repository: the second miss ≤ 10 ms",
        value: r["mcp-git"].secondMiss,
        limit: 10,
        show: ms
      },
      {
        name: "wrong path, MCP server, tree without git: the second miss ≤ 10 ms",
        value: r["mcp-plain"].secondMiss,
        limit: 10,
        show: ms
      }
    ].map((t) => ({ ...t, met: Number.isFinite(t.value) && t.value <= t.limit })),
    note: `Wrong paths: a hard-linked copy of this project's node_modules (${files} files) as a git repository ` +
      `(everything added to git's index) and as a plain tree, under the OS temp directory; CLI calls timed whole ` +
      `(spawn and start-up included), a miss and a hit alternating, peak RSS from \`/usr/bin/time\`; MCP figures per ` +
      `\`tools/call\`, from its request to its answer, in fresh servers (a hit, then the misses; each server lists the ` +
      `tree into its file index at start, in the background).`
  }
}

export const render = (data) => {
  const { note, rows: table, targets } = rows(data)
  const cell = (text) => String(text).replaceAll("|", "\\|")
  return [
    note,
    "",
    "| case | ours (median) | peak RSS | baseline | baseline (median) | ours / baseline | runs |",
    "|---|---:|---:|---|---:|---:|---:|",
    ...table.map((r) =>
      `| ${[r.caseName, r.ours, r.rss, r.baseline, r.base, r.r, r.runsText].map(cell).join(" | ")} |`
    ),
    "",
    ...targets.map((t) => `- ${t.met ? "met" : "**missed**"}: ${t.name} — ${t.show(t.value)}`)
  ].join("\n")
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const quick = process.argv.includes("--quick")
  const data = await measure({ runs: quick ? 3 : 7 })
  console.log(render(data))
  console.error(`(sample miss output:\n${data.results.git.sample})`)
}
