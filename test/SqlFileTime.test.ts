/**
 * The ledger on any SQL store: the FileTime contract on PostgreSQL, its schema there, integers
 * whichever way a driver returns them, and several replicas at once — coverage written by two
 * clients or processes (also on SERIALIZABLE PostgreSQL), first boots racing on an empty database
 * (SQLite and PostgreSQL) — and a SQLite file another connection holds locked: waited for without
 * freezing the process, a clear failure past `LockTimeout`, coverage kept aside joined, not lost.
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as SqlClient from "@effect/sql/SqlClient"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as nodePath from "node:path"
import { promisify } from "node:util"
import * as FileTime from "../src/FileTime.js"
import { Integer } from "../src/internal/store/sql.js"
import * as SqlFileTime from "../src/SqlFileTime.js"
import * as SqliteFileTime from "../src/SqliteFileTime.js"
import { fileTimeContract } from "./contracts/FileTime.js"
import { tempDir, withWarnings } from "./support/index.js"
import { describePg, freshPgDatabase, onFreshPgDatabase, pgClient } from "./support/pg.js"

const root = tempDir("effect-read-sql-filetime-")
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

/**
 * A file of `lines` numbered lines whose mtime falls at .7 of a millisecond: Node's `Date` (what
 * the FileSystem service, and so the ledger's stamp, reports) rounds `mtimeMs` to the nearest
 * millisecond, where `Math.trunc(mtimeMs)` does not — a test must take the version as the ledger does.
 */
const numberedFile = (path: string, lines: number) => {
  fs.writeFileSync(path, Array.from({ length: lines }, (_, i) => `line ${i + 1}`).join("\n") + "\n")
  const seconds = Math.floor(Date.now() / 1000) + 0.1237
  fs.utimesSync(path, seconds, seconds)
  return path
}

/** What a read showed: lines `start`-`end` of the file's version now, as the FileSystem service reports it. */
const shownOf = (path: string, start: number, end: number): FileTime.Shown => {
  const stat = fs.statSync(path)
  return { start, end, whole: false, size: stat.size, mtime: stat.mtime.getTime() }
}

