/**
 * SQLite through `read`: the table list, a schema with sample rows, a row by key, pages, raw
 * queries, every misuse, and that no path can change the database. Fixtures are real SQLite
 * files written by better-sqlite3 in a temp directory.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as nodePath from "node:path"
import { decodeValue, encodeValue, parseSelector, SelectorFailure } from "../src/internal/sources/database/selector.js"
import { layoutTable } from "../src/internal/sources/database/table.js"
import * as OptionalPackages from "../src/OptionalPackages.js"
import { read, readUnknown } from "../src/Read.js"
import type { ReadError } from "../src/ReadError.js"
import { memoryLayer, nodeLayer, tempDir, writeTree } from "./support/index.js"

// -----------------------------------------------------------------------------
// Fixtures
// -----------------------------------------------------------------------------

interface Writable {
  exec(sql: string): void
  pragma(source: string): unknown
  close(): void
  prepare(sql: string): { get(...params: Array<unknown>): unknown; run(...params: Array<unknown>): unknown }
}
const Database = createRequire(createRequire(import.meta.url).resolve("@effect/sql-sqlite-node/package.json"))(
  "better-sqlite3"
) as new(path: string) => Writable

const APP_SQL = `
CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT, status TEXT, created INTEGER);
CREATE INDEX users_status ON users(status);
INSERT INTO users VALUES
  (1, 'Alice', 'alice@example.com', 'active', 1),
  (2, 'Bob', 'bob@example.com', 'inactive', 2),
  (3, 'Carol', 'carol@example.com', 'active', 3),
  (4, 'Dave', 'dave@example.com', 'active', 4),
  (5, 'Eve', NULL, 'inactive', 5),
  (6, 'Frank', 'frank@example.com', 'active', 6);
CREATE TABLE events (kind TEXT, payload TEXT);
INSERT INTO events VALUES ('login', 'line one
line two'), ('logout', NULL);
CREATE TABLE memberships (user_id INTEGER, group_id INTEGER, role TEXT, PRIMARY KEY (user_id, group_id));
INSERT INTO memberships VALUES (1, 1, 'owner');
CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;
INSERT INTO settings VALUES ('theme', 'dark'), ('lang', 'en');
CREATE TABLE files (id INTEGER PRIMARY KEY, name TEXT, data BLOB);
INSERT INTO files VALUES (1, 'logo.png', zeroblob(2048)), (2, 'empty', x'');
CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);
INSERT INTO notes VALUES (1, '${"x".repeat(320)}'), (2, '${"y".repeat(2500)}');
CREATE TABLE odd (rowid TEXT, oid TEXT, _rowid_ TEXT);
CREATE VIEW active_users AS SELECT id, name FROM users WHERE status = 'active';
`

/** 60 000 rows in `numbers` (analysed) and in `pending` (not), three wide text columns. */
const BIG_SQL = `
CREATE TABLE numbers (n INTEGER PRIMARY KEY, a TEXT, b TEXT, c TEXT);
WITH RECURSIVE seq(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < 60000)
INSERT INTO numbers SELECT n, printf('%050d', n), printf('%050d', n * 2), printf('%050d', n * 3) FROM seq;
ANALYZE;
CREATE TABLE pending AS SELECT n FROM numbers;
`

const roots: Array<string> = []
let root = ""
afterAll(() => {
  for (const dir of roots) fs.rmSync(dir, { recursive: true, force: true })
})

const makeDb = (file: string, sql: string): void => {
  const db = new Database(file)
  db.exec(sql)
  db.close()
}

beforeAll(() => {
  root = tempDir()
  roots.push(root)
  makeDb(nodePath.join(root, "app.db"), APP_SQL)
  makeDb(nodePath.join(root, "big.sqlite"), BIG_SQL)
  makeDb(nodePath.join(root, "empty.sqlite3"), "PRAGMA user_version = 1")
  writeTree(root, {
    "notes.db": "hello\nworld\n",
    // An OLE compound file, as Windows' thumbnail caches are.
    "thumbs.db": new Uint8Array([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, ...new Array(504).fill(0)])
  })
})

/** A fresh copy of the app database in its own directory (for tests that try to write). */
const copyOfApp = (): string => {
  const dir = tempDir()
  roots.push(dir)
  fs.copyFileSync(nodePath.join(root, "app.db"), nodePath.join(dir, "app.db"))
  return dir
}

const readAt = (dir: string, params: unknown) => readUnknown(params).pipe(Effect.provide(nodeLayer(dir)))
const readDb = (filePath: string) => readAt(root, { filePath })
const output = (filePath: string) => Effect.map(readDb(filePath), (result) => result.output)
const failure = (filePath: string, dir = root) => Effect.flip(readAt(dir, { filePath }))

/** The message of a DatabaseError (and a check that it is one). */
const dbError = (filePath: string, dir = root) =>
  Effect.map(failure(filePath, dir), (error: ReadError) => {
    expect(error._tag).toBe("DatabaseError")
    return error.message
  })

const page = (path: string, lines: ReadonlyArray<string>): string =>
  [`<path>${path}</path>`, "<type>database</type>", "<content>", ...lines, "</content>"].join("\n")

const HINT =
  "Append :<table> to the path for its schema and sample rows, :<table>:<key> for one row by primary key, :<table>?limit=20&offset=0&order=<column>:desc&where=<condition> for a page of rows, or ?q=SELECT ... for a read-only query."

const hashOf = (file: string): string => createHash("sha256").update(fs.readFileSync(file)).digest("hex")

