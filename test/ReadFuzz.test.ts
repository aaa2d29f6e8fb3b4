/**
 * The suite fuzzes itself: `Read.read` and `ReadMany.readMany` called with random parameter
 * objects (odd values too: BigInts, circular objects, symbols, misspelled keys), paths built from
 * the selector grammar (line ranges, tails, views, archive members, database tables, rows and
 * queries, links, `..`, absolute, `~`, `file://`) and files of every format the sources claim,
 * valid or mutated (truncated headers, flipped bits, another format's head, random bytes), in a
 * workspace with links out of it, a denied directory and an env file nobody may approve.
 *
 * Every call must end within a generous deadline in a success or a documented tagged error
 * (`ReadError`): never a defect, never a hang; never show a name or a byte from outside the
 * workspace or from a denied path (they all carry a token the generator cannot produce); never
 * write (the whole filesystem is compared before and after); and a success stays within its caps.
 *
 * Seeded and replayable: the seed is printed; `READ_FUZZ_SEED=<n>` replays a run,
 * `READ_FUZZ_RUNS=<n>` sets the cases (default 200 over memory, a quarter of that over a real
 * directory), `READ_FUZZ_SECONDS=<n>` bounds each property's time (default 20: it then stops,
 * passing, with the cases it ran), `READ_FUZZ_STATS=1` prints what the answers were.
 * `npm run fuzz` is the long run (20,000 cases).
 */
