/**
 * The SQL store shared by `SqlFileTime` (the ledger) and `SqlSessionMemory`: one list of
 * migrations in one table (`effect_read_migrations`), per dialect, and what both need to read
 * rows back whatever the driver.
 *
 * SQLite and PostgreSQL are supported. The SQLite statements of migrations 1 and 2 are the ones
 * `SqliteFileTime` has always run, byte for byte: a ledger file made by an older version opens
 * unchanged, and gains the later migrations.
 */
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import { LockTimeout } from "../../Limits.js"

/**
 * The migrations table this store owns. Not `@effect/sql`'s default (`effect_sql_migrations`),
 * so the store can live in a database whose owner runs migrations of their own.
 */
export const migrationsTable = "effect_read_migrations"

export type Dialect = "sqlite" | "pg" | "mysql" | "mssql" | "clickhouse"

export const dialectOf = (sql: SqlClient.SqlClient): Dialect =>
  sql.onDialect({
    sqlite: () => "sqlite" as const,
    pg: () => "pg" as const,
    mysql: () => "mysql" as const,
    mssql: () => "mssql" as const,
    clickhouse: () => "clickhouse" as const
  })

/** The dialect's name for people: "the SQLite ledger", "the PostgreSQL ledger". */
export const dialectName = (sql: SqlClient.SqlClient): string =>
  sql.onDialectOrElse({ sqlite: () => "SQLite", pg: () => "PostgreSQL", orElse: () => "SQL" })

export { LockTimeout } from "../../Limits.js"

/**
 * SQLite's busy timeout on the connections our layers open: how long one statement waits inside
 * SQLite for a lock. better-sqlite3 waits synchronously, freezing the process's event loop (every
 * fiber, every request) for as long: kept short, and the wait goes on asynchronously
 * (`retryWhileLocked`) for up to `LockTimeout`.
 */
export const sqliteBusyTimeoutMillis = 50

/** The driver's code of an error: better-sqlite3's `SQLITE_BUSY`…, pg's SQLSTATE. */
const codeOf = (error: unknown): string | undefined => {
  const code = (error as { readonly cause?: { readonly code?: unknown } } | undefined)?.cause?.code
  return typeof code === "string" ? code : undefined
}

/**
 * A failure that only says another connection holds a lock, so the same work may succeed if tried
 * again: SQLite's SQLITE_BUSY (and its extended codes) or SQLITE_LOCKED; PostgreSQL's
 * serialization_failure (40001), deadlock_detected (40P01) or lock_not_available (55P03).
 */
export const isLocked = (error: unknown): error is SqlError => {
  if (!(error instanceof SqlError)) return false
  const code = codeOf(error)
  return code !== undefined &&
    (/^SQLITE_(BUSY|LOCKED)/.test(code) || code === "40001" || code === "40P01" || code === "55P03")
}

/** Retries: quickly at first, then every 250 ms or so (jittered, so that waiting processes do not keep colliding). */
const lockRetries = (timeout: Duration.Duration) =>
  Schedule.exponential("10 millis", 1.5).pipe(
    Schedule.union(Schedule.spaced("250 millis")),
    Schedule.jittered,
    Schedule.upTo(timeout)
  )

/**
 * `self` (a statement or a whole transaction: it must be safe to run again) tried again while it
 * fails only because another connection holds a lock, for up to `timeout`; then a `SqlError` that
 * says so. A `COMMIT` refused that way (a PostgreSQL serialization failure is often told at
 * commit) is a defect of `withTransaction`'s, taken here as the failure it is: the transaction was
 * rolled back. Inside a transaction of the caller's it runs once: the caller's transaction is what
 * would have to be tried again.
 */
export const retryWhileLocked =
  (timeout: Duration.Duration) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError, R> =>
    Effect.flatMap(
      Effect.serviceOption(SqlClient.TransactionConnection),
      (transaction) =>
        Option.isSome(transaction) ? self : self.pipe(
          Effect.catchSomeDefect((defect) => isLocked(defect) ? Option.some(Effect.fail(defect)) : Option.none()),
          Effect.retry({ while: isLocked, schedule: lockRetries(timeout) }),
          Effect.mapError((error): E | SqlError =>
            isLocked(error)
              ? new SqlError({
                cause: error.cause,
                message: `The store stayed locked by another connection for ${Duration.format(timeout)} (${
                  codeOf(error)
                }); gave up`
              })
              : error
          )
        )
    )

