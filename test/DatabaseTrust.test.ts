/**
 * SQLite reads that touch nothing, stop in time and stay bounded: WAL databases read without a
 * side file created, changed or left; runaway statements stopped at their time budget (in
 * process, through the CLI and through the MCP server, which keeps answering meanwhile); huge
 * values cut before they reach a heap. Fixtures are real SQLite files written by better-sqlite3.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { spawn } from "node:child_process"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as nodePath from "node:path"
import { MAX_FETCH_BYTES } from "../src/internal/sources/database/reader.js"
import { committedImage } from "../src/internal/sources/database/wal.js"
import { execute } from "../src/internal/sources/databaseExecutor.js"
import { QueryLimits, type QueryLimitsShape } from "../src/Limits.js"
import { read, type ReadParams } from "../src/Read.js"
import { memoryLayer, nodeLayer, tempDir, writeTree } from "./support/index.js"

interface Writable {
  exec(sql: string): void
  pragma(source: string): unknown
  close(): void
  prepare(sql: string): { all(...params: Array<unknown>): Array<unknown> }
}
const Database = createRequire(createRequire(import.meta.url).resolve("@effect/sql-sqlite-node/package.json"))(
  "better-sqlite3"
) as new(path: string | Buffer) => Writable

const roots: Array<string> = []
afterAll(() => {
  for (const dir of roots) fs.rmSync(dir, { recursive: true, force: true })
})
const freshDir = (): string => {
  const dir = tempDir()
  roots.push(dir)
  return dir
}

const readAt = (dir: string, params: ReadParams) => read(params).pipe(Effect.provide(nodeLayer(dir)))
const outputAt = (dir: string, filePath: string) => Effect.map(readAt(dir, { filePath }), (result) => result.output)

/** Every entry of a directory with its size, mtime, inode and a hash of its bytes. */
const listing = (dir: string): Array<string> =>
  fs.readdirSync(dir).sort().map((name) => {
    const file = nodePath.join(dir, name)
    const stat = fs.statSync(file, { bigint: true })
    const hash = createHash("sha256").update(fs.readFileSync(file)).digest("hex")
    return `${name} ${stat.size} ${stat.mtimeNs} ${stat.ino} ${hash}`
  })

const SELECTORS = [
  "t.db",
  "t.db:t",
  "t.db:t:2",
  "t.db:t?limit=2&where=x > 0",
  "t.db?q=SELECT count(*) AS n, max(x) AS top FROM t"
]

/** Read through every selector; each read leaves the directory exactly as it was. */
const readAllUnchanged = (dir: string) =>
  Effect.gen(function*() {
    const outputs: Array<string> = []
    for (const path of SELECTORS) {
      const before = listing(dir)
      outputs.push(yield* outputAt(dir, path))
      expect([path, listing(dir)]).toEqual([path, before])
    }
    return outputs
  })

// -----------------------------------------------------------------------------
// WAL databases
// -----------------------------------------------------------------------------

