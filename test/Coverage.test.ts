/**
 * What was read: the ledger's coverage per session and file (ranges merged per content hash,
 * the whole file), the `covers` query an Edit guard asks, in memory and in SQLite across a restart.
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Scope from "effect/Scope"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import * as FileTime from "../src/FileTime.js"
import * as Lsp from "../src/Lsp.js"
import * as Permission from "../src/Permission.js"
import * as Read from "../src/Read.js"
import * as SqliteFileTime from "../src/SqliteFileTime.js"
import * as Workspace from "../src/Workspace.js"
import { fieldsOf, tempDir, writeTree } from "./support/index.js"

const root = tempDir()
const numbered = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n") + "\n"
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

let counter = 0
const fresh = (content = numbered(20)) => {
  const name = `f${++counter}.txt`
  writeTree(root, { [name]: content })
  return nodePath.join(root, name)
}

const services = (ledger: Layer.Layer<FileTime.FileTime, unknown, never>) =>
  Layer.mergeAll(
    Workspace.layer({ directory: root, sessionId: "s" }),
    Permission.layerAllowAll,
    Lsp.layerNoop,
    ledger
  ).pipe(Layer.provideMerge(Layer.merge(NodeFileSystem.layer, NodePath.layer)))

const memoryLedger = FileTime.layerMemory.pipe(Layer.provide(NodeFileSystem.layer))

/** Build the services over `ledger` in a scope of our own, run `body`, close the scope. */
const withServices = <A, E>(
  ledger: Layer.Layer<FileTime.FileTime, unknown, never>,
  body: Effect.Effect<A, E, Read.EffectRequirements>
) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const context = yield* Layer.buildWithScope(services(ledger), scope)
    const exit = yield* Effect.exit(Effect.provide(body, context))
    yield* Scope.close(scope, Exit.void)
    return yield* exit
  })

const ledger = FileTime.FileTime