/**
 * How our layers open a SQLite file with `@effect/sql-sqlite-node` (then `configureSqlite`):
 *
 * - WAL is set by `configureSqlite`, not by the client, whose own switch fails at once (a defect)
 *   when another process holds the file at that moment.
 * - Prepared statements are cached for a second, not ten minutes: the client's cache keeps a
 *   statement that failed to prepare (preparing reads the schema, which another process may hold
 *   locked for a moment, e.g. while it switches a new file to WAL) and answers that failure to
 *   every retry for as long as the entry lives. Preparing again once a second costs microseconds.
 */
export const sqliteClientOptions = (filename: string) => ({
  filename,
  disableWAL: true,
  prepareCacheTTL: Duration.seconds(1)
})

/**
 * What our layers do when they open a SQLite file: a short busy timeout (`sqliteBusyTimeoutMillis`,
 * the rest of a wait is `retryWhileLocked`'s) and WAL journal mode (readers never block the
 * writer, and processes share the file), set through the client so that a file another process
 * holds at that moment is waited for rather than a failure.
 */
export const configureSqlite: Effect.Effect<void, SqlError, SqlClient.SqlClient> = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`PRAGMA busy_timeout = ${sqliteBusyTimeoutMillis}`).withoutTransform
  yield* retryWhileLocked(yield* LockTimeout)(sql.unsafe("PRAGMA journal_mode = WAL").withoutTransform)
})

/** Run every statement in order (one statement per call: no driver here takes several with parameters). */
const statements = (sql: SqlClient.SqlClient, all: ReadonlyArray<string>) =>
  Effect.forEach(all, (statement) => sql.unsafe(statement).withoutTransform, { discard: true })

/** Session memory's tables; integers are BIGINT (64-bit: SQLite's INTEGER already is, PostgreSQL's is not). */
const sessionMemoryTables = (blob: string) => [
  // One row per conversation: the latest read's seq (what `mark` answers), the generation it is
  // at, a counter ordering kept files and versions, and when it was last written (idle expiry).
  `CREATE TABLE IF NOT EXISTS effect_read_sessions (
    session_id TEXT NOT NULL PRIMARY KEY,
    seq BIGINT NOT NULL,
    generation BIGINT NOT NULL,
    kept BIGINT NOT NULL,
    touched_at BIGINT NOT NULL
  )`,
  `CREATE INDEX IF NOT EXISTS effect_read_sessions_touched_at ON effect_read_sessions (touched_at)`,
  // The reads each session holds: lines start_line-end_line of the content with `hash` (encoding
  // '' when none was named).
  `CREATE TABLE IF NOT EXISTS effect_read_held (
    session_id TEXT NOT NULL,
    path TEXT NOT NULL,
    seq BIGINT NOT NULL,
    start_line BIGINT NOT NULL,
    end_line BIGINT NOT NULL,
    hash TEXT NOT NULL,
    encoding TEXT NOT NULL,
    PRIMARY KEY (session_id, path, seq)
  )`,
  // The files holding reads, by when they were last remembered (the least recent dropped first).
  `CREATE TABLE IF NOT EXISTS effect_read_files (
    session_id TEXT NOT NULL,
    path TEXT NOT NULL,
    touched BIGINT NOT NULL,
    PRIMARY KEY (session_id, path)
  )`,
  `CREATE INDEX IF NOT EXISTS effect_read_files_touched ON effect_read_files (session_id, touched)`,
  // Versions kept for change notices: the line hashes of the whole version, the reads (`seqs`,
  // a JSON array) that showed it, its cost in bytes, and `kept`, the order of its file.
  `CREATE TABLE IF NOT EXISTS effect_read_versions (
    session_id TEXT NOT NULL,
    version BIGINT NOT NULL,
    path TEXT NOT NULL,
    hash TEXT NOT NULL,
    encoding TEXT NOT NULL,
    hashes ${blob},
    hashes_bytes BIGINT NOT NULL,
    seqs TEXT NOT NULL,
    latest BIGINT NOT NULL,
    bytes BIGINT NOT NULL,
    kept BIGINT NOT NULL,
    PRIMARY KEY (session_id, version)
  )`,
  `CREATE INDEX IF NOT EXISTS effect_read_versions_path ON effect_read_versions (session_id, path)`,
  // The lines a version showed, with the read that first showed each and its length (UTF-16 units).
  `CREATE TABLE IF NOT EXISTS effect_read_lines (
    session_id TEXT NOT NULL,
    version BIGINT NOT NULL,
    line BIGINT NOT NULL,
    text TEXT NOT NULL,
    chars BIGINT NOT NULL,
    seq BIGINT NOT NULL,
    PRIMARY KEY (session_id, version, line)
  )`
]