describePg("SqlFileTime on PostgreSQL", () => {
  fileTimeContract("SqlFileTime.layerClient on PostgreSQL, a fresh database per case", {
    layer: onFreshPgDatabase((url) => SqlFileTime.layerClient.pipe(Layer.provide(pgClient(url)))).pipe(
      Layer.provideMerge(NodeFileSystem.layer)
    ),
    root: () => root
  })

  it.effect("the schema: 64-bit integers, the migrations recorded once in their own table", () =>
    Effect.gen(function*() {
      const url = yield* Effect.promise(freshPgDatabase)
      const both = Layer.merge(SqlFileTime.layerClient, SqlFileTime.layerClient).pipe(
        Layer.provideMerge(pgClient(url)),
        Layer.provide(NodeFileSystem.layer)
      )
      yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const columns = yield* sql<{ table_name: string; column_name: string; data_type: string }>`
          SELECT table_name, column_name, data_type FROM information_schema.columns
          WHERE table_name IN ('file_reads', 'file_read_ranges') AND data_type IN ('integer', 'bigint')
          ORDER BY table_name, column_name`
        expect(columns.every((column) => column.data_type === "bigint")).toBe(true)
        expect(columns.map((column) => column.column_name)).toEqual([
          "end_line",
          "seq",
          "start_line",
          "mtime",
          "read_at",
          "size"
        ])
        const migrations = yield* sql<{ migration_id: number; name: string }>`
          SELECT migration_id, name FROM ${sql(SqlFileTime.migrationsTable)} ORDER BY migration_id`
        expect(migrations).toEqual([
          { migration_id: 1, name: "create_file_reads" },
          { migration_id: 2, name: "create_file_read_ranges" },
          { migration_id: 3, name: "create_session_memory" },
          { migration_id: 4, name: "create_forks" }
        ])
        // A stamp of today's epoch milliseconds survives the round trip (a 32-bit column overflows).
        const path = numberedFile(nodePath.join(root, "stamped.txt"), 1)
        const ledger = yield* FileTime.FileTime
        yield* ledger.read("s", path)
        expect((yield* ledger.get("s", path)).pipe((found) => found._tag === "Some" && found.value.mtime)).toBe(
          fs.statSync(path).mtime.getTime()
        )
      }).pipe(Effect.provide(both))
    }))

  /** Two ledgers (two pools) recording two ranges of each of 100 sessions at once; read back through a third. */
  const twoClients = (title: string, setUp: (url: string) => Promise<void>) =>
    it.live(title, () =>
      Effect.gen(function*() {
        const url = yield* Effect.promise(freshPgDatabase)
        yield* Effect.promise(() => setUp(url))
        const path = numberedFile(nodePath.join(root, "two-clients.txt"), 20)
        const ledgerOn = () =>
          SqlFileTime.layerClient.pipe(Layer.provide(pgClient(url)), Layer.provide(NodeFileSystem.layer))
        const a = yield* Layer.build(ledgerOn())
        const b = yield* Layer.build(ledgerOn())
        const sessions = Array.from({ length: 100 }, (_, i) => `s${i}`)
        const readIn = (context: typeof a, session: string, start: number, end: number) =>
          Effect.flatMap(FileTime.FileTime, (ledger) => ledger.read(session, path, shownOf(path, start, end))).pipe(
            Effect.provide(context)
          )
        // Each read starts after a random few milliseconds, so that the two of a session overlap in every way.
        const jitter = Effect.suspend(() => Effect.sleep(`${Math.random() * 30} millis`))
        const { warnings } = yield* withWarnings(Effect.forEach(
          sessions.flatMap((session) => [readIn(a, session, 1, 3), readIn(b, session, 10, 12)]),
          (read) => Effect.zipRight(jitter, read),
          { concurrency: "unbounded", discard: true }
        ))
        expect(warnings).toEqual([])
        // What the database holds (a ledger's own memory could hide a refused write).
        const c = yield* Layer.build(ledgerOn())
        const kept = yield* Effect.forEach(sessions, (session) =>
          Effect.flatMap(FileTime.FileTime, (ledger) =>
            ledger.coverage(session, path)).pipe(
              Effect.map(rangesOf),
              Effect.provide(c)
            ))
        expect(kept.filter((ranges) =>
          ranges === "1-3,10-12"
        )).toHaveLength(100)
      }).pipe(Effect.scoped), 180_000)

  twoClients("coverage written through two clients at once: 100 of 100 ranges kept", () => Promise.resolve())

  // A host may make every transaction SERIALIZABLE: concurrent coverage writes then fail with
  // serialization failures (40001, often at COMMIT), which are tried again, not given up.
  twoClients("the same on a database whose transactions are SERIALIZABLE: 100 of 100 kept, no write refused", (url) => {
    const name = new URL(url).pathname.slice(1)
    return Effect.runPromise(
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql.unsafe(`ALTER DATABASE ${name} SET default_transaction_isolation = 'serializable'`)
      ).pipe(
        Effect.provide(pgClient(url))
      )
    ).then(() => undefined)
  })

  it.effect("four clients migrating an empty database at once, ten times: all start", () =>
    Effect.gen(function*() {
      for (let trial = 0; trial < 10; trial++) {
        const url = yield* Effect.promise(freshPgDatabase)
        const started = yield* Effect.forEach(
          [1, 2, 3, 4],
          () => SqlFileTime.migrate.pipe(Effect.provide(pgClient(url)), Effect.either),
          { concurrency: "unbounded" }
        )
        expect(started.filter((outcome) => outcome._tag === "Left").map((outcome) => String(outcome))).toEqual([])
      }
    }))
})

describe("Integer columns", () => {
  const decode = Schema.decodeUnknownEither(Integer)

  it("a number, an integer string (pg's int8) or a bigint is a number", () => {
    expect(decode(42)).toMatchObject({ _tag: "Right", right: 42 })
    expect(decode("1795753419594")).toMatchObject({ _tag: "Right", right: 1795753419594 })
    expect(decode(-7n)).toMatchObject({ _tag: "Right", right: -7 })
  })

  it("anything else fails, never a wrong number", () => {
    for (const bad of ["1.5", "12abc", "", "9007199254740993", 2n ** 60n, null, true]) {
      expect(decode(bad)._tag, String(bad)).toBe("Left")
    }
  })
})

