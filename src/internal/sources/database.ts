/**
 * SQLite databases: `app.db` lists tables with row counts, `app.db:users` shows the schema and
 * sample rows, `app.db:users:42` one row by primary key (or rowid), `app.db:users?limit=&offset=
 * &order=col:desc&where=…` a page of rows, `app.db?q=SELECT …` a read-only query.
 *
 * Each read opens its own connection, read-only with `query_only` on, runs only statements
 * that read, and closes it; table and column names are checked against the schema and quoted,
 * `where` clauses are guarded (`./database/selector.ts`). Statements that read rows run in a
 * query process within a time budget (`./databaseExecutor.ts`).
 *
 * Nothing beside the file is created or changed: a rollback-journal database is opened in place
 * read-only (SQLite writes nothing for a reader); a WAL database — or one with a `-wal` file
 * beside it — is read from a private copy of its committed pages (`./database/wal.ts`), since
 * SQLite would create `-wal`/`-shm` files for it, write read marks into a live writer's `-shm`,
 * and leave the files behind.
 */
import type { PlatformError } from "@effect/platform/Error"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { statSync } from "node:fs"
import { PageLimits } from "../../Limits.js"
import { loadOptional, purposes } from "../../OptionalPackages.js"
import { DatabaseError, formatBytes, InvalidParams, MissingPackage } from "../../ReadError.js"
import type { ReadResult } from "../../ReadResult.js"
import { isSqliteHeader } from "../core/containers.js"
import { FOOTER_RESERVE, PREVIEW_LINES } from "../core/render.js"
import { readHead } from "../io/bytes.js"
import { fromPlatformError } from "../io/platformError.js"
import { openChecked, readChecked, whileUnchanged } from "../read/open.js"
import { type Connection, open, type Source } from "./database/driver.js"
import {
  Budget,
  DatabaseFailure,
  listTables,
  type Plan,
  resolveTable,
  runQuery,
  showPage,
  showRow,
  showSchema,
  withoutFetches
} from "./database/reader.js"
import { type DatabaseSelector, parseSelector, SelectorFailure } from "./database/selector.js"
import { MAX_VALUE_CHARS } from "./database/table.js"
import { committedImage, isWalHeader, WAL_HEADER_BYTES, walHeader } from "./database/wal.js"
import { execute, type ExecutionFailure } from "./databaseExecutor.js"
import type { ContainerRequest } from "./types.js"

/**
 * Largest database (with its `-wal`) read into memory: a WAL database, or one that is not a
 * file on this disk (MemoryFileSystem).
 */
export const MAX_IN_MEMORY_DATABASE_BYTES = 128 * 1024 * 1024

/** The SQLite header: the magic string, and the file format versions (2: WAL) at 18-19. */
const HEADER_BYTES = 100
/** Reads of a WAL database whose log restarted meanwhile, before giving up. */
const SNAPSHOT_ATTEMPTS = 3

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

const plan = (db: Connection, selector: DatabaseSelector, request: ContainerRequest, budget: Budget): Plan => {
  switch (selector.kind) {
    case "list":
      return withoutFetches(() =>
        listTables(db, { offset: request.params.offset ?? 1, limit: request.params.limit ?? Infinity }, budget)
      )
    case "raw":
      return runQuery(db, selector.sql, budget)
    case "table": {
      const { info, key } = resolveTable(db, selector.reference)
      if (key !== undefined) {
        if (selector.query !== undefined) {
          throw new DatabaseFailure("SQLite row lookups cannot be combined with query parameters")
        }
        return showRow(db, info, key, budget)
      }
      return selector.query === undefined ? showSchema(db, info, budget) : showPage(db, info, selector.query, budget)
    }
  }
}

/**
 * The committed pages of a database as bytes: the file with its `-wal` laid over it. Read the
 * log's header, the file, then the log: when the header is the same at both ends, no checkpoint
 * restarted the log in between, so every page a checkpoint may have been copying into the file
 * meanwhile is in the log as read and replaces the file's. `undefined` when it kept changing.
 */
const snapshot = <E, R>(fs: FileSystem.FileSystem, readMain: Effect.Effect<Uint8Array, E, R>, walPath: string) =>
  Effect.gen(function*() {
    const failed = (error: PlatformError) => fromPlatformError(walPath, error)
    const missing = <A>(effect: Effect.Effect<A, PlatformError>) =>
      effect.pipe(
        Effect.catchIf((error) => error._tag === "SystemError" && error.reason === "NotFound", () =>
          Effect.succeed(undefined)),
        Effect.mapError(failed)
      )
    const readLog = missing(fs.readFile(walPath))
    const readLogHeader = missing(Effect.scoped(Effect.gen(function*() {
      return yield* readHead(yield* fs.open(walPath, { flag: "r" }), WAL_HEADER_BYTES)
    })))
    for (let attempt = 0; attempt < SNAPSHOT_ATTEMPTS; attempt++) {
      const before = walHeader(yield* readLogHeader)
      const main = yield* readMain
      const wal = yield* readLog
      if (walHeader(wal) === before) return committedImage(main, wal)
    }
    return undefined
  }).pipe(Effect.withSpan("Read.database.snapshot"))

/**
 * SQLite reads the file by path, on its own: the read holds it open meanwhile, and answers
 * `FileChanged` when it is not the version the read was routed by, or changes before the answer.
 */