/** The schema, one migration per entry (`<id>_<name>`), applied in id order exactly once. */
export const migrations: Record<string, Effect.Effect<void, unknown, SqlClient.SqlClient>> = {
  "1_create_file_reads": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // mtime and hash are nullable: not every filesystem reports an mtime, and files over
    // `FileTime.maxHashBytes` are not hashed.
    yield* sql.onDialectOrElse({
      sqlite: () =>
        sql`CREATE TABLE IF NOT EXISTS file_reads (
      session_id TEXT NOT NULL,
      path TEXT NOT NULL,
      read_at INTEGER NOT NULL,
      size INTEGER NOT NULL,
      mtime INTEGER,
      hash TEXT,
      PRIMARY KEY (session_id, path)
    ) WITHOUT ROWID`.withoutTransform,
      // Epoch milliseconds overflow a 32-bit INTEGER.
      orElse: () =>
        sql`CREATE TABLE IF NOT EXISTS file_reads (
      session_id TEXT NOT NULL,
      path TEXT NOT NULL,
      read_at BIGINT NOT NULL,
      size BIGINT NOT NULL,
      mtime BIGINT,
      hash TEXT,
      PRIMARY KEY (session_id, path)
    )`.withoutTransform
    })
  }),
  "2_create_file_read_ranges": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // What each session was shown of each file: line ranges (merged) per content hash, and the
    // hashes at which it saw the whole file (`start_line` 0).
    yield* sql.onDialectOrElse({
      sqlite: () =>
        sql`CREATE TABLE IF NOT EXISTS file_read_ranges (
      session_id TEXT NOT NULL,
      path TEXT NOT NULL,
      hash TEXT NOT NULL,
      start_line INTEGER NOT NULL,
      end_line INTEGER NOT NULL,
      seq INTEGER NOT NULL,
      PRIMARY KEY (session_id, path, hash, start_line)
    ) WITHOUT ROWID`.withoutTransform,
      orElse: () =>
        sql`CREATE TABLE IF NOT EXISTS file_read_ranges (
      session_id TEXT NOT NULL,
      path TEXT NOT NULL,
      hash TEXT NOT NULL,
      start_line BIGINT NOT NULL,
      end_line BIGINT NOT NULL,
      seq BIGINT NOT NULL,
      PRIMARY KEY (session_id, path, hash, start_line)
    )`.withoutTransform
    })
  }),
  "3_create_session_memory": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* statements(sql, sessionMemoryTables(sql.onDialectOrElse({ pg: () => "BYTEA", orElse: () => "BLOB" })))
  }),
  "4_create_forks": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // The sessions forked from another (a subagent's from its parent's), each once: the ledger
    // copies the parent's rows at the first fork only.
    yield* sql`CREATE TABLE IF NOT EXISTS effect_read_forks (
      session_id TEXT NOT NULL PRIMARY KEY,
      parent TEXT NOT NULL,
      forked_at BIGINT NOT NULL
    )`.withoutTransform
  })
}

/** The newest migration id: a store at it is up to date. */
const latestId = Math.max(...Object.keys(migrations).map((key) => Number(key.split("_")[0])))

const migrator = Migrator.make({})({ loader: Migrator.fromRecord(migrations), table: migrationsTable })

/** Another process holds the migrations (SQLite: its transaction is not committed yet). */
class NotYetMigrated extends Data.TaggedError("NotYetMigrated")<{ readonly latest: number }> {}

