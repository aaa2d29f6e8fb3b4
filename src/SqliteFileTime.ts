/**
 * A persistent `FileTime` ledger on SQLite (`@effect/sql-sqlite-node`): an agent server that
 * restarts still knows what each session read. One database file, WAL journal mode, one table
 * (`file_reads`, keyed by session and path) created by an `@effect/sql` migration.
 *
 * A separate module from `FileTime` on purpose: importing `FileTime` never loads better-sqlite3.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import type { ConfigError } from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import {
  assertUnchanged,
  FileTime,
  type FileTimeShape,
  addShown,
  type Coverage,
  coversAt,
  emptyCoverage,
  type ReadBytes,
  type Shown,
  type ReadStamp,
  stamp,
  takeReadBytes
} from "./FileTime.js"

/**
 * The migrations table this module owns. Not `@effect/sql`'s default (`effect_sql_migrations`),
 * so the ledger can live in a database whose owner runs migrations of their own.
 */
export const migrationsTable = "effect_read_migrations"

/** The schema, one migration per entry (`<id>_<name>`), applied in id order exactly once. */
export const migrations: Record<string, Effect.Effect<void, unknown, SqlClient.SqlClient>> = {
  "1_create_file_reads": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // mtime and hash are nullable: not every filesystem reports an mtime, and files over
    // `FileTime.maxHashBytes` are not hashed.
    yield* sql`CREATE TABLE IF NOT EXISTS file_reads (
      session_id TEXT NOT NULL,
      path TEXT NOT NULL,
      read_at INTEGER NOT NULL,
      size INTEGER NOT NULL,
      mtime INTEGER,
      hash TEXT,
      PRIMARY KEY (session_id, path)
    ) WITHOUT ROWID`.withoutTransform
  }),
  "2_create_file_read_ranges": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // What each session was shown of each file: line ranges (merged) per content hash, and the
    // hashes at which it saw the whole file (`start_line` 0).
    yield* sql`CREATE TABLE IF NOT EXISTS file_read_ranges (
      session_id TEXT NOT NULL,
      path TEXT NOT NULL,
      hash TEXT NOT NULL,
      start_line INTEGER NOT NULL,
      end_line INTEGER NOT NULL,
      seq INTEGER NOT NULL,
      PRIMARY KEY (session_id, path, hash, start_line)
    ) WITHOUT ROWID`.withoutTransform
  })
}

/** Bring the database up to date (idempotent; safe when several processes race to do it). */
export const migrate: Effect.Effect<
  ReadonlyArray<readonly [id: number, name: string]>,
  Migrator.MigrationError | SqlError,
  SqlClient.SqlClient
> = Migrator.make({})({ loader: Migrator.fromRecord(migrations), table: migrationsTable })

/** Stamps kept in memory, per ledger, while the database refuses writes. */
export const maxUnsaved = 10_000

/** One `file_reads` row as better-sqlite3 returns it. */
const FileReadRow = Schema.Struct({
  path: Schema.String,
  read_at: Schema.Number,
  size: Schema.Number,
  mtime: Schema.NullOr(Schema.Number),
  hash: Schema.NullOr(Schema.String)
})

const Key = Schema.Struct({ sessionId: Schema.String, path: Schema.String })

/** One `file_read_ranges` row; `start_line` 0 marks a hash at which the whole file was seen. */
const RangeRow = Schema.Struct({ hash: Schema.String, start_line: Schema.Number, end_line: Schema.Number })

const toCoverage = (rows: ReadonlyArray<typeof RangeRow.Type>): Coverage => ({
  ranges: rows.filter((row) => row.start_line > 0).map((row) => ({
    start: row.start_line,
    end: row.end_line,
    hash: row.hash
  })),
  wholeAt: rows.filter((row) => row.start_line === 0).map((row) => row.hash)
})

const toStamp = (row: typeof FileReadRow.Type): ReadStamp => ({
  path: row.path,
  readAt: row.read_at,
  size: row.size,
  mtime: row.mtime ?? undefined,
  hash: row.hash ?? undefined
})