// -----------------------------------------------------------------------------
// Reading
// -----------------------------------------------------------------------------

describe("SQLite reads", () => {
  it.effect("app.db lists tables and views with row counts", () =>
    Effect.gen(function*() {
      const result = yield* readDb("app.db")
      expect(result.output).toBe(page(`${root}/app.db`, [
        "active_users (view)",
        "events (2 rows)",
        "files (2 rows)",
        "memberships (1 row)",
        "notes (2 rows)",
        "odd (0 rows)",
        "settings (2 rows)",
        "users (6 rows)",
        "",
        `(7 tables, 1 view. ${HINT})`
      ]))
      expect(result.title).toBe("app.db")
      const stat = fs.statSync(nodePath.join(root, "app.db"))
      expect(result.metadata).toEqual({
        kind: "database",
        path: `${root}/app.db`,
        preview: result.output.split("\n").slice(3, 13).join("\n"),
        truncated: false,
        size: stat.size,
        mtime: stat.mtime.getTime()
      })
    }))

  it.effect("counts stop at 50 000 rows: an estimate from ANALYZE (~) or a lower bound (+)", () =>
    Effect.gen(function*() {
      expect(yield* output("big.sqlite")).toBe(page(`${root}/big.sqlite`, [
        "numbers (~60000 rows)",
        "pending (50000+ rows)",
        "",
        `(2 tables. ${HINT})`
      ]))
    }))

  it.effect("a database without tables says so", () =>
    Effect.gen(function*() {
      expect(yield* output("empty.sqlite3")).toBe(
        page(`${root}/empty.sqlite3`, ["(no tables)", "", `(0 tables. ${HINT})`])
      )
    }))

  it.effect("offset and limit page the table list", () =>
    Effect.gen(function*() {
      const result = yield* readAt(root, { filePath: "app.db", offset: 2, limit: 3 })
      expect(result.output).toBe(page(`${root}/app.db`, [
        "events (2 rows)",
        "files (2 rows)",
        "memberships (1 row)",
        "",
        `(Showing 2-4 of 7 tables, 1 view. Use offset=5 to continue. ${HINT})`
      ]))
      expect(result.metadata.truncated).toBe(true)
      const past = yield* Effect.flip(readAt(root, { filePath: "app.db", offset: 9 }))
      expect(past.message).toBe("Offset 9 is out of range for this database (7 tables, 1 view)")
    }))

  it.effect("app.db:users shows the CREATE statements and 5 sample rows with a continuation", () =>
    Effect.gen(function*() {
      const result = yield* readDb("app.db:users")
      expect(result.output).toBe(page(`${root}/app.db:users`, [
        "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT, status TEXT, created INTEGER)",
        "CREATE INDEX users_status ON users(status)",
        "",
        "Sample rows:",
        "| id | name  | email             | status   | created |",
        "| -- | ----- | ----------------- | -------- | ------- |",
        "| 1  | Alice | alice@example.com | active   | 1       |",
        "| 2  | Bob   | bob@example.com   | inactive | 2       |",
        "| 3  | Carol | carol@example.com | active   | 3       |",
        "| 4  | Dave  | dave@example.com  | active   | 4       |",
        "| 5  | Eve   | NULL              | inactive | 5       |",
        "[1 more row; append :users?limit=20&offset=5 to the database path to continue]"
      ]))
      expect(result.title).toBe("app.db:users")
      expect(result.metadata.truncated).toBe(true)
    }))

  it.effect("a view's schema and rows; an empty table shows its header and (no rows)", () =>
    Effect.gen(function*() {
      expect(yield* output("app.db:active_users")).toBe(page(`${root}/app.db:active_users`, [
        "CREATE VIEW active_users AS SELECT id, name FROM users WHERE status = 'active'",
        "",
        "Sample rows:",
        "| id | name  |",
        "| -- | ----- |",
        "| 1  | Alice |",
        "| 3  | Carol |",
        "| 4  | Dave  |",
        "| 6  | Frank |"
      ]))
      expect(yield* output("app.db:odd")).toBe(page(`${root}/app.db:odd`, [
        "CREATE TABLE odd (rowid TEXT, oid TEXT, _rowid_ TEXT)",
        "",
        "Sample rows:",
        "| rowid | oid | _rowid_ |",
        "| ----- | --- | ------- |",
        "(no rows)"
      ]))
    }))

  it.effect("cells: NULL, blob sizes, escaped newlines, wide text cut at 40 with …", () =>
    Effect.gen(function*() {
      expect(yield* output("app.db:files")).toBe(page(`${root}/app.db:files`, [
        "CREATE TABLE files (id INTEGER PRIMARY KEY, name TEXT, data BLOB)",
        "",
        "Sample rows:",
        "| id | name     | data           |",
        "| -- | -------- | -------------- |",
        "| 1  | logo.png | <BLOB 2.0 KiB> |",
        "| 2  | empty    | <BLOB 0 bytes> |"
      ]))
      expect(yield* output("app.db:events")).toContain(
        "| login  | line one\\nline two |\n| logout | NULL               |"
      )
      expect(yield* output("app.db:notes")).toContain(
        `| id | body                                     |\n| -- | ---------------------------------------- |\n| 1  | ${
          "x".repeat(39)
        }… |\n| 2  | ${"y".repeat(39)}… |`
      )
    }))

  it.effect("app.db:users:2 shows one row by primary key", () =>
    Effect.gen(function*() {
      const result = yield* readDb("app.db:users:2")
      expect(result.output).toBe(page(`${root}/app.db:users:2`, [
        "id: 2",
        "name: Bob",
        "email: bob@example.com",
        "status: inactive",
        "created: 2"
      ]))
      expect(result.title).toBe("app.db:users:2")
    }))

  it.effect("rows by rowid (no primary key), by a text key (WITHOUT ROWID); a missing row is not an error", () =>
    Effect.gen(function*() {
      expect(yield* output("app.db:events:1")).toBe(
        page(`${root}/app.db:events:1`, ["kind: login", "payload: line one\\nline two"])
      )
      expect(yield* output("app.db:settings:theme")).toBe(
        page(`${root}/app.db:settings:theme`, ["key: theme", "value: dark"])
      )
      expect(yield* output("app.db:users:99")).toBe(
        page(`${root}/app.db:users:99`, ["No row found in table 'users' for key '99'."])
      )
      // Table names are matched as SQLite does: case-insensitively.
      expect(yield* output("app.db:USERS:1")).toContain("name: Alice")
    }))

  it.effect("a row shows a long value up to 2000 characters and says how long it is", () =>
    Effect.gen(function*() {
      expect(yield* output("app.db:notes:2")).toBe(
        page(`${root}/app.db:notes:2`, ["id: 2", `body: ${"y".repeat(2000)}… (2500 characters)`])
      )
      expect(yield* output("app.db:files:1")).toBe(
        page(`${root}/app.db:files:1`, ["id: 1", "name: logo.png", "data: <BLOB 2.0 KiB>"])
      )
    }))

  it.effect("app.db:users?limit=2&offset=1 pages rows with a continuation", () =>
    Effect.gen(function*() {
      const result = yield* readDb("app.db:users?limit=2&offset=1")
      expect(result.output).toBe(page(`${root}/app.db:users`, [
        "| id | name  | email             | status   | created |",
        "| -- | ----- | ----------------- | -------- | ------- |",
        "| 2  | Bob   | bob@example.com   | inactive | 2       |",
        "| 3  | Carol | carol@example.com | active   | 3       |",
        "[3 more rows; append :users?limit=2&offset=3 to the database path to continue]"
      ]))
      expect(result.metadata.truncated).toBe(true)
      // The last page has no continuation.
      const last = yield* readDb("app.db:users?limit=2&offset=4")
      expect(last.output).toBe(page(`${root}/app.db:users`, [
        "| id | name  | email             | status   | created |",
        "| -- | ----- | ----------------- | -------- | ------- |",
        "| 5  | Eve   | NULL              | inactive | 5       |",
        "| 6  | Frank | frank@example.com | active   | 6       |"
      ]))
      expect(last.metadata.truncated).toBe(false)
    }))

  it.effect("order and where page rows; the continuation carries them", () =>
    Effect.gen(function*() {
      expect(yield* output("app.db:users?order=created:desc&where=status='active'&limit=2")).toBe(
        page(`${root}/app.db:users`, [
          "| id | name  | email             | status | created |",
          "| -- | ----- | ----------------- | ------ | ------- |",
          "| 6  | Frank | frank@example.com | active | 6       |",
          "| 4  | Dave  | dave@example.com  | active | 4       |",
          "[2 more rows; append :users?limit=2&offset=2&order=created:desc&where=status='active' to the database path to continue]"
        ])
      )
      // Following it gives the rest.
      expect(yield* output("app.db:users?limit=2&offset=2&order=created:desc&where=status='active'")).toContain(
        "| 3  | Carol | carol@example.com | active | 3       |\n| 1  | Alice | alice@example.com | active | 1       |\n</content>"
      )
      // Spaces, LIKE patterns and URL-encoded values.
      expect(yield* output("app.db:users?where=email LIKE '%@example.com' AND id > 4")).toContain("| 6  | Frank |")
      expect(yield* output("app.db:users?where=name%3D%27Bob%27")).toContain("| 2  | Bob  |")
      expect(yield* output("app.db:users?where=name = 'A&B' OR id = 1")).toContain("| 1  | Alice |")
      // An order column is matched case-insensitively; rowid is a column too.
      expect(yield* output("app.db:users?order=NAME:DESC&limit=1")).toContain("| 6  | Frank |")
      expect(yield* output("app.db:events?order=rowid:desc&limit=1")).toContain("| logout | NULL    |")
    }))

  it.effect("limit defaults to 20 and is capped at 500; a page over 50 KB stops with a continuation", () =>
    Effect.gen(function*() {
      const first = yield* readDb("big.sqlite:numbers?limit=600")
      expect(Buffer.byteLength(first.output)).toBeLessThanOrEqual(50 * 1024)
      const match =
        /\n\[(\d+)\+ more rows \(output capped at 50 KB\); append :numbers\?limit=500&offset=(\d+) to the database path to continue\]\n<\/content>$/
          .exec(first.output)
      expect(match).not.toBeNull()
      const shown = Number(match![2])
      expect(shown).toBeGreaterThan(100)
      expect(shown).toBeLessThan(500)
      // Counting stops 50 000 rows past the page: the number is a lower bound, marked `+`.
      expect(Number(match![1])).toBeGreaterThan(50000)
      expect(Number(match![1])).toBeLessThanOrEqual(60000 - shown)
      expect(first.output).toContain(`\n| ${shown} |`)
      const next = yield* output(`big.sqlite:numbers?limit=500&offset=${shown}`)
      expect(next).toContain(`<content>\n| n   |`)
      expect(next).toContain(`\n| ${shown + 1} |`)
      const defaults = yield* output("big.sqlite:pending?offset=100")
      expect(defaults.split("\n").filter((line) => /^\| \d/.test(line))).toHaveLength(20)
      expect(defaults).toContain(
        "[50000+ more rows; append :pending?limit=20&offset=120 to the database path to continue]"
      )
    }))

  it.effect("?q= runs a read-only query", () =>
    Effect.gen(function*() {
      const result = yield* readDb("app.db?q=SELECT name, status FROM users WHERE id <= 2")
      expect(result.output).toBe(page(`${root}/app.db`, [
        "| name  | status   |",
        "| ----- | -------- |",
        "| Alice | active   |",
        "| Bob   | inactive |"
      ]))
      expect(result.title).toBe("app.db")
      expect(result.metadata.truncated).toBe(false)
      // Duplicate column names, expressions, & in SQL, a URL-encoded query, an empty result, PRAGMA reads.
      expect(
        yield* output(
          "app.db?q=SELECT u.id, m.user_id AS id, 6 & 3 AS bits FROM users u JOIN memberships m ON m.user_id = u.id"
        )
      )
        .toContain("| id | id | bits |\n| -- | -- | ---- |\n| 1  | 1  | 2    |")
      expect(yield* output("app.db?q=SELECT+count(*)+AS+n+FROM+users")).toContain("| n |\n| - |\n| 6 |")
      expect(yield* output("app.db?q=SELECT * FROM users WHERE id > 100")).toContain(
        "| id | name | email | status | created |\n| -- | ---- | ----- | ------ | ------- |\n(no rows)"
      )
      expect(yield* output("app.db?q=PRAGMA table_info(settings)")).toContain(
        "| 0   | key   | TEXT | 1       | NULL       | 1  |"
      )
      expect(yield* output("app.db?q=SELECT 9007199254740993 AS big")).toContain("| 9007199254740993 |")
    }))

  it.effect("a raw query stops at 1000 rows, even an endless one, and at 50 KB", () =>
    Effect.gen(function*() {
      const endless = yield* readDb(
        "app.db?q=WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c"
      )
      const rows = endless.output.split("\n").filter((line) => /^\| \d/.test(line))
      expect(rows).toHaveLength(1000)
      expect(rows[999]).toBe("| 1000 |")
      expect(endless.output).toContain(
        "| 1000 |\n[Output capped at 1000 rows; add a LIMIT/OFFSET clause to the query to page through more]\n</content>"
      )
      expect(endless.metadata.truncated).toBe(true)
      const wide = yield* output("big.sqlite?q=SELECT * FROM numbers")
      expect(Buffer.byteLength(wide)).toBeLessThanOrEqual(50 * 1024)
      expect(wide).toMatch(
        /\n\[Output capped at 50 KB after \d+ rows; add a LIMIT\/OFFSET clause to the query to page through more\]\n<\/content>$/
      )
    }))

  it.effect("too many columns for 120 characters: one block of column: value lines per row", () =>
    Effect.gen(function*() {
      const columns = Array.from({ length: 24 }, (_, i) => `column_${i + 1}`).map((name, i) => `${i} AS ${name}`)
      const text = yield* output(`app.db?q=SELECT ${columns.join(", ")}`)
      expect(text).toContain("<content>\n── Row 1 ──\ncolumn_1: 0\ncolumn_2: 1\n")
      expect(text).toContain("column_24: 23\n</content>")
    }))

  it.effect("a row larger than 50 KB (600 columns) is cut and the page moves past it", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      roots.push(dir)
      const columns = Array.from({ length: 600 }, (_, i) => `c${i + 1}`)
      makeDb(
        nodePath.join(dir, "wide.db"),
        `CREATE TABLE w (${columns.join(", ")});
         INSERT INTO w VALUES (${columns.map(() => `'${"v".repeat(100)}'`).join(", ")});
         INSERT INTO w SELECT * FROM w;`
      )
      const first = yield* readAt(dir, { filePath: "wide.db:w?limit=2" })
      expect(Buffer.byteLength(first.output)).toBeLessThanOrEqual(50 * 1024)
      expect(first.output).toContain("<content>\n── Row 1 ──\nc1: vvv")
      expect(first.output).toContain(
        "… (row cut at 50 KB; use ?q=SELECT with fewer columns to see the rest)\n" +
          "[1 more row (output capped at 50 KB); append :w?limit=2&offset=1 to the database path to continue]\n</content>"
      )
    }))

  // PROJ's proj.db (shipped in pyproj, fiona and pyogrio wheels): the view `conversion` has 36
  // INSTEAD OF triggers, and its schema read was 133 KB in one page.
  it.effect("a schema whose triggers pass 50 KB shows those that fit and says how to list the rest", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      roots.push(dir)
      const triggers = Array.from(
        { length: 30 },
        (_, i) =>
          `CREATE TRIGGER v_check_${String(i).padStart(2, "0")} INSTEAD OF INSERT ON v BEGIN
${
            Array.from(
              { length: 40 },
              (_, k) => `  SELECT RAISE(ABORT, 'check ${i}.${k}: ${"x".repeat(40)}') WHERE NEW.a = ${k};`
            ).join("\n")
          }
END;`
      )
      makeDb(
        nodePath.join(dir, "proj.db"),
        `CREATE TABLE t (a INTEGER, b TEXT);
         INSERT INTO t VALUES (1, 'one'), (2, 'two');
         CREATE VIEW v AS SELECT a, b FROM t;
         ${triggers.join("\n")}`
      )
      const text = (yield* readAt(dir, { filePath: "proj.db:v" })).output
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(50 * 1024)
      expect(text).toContain(
        "<content>\nCREATE VIEW v AS SELECT a, b FROM t\nCREATE TRIGGER v_check_00 INSTEAD OF INSERT ON v BEGIN\n"
      )
      const shown = text.split("\n").filter((line) => line.startsWith("CREATE TRIGGER")).length
      expect(shown).toBeGreaterThan(0)
      expect(shown).toBeLessThan(30)
      // Whole statements only: the last trigger shown ends.
      const notice = `[${30 - shown} of 30 indexes and triggers not shown (output capped at 50 KB); ` +
        "append ?q=SELECT type, name FROM sqlite_master WHERE tbl_name = 'v' AND type IN ('index', 'trigger') " +
        "to the database path to list them]"
      expect(text).toContain(
        `END\n${notice}\n\nSample rows:\n| a | b   |\n| - | --- |\n| 1 | one |\n| 2 | two |\n</content>`
      )
      const listed =
        (yield* readAt(dir, { filePath: notice.match(/append (\?q=.*) to the/)![1]!.replace(/^/, "proj.db") }))
          .output
      expect(listed).toContain("| trigger | v_check_29 |")

      // A CREATE statement over the page itself: cut, and the page still ends.
      const columns = Array.from({ length: 1500 }, (_, i) => `  column_with_a_long_name_${i} TEXT`)
      makeDb(
        nodePath.join(dir, "wide.db"),
        `CREATE TABLE w (\n${columns.join(",\n")}\n);\nINSERT INTO w (column_with_a_long_name_0) VALUES ('x');`
      )
      const wide = (yield* readAt(dir, { filePath: "wide.db:w" })).output
      expect(Buffer.byteLength(wide)).toBeLessThanOrEqual(50 * 1024)
      expect(wide).toContain(
        "\n… (the CREATE statement is cut at 50 KB; append ?q=SELECT substr(sql, 1, 2000) FROM sqlite_master WHERE name = 'w' " +
          "to the database path to read it 2000 characters at a time)\n\nSample rows:\n── Row 1 ──\ncolumn_with_a_long_name_0: x\n"
      )
    }))

  it.effect("a row by key with many long values stops at 50 KB and says how to see the rest", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      roots.push(dir)
      const columns = Array.from({ length: 40 }, (_, i) => `c${i}`)
      makeDb(
        nodePath.join(dir, "wide.db"),
        `CREATE TABLE t (id INTEGER PRIMARY KEY, ${columns.map((c) => `${c} TEXT`).join(", ")});
         INSERT INTO t VALUES (1, ${columns.map(() => `'${"x".repeat(3000)}'`).join(", ")});`
      )
      const text = (yield* readAt(dir, { filePath: "wide.db:t:1" })).output
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(50 * 1024)
      expect(text).toContain(`<content>\nid: 1\nc0: ${"x".repeat(2000)}… (3000 characters)\n`)
      const shown = text.split("\n").filter((line) => /^c\d+: /.test(line)).length
      expect(shown).toBeGreaterThan(10)
      expect(text).toContain(
        `\n… (row cut at 50 KB after ${
          shown + 1
        } columns of 41; use ?q=SELECT with the columns you need to see the rest)\n</content>`
      )
    }))

  it.effect("a SQLite file inside MemoryFileSystem is read from its bytes", () =>
    Effect.gen(function*() {
      const bytes = fs.readFileSync(nodePath.join(root, "app.db"))
      const result = yield* read({ filePath: "app.db:users:2" }).pipe(
        Effect.provide(memoryLayer({ "/project/app.db": new Uint8Array(bytes) }))
      )
      expect(result.output).toBe(page("/project/app.db:users:2", [
        "id: 2",
        "name: Bob",
        "email: bob@example.com",
        "status: inactive",
        "created: 2"
      ]))
    }))

  it.effect("a WAL database with a writer still open is read as committed", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      roots.push(dir)
      const writer = new Database(nodePath.join(dir, "live.db"))
      writer.pragma("journal_mode = WAL")
      writer.exec("CREATE TABLE t (x); INSERT INTO t VALUES (1), (2)")
      try {
        expect(yield* readAt(dir, { filePath: "live.db" }).pipe(Effect.map((r) => r.output))).toContain("t (2 rows)")
      } finally {
        writer.close()
      }
    }))

  it.effect("table names holding ':' or control characters", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      roots.push(dir)
      makeDb(
        nodePath.join(dir, "names.db"),
        `CREATE TABLE "my:table" (id INTEGER PRIMARY KEY, v TEXT); INSERT INTO "my:table" VALUES (7, 'seven');
         CREATE TABLE "two
lines" (x); CREATE TABLE "My" (k TEXT PRIMARY KEY); INSERT INTO "My" VALUES ('a:b');`
      )
      expect(yield* readAt(dir, { filePath: "names.db" }).pipe(Effect.map((r) => r.output))).toContain(
        "<content>\nMy (1 row)\nmy:table (1 row)\ntwo\\nlines (0 rows)\n"
      )
      expect(yield* readAt(dir, { filePath: "names.db:my:table:7" }).pipe(Effect.map((r) => r.output))).toBe(
        page(`${dir}/names.db:my:table:7`, ["id: 7", "v: seven"])
      )
      // The key is everything after the table name, colons included.
      expect(yield* readAt(dir, { filePath: "names.db:My:a:b" }).pipe(Effect.map((r) => r.output))).toBe(
        page(`${dir}/names.db:My:a:b`, ["k: a:b"])
      )
    }))

  it.effect("a corrupt database and a locked one fail with SQLite's reason", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      roots.push(dir)
      const garbage = new Uint8Array(8192).map((_, i) => (i * 7919) % 251)
      writeTree(dir, { "corrupt.db": new Uint8Array([...Buffer.from("SQLite format 3\0"), ...garbage]) })
      expect(yield* dbError("corrupt.db", dir)).toMatch(
        /^SQLite query failed: (file is not a database|database disk image is malformed)$/
      )
      // A writer holding an exclusive lock: the read waits out the 3 s busy timeout, then fails.
      makeDb(nodePath.join(dir, "locked.db"), "CREATE TABLE t (x)")
      const writer = new Database(nodePath.join(dir, "locked.db"))
      writer.exec("BEGIN EXCLUSIVE; INSERT INTO t VALUES (1)")
      try {
        expect(yield* dbError("locked.db", dir)).toBe("SQLite query failed: database is locked")
      } finally {
        writer.exec("ROLLBACK")
        writer.close()
      }
    }))

  it.effect("a .db that is text is read as text; a binary .db that is not SQLite is a BinaryFile", () =>
    Effect.gen(function*() {
      const text = yield* readDb("notes.db")
      expect(text.output).toBe(
        `<path>${root}/notes.db</path>\n<type>file</type>\n<content>\n1: hello\n2: world\n\n(End of file - total 2 lines)\n</content>`
      )
      expect(text.metadata.kind).toBe("text")
      const binary = yield* failure("thumbs.db")
      expect(binary._tag).toBe("BinaryFile")
      // Without the SQLite header a `.db` is a plain file: `:2` is a line selector on it.
      const line = yield* readDb("notes.db:2")
      expect(line.output).toContain("<content>\n2: world\n")
      expect((yield* failure("notes.db:users"))._tag).toBe("FileNotFound")
    }))

  it.effect("without the driver (better-sqlite3) a SQLite file is MissingPackage; a .db that is text still reads", () =>
    Effect.gen(function*() {
      const without = OptionalPackages.layerWithout(["better-sqlite3"])
      const missing =
        `Cannot read ${root}/app.db: reading a SQLite database needs the optional package better-sqlite3, which is not installed. Install it with: npm install better-sqlite3`
      for (const filePath of ["app.db", "app.db:users", "app.db?q=SELECT 1"]) {
        const error = yield* failure(filePath).pipe(Effect.provide(without))
        expect(error).toMatchObject({ _tag: "MissingPackage", package: "better-sqlite3" })
        expect(error.message).toBe(missing)
      }
      const text = yield* readDb("notes.db").pipe(Effect.provide(without))
      expect(text.metadata.kind).toBe("text")
      expect(yield* output("app.db:users:1")).toContain("<type>database</type>")
    }))
})

