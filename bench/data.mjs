/**
 * Benchmark data, generated once under bench/data/ (git-ignored) and reused while its manifest
 * matches: a ~1 GB log of ~80-byte lines, a 200 MB single-line minified bundle, a
 * 100,000-entry directory, a 200-line and a 100-line source file, and 1,000 small files for the
 * concurrency run.
 * Everything is deterministic (a seeded PRNG), so reruns measure the same bytes.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

export const DATA_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "data")
/** Bump when a generator changes: the data is regenerated. */
const VERSION = 1

export const LOG_BYTES = 1_000_000_000
export const BUNDLE_BYTES = 200 * 1024 * 1024
export const DIR_ENTRIES = 100_000
export const DIR_SUBDIRS = 2_000
export const SOURCE_LINES = 200
/** The small-file and start-up cases: a 100-line source file. */
export const SMALL_LINES = 100
export const MANY_FILES = 1_000

export const paths = {
  log: path.join(DATA_DIR, "app.log"),
  bundle: path.join(DATA_DIR, "bundle.min.js"),
  dir: path.join(DATA_DIR, "dir100k"),
  source: path.join(DATA_DIR, "source.ts"),
  small: path.join(DATA_DIR, "small.ts"),
  many: path.join(DATA_DIR, "many"),
  manifest: path.join(DATA_DIR, "manifest.json")
}