describe("WAL databases are read without side files", () => {
  it.effect("a cleanly closed WAL database: no -wal or -shm appears, nothing changes", () =>
    Effect.gen(function*() {
      const dir = freshDir()
      const writer = new Database(nodePath.join(dir, "t.db"))
      writer.pragma("journal_mode = WAL")
      writer.exec(
        "CREATE TABLE t (x INTEGER PRIMARY KEY, note TEXT); INSERT INTO t VALUES (1, 'one'), (2, 'two'), (3, 'three')"
      )
      writer.close()
      expect(fs.readdirSync(dir)).toEqual(["t.db"])
      const [list, schema, row, page, query] = yield* readAllUnchanged(dir)
      expect(fs.readdirSync(dir)).toEqual(["t.db"])
      expect(list).toContain("<content>\nt (3 rows)\n")
      expect(schema).toContain("| 3 | three |")
      expect(row).toContain("<content>\nx: 2\nnote: two\n</content>")
      expect(page).toContain("| 1 | one  |\n| 2 | two  |")
      expect(query).toContain("| n | top |\n| - | --- |\n| 3 | 3   |")
    }))

  it.effect("a live writer: its uncheckpointed commits are read; its -wal and -shm are left byte for byte", () =>
    Effect.gen(function*() {
      const dir = freshDir()
      const writer = new Database(nodePath.join(dir, "t.db"))
      try {
        writer.pragma("journal_mode = WAL")
        writer.pragma("wal_autocheckpoint = 0")
        writer.exec("CREATE TABLE t (x INTEGER PRIMARY KEY, note TEXT); INSERT INTO t VALUES (1, 'one'), (2, 'two')")
        writer.exec("INSERT INTO t VALUES (3, 'three')")
        expect(fs.readdirSync(dir)).toEqual(["t.db", "t.db-shm", "t.db-wal"])
        const first = yield* readAllUnchanged(dir)
        expect(first[0]).toContain("t (3 rows)")
        expect(first[4]).toContain("| 3 | 3   |")
        // A commit made after the first reads is seen by the next ones.
        writer.exec("INSERT INTO t VALUES (4, 'four'); DELETE FROM t WHERE x = 1")
        const second = yield* readAllUnchanged(dir)
        expect(second[0]).toContain("t (3 rows)")
        expect(second[1]).toContain("| 2 | two   |\n| 3 | three |\n| 4 | four  |")
        expect(second[4]).toContain("| 3 | 4   |")
      } finally {
        writer.close()
      }
      // The writer, the last connection, still checkpoints and removes its files on close.
      expect(fs.readdirSync(dir)).toEqual(["t.db"])
    }))

  it.effect("a crashed writer's -wal (with or without its -shm) is read as committed and left as it was", () =>
    Effect.gen(function*() {
      const live = freshDir()
      const writer = new Database(nodePath.join(live, "t.db"))
      writer.pragma("journal_mode = WAL")
      writer.pragma("wal_autocheckpoint = 0")
      writer.exec(
        "CREATE TABLE t (x INTEGER PRIMARY KEY, note TEXT); INSERT INTO t VALUES (1, 'one'), (2, 'two'), (3, 'three')"
      )
      const crashed = freshDir()
      const walOnly = freshDir()
      for (const suffix of ["", "-wal", "-shm"]) {
        fs.copyFileSync(nodePath.join(live, `t.db${suffix}`), nodePath.join(crashed, `t.db${suffix}`))
        if (suffix !== "-shm") {
          fs.copyFileSync(nodePath.join(live, `t.db${suffix}`), nodePath.join(walOnly, `t.db${suffix}`))
        }
      }
      writer.close()
      for (const dir of [crashed, walOnly]) {
        const [list, , , , query] = yield* readAllUnchanged(dir)
        expect(list).toContain("t (3 rows)")
        expect(query).toContain("| 3 | 3   |")
      }
      expect(fs.readdirSync(walOnly)).toEqual(["t.db", "t.db-wal"])
    }))

  it("a live writer of another SQLite build (python3's sqlite3) is read as committed, its files untouched", async () => {
    const dir = freshDir()
    const script = [
      "import sqlite3, sys",
      "con = sqlite3.connect(sys.argv[1], isolation_level=None)",
      "con.execute('PRAGMA journal_mode=WAL'); con.execute('PRAGMA wal_autocheckpoint=0')",
      "con.execute('CREATE TABLE t (x INTEGER PRIMARY KEY, note TEXT)')",
      "for i in range(1, 201): con.execute('INSERT INTO t VALUES (?, ?)', (i, 'row %d ' % i * 20))",
      "print(sqlite3.sqlite_version, flush=True)",
      "sys.stdin.read()",
      "con.close()"
    ].join("\n")
    const writer = spawn("python3", ["-c", script, nodePath.join(dir, "t.db")], { stdio: ["pipe", "pipe", "inherit"] })
    const exited = new Promise((resolve) => writer.on("close", resolve))
    try {
      await new Promise<void>((resolve, reject) => {
        writer.stdout.once("data", () => resolve())
        writer.once("close", (code) => reject(new Error(`python3 exited with ${code}`)))
      })
      expect(fs.readdirSync(dir)).toEqual(["t.db", "t.db-shm", "t.db-wal"])
      const before = listing(dir)
      const run = (filePath: string) => Effect.runPromise(outputAt(dir, filePath))
      expect(await run("t.db")).toContain("t (200 rows)")
      expect(await run("t.db?q=SELECT count(*) AS n, sum(x) AS s FROM t")).toContain("| 200 | 20100 |")
      expect(await run("t.db:t:200")).toContain("x: 200\nnote: row 200 row 200")
      expect(listing(dir)).toEqual(before)
    } finally {
      writer.stdin.end()
      await exited
    }
    expect(fs.readdirSync(dir)).toEqual(["t.db"])
  })

  it.effect("through a symlink: the -wal beside the real file is read, nothing appears beside either", () =>
    Effect.gen(function*() {
      const dir = freshDir()
      fs.mkdirSync(nodePath.join(dir, "data"))
      const writer = new Database(nodePath.join(dir, "data", "real.db"))
      try {
        writer.pragma("journal_mode = WAL")
        writer.pragma("wal_autocheckpoint = 0")
        writer.exec("CREATE TABLE t (x INTEGER PRIMARY KEY); INSERT INTO t VALUES (1), (2), (3), (4)")
        fs.symlinkSync(nodePath.join("data", "real.db"), nodePath.join(dir, "t.db"))
        const data = listing(nodePath.join(dir, "data"))
        expect(yield* outputAt(dir, "t.db")).toContain("t (4 rows)")
        expect(yield* outputAt(dir, "t.db?q=SELECT max(x) AS top FROM t")).toContain("| 4   |")
        expect(listing(nodePath.join(dir, "data"))).toEqual(data)
        expect(fs.readdirSync(dir).sort()).toEqual(["data", "t.db"])
      } finally {
        writer.close()
      }
    }))

  it.effect("a WAL database inside MemoryFileSystem is read from its bytes", () =>
    Effect.gen(function*() {
      const dir = freshDir()
      const writer = new Database(nodePath.join(dir, "t.db"))
      writer.pragma("journal_mode = WAL")
      writer.exec("CREATE TABLE t (x); INSERT INTO t VALUES (1), (2)")
      writer.close()
      const bytes = new Uint8Array(fs.readFileSync(nodePath.join(dir, "t.db")))
      expect(bytes[18]).toBe(2)
      const result = yield* read({ filePath: "t.db?q=SELECT sum(x) AS s FROM t" }).pipe(
        Effect.provide(memoryLayer({ "/project/t.db": bytes }))
      )
      expect(result.output).toContain("| s |\n| - |\n| 3 |")
    }))

  it.effect("a WAL database over the in-memory cap fails with a clear reason and writes nothing", () =>
    Effect.gen(function*() {
      const dir = freshDir()
      const writer = new Database(nodePath.join(dir, "t.db"))
      writer.pragma("journal_mode = WAL")
      writer.exec("CREATE TABLE t (x)")
      writer.close()
      // A sparse file: the size is what counts, no disk is spent.
      fs.truncateSync(nodePath.join(dir, "t.db"), 129 * 1024 * 1024)
      const before = listing(dir)
      const error = yield* Effect.flip(readAt(dir, { filePath: "t.db" }))
      expect(error._tag).toBe("DatabaseError")
      expect(error.message).toBe(
        "Cannot open SQLite database: it is in WAL mode, which is read from a private copy in memory and is too large to load into memory (129.0 MiB; limit 128.0 MiB)"
      )
      expect(listing(dir)).toEqual(before)
    }))
})

