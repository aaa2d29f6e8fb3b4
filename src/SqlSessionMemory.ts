/**
 * Session memory on any `@effect/sql` database (SQLite, PostgreSQL): exactly
 * `SessionMemory.layerSession`'s semantics — stubs for held lines of unchanged files, change
 * notices with diffs, `compacted`, `rewound`, `forget`, the same bounds — shared by every process
 * on the store, so a conversation can move between replicas and a stub is never given for content
 * a signal to another replica dropped.
 *
 * - **Signals** (`compacted`, `rewound`, `forget`, `advance`) and `mark` are written before they
 *   return: every replica's next read sees them. A store that cannot be reached fails them with
 *   `SessionMemoryError`, loudly.
 * - **Queries degrade:** a store that cannot answer holds nothing, so a read gives its full
 *   content (never a stub) and no change notice; a read that cannot be remembered is not.
 * - **Bounded:** per conversation as `layerSession` is, and conversations idle (no write) for
 *   `idleTimeout` (default 24 hours) are dropped; a dropped conversation that comes back starts
 *   with nothing held, and its new `mark`s are larger than any it was given before.
 *
 * Each operation that writes is one transaction: two replicas recording reads of one
 * conversation at once take turns. A lock another connection holds (another process writing the
 * SQLite file) is waited for, by every operation, for up to `LockTimeout` (default 60 s); only
 * then does a signal fail or a query degrade.
 */
import type * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import { Integer, LockTimeout, migrate, retryWhileLocked } from "./internal/store/sql.js"
import {
  Generation,
  limitsOf,
  type Options as MemoryOptions,
  type Seen,
  SessionMemory,
  SessionMemoryError,
  type SessionMemoryShape,
  type Snapshot
} from "./SessionMemory.js"

export { LockTimeout, migrate, migrations, migrationsTable } from "./internal/store/sql.js"

/** `layerSession`'s per-conversation bounds (not `maxSessions`: idle conversations are dropped instead). */
export interface Options extends Omit<MemoryOptions, "maxSessions"> {
  /** Conversations with no write for this long are dropped from the store. Default 24 hours. */
  readonly idleTimeout?: Duration.DurationInput | undefined
  /** How often the layer looks for idle conversations. Default: hourly, or every `idleTimeout` when shorter. */
  readonly pruneEvery?: Duration.DurationInput | undefined
}

/** `encoding` undefined is stored as '' (a key column cannot be NULL on every database). */
const toColumn = (encoding: string | undefined) => encoding ?? ""
const fromColumn = (encoding: string) => encoding === "" ? undefined : encoding

const HeldRow = Schema.Struct({
  seq: Integer,
  start_line: Integer,
  end_line: Integer,
  hash: Schema.String,
  encoding: Schema.String
})
const Number1 = Schema.Struct({ n: Integer })
const VersionRow = Schema.Struct({
  version: Integer,
  path: Schema.String,
  seqs: Schema.String,
  bytes: Integer,
  hashes_bytes: Integer
})
const ShownRow = Schema.Struct({
  version: Integer,
  hash: Schema.String,
  encoding: Schema.String,
  hashes: Schema.NullOr(Schema.Uint8ArrayFromSelf)
})
const PreviousRow = Schema.Struct({
  version: Integer,
  seqs: Schema.String,
  bytes: Integer,
  no_hashes: Integer
})
const LineRow = Schema.Struct({ line: Integer, text: Schema.String })
const LinesLeftRow = Schema.Struct({ chars: Integer, lines: Integer })
const CharsRow = Schema.Struct({ chars: Integer })
const StatsRow = Schema.Struct({ files: Integer, bytes: Integer })
const PathRow = Schema.Struct({ path: Schema.String, bytes: Integer })
const SessionIdRow = Schema.Struct({ session_id: Schema.String })
const GenerationRow = Schema.Struct({ generation: Integer })

const decode = <A, I>(schema: Schema.Schema<A, I>) => Schema.decodeUnknown(Schema.Array(schema))

