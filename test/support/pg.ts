/**
 * PostgreSQL for the store's suites: the server the global setup provides (see globalSetup.ts),
 * one fresh database per use, dropped after the test file.
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { afterAll, describe } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { inject } from "vitest"

/** The server's URL; undefined when the PostgreSQL parts do not run (never in CI). */
export const pgUrl: string | undefined = inject("pgUrl")

/** `describe` for PostgreSQL parts: run whenever the global setup has a server (always in CI). */
export const describePg = (name: string, body: () => void): void => {
  describe.runIf(pgUrl !== undefined)(name, body)
}

/** A client layer for `url` (a pool; closed with its scope). */
export const pgClient = (url: string): Layer.Layer<SqlClient.SqlClient | PgClient.PgClient, unknown> =>
  PgClient.layer({ url: Redacted.make(url), maxConnections: 4, idleTimeout: "5 seconds" })

const admin = (statement: string) =>
  Effect.runPromise(
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql.unsafe(statement)
    }).pipe(Effect.provide(pgClient(pgUrl!)))
  )

let created: Array<string> = []
let registered = false
let counter = 0

/** A new, empty database on the server; its URL. Every one made by a test file is dropped after it. */
export const freshPgDatabase = (): Promise<string> => {
  if (!registered) {
    registered = true
    afterAll(async () => {
      const names = created
      created = []
      for (const name of names) await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    })
  }
  const name = `effect_read_${process.pid}_${Date.now().toString(36)}_${++counter}`
  created.push(name)
  return admin(`CREATE DATABASE ${name}`).then(() => {
    const url = new URL(pgUrl!)
    url.pathname = `/${name}`
    return url.toString()
  })
}

/** `freshPgDatabase` as an Effect. */
export const freshPgDatabaseEffect: Effect.Effect<string> = Effect.promise(freshPgDatabase)

/** A layer over a fresh database: `make(url)` built once the database exists. */
export const onFreshPgDatabase = <A, E, R>(make: (url: string) => Layer.Layer<A, E, R>): Layer.Layer<A, E, R> =>
  Layer.unwrapEffect(Effect.map(freshPgDatabaseEffect, make))
