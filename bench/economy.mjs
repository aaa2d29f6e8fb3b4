/**
 * The token economy (issue 30): the bytes a model is handed for a fixed set of tasks on real
 * files — effect-read used at its best (outline then range, block, search, tail, session-memory
 * stubs, read_many, suggestions) against opencode-style paging (numbered lines, 2,000-line pages,
 * a 50 KB cap, every re-read in full, a plain not-found error then a directory listing). Every
 * answer on both sides is checked for what the task needs (TypeScript's own parser finds the
 * declarations and the function; the log's last lines are read from its end), so a side that
 * saves bytes by leaving the answer out fails the bench instead of winning it.
 *
 * `measure({ log })` → `{ tasks, description }`; bench/run.mjs prints it (`--only economy`).
 */
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"
import * as Read from "../dist/Read.js"
import * as ReadMany from "../dist/ReadMany.js"
import { paths } from "./data.mjs"
import { sessionRuntime } from "./sessionRuntime.mjs"

const here = path.dirname(fileURLToPath(import.meta.url))
const ROOT = path.resolve(here, "..")
const EFFECT_SRC = "node_modules/effect/src"
/** A 5,557-line TypeScript module (declarations with members, namespaces, overloads). */
const BIG_TS = `${EFFECT_SRC}/Micro.ts`
/** A file of 11,000+ lines where the keyword is far down. */
const KEYWORD_FILE = "node_modules/typescript/lib/typescript.d.ts"
const KEYWORD = "function createSourceFile("
/** A module read three times in a row, unchanged. */
const REREAD = `${EFFECT_SRC}/Equal.ts`
/** Its name with one letter wrong. */
const TYPO = `${EFFECT_SRC}/Equl.ts`
const TAIL_LINES = 200

const bytes = (text) => Buffer.byteLength(text, "utf8")

// ---------------------------------------------------------------------------------------------
// opencode-style reads: what a model gets from a Read tool that pages

const OC_LIMIT = 2000
const OC_MAX_BYTES = 50 * 1024
const OC_LINE = 2000

/**
 * One opencode-style read of `lines` (the file's lines, or a function giving lines
 * [offset, offset + n) and the total): numbered lines from `offset`, at most 2,000, cut at 2,000
 * characters, stopped at 50 KB, and the footer that says how to go on.
 */
const ocRead = (absolute, source, offset = 1, limit = OC_LIMIT) => {
  const { lines, total } = typeof source === "function" ? source(offset, limit) : {
    lines: source.slice(offset - 1, offset - 1 + limit),
    total: source.length
  }
  const out = []
  let size = 0
  let capped = false
  for (const [i, line] of lines.entries()) {
    const shown = line.length > OC_LINE ? `${line.slice(0, OC_LINE)}... (line truncated to ${OC_LINE} chars)` : line
    const text = `${offset + i}: ${shown}`
    if (size + bytes(text) + 1 > OC_MAX_BYTES) {
      capped = true
      break
    }
    out.push(text)
    size += bytes(text) + 1
  }
  const last = offset + out.length - 1
  const footer = capped
    ? `(Output capped at 50 KB. Showing lines ${offset}-${last}. Use offset=${last + 1} to continue.)`
    : last < total
    ? `(Showing lines ${offset}-${last} of ${total}. Use offset=${last + 1} to continue.)`
    : `(End of file - total ${total} lines)`
  const output = [`<path>${absolute}</path>`, "<type>file</type>", "<content>", ...out, "", footer, "</content>"].join(
    "\n"
  )
  return { output, last, done: last >= total }
}

/** Page through the file from `offset` until `enough(outputs so far)` or its end. */
const ocPageUntil = (absolute, lines, enough, offset = 1) => {
  const outputs = []
  for (;;) {
    const page = ocRead(absolute, lines, offset)
    outputs.push(page.output)
    if (page.done || enough(outputs)) return outputs
    offset = page.last + 1
  }
}

/** An opencode-style directory listing: the path and its entries, one a line. */
const ocList = (absolute) => {
  const entries = fs.readdirSync(absolute, { withFileTypes: true }).map((e) => e.isDirectory() ? `${e.name}/` : e.name)
    .sort()
  return [
    `<path>${absolute}</path>`,
    "<type>directory</type>",
    "<entries>",
    ...entries,
    `(${entries.length} entries)`,
    "</entries>"
  ]
    .join("\n")
}

const fileLines = (relative) => {
  const lines = fs.readFileSync(path.join(ROOT, relative), "utf8").split(/\r?\n/)
  if (lines.at(-1) === "") lines.pop()
  return lines
}