/**
 * The ledger over the `SqlClient` in context (which must already be migrated: see `migrate`).
 *
 * `read` never fails (as the `FileTime` contract requires): a file that cannot be stamped records
 * nothing, and a database that refuses the write (a read-only or full disk, a locked file) is
 * logged at warning level and the stamp kept in this process's memory instead (at most
 * `maxUnsaved`, oldest dropped first), so `get` and `assert` in this process still see the read —
 * a read must not fail because its bookkeeping did, nor an edit after it. Such stamps are not
 * persisted. `get` and `assert` cannot answer without reading the database, and their types have
 * no room for a `SqlError`, so a database that cannot be read is a defect there (the ledger file
 * is broken, not something the agent did).
 */
export const make: Effect.Effect<FileTimeShape, never, SqlClient.SqlClient | FileSystem.FileSystem> = Effect.gen(
  function*() {
    const sql = yield* SqlClient.SqlClient
    const fs = yield* FileSystem.FileSystem
    const stampNow = (path: string, known?: ReadBytes) =>
      Effect.provideService(stamp(path, known), FileSystem.FileSystem, fs)
    // Stamps the database refused, by session and path; Map order is the eviction order.
    const unsaved = new Map<string, ReadStamp>()
    const keyOf = (sessionId: string, path: string) => `${sessionId}\0${path}`

    // `withoutTransform`: a client built with name transforms (camelCase …) must not rename our columns.
    const upsert = (sessionId: string, s: ReadStamp) =>
      sql`INSERT INTO file_reads (session_id, path, read_at, size, mtime, hash)
        VALUES (${sessionId}, ${s.path}, ${s.readAt}, ${s.size}, ${s.mtime ?? null}, ${s.hash ?? null})
        ON CONFLICT (session_id, path) DO UPDATE SET
          read_at = excluded.read_at, size = excluded.size, mtime = excluded.mtime, hash = excluded.hash`
        .withoutTransform

    const find = SqlSchema.findOne({
      Request: Key,
      Result: FileReadRow,
      execute: ({ path, sessionId }) =>
        sql`SELECT path, read_at, size, mtime, hash FROM file_reads
          WHERE session_id = ${sessionId} AND path = ${path}`.withoutTransform
    })

    const findRanges = SqlSchema.findAll({
      Request: Key,
      Result: RangeRow,
      execute: ({ path, sessionId }) =>
        sql`SELECT hash, start_line, end_line FROM file_read_ranges
          WHERE session_id = ${sessionId} AND path = ${path} ORDER BY seq`.withoutTransform
    })

    /** Replace a file's coverage rows with `coverage`, in one transaction. */
    const saveCoverage = (sessionId: string, path: string, coverage: Coverage) =>
      sql.withTransaction(Effect.gen(function*() {
        yield* sql`DELETE FROM file_read_ranges WHERE session_id = ${sessionId} AND path = ${path}`.withoutTransform
        const rows = [
          ...coverage.wholeAt.map((hash) => ({ hash, start: 0, end: 0 })),
          ...coverage.ranges.map((range) => ({ hash: range.hash, start: range.start, end: range.end }))
        ]
        for (const [seq, row] of rows.entries()) {
          yield* sql`INSERT INTO file_read_ranges (session_id, path, hash, start_line, end_line, seq)
            VALUES (${sessionId}, ${path}, ${row.hash}, ${row.start}, ${row.end}, ${seq})`.withoutTransform
        }
      }))

    // Coverage the database refused, by session and path (bounded as the stamps are).
    const unsavedCoverage = new Map<string, Coverage>()

    const coverage = Effect.fn("FileTime.coverage")(function*(sessionId: string, path: string) {
      const kept = unsavedCoverage.get(keyOf(sessionId, path))
      if (kept !== undefined) return kept
      return toCoverage(yield* findRanges({ sessionId, path }).pipe(Effect.orDie))
    })

    const covers = Effect.fn("FileTime.covers")(function*(sessionId: string, path: string, start: number, end: number) {
      const now = yield* Effect.option(stampNow(path))
      return coversAt(yield* coverage(sessionId, path), Option.getOrUndefined(now)?.hash, start, end)
    })

    const read = Effect.fn("FileTime.read")(function*(sessionId: string, path: string, shown?: Shown) {
      yield* Effect.annotateCurrentSpan({ sessionId, path })
      const stamped = yield* stampNow(path, yield* takeReadBytes(path)).pipe(
        Effect.map(Option.some),
        Effect.catchAll((error) =>
          Effect.logDebug("FileTime.read: could not stamp the file; nothing recorded").pipe(
            Effect.annotateLogs({ sessionId, path, error: error.message }),
            Effect.as(Option.none<ReadStamp>())
          )
        )
      )
      if (Option.isNone(stamped)) return
      const key = keyOf(sessionId, path)
      const saved = yield* upsert(sessionId, stamped.value).pipe(
        Effect.zipRight(Effect.sync(() => unsaved.delete(key))),
        Effect.as(true),
        Effect.catchAllCause((cause) =>
          Effect.sync(() => {
            unsaved.delete(key)
            unsaved.set(key, stamped.value)
            if (unsaved.size > maxUnsaved) unsaved.delete(unsaved.keys().next().value!)
          }).pipe(
            Effect.zipRight(
              Effect.logWarning("FileTime.read: the SQLite ledger refused the write; the stamp is kept in memory only", cause)
            ),
            Effect.annotateLogs({ sessionId, path }),
            Effect.as(false)
          )
        )
      )
      if (shown === undefined) return
      const before = yield* coverage(sessionId, path).pipe(Effect.catchAllDefect(() => Effect.succeed(emptyCoverage)))
      const after = addShown(before, stamped.value, shown)
      if (after === before) return
      const keep = Effect.sync(() => {
        unsavedCoverage.delete(key)
        unsavedCoverage.set(key, after)
        if (unsavedCoverage.size > maxUnsaved) unsavedCoverage.delete(unsavedCoverage.keys().next().value!)
      })
      // The database just refused the stamp (already warned about): keep the coverage beside it.
      if (!saved) return yield* keep
      yield* saveCoverage(sessionId, path, after).pipe(
        Effect.zipRight(Effect.sync(() => unsavedCoverage.delete(key))),
        Effect.catchAllCause((cause) =>
          keep.pipe(
            Effect.zipRight(
              Effect.logWarning("FileTime.read: the SQLite ledger refused the coverage; kept in memory only", cause)
            ),
            Effect.annotateLogs({ sessionId, path })
          )
        )
      )
    })

    const get = Effect.fn("FileTime.get")(function*(sessionId: string, path: string) {
      yield* Effect.annotateCurrentSpan({ sessionId, path })
      const row = Option.map(yield* find({ sessionId, path }).pipe(Effect.orDie), toStamp)
      const kept = unsaved.get(keyOf(sessionId, path))
      // The later of what the database holds and what it refused to store.
      return kept !== undefined && Option.match(row, { onNone: () => true, onSome: (r) => kept.readAt >= r.readAt })
        ? Option.some(kept)
        : row
    })

    const assert = Effect.fn("FileTime.assert")(function*(sessionId: string, path: string) {
      yield* assertUnchanged(path, yield* get(sessionId, path), stampNow(path))
    })

    return FileTime.of({ read, get, assert, coverage, covers })
  }
)

/**
 * The ledger over an existing `SqlClient` (any SQLite client: yours, shared with other tables).
 * Runs the migrations when the layer is built.
 */
export const layerClient: Layer.Layer<
  FileTime,
  Migrator.MigrationError | SqlError,
  SqlClient.SqlClient | FileSystem.FileSystem
> = Layer.effect(FileTime, Effect.zipRight(migrate, make))

export interface Options {
  /** The database file (its directory must exist); created and migrated on first use. */
  readonly filename: string
  /** Extra attributes on every `sql.execute` span. */
  readonly spanAttributes?: Record<string, unknown> | undefined
}

/**
 * The ledger in its own SQLite file, in WAL journal mode (readers never block the writer, and
 * several processes can share the file). The connection is opened when the layer is built and
 * closed when its scope closes.
 */
export const layer = (
  options: Options
): Layer.Layer<FileTime, Migrator.MigrationError | SqlError | ConfigError, FileSystem.FileSystem> =>
  layerClient.pipe(
    Layer.provide(SqliteClient.layer({
      filename: options.filename,
      // WAL is SqliteClient's default; spelled out because the ledger relies on it.
      disableWAL: false,
      spanAttributes: options.spanAttributes
    }))
  )