import * as FileSystem from "@effect/platform/FileSystem"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as fc from "effect/FastCheck"
import * as Schema from "effect/Schema"
import { execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { QueryLimits } from "../src/Limits.js"
import * as MemoryFileSystem from "../src/MemoryFileSystem.js"
import * as Permission from "../src/Permission.js"
import { readUnknown } from "../src/Read.js"
import { ReadError } from "../src/ReadError.js"
import { ReadManyResult, readManyUnknown } from "../src/ReadMany.js"
import { ReadResult } from "../src/ReadResult.js"
import { formatSeeds } from "./support/formatCorpus.js"
import { memoryLayer, nodeLayer, tempDir } from "./support/index.js"

const SEED = Number(process.env["READ_FUZZ_SEED"] ?? Math.floor(Math.random() * 2 ** 31))
const RUNS = Number(process.env["READ_FUZZ_RUNS"] ?? 200)
const SECONDS = Number(process.env["READ_FUZZ_SECONDS"] ?? 20)
console.info(
  `read fuzz: seed ${SEED}, ${RUNS} cases, at most ${SECONDS} s a property (replay with READ_FUZZ_SEED=${SEED})`
)

/**
 * In every name and byte the session must not see. The generator's alphabet has no `q` or `z`,
 * and its names none of this, so a token in an answer can only have been read.
 */
const TOKEN = `qz${(SEED >>> 0).toString(16)}zq`

// -----------------------------------------------------------------------------
// The workspace
// -----------------------------------------------------------------------------

const SEEDS = await formatSeeds()
const SEED_NAMES = SEEDS.map(([name]) => name)
const secretDb = SEEDS.find(([name]) => name === "app.db")![1]

/** Files of the workspace at `root`, with what lies outside it at `outside`. */
const workspace = (root: string, outside: string): Record<string, MemoryFileSystem.Entry> => ({
  ...Object.fromEntries(SEEDS.map(([name, bytes]) => [`${root}/${name}`, bytes])),
  [`${root}/src/nested/deep.ts`]: "export const deep = 1\n",
  [`${root}/dir/one.txt`]: "one\ntwo\n",
  [`${root}/dir/two.md`]: "# two\n",
  [`${root}/empty`]: MemoryFileSystem.directory,
  [`${root}/.env`]: `KEY=${TOKEN}\n`,
  [`${root}/private/secret-${TOKEN}.txt`]: `private ${TOKEN}\n`,
  [`${root}/link-dir`]: MemoryFileSystem.symlink(outside),
  [`${root}/link-file.txt`]: MemoryFileSystem.symlink(`${outside}/secret-${TOKEN}.txt`),
  [`${root}/link-db.db`]: MemoryFileSystem.symlink(`${outside}/secret-${TOKEN}.db`),
  [`${root}/link-up`]: MemoryFileSystem.symlink("/"),
  [`${root}/link-loop`]: MemoryFileSystem.symlink(`${root}/link-loop`),
  [`${root}/dangling`]: MemoryFileSystem.symlink("/nowhere/at/all"),
  [`${outside}/secret-${TOKEN}.txt`]: `outside ${TOKEN}\n`,
  [`${outside}/secret-${TOKEN}.db`]: secretDb,
  [`${outside}/nested-${TOKEN}/inner-${TOKEN}.txt`]: `inner ${TOKEN}\n`
})

/** The default rules, and nothing under `private/`. Nobody answers an ask: it is refused. */
const rules: ReadonlyArray<Permission.Rule> = [
  ...Permission.defaultRules,
  { permission: "read", pattern: "private", action: "deny" },
  { permission: "read", pattern: "private/*", action: "deny" }
]

// -----------------------------------------------------------------------------
// The case file: a format's seed, mutated, under a name that may or may not fit it
// -----------------------------------------------------------------------------

const EXTENSIONS = [
  ".txt",
  ".ts",
  ".json",
  ".ipynb",
  ".html",
  ".svg",
  ".png",
  ".jpg",
  ".gif",
  ".webp",
  ".pdf",
  ".zip",
  ".jar",
  ".tar",
  ".tgz",
  ".tar.gz",
  ".gz",
  ".db",
  ".sqlite",
  ".docx",
  ".xlsx",
  ".pptx",
  ".odt",
  ".epub",
  ".bin",
  ""
]

type Mutation =
  | { readonly _tag: "None" }
  | { readonly _tag: "Truncate"; readonly at: number }
  | { readonly _tag: "Flip"; readonly at: ReadonlyArray<number> }
  | { readonly _tag: "Overwrite"; readonly at: number; readonly bytes: Uint8Array }
  | { readonly _tag: "Splice"; readonly other: number; readonly at: number }
  | { readonly _tag: "Random"; readonly bytes: Uint8Array }

const fraction = fc.integer({ min: 0, max: 9_999 }).map((n) => n / 10_000)
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ _tag: "None" as const }) },
  { weight: 3, arbitrary: fraction.map((at) => ({ _tag: "Truncate" as const, at })) },
  {
    weight: 3,
    arbitrary: fc.array(fraction, { minLength: 1, maxLength: 8 }).map((at) => ({ _tag: "Flip" as const, at }))
  },
  {
    weight: 2,
    arbitrary: fc.record({ at: fraction, bytes: fc.uint8Array({ minLength: 1, maxLength: 64 }) }).map((m) => ({
      _tag: "Overwrite" as const,
      ...m
    }))
  },
  {
    weight: 1,
    arbitrary: fc.record({ other: fc.nat(SEEDS.length - 1), at: fraction }).map((m) => ({
      _tag: "Splice" as const,
      ...m
    }))
  },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 5000 }).map((bytes) => ({ _tag: "Random" as const, bytes })) }
)

const mutate = (seed: Uint8Array, m: Mutation): Uint8Array => {
  const bytes = Buffer.from(seed)
  switch (m._tag) {
    case "None":
      return bytes
    case "Truncate":
      return bytes.subarray(0, Math.floor(m.at * bytes.length))
    case "Flip":
      for (const at of m.at) bytes[Math.floor(at * bytes.length)]! ^= 1 << (Math.floor(at * 80) % 8)
      return bytes
    case "Overwrite":
      bytes.set(
        m.bytes.subarray(0, Math.max(0, bytes.length - Math.floor(m.at * bytes.length))),
        Math.floor(m.at * bytes.length)
      )
      return bytes
    case "Splice": {
      const other = SEEDS[m.other]![1]
      return Buffer.concat([
        other.subarray(0, Math.floor(m.at * other.length)),
        bytes.subarray(Math.floor(m.at * bytes.length))
      ])
    }
    case "Random":
      return m.bytes
  }
}