// ---------------------------------------------------------------------------------------------
// Separate processes (bench/replica.mjs over dist/): what replicas of a server do.

const run = promisify(execFile)
const replica = (args: ReadonlyArray<string>) =>
  run(process.execPath, ["bench/replica.mjs", ...args], { encoding: "utf8" }).then(({ stdout }) =>
    JSON.parse(stdout.trim().split("\n").pop()!) as { readonly ok: boolean; readonly error?: string }
  )

/** Several processes, each released at the same instant once loaded. */
const together = (argsOf: ReadonlyArray<ReadonlyArray<string>>) => {
  const at = String(Date.now() + 2_500)
  return Promise.all(argsOf.map((args) => replica([...args, "--at", at])))
}

const processes = (name: string, store: () => Promise<string>) => {
  it("coverage from two processes at once, 100 sessions: every range kept", async () => {
    const url = await store()
    const path = nodePath.join(root, `processes-${name}.txt`)
    fs.writeFileSync(path, Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join("\n") + "\n")
    const outcomes = await together([
      ["coverage", url, path, "1", "3", "100"],
      ["coverage", url, path, "10", "12", "100"]
    ])
    expect(outcomes).toEqual([{ ok: true }, { ok: true }])
    const ranges = await Effect.runPromise(
      Effect.flatMap(
        FileTime.FileTime,
        (ledger) =>
          Effect.forEach(
            Array.from({ length: 100 }, (_, i) => `s${i}`),
            (session) =>
              Effect.map(ledger.coverage(session, path), (coverage) =>
                coverage.ranges.map(({ end, start }) => `${start}-${end}`).join(","))
          )
      ).pipe(
        Effect.provide(ledgerOn(url))
      )
    )
    expect(ranges.filter((kept) => kept === "1-3,10-12")).toHaveLength(100)
  }, 180_000)

  it("four processes starting at once on an empty database, three times: all start", async () => {
    for (let trial = 0; trial < 3; trial++) {
      const url = await store()
      const outcomes = await together([1, 2, 3, 4].map(() => ["start", url]))
      expect(outcomes.map((outcome) => outcome.ok ? "ok" : outcome.error)).toEqual(["ok", "ok", "ok", "ok"])
    }
  }, 180_000)
}

/** The ledger on a store named as `--store` names it. */
const ledgerOn = (store: string) =>
  Layer.unwrapEffect(Effect.promise(async () => {
    const Store = await import("../src/internal/doors/storeOption.js")
    const spec = Store.parseStore(store, process.cwd())
    if (spec._tag === "Left") throw new Error(spec.left)
    return Store.layer(spec.right, { sessionMemory: false })
  })).pipe(Layer.provide(NodeFileSystem.layer))

let sqliteFiles = 0
describe("replicas as processes on one SQLite file", () => {
  processes("sqlite", () => Promise.resolve(`sqlite:${nodePath.join(root, `replicas-${++sqliteFiles}.db`)}`))

  it(
    "a replica started while another process holds the file past SQLite's busy timeout starts, and keeps every range",
    async () => {
      const filename = nodePath.join(root, "replica-held.db")
      const path = numberedFile(nodePath.join(root, "replica-held.txt"), 20)
      const lock = holdWriteLock(filename)
      const at = Date.now() + 2_000
      // Held until 11 s after the replica starts its work: past better-sqlite3's default busy timeout
      // (5 s, waited with the process frozen) for each of the two migrations a replica runs (ledger,
      // session memory), after which it used to fail its start with "database is locked".
      const released = setTimeout(lock.release, at + 11_000 - Date.now())
      try {
        expect(await replica(["coverage", `sqlite:${filename}`, path, "1", "3", "20", "--at", String(at)])).toEqual({
          ok: true
        })
      } finally {
        clearTimeout(released)
        lock.release()
        lock.close()
      }
      const ranges = await Effect.runPromise(
        Effect.flatMap(FileTime.FileTime, (ledger) =>
          Effect.forEach(
            Array.from({ length: 20 }, (_, i) => `s${i}`),
            (session) => Effect.map(ledger.coverage(session, path), rangesOf)
          )).pipe(Effect.provide(ledgerOn(`sqlite:${filename}`)))
      )
      expect(ranges.filter((kept) => kept === "1-3")).toHaveLength(20)
    },
    180_000
  )
})
describePg("replicas as processes on one PostgreSQL database", () => {
  processes("pg", freshPgDatabase)
})

