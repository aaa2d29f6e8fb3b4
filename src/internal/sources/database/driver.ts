/**
 * The SQLite driver: better-sqlite3 as `@effect/sql-sqlite-node` ships it, loaded on the first
 * database read (importing `read` never loads the native module) and opened so that nothing a
 * selector or query does can change a file.
 *
 * Why not `SqliteClient`: it returns rows as objects (duplicate column names collapse, an empty
 * result has no column names), reads a whole result before returning (a raw query cannot stop at
 * its row cap), and hides the statement's `reader`/`readonly` flags, which are what refuse
 * `VACUUM INTO`, `CREATE TEMP TABLE` or `PRAGMA query_only = OFF` — statements a read-only
 * connection with `query_only` on still runs.
 *
 * Connections are opened here (for the schema and the table list) and in the query process
 * (`workers/sqlite-query.mjs`, for statements that read rows) from the same `Source` and pragmas.
 */
import { createRequire } from "node:module"

export interface ColumnInfo {
  readonly name: string
}

/** The part of better-sqlite3's `Statement` we use. */
export interface Statement {
  /** The statement returns rows. */
  readonly reader: boolean
  /** The statement cannot change the database (`sqlite3_stmt_readonly`). */
  readonly readonly: boolean
  raw(toggle?: boolean): Statement
  columns(): Array<ColumnInfo>
  /** Bind parameters for good; with none, throws when the statement has parameters. */
  bind(...params: ReadonlyArray<unknown>): Statement
  iterate(...params: ReadonlyArray<unknown>): IterableIterator<Array<unknown>>
  all(...params: ReadonlyArray<unknown>): Array<Array<unknown>>
}

/** The part of better-sqlite3's `Database` we use. */
export interface Connection {
  prepare(sql: string): Statement
  pragma(source: string): unknown
  defaultSafeIntegers(toggle?: boolean): Connection
  close(): void
}

interface Options {
  readonly readonly?: boolean
  readonly fileMustExist?: boolean
  readonly timeout?: number
}

type Constructor = new(source: string | Buffer, options?: Options) => Connection

/**
 * What a connection reads: a database file on this disk (a rollback-journal database, opened in
 * place), or the bytes of one (a WAL database's committed pages, a MemoryFileSystem file).
 */
export type Source = string | Uint8Array

/** Milliseconds a read waits for a writer's lock before it fails. */
export const BUSY_TIMEOUT_MS = 3000

/** Set on every connection: `query_only` as a second guard, `trusted_schema` off for code in the schema. */
export const CONNECTION_PRAGMAS: ReadonlyArray<string> = ["query_only = ON", "trusted_schema = OFF"]

let driver: Constructor | undefined

/**
 * Where better-sqlite3 is: resolved from `@effect/sql-sqlite-node` when that is installed, so the
 * copy it was built for is used; otherwise on its own. Throws `MODULE_NOT_FOUND` when neither is.
 */
export const driverPath = (): string => {
  const here = createRequire(import.meta.url)
  let effectSql: string | undefined
  try {
    effectSql = here.resolve("@effect/sql-sqlite-node/package.json")
  } catch {
    effectSql = undefined
  }
  return effectSql === undefined ? here.resolve("better-sqlite3") : createRequire(effectSql).resolve("better-sqlite3")
}

/**
 * The driver, once its native addon is known to load: better-sqlite3 loads the addon only when a
 * database is opened, so an addon never built (a clone of this repository before `npm run
 * sqlite`) or built for another Node would otherwise surface as a failed open. Either is the
 * package not being there: `MODULE_NOT_FOUND`, which `OptionalPackages` reports as missing.
 */
const load = (): Constructor => {
  if (driver === undefined) {
    const Database = createRequire(import.meta.url)(driverPath()) as Constructor
    try {
      new Database(":memory:").close()
    } catch (error) {
      throw Object.assign(new Error(`better-sqlite3's native addon does not load: ${(error as Error).message}`), {
        code: "MODULE_NOT_FOUND",
        cause: error
      })
    }
    driver = Database
  }
  return driver
}

/** Load the driver (for `OptionalPackages`): its constructor and where it is. */
export const loadDriver = (): { readonly default: unknown; readonly path: string } => ({
  default: load(),
  path: driverPath()
})

/**
 * Open a database read-only. Every connection has `CONNECTION_PRAGMAS`, integers as `bigint`
 * (no precision lost above 2^53) and a busy timeout. Throws what better-sqlite3 throws.
 */
export const open = (source: Source): Connection => {
  const Database = load()
  const db = typeof source === "string"
    ? new Database(source, { readonly: true, fileMustExist: true, timeout: BUSY_TIMEOUT_MS })
    : new Database(Buffer.from(source.buffer, source.byteOffset, source.byteLength), {
      readonly: true,
      timeout: BUSY_TIMEOUT_MS
    })
  try {
    for (const pragma of CONNECTION_PRAGMAS) db.pragma(pragma)
    db.defaultSafeIntegers(true)
    return db
  } catch (error) {
    db.close()
    throw error
  }
}
