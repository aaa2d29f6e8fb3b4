/**
 * The `FileTime` read ledger on any `@effect/sql` database the host provides a `SqlClient` for:
 * SQLite (`SqliteFileTime.layer({ filename })` is the convenience) or PostgreSQL (a `PgClient`
 * layer from `@effect/sql-pg`), so that every process of an agent server — replicas, a restart,
 * a worker that picks a conversation up — sees what each session read.
 *
 * The schema is `@effect/sql` migrations per dialect (`migrations`, recorded in
 * `effect_read_migrations`), safe when several processes start at once on an empty database;
 * the same migrations create `SqlSessionMemory`'s tables.
 *
 * A separate module from `FileTime` on purpose: importing `FileTime` never loads `@effect/sql`.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import type * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import {
  addShown,
  assertUnchanged,
  type Coverage,
  coversAt,
  emptyCoverage,
  FileTime,
  type FileTimeShape,
  maxRanges,
  mergeCoverage,
  type ReadBytes,
  type ReadStamp,
  type Shown,
  stamp
} from "./FileTime.js"
import { dialectName, Integer, LockTimeout, migrate, retryWhileLocked } from "./internal/store/sql.js"

export { LockTimeout, migrate, migrations, migrationsTable } from "./internal/store/sql.js"

/** Stamps kept in memory, per ledger, while the database refuses writes. */
export const maxUnsaved = 10_000

/** One `file_reads` row, whichever way the driver returns its integers. */
const FileReadRow = Schema.Struct({
  path: Schema.String,
  read_at: Integer,
  size: Integer,
  mtime: Schema.NullOr(Integer),
  hash: Schema.NullOr(Schema.String)
})

const Key = Schema.Struct({ sessionId: Schema.String, path: Schema.String })

/** One `file_read_ranges` row; `start_line` 0 marks a hash at which the whole file was seen. */
const RangeRow = Schema.Struct({ hash: Schema.String, start_line: Integer, end_line: Integer })

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

const sameCoverage = (a: Coverage, b: Coverage) => JSON.stringify(a) === JSON.stringify(b)

/** Both coverages: what the database holds now and what this process kept while it refused writes. */
const unionCoverage = (stored: Coverage, kept: Coverage): Coverage => ({
  ranges: mergeCoverage([...stored.ranges, ...kept.ranges]).slice(-maxRanges),
  wholeAt: [...new Set([...stored.wholeAt, ...kept.wholeAt])].slice(-16)
})

/**
 * The ledger over the `SqlClient` in context (which must already be migrated: see `migrate`).
 *
 * A lock another connection holds (another process writing the SQLite file, a PostgreSQL
 * deadlock) is waited for, for up to `LockTimeout` (default 60 s), by every operation: the write
 * of `read`, and the reads of `get`, `assert`, `coverage` and `covers`.
 *
 * `read` never fails (as the `FileTime` contract requires): a file that cannot be stamped records
 * nothing, and a database that refuses the write (a read-only or full disk, a file locked past
 * `LockTimeout`, a server that cannot be reached) is logged at warning level and the stamp kept in
 * this process's memory instead (at most `maxUnsaved`, oldest dropped first), so `get` and
 * `assert` in this process still see the read — a read must not fail because its bookkeeping did,
 * nor an edit after it. Such stamps are not persisted until a later read of the file is written;
 * its coverage is then what the database holds joined with what this process kept. `get` and
 * `assert` cannot answer without reading the database, and their types have no room for a
 * `SqlError`, so a database that cannot be read is a defect there.
 *
 * Coverage is read, merged and written back in one transaction that first writes the stamp: the
 * stamp's row lock (PostgreSQL) or the write lock taken by that first write (SQLite: a deferred
 * `BEGIN` whose first statement writes waits for the lock as `BEGIN IMMEDIATE` does) makes
 * concurrent reads of one file in one session — from this process or another — take turns, so
 * none loses the other's lines. A read whose lines are already covered writes the stamp only.
 */