const cases = (name: string, make: () => Layer.Layer<FileTime.FileTime, unknown, never>) =>
  describe(`coverage: ${name}`, () => {
    it.effect("ranges shown are merged per hash; covers answers for the current content only", () =>
      withServices(
        make(),
        Effect.gen(function*() {
          const path = fresh()
          const ft = yield* ledger
          expect(yield* ft.covers("s", path, 1, 1)).toBe(false)
          yield* Read.read({ filePath: `${path}:3-5` })
          yield* Read.read({ filePath: `${path}:6-8` })
          yield* Read.read({ filePath: `${path}:12-13` })
          const coverage = yield* ft.coverage("s", path)
          expect(coverage.wholeAt).toEqual([])
          expect(coverage.ranges.map(({ end, start }) => [start, end])).toEqual([[3, 8], [12, 13]])
          expect(coverage.ranges[0]!.hash).toMatch(/^[0-9a-f]{64}$/)
          // A partial read of exactly the lines being edited is enough (claude-code#73281).
          expect(yield* ft.covers("s", path, 4, 8)).toBe(true)
          expect(yield* ft.covers("s", path, 12, 12)).toBe(true)
          expect(yield* ft.covers("s", path, 8, 12)).toBe(false)
          expect(yield* ft.covers("other", path, 4, 5)).toBe(false)
          // A change anywhere in the file: what was read is no longer the current content.
          fs.appendFileSync(path, "more\n")
          expect(yield* ft.covers("s", path, 4, 5)).toBe(false)
          yield* Read.read({ filePath: `${path}:4-5` })
          expect(yield* ft.covers("s", path, 4, 5)).toBe(true)
          expect(yield* ft.covers("s", path, 6, 8)).toBe(false)
          expect((yield* ft.coverage("s", path)).ranges).toHaveLength(3)
        })
      ))

    it.effect("a whole read covers every line; a cut or paged read does not make it whole", () =>
      withServices(
        make(),
        Effect.gen(function*() {
          const ft = yield* ledger
          const small = fresh(numbered(5))
          yield* Read.read({ filePath: small })
          const coverage = yield* ft.coverage("s", small)
          expect(coverage.wholeAt).toHaveLength(1)
          expect(yield* ft.covers("s", small, 1, 5)).toBe(true)
          const big = fresh(numbered(50))
          yield* Read.read({ filePath: big, limit: 10 })
          expect((yield* ft.coverage("s", big)).wholeAt).toEqual([])
          expect(yield* ft.covers("s", big, 1, 10)).toBe(true)
          expect(yield* ft.covers("s", big, 1, 11)).toBe(false)
          // A directory or a part of a long line records no lines.
          const long = fresh(`${"a".repeat(3000)}\nb\n`)
          yield* Read.read({ filePath: long, offset: 1, column: 2001 })
          expect(yield* ft.coverage("s", long)).toEqual(FileTime.emptyCoverage)
        })
      ))

    it.effect("a read of several ranges covers those ranges, not the lines between them", () =>
      withServices(
        make(),
        Effect.gen(function*() {
          const ft = yield* ledger
          const path = fresh()
          const result = yield* Read.read({ filePath: `${path}:2-3,8-9` })
          expect(fieldsOf(result).ranges).toEqual([{ start: 2, end: 3 }, { start: 8, end: 9 }])
          expect((yield* ft.coverage("s", path)).ranges.map(({ end, start }) => [start, end])).toEqual([[2, 3], [8, 9]])
          expect(yield* ft.covers("s", path, 2, 3)).toBe(true)
          expect(yield* ft.covers("s", path, 5, 5)).toBe(false)
          expect(yield* ft.covers("s", path, 2, 9)).toBe(false)
        })
      ))

    it.effect(
      "at most 256 ranges per file: the older content's go first, then the first lines'",
      () =>
        withServices(
          make(),
          Effect.gen(function*() {
            const ft = yield* ledger
            const path = fresh(numbered(1_000))
            // Line `start` shown at the file's current version, as the ledger's stamp sees it.
            const shown = (start: number) =>
              Effect.map(FileTime.stamp(path), (stamped) => ({
                start,
                end: start,
                whole: false,
                size: stamped.size,
                mtime: stamped.mtime
              }))
            for (let line = 1; line <= 20; line += 2) yield* ft.read("s", path, yield* shown(line))
            const old = (yield* ft.coverage("s", path)).ranges
            expect(old).toHaveLength(10)
            fs.appendFileSync(path, "changed\n")
            // 260 ranges that do not touch (every other line) at the new content.
            for (let line = 1; line <= 520; line += 2) yield* ft.read("s", path, yield* shown(line))
            const coverage = yield* ft.coverage("s", path)
            expect(coverage.ranges).toHaveLength(FileTime.maxRanges)
            expect(coverage.ranges.some((range) => range.hash === old[0]!.hash)).toBe(false)
            expect(coverage.ranges[0]).toMatchObject({ start: 9, end: 9 })
            expect(yield* ft.covers("s", path, 519, 519)).toBe(true)
            expect(yield* ft.covers("s", path, 7, 7)).toBe(false)
          })
        ),
      60_000
    )

    it.effect("lines of a version the stamp did not see are not recorded", () =>
      withServices(
        make(),
        Effect.gen(function*() {
          const ft = yield* ledger
          const path = fresh()
          const size = fs.statSync(path).size
          yield* ft.read("s", path, { start: 1, end: 3, whole: false, size: size + 1, mtime: undefined })
          expect(yield* ft.coverage("s", path)).toEqual(FileTime.emptyCoverage)
        })
      ))
  })

cases("memory", () => memoryLedger)

const databaseDir = tempDir("effect-read-coverage-db-")
afterAll(() => fs.rmSync(databaseDir, { recursive: true, force: true }))
let databases = 0
const sqlite = (filename: string) => SqliteFileTime.layer({ filename }).pipe(Layer.provide(NodeFileSystem.layer))
cases("SQLite", () => sqlite(nodePath.join(databaseDir, `ledger-${++databases}.db`)))