// -----------------------------------------------------------------------------
// The WAL reader against SQLite's own recovery
// -----------------------------------------------------------------------------

/** The rows of `t`, or SQLite's error (before the commit that creates it, there is no `t`). */
const rowsOf = (db: Writable): unknown => {
  try {
    return db.prepare("SELECT * FROM t ORDER BY x").all()
  } catch (error) {
    return { error: String(error) }
  } finally {
    db.close()
  }
}

/** Rows as SQLite's own recovery sees them: the files copied to a fresh directory and opened. */
const recovered = (main: Uint8Array, wal: Uint8Array): unknown => {
  const dir = freshDir()
  fs.writeFileSync(nodePath.join(dir, "r.db"), main)
  fs.writeFileSync(nodePath.join(dir, "r.db-wal"), wal)
  return rowsOf(new Database(nodePath.join(dir, "r.db")))
}

/** Rows as `committedImage` builds them. */
const imaged = (main: Uint8Array, wal: Uint8Array): unknown =>
  rowsOf(new Database(Buffer.from(committedImage(main, wal))))

describe("committedImage", () => {
  it("matches SQLite's recovery for every cut of the log, a corrupt frame, and a restarted log", () => {
    const dir = freshDir()
    const file = nodePath.join(dir, "w.db")
    const writer = new Database(file)
    writer.pragma("journal_mode = WAL")
    writer.pragma("wal_autocheckpoint = 0")
    writer.exec("CREATE TABLE t (x INTEGER PRIMARY KEY, note TEXT)")
    for (let i = 1; i <= 6; i++) {
      writer.exec(`INSERT INTO t SELECT coalesce(max(x), 0) + 1, printf('%.*c', ${i * 700}, 'n') FROM t`)
    }
    writer.exec("UPDATE t SET note = 'updated' WHERE x = 2")
    const main = new Uint8Array(fs.readFileSync(file))
    const wal = new Uint8Array(fs.readFileSync(`${file}-wal`))
    const pageSize = 4096
    const frame = 24 + pageSize
    const frames = (wal.byteLength - 32) / frame
    expect(frames).toBeGreaterThan(8)

    const counts = new Set<number>()
    for (let n = 0; n <= frames; n++) {
      for (const cut of [32 + n * frame, 32 + n * frame + 100]) {
        const log = wal.subarray(0, Math.min(cut, wal.byteLength))
        const rows = recovered(main, log)
        expect([n, cut, imaged(main, log)]).toEqual([n, cut, rows])
        counts.add(Array.isArray(rows) ? rows.length : -1)
      }
    }
    // The cuts passed through several commits.
    expect(counts.size).toBeGreaterThan(4)

    // A log whose bytes are not 4-aligned in memory is checksummed through a DataView: the same.
    const unaligned = new Uint8Array(wal.byteLength + 1).subarray(1)
    unaligned.set(wal)
    expect(imaged(main, unaligned)).toEqual(recovered(main, wal))

    // A flipped byte in a frame ends the log there, as SQLite's checksum check does.
    const corrupt = new Uint8Array(wal)
    corrupt[32 + 5 * frame + 24 + 100]! ^= 0xff
    expect(imaged(main, corrupt)).toEqual(recovered(main, corrupt))

    // A checkpoint, then a commit that restarts the log: older frames stay behind it, unread.
    writer.pragma("wal_checkpoint(PASSIVE)")
    writer.exec("INSERT INTO t VALUES (100, 'after restart')")
    const restartedMain = new Uint8Array(fs.readFileSync(file))
    const restarted = new Uint8Array(fs.readFileSync(`${file}-wal`))
    expect(restarted.byteLength).toBe(wal.byteLength)
    const rows = imaged(restartedMain, restarted) as Array<{ x: number; note: string }>
    expect(rows).toEqual(recovered(restartedMain, restarted))
    expect(rows.map((row) => row.x)).toEqual([1, 2, 3, 4, 5, 6, 100])
    writer.close()
  })
})

