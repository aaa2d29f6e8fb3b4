/**
 * One benchmark case in a fresh process: `node bench/child.mjs <case> [json options]`.
 * Prints one JSON line: `{ samples, first?, rssMB, ...extra }` — times in milliseconds, taken
 * around the read only (module loading and runtime construction are not timed), and the
 * process's peak RSS (`process.resourceUsage().maxRSS`), so memory is per case.
 */
import * as Effect from "effect/Effect"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { promises as fsp } from "node:fs"
import * as path from "node:path"
import { DATA_DIR, paths } from "./data.mjs"
import { plainRead } from "./plain.mjs"
import { readServices } from "./readServices.mjs"
// The modules `read` needs, not dist/index.js: that also loads the MCP server and SQLite ledger.
import * as Schema from "effect/Schema"
import * as FileTime from "../dist/FileTime.js"
import { stringifyLine } from "../dist/internal/mcp/jsonRpc.js"
import { attachBytes } from "../dist/internal/sources/media.js"
import * as Lsp from "../dist/Lsp.js"
import * as Permission from "../dist/Permission.js"
import * as Read from "../dist/Read.js"
import { ReadResult } from "../dist/ReadResult.js"
import * as Workspace from "../dist/Workspace.js"

const [, , name = "", raw = "{}"] = process.argv
const options = JSON.parse(raw)

/** The full tool with Node layers, as an agent server would build it (default LineIndex). */
const runtime = ManagedRuntime.make(readServices({ FileTime, Lsp, Permission, Workspace }, DATA_DIR, "bench"))

const read = (params) => runtime.runPromise(Read.read(params))

const time = async (f) => {
  const started = performance.now()
  const value = await f()
  return { ms: performance.now() - started, value }
}

/** Warm the runtime and the JIT on another file, so the case's file (and its index) stays cold. */
const warmUp = async (count = 200) => {
  for (let i = 0; i < count; i++) await read({ filePath: paths.source })
}

/** The naive whole-file reader: read everything, split every line, slice the page. */
const naiveRead = async (filePath, offset = 1, limit = 2000) => {
  const bytes = await fsp.readFile(filePath)
  let lines
  let pieces = 1
  try {
    lines = bytes.toString("utf8").split("\n")
  } catch {
    // V8 strings stop at 2^29-24 characters (ERR_STRING_TOO_LONG): decode in pieces at newlines.
    lines = []
    const PIECE = 256 * 1024 * 1024
    pieces = 0
    for (let at = 0; at < bytes.length;) {
      let end = Math.min(bytes.length, at + PIECE)
      if (end < bytes.length) end = bytes.indexOf(10, end) + 1 || bytes.length
      const piece = bytes.toString("utf8", at, end).split("\n")
      if (end < bytes.length) piece.pop()
      for (const line of piece) lines.push(line)
      at = end
      pieces++
    }
  }
  if (lines[lines.length - 1] === "") lines.pop()
  const page = lines.slice(offset - 1, offset - 1 + limit).map((line, i) => `${offset + i}: ${line}`)
  return { output: page.join("\n"), lines: lines.length, pieces }
}