const caseFile = fc.record({ seed: fc.nat(SEEDS.length - 1), extension: fc.constantFrom(...EXTENSIONS), mutation }).map(
  ({ extension, mutation, seed }) => ({
    name: `case${extension}`,
    bytes: mutate(SEEDS[seed]![1], mutation),
    seed: SEED_NAMES[seed]!,
    mutation: mutation._tag
  })
)

// -----------------------------------------------------------------------------
// Parameters
// -----------------------------------------------------------------------------

const circular = (): Record<string, unknown> => {
  const value: Record<string, unknown> = { filePath: "notes.txt" }
  value["self"] = value
  return value
}

/** What only a JavaScript caller sends: every one must be an `InvalidParams`. */
const odd = fc.constantFrom<unknown>(
  null,
  Number.NaN,
  Infinity,
  -0,
  1.5,
  2n,
  "",
  "x",
  [],
  {},
  true,
  Symbol("s"),
  () => 1,
  new Date(0),
  circular(),
  "\0"
)

const NAMES = [
  ...SEED_NAMES,
  "case",
  "src",
  "src/",
  "src/nested/deep.ts",
  "dir",
  "dir/",
  "dir/one.txt",
  "empty",
  ".env",
  "private",
  "private/",
  "link-dir",
  "link-dir/",
  "link-file.txt",
  "link-db.db",
  "link-up",
  "link-up/",
  "link-loop",
  "dangling",
  "missing.txt",
  "nots.txt",
  "NOTES.TXT",
  "dir/one.tx",
  "lnk-dir/x.txt",
  "nk-dir/sec",
  "deep.ts",
  "nested/deep.ts",
  "ap.ts",
  "archiv.zip",
  ".",
  "./",
  "..",
  "../",
  "/",
  "~",
  "~/x"
]
const SELECTORS = [
  "1",
  "2-3",
  "5-",
  "1+2",
  "L1-L2",
  "1-2,4-5",
  "-3",
  "-1",
  "raw",
  "2-4:raw",
  "-2:raw",
  "outline",
  "summary",
  "conflicts",
  "2:block",
  "tree",
  "pages=1",
  "pages=1-2",
  "0",
  "99999999999999999999",
  "3-1",
  "x",
  ""
]
const MEMBERS = [
  "dir/a.txt",
  "b.md",
  "bin.dat",
  "inner.zip",
  "inner.zip:deep.txt",
  "dir",
  "dir/",
  "link",
  "missing",
  "../../etc/passwd",
  "/etc/passwd",
  "a.txt",
  "notes",
  "log"
]
const DATABASE = [
  ":t",
  ":t:1",
  ":t:2",
  ":t:999",
  ":v",
  ":sqlite_master",
  ":t?limit=2",
  ":t?where=x > 1",
  ":t?where=1); DROP TABLE t; --",
  "?q=SELECT 1",
  "?q=SELECT * FROM t",
  "?q=DELETE FROM t",
  "?q=ATTACH 'x.db' AS y",
  "?q=PRAGMA writable_schema=1",
  ":t?limit=abc",
  ":t?order=x",
  ":nope",
  "?q="
]
/** A runaway query: stopped at its (shortened) time budget. */
const RUNAWAY = "?q=WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"
const ALPHABET = [
  "a",
  "b",
  "e",
  ".",
  "/",
  "..",
  ":",
  "-",
  "1",
  "7",
  "é",
  " ",
  "\\",
  "*",
  "?",
  "%",
  "#",
  "~",
  "\t",
  "日"
]

