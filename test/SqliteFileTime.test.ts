import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import * as FileTime from "../src/FileTime.js"
import * as SqliteFileTime from "../src/SqliteFileTime.js"
import { fileTimeContract } from "./contracts/FileTime.js"
import { tempDir } from "./support/index.js"

const root = tempDir("effect-read-sqlite-filetime-")
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

let databases = 0
const freshDatabase = () => nodePath.join(root, `ledger-${++databases}.db`)

// A new database file for every case: each case starts from an empty, freshly migrated ledger.
fileTimeContract("SqliteFileTime.layer, a fresh database file per case", {
  layer: Layer.unwrapEffect(Effect.sync(() => SqliteFileTime.layer({ filename: freshDatabase() }))).pipe(
    Layer.provideMerge(NodeFileSystem.layer)
  ),
  root: () => root
})

// One file for every case: each case reopens it, so the migration is found already applied.
const shared = nodePath.join(root, "shared.db")
fileTimeContract("SqliteFileTime.layer, one database file reopened by every case", {
  layer: SqliteFileTime.layer({ filename: shared }).pipe(Layer.provideMerge(NodeFileSystem.layer)),
  root: () => root
})

// The client variant over a caller's own client (here with camelCase name transforms, which the
// ledger must not be confused by).
fileTimeContract("SqliteFileTime.layerClient over a caller's SqliteClient", {
  layer: Layer.unwrapEffect(Effect.sync(() =>
    SqliteFileTime.layerClient.pipe(
      Layer.provide(SqliteClient.layer({
        filename: freshDatabase(),
        transformQueryNames: (name) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`),
        transformResultNames: (name) => name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())
      }))
    )
  )).pipe(Layer.provideMerge(NodeFileSystem.layer)),
  root: () => root
})

const writeFile = (name: string, content: string) => {
  const path = nodePath.join(root, name)
  fs.writeFileSync(path, content)
  return path
}

/** Build `layer` in a scope of our own, run `body` against it, then close the scope. */
const withLedger = <A, E>(
  filename: string,
  body: (ledger: FileTime.FileTimeShape) => Effect.Effect<A, E>
) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const context = yield* Layer.buildWithScope(
      SqliteFileTime.layer({ filename }).pipe(Layer.provide(NodeFileSystem.layer)),
      scope
    )
    const exit = yield* Effect.exit(body(Context.get(context, FileTime.FileTime)))
    yield* Scope.close(scope, Exit.void)
    return yield* exit
  })

describe("SqliteFileTime", () => {
  it.effect("survives closing and reopening the database", () =>
    Effect.gen(function*() {
      const filename = freshDatabase()
      const kept = writeFile("kept.txt", "kept\n")
      const edited = writeFile("edited.txt", "before\n")
      const first = yield* withLedger(filename, (ledger) =>
        Effect.gen(function*() {
          yield* ledger.read("s1", kept)
          yield* ledger.read("s1", edited)
          yield* ledger.read("s2", kept)
          return Option.getOrThrow(yield* ledger.get("s1", kept))
        }))
      // The first connection is closed: the file alone carries the ledger now.
      fs.writeFileSync(edited, "after, longer\n")

      yield* withLedger(filename, (ledger) =>
        Effect.gen(function*() {
          expect(Option.getOrThrow(yield* ledger.get("s1", kept))).toEqual(first)
          expect(first.hash).toMatch(/^[0-9a-f]{64}$/)
          yield* ledger.assert("s1", kept)
          yield* ledger.assert("s2", kept)
          expect((yield* Effect.flip(ledger.assert("s1", edited)))._tag).toBe("FileChangedSinceRead")
          expect((yield* Effect.flip(ledger.assert("s2", edited)))._tag).toBe("FileNotRead")
          expect((yield* Effect.flip(ledger.assert("s3", kept)))._tag).toBe("FileNotRead")
        }))
    }))

  it.effect("concurrent sessions through one layer stay independent", () =>
    Effect.gen(function*() {
      const sessions = Array.from({ length: 8 }, (_, i) => `session-${i}`)
      const files = Array.from({ length: 6 }, (_, i) => writeFile(`shared-${i}.txt`, `content ${i}\n`))
      // Session i reads the files whose index has the parity of i: even sessions read even files.
      const readsOf = (i: number) => files.filter((_, j) => j % 2 === i % 2)

      yield* withLedger(freshDatabase(), (ledger) =>
        Effect.gen(function*() {
          yield* Effect.forEach(
            sessions.flatMap((session, i) => readsOf(i).map((path) => ledger.read(session, path))),
            (read) => read,
            { concurrency: "unbounded", discard: true }
          )
          // Every (session, file) pair at once: read files pass, unread ones are FileNotRead.
          const outcomes = yield* Effect.forEach(
            sessions.flatMap((session, i) =>
              files.map((path, j) =>
                ledger.assert(session, path).pipe(
                  Effect.as("ok" as const),
                  Effect.catchAll((error) => Effect.succeed(error._tag)),
                  Effect.map((outcome) => ({ i, j, outcome }))
                )
              )
            ),
            (check) => check,
            { concurrency: "unbounded" }
          )
          for (const { i, j, outcome } of outcomes) {
            expect(outcome, `session ${i}, file ${j}`).toBe(j % 2 === i % 2 ? "ok" : "FileNotRead")
          }

          // Change one file, and re-read it concurrently in half of the sessions that had read it.
          fs.writeFileSync(files[0]!, "content 0, changed\n")
          const evenSessions = sessions.filter((_, i) => i % 2 === 0)
          const rereaders = evenSessions.slice(0, 2)
          yield* Effect.forEach(rereaders, (session) => ledger.read(session, files[0]!), {
            concurrency: "unbounded",
            discard: true
          })
          const after = yield* Effect.forEach(
            evenSessions,
            (session) =>
              ledger.assert(session, files[0]!).pipe(Effect.as("ok"), Effect.catchAll((e) => Effect.succeed(e._tag))),
            { concurrency: "unbounded" }
          )
          expect(after).toEqual(evenSessions.map((s) => rereaders.includes(s) ? "ok" : "FileChangedSinceRead"))
        }))
    }))

  it.effect("the database is in WAL journal mode, migrated once into its own table", () => {
    const filename = freshDatabase()
    // The ledger and, alongside it, the very client it writes through.
    const ledgerAndClient = SqliteFileTime.layerClient.pipe(
      Layer.provideMerge(SqliteClient.layer({ filename })),
      Layer.provide(NodeFileSystem.layer)
    )
    return Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const [mode] = yield* sql<{ journal_mode: string }>`PRAGMA journal_mode`
      expect(mode?.journal_mode).toBe("wal")
      const migrations = yield* sql<{ migration_id: number; name: string }>`
        SELECT migration_id, name FROM ${sql(SqliteFileTime.migrationsTable)}`
      expect(migrations).toEqual([
        { migration_id: 1, name: "create_file_reads" },
        { migration_id: 2, name: "create_file_read_ranges" },
        { migration_id: 3, name: "create_session_memory" },
        { migration_id: 4, name: "create_forks" }
      ])
      const columns = yield* sql<{ name: string; pk: number }>`PRAGMA table_info(file_reads)`
      expect(columns.map((c) => [c.name, c.pk])).toEqual([
        ["session_id", 1],
        ["path", 2],
        ["read_at", 0],
        ["size", 0],
        ["mtime", 0],
        ["hash", 0]
      ])
    }).pipe(
      Effect.provide(ledgerAndClient),
      // Reopened: the migration is not applied twice, and WAL is recorded in the file itself
      // (a client that does not ask for WAL still finds it).
      Effect.zipRight(withLedger(filename, () => Effect.void)),
      Effect.zipRight(
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const [mode] = yield* sql<{ journal_mode: string }>`PRAGMA journal_mode`
          expect(mode?.journal_mode).toBe("wal")
          const migrations = yield* sql`SELECT migration_id FROM ${sql(SqliteFileTime.migrationsTable)}`
          expect(migrations).toHaveLength(4)
        }).pipe(Effect.provide(SqliteClient.layer({ filename, disableWAL: true })))
      )
    )
  })
})
