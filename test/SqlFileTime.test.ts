/**
 * The ledger on any SQL store: the FileTime contract on PostgreSQL, its schema there, integers
 * whichever way a driver returns them, and several replicas at once — coverage written by two
 * processes, and first boots racing on an empty database (SQLite and PostgreSQL).
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as SqlClient from "@effect/sql/SqlClient"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { promisify } from "node:util"
import * as FileTime from "../src/FileTime.js"
import { Integer } from "../src/internal/store/sql.js"
import * as SqlFileTime from "../src/SqlFileTime.js"
import { fileTimeContract } from "./FileTimeContract.js"
import { describePg, freshPgDatabase, onFreshPgDatabase, pgClient } from "./pg.js"
import { tempDir } from "./support.js"

const root = tempDir("effect-read-sql-filetime-")
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

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
        expect(columns.map((column) => column.column_name)).toEqual(["end_line", "seq", "start_line", "mtime", "read_at", "size"])
        const migrations = yield* sql<{ migration_id: number; name: string }>`
          SELECT migration_id, name FROM ${sql(SqlFileTime.migrationsTable)} ORDER BY migration_id`
        expect(migrations).toEqual([
          { migration_id: 1, name: "create_file_reads" },
          { migration_id: 2, name: "create_file_read_ranges" },
          { migration_id: 3, name: "create_session_memory" },
          { migration_id: 4, name: "create_forks" }
        ])
        // A stamp of today's epoch milliseconds survives the round trip (a 32-bit column overflows).
        const path = nodePath.join(root, "stamped.txt")
        fs.writeFileSync(path, "x\n")
        const ledger = yield* FileTime.FileTime
        yield* ledger.read("s", path)
        expect((yield* ledger.get("s", path)).pipe((found) => found._tag === "Some" && found.value.mtime)).toBe(
          Math.trunc(fs.statSync(path).mtimeMs)
        )
      }).pipe(Effect.provide(both))
    }))

  it.live("coverage written through two clients at once: 100 of 100 ranges kept", () =>
    Effect.gen(function*() {
      const url = yield* Effect.promise(freshPgDatabase)
      const path = nodePath.join(root, "two-clients.txt")
      fs.writeFileSync(path, Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join("\n") + "\n")
      const stat = fs.statSync(path)
      const shown = (start: number, end: number): FileTime.Shown => ({
        start,
        end,
        whole: false,
        size: stat.size,
        mtime: Math.trunc(stat.mtimeMs)
      })
      const ledgerOn = () => SqlFileTime.layerClient.pipe(Layer.provide(pgClient(url)), Layer.provide(NodeFileSystem.layer))
      const a = yield* Layer.build(ledgerOn())
      const b = yield* Layer.build(ledgerOn())
      const sessions = Array.from({ length: 100 }, (_, i) => `s${i}`)
      // Each read starts after a random few milliseconds, so that the two of a session overlap in every way.
      const jitter = Effect.suspend(() => Effect.sleep(`${Math.random() * 30} millis`))
      yield* Effect.forEach(
        sessions.flatMap((session) => [
          Effect.flatMap(FileTime.FileTime, (ledger) => ledger.read(session, path, shown(1, 3))).pipe(Effect.provide(a)),
          Effect.flatMap(FileTime.FileTime, (ledger) => ledger.read(session, path, shown(10, 12))).pipe(Effect.provide(b))
        ]),
        (read) => Effect.zipRight(jitter, read),
        { concurrency: "unbounded", discard: true }
      )
      const kept = yield* Effect.forEach(sessions, (session) =>
        Effect.flatMap(FileTime.FileTime, (ledger) => ledger.coverage(session, path)).pipe(
          Effect.map((coverage) => coverage.ranges.map(({ end, start }) => `${start}-${end}`).join(",")),
          Effect.provide(a)
        ))
      expect(kept.filter((ranges) => ranges === "1-3,10-12")).toHaveLength(100)
    }).pipe(Effect.scoped))

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
      Effect.flatMap(FileTime.FileTime, (ledger) =>
        Effect.forEach(Array.from({ length: 100 }, (_, i) => `s${i}`), (session) =>
          Effect.map(ledger.coverage(session, path), (coverage) =>
            coverage.ranges.map(({ end, start }) => `${start}-${end}`).join(",")))).pipe(
          Effect.provide(ledgerOn(url))
        )
    )
    expect(ranges.filter((kept) => kept === "1-3,10-12")).toHaveLength(100)
  })

  it("four processes starting at once on an empty database, three times: all start", async () => {
    for (let trial = 0; trial < 3; trial++) {
      const url = await store()
      const outcomes = await together([1, 2, 3, 4].map(() => ["start", url]))
      expect(outcomes.map((outcome) => outcome.ok ? "ok" : outcome.error)).toEqual(["ok", "ok", "ok", "ok"])
    }
  })
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
})
describePg("replicas as processes on one PostgreSQL database", () => {
  processes("pg", freshPgDatabase)
})