/** Where the workspace and the outside directory are. */
interface Roots {
  readonly root: string
  readonly outside: string
}

/** A workspace file of some format (the case file among them) more often than anything else. */
const name = (caseName: string) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...SEED_NAMES, caseName, caseName) },
    { weight: 2, arbitrary: fc.constantFrom(...NAMES).map((n) => n === "case" ? caseName : n) }
  )

const filePath = (caseName: string, roots: Roots): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 6, arbitrary: name(caseName) },
    { weight: 5, arbitrary: fc.tuple(name(caseName), fc.constantFrom(...SELECTORS)).map(([n, s]) => `${n}:${s}`) },
    {
      weight: 4,
      arbitrary: fc.tuple(
        fc.constantFrom("archive.zip", "bundle.tar", "bundle.tgz", "log.gz", caseName),
        fc.constantFrom(...MEMBERS),
        fc.option(fc.constantFrom(...SELECTORS), { nil: undefined })
      ).map(([a, m, s]) => `${a}:${m}${s === undefined ? "" : `:${s}`}`)
    },
    {
      weight: 4,
      arbitrary: fc.tuple(fc.constantFrom("app.db", "link-db.db", caseName), fc.constantFrom(...DATABASE)).map((
        [d, s]
      ) => `${d}${s}`)
    },
    { weight: 1, arbitrary: fc.constant(`app.db${RUNAWAY}`) },
    {
      weight: 2,
      arbitrary: fc.tuple(
        fc.constantFrom(
          "./",
          "../",
          `${roots.root}/`,
          `${roots.outside}/`,
          "~/",
          `file://${roots.root}/`,
          `file://${roots.outside}/`,
          " "
        ),
        name(caseName)
      )
        .map(([p, n]) => `${p}${n}`)
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom("http://127.0.0.1:9/x", "https://127.0.0.1:9/", "ftp://x/y", "data:text/plain,hi")
    },
    { weight: 2, arbitrary: fc.array(fc.constantFrom(...ALPHABET), { maxLength: 24 }).map((parts) => parts.join("")) },
    { weight: 1, arbitrary: odd }
  )

const optional = <A>(valid: fc.Arbitrary<A>) =>
  fc.oneof({ weight: 19, arbitrary: valid as fc.Arbitrary<unknown> }, { weight: 1, arbitrary: odd })

const fields = (caseName: string, roots: Roots) => ({
  filePath: filePath(caseName, roots),
  offset: optional(
    fc.oneof(fc.integer({ min: -60, max: 120 }), fc.constantFrom(2 ** 31, -(2 ** 31), Number.MAX_SAFE_INTEGER))
  ),
  limit: optional(fc.oneof(fc.integer({ min: 1, max: 3000 }), fc.constantFrom(0, -1, 2 ** 40))),
  column: optional(fc.integer({ min: 0, max: 5000 })),
  encoding: optional(
    fc.constantFrom(
      "utf-8",
      "shift_jis",
      "utf-16le",
      "utf-16be",
      "latin1",
      "windows-1252",
      "euc-kr",
      "gbk",
      "iso-2022-jp",
      "utf-32le",
      "base64",
      "klingon",
      ""
    )
  ),
  view: optional(fc.constantFrom("list", "tree", "outline", "summary", "block", "conflicts", "bogus")),
  levels: optional(fc.integer({ min: 0, max: 5 })),
  context: optional(fc.constant("syntax")),
  lineFormat: optional(fc.constant("hashline"))
})