// -----------------------------------------------------------------------------
// Misuse
// -----------------------------------------------------------------------------

describe("SQLite misuse", () => {
  const WHERE_SYNTAX =
    "SQLite 'where' clause must not contain comments or statement terminators; use '?q=SELECT ...' for raw SQL"
  const WHERE_KEYWORDS =
    "SQLite 'where' clause must not contain LIMIT/OFFSET/UNION/INTERSECT/EXCEPT/ATTACH/DETACH/PRAGMA; use '?q=SELECT ...' for raw SQL"
  const TABLES = "tables: active_users, events, files, memberships, notes, odd, settings, users"

  const cases: ReadonlyArray<readonly [string, string]> = [
    ["app.db:users?q=SELECT 1", "SQLite raw queries cannot be combined with table selectors or pagination"],
    ["app.db?limit=5&q=SELECT 1", "SQLite raw queries cannot be combined with table selectors or pagination"],
    ["app.db?q=", "SQLite query parameter 'q' cannot be empty"],
    ["app.db?q=   ", "SQLite query parameter 'q' cannot be empty"],
    ["app.db?limit=5", "SQLite query parameters require a table selector or q=SELECT..."],
    ["app.db: ", "SQLite selectors must include a table name"],
    ["app.db:users:2?limit=1", "SQLite row lookups cannot be combined with query parameters"],
    [
      "app.db:users?foo=1",
      "Unsupported SQLite query parameter 'foo'; use limit, offset, order and where (or q=SELECT... alone)"
    ],
    ["app.db:users?limit=1&limit=2", "SQLite query parameter 'limit' is given twice"],
    ["app.db:users?limit=0", "SQLite limit must be a positive integer; got '0'"],
    ["app.db:users?limit=ten", "SQLite limit must be a positive integer; got 'ten'"],
    ["app.db:users?offset=-1", "SQLite offset must be a non-negative integer; got '-1'"],
    [
      "app.db:users?order=nope",
      `SQLite order column 'nope' not found in table schema; columns: id, name, email, status, created`
    ],
    ["app.db:users?order=name:up", "SQLite order direction must be 'asc' or 'desc'; got 'up'"],
    ["app.db:users?where=1=1;DROP TABLE users", WHERE_SYNTAX],
    ["app.db:users?where=1=1 -- comment", WHERE_SYNTAX],
    ["app.db:users?where=1=1 /* comment */", WHERE_SYNTAX],
    ["app.db:users?where=1=1 LIMIT 1", WHERE_KEYWORDS],
    ["app.db:users?where=1=1 UNION SELECT * FROM users", WHERE_KEYWORDS],
    ["app.db:users?where=id IN (SELECT 1 INTERSECT SELECT 1)", WHERE_KEYWORDS],
    ["app.db:users?where=ATTACH", WHERE_KEYWORDS],
    ["app.db:users?where=pragma", WHERE_KEYWORDS],
    [
      "app.db:users?where=id = ?",
      "SQLite where clause changed the expected pagination parameters; use q=SELECT ... for raw SQL"
    ],
    [
      "app.db:users?where=id = :id",
      "SQLite where clause changed the expected pagination parameters; use q=SELECT ... for raw SQL"
    ],
    ["app.db:users?where=(id = 1", "SQLite 'where' clause has unbalanced parentheses"],
    ["app.db:users?where=id = 1) OR (1", "SQLite 'where' clause has unbalanced parentheses"],
    ["app.db:users?where=name = 'Bob", "SQLite 'where' clause has an unterminated string literal"],
    ["app.db:users?where=", "SQLite 'where' clause cannot be empty"],
    ["app.db:users?where=nope = 1", "SQLite query failed: no such column: nope"],
    ["app.db:nope", `SQLite table 'nope' not found; ${TABLES}`],
    ["app.db:users;DROP TABLE users;", `SQLite table 'users;DROP TABLE users;' not found; ${TABLES}`],
    ["app.db:users\" --", `SQLite table 'users" --' not found; ${TABLES}`],
    ["app.db:memberships:1", "SQLite table 'memberships' has a composite primary key; use '?where=' instead"],
    ["app.db:active_users:1", "SQLite table 'active_users' does not expose ROWID; use '?where=' instead"],
    ["app.db:odd:1", "SQLite table 'odd' does not expose ROWID; use '?where=' instead"],
    ["app.db:users:abc", "Primary key 'id' must be an integer; got 'abc'"],
    ["app.db:users:99999999999999999999", "Primary key 'id' must be an integer; got '99999999999999999999'"],
    ["app.db:events:first", "SQLite ROWID must be an integer; got 'first'"],
    ["app.db:users:", "SQLite row lookups need a key after the table name, e.g. ':users:1'"],
    [
      "app.db:users?offset=10",
      "SQLite offset 10 is past the last row ('users' has 6 rows); use offset=0 to start from the first row"
    ],
    [
      "app.db:users?offset=3&where=status='inactive'",
      "SQLite offset 3 is past the last row (2 rows match the where clause); use offset=0 to start from the first row"
    ],
    [
      "app.db?q=SELECT 1; SELECT 2",
      "SQLite raw queries must be a single statement; remove the ';' and what follows it"
    ],
    ["app.db?q=SELECT * FROM users WHERE id = ?", "SQLite raw queries do not support bound parameters"],
    ["app.db?q=SELECT * FROM users WHERE id = :id", "SQLite raw queries do not support bound parameters"],
    ["app.db?q=SELECT * FROM nope", "SQLite query failed: no such table: nope"],
    ["app.db?q=SELEC 1", "SQLite query failed: near \"SELEC\": syntax error"]
  ]

  it.effect("every misuse fails with its DatabaseError message", () =>
    Effect.gen(function*() {
      for (const [path, message] of cases) {
        expect([path, yield* dbError(path)]).toEqual([path, message])
      }
    }))

  it.effect("column does not apply to a database", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(readAt(root, { filePath: "app.db", column: 3 }))
      expect(error._tag).toBe("InvalidParams")
      expect(error.message).toBe("Invalid parameters: column applies to lines of text; a database read has none")
    }))

  const writes: ReadonlyArray<readonly [string, string]> = [
    [
      "DELETE FROM users",
      "SQLite raw queries are read-only; this DELETE statement would write (use SELECT, WITH, VALUES, EXPLAIN or a PRAGMA that reads)"
    ],
    [
      "UPDATE users SET name = 'x'",
      "SQLite raw queries are read-only; this UPDATE statement would write (use SELECT, WITH, VALUES, EXPLAIN or a PRAGMA that reads)"
    ],
    [
      "INSERT INTO users (name) VALUES ('x') RETURNING id",
      "SQLite raw queries are read-only; this INSERT statement would write (use SELECT, WITH, VALUES, EXPLAIN or a PRAGMA that reads)"
    ],
    [
      "DROP TABLE users",
      "SQLite raw queries are read-only; this DROP statement would write (use SELECT, WITH, VALUES, EXPLAIN or a PRAGMA that reads)"
    ],
    [
      "CREATE TEMP TABLE t (x)",
      "SQLite raw queries are read-only; this CREATE statement would write (use SELECT, WITH, VALUES, EXPLAIN or a PRAGMA that reads)"
    ],
    [
      "VACUUM INTO 'copy.db'",
      "SQLite raw queries are read-only; this VACUUM statement would write (use SELECT, WITH, VALUES, EXPLAIN or a PRAGMA that reads)"
    ],
    [
      "PRAGMA user_version = 7",
      "SQLite raw queries are read-only; this PRAGMA statement would write (use SELECT, WITH, VALUES, EXPLAIN or a PRAGMA that reads)"
    ],
    [
      "PRAGMA journal_mode = WAL",
      "SQLite raw queries are read-only; this PRAGMA statement would write (use SELECT, WITH, VALUES, EXPLAIN or a PRAGMA that reads)"
    ],
    [
      "PRAGMA query_only = OFF",
      "SQLite raw queries must return rows; this PRAGMA statement returns none (use SELECT, WITH, VALUES, EXPLAIN or a PRAGMA that reads)"
    ],
    [
      "BEGIN IMMEDIATE",
      "SQLite raw queries are read-only; this BEGIN statement would write (use SELECT, WITH, VALUES, EXPLAIN or a PRAGMA that reads)"
    ],
    [
      "BEGIN",
      "SQLite raw queries must return rows; this BEGIN statement returns none (use SELECT, WITH, VALUES, EXPLAIN or a PRAGMA that reads)"
    ],
    [
      "ATTACH 'other.db' AS other",
      "SQLite raw queries cannot ATTACH or DETACH databases; a read sees this database only"
    ],
    [
      "  /* x */ attach database 'other.db' as o",
      "SQLite raw queries cannot ATTACH or DETACH databases; a read sees this database only"
    ],
    ["DETACH other", "SQLite raw queries cannot ATTACH or DETACH databases; a read sees this database only"]
  ]

  it.effect("writes through ?q= fail and leave the file, its directory and its rows unchanged", () =>
    Effect.gen(function*() {
      const dir = copyOfApp()
      const file = nodePath.join(dir, "app.db")
      writeTree(dir, { "other.db": "" })
      const before = hashOf(file)
      const entries = fs.readdirSync(dir).sort()
      for (const [sql, message] of writes) {
        expect([sql, yield* dbError(`app.db?q=${sql}`, dir)]).toEqual([sql, message])
        expect(hashOf(file)).toBe(before)
      }
      expect(fs.readdirSync(dir).sort()).toEqual(entries)
      expect(fs.statSync(nodePath.join(dir, "other.db")).size).toBe(0)
      const count = yield* readAt(dir, { filePath: "app.db?q=SELECT count(*) AS n FROM users" })
      expect(count.output).toContain("| n |\n| - |\n| 6 |")
      const list = yield* readAt(dir, { filePath: "app.db" })
      expect(list.output).toContain("users (6 rows)")
    }))

  it.effect("every read selector leaves the file untouched", () =>
    Effect.gen(function*() {
      const dir = copyOfApp()
      const file = nodePath.join(dir, "app.db")
      const before = hashOf(file)
      for (const path of ["app.db", "app.db:users", "app.db:users:1", "app.db:users?limit=2", "app.db?q=SELECT 1"]) {
        yield* readAt(dir, { filePath: path })
      }
      expect(hashOf(file)).toBe(before)
      expect(fs.readdirSync(dir)).toEqual(["app.db"])
    }))
})