export const make: Effect.Effect<FileTimeShape, never, SqlClient.SqlClient | FileSystem.FileSystem> = Effect.gen(
  function*() {
    const sql = yield* SqlClient.SqlClient
    const fs = yield* FileSystem.FileSystem
    const store = `the ${dialectName(sql)} ledger`
    const patiently = retryWhileLocked(yield* LockTimeout)
    const stampNow = (path: string, known?: ReadBytes) =>
      Effect.provideService(stamp(path, known), FileSystem.FileSystem, fs)
    // Stamps and coverage the database refused, by session and path; Map order is the eviction order.
    const unsaved = new Map<string, ReadStamp>()
    const unsavedCoverage = new Map<string, Coverage>()
    const keyOf = (sessionId: string, path: string) => `${sessionId}\0${path}`
    const keepUnsaved = <A>(map: Map<string, A>, key: string, value: A) => {
      map.delete(key)
      map.set(key, value)
      if (map.size > maxUnsaved) map.delete(map.keys().next().value!)
    }

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

    /** Replace a file's coverage rows with `coverage` (inside the caller's transaction). */
    const replaceCoverage = (sessionId: string, path: string, coverage: Coverage) =>
      Effect.gen(function*() {
        yield* sql`DELETE FROM file_read_ranges WHERE session_id = ${sessionId} AND path = ${path}`.withoutTransform
        const rows = [
          ...coverage.wholeAt.map((hash) => ({ hash, start: 0, end: 0 })),
          ...coverage.ranges.map((range) => ({ hash: range.hash, start: range.start, end: range.end }))
        ].map((row, seq) => ({
          session_id: sessionId,
          path,
          hash: row.hash,
          start_line: row.start,
          end_line: row.end,
          seq
        }))
        // One statement per 500 rows (a file keeps at most `FileTime.maxRanges` + 16).
        for (let i = 0; i < rows.length; i += 500) {
          yield* sql`INSERT INTO file_read_ranges ${sql.insert(rows.slice(i, i + 500))}`.withoutTransform
        }
      })

    const coverage = Effect.fn("FileTime.coverage")(function*(sessionId: string, path: string) {
      const kept = unsavedCoverage.get(keyOf(sessionId, path))
      if (kept !== undefined) return kept
      return toCoverage(yield* findRanges({ sessionId, path }).pipe(patiently, Effect.orDie))
    })

    const covers = Effect.fn("FileTime.covers")(function*(sessionId: string, path: string, start: number, end: number) {
      const now = yield* Effect.option(stampNow(path))
      return coversAt(yield* coverage(sessionId, path), Option.getOrUndefined(now)?.hash, start, end)
    })

    const decodeRanges = Schema.decodeUnknown(Schema.Array(RangeRow))

    /**
     * Write the stamp and read the coverage, in one round trip where the database allows it
     * (PostgreSQL: a data-modifying CTE); two statements on SQLite, where a statement costs no trip.
     */
    const upsertAndFind = (sessionId: string, path: string, stamped: ReadStamp) =>
      sql.onDialectOrElse({
        pg: () =>
          sql`WITH stamp AS (
            INSERT INTO file_reads (session_id, path, read_at, size, mtime, hash)
            VALUES (${sessionId}, ${stamped.path}, ${stamped.readAt}, ${stamped.size}, ${stamped.mtime ?? null}, ${
            stamped.hash ?? null
          })
            ON CONFLICT (session_id, path) DO UPDATE SET
              read_at = excluded.read_at, size = excluded.size, mtime = excluded.mtime, hash = excluded.hash
            RETURNING 1)
          SELECT hash, start_line, end_line FROM file_read_ranges
          WHERE session_id = ${sessionId} AND path = ${path} ORDER BY seq`.withoutTransform.pipe(
            Effect.flatMap(decodeRanges)
          ),
        orElse: () => Effect.zipRight(upsert(sessionId, stamped), findRanges({ sessionId, path }))
      })

    /** Write the stamp and, when `shown` adds to it, the coverage, in one transaction. */
    const save = (sessionId: string, path: string, stamped: ReadStamp, shown: Shown | undefined) =>
      Effect.gen(function*() {
        const key = keyOf(sessionId, path)
        const kept = unsavedCoverage.get(key)
        if (kept === undefined) {
          if (shown === undefined) return yield* upsert(sessionId, stamped)
          // Lines already covered (the common re-read): the stamp alone, no transaction.
          const before = toCoverage(yield* upsertAndFind(sessionId, path, stamped))
          if (sameCoverage(addShown(before, stamped, shown), before)) return
        }
        yield* sql.withTransaction(Effect.gen(function*() {
          // The stamp first: its lock makes concurrent updates of this coverage take turns.
          yield* upsert(sessionId, stamped)
          if (shown === undefined && kept === undefined) return
          const stored = toCoverage(yield* findRanges({ sessionId, path }))
          // What other processes wrote meanwhile stays: kept coverage joins it, never replaces it.
          const before = kept === undefined ? stored : unionCoverage(stored, kept)
          const after = addShown(before, stamped, shown)
          if (!sameCoverage(after, stored)) yield* replaceCoverage(sessionId, path, after)
        }))
      })

    const read = Effect.fn("FileTime.read")(
      function*(sessionId: string, path: string, shown?: Shown, bytes?: ReadBytes) {
        yield* Effect.annotateCurrentSpan({ sessionId, path })
        const stamped = yield* stampNow(path, bytes).pipe(
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
        yield* save(sessionId, path, stamped.value, shown).pipe(
          patiently,
          Effect.zipRight(Effect.sync(() => {
            unsaved.delete(key)
            unsavedCoverage.delete(key)
          })),
          Effect.catchAllCause((cause) =>
            Effect.gen(function*() {
              keepUnsaved(unsaved, key, stamped.value)
              const before = unsavedCoverage.get(key) ??
                (yield* findRanges({ sessionId, path }).pipe(
                  Effect.map(toCoverage),
                  Effect.orElseSucceed(() => emptyCoverage)
                ))
              const after = addShown(before, stamped.value, shown)
              if (after !== before || unsavedCoverage.has(key)) keepUnsaved(unsavedCoverage, key, after)
              yield* Effect.logWarning(
                `FileTime.read: ${store} refused the write; the stamp is kept in memory only`,
                cause
              )
                .pipe(Effect.annotateLogs({ sessionId, path }))
            })
          )
        )
      }
    )

    const get = Effect.fn("FileTime.get")(function*(sessionId: string, path: string) {
      yield* Effect.annotateCurrentSpan({ sessionId, path })
      const row = Option.map(yield* find({ sessionId, path }).pipe(patiently, Effect.orDie), toStamp)
      const kept = unsaved.get(keyOf(sessionId, path))
      // The later of what the database holds and what it refused to store.
      return kept !== undefined && Option.match(row, { onNone: () => true, onSome: (r) => kept.readAt >= r.readAt })
        ? Option.some(kept)
        : row
    })

    const assert = Effect.fn("FileTime.assert")(function*(sessionId: string, path: string) {
      yield* assertUnchanged(path, yield* get(sessionId, path), stampNow(path))
    })

    const fork = Effect.fn("FileTime.fork")(function*(parent: string, child: string) {
      yield* Effect.annotateCurrentSpan({ parent, child })
      if (parent === child) return false
      const now = yield* Clock.currentTimeMillis
      const copied = yield* sql.withTransaction(Effect.gen(function*() {
        // Once per child, whichever process forks it first; its rows are the parent's as of now.
        const inserted = yield* sql`INSERT INTO effect_read_forks (session_id, parent, forked_at)
          VALUES (${child}, ${parent}, ${now}) ON CONFLICT (session_id) DO NOTHING RETURNING session_id`
          .withoutTransform
        if (inserted.length === 0) return false
        // Coverage first, of the files the child has not read itself (its own stamp decides that).
        yield* sql`INSERT INTO file_read_ranges (session_id, path, hash, start_line, end_line, seq)
          SELECT ${child}, p.path, p.hash, p.start_line, p.end_line, p.seq FROM file_read_ranges p
          WHERE p.session_id = ${parent} AND NOT EXISTS (
            SELECT 1 FROM file_reads c WHERE c.session_id = ${child} AND c.path = p.path)
          ON CONFLICT DO NOTHING`.withoutTransform
        yield* sql`INSERT INTO file_reads (session_id, path, read_at, size, mtime, hash)
          SELECT ${child}, p.path, p.read_at, p.size, p.mtime, p.hash FROM file_reads p
          WHERE p.session_id = ${parent}
          ON CONFLICT DO NOTHING`.withoutTransform
        return true
      })).pipe(
        // Not forked (the next fork of this child tries again): the child inherits nothing meanwhile,
        // so its Edit guard asks it to read first — never the other way round.
        Effect.catchAllCause((cause) =>
          Effect.logWarning(`FileTime.fork: ${store} refused the fork; the child starts with nothing read`, cause).pipe(
            Effect.annotateLogs({ parent, child }),
            Effect.as(false)
          )
        )
      )
      if (!copied) return false
      // What the database refused for the parent, this process still holds: the child gets it too.
      for (const [key, stamped] of [...unsaved]) {
        if (!key.startsWith(`${parent}\0`) || unsaved.has(keyOf(child, stamped.path))) continue
        keepUnsaved(unsaved, keyOf(child, stamped.path), stamped)
        const kept = unsavedCoverage.get(key)
        if (kept !== undefined) keepUnsaved(unsavedCoverage, keyOf(child, stamped.path), kept)
      }
      return true
    })

    return FileTime.of({ read, get, assert, coverage, covers, fork })
  }
)

/**
 * The ledger over the `SqlClient` the host provides (SQLite, PostgreSQL; shared with tables of
 * its own). Runs the migrations when the layer is built.
 */
export const layerClient: Layer.Layer<
  FileTime,
  Migrator.MigrationError | SqlError,
  SqlClient.SqlClient | FileSystem.FileSystem
> = Layer.effect(FileTime, Effect.zipRight(migrate, make))