export const readDatabase = Effect.fn("Read.database")(function*(request: ContainerRequest) {
  return yield* whileUnchanged(request.target, request.info, query(request))
})

const query = Effect.fnUntraced(function*(request: ContainerRequest) {
  const fs = yield* FileSystem.FileSystem
  const { info, inner, params, target } = request
  const absolute = target.absolute
  const fail = (reason: string) => new DatabaseError({ path: absolute, reason })
  const failed = (error: Parameters<typeof fromPlatformError>[1]) => fromPlatformError(absolute, error)

  // A query says its own paging (`?limit=`, `?offset=`): not both.
  if (inner.length > 0 && (params.offset !== undefined || params.limit !== undefined || params.column !== undefined)) {
    return yield* new InvalidParams({
      reason:
        `the path '${target.relative}:${inner}' has a selector; do not also pass offset, limit or column (use one or the other)`
    })
  }
  const selector = parseSelector(inner)
  if (selector instanceof SelectorFailure) return yield* fail(selector.message)
  if (params.column !== undefined) {
    return yield* new InvalidParams({ reason: "column applies to lines of text; a database read has none" })
  }

  const head = yield* Effect.scoped(Effect.gen(function*() {
    const file = yield* openChecked(target)
    return yield* readHead(file, HEADER_BYTES).pipe(Effect.mapError(failed))
  }))
  if (!isSqliteHeader(head)) {
    return yield* fail(
      `${absolute} is not a SQLite database (it does not start with the SQLite header); read it without ':${inner}'`
    )
  }
  // The header says SQLite: only now is the driver (a native module, optional) needed.
  if ((yield* loadOptional("better-sqlite3")) === undefined) {
    return yield* new MissingPackage({ path: absolute, package: "better-sqlite3", purpose: purposes["better-sqlite3"] })
  }

  const size = Number(info.size)
  // SQLite opens by path: the real path the access check decided on, links already resolved;
  // it finds the -wal beside that file.
  const real = target.real ?? absolute
  const walPath = `${real}-wal`
  const walSize = yield* fs.stat(walPath).pipe(
    Effect.map((stat) => Number(stat.size)),
    Effect.catchAll(() => Effect.succeed(undefined))
  )
  const local = onDisk(absolute, info)
  let source: Source = real
  if (!local || isWalHeader(head) || walSize !== undefined) {
    if (size + (walSize ?? 0) > MAX_IN_MEMORY_DATABASE_BYTES) {
      return yield* fail(
        `Cannot open SQLite database: it is ${
          local ? "in WAL mode, which is read from a private copy in memory" : "not a file on this disk"
        } and is too large to load into memory (${formatBytes(size + (walSize ?? 0))}; limit ${
          formatBytes(MAX_IN_MEMORY_DATABASE_BYTES)
        })`
      )
    }
    const bytes = yield* snapshot(fs, readChecked(target), walPath)
    if (bytes === undefined) {
      return yield* fail(
        "SQLite database kept changing while it was read (its -wal restarted each time); read it again"
      )
    }
    source = bytes
  }
  const image = source

  const header = `<path>${absolute}:${inner}</path>\n<type>database</type>\n<content>`
  const caps = yield* PageLimits
  const budget = new Budget(caps.bytes - FOOTER_RESERVE - 2 * Buffer.byteLength(header), caps.bytes)
  const failure = (error: unknown) =>
    fail(
      error instanceof DatabaseFailure
        ? error.message
        : `SQLite query failed: ${error instanceof Error ? error.message : String(error)}`
    )
  const shown = yield* Effect.acquireUseRelease(
    Effect.try({
      try: () => open(image),
      catch: (error) => fail(`Cannot open SQLite database: ${error instanceof Error ? error.message : String(error)}`)
    }),
    (db) =>
      Effect.gen(function*() {
        const planned = yield* Effect.try({ try: () => plan(db, selector, request, budget), catch: failure })
        const results = planned.fetches.length === 0 ?
          [] :
          yield* execute(image, planned.fetches, MAX_VALUE_CHARS).pipe(
            Effect.mapError((error: ExecutionFailure) => fail(error.message))
          )
        return yield* Effect.try({ try: () => planned.show(results), catch: failure })
      }),
    (db) => Effect.sync(() => db.close())
  )

  const lines = [
    `<path>${absolute}${shown.suffix}</path>`,
    "<type>database</type>",
    "<content>",
    ...shown.lines,
    "</content>"
  ]
  const result: ReadResult = {
    title: `${target.relative}${shown.suffix}`,
    output: lines.join("\n"),
    metadata: {
      kind: "database",
      path: absolute,
      preview: shown.lines.slice(0, PREVIEW_LINES).join("\n"),
      truncated: shown.truncated,
      size,
      ...(shown.next === undefined ? {} : {
        next: "selector" in shown.next
          ? { filePath: `${absolute}:${shown.next.selector}` }
          : {
            filePath: absolute,
            offset: shown.next.offset,
            ...(request.params.limit === undefined ? {} : { limit: request.params.limit })
          }
      }),
      ...Option.match(info.mtime, { onNone: () => ({}), onSome: (mtime) => ({ mtime: mtime.getTime() }) })
    }
  }
  return result
})