/** Serialises first boots on PostgreSQL (any constant: it names the lock). */
const advisoryLock = 7_305_372_149

/**
 * Bring the database up to date (idempotent), also when several processes start at once on an
 * empty database, and when another process holds the database for a while:
 *
 * - PostgreSQL: `@effect/sql`'s Migrator creates its table without `IF NOT EXISTS`, outside its
 *   transaction, and concurrent first boots collide (`pg_type_typname_nsp_index`). The table is
 *   created here first, under a transaction-scoped advisory lock; the Migrator's own
 *   `LOCK TABLE … ACCESS EXCLUSIVE` then serialises the rest.
 * - SQLite: a process whose migration transaction loses the race is told "locked" and moves on;
 *   the migrations are checked afterwards and, while another process has not committed them,
 *   checked again.
 * - Either: a statement refused because another connection holds a lock (`isLocked`) is tried
 *   again. Both waits last up to `LockTimeout` (default 60 s), then a `MigrationError` ("locked")
 *   says what it waited for.
 *
 * Other dialects fail with a `MigrationError` saying which are supported.
 */
export const migrate: Effect.Effect<
  ReadonlyArray<readonly [id: number, name: string]>,
  Migrator.MigrationError | SqlError,
  SqlClient.SqlClient
> = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const dialect = dialectOf(sql)
  if (dialect !== "sqlite" && dialect !== "pg") {
    return yield* new Migrator.MigrationError({
      reason: "failed",
      message: `effect-read's SQL store runs on SQLite and PostgreSQL; this SqlClient's dialect is ${dialect}`
    })
  }
  const timeout = yield* LockTimeout
  const once = Effect.gen(function*() {
    if (dialect === "pg") {
      yield* sql.withTransaction(
        sql`SELECT pg_advisory_xact_lock(${advisoryLock})`.pipe(
          Effect.zipRight(sql`CREATE TABLE IF NOT EXISTS ${sql(migrationsTable)} (
  migration_id integer primary key,
  created_at timestamp with time zone not null default now(),
  name text not null
)`)
        )
      )
    }
    const applied = yield* migrator
    const [row] = yield* sql<{ readonly latest: unknown }>`SELECT MAX(migration_id) AS latest FROM ${
      sql(migrationsTable)
    }`.withoutTransform
    const latest = Number(row?.latest ?? 0)
    if (latest < latestId) return yield* new NotYetMigrated({ latest })
    return applied
  })
  return yield* once.pipe(
    Effect.retry({
      while: (error) => error._tag === "NotYetMigrated" || isLocked(error),
      schedule: lockRetries(timeout)
    }),
    Effect.catchIf(
      (error) => error._tag === "NotYetMigrated" || isLocked(error),
      (error) =>
        Effect.fail(
          new Migrator.MigrationError({
            reason: "locked",
            message: error._tag === "NotYetMigrated"
              ? `The store's migrations are still at ${error.latest} of ${latestId} after ${
                Duration.format(timeout)
              }: another process holds them`
              : `The store stayed locked by another connection for ${
                Duration.format(timeout)
              }: its migrations could not be checked`
          })
        )
    )
  )
})

/**
 * An integer column as any driver returns it: a number (SQLite, PostgreSQL's int4), a string
 * (`pg`'s int8, so that no precision is lost) or a bigint. Decoded to a number when it is a safe
 * integer; anything else is a decoding failure, never a wrong number.
 */
export const Integer: Schema.Schema<number, number | string | bigint> = Schema.transformOrFail(
  Schema.Union(Schema.Number, Schema.String, Schema.BigIntFromSelf),
  Schema.Number,
  {
    strict: true,
    decode: (value, _, ast) => {
      if (typeof value === "number") return ParseResult.succeed(value)
      const n = typeof value === "bigint" ? Number(value) : /^-?\d+$/.test(value) ? Number(value) : NaN
      return Number.isSafeInteger(n)
        ? ParseResult.succeed(n)
        : ParseResult.fail(new ParseResult.Type(ast, value, `Expected a safe integer, actual ${String(value)}`))
    },
    encode: (n) => ParseResult.succeed(n)
  }
)
