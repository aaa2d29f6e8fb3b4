/**
 * SQLite databases: `app.db` lists tables with row counts, `app.db:users` shows the schema and
 * sample rows, `app.db:users:42` one row by primary key (or rowid), `app.db:users?limit=&offset=
 * &order=col:desc&where=…` a page of rows, `app.db?q=SELECT …` a read-only query.
 *
 * Each read opens its own connection, read-only with `query_only` on, runs only statements
 * that read, and closes it; table and column names are checked against the schema and quoted,
 * `where` clauses are guarded (`./database/selector.ts`).
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { statSync } from "node:fs"
import type { ReadResult } from "../../Read.js"
import { DatabaseError, formatBytes, InvalidParams } from "../../ReadError.js"
import { openChecked, readChecked } from "../access.js"
import { isSqliteHeader } from "../containers.js"
import { MAX_BYTES } from "../lines.js"
import { fromPlatformError } from "../platformError.js"
import { FOOTER_RESERVE } from "../render.js"
import { type Connection, open } from "./database/driver.js"
import {
  Budget,
  DatabaseFailure,
  listTables,
  resolveTable,
  runQuery,
  showPage,
  showRow,
  showSchema,
  type Shown
} from "./database/reader.js"
import { type DatabaseSelector, parseSelector, SelectorFailure } from "./database/selector.js"
import type { ContainerRequest } from "./types.js"

/** Largest database loaded into memory when its file is not on this disk (MemoryFileSystem). */
export const MAX_IN_MEMORY_DATABASE_BYTES = 64 * 1024 * 1024

const PREVIEW_LINES = 20
const HEADER_BYTES = 16

/** The same file on this disk as the one `FileSystem` reports (not a MemoryFileSystem entry). */
const onDisk = (absolute: string, info: ContainerRequest["info"]): boolean => {
  try {
    const stat = statSync(absolute, { throwIfNoEntry: false })
    return stat !== undefined && stat.isFile() && stat.dev === info.dev && stat.size === Number(info.size) &&
      Option.isSome(info.ino) && stat.ino === info.ino.value
  } catch {
    return false
  }
}

const perform = (db: Connection, selector: DatabaseSelector, request: ContainerRequest, budget: Budget): Shown => {
  switch (selector.kind) {
    case "list":
      return listTables(db, { offset: request.params.offset ?? 1, limit: request.params.limit ?? Infinity }, budget)
    case "raw":
      return runQuery(db, selector.sql, budget)
    case "table": {
      const { info, key } = resolveTable(db, selector.reference)
      if (key !== undefined) {
        if (selector.query !== undefined) {
          throw new DatabaseFailure("SQLite row lookups cannot be combined with query parameters")
        }
        return showRow(db, info, key)
      }
      return selector.query === undefined ? showSchema(db, info, budget) : showPage(db, info, selector.query, budget)
    }
  }
}

export const readDatabase = Effect.fn("Read.database")(function*(request: ContainerRequest) {
  const { info, inner, params, target } = request
  const absolute = target.absolute
  const fail = (reason: string) => new DatabaseError({ path: absolute, reason })
  const failed = (error: Parameters<typeof fromPlatformError>[1]) => fromPlatformError(absolute, error)

  const selector = parseSelector(inner)
  if (selector instanceof SelectorFailure) return yield* fail(selector.message)
  if (params.column !== undefined) {
    return yield* new InvalidParams({ reason: "column applies to lines of text; a database read has none" })
  }

  const head = yield* Effect.scoped(Effect.gen(function*() {
    const file = yield* openChecked(target)
    const bytes = new Uint8Array(HEADER_BYTES)
    const n = yield* file.read(bytes).pipe(Effect.mapError(failed))
    return bytes.subarray(0, Number(n))
  }))
  if (!isSqliteHeader(head)) {
    return yield* fail(
      `${absolute} is not a SQLite database (it does not start with the SQLite header); read it without ':${inner}'`
    )
  }

  const size = Number(info.size)
  // SQLite opens by path: the real path the access check decided on, links already resolved.
  let source: string | Uint8Array = target.real ?? absolute
  if (!onDisk(absolute, info)) {
    if (size > MAX_IN_MEMORY_DATABASE_BYTES) {
      return yield* fail(
        `Cannot open SQLite database: it is not a file on this disk and is too large to load into memory (${
          formatBytes(size)
        }; limit ${formatBytes(MAX_IN_MEMORY_DATABASE_BYTES)})`
      )
    }
    source = yield* readChecked(target)
  }

  const shown = yield* Effect.acquireUseRelease(
    Effect.try({
      try: () => open(source),
      catch: (error) => fail(`Cannot open SQLite database: ${error instanceof Error ? error.message : String(error)}`)
    }),
    (db) =>
      Effect.try({
        try: () => {
          const header = `<path>${absolute}:${inner}</path>\n<type>database</type>\n<content>`
          return perform(db, selector, request, new Budget(MAX_BYTES - FOOTER_RESERVE - 2 * Buffer.byteLength(header)))
        },
        catch: (error) =>
          fail(
            error instanceof DatabaseFailure
              ? error.message
              : `SQLite query failed: ${error instanceof Error ? error.message : String(error)}`
          )
      }),
    (db) => Effect.sync(() => db.close())
  )

  const lines = [`<path>${absolute}${shown.suffix}</path>`, "<type>database</type>", "<content>", ...shown.lines, "</content>"]
  const result: ReadResult = {
    title: `${target.relative}${shown.suffix}`,
    output: lines.join("\n"),
    metadata: {
      kind: "database",
      path: absolute,
      preview: shown.lines.slice(0, PREVIEW_LINES).join("\n"),
      truncated: shown.truncated,
      size,
      ...Option.match(info.mtime, { onNone: () => ({}), onSome: (mtime) => ({ mtime: mtime.getTime() }) })
    }
  }
  return result
})