/** What a line costs in a kept version, as `layerSession` counts it. */
const lineCost = (chars: number) => 48 + 2 * chars

/** Line hashes to bytes and back (a copy: a driver's buffer need not be aligned for a Float64Array). */
const hashesToBytes = (hashes: Float64Array) => Buffer.from(hashes.buffer, hashes.byteOffset, hashes.byteLength)
const bytesToHashes = (bytes: Uint8Array) => {
  const copy = new Uint8Array(bytes)
  return new Float64Array(copy.buffer, 0, copy.byteLength >> 3)
}

const chunks = <A>(all: ReadonlyArray<A>, size: number): Array<ReadonlyArray<A>> => {
  const out: Array<ReadonlyArray<A>> = []
  for (let i = 0; i < all.length; i += size) out.push(all.slice(i, i + size))
  return out
}

/**
 * The first `seq` of a conversation new to the store: the time in microseconds, so that marks of a
 * conversation dropped as idle and picked up again are never reused (a rewind to an old mark then
 * keeps nothing read since).
 */
const firstSeq = (nowMillis: number) => Math.max(1, Math.floor(nowMillis) * 1000)

/**
 * Session memory over the `SqlClient` in context (already migrated: see `migrate`).
 */
export const make = (
  options: Options = {}
): Effect.Effect<SessionMemoryShape, never, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const patiently = retryWhileLocked(yield* LockTimeout)
    const maxFiles = options.maxFiles ?? 2_000
    const maxReads = options.maxReadsPerFile ?? 32
    const maxSnapshotFiles = options.maxSnapshotFiles ?? 30
    const maxVersions = options.maxVersionsPerFile ?? 4
    const maxSnapshotBytes = options.maxSnapshotBytes ?? 64 * 1024 * 1024

    const rows = <A, I>(schema: Schema.Schema<A, I>, statement: Effect.Effect<ReadonlyArray<unknown>, SqlError>) =>
      Effect.flatMap(statement, decode(schema))

    /** A signal: written in one transaction, or a `SessionMemoryError`. */
    const signal = <A, E>(operation: string, sessionId: string, body: Effect.Effect<A, E>) =>
      patiently(sql.withTransaction(body)).pipe(
        Effect.catchAllDefect((defect) => Effect.fail(defect)),
        Effect.mapError((cause) => new SessionMemoryError({ operation, sessionId, cause })),
        Effect.withSpan(`SessionMemory.${operation}`, { attributes: { sessionId } })
      )

    /** A query or a recording: on a store error, `fallback` (nothing held, nothing recorded) and a warning. */
    const degrade = <A, E>(
      operation: string,
      sessionId: string,
      path: string,
      fallback: A,
      body: Effect.Effect<A, E>
    ) =>
      patiently(body).pipe(
        Effect.catchAllDefect((defect) => Effect.fail(defect)),
        Effect.catchAll((error) =>
          Effect.logWarning(
            `SessionMemory.${operation}: the store failed; ${
              operation === "remember" || operation === "keep" ? "nothing recorded" : "nothing held"
            }`,
            error
          ).pipe(
            Effect.annotateLogs({ sessionId, path }),
            Effect.as(fallback)
          )
        ),
        Effect.withSpan(`SessionMemory.${operation}`, { attributes: { sessionId, path } })
      )

    /** Delete every row of `sessionId` (and `path`, when given) but the session's own. */
    const clear = (sessionId: string, path?: string) =>
      Effect.gen(function*() {
        const onPath = path === undefined ? sql`` : sql` AND path = ${path}`
        yield* sql`DELETE FROM effect_read_held WHERE session_id = ${sessionId}${onPath}`.withoutTransform
        yield* sql`DELETE FROM effect_read_files WHERE session_id = ${sessionId}${onPath}`.withoutTransform
        yield* path === undefined
          ? sql`DELETE FROM effect_read_lines WHERE session_id = ${sessionId}`.withoutTransform
          : sql`DELETE FROM effect_read_lines WHERE session_id = ${sessionId} AND version IN (
              SELECT version FROM effect_read_versions WHERE session_id = ${sessionId} AND path = ${path})`
            .withoutTransform
        yield* sql`DELETE FROM effect_read_versions WHERE session_id = ${sessionId}${onPath}`.withoutTransform
      })

    const touch = (sessionId: string, now: number) =>
      sql`UPDATE effect_read_sessions SET touched_at = ${now} WHERE session_id = ${sessionId}`.withoutTransform

    /** "Only while the conversation is not past the request's generation", when the request states one. */
    const whileCurrent = (generation: number | undefined) =>
      generation === undefined ? sql`` : sql` WHERE effect_read_sessions.generation <= ${generation}`

    /** The next order number of the session (version ids and the order of kept files), or undefined when stale. */
    const nextOrder = (sessionId: string, generation: number | undefined, now: number) =>
      Effect.map(
        rows(
          Number1,
          sql`INSERT INTO effect_read_sessions (session_id, seq, generation, kept, touched_at)
            VALUES (${sessionId}, ${firstSeq(now) - 1}, ${generation ?? 0}, 1, ${now})
            ON CONFLICT (session_id) DO UPDATE SET kept = effect_read_sessions.kept + 1, touched_at = excluded.touched_at${
            whileCurrent(generation)
          }
            RETURNING kept AS n`.withoutTransform
        ),
        (found) => found[0]?.n
      )

    const dropVersions = (sessionId: string, versions: ReadonlyArray<number>) =>
      Effect.forEach(chunks(versions, 500), (some) =>
        Effect.zipRight(
          sql`DELETE FROM effect_read_lines WHERE session_id = ${sessionId} AND version IN ${sql.in(some)}`
            .withoutTransform,
          sql`DELETE FROM effect_read_versions WHERE session_id = ${sessionId} AND version IN ${sql.in(some)}`
            .withoutTransform
        ), { discard: true })

    /** Drop the oldest kept files and versions until the session is within its bounds (as `layerSession`). */
    const bound = (sessionId: string, generation: number | undefined, now: number) =>
      Effect.gen(function*() {
        const [stats] = yield* rows(
          StatsRow,
          sql`SELECT COUNT(DISTINCT path) AS files, COALESCE(SUM(bytes), 0) AS bytes
            FROM effect_read_versions WHERE session_id = ${sessionId}`.withoutTransform
        )
        let files = stats?.files ?? 0
        let bytes = stats?.bytes ?? 0
        while (files > maxSnapshotFiles) {
          const [oldest] = yield* rows(
            PathRow,
            sql`SELECT path, SUM(bytes) AS bytes FROM effect_read_versions WHERE session_id = ${sessionId}
              GROUP BY path ORDER BY MIN(kept) LIMIT 1`.withoutTransform
          )
          if (oldest === undefined) break
          yield* sql`DELETE FROM effect_read_lines WHERE session_id = ${sessionId} AND version IN (
            SELECT version FROM effect_read_versions WHERE session_id = ${sessionId} AND path = ${oldest.path})`
            .withoutTransform
          yield* sql`DELETE FROM effect_read_versions WHERE session_id = ${sessionId} AND path = ${oldest.path}`
            .withoutTransform
          files--
          bytes -= oldest.bytes
        }
        while (bytes > maxSnapshotBytes) {
          const [oldest] = yield* rows(
            VersionRow,
            sql`SELECT version, path, seqs, bytes, hashes_bytes FROM effect_read_versions
              WHERE session_id = ${sessionId} ORDER BY latest, kept LIMIT 1`.withoutTransform
          )
          if (oldest === undefined) break
          yield* dropVersions(sessionId, [oldest.version])
          bytes -= oldest.bytes
          // The file's other versions are set again, so the file moves to the end of the order.
          const order = yield* nextOrder(sessionId, generation, now)
          yield* sql`UPDATE effect_read_versions SET kept = ${order ?? 0}
            WHERE session_id = ${sessionId} AND path = ${oldest.path}`.withoutTransform
        }
      })

    const shape: SessionMemoryShape = {
      enabled: true,
      limits: limitsOf(options),

      held: (sessionId, path) =>
        degrade(
          "held",
          sessionId,
          path,
          [] as ReadonlyArray<Seen>,
          Effect.map(
            rows(
              HeldRow,
              sql`SELECT seq, start_line, end_line, hash, encoding FROM effect_read_held
                WHERE session_id = ${sessionId} AND path = ${path} ORDER BY seq`.withoutTransform
            ),
            (found) =>
              found.map((row): Seen => ({
                seq: row.seq,
                start: row.start_line,
                end: row.end_line,
                hash: row.hash,
                encoding: fromColumn(row.encoding)
              }))
          )
        ),

      remember: (sessionId, path, seen) =>
        Effect.gen(function*() {
          const generation = yield* Generation
          const now = yield* Clock.currentTimeMillis
          return yield* degrade(
            "remember",
            sessionId,
            path,
            0,
            sql.withTransaction(Effect.gen(function*() {
              const [allocated] = yield* rows(
                Number1,
                sql`INSERT INTO effect_read_sessions (session_id, seq, generation, kept, touched_at)
                  VALUES (${sessionId}, ${firstSeq(now)}, ${generation ?? 0}, 0, ${now})
                  ON CONFLICT (session_id) DO UPDATE SET seq = effect_read_sessions.seq + 1, touched_at = excluded.touched_at${
                  whileCurrent(generation)
                }
                  RETURNING seq AS n`.withoutTransform
              )
              if (allocated === undefined) return 0
              const seq = allocated.n
              // Reads of other content are older views the latest read replaced; of this content the newest are kept.
              yield* sql`DELETE FROM effect_read_held WHERE session_id = ${sessionId} AND path = ${path} AND (
                hash <> ${seen.hash} OR seq <= (
                  SELECT seq FROM effect_read_held WHERE session_id = ${sessionId} AND path = ${path} AND hash = ${seen.hash}
                  ORDER BY seq DESC LIMIT 1 OFFSET ${maxReads - 1}))`.withoutTransform
              yield* sql`INSERT INTO effect_read_held (session_id, path, seq, start_line, end_line, hash, encoding)
                VALUES (${sessionId}, ${path}, ${seq}, ${seen.start}, ${seen.end}, ${seen.hash}, ${
                toColumn(seen.encoding)
              })`.withoutTransform
              yield* sql`INSERT INTO effect_read_files (session_id, path, touched) VALUES (${sessionId}, ${path}, ${seq})
                ON CONFLICT (session_id, path) DO UPDATE SET touched = excluded.touched`.withoutTransform
              // Past `maxFiles`: the least recently read file goes.
              const evicted = yield* rows(
                Schema.Struct({ path: Schema.String }),
                sql`DELETE FROM effect_read_files WHERE session_id = ${sessionId} AND touched < (
                  SELECT touched FROM effect_read_files WHERE session_id = ${sessionId}
                  ORDER BY touched DESC LIMIT 1 OFFSET ${maxFiles - 1})
                  RETURNING path`.withoutTransform
              )
              for (const some of chunks(evicted.map((row) => row.path), 500)) {
                yield* sql`DELETE FROM effect_read_held WHERE session_id = ${sessionId} AND path IN ${sql.in(some)}`
                  .withoutTransform
              }
              return seq
            }))
          )
        }),

      mark: (sessionId) =>
        rows(Number1, sql`SELECT seq AS n FROM effect_read_sessions WHERE session_id = ${sessionId}`.withoutTransform)
          .pipe(
            patiently,
            Effect.map((found) => found[0]?.n ?? 0),
            Effect.catchAllDefect((defect) => Effect.fail(defect)),
            Effect.mapError((cause) => new SessionMemoryError({ operation: "mark", sessionId, cause })),
            Effect.withSpan("SessionMemory.mark", { attributes: { sessionId } })
          ),

      compacted: (sessionId) =>
        signal(
          "compacted",
          sessionId,
          Effect.gen(function*() {
            yield* clear(sessionId)
            yield* touch(sessionId, yield* Clock.currentTimeMillis)
          })
        ),

      forget: (sessionId, path) =>
        signal(
          "forget",
          sessionId,
          Effect.gen(function*() {
            yield* clear(sessionId, path)
            yield* touch(sessionId, yield* Clock.currentTimeMillis)
          })
        ),

      rewound: (sessionId, to) =>
        signal(
          "rewound",
          sessionId,
          Effect.gen(function*() {
            yield* sql`DELETE FROM effect_read_held WHERE session_id = ${sessionId} AND seq > ${to}`.withoutTransform
            yield* sql`DELETE FROM effect_read_files WHERE session_id = ${sessionId} AND NOT EXISTS (
              SELECT 1 FROM effect_read_held h
              WHERE h.session_id = effect_read_files.session_id AND h.path = effect_read_files.path)`.withoutTransform
            // What reads after the mark showed is gone: those lines, and versions no read before it showed.
            const affected = yield* rows(
              VersionRow,
              sql`SELECT version, path, seqs, bytes, hashes_bytes FROM effect_read_versions
                WHERE session_id = ${sessionId} AND latest > ${to}`.withoutTransform
            )
            const emptied: Array<number> = []
            for (const version of affected) {
              const seqs = (JSON.parse(version.seqs) as Array<number>).filter((seq) => seq <= to)
              if (seqs.length === 0) {
                emptied.push(version.version)
                continue
              }
              yield* sql`DELETE FROM effect_read_lines
                WHERE session_id = ${sessionId} AND version = ${version.version} AND seq > ${to}`.withoutTransform
              const [left] = yield* rows(
                LinesLeftRow,
                sql`SELECT COALESCE(SUM(chars), 0) AS chars, COUNT(*) AS lines FROM effect_read_lines
                  WHERE session_id = ${sessionId} AND version = ${version.version}`.withoutTransform
              )
              const bytes = 64 + version.hashes_bytes + 2 * (left?.chars ?? 0) + 48 * (left?.lines ?? 0)
              yield* sql`UPDATE effect_read_versions SET seqs = ${
                JSON.stringify(seqs)
              }, latest = ${seqs[seqs.length - 1]!}, bytes = ${bytes}
                WHERE session_id = ${sessionId} AND version = ${version.version}`.withoutTransform
            }
            yield* dropVersions(sessionId, emptied)
            yield* touch(sessionId, yield* Clock.currentTimeMillis)
          })
        ),

      advance: (sessionId, generation) =>
        Effect.gen(function*() {
          const known = yield* rows(
            GenerationRow,
            sql`SELECT generation FROM effect_read_sessions WHERE session_id = ${sessionId}`.withoutTransform
          ).pipe(
            patiently,
            Effect.mapError((cause) => new SessionMemoryError({ operation: "advance", sessionId, cause }))
          )
          if (known[0] !== undefined && known[0].generation === generation) return true
          if (known[0] !== undefined && known[0].generation > generation) return false
          const now = yield* Clock.currentTimeMillis
          return yield* signal(
            "advance",
            sessionId,
            Effect.gen(function*() {
              yield* sql`INSERT INTO effect_read_sessions (session_id, seq, generation, kept, touched_at)
                VALUES (${sessionId}, ${firstSeq(now) - 1}, ${generation}, 0, ${now})
                ON CONFLICT (session_id) DO NOTHING`.withoutTransform
              const raised = yield* rows(
                SessionIdRow,
                sql`UPDATE effect_read_sessions SET generation = ${generation}, touched_at = ${now}
                  WHERE session_id = ${sessionId} AND generation < ${generation}
                  RETURNING session_id`.withoutTransform
              )
              // A compaction: nothing held before it is in the context any more.
              if (raised.length > 0) yield* clear(sessionId)
              const [now_] = yield* rows(
                GenerationRow,
                sql`SELECT generation FROM effect_read_sessions WHERE session_id = ${sessionId}`.withoutTransform
              )
              return (now_?.generation ?? generation) <= generation
            })
          )
        }),

      lastShown: (sessionId, path) =>
        degrade(
          "lastShown",
          sessionId,
          path,
          undefined as Snapshot | undefined,
          Effect.gen(function*() {
            const [newest] = yield* rows(
              ShownRow,
              sql`SELECT version, hash, encoding, hashes FROM effect_read_versions
                WHERE session_id = ${sessionId} AND path = ${path} ORDER BY latest DESC LIMIT 1`.withoutTransform
            )
            if (newest === undefined) return undefined
            const lines = yield* rows(
              LineRow,
              sql`SELECT line, text FROM effect_read_lines
                WHERE session_id = ${sessionId} AND version = ${newest.version} ORDER BY line`.withoutTransform
            )
            const snapshot: Snapshot = {
              hash: newest.hash,
              encoding: fromColumn(newest.encoding),
              hashes: newest.hashes === null ? undefined : bytesToHashes(newest.hashes),
              lines: new Map(lines.map((row) => [row.line, row.text]))
            }
            return snapshot
          })
        ),

      keep: (sessionId, path, seq, shown) =>
        Effect.gen(function*() {
          const generation = yield* Generation
          const now = yield* Clock.currentTimeMillis
          yield* degrade(
            "keep",
            sessionId,
            path,
            undefined,
            sql.withTransaction(Effect.gen(function*() {
              const order = yield* nextOrder(sessionId, generation, now)
              if (order === undefined) return
              const encoding = toColumn(shown.encoding)
              const [previous] = yield* rows(
                PreviousRow,
                sql`SELECT version, seqs, bytes, CASE WHEN hashes IS NULL THEN 1 ELSE 0 END AS no_hashes FROM effect_read_versions
                  WHERE session_id = ${sessionId} AND path = ${path} AND hash = ${shown.hash} AND encoding = ${encoding}`
                  .withoutTransform
              )
              const version = previous?.version ?? order
              // A line shown before keeps the read that first showed it.
              const seen = new Set<number>()
              const lines = shown.lines.filter(([line]) => !seen.has(line) && (seen.add(line), true)).map((
                [line, text]
              ) => ({ session_id: sessionId, version, line, text, chars: text.length, seq }))
              let added = 0
              for (const some of chunks(lines, 500)) {
                const inserted = yield* rows(
                  CharsRow,
                  previous === undefined
                    ? sql`INSERT INTO effect_read_lines ${sql.insert(some)} RETURNING chars`.withoutTransform
                    : sql`INSERT INTO effect_read_lines ${sql.insert(some)}
                      ON CONFLICT (session_id, version, line) DO NOTHING RETURNING chars`.withoutTransform
                )
                for (const row of inserted) added += lineCost(row.chars)
              }
              const seqs = [...(previous === undefined ? [] : JSON.parse(previous.seqs) as Array<number>), seq].slice(
                -maxReads
              )
              if (previous === undefined) {
                const hashesBytes = shown.hashes?.byteLength ?? 0
                yield* sql`INSERT INTO effect_read_versions
                  (session_id, version, path, hash, encoding, hashes, hashes_bytes, seqs, latest, bytes, kept)
                  VALUES (${sessionId}, ${version}, ${path}, ${shown.hash}, ${encoding}, ${
                  shown.hashes === undefined ? null : hashesToBytes(shown.hashes)
                }, ${hashesBytes}, ${JSON.stringify(seqs)}, ${seqs[seqs.length - 1]!}, ${
                  64 + hashesBytes + added
                }, ${order})`.withoutTransform
              } else if (previous.no_hashes === 1 && shown.hashes !== undefined) {
                // Kept without line hashes before (its lines did not match then): they come now.
                yield* sql`UPDATE effect_read_versions SET seqs = ${
                  JSON.stringify(seqs)
                }, latest = ${seqs[seqs.length - 1]!}, bytes = ${
                  previous.bytes + added + shown.hashes.byteLength
                }, hashes = ${hashesToBytes(shown.hashes)}, hashes_bytes = ${shown.hashes.byteLength}
                  WHERE session_id = ${sessionId} AND version = ${version}`.withoutTransform
              } else {
                yield* sql`UPDATE effect_read_versions SET seqs = ${
                  JSON.stringify(seqs)
                }, latest = ${seqs[seqs.length - 1]!}, bytes = ${previous.bytes + added}
                  WHERE session_id = ${sessionId} AND version = ${version}`.withoutTransform
              }
              // The newest `maxVersions` versions of the file stay, and the file moves to the end of the order.
              const dropped = yield* rows(
                Number1,
                sql`SELECT version AS n FROM effect_read_versions WHERE session_id = ${sessionId} AND path = ${path}
                  AND latest < (SELECT latest FROM effect_read_versions WHERE session_id = ${sessionId} AND path = ${path}
                    ORDER BY latest DESC LIMIT 1 OFFSET ${maxVersions - 1})`.withoutTransform
              )
              yield* dropVersions(sessionId, dropped.map((row) => row.n))
              yield* sql`UPDATE effect_read_versions SET kept = ${order} WHERE session_id = ${sessionId} AND path = ${path}`
                .withoutTransform
              yield* bound(sessionId, generation, now)
            }))
          )
        })
    }
    return shape
  })