// ---------------------------------------------------------------------------------------------
// A SQLite file another connection holds: waited for without freezing the process, then written.

const Database = createRequire(createRequire(import.meta.url).resolve("@effect/sql-sqlite-node/package.json"))(
  "better-sqlite3"
) as new(path: string) => {
  exec(sql: string): void
  prepare(sql: string): { all(...params: ReadonlyArray<unknown>): Array<unknown> }
  close(): void
}

/**
 * Another connection holding `filename` until `release`: in WAL, its write lock (`BEGIN
 * IMMEDIATE`); `exclusive`, the whole file in rollback-journal mode (`BEGIN EXCLUSIVE`: no one may
 * even read the schema, as while a process switches a new file to WAL).
 */
const holdWriteLock = (filename: string, mode: "wal" | "exclusive" = "wal") => {
  const holder = new Database(filename)
  if (mode === "wal") holder.exec("PRAGMA journal_mode = WAL")
  else holder.exec("CREATE TABLE IF NOT EXISTS theirs (x)")
  holder.exec(mode === "wal" ? "BEGIN IMMEDIATE" : "BEGIN EXCLUSIVE")
  let held = true
  return {
    release: () => {
      if (held) holder.exec("COMMIT")
      held = false
    },
    close: () => holder.close()
  }
}

const rangesOf = (coverage: FileTime.Coverage) => coverage.ranges.map(({ end, start }) => `${start}-${end}`).join(",")

/** The ranges the database file holds for a session and file, read by a connection of its own. */
const storedRanges = (filename: string, sessionId: string, path: string) => {
  const db = new Database(filename)
  try {
    return (db.prepare(
      "SELECT start_line, end_line FROM file_read_ranges WHERE session_id = ? AND path = ? ORDER BY start_line"
    ).all(sessionId, path) as Array<{ start_line: number; end_line: number }>).map((row) =>
      `${row.start_line}-${row.end_line}`
    )
      .join(",")
  } finally {
    db.close()
  }
}

const ledgerFile = (filename: string) => SqliteFileTime.layer({ filename }).pipe(Layer.provide(NodeFileSystem.layer))

/** Release `lock` from a timer in `millis`: it fires only if waiting for the lock leaves this process's event loop running. */
const releaseLater = (lock: ReturnType<typeof holdWriteLock>, millis: number) =>
  Effect.acquireRelease(
    Effect.sync(() => setTimeout(lock.release, millis)),
    (timer) =>
      Effect.sync(() => {
        clearTimeout(timer)
        lock.release()
        lock.close()
      })
  )

let heldFiles = 0
const heldFile = () => nodePath.join(root, `held-${++heldFiles}.db`)