/** Mostly a path and a field or two; sometimes everything; sometimes a key no one takes. */
const readParams = (caseName: string, roots: Roots): fc.Arbitrary<unknown> => {
  const f = fields(caseName, roots)
  const sparse = fc.record({ filePath: f.filePath, offset: f.offset, limit: f.limit }, { requiredKeys: ["filePath"] })
  const full = fc.record(f, { requiredKeys: [] })
  const misspelt = fc.tuple(
    sparse,
    fc.constantFrom("offest", "limt", "bogus", "filepath", "path", "files"),
    fc.anything()
  )
    .map(([params, key, value]) => ({ ...(params as object), [key]: value }))
  return fc.oneof(
    { weight: 8, arbitrary: soundParams(caseName, roots) },
    { weight: 4, arbitrary: sparse },
    { weight: 4, arbitrary: full },
    { weight: 1, arbitrary: misspelt },
    { weight: 1, arbitrary: odd }
  )
}

/** A path and sound values: what a model sends most of the time. */
const soundParams = (caseName: string, roots: Roots): fc.Arbitrary<unknown> => {
  const path = filePath(caseName, roots).filter((path) => typeof path === "string" && path.length > 0)
  return fc.oneof(
    { weight: 3, arbitrary: path.map((filePath) => ({ filePath })) },
    {
      weight: 2,
      arbitrary: fc.record({
        filePath: path,
        offset: fc.integer({ min: -40, max: 60 }),
        limit: fc.integer({ min: 1, max: 3000 })
      }, {
        requiredKeys: ["filePath"]
      })
    }
  )
}

const readManyParams = (caseName: string, roots: Roots): fc.Arbitrary<unknown> => {
  // One odd request fails the whole call: most are sound.
  const request = fc.oneof({ weight: 12, arbitrary: soundParams(caseName, roots) }, {
    weight: 1,
    arbitrary: readParams(caseName, roots)
  })
  return fc.oneof(
    { weight: 6, arbitrary: fc.record({ files: fc.array(request, { minLength: 1, maxLength: 4 }) }) },
    {
      weight: 3,
      arbitrary: fc.record(
        {
          files: fc.array(request, { maxLength: 2 }),
          glob: fc.constantFrom(
            "**/*",
            "*",
            "*.txt",
            "dir/**",
            "../**",
            "/outside/**",
            "link-dir/**",
            "private/**",
            "**/*.db",
            "{a,b",
            ""
          )
        },
        { requiredKeys: ["glob"] }
      )
    },
    { weight: 1, arbitrary: fc.oneof(fc.record({ globs: fc.constant("*") }), odd) }
  )
}

const fuzzCase = (roots: Roots) =>
  caseFile.chain((file) =>
    fc.record({ file: fc.constant(file), one: readParams(file.name, roots), many: readManyParams(file.name, roots) })
  )

// -----------------------------------------------------------------------------
// The checks
// -----------------------------------------------------------------------------

const stats = new Map<string, number>()
afterAll(() => {
  if (process.env["READ_FUZZ_STATS"] === undefined) return
  console.info([...stats].sort((a, b) => b[1] - a[1]).map(([answer, n]) => `${n}\t${answer}`).join("\n"))
})
const count = (answer: string) => stats.set(answer, (stats.get(answer) ?? 0) + 1)

class Hang {
  readonly _tag = "Hang"
}
/** Generous: only a call that would never end gets here (the database budget is 2 s). */
const DEADLINE = "60 seconds"

const isReadError = Schema.is(ReadError)
const encodeRead = Schema.encodeUnknownEither(ReadResult)
const encodeMany = Schema.encodeUnknownEither(ReadManyResult)

/** A JSON value holds only finite numbers. */
const finite = (value: unknown): boolean =>
  typeof value === "number"
    ? Number.isFinite(value)
    : Array.isArray(value)
    ? value.every(finite)
    : value !== null && typeof value === "object"
    ? Object.values(value).every(finite)
    : true

const describeInput = (input: unknown): string => {
  try {
    return JSON.stringify(
      input,
      (_k, v) => typeof v === "bigint" ? `${v}n` : typeof v === "symbol" || typeof v === "function" ? String(v) : v
    )
  } catch {
    return String(input)
  }
}