/**
 * Drop the conversations with no write for `idleTimeout` (their reads, versions and session row);
 * returns how many. The layer runs it on a schedule; a host may run it too.
 */
export const prune = (idleTimeout: Duration.DurationInput): Effect.Effect<number, SqlError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const patiently = retryWhileLocked(yield* LockTimeout)
    const cutoff = (yield* Clock.currentTimeMillis) - Duration.toMillis(idleTimeout)
    const stale = yield* patiently(
      sql<{ readonly session_id: string }>`DELETE FROM effect_read_sessions
      WHERE touched_at < ${cutoff} RETURNING session_id`.withoutTransform
    )
    for (const some of chunks(stale.map((row) => row.session_id), 500)) {
      yield* patiently(sql.withTransaction(Effect.forEach(
        ["effect_read_held", "effect_read_files", "effect_read_lines", "effect_read_versions"],
        (table) => sql`DELETE FROM ${sql(table)} WHERE session_id IN ${sql.in(some)}`.withoutTransform,
        { discard: true }
      )))
    }
    return stale.length
  }).pipe(Effect.withSpan("SqlSessionMemory.prune"))

/**
 * Session memory on the `SqlClient` the host provides: runs the migrations, then drops idle
 * conversations now and every `pruneEvery` for as long as the layer lives (a failed pass is logged
 * and tried again at the next).
 */
export const layerClient = (
  options: Options = {}
): Layer.Layer<SessionMemory, Migrator.MigrationError | SqlError, SqlClient.SqlClient> =>
  Layer.scoped(
    SessionMemory,
    Effect.gen(function*() {
      yield* migrate
      const idle = Duration.decode(options.idleTimeout ?? "24 hours")
      const every = options.pruneEvery === undefined
        ? Duration.min(idle, Duration.hours(1))
        : Duration.decode(options.pruneEvery)
      yield* prune(idle).pipe(
        Effect.catchAllCause((cause) =>
          Effect.logWarning("SqlSessionMemory: dropping idle conversations failed", cause)
        ),
        Effect.repeat(Schedule.spaced(every)),
        Effect.forkScoped
      )
      return yield* make(options)
    })
  )