// -----------------------------------------------------------------------------
// Grammar and layout (pure)
// -----------------------------------------------------------------------------

describe("SQLite selector grammar", () => {
  it("parses the forms of read-formats §1.7", () => {
    expect(parseSelector("")).toEqual({ kind: "list" })
    expect(parseSelector("users")).toEqual({ kind: "table", reference: "users", query: undefined })
    expect(parseSelector("users:42")).toEqual({ kind: "table", reference: "users:42", query: undefined })
    expect(parseSelector("users?limit=2&offset=3&order=created:desc")).toEqual({
      kind: "table",
      reference: "users",
      query: { limit: 2, offset: 3, order: "created:desc", where: undefined }
    })
    expect(parseSelector("users?limit=5000")).toMatchObject({ query: { limit: 500, offset: 0 } })
    expect(parseSelector("users?where=a = 1")).toMatchObject({ query: { limit: 20, offset: 0, where: "a = 1" } })
    expect(parseSelector("?q=SELECT+1")).toEqual({ kind: "raw", sql: "SELECT 1" })
    expect(parseSelector("?q=SELECT 1+1, 'a&b=c'")).toEqual({ kind: "raw", sql: "SELECT 1+1, 'a&b=c'" })
    expect(parseSelector("?q")).toEqual(new SelectorFailure("SQLite query parameter 'q' cannot be empty"))
  })

  it.prop("encodeValue is read back by decodeValue", [FastCheck.string()], ([value]) => {
    expect(decodeValue(encodeValue(value))).toBe(value)
  })

  it.prop(
    "a where clause written by a continuation is read back intact",
    [FastCheck.stringMatching(/^[a-z0-9 =<>'%&+()]{1,30}$/)],
    ([where]) => {
      const balanced = (where.match(/'/g) ?? []).length % 2 === 0
      const parsed = parseSelector(`t?limit=1&where=${encodeValue(where)}&offset=2`)
      if (balanced && !(parsed instanceof SelectorFailure) && parsed.kind === "table") {
        expect(parsed.query).toEqual({ limit: 1, offset: 2, order: undefined, where: where.trim() })
      }
    }
  )

  it("lays out a table within 120 columns, 40 per column", () => {
    const layout = layoutTable(["id", "text"], [[1n, "a".repeat(100)], [2n, null], [3n, "tab\there"]])
    expect(layout.head).toEqual([
      "| id | text                                     |",
      "| -- | ---------------------------------------- |"
    ])
    expect(layout.rows.map((row) => row[0])).toEqual([
      `| 1  | ${"a".repeat(39)}… |`,
      `| 2  | NULL                                     |`,
      `| 3  | tab   here                               |`
    ])
    const wide = layoutTable(["a", "b", "c", "d"], [["x".repeat(50), "y".repeat(50), "z".repeat(50), "w".repeat(50)]])
    for (const line of [...wide.head, ...wide.rows.flat()]) expect(line.length).toBe(120)
    // Astral characters count once and are never split.
    const emoji = layoutTable(["e"], [["😀😀"], ["abc"], [
      "😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀"
    ]])
    expect(emoji.rows.map((row) => row[0])).toEqual([
      `| 😀😀${" ".repeat(38)} |`,
      `| abc${" ".repeat(37)} |`,
      `| ${"😀".repeat(39)}… |`
    ])
  })
})
