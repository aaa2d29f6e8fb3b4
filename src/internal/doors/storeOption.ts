/**
 * `--store <sqlite:FILE | postgres://…>`: the ledger and, when asked, session memory on a SQL
 * store that every process of a host can reach. The client is loaded only when a store is named
 * (better-sqlite3 through `@effect/sql-sqlite-node`, or `@effect/sql-pg`).
 */
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as SqlClient from "@effect/sql/SqlClient"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as nodePath from "node:path"
import type { FileTime } from "../../FileTime.js"
import * as SessionMemory from "../../SessionMemory.js"
import * as SqlFileTime from "../../SqlFileTime.js"
import * as SqlSessionMemory from "../../SqlSessionMemory.js"
import { configureSqlite, sqliteClientOptions } from "../store/sql.js"

export type StoreSpec =
  | { readonly _tag: "sqlite"; readonly filename: string }
  | { readonly _tag: "pg"; readonly url: string }

const usage = "expected sqlite:FILE or a postgres:// (postgresql://) URL"

/** `sqlite:FILE` (relative to `cwd`) or `postgres://…` / `postgresql://…`; else what is wrong. */
export const parseStore = (text: string, cwd: string): Either.Either<StoreSpec, string> => {
  if (text.startsWith("sqlite:")) {
    const filename = text.slice("sqlite:".length)
    if (filename === "") return Either.left(`--store ${text}: the file is missing (${usage})`)
    return Either.right({
      _tag: "sqlite",
      filename: filename === ":memory:" ? filename : nodePath.resolve(cwd, filename)
    })
  }
  if (/^postgres(ql)?:\/\//.test(text)) {
    try {
      new URL(text)
    } catch {
      return Either.left(`--store: not a valid URL (${usage})`)
    }
    return Either.right({ _tag: "pg", url: text })
  }
  return Either.left(`--store ${text.length > 80 ? `${text.slice(0, 80)}…` : text}: ${usage}`)
}

/** The store as it may be shown: a PostgreSQL URL without its password. */
export const describeStore = (spec: StoreSpec): string => {
  if (spec._tag === "sqlite") return `sqlite:${spec.filename}`
  const url = new URL(spec.url)
  if (url.password !== "") url.password = "***"
  return url.toString()
}

/** A store that could not be opened: what to tell the person who named it. */
export class StoreError extends Error {
  constructor(readonly store: string, reason: string) {
    super(`cannot open the store ${store}: ${reason}`)
  }
}

const reasonOf = (error: unknown): string => {
  const cause = (error as { cause?: unknown } | undefined)?.cause
  const own = error instanceof Error ? error.message : String(error)
  const deeper = cause instanceof Error ? cause.message : undefined
  return deeper !== undefined && deeper !== own ? `${own} (${deeper})` : own
}

const missing = (store: string, what: string, install: string) =>
  new StoreError(store, `it needs ${what}, which is not installed. Install it with: npm install ${install}`)

/**
 * The ledger (`SqlFileTime`) and, with `sessionMemory`, `SqlSessionMemory` on the store; both
 * migrate it when built. Fails with a `StoreError` that says why (unreachable, a missing package).
 */
export const layer = (
  spec: StoreSpec,
  options: { readonly sessionMemory: false | SqlSessionMemory.Options }
): Layer.Layer<FileTime | SessionMemory.SessionMemory, StoreError, FileSystem.FileSystem> => {
  const store = describeStore(spec)
  const client: Effect.Effect<Layer.Layer<SqlClient.SqlClient, unknown>, StoreError> = spec._tag === "sqlite"
    ? Effect.tryPromise({
      try: () => import("@effect/sql-sqlite-node/SqliteClient"),
      catch: () => missing(store, "better-sqlite3 (through @effect/sql-sqlite-node)", "@effect/sql-sqlite-node")
    }).pipe(Effect.map((SqliteClient) =>
      // As `SqliteFileTime.sqliteClient` opens it (not imported: it would load better-sqlite3 up front).
      Layer.effectDiscard(configureSqlite).pipe(
        Layer.provideMerge(SqliteClient.layer(sqliteClientOptions(spec.filename)))
      )
    ))
    : Effect.tryPromise({
      try: () => import("@effect/sql-pg/PgClient"),
      catch: () => missing(store, "@effect/sql-pg", "@effect/sql-pg@^0.53")
    }).pipe(Effect.map((PgClient) => PgClient.layer({ url: Redacted.make(spec.url) })))
  const services = Layer.merge(
    SqlFileTime.layerClient,
    // Without it, the default: nothing remembered.
    options.sessionMemory === false ? SessionMemory.layerNoop : SqlSessionMemory.layerClient(options.sessionMemory)
  )
  return Layer.unwrapEffect(Effect.map(client, (clientLayer) => services.pipe(Layer.provide(clientLayer)))).pipe(
    // A client that throws while opening (better-sqlite3 on a missing directory) dies: told the same way.
    Layer.catchAllCause((cause) => {
      const error = Cause.squash(cause)
      return Layer.fail(error instanceof StoreError ? error : new StoreError(store, reasonOf(error)))
    })
  )
}
