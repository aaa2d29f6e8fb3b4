/**
 * A persistent `FileTime` ledger on SQLite (`@effect/sql-sqlite-node`): an agent server that
 * restarts still knows what each session read. One database file, WAL journal mode, the tables
 * created by `@effect/sql` migrations.
 *
 * The ledger itself is `SqlFileTime`, over any `SqlClient`; this module is its SQLite
 * convenience (`layer({ filename })`) and keeps the names it has always had (`migrations`,
 * `migrate`, `make`, `layerClient`).
 *
 * A separate module from `FileTime` on purpose: importing `FileTime` never loads better-sqlite3.
 */
import type * as FileSystem from "@effect/platform/FileSystem"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import type * as Migrator from "@effect/sql/Migrator"
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type { ConfigError } from "effect/ConfigError"
import * as Layer from "effect/Layer"
import type { FileTime } from "./FileTime.js"
import { configureSqlite, sqliteClientOptions } from "./internal/store/sql.js"
import { layerClient } from "./SqlFileTime.js"

export { layerClient, LockTimeout, make, maxUnsaved, migrate, migrations, migrationsTable } from "./SqlFileTime.js"

export interface Options {
  /** The database file (its directory must exist); created and migrated on first use. */
  readonly filename: string
  /** Extra attributes on every `sql.execute` span. */
  readonly spanAttributes?: Record<string, unknown> | undefined
}

/**
 * The ledger in its own SQLite file, in WAL journal mode (readers never block the writer, and
 * several processes can share the file), with a short busy timeout: a lock another process holds
 * is waited for without freezing this one, for up to `LockTimeout` (see `SqlFileTime`). The
 * connection is opened when the layer is built and closed when its scope closes.
 */
export const layer = (
  options: Options
): Layer.Layer<FileTime, Migrator.MigrationError | SqlError | ConfigError, FileSystem.FileSystem> =>
  layerClient.pipe(Layer.provide(sqliteClient(options.filename, options.spanAttributes)))

/**
 * A `SqliteClient` on `filename` as the store needs it, also when other processes hold the file
 * for a while: WAL, a short busy timeout, and prepared statements cached for a second (a statement
 * that failed to prepare while the file was locked is not answered from the cache for long).
 */
export const sqliteClient = (
  filename: string,
  spanAttributes?: Record<string, unknown> | undefined
): Layer.Layer<SqliteClient.SqliteClient | SqlClient.SqlClient, SqlError | ConfigError> =>
  Layer.effectDiscard(configureSqlite).pipe(
    Layer.provideMerge(SqliteClient.layer({ ...sqliteClientOptions(filename), spanAttributes }))
  )