// ---------------------------------------------------------------------------------------------
// What each task needs (found independently of either tool)

/** Top-level declaration names of a TypeScript file, by TypeScript's own parser. */
const declarationNames = (relative) => {
  const text = fs.readFileSync(path.join(ROOT, relative), "utf8")
  const file = ts.createSourceFile(relative, text, ts.ScriptTarget.Latest, true)
  const names = new Set()
  for (const statement of file.statements) {
    if (ts.isVariableStatement(statement)) {
      for (const d of statement.declarationList.declarations) if (ts.isIdentifier(d.name)) names.add(d.name.text)
    } else if (statement.name !== undefined && ts.isIdentifier(statement.name)) names.add(statement.name.text)
  }
  return [...names]
}

/** A top-level function of 40-120 lines, the line in its middle, and its first and last lines. */
const functionAround = (relative) => {
  const text = fs.readFileSync(path.join(ROOT, relative), "utf8")
  const file = ts.createSourceFile(relative, text, ts.ScriptTarget.Latest, true)
  const lineOf = (pos) => file.getLineAndCharacterOfPosition(pos).line + 1
  const candidates = file.statements.filter((s) =>
    ts.isVariableStatement(s) && s.declarationList.declarations.length === 1 &&
    s.declarationList.declarations[0].initializer !== undefined &&
    (ts.isArrowFunction(s.declarationList.declarations[0].initializer) ||
      ts.isCallExpression(s.declarationList.declarations[0].initializer))
  ).map((s) => ({ start: lineOf(s.getStart(file)), end: lineOf(s.getEnd()) }))
    .filter(({ end, start }) => end - start >= 40 && end - start <= 120)
  // The one nearest the middle of the file: real code, deep enough that a model cannot guess it.
  const middle = lineOf(text.length) / 2
  const chosen = candidates.sort((a, b) => Math.abs(a.start - middle) - Math.abs(b.start - middle))[0]
  const lines = text.split("\n")
  // A line in its body that is not a nested function's (the statement level of the body).
  const line = Math.floor((chosen.start + chosen.end) / 2)
  return { ...chosen, line, first: lines[chosen.start - 1], last: lines[chosen.end - 1] }
}

/** The last `n` lines of a big file, read from its end. */
const lastLines = (file, n) => {
  const fd = fs.openSync(file, "r")
  try {
    const size = fs.fstatSync(fd).size
    const length = Math.min(size, 512 * 1024)
    const buffer = Buffer.alloc(length)
    fs.readSync(fd, buffer, 0, length, size - length)
    const lines = buffer.toString("utf8").split("\n")
    if (lines.at(-1) === "") lines.pop()
    return lines.slice(-n)
  } finally {
    fs.closeSync(fd)
  }
}

/** The first `n` lines of a big file. */
const firstLines = (file, n) => {
  const fd = fs.openSync(file, "r")
  try {
    const buffer = Buffer.alloc(1024 * 1024)
    const read = fs.readSync(fd, buffer, 0, buffer.length, 0)
    return buffer.subarray(0, read).toString("utf8").split("\n").slice(0, n)
  } finally {
    fs.closeSync(fd)
  }
}

const check = (ok, what) => {
  if (!ok) throw new Error(`economy: an answer lacks ${what}`)
}
const holdsAll = (text, needles) => needles.filter((needle) => !text.includes(needle))

// ---------------------------------------------------------------------------------------------
// The tasks

const runtimeOf = () => sessionRuntime(ROOT, "economy")