const cases = {
  /** The memory floor: modules loaded and the runtime built, no read. */
  "floor": async () => {
    await runtime.runPromise(Effect.void)
    return { samples: [] }
  },
  /**
   * Per-call time on the 200-line file in a warm process: rounds of the full tool alternate with
   * rounds of the plain function, so both see the same machine.
   */
  "small": async ({ file = "small", iterations = 200, rounds = 15 }) => {
    const filePath = paths[file]
    await warmUp(2000)
    for (let i = 0; i < 2000; i++) await plainRead(filePath)
    const samples = []
    const plainSamples = []
    for (let r = 0; r < rounds; r++) {
      const ours = await time(async () => {
        for (let i = 0; i < iterations; i++) await read({ filePath })
      })
      samples.push(ours.ms / iterations)
      const plain = await time(async () => {
        for (let i = 0; i < iterations; i++) await plainRead(filePath)
      })
      plainSamples.push(plain.ms / iterations)
    }
    const result = await read({ filePath })
    const plain = await plainRead(filePath)
    return { samples, plainSamples, sameOutput: result.output === plain }
  },
  /**
   * The first read at `offset` (index cold), then `repeats` rounds alternating the first page
   * and a later page at one of `depths` (all within the part the first read indexed).
   */
  "deep-ours": async ({ depths, file, offset, repeats = 10 }) => {
    await warmUp()
    const first = await time(() => read({ filePath: paths[file], offset }))
    const pageOneSamples = []
    const deepSamples = []
    for (let i = 0; i < repeats; i++) {
      pageOneSamples.push((await time(() => read({ filePath: paths[file] }))).ms)
      deepSamples.push((await time(() => read({ filePath: paths[file], offset: depths[i % depths.length] }))).ms)
    }
    const { metadata } = first.value
    return { first: first.ms, samples: [], pageOneSamples, deepSamples, shown: [metadata.startLine, metadata.endLine] }
  },
  /** One page (`offset`, default 1) of `file`: the first read in this process, then repeats. */
  "page-ours": async ({ file, offset, repeats = 10, warm = true }) => {
    if (warm) await warmUp()
    const params = { filePath: paths[file], ...(offset !== undefined ? { offset } : {}) }
    const first = await time(() => read(params))
    const samples = []
    for (let i = 0; i < repeats; i++) samples.push((await time(() => read(params))).ms)
    const { metadata, output } = first.value
    return {
      first: first.ms,
      samples,
      shown: [metadata.startLine, metadata.endLine],
      footer: output.split("\n").at(-2),
      outputBytes: Buffer.byteLength(output)
    }
  },
  /** A search of `file` for `search`, the first read of it in this process (the index cold). */
  "search-ours": async ({ file, search, warm = true }) => {
    if (warm) await warmUp()
    const first = await time(() => read({ filePath: paths[file], search, context: 0 }))
    const { metadata } = first.value
    return { first: first.ms, samples: [], matches: metadata.search.matches, lines: metadata.search.lines }
  },
  /**
   * A 20 MB attachment (a PDF: attached as it is, no image re-encoding) from bytes to the MCP
   * answer, alternating with `Buffer#toString("base64")` of the same bytes: `attach` is our
   * attachment with its base64 data URL; `answer` adds the MCP tool result and its JSON line
   * (the data twice: as content and in the structured ReadResult).
   */
  "attach": async ({ megabytes = 20, rounds = 5 }) => {
    const pdf = (size) => {
      const bytes = Buffer.alloc(size)
      for (let i = 0; i < bytes.length; i++) bytes[i] = (Math.imul(i, 2654435761) >>> 24) & 0xff
      bytes.write("%PDF-1.7\n", 0, "latin1")
      bytes.write("\n%%EOF\n", bytes.length - 7, "latin1")
      return bytes
    }
    const bytes = pdf(megabytes * 1024 * 1024)
    const attach = (value) =>
      runtime.runPromise(
        attachBytes({
          path: "/bench/big.pdf",
          title: "big.pdf",
          bytes: value,
          mime: "application/pdf",
          facts: { size: value.length }
        })
      )
    // Loaded here: the other cases (and their peak RSS) do without the MCP server.
    const { successResult } = await import("../dist/McpServer.js")
    await attach(pdf(1 << 20))
    const samples = []
    const base64Samples = []
    const answerSamples = []
    let answerBytes = 0
    for (let r = 0; r < rounds; r++) {
      base64Samples.push((await time(async () => bytes.toString("base64").length)).ms)
      const attached = await time(() => attach(bytes))
      samples.push(attached.ms)
      const answer = await time(async () => {
        const result = attached.value
        // The line the stdio transport writes.
        const line = stringifyLine({
          jsonrpc: "2.0",
          id: 1,
          result: successResult(result, Schema.encodeSync(ReadResult)(result))
        })
        answerBytes = line.length
        return line
      })
      answerSamples.push(attached.ms + answer.ms)
    }
    return { first: samples[0], samples, base64Samples, answerSamples, answerBytes }
  },
  "naive": async ({ file, offset = 1 }) => {
    const { ms, value } = await time(() => naiveRead(paths[file], offset))
    return { first: ms, samples: [ms], lines: value.lines, pieces: value.pieces }
  },
  /** `count` (default all 1,000) concurrent reads of distinct files through one runtime. */
  "concurrent-ours": async ({ count }) => {
    await warmUp()
    const names = (await fsp.readdir(paths.many)).sort().slice(0, count)
    const program = Effect.forEach(
      names,
      (file) => Effect.either(Read.read({ filePath: path.join(paths.many, file) })),
      { concurrency: "unbounded" }
    )
    const { ms, value } = await time(() => runtime.runPromise(program))
    const failures = value.filter((r) => r._tag === "Left").map((r) => `${r.left._tag}: ${r.left.message}`)
    return {
      first: ms,
      samples: [ms],
      reads: value.length,
      ok: value.length - failures.length,
      failures: [...new Set(failures)].slice(0, 3)
    }
  }
}

const run = cases[name]
if (run === undefined) {
  console.error(`unknown case ${name}; one of ${Object.keys(cases).join(", ")}`)
  process.exit(2)
}
const result = await run(options)
const rssMB = (process.resourceUsage().maxRSS * 1024) / 1e6
// With --expose-gc: the heap still alive after the case, against the peak (mostly garbage).
globalThis.gc?.()
const retainedMB = globalThis.gc === undefined ? undefined : process.memoryUsage().heapUsed / 1e6
await runtime.dispose()
process.stdout.write(JSON.stringify({ case: name, ...result, rssMB, retainedMB }) + "\n")
