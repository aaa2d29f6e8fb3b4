/**
 * effect-read's SQLite query process (started by src/internal/sources/databaseExecutor.ts).
 *
 * It runs the statements it is sent on a read-only connection and answers with their rows, each
 * value and the whole result cut to the sizes it is given while the rows are fetched. A statement
 * that outruns its time budget is stopped by killing this process: SQLite cannot be interrupted
 * from JavaScript here. Should the parent be gone (killed outright), a watchdog thread kills this
 * process shortly after the budget, since its main thread may be busy inside SQLite.
 *
 * Plain JavaScript so that it runs as it is from `src/` (under vitest) and from `dist/`.
 * argv[2]: the better-sqlite3 module to load. Messages in: a job (see `run`); out: "ready", then
 * `{ id, results }` or `{ id, error: { message } }` per job.
 */
import { createRequire } from "node:module"
import { Worker } from "node:worker_threads"

const Database = createRequire(import.meta.url)(process.argv[2])

const watchdog = new Worker(
  `const { parentPort } = require("node:worker_threads")
  let timer
  parentPort.on("message", (ms) => {
    clearTimeout(timer)
    if (ms > 0) timer = setTimeout(() => process.kill(process.pid, "SIGKILL"), ms)
  })`,
  { eval: true }
)
watchdog.unref()

/** Characters in a string (code points), without building an array of them. */
const characters = (text) => {
  let n = text.length
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--
        i++
      }
    }
  }
  return n
}

/** A value as the reader's `Value` type has it: long text cut, blobs as their size. */
const bound = (value, maxChars) => {
  if (typeof value === "string" && value.length > maxChars) {
    // Do not end on the first half of a surrogate pair.
    const end = /[\ud800-\udbff]/.test(value[maxChars - 1]) ? maxChars - 1 : maxChars
    return { _tag: "LongText", text: value.slice(0, end), chars: characters(value) }
  }
  if (value instanceof Uint8Array) return { _tag: "Blob", bytes: value.byteLength }
  return value
}

const sizeOf = (value) =>
  typeof value === "string"
    ? Buffer.byteLength(value)
    : value !== null && typeof value === "object" && value._tag === "LongText"
    ? Buffer.byteLength(value.text)
    : 8

/**
 * job: { id, source: path | bytes, pragmas, busyTimeout, watchdogMs, maxBytes, maxChars,
 * fetches: [{ sql, params, maxRows }] } → [{ rows, stopped: "rows" | "bytes" | undefined }]
 */
const run = (job) => {
  const db = typeof job.source === "string"
    ? new Database(job.source, { readonly: true, fileMustExist: true, timeout: job.busyTimeout })
    : new Database(Buffer.from(job.source.buffer, job.source.byteOffset, job.source.byteLength), {
      readonly: true,
      timeout: job.busyTimeout
    })
  try {
    for (const pragma of job.pragmas) db.pragma(pragma)
    db.defaultSafeIntegers(true)
    return job.fetches.map((fetch) => {
      const statement = db.prepare(fetch.sql)
      // The parent checked this already; a second look costs nothing.
      if (!statement.readonly || !statement.reader) throw new Error("only statements that read rows are run")
      const rows = []
      let bytes = 0
      let stopped
      const iterator = statement.raw(true).iterate(...fetch.params)
      try {
        for (const row of iterator) {
          if (rows.length === fetch.maxRows) {
            stopped = "rows"
            break
          }
          if (bytes >= job.maxBytes) {
            stopped = "bytes"
            break
          }
          const values = row.map((value) => bound(value, job.maxChars))
          for (const value of values) bytes += sizeOf(value)
          rows.push(values)
        }
      } finally {
        iterator.return?.()
      }
      return { rows, stopped }
    })
  } finally {
    db.close()
  }
}

process.on("message", (job) => {
  watchdog.postMessage(job.watchdogMs)
  let reply
  try {
    reply = { id: job.id, results: run(job) }
  } catch (error) {
    reply = {
      id: job.id,
      error: { message: String(error?.message ?? error) }
    }
  }
  watchdog.postMessage(0)
  process.send(reply)
})
process.on("disconnect", () => process.exit(0))
process.send("ready")
