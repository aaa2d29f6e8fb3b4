/**
 * SQLite reads that touch nothing, stop in time and stay bounded. Fixtures are real SQLite
 * files written by better-sqlite3.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as nodePath from "node:path"
import { committedImage } from "../src/internal/sources/database/wal.js"
import { tempDir } from "./support.js"

interface Writable {
  exec(sql: string): void
  pragma(source: string): unknown
  close(): void
  prepare(sql: string): { all(...params: Array<unknown>): Array<unknown> }
}
const Database = createRequire(createRequire(import.meta.url).resolve("@effect/sql-sqlite-node/package.json"))(
  "better-sqlite3"
) as new(path: string | Buffer) => Writable

const roots: Array<string> = []
afterAll(() => {
  for (const dir of roots) fs.rmSync(dir, { recursive: true, force: true })
})
const freshDir = (): string => {
  const dir = tempDir()
  roots.push(dir)
  return dir
}

// -----------------------------------------------------------------------------
// The WAL reader against SQLite's own recovery
// -----------------------------------------------------------------------------

/** The rows of `t`, or SQLite's error (before the commit that creates it, there is no `t`). */
const rowsOf = (db: Writable): unknown => {
  try {
    return db.prepare("SELECT * FROM t ORDER BY x").all()
  } catch (error) {
    return { error: String(error) }
  } finally {
    db.close()
  }
}

/** Rows as SQLite's own recovery sees them: the files copied to a fresh directory and opened. */
const recovered = (main: Uint8Array, wal: Uint8Array): unknown => {
  const dir = freshDir()
  fs.writeFileSync(nodePath.join(dir, "r.db"), main)
  fs.writeFileSync(nodePath.join(dir, "r.db-wal"), wal)
  return rowsOf(new Database(nodePath.join(dir, "r.db")))
}

/** Rows as `committedImage` builds them. */
const imaged = (main: Uint8Array, wal: Uint8Array): unknown => rowsOf(new Database(Buffer.from(committedImage(main, wal))))

describe("committedImage", () => {
  it("matches SQLite's recovery for every cut of the log, a corrupt frame, and a restarted log", () => {
    const dir = freshDir()
    const file = nodePath.join(dir, "w.db")
    const writer = new Database(file)
    writer.pragma("journal_mode = WAL")
    writer.pragma("wal_autocheckpoint = 0")
    writer.exec("CREATE TABLE t (x INTEGER PRIMARY KEY, note TEXT)")
    for (let i = 1; i <= 6; i++) {
      writer.exec(`INSERT INTO t SELECT coalesce(max(x), 0) + 1, printf('%.*c', ${i * 700}, 'n') FROM t`)
    }
    writer.exec("UPDATE t SET note = 'updated' WHERE x = 2")
    const main = new Uint8Array(fs.readFileSync(file))
    const wal = new Uint8Array(fs.readFileSync(`${file}-wal`))
    const pageSize = 4096
    const frame = 24 + pageSize
    const frames = (wal.byteLength - 32) / frame
    expect(frames).toBeGreaterThan(8)

    const counts = new Set<number>()
    for (let n = 0; n <= frames; n++) {
      for (const cut of [32 + n * frame, 32 + n * frame + 100]) {
        const log = wal.subarray(0, Math.min(cut, wal.byteLength))
        const rows = recovered(main, log)
        expect([n, cut, imaged(main, log)]).toEqual([n, cut, rows])
        counts.add(Array.isArray(rows) ? rows.length : -1)
      }
    }
    // The cuts passed through several commits.
    expect(counts.size).toBeGreaterThan(4)

    // A flipped byte in a frame ends the log there, as SQLite's checksum check does.
    const corrupt = new Uint8Array(wal)
    corrupt[32 + 5 * frame + 24 + 100]! ^= 0xff
    expect(imaged(main, corrupt)).toEqual(recovered(main, corrupt))

    // A checkpoint, then a commit that restarts the log: older frames stay behind it, unread.
    writer.pragma("wal_checkpoint(PASSIVE)")
    writer.exec("INSERT INTO t VALUES (100, 'after restart')")
    const restartedMain = new Uint8Array(fs.readFileSync(file))
    const restarted = new Uint8Array(fs.readFileSync(`${file}-wal`))
    expect(restarted.byteLength).toBe(wal.byteLength)
    const rows = imaged(restartedMain, restarted) as Array<{ x: number; note: string }>
    expect(rows).toEqual(recovered(restartedMain, restarted))
    expect(rows.map((row) => row.x)).toEqual([1, 2, 3, 4, 5, 6, 100])
    writer.close()
  })
})