/** One call's answer: a success within its caps or a documented error, showing nothing it may not. */
const checkAnswer = (
  where: string,
  kind: "read" | "readMany",
  input: unknown,
  exit: Exit.Exit<unknown, unknown>
) => {
  const context = `${kind}(${describeInput(input)})`
  if (Exit.isFailure(exit)) {
    expect(Cause.isDie(exit.cause), `${context}: a defect: ${Cause.pretty(exit.cause)}`).toBe(false)
    const failure = Cause.failureOption(exit.cause)
    expect(failure._tag, `${context}: ${Cause.pretty(exit.cause)}`).toBe("Some")
    if (failure._tag === "None") return
    const error = failure.value
    expect(error instanceof Hang, `${context}: no answer within ${DEADLINE}`).toBe(false)
    expect(isReadError(error), `${context}: not a documented error: ${String(error)}`).toBe(true)
    const tagged = error as ReadError
    count(
      `${where} ${kind} ${tagged._tag}${
        process.env["READ_FUZZ_STATS"] === "2" ? ` ${tagged.message.slice(0, 70)}` : ""
      }`
    )
    expect(tagged.message.length, context).toBeGreaterThan(0)
    // InvalidParams echoes what it was given (`actual NaN`); nothing else has cause to.
    if (tagged._tag !== "InvalidParams") expect(tagged.message, context).not.toMatch(/\[object |undefined|NaN/)
    expect(JSON.stringify({ ...tagged, message: tagged.message }), `${context}: shows what it may not`).not.toContain(
      TOKEN
    )
    return
  }
  const encoded = kind === "read" ? encodeRead(exit.value) : encodeMany(exit.value)
  expect(encoded._tag, `${context}: the result does not encode`).toBe("Right")
  if (encoded._tag === "Left") return
  const json = encoded.right as { output: string; metadata?: unknown; attachments?: ReadonlyArray<{ url: string }> }
  count(`${where} ${kind} ok ${(json.metadata as { kind?: string } | undefined)?.kind ?? "many"}`)
  expect(JSON.stringify(json), `${context}: shows what it may not`).not.toContain(TOKEN)
  for (const attachment of json.attachments ?? []) {
    const data = attachment.url.slice(attachment.url.indexOf(",") + 1)
    expect(Buffer.from(data, "base64").includes(TOKEN), `${context}: attaches what it may not`).toBe(false)
  }
  expect(finite(json), `${context}: a number that is not finite`).toBe(true)
  expect(json.output, context).not.toContain("[object Object]")
  // The page cap (50 KB) with its header, notes and footers; read_many shares one such budget.
  expect(Buffer.byteLength(json.output), context).toBeLessThanOrEqual(64 * 1024)
}

/** Every file and link under `root`, with what it holds: nothing may be written by a read. */
const snapshot = (root: string) =>
  Effect.gen(function*() {
    const fsys = yield* FileSystem.FileSystem
    const entries: Array<string> = []
    const walk = (dir: string): Effect.Effect<void> =>
      Effect.gen(function*() {
        const names = yield* fsys.readDirectory(dir).pipe(Effect.orElseSucceed((): ReadonlyArray<string> => []))
        for (const entryName of [...names].sort()) {
          const path = dir === "/" ? `/${entryName}` : `${dir}/${entryName}`
          const link = yield* fsys.readLink(path).pipe(Effect.option)
          if (link._tag === "Some") {
            entries.push(`${path} -> ${link.value}`)
            continue
          }
          const info = yield* fsys.stat(path).pipe(Effect.option)
          if (info._tag === "None") {
            entries.push(`${path} ?`)
          } else if (info.value.type === "Directory") {
            entries.push(`${path}/`)
            yield* walk(path)
          } else if (info.value.type === "File") {
            const bytes = yield* fsys.readFile(path).pipe(Effect.orElseSucceed(() => new Uint8Array(0)))
            const mtime = info.value.mtime._tag === "Some" ? info.value.mtime.value.getTime() : 0
            entries.push(`${path} ${info.value.size} ${mtime} ${createHash("sha1").update(bytes).digest("hex")}`)
          } else {
            entries.push(`${path} ${info.value.type}`)
          }
        }
      })
    yield* walk(root)
    return entries
  })

/** Read and read_many on one workspace: each answer checked, the filesystem unchanged. */
const runCase = (where: string, roots: ReadonlyArray<string>, one: unknown, many: unknown) =>
  Effect.gen(function*() {
    const before = yield* Effect.forEach(roots, snapshot)
    const deadline = <A, E, R>(self: Effect.Effect<A, E, R>) =>
      Effect.timeoutFail(self, { duration: DEADLINE, onTimeout: () => new Hang() })
    checkAnswer(where, "read", one, yield* Effect.exit(deadline(readUnknown(one))))
    checkAnswer(where, "readMany", many, yield* Effect.exit(deadline(readManyUnknown(many))))
    const after = yield* Effect.forEach(roots, snapshot)
    expect(after, "the filesystem changed").toEqual(before)
  }).pipe(Effect.provideService(QueryLimits, { timeout: "2 seconds" }))

const fastCheck = (runs: number) => ({
  numRuns: runs,
  seed: SEED,
  interruptAfterTimeLimit: SECONDS * 1000,
  markInterruptAsFailure: false
})

// -----------------------------------------------------------------------------
// The properties
// -----------------------------------------------------------------------------

describe("read and read_many fuzzed: typed answers, nothing outside, nothing written", () => {
  it.live.prop(
    "over an in-memory workspace",
    [fuzzCase({ root: "/project", outside: "/outside" })],
    ([{ file, many, one }]) =>
      runCase("memory", ["/project", "/outside"], one, many).pipe(
        Effect.provide(
          memoryLayer({ ...workspace("/project", "/outside"), [`/project/${file.name}`]: file.bytes }, {
            permission: Permission.layerRules(rules)
          })
        )
      ),
    { fastCheck: fastCheck(RUNS), timeout: (SECONDS + 120) * 1000 }
  )

  // The real filesystem: its links, a FIFO, SQLite opening files by path.
  const root = tempDir("effect-read-fuzz-ws-")
  const outside = tempDir("effect-read-fuzz-out-")
  afterAll(() => {
    fs.rmSync(root, { recursive: true, force: true })
    fs.rmSync(outside, { recursive: true, force: true })
  })
  for (const [path, entry] of Object.entries(workspace(root, outside)).sort(([a], [b]) => a < b ? -1 : 1)) {
    fs.mkdirSync(nodePath.dirname(path), { recursive: true })
    if (typeof entry === "string" || entry instanceof Uint8Array) fs.writeFileSync(path, entry)
    else if (entry._tag === "Directory") fs.mkdirSync(path, { recursive: true })
    else fs.symlinkSync(entry.target, path)
  }
  execFileSync("mkfifo", [`${root}/pipe`])

  it.live.prop(
    "over a real directory",
    [fuzzCase({ root, outside })],
    ([{ file, many, one }]) =>
      Effect.acquireUseRelease(
        Effect.sync(() => fs.writeFileSync(`${root}/${file.name}`, file.bytes)),
        () =>
          runCase("node", [root, outside], one, many).pipe(
            Effect.provide(nodeLayer(root, { permission: Permission.layerRules(rules) }))
          ),
        () => Effect.sync(() => fs.rmSync(`${root}/${file.name}`, { force: true }))
      ),
    { fastCheck: fastCheck(Math.ceil(RUNS / 4)), timeout: (SECONDS + 120) * 1000 }
  )
})

// The generator must never produce what only a read could show.
it.prop("the generator never names the token", [fuzzCase({ root: "/project", outside: "/outside" })], ([c]) => {
  expect(describeInput(c.one) + describeInput(c.many)).not.toContain(TOKEN)
}, { fastCheck: { numRuns: 200, seed: SEED } })