// -----------------------------------------------------------------------------
// Time budget
// -----------------------------------------------------------------------------

/** The CLI as users run it, without blocking this worker's event loop; killed past 50 s. */
const runCli = (args: ReadonlyArray<string>, nodeOptions: ReadonlyArray<string> = []) =>
  new Promise<{ readonly status: number | null; readonly stdout: string; readonly stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [...nodeOptions, nodePath.resolve("dist/bin.js"), ...args], {
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => (stdout += String(chunk)))
    child.stderr.on("data", (chunk) => (stderr += String(chunk)))
    const deadline = setTimeout(() => child.kill("SIGKILL"), 50_000)
    child.on("close", (status) => {
      clearTimeout(deadline)
      resolve({ status, stdout, stderr })
    })
  })

const RUNAWAY = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"
const budgetMessage = (budget: string) =>
  `SQLite query was stopped: it ran past its ${budget} time budget. Make it cheaper (a narrower WHERE, a LIMIT inside a recursive CTE) and run it again`

const makeApp = (): string => {
  const dir = freshDir()
  const db = new Database(nodePath.join(dir, "app.db"))
  db.exec(`
    CREATE TABLE numbers (n INTEGER PRIMARY KEY);
    WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < 5000) INSERT INTO numbers SELECT n FROM s;
    CREATE VIEW endless AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) AS n FROM c;
  `)
  db.close()
  writeTree(dir, { "notes.txt": "hello\n" })
  return dir
}