describe("coverage: SQLite across a restart", () => {
  it.effect("coverage survives closing and reopening the database", () =>
    Effect.gen(function*() {
      const filename = nodePath.join(databaseDir, "restart.db")
      const path = fresh()
      yield* withServices(
        sqlite(filename),
        Effect.gen(function*() {
          yield* Read.read({ filePath: `${path}:2-4` })
          yield* Read.read({ filePath: `${path}:5-9` })
        })
      )
      yield* withServices(
        sqlite(filename),
        Effect.gen(function*() {
          const ft = yield* ledger
          expect((yield* ft.coverage("s", path)).ranges.map(({ end, start }) => [start, end])).toEqual([[2, 9]])
          expect(yield* ft.covers("s", path, 3, 8)).toBe(true)
          expect(yield* ft.covers("s", path, 1, 2)).toBe(false)
        })
      )
      fs.appendFileSync(path, "changed\n")
      yield* withServices(
        sqlite(filename),
        Effect.gen(function*() {
          expect(yield* (yield* ledger).covers("s", path, 3, 8)).toBe(false)
        })
      )
    }))

  it.effect("a database of the first schema is migrated: its stamps kept, coverage added", () =>
    Effect.gen(function*() {
      const filename = nodePath.join(databaseDir, "v1.db")
      const path = fresh()
      // Only the first migration, as an older version of this package left the file.
      const first = { "1_create_file_reads": SqliteFileTime.migrations["1_create_file_reads"]! }
      yield* Migrator.make({})({ loader: Migrator.fromRecord(first), table: SqliteFileTime.migrationsTable }).pipe(
        Effect.provide(SqliteClient.layer({ filename }))
      )
      yield* withServices(
        sqlite(filename),
        Effect.gen(function*() {
          yield* Read.read({ filePath: `${path}:1-2` })
          expect(yield* (yield* ledger).covers("s", path, 1, 2)).toBe(true)
        })
      )
    }))
})

describe("coverage: a SQLite database that refuses writes", () => {
  it.effect("keeps the stamp and the coverage in memory, with one warning per read, and saves again once it accepts", () =>
    Effect.gen(function*() {
      const filename = nodePath.join(databaseDir, "refusing.db")
      const warnings: Array<string> = []
      const logger = Logger.make(({ logLevel, message }) => {
        if (logLevel._tag === "Warning") warnings.push(String(Array.isArray(message) ? message[0] : message))
      })
      const client = SqliteClient.layer({ filename })
      const ledgerLayer = SqliteFileTime.layerClient.pipe(
        Layer.provideMerge(client),
        Layer.provide(NodeFileSystem.layer)
      )
      const path = fresh()
      yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const ft = yield* ledger
        yield* Read.read({ filePath: `${path}:1-3` })
        // From now on every write is refused (as a read-only or full disk would).
        yield* sql`PRAGMA query_only = ON`
        yield* Read.read({ filePath: `${path}:4-6` })
        expect(warnings).toEqual([
          "FileTime.read: the SQLite ledger refused the write; the stamp is kept in memory only"
        ])
        // This process still sees the read and what it showed.
        expect((yield* ft.coverage("s", path)).ranges.map(({ end, start }) => [start, end])).toEqual([[1, 6]])
        expect(yield* ft.covers("s", path, 2, 5)).toBe(true)
        yield* ft.assert("s", path)
        // The database itself holds only what it accepted.
        const rows = yield* sql<{ n: number }>`SELECT count(*) AS n FROM file_read_ranges`
        expect(rows[0]!.n).toBe(1)
        yield* sql`PRAGMA query_only = OFF`
        yield* Read.read({ filePath: `${path}:8-9` })
        expect(warnings).toHaveLength(1)
        const saved = yield* sql<
          { start_line: number; end_line: number }
        >`SELECT start_line, end_line FROM file_read_ranges ORDER BY seq`
        expect(saved.map((row) => [row.start_line, row.end_line])).toEqual([[1, 6], [8, 9]])
      }).pipe(
        Effect.provide(
          Layer.mergeAll(
            Workspace.layer({ directory: root, sessionId: "s" }),
            Permission.layerAllowAll,
            Lsp.layerNoop,
            ledgerLayer
          ).pipe(Layer.provideMerge(Layer.merge(NodeFileSystem.layer, NodePath.layer)))
        ),
        Effect.provide(Logger.replace(Logger.defaultLogger, logger))
      )
    }))
})