describe("a SQLite store another connection holds", () => {
  it.live("a ledger built while another connection holds the write lock starts once it is released", () =>
    Effect.gen(function*() {
      const filename = heldFile()
      const path = numberedFile(nodePath.join(root, "held-at-start.txt"), 5)
      yield* releaseLater(holdWriteLock(filename), 1_500)
      const { value, warnings } = yield* withWarnings(
        Effect.flatMap(
          FileTime.FileTime,
          (ledger) => Effect.zipRight(ledger.read("s", path, shownOf(path, 1, 2)), ledger.coverage("s", path))
        ).pipe(
          Effect.provide(ledgerFile(filename))
        )
      )
      expect(rangesOf(value)).toBe("1-2")
      expect(warnings).toEqual([])
      expect(storedRanges(filename, "s", path)).toBe("1-2")
    }).pipe(Effect.scoped))

  it.live(
    "a file held EXCLUSIVE, schema and all, when the ledger opens it: started once released",
    () =>
      Effect.gen(function*() {
        const filename = heldFile()
        const path = numberedFile(nodePath.join(root, "held-exclusive.txt"), 5)
        yield* releaseLater(holdWriteLock(filename, "exclusive"), 1_500)
        // Preparing a statement reads the schema: refused while the file is held, and the client's
        // cache of prepared statements must not keep answering that refusal once it is released.
        const ledger = ledgerFile(filename).pipe(
          Layer.provide(Layer.succeed(SqliteFileTime.LockTimeout, Duration.seconds(30)))
        )
        yield* Effect.flatMap(FileTime.FileTime, (ft) => ft.read("s", path, shownOf(path, 1, 5))).pipe(
          Effect.provide(ledger)
        )
        expect(storedRanges(filename, "s", path)).toBe("1-5")
      }).pipe(Effect.scoped),
    120_000
  )

  it.live("a read while another connection holds the write lock: written once it is released, nothing kept aside", () =>
    Effect.gen(function*() {
      const filename = heldFile()
      const path = numberedFile(nodePath.join(root, "held-at-read.txt"), 5)
      const ledger = Context.get(yield* Layer.build(ledgerFile(filename)), FileTime.FileTime)
      yield* releaseLater(holdWriteLock(filename), 1_500)
      const { warnings } = yield* withWarnings(ledger.read("s", path, shownOf(path, 2, 4)))
      expect(warnings).toEqual([])
      expect(storedRanges(filename, "s", path)).toBe("2-4")
    }).pipe(Effect.scoped))

  it.live("held past LockTimeout: the start fails saying so; a read keeps its coverage aside and saves it later", () =>
    Effect.gen(function*() {
      const oneSecond = Layer.succeed(SqliteFileTime.LockTimeout, Duration.seconds(1))
      const filename = heldFile()
      const lock = holdWriteLock(filename)
      const failed = yield* Effect.flip(Effect.scoped(Layer.build(ledgerFile(filename).pipe(Layer.provide(oneSecond)))))
      lock.release()
      lock.close()
      expect(failed.message).toBe(
        "The store stayed locked by another connection for 1s: its migrations could not be checked"
      )

      const path = numberedFile(nodePath.join(root, "held-past-timeout.txt"), 5)
      yield* Effect.gen(function*() {
        const ledger = yield* FileTime.FileTime
        const again = holdWriteLock(filename)
        const { warnings } = yield* withWarnings(ledger.read("s", path, shownOf(path, 1, 2)))
        again.release()
        again.close()
        expect(warnings).toEqual([
          "FileTime.read: the SQLite ledger refused the write; the stamp is kept in memory only"
        ])
        expect(rangesOf(yield* ledger.coverage("s", path))).toBe("1-2")
        expect(storedRanges(filename, "s", path)).toBe("")
        yield* ledger.read("s", path, shownOf(path, 4, 5))
        expect(storedRanges(filename, "s", path)).toBe("1-2,4-5")
      }).pipe(Effect.provide(ledgerFile(filename).pipe(Layer.provide(oneSecond))))
    }))

  it.live("coverage kept while the database refused writes joins what another process wrote meanwhile", () =>
    Effect.gen(function*() {
      const filename = heldFile()
      const path = numberedFile(nodePath.join(root, "kept-and-joined.txt"), 20)
      const client = SqliteFileTime.sqliteClient(filename)
      const a = yield* Layer.build(
        SqliteFileTime.layerClient.pipe(Layer.provideMerge(client), Layer.provide(NodeFileSystem.layer))
      )
      const b = yield* Layer.build(ledgerFile(filename))
      const readIn = (context: typeof a | typeof b, start: number, end: number) =>
        Effect.flatMap(FileTime.FileTime, (ledger) => ledger.read("s", path, shownOf(path, start, end))).pipe(
          Effect.provide(context)
        )
      const queryOnly = (on: boolean) =>
        Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`PRAGMA query_only = ${on ? "ON" : "OFF"}`)).pipe(
          Effect.provide(a)
        )
      const { warnings } = yield* withWarnings(Effect.gen(function*() {
        yield* readIn(a, 1, 3)
        // A's connection refuses writes (as a full or read-only disk would): its read is kept in its memory.
        yield* queryOnly(true)
        yield* readIn(a, 5, 6)
        // Meanwhile another process records lines of the same file for the same session.
        yield* readIn(b, 10, 12)
        yield* queryOnly(false)
        yield* readIn(a, 15, 16)
      }))
      expect(warnings).toEqual(["FileTime.read: the SQLite ledger refused the write; the stamp is kept in memory only"])
      expect(storedRanges(filename, "s", path)).toBe("1-3,5-6,10-12,15-16")
    }).pipe(Effect.scoped))
})