describe("a runaway statement is stopped at its time budget", () => {
  const budget = <A, E, R>(self: Effect.Effect<A, E, R>) =>
    Effect.provideService(self, QueryLimits, { timeout: "1 second" })

  // Live: the budget is measured on the real clock.
  it.live("a raw query, a where clause and a view fail with a typed DatabaseError; other reads go on meanwhile", () =>
    Effect.gen(function*() {
      const dir = makeApp()
      const finished: Array<string> = []
      const track = <A, E, R>(name: string, self: Effect.Effect<A, E, R>) =>
        Effect.tap(self, () => Effect.sync(() => finished.push(name)))
      const [slow, text, list] = yield* Effect.all([
        track("slow", Effect.flip(budget(readAt(dir, { filePath: `app.db?q=${RUNAWAY}` })))),
        track("text", readAt(dir, { filePath: "notes.txt" })),
        track("list", readAt(dir, { filePath: "app.db" }))
      ], { concurrency: "unbounded" })
      expect(slow._tag).toBe("DatabaseError")
      expect(slow.message).toBe(budgetMessage("1s"))
      expect(text.output).toContain("1: hello")
      expect(list.output).toContain("endless (view)\nnumbers (5000 rows)")
      // The other reads finish while the runaway statement still runs; which of them first is not the point.
      expect(finished.slice(0, 2).sort()).toEqual(["list", "text"])
      expect(finished[2]).toBe("slow")

      const where = yield* Effect.flip(
        budget(
          readAt(dir, { filePath: "app.db:numbers?where=(SELECT count(*) FROM numbers a, numbers b, numbers c) > 0" })
        )
      )
      expect(where.message).toBe(budgetMessage("1s"))
      const view = yield* Effect.flip(budget(readAt(dir, { filePath: "app.db:endless" })))
      expect(view.message).toBe(budgetMessage("1s"))
      // The next read gets a working query process.
      expect(yield* outputAt(dir, "app.db?q=SELECT count(*) AS n FROM numbers")).toContain("| 5000 |")
    }))

  it("through the CLI: exit 1 with the budget on stderr (default 5 s)", async () => {
    const dir = makeApp()
    const result = await runCli(["--cwd", dir, `app.db?q=${RUNAWAY}`])
    expect(result.status).toBe(1)
    expect(result.stdout).toBe("")
    expect(result.stderr).toContain(budgetMessage("5s"))
  })

  it("through the MCP server: a file read sent after the runaway query is answered first", async () => {
    const dir = makeApp()
    const child = spawn(process.execPath, [nodePath.resolve("dist/bin.js"), "mcp", "--cwd", dir], {
      stdio: ["pipe", "pipe", "pipe"]
    })
    const answers: Array<{ id: number; result: { isError: boolean; content: Array<{ text: string }> } }> = []
    let buffer = ""
    child.stdout.on("data", (chunk) => {
      buffer += String(chunk)
      for (let end = buffer.indexOf("\n"); end >= 0; end = buffer.indexOf("\n")) {
        answers.push(JSON.parse(buffer.slice(0, end)))
        buffer = buffer.slice(end + 1)
      }
    })
    const exited = new Promise((resolve) => child.on("close", resolve))
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`)
    const answered = async (id: number) => {
      const deadline = Date.now() + 50_000
      while (!answers.some((answer) => answer.id === id)) {
        if (Date.now() > deadline) {
          throw new Error(`no answer to ${id}; got ${JSON.stringify(answers.map((a) => a.id))}`)
        }
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    }
    const call = (id: number, filePath: string) =>
      send({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "read", arguments: { filePath } } })
    try {
      send({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } }
      })
      await answered(1)
      send({ jsonrpc: "2.0", method: "notifications/initialized" })
      call(2, `app.db?q=${RUNAWAY}`)
      call(3, "notes.txt")
      await answered(2)
      await answered(3)
    } finally {
      child.stdin.end()
      await exited
    }
    expect(answers.map((answer) => answer.id)).toEqual([1, 3, 2])
    const [, file, slow] = answers
    expect(file!.result.content[0]!.text).toContain("1: hello")
    expect(slow!.result.isError).toBe(true)
    expect(slow!.result.content[0]!.text).toBe(budgetMessage("5s"))
  })
})

// -----------------------------------------------------------------------------
// Huge values
// -----------------------------------------------------------------------------

const HUGE = "WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s LIMIT 5) " +
  "SELECT n, printf('%.*c', 100000000, 'x') AS big, zeroblob(100000000) AS blob FROM s"

/** This process's live SQLite query processes: children running workers/sqlite-query.mjs. */
const queryProcesses = (): Array<number> =>
  fs.readdirSync("/proc").filter((entry) => /^\d+$/.test(entry)).flatMap((entry) => {
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8")
      // After the command name in parentheses: state, then parent pid.
      const [state, parent] = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      if (Number(parent) !== process.pid || state === "Z") return []
      return fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").includes("sqlite-query.mjs") ? [Number(entry)] : []
    } catch {
      return [] // gone meanwhile
    }
  })

/** Wait (real time) until `done` holds of the query processes, for at most 20 s; what they were last. */
const processesUntil = (done: (pids: ReadonlyArray<number>) => boolean) =>
  Effect.gen(function*() {
    const deadline = Date.now() + 20_000
    let pids = queryProcesses()
    while (!done(pids) && Date.now() < deadline) {
      yield* Effect.sleep("50 millis")
      pids = queryProcesses()
    }
    return pids
  })

describe("query processes are bounded after their reads", () => {
  const QUERY = "app.db?q=SELECT count(*) AS n FROM numbers"

  it.live(
    "at most 2 wait for the next read; none when none may wait; they go after their idle time",
    () =>
      Effect.gen(function*() {
        const dir = makeApp()
        // Eight reads at once: four processes run, the others wait for them; two are kept after.
        const outputs = yield* Effect.all(Array.from({ length: 8 }, () => outputAt(dir, QUERY)), {
          concurrency: "unbounded"
        })
        for (const output of outputs) expect(output).toContain("| 5000 |")
        const kept = yield* processesUntil((pids) => pids.length <= 2)
        expect(kept.length).toBeGreaterThanOrEqual(1)
        expect(kept.length).toBeLessThanOrEqual(2)
        // The next read reuses one of them.
        expect(yield* outputAt(dir, QUERY)).toContain("| 5000 |")
        expect(queryProcesses().filter((pid) => !kept.includes(pid))).toEqual([])

        // `idleProcesses: 0`: each process ends with its read, and the idle ones with it.
        const none: QueryLimitsShape = { timeout: "5 seconds", idleProcesses: 0 }
        expect(yield* Effect.provideService(outputAt(dir, QUERY), QueryLimits, none)).toContain("| 5000 |")
        expect(yield* processesUntil((pids) => pids.length === 0)).toEqual([])

        // A short idle time: kept, then gone well before the default 30 s.
        const brief: QueryLimitsShape = { timeout: "5 seconds", idleTimeout: "300 millis" }
        for (let i = 0; i < 3; i++) {
          expect(yield* Effect.provideService(outputAt(dir, QUERY), QueryLimits, brief)).toContain("| 5000 |")
        }
        expect(yield* processesUntil((pids) => pids.length === 0)).toEqual([])
      }),
    { timeout: 120_000 }
  )
})

describe("huge values are cut before they reach a heap", () => {
  it.effect("a raw query keeps its order, its trailing ';' and comment, and its types through the cut", () =>
    Effect.gen(function*() {
      const dir = makeApp()
      expect(yield* outputAt(dir, "app.db?q=SELECT n FROM numbers ORDER BY n DESC LIMIT 3; -- newest first")).toContain(
        "| n    |\n| ---- |\n| 5000 |\n| 4999 |\n| 4998 |\n</content>"
      )
      expect(
        yield* outputAt(dir, "app.db?q=VALUES (1, 2.5, 'text', x'00ff', NULL, 9007199254740993) /* all the types */")
      ).toContain("| 1       | 2.5     | text    | <BLOB 2 bytes> | NULL    | 9007199254740993 |")
    }))

  it.effect("100 MB values come back cut at 2000 characters, with a notice; blobs as sizes", () =>
    Effect.gen(function*() {
      const dir = makeApp()
      const output = yield* outputAt(dir, `app.db?q=${HUGE}`)
      expect(output).toContain(`| 5 | ${"x".repeat(39)}… | <BLOB 95.4 MiB> |`)
      expect(output).toContain(
        "\n[5 values longer than 2000 characters were cut as fetched; select substr(<column>, <start>, 2000) to read a part]\n</content>"
      )
    }))

  it.effect(`a statement's rows stop at ${MAX_FETCH_BYTES / 1024 / 1024} MB of values`, () =>
    Effect.gen(function*() {
      const dir = makeApp()
      const [result] = yield* execute(nodePath.join(dir, "app.db"), [{
        sql: "SELECT n, printf('%.*c', 1900, 'v') FROM numbers",
        params: [],
        maxRows: 5000
      }], 2000)
      expect(result!.stopped).toBe("bytes")
      expect(result!.rows.length).toBeGreaterThan(2000)
      expect(result!.rows.length).toBeLessThan(2300)
    }))

  it("the CLI under --max-old-space-size=256 answers instead of running out of memory", async () => {
    const dir = makeApp()
    const result = await runCli(["--cwd", dir, `app.db?q=${HUGE}`], ["--max-old-space-size=256"])
    expect(result.stderr).toBe("")
    expect(result.status).toBe(0)
    expect(result.stdout).toContain("[5 values longer than 2000 characters were cut as fetched")
  })
})