/** Every task: `ours` and `theirs` are the outputs (strings) handed to the model, in order. */
export const measure = async ({ log = () => {} } = {}) => {
  const runtime = runtimeOf()
  const read = (params) => runtime.runPromise(Read.read(params)).then((r) => r.output)
  const failure = (params) => runtime.runPromise(Effect.flip(Read.read(params))).then((e) => e.message)
  const abs = (relative) => path.join(ROOT, relative)
  const tasks = []
  const task = async (name, how, run) => {
    log(`economy: ${name} ...`)
    const { calls, keyword = false, ours, theirs } = await run()
    tasks.push({
      name,
      how,
      keyword,
      ours: ours.reduce((sum, o) => sum + bytes(o), 0),
      theirs: theirs.reduce((sum, o) => sum + bytes(o), 0),
      calls: { ours: ours.length, theirs: theirs.length, ...calls }
    })
  }

  await task("declarations of a 5,557-line TypeScript file", "outline vs paging the whole file", async () => {
    const names = declarationNames(BIG_TS)
    // The outline as it comes, and its next pages when it says there are more.
    const ours = []
    for (let offset = 1; offset !== undefined;) {
      const result = await runtime.runPromise(Read.read({ filePath: BIG_TS, view: "outline", levels: 1, offset }))
      ours.push(result.output)
      offset = result.metadata.nextOffset
    }
    const theirs = ocPageUntil(abs(BIG_TS), fileLines(BIG_TS), () => false)
    for (const [side, outputs] of [["ours", ours], ["theirs", theirs]]) {
      const missing = holdsAll(outputs.join("\n"), names)
      check(missing.length === 0, `${side}: declarations ${missing.slice(0, 5).join(", ")}`)
    }
    return { ours, theirs }
  })

  await task(
    "the function around a line",
    "block view vs a 200-line window, widened until it holds the function",
    async () => {
      const target = functionAround(BIG_TS)
      const ours = [await read({ filePath: BIG_TS, view: "block", offset: target.line })]
      const lines = fileLines(BIG_TS)
      // A model that knows a line number reads around it, and reads more while the function is cut.
      const theirs = []
      let from = Math.max(1, target.line - 100)
      let to = target.line + 99
      theirs.push(ocRead(abs(BIG_TS), lines, from, to - from + 1).output)
      while (from > target.start) {
        const next = Math.max(1, from - 200)
        theirs.push(ocRead(abs(BIG_TS), lines, next, from - next).output)
        from = next
      }
      while (to < target.end) {
        theirs.push(ocRead(abs(BIG_TS), lines, to + 1, 200).output)
        to += 200
      }
      for (const [side, outputs] of [["ours", ours], ["theirs", theirs]]) {
        const text = outputs.join("\n")
        check(text.includes(`${target.start}: ${target.first}`), `${side}: the function's first line ${target.start}`)
        check(text.includes(`${target.end}: ${target.last}`), `${side}: the function's last line ${target.end}`)
      }
      return { ours, theirs, calls: { line: target.line, function: `${target.start}-${target.end}` } }
    }
  )

  await task(
    `the last ${TAIL_LINES} lines of the 1 GB log`,
    "tail vs the first page (for the total) then the last lines",
    async () => {
      const relative = path.relative(ROOT, paths.log)
      const manifest = JSON.parse(fs.readFileSync(path.join(path.dirname(paths.log), "manifest.json"), "utf8"))
      const total = manifest.log.lines
      const tail = lastLines(paths.log, TAIL_LINES)
      const ours = [await read({ filePath: relative, offset: -TAIL_LINES })]
      const source = (offset, limit) => ({
        lines: offset === 1
          ? firstLines(paths.log, limit)
          : tail.slice(offset - (total - TAIL_LINES + 1)).slice(0, limit),
        total
      })
      // The first page says how many lines there are; then the page that starts 200 from the end.
      const theirs = [ocRead(paths.log, source, 1).output, ocRead(paths.log, source, total - TAIL_LINES + 1).output]
      for (const [side, outputs] of [["ours", ours], ["theirs", theirs]]) {
        const text = outputs.join("\n")
        const missing = tail.filter((line, i) => !text.includes(`${total - TAIL_LINES + 1 + i}: ${line}`))
        check(missing.length === 0, `${side}: ${missing.length} of the last ${TAIL_LINES} lines`)
      }
      return { ours, theirs }
    }
  )

  await task("an unchanged file read three times", "session memory's stubs vs the file in full each time", async () => {
    const lines = fileLines(REREAD)
    const ours = [await read({ filePath: REREAD }), await read({ filePath: REREAD }), await read({ filePath: REREAD })]
    const theirs = [1, 2, 3].map(() => ocRead(abs(REREAD), lines).output)
    check(lines.every((line, i) => ours[0].includes(`${i + 1}: ${line}`)), "ours: the file's lines")
    // A stub is right only when it says the lines are unchanged since the read that showed them.
    for (const stub of ours.slice(1)) {
      check(/unchanged/i.test(stub) && stub.length < 1000, `ours: a stub for the re-read (got ${stub.slice(0, 200)})`)
    }
    return { ours, theirs }
  })

  await task("10 small files", "read_many vs ten reads", async () => {
    const names = fs.readdirSync(abs(EFFECT_SRC)).filter((n) => n.endsWith(".ts"))
      .map((n) => ({ n, size: fs.statSync(path.join(abs(EFFECT_SRC), n)).size })).sort((a, b) =>
        a.size - b.size || (a.n < b.n ? -1 : 1)
      )
      .slice(0, 10).map(({ n }) => `${EFFECT_SRC}/${n}`)
    const many = await runtime.runPromise(ReadMany.readMany({ files: names.map((filePath) => ({ filePath })) }))
    const ours = [many.output]
    const theirs = names.map((name) => ocRead(abs(name), fileLines(name)).output)
    for (const name of names) {
      const lines = fileLines(name)
      check(lines.every((line, i) => ours[0].includes(`${i + 1}: ${line}`)), `ours: ${name}`)
    }
    return { ours, theirs }
  })

  await task(
    "a path with a one-letter typo",
    "the error's suggestion then the read vs not found, a listing, the read",
    async () => {
      const lines = fileLines(REREAD)
      const error = await failure({ filePath: TYPO })
      check(error.includes(path.basename(REREAD)), `ours: the suggestion of ${REREAD} (got ${error.slice(0, 300)})`)
      // A fresh session: the file is not in context yet.
      const fresh = runtimeOf()
      const file = await fresh.runPromise(Read.read({ filePath: REREAD })).then((r) => r.output)
      await fresh.dispose()
      const ours = [error, file]
      const theirs = [`File not found: ${abs(TYPO)}`, ocList(abs(EFFECT_SRC)), ocRead(abs(REREAD), lines).output]
      check(theirs[1].includes(path.basename(REREAD)), "theirs: the file in the listing")
      check(lines.every((line, i) => file.includes(`${i + 1}: ${line}`)), "ours: the file's lines")
      return { ours, theirs }
    }
  )

  await task("a line found by keyword in an 11,000-line file", "search vs paging until it shows up", async () => {
    const lines = fileLines(KEYWORD_FILE)
    const at = lines.findIndex((line) => line.includes(KEYWORD)) + 1
    const wanted = `${at}: ${lines[at - 1]}`
    const ours = [await read({ filePath: KEYWORD_FILE, search: KEYWORD.replace(/[(]/g, "\\("), context: 0 })]
    const theirs = ocPageUntil(abs(KEYWORD_FILE), lines, (outputs) => outputs.at(-1).includes(wanted))
    for (const [side, outputs] of [["ours", ours], ["theirs", theirs]]) {
      check(outputs.join("\n").includes(wanted), `${side}: line ${at}`)
    }
    return { ours, theirs, calls: { line: at }, keyword: true }
  })

  // The description this host sends with every request (every source, the default caps), and
  // its short form.
  const full = await runtime.runPromise(Read.description)
  await runtime.dispose()
  const short = Read.describe(Read.defaultDescriptionInput, "short")
  return { tasks, description: { bytes: bytes(full), shortBytes: bytes(short) } }
}

/** The economy's rows and its target (bench/run.mjs renders them). */
export const render = (economy) => {
  const kb = (n) => `${(n / 1024).toFixed(1)} KB`
  const pct = (a, b) => `${((100 * a) / b).toFixed(1)} %`
  const ours = economy.tasks.reduce((sum, t) => sum + t.ours, 0)
  const theirs = economy.tasks.reduce((sum, t) => sum + t.theirs, 0)
  // Paging to a keyword costs hundreds of KB: without that task, what the rest save is seen.
  const rest = economy.tasks.filter((t) => !t.keyword)
  const restOurs = rest.reduce((sum, t) => sum + t.ours, 0)
  const restTheirs = rest.reduce((sum, t) => sum + t.theirs, 0)
  const rows = economy.tasks.map((t) =>
    `| ${t.name} | ${t.how} | ${kb(t.ours)} (${t.calls.ours}) | ${kb(t.theirs)} (${t.calls.theirs}) | ${
      pct(t.ours, t.theirs)
    } |`
  )
  const table = [
    "| task | effect-read vs opencode-style | effect-read (calls) | paging (calls) | ratio |",
    "|---|---|---|---|---|",
    ...rows,
    `| all but the keyword search | | ${kb(restOurs)} | ${kb(restTheirs)} | ${pct(restOurs, restTheirs)} |`,
    `| **all tasks** | | **${kb(ours)}** | **${kb(theirs)}** | **${pct(ours, theirs)}** |`
  ].join("\n")
  const ratio = ours / theirs
  return {
    table,
    description:
      `The tool's description, sent with every request (\`Read.description\`, every source, the default caps): ${
        economy.description.bytes.toLocaleString("en-US")
      } bytes; its short form (\`Limits.Description\` short): ${
        economy.description.shortBytes.toLocaleString("en-US")
      } bytes.`,
    target: {
      name: "token economy: bytes of effect-read at its best vs opencode-style paging ≤ 25 %",
      value: ratio,
      limit: 0.25
    }
  }
}