/** mulberry32: small, fast, deterministic. */
export const prng = (seed) => () => {
  seed |= 0
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const pick = (random, items) => items[Math.floor(random() * items.length)]

const LEVELS = ["INFO ", "INFO ", "INFO ", "INFO ", "DEBUG", "DEBUG", "WARN ", "ERROR"]
const VERBS = ["GET", "GET", "GET", "POST", "PUT", "DELETE"]
const ROUTES = ["/api/v1/items", "/api/v1/users", "/health", "/api/v2/orders", "/static/app.js", "/login"]
const MESSAGES = [
  "cache miss",
  "retrying upstream",
  "slow query",
  "session refreshed",
  "rate limited",
  "ok",
  "payload too large",
  "connection reset by peer"
]

/** One log line, newline included: ~80 bytes on average (60-110), ASCII. */
let stampSecond = -1
let stampPrefix = ""
const logLine = (random, n) => {
  const ms = 1_714_560_000_000 + n * 7
  // toISOString per line is most of the generation time: format once per second.
  const second = Math.floor(ms / 1000)
  if (second !== stampSecond) {
    stampSecond = second
    stampPrefix = new Date(second * 1000).toISOString().slice(0, 20)
  }
  const stamp = `${stampPrefix}${String(ms % 1000).padStart(3, "0")}Z`
  const level = pick(random, LEVELS)
  const worker = Math.floor(random() * 16)
  const id = Math.floor(random() * 0xffffff).toString(16).padStart(6, "0")
  const route = `${pick(random, ROUTES)}/${Math.floor(random() * 10000)}`
  const status = level === "ERROR" ? 500 : level === "WARN " ? 429 : 200
  const tail = random() < 0.35 ? ` ${pick(random, MESSAGES)}` : ""
  return `${stamp} ${level} [w${worker}] ${id} ${pick(random, VERBS)} ${route} ${status} ${
    Math.floor(random() * 900)
  }ms${tail}\n`
}

const writeLog = (file) => {
  const random = prng(1)
  const fd = fs.openSync(file, "w")
  let written = 0
  let lines = 0
  const parts = []
  let pending = 0
  try {
    while (written + pending < LOG_BYTES) {
      const line = logLine(random, lines)
      parts.push(line)
      pending += line.length
      lines++
      if (pending >= 8 * 1024 * 1024) {
        written += fs.writeSync(fd, parts.join(""))
        parts.length = 0
        pending = 0
      }
    }
    if (parts.length > 0) written += fs.writeSync(fd, parts.join(""))
  } finally {
    fs.closeSync(fd)
  }
  return { size: written, lines }
}

const IDENTS = ["a", "b", "c", "d", "e", "t", "n", "r", "i", "o", "s", "u", "l", "f", "p", "h", "m", "g", "y"]
const STRINGS = ["\"use strict\"", "\"click\"", "\"héllo wörld\"", "\"日本語\"", "\"data-id\"", "\"\\n\"", "'px'"]

/** One statement of minified JavaScript (no newlines). */
const jsStatement = (random) => {
  const id = () => pick(random, IDENTS) + (random() < 0.5 ? pick(random, IDENTS) : "")
  switch (Math.floor(random() * 6)) {
    case 0:
      return `function ${id()}(${id()},${id()}){return ${id()}.${id()}(${id()})+${Math.floor(random() * 100)}}`
    case 1:
      return `var ${id()}=${pick(random, STRINGS)},${id()}=[${id()},${id()},${Math.floor(random() * 1e6)}];`
    case 2:
      return `if(${id()}&&${id()}.length>${Math.floor(random() * 64)}){${id()}.push(${
        pick(random, STRINGS)
      })}else{${id()}=null}`
    case 3:
      return `${id()}.prototype.${id()}=function(){return this.${id()}===void 0?${id()}:${pick(random, STRINGS)}};`
    case 4:
      return `for(var ${id()}=0;${id()}<${Math.floor(random() * 1000)};${id()}++)${id()}[${id()}]=${id()}(${id()});`
    default:
      return `const ${id()}=(${id()})=>({${id()}:${id()},${id()}:${pick(random, STRINGS)}});`
  }
}

/** 200 MB of minified JavaScript on one line, then one final newline (still one line). */
const writeBundle = (file) => {
  const random = prng(2)
  const fd = fs.openSync(file, "w")
  let written = 0
  try {
    while (written < BUNDLE_BYTES - 1) {
      const parts = []
      let pending = 0
      while (pending < 4 * 1024 * 1024) {
        const statement = jsStatement(random)
        parts.push(statement)
        pending += Buffer.byteLength(statement)
      }
      const chunk = Buffer.from(parts.join(""))
      const room = BUNDLE_BYTES - 1 - written
      written += fs.writeSync(fd, chunk, 0, Math.min(room, chunk.length))
    }
    written += fs.writeSync(fd, "\n")
  } finally {
    fs.closeSync(fd)
  }
  return { size: written, lines: 1 }
}

/** A TypeScript source file of exactly `lines` lines. */
const sourceText = (random, lines, seed = "") => {
  const out = [`// generated benchmark source ${seed}`.trimEnd(), "import * as Effect from \"effect/Effect\"", ""]
  let k = 0
  while (out.length < lines - 1) {
    const name = `${pick(random, IDENTS)}${pick(random, IDENTS)}${k++}`
    out.push(`/** Compute ${name} from its inputs: ${pick(random, MESSAGES)}. */`)
    out.push(`export const ${name} = (input: ReadonlyArray<number>, scale = ${Math.floor(random() * 10)}) => {`)
    out.push(`  const total = input.reduce((sum, value) => sum + value * scale, 0)`)
    out.push(`  return total > ${Math.floor(random() * 1000)} ? Effect.succeed(total) : Effect.fail("too small")`)
    out.push("}")
    out.push("")
  }
  out.length = lines - 1
  out.push("export default {}")
  return out.join("\n") + "\n"
}

const makeDirectory = (dir) => {
  fs.mkdirSync(dir, { recursive: true })
  const random = prng(3)
  for (let i = 0; i < DIR_ENTRIES; i++) {
    const name = `${pick(random, ["Item", "item", "module", "Component", "test", "util"])}-${
      String(i).padStart(6, "0")
    }`
    if (i % (DIR_ENTRIES / DIR_SUBDIRS) === 0) fs.mkdirSync(path.join(dir, name))
    else fs.closeSync(fs.openSync(path.join(dir, `${name}.js`), "w"))
  }
}

const countEntries = (dir) => {
  try {
    return fs.readdirSync(dir).length
  } catch {
    return -1
  }
}

const sizeOf = (file) => {
  try {
    return fs.statSync(file).size
  } catch {
    return -1
  }
}

const readManifest = () => {
  try {
    return JSON.parse(fs.readFileSync(paths.manifest, "utf8"))
  } catch {
    return {}
  }
}

/** Generate whatever is missing or stale; return the manifest (sizes and line counts). */
export const ensureData = (log = console.error, only = undefined) => {
  fs.mkdirSync(DATA_DIR, { recursive: true })
  const manifest = readManifest()
  const fresh = manifest.version === VERSION
  const next = { version: VERSION }
  const step = (name, ok, make) => {
    // A partial run (`only`) keeps what else the manifest says, made or not.
    if (only !== undefined && !only.includes(name)) {
      if (manifest[name] !== undefined) next[name] = manifest[name]
      return
    }
    if (fresh && manifest[name] !== undefined && ok(manifest[name])) {
      next[name] = manifest[name]
      return
    }
    const started = performance.now()
    log(`bench: generating ${name} ...`)
    next[name] = make()
    log(`bench: generated ${name} in ${((performance.now() - started) / 1000).toFixed(1)} s`)
    fs.writeFileSync(paths.manifest, JSON.stringify({ ...manifest, ...next }, null, 2))
  }
  step("log", (m) => sizeOf(paths.log) === m.size && m.lines >= 5_002_000, () => writeLog(paths.log))
  step("bundle", (m) => sizeOf(paths.bundle) === m.size, () => writeBundle(paths.bundle))
  step("source", (m) => sizeOf(paths.source) === m.size, () => {
    fs.writeFileSync(paths.source, sourceText(prng(4), SOURCE_LINES))
    return { size: sizeOf(paths.source), lines: SOURCE_LINES }
  })
  step("small", (m) => sizeOf(paths.small) === m.size, () => {
    fs.writeFileSync(paths.small, sourceText(prng(6), SMALL_LINES))
    return { size: sizeOf(paths.small), lines: SMALL_LINES }
  })
  step("dir", (m) => countEntries(paths.dir) === m.entries, () => {
    fs.rmSync(paths.dir, { recursive: true, force: true })
    makeDirectory(paths.dir)
    return { entries: countEntries(paths.dir) }
  })
  step("many", (m) => countEntries(paths.many) === m.files, () => {
    fs.rmSync(paths.many, { recursive: true, force: true })
    fs.mkdirSync(paths.many, { recursive: true })
    const random = prng(5)
    for (let i = 0; i < MANY_FILES; i++) {
      fs.writeFileSync(
        path.join(paths.many, `f${String(i).padStart(4, "0")}.ts`),
        sourceText(random, SOURCE_LINES, `#${i}`)
      )
    }
    return { files: countEntries(paths.many) }
  })
  fs.writeFileSync(paths.manifest, JSON.stringify(next, null, 2))
  return next
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(ensureData(), null, 2))
}
