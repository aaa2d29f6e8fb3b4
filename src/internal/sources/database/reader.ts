/**
 * The reads themselves, over an open read-only connection: the table list, a table's schema
 * with sample rows, one row, a page of rows, a raw query. Synchronous (better-sqlite3 is);
 * misuse and SQLite's refusals throw `DatabaseFailure` with the message the model reads.
 *
 * The schema and the table list are read here. Statements that read rows (whose cost a `where`,
 * a view or a raw query decides) are only planned here: a `Plan` names them, the executor runs
 * them where they can be stopped (`../databaseExecutor.ts`), and the plan lays out what they returned.
 */
import { formatBytes } from "../../core/format.js"
import { bytesLabel, MAX_BYTES } from "../../core/lines.js"
import type { Connection, Statement } from "./driver.js"
import {
  encodeValue,
  leadingKeyword,
  type OrderTerm,
  type PageQuery,
  parseOrder,
  SAMPLE_ROWS,
  SelectorFailure
} from "./selector.js"
import { escapeText, layoutTable, MAX_TABLE_WIDTH, MAX_VALUE_CHARS, rowLines, type Value } from "./table.js"

/** A statement that reads rows. */
export interface Fetch {
  readonly sql: string
  readonly params: ReadonlyArray<unknown>
  /** Rows kept; when one more exists, `stopped` is "rows". */
  readonly maxRows: number
}

/** A statement's rows: values as the reader's `Value` (long text cut, blobs as sizes). */
export interface Fetched {
  readonly rows: ReadonlyArray<ReadonlyArray<unknown>>
  /** Why fetching stopped while more rows remained: the row cap or `MAX_FETCH_BYTES`. */
  readonly stopped: "rows" | "bytes" | undefined
}

/** Bytes of values one statement's rows may hold; fetching stops past it. */
export const MAX_FETCH_BYTES = 4 * 1024 * 1024

/** Rows counted before a count becomes a lower bound. */
export const COUNT_PROBE_CAP = 50_000
/** Tables and views listed. */
export const MAX_LISTED_TABLES = 500
/** Rows a raw query returns. */
export const MAX_RAW_ROWS = 1000
/** Columns above which rows are fetched as they are instead of with cut text and blob sizes. */
const MAX_PROJECTED_COLUMNS = 900

export class DatabaseFailure {
  readonly _tag = "DatabaseFailure"
  constructor(readonly message: string) {}
}

/** The statements a read needs rows from, and how to show those rows. */
export interface Plan {
  readonly fetches: ReadonlyArray<Fetch>
  /** Called with one result per fetch, in order. */
  readonly show: (results: ReadonlyArray<Fetched>) => Shown
}

/** A read whose rows are all read in this process (the table list). */
export const withoutFetches = (show: () => Shown): Plan => ({ fetches: [], show })

/** What a read shows: content lines, whether more exists, the selector shown after the path. */
export interface Shown {
  readonly lines: ReadonlyArray<string>
  readonly truncated: boolean
  /** `:users`, `:users:42`, or "" — appended to the path in `<path>` and the title. */
  readonly suffix: string
  /** What continues it: a selector after the database path (`users?limit=20&offset=20`), or an offset in the table list. */
  readonly next?: { readonly selector: string } | { readonly offset: number } | undefined
}

/** Bytes of content a read may produce; lines past it are not shown. */
export class Budget {
  /** The page's byte cap in force (`PageLimits.bytes`), as the notices state it: `50 KB`. */
  readonly label: string
  constructor(private left: number, maxBytes: number = MAX_BYTES) {
    this.label = bytesLabel(maxBytes)
  }
  take(line: string): boolean {
    const bytes = Buffer.byteLength(line) + 1
    if (bytes > this.left) return false
    this.left -= bytes
    return true
  }
  takeAll(lines: ReadonlyArray<string>): boolean {
    return this.takeAllLeaving(lines, 0)
  }
  /** Take all of `lines` only if `reserve` bytes are still left after them. */
  takeAllLeaving(lines: ReadonlyArray<string>, reserve: number): boolean {
    const bytes = lines.reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0)
    if (bytes + reserve > this.left) return false
    this.left -= bytes
    return true
  }
}

const quote = (name: string): string => `"${name.replace(/"/g, "\"\"")}"`
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

const messageOf = (error: unknown): string => error instanceof Error ? error.message : String(error)

/** Run SQL we built; SQLite's refusals (a corrupt file, a lock) become failures. */
const run = <A>(what: () => A): A => {
  try {
    return what()
  } catch (error) {
    if (error instanceof DatabaseFailure) throw error
    throw new DatabaseFailure(`SQLite query failed: ${messageOf(error)}`)
  }
}

const prepare = (db: Connection, sql: string): Statement => run(() => db.prepare(sql).raw(true))
const all = (db: Connection, sql: string, ...params: ReadonlyArray<unknown>): Array<Array<unknown>> =>
  run(() => prepare(db, sql).all(...params))
const num = (value: unknown): number => Number(value)

interface SchemaObject {
  readonly name: string
  readonly type: "table" | "view"
  readonly sql: string | null
}

const objects = (db: Connection): Array<SchemaObject> =>
  all(
    db,
    `SELECT name, type, sql FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
     ORDER BY name COLLATE NOCASE, name`
  ).map(([name, type, sql]) => ({ name: String(name), type: type as "table" | "view", sql: sql as string | null }))

/** Rows of `from`, counted up to `cap`; `cap + 1` means "more than cap". */
const countRows = (db: Connection, from: string, cap: number): number =>
  num(all(db, `SELECT count(*) FROM (SELECT 1 FROM ${from} LIMIT ${cap + 1})`)[0]?.[0])

/** The row count `ANALYZE` recorded, when it did. */
const estimatedRows = (db: Connection, table: string): number | undefined => {
  try {
    const stats = prepare(db, "SELECT stat FROM sqlite_stat1 WHERE tbl = ?").all(table)
    const counts = stats.map(([stat]) => Number.parseInt(String(stat), 10)).filter(Number.isFinite)
    return counts.length === 0 ? undefined : Math.max(...counts)
  } catch {
    return undefined
  }
}

const rowCount = (db: Connection, object: SchemaObject): string => {
  if (object.type === "view") return "view"
  try {
    const n = countRows(db, quote(object.name), COUNT_PROBE_CAP)
    if (n <= COUNT_PROBE_CAP) return plural(n, "row")
    const estimate = estimatedRows(db, object.name)
    return estimate !== undefined && estimate > COUNT_PROBE_CAP ? `~${estimate} rows` : `${COUNT_PROBE_CAP}+ rows`
  } catch (error) {
    return `rows unavailable: ${
      error instanceof DatabaseFailure ? error.message.replace(/^SQLite query failed: /, "") : messageOf(error)
    }`
  }
}

/** `app.db`: every table and view with its row count. */
export const listTables = (
  db: Connection,
  page: { readonly offset: number; readonly limit: number },
  budget: Budget
): Shown => {
  const found = objects(db)
  const start = Math.max(1, page.offset)
  const limit = Math.min(page.limit, MAX_LISTED_TABLES)
  const tables = found.filter((object) => object.type === "table").length
  const views = found.length - tables
  const what = [plural(tables, "table"), ...(views > 0 ? [plural(views, "view")] : [])].join(", ")
  if (found.length > 0 && start > found.length) {
    throw new DatabaseFailure(`Offset ${start} is out of range for this database (${what})`)
  }
  const lines: Array<string> = []
  if (found.length === 0) lines.push("(no tables)")
  let shown = 0
  for (const object of found.slice(start - 1, start - 1 + limit)) {
    const line = `${escapeText(object.name)} (${rowCount(db, object)})`
    if (!budget.take(line)) break
    lines.push(line.length > MAX_TABLE_WIDTH ? `${line.slice(0, MAX_TABLE_WIDTH - 1)}…` : line)
    shown++
  }
  const more = start - 1 + shown < found.length
  const hint =
    "Append :<table> to the path for its schema and sample rows, :<table>:<key> for one row by primary key, " +
    ":<table>?limit=20&offset=0&order=<column>:desc&where=<condition> for a page of rows, " +
    "or ?q=SELECT ... for a read-only query."
  lines.push(
    "",
    more
      ? `(Showing ${start}-${start - 1 + shown} of ${what}. Use offset=${start + shown} to continue. ${hint})`
      : `(${what}. ${hint})`
  )
  return { lines, truncated: more, suffix: "", ...(more ? { next: { offset: start + shown } } : {}) }
}

interface Column {
  readonly name: string
  readonly type: string
  /** 1-based position in the primary key; 0 when not part of it. */
  readonly pk: number
}

interface TableInfo {
  readonly object: SchemaObject
  readonly columns: ReadonlyArray<Column>
  /** `rowid`, `_rowid_` or `oid`: the first not hidden by a column; undefined without a rowid. */
  readonly rowid: string | undefined
}

const notFound = (table: string, found: ReadonlyArray<SchemaObject>): DatabaseFailure => {
  const names = found.map((object) => object.name)
  const listed = names.length === 0
    ? "; the database has no tables"
    : `; tables: ${names.slice(0, 20).join(", ")}${names.length > 20 ? `, … (${names.length} in all)` : ""}`
  return new DatabaseFailure(`SQLite table '${table}' not found${listed}`)
}

/**
 * The table a reference names and the key after it: `users`, `users:42`, or a table whose name
 * itself holds `:` (`a:b:42`). Names are matched exactly, then case-insensitively as SQLite does.
 */
export const resolveTable = (
  db: Connection,
  reference: string
): { readonly info: TableInfo; readonly key: string | undefined } => {
  const found = objects(db)
  const colons = [...reference.matchAll(/:/g)].map((match) => match.index).reverse()
  for (const end of [reference.length, ...colons]) {
    const name = reference.slice(0, end)
    const object = found.find((o) => o.name === name) ??
      found.find((o) => o.name.toLowerCase() === name.toLowerCase())
    if (object !== undefined) {
      return { info: tableInfo(db, object), key: end === reference.length ? undefined : reference.slice(end + 1) }
    }
  }
  const colon = reference.indexOf(":")
  throw notFound(colon < 0 ? reference : reference.slice(0, colon), found)
}

const tableInfo = (db: Connection, object: SchemaObject): TableInfo => {
  let columns: Array<Column>
  try {
    // Hidden columns of virtual tables (hidden = 1) are not in `SELECT *`; generated ones are.
    columns = prepare(db, "SELECT name, type, pk, hidden FROM pragma_table_xinfo(?)").all(object.name)
      .filter(([, , , hidden]) => num(hidden) !== 1)
      .map(([name, type, pk]) => ({ name: String(name), type: String(type ?? ""), pk: num(pk) }))
  } catch {
    columns = []
  }
  if (columns.length === 0) throw new DatabaseFailure(`SQLite schema for table '${object.name}' is unavailable`)
  const taken = new Set(columns.map((column) => column.name.toLowerCase()))
  const rowid = object.type === "view" ? undefined : ["rowid", "_rowid_", "oid"].find((alias) => {
    if (taken.has(alias)) return false
    try {
      db.prepare(`SELECT ${alias} FROM ${quote(object.name)} LIMIT 0`)
      return true
    } catch {
      return false // WITHOUT ROWID
    }
  })
  return { object, columns, rowid }
}

/**
 * The SELECT list for columns: each as its type (text with its length) and a bounded value
 * (blob sizes, text cut at `MAX_VALUE_CHARS`), so large values never leave SQLite whole. Each
 * text is measured once: `length()` walks all of it.
 */
const projection = (names: ReadonlyArray<string>) => {
  if (names.length > MAX_PROJECTED_COLUMNS) {
    return {
      projected: false,
      sql: names.map(quote).join(", "),
      // The query process cuts long text and turns blobs into sizes itself.
      decode: (row: ReadonlyArray<unknown>): Array<Value> => row.map((value) => value as Value)
    }
  }
  const sql = names.map((name) => {
    const q = quote(name)
    return `CASE typeof(${q}) WHEN 'text' THEN 'text:' || length(${q}) ELSE typeof(${q}) END, ` +
      `CASE typeof(${q}) WHEN 'blob' THEN length(${q}) WHEN 'text' THEN substr(${q}, 1, ${MAX_VALUE_CHARS}) ELSE ${q} END`
  }).join(", ")
  const decode = (row: ReadonlyArray<unknown>): Array<Value> =>
    names.map((_, i) => {
      const type = String(row[2 * i])
      const value = row[2 * i + 1]
      if (type === "blob") return { _tag: "Blob" as const, bytes: num(value) }
      if (type.startsWith("text:")) {
        const chars = num(type.slice(5))
        return chars > MAX_VALUE_CHARS ? { _tag: "LongText" as const, text: String(value), chars } : String(value)
      }
      return value as Value
    })
  return { projected: true, sql, decode }
}

interface Page {
  readonly rows: ReadonlyArray<ReadonlyArray<Value>>
  /** Rows after the page, counted up to the probe cap; `more` says the count is a lower bound. */
  readonly after: number
  readonly afterIsLowerBound: boolean
  /** Rows in all (the rows before the page included), up to the probe cap past the page. */
  readonly total: number
}

const orderClause = (info: TableInfo, terms: ReadonlyArray<OrderTerm>): string => {
  const parts = terms.map((term) => {
    const column = info.columns.find((c) => c.name === term.column) ??
      info.columns.find((c) => c.name.toLowerCase() === term.column.toLowerCase())
    const name = column?.name ??
      (info.rowid !== undefined && ["rowid", "_rowid_", "oid"].includes(term.column.toLowerCase())
        ? info.rowid
        : undefined)
    if (name === undefined) {
      throw new DatabaseFailure(
        `SQLite order column '${term.column}' not found in table schema; columns: ${
          info.columns.map((c) => c.name).join(", ")
        }`
      )
    }
    return `${name === info.rowid && column === undefined ? name : quote(name)}${term.descending ? " DESC" : ""}`
  })
  // Ties are broken by the row's identity, so consecutive pages neither repeat nor skip rows.
  const identity = info.rowid !== undefined
    ? [info.rowid]
    : info.columns.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => quote(c.name))
  const all = [...parts, ...identity.filter((id) => !parts.some((part) => part === id || part === `${id} DESC`))]
  return all.length === 0 ? "" : ` ORDER BY ${all.join(", ")}`
}

/**
 * A statement that reads rows, compiled here first: a bad `where` or query fails with SQLite's
 * reason before anything runs, and only statements that cannot write are ever sent.
 */
const fetchOf = (db: Connection, sql: string, params: ReadonlyArray<unknown>, maxRows: number): Fetch => {
  const statement = prepare(db, sql)
  if (!statement.readonly || !statement.reader) throw new DatabaseFailure("SQLite reads run only statements that read")
  return { sql, params, maxRows }
}

/** The statements behind a page of rows (the rows, then a bounded count), and what they mean. */
const pageFetches = (
  db: Connection,
  info: TableInfo,
  query: {
    readonly limit: number
    readonly offset: number
    readonly order: string | undefined
    readonly where: string | undefined
  }
): { readonly fetches: ReadonlyArray<Fetch>; readonly page: (results: ReadonlyArray<Fetched>) => Page } => {
  const from = quote(info.object.name) + (query.where === undefined ? "" : ` WHERE (${query.where})`)
  const terms = query.order === undefined ? [] : parseOrder(query.order)
  if (terms instanceof SelectorFailure) throw new DatabaseFailure(terms.message)
  const { decode, sql } = projection(info.columns.map((column) => column.name))
  // Counted past the page's end, so the count does not wait for the rows.
  const cap = query.offset + query.limit + COUNT_PROBE_CAP
  const fetches = [
    fetchOf(
      db,
      `SELECT ${sql} FROM ${from}${orderClause(info, terms)} LIMIT ? OFFSET ?`,
      [query.limit, query.offset],
      query.limit
    ),
    fetchOf(db, `SELECT count(*) FROM (SELECT 1 FROM ${from} LIMIT ${cap + 1})`, [], 1)
  ]
  const page = ([rows, count]: ReadonlyArray<Fetched>): Page => {
    const decoded = (rows?.rows ?? []).map(decode)
    const seen = query.offset + decoded.length
    const total = num(count?.rows[0]?.[0])
    return { rows: decoded, after: Math.max(0, total - seen), afterIsLowerBound: total > cap, total }
  }
  return { fetches, page }
}

/** Table lines that fit the budget, and how many rows they hold. */
const fitTable = (
  columns: ReadonlyArray<string>,
  rows: ReadonlyArray<ReadonlyArray<Value>>,
  firstRow: number,
  budget: Budget
): { readonly lines: Array<string>; readonly rows: number } => {
  const layout = layoutTable(columns, rows, firstRow)
  const lines = [...layout.head]
  budget.takeAll(layout.head)
  let shown = 0
  for (const row of layout.rows) {
    if (!budget.takeAll(row)) break
    lines.push(...row)
    shown++
  }
  const first = layout.rows[0]
  if (shown === 0 && first !== undefined) {
    // One row larger than the budget (hundreds of columns): show what fits of it and move on.
    for (const line of first) {
      if (!budget.take(line)) break
      lines.push(line)
    }
    lines.push(`… (row cut at ${budget.label}; use ?q=SELECT with fewer columns to see the rest)`)
    shown = 1
  }
  if (rows.length === 0) lines.push("(no rows)")
  return { lines, rows: shown }
}

interface PageAfter {
  readonly limit: number
  readonly offset: number
  readonly order?: string | undefined
  readonly where?: string | undefined
}

/** The selector of a page of rows: `users?limit=20&offset=40&order=…&where=…`. */
const pageSelector = (table: string, next: PageAfter): string =>
  `${table}?${
    [
      `limit=${next.limit}`,
      `offset=${next.offset}`,
      ...(next.order === undefined ? [] : [`order=${encodeValue(next.order)}`]),
      ...(next.where === undefined ? [] : [`where=${encodeValue(next.where)}`])
    ].join("&")
  }`

const continuation = (
  table: string,
  more: { readonly rows: number; readonly lowerBound: boolean; readonly capped: boolean; readonly label: string },
  next: PageAfter
): string => {
  // A count that stopped at the probe cap reads as the list's does: `50000+` is more than 50000.
  const count = more.lowerBound ? `${more.rows - 1}+` : `${more.rows}`
  return `[${count} more ${more.rows === 1 && !more.lowerBound ? "row" : "rows"}${
    more.capped ? ` (output capped at ${more.label})` : ""
  }; append :${pageSelector(table, next)} to the database path to continue]`
}

/**
 * Rows of a table shown (`shown` of the page fetched): the lines, with the continuation line and
 * the selector that reads on (`after`) when more rows follow.
 */
const rowsShown = (
  name: string,
  lines: Array<string>,
  page: { readonly rows: ReadonlyArray<unknown>; readonly after: number; readonly afterIsLowerBound: boolean },
  shown: number,
  after: PageAfter,
  label: string
): Shown => {
  const more = page.after + page.rows.length - shown
  if (more > 0) {
    lines.push(
      continuation(
        name,
        { rows: more, lowerBound: page.afterIsLowerBound, capped: shown < page.rows.length, label },
        after
      )
    )
  }
  return {
    lines,
    truncated: more > 0,
    suffix: `:${escapeText(name)}`,
    ...(more > 0 ? { next: { selector: pageSelector(name, after) } } : {})
  }
}

/** Schema text: tabs as three spaces, each line at most `MAX_VALUE_CHARS` characters. */
const schemaLines = (sql: string): Array<string> =>
  sql.replace(/\t/g, "   ").split(/\r\n|\r|\n/).map((line) =>
    line.length > MAX_VALUE_CHARS ? `${line.slice(0, MAX_VALUE_CHARS)}…` : line
  )

/** Bytes a schema leaves for the sample rows and its notices when its indexes and triggers are long. */
const SAMPLE_RESERVE = 12 * 1024

/**
 * The CREATE statement, then its indexes and triggers while they fit the page with room left for
 * the sample rows: whole statements only, and a line saying how to list those left out (PROJ's
 * proj.db has views with 36 triggers, 130 KB of SQL).
 */
const schemaText = (info: TableInfo, related: ReadonlyArray<string>, budget: Budget): Array<string> => {
  const lines: Array<string> = []
  const own = schemaLines(info.object.sql!)
  if (budget.takeAllLeaving(own, SAMPLE_RESERVE)) lines.push(...own)
  else {
    for (const line of own) {
      if (!budget.takeAllLeaving([line], SAMPLE_RESERVE)) break
      lines.push(line)
    }
    lines.push(
      `… (the CREATE statement is cut at ${budget.label}; append ?q=SELECT substr(sql, 1, ${MAX_VALUE_CHARS}) FROM sqlite_master WHERE name = ${
        sqlString(info.object.name)
      } to the database path to read it ${MAX_VALUE_CHARS} characters at a time)`
    )
    budget.take(lines[lines.length - 1]!)
  }
  let shown = 0
  if (lines.length === own.length) {
    for (const statement of related) {
      const statementLines = schemaLines(statement)
      if (!budget.takeAllLeaving(statementLines, SAMPLE_RESERVE)) break
      lines.push(...statementLines)
      shown++
    }
  }
  if (shown < related.length) {
    const notice =
      `[${
        related.length - shown
      } of ${related.length} indexes and triggers not shown (output capped at ${budget.label}); ` +
      `append ?q=SELECT type, name FROM sqlite_master WHERE tbl_name = ${
        sqlString(info.object.name)
      } AND type IN ('index', 'trigger') to the database path to list them]`
    budget.take(notice)
    lines.push(notice)
  }
  return lines
}

/** A SQL string literal. */
const sqlString = (text: string): string => `'${escapeText(text).replace(/'/g, "''")}'`

/** `app.db:users`: the CREATE statement (with its indexes and triggers) and the first rows. */
export const showSchema = (db: Connection, info: TableInfo, budget: Budget): Plan => {
  const name = info.object.name
  if (info.object.sql === null) throw new DatabaseFailure(`SQLite schema for table '${name}' is unavailable`)
  const related = all(
    db,
    "SELECT sql FROM sqlite_master WHERE tbl_name = ? AND type IN ('index', 'trigger') AND sql IS NOT NULL ORDER BY type, name",
    name
  ).map(([sql]) => String(sql))
  const { fetches, page: pageOf } = pageFetches(db, info, {
    limit: SAMPLE_ROWS,
    offset: 0,
    order: undefined,
    where: undefined
  })
  return {
    fetches,
    show: (results) => {
      const lines = schemaText(info, related, budget)
      lines.push("", "Sample rows:")
      const page = pageOf(results)
      const table = fitTable(info.columns.map((c) => c.name), page.rows, 1, budget)
      lines.push(...table.lines)
      return rowsShown(name, lines, page, table.rows, { limit: 20, offset: table.rows }, budget.label)
    }
  }
}

const INTEGER = /^[+-]?\d+$/
const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n
const asInteger = (key: string): bigint | undefined => {
  if (!INTEGER.test(key.trim())) return undefined
  const value = BigInt(key.trim())
  return value < INT64_MIN || value > INT64_MAX ? undefined : value
}

/** The key as the primary key column's affinity wants it. */
const keyValue = (column: Column, key: string): unknown => {
  const type = column.type.toUpperCase()
  if (type.includes("INT")) {
    const value = asInteger(key)
    if (value === undefined) throw new DatabaseFailure(`Primary key '${column.name}' must be an integer; got '${key}'`)
    return value
  }
  if (/CHAR|CLOB|TEXT/.test(type)) return key
  if (/REAL|FLOA|DOUB/.test(type)) {
    const value = Number(key)
    if (key.trim() === "" || !Number.isFinite(value)) {
      throw new DatabaseFailure(`Primary key '${column.name}' must be a number; got '${key}'`)
    }
    return value
  }
  if (type === "" || type.includes("BLOB")) {
    // No affinity: SQLite compares the key as given, so pass what it looks like.
    const integer = asInteger(key)
    if (integer !== undefined) return integer
    return key.trim() !== "" && Number.isFinite(Number(key)) ? Number(key) : key
  }
  return key // NUMERIC affinity converts a numeric string itself.
}

/** `app.db:users:42`: one row by its primary key, or by rowid when there is none. */
export const showRow = (db: Connection, info: TableInfo, key: string, budget: Budget): Plan => {
  const name = info.object.name
  if (key.length === 0) {
    throw new DatabaseFailure(`SQLite row lookups need a key after the table name, e.g. ':${name}:1'`)
  }
  const pk = info.columns.filter((column) => column.pk > 0)
  if (pk.length > 1) {
    throw new DatabaseFailure(`SQLite table '${name}' has a composite primary key; use '?where=' instead`)
  }
  let where: string
  let value: unknown
  if (pk.length === 1) {
    where = quote(pk[0]!.name)
    value = keyValue(pk[0]!, key)
  } else {
    if (info.rowid === undefined) {
      throw new DatabaseFailure(`SQLite table '${name}' does not expose ROWID; use '?where=' instead`)
    }
    const rowid = asInteger(key)
    if (rowid === undefined) throw new DatabaseFailure(`SQLite ROWID must be an integer; got '${key}'`)
    where = info.rowid
    value = rowid
  }
  const { decode, sql } = projection(info.columns.map((column) => column.name))
  return {
    fetches: [fetchOf(db, `SELECT ${sql} FROM ${quote(name)} WHERE ${where} = ? LIMIT 1`, [value], 1)],
    show: ([result]) => {
      const row = result?.rows[0]
      if (row === undefined) {
        return {
          lines: [`No row found in table '${name}' for key '${key}'.`],
          truncated: false,
          suffix: `:${escapeText(name)}:${escapeText(key)}`
        }
      }
      // Each value may be 2,000 characters: a row of many long columns is cut at the page's cap.
      const all = rowLines(info.columns.map((c) => c.name), decode(row))
      const lines: Array<string> = []
      for (const line of all) {
        if (!budget.take(line)) break
        lines.push(line)
      }
      const cut = lines.length < all.length
      if (cut) {
        lines.push(
          `… (row cut at ${budget.label} after ${plural(lines.length, "column")} of ${all.length}; ` +
            "use ?q=SELECT with the columns you need to see the rest)"
        )
      }
      return {
        lines,
        truncated: cut,
        suffix: `:${escapeText(name)}:${escapeText(key)}`
      }
    }
  }
}

/** `app.db:users?limit=&offset=&order=&where=`: a page of rows. */
export const showPage = (db: Connection, info: TableInfo, query: PageQuery, budget: Budget): Plan => {
  const name = info.object.name
  const { fetches, page: pageOf } = pageFetches(db, info, query)
  return {
    fetches,
    show: (results) => {
      const page = pageOf(results)
      if (page.rows.length === 0 && query.offset > 0) {
        throw new DatabaseFailure(
          `SQLite offset ${query.offset} is past the last row (${
            query.where === undefined
              ? `'${name}' has ${plural(page.total, "row")}`
              : `${plural(page.total, "row matches", "rows match")} the where clause`
          }); use offset=0 to start from the first row`
        )
      }
      const table = fitTable(info.columns.map((c) => c.name), page.rows, query.offset + 1, budget)
      return rowsShown(name, [...table.lines], page, table.rows, {
        limit: query.limit,
        offset: query.offset + table.rows,
        order: query.order,
        where: query.where
      }, budget.label)
    }
  }
}

const READ_STATEMENTS = "use SELECT, WITH, VALUES, EXPLAIN or a PRAGMA that reads"

/** The statement without its terminating `;` and what follows it (spaces, comments). */
export const statementBody = (sql: string): string => {
  let quoted: string | undefined
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i]!
    if (quoted !== undefined) {
      if (c === quoted) quoted = undefined // a doubled quote closes and reopens: the same
    } else if (c === "'" || c === "\"" || c === "`") {
      quoted = c
    } else if (c === "[") {
      quoted = "]"
    } else if (c === "-" && sql[i + 1] === "-") {
      const end = sql.indexOf("\n", i)
      if (end < 0) return sql
      i = end
    } else if (c === "/" && sql[i + 1] === "*") {
      const end = sql.indexOf("*/", i + 2)
      if (end < 0) return sql
      i = end + 1
    } else if (c === ";") {
      return sql.slice(0, i)
    }
  }
  return sql
}

/**
 * A query's rows as the table pages fetch theirs (type and a bounded value per column: text cut
 * at `MAX_VALUE_CHARS`, blobs as sizes), so a huge value never leaves SQLite whole: the query
 * becomes a CTE under a name it does not use, with its columns renamed by position. Only
 * SELECT, WITH and VALUES can be one; `undefined` when it cannot be wrapped.
 */
const boundedQuery = (db: Connection, sql: string, keyword: string, columns: number) => {
  if (!["SELECT", "WITH", "VALUES"].includes(keyword)) return undefined
  const names = Array.from({ length: columns }, (_, i) => `c${i}`)
  const { decode, projected, sql: select } = projection(names)
  if (!projected) return undefined
  let name = "effect_read_query"
  for (let n = 1; sql.toLowerCase().includes(name); n++) name = `effect_read_query_${n}`
  const wrapped = `WITH ${quote(name)}(${names.map(quote).join(", ")}) AS (\n${
    statementBody(sql)
  }\n) SELECT ${select} FROM ${quote(name)}`
  try {
    const statement = db.prepare(wrapped)
    return statement.readonly && statement.reader && statement.columns().length === 2 * columns
      ? { sql: wrapped, decode }
      : undefined
  } catch {
    return undefined
  }
}

/** Values a query process cut at `MAX_VALUE_CHARS`. */
const cutValues = (rows: ReadonlyArray<ReadonlyArray<Value>>): number =>
  rows.reduce(
    (sum, row) =>
      sum +
      row.filter((value) => typeof value === "object" && value !== null && "_tag" in value && value._tag === "LongText")
        .length,
    0
  )

/**
 * `app.db?q=SELECT …`: one read-only statement, its first `MAX_RAW_ROWS` rows, at most
 * `MAX_FETCH_BYTES` of values, each value cut at `MAX_VALUE_CHARS` characters.
 */
export const runQuery = (db: Connection, sql: string, budget: Budget): Plan => {
  const keyword = leadingKeyword(sql)
  if (keyword === "ATTACH" || keyword === "DETACH") {
    throw new DatabaseFailure("SQLite raw queries cannot ATTACH or DETACH databases; a read sees this database only")
  }
  let statement: Statement
  try {
    statement = db.prepare(sql)
  } catch (error) {
    throw new DatabaseFailure(
      /more than one statement/i.test(messageOf(error))
        ? "SQLite raw queries must be a single statement; remove the ';' and what follows it"
        : `SQLite query failed: ${messageOf(error)}`
    )
  }
  // A read-only connection with query_only on still runs VACUUM INTO (a new file), CREATE TEMP
  // and PRAGMA query_only = OFF: only statements that read and cannot write are run.
  const what = keyword === "" ? "statement" : `${keyword} statement`
  if (!statement.readonly) {
    throw new DatabaseFailure(`SQLite raw queries are read-only; this ${what} would write (${READ_STATEMENTS})`)
  }
  if (!statement.reader) {
    throw new DatabaseFailure(`SQLite raw queries must return rows; this ${what} returns none (${READ_STATEMENTS})`)
  }
  try {
    statement.bind()
  } catch (error) {
    throw new DatabaseFailure(
      /parameter/i.test(messageOf(error))
        ? "SQLite raw queries do not support bound parameters"
        : `SQLite query failed: ${messageOf(error)}`
    )
  }
  const columns = statement.columns().map((column) => column.name)
  const bounded = boundedQuery(db, sql, keyword, columns.length)
  return {
    fetches: [{ sql: bounded?.sql ?? sql, params: [], maxRows: MAX_RAW_ROWS }],
    show: ([result]) => {
      const raw = result?.rows ?? []
      const rows = bounded === undefined ? raw.map((row) => row as Array<Value>) : raw.map(bounded.decode)
      const table = fitTable(columns, rows, 1, budget)
      const lines = [...table.lines]
      const next = "add a LIMIT/OFFSET clause to the query to page through more"
      if (table.rows < rows.length) {
        lines.push(`[Output capped at ${budget.label} after ${plural(table.rows, "row")}; ${next}]`)
      } else if (result?.stopped === "bytes") {
        lines.push(
          `[Output capped at ${formatBytes(MAX_FETCH_BYTES)} of values after ${plural(rows.length, "row")}; ${next}]`
        )
      } else if (result?.stopped === "rows") {
        lines.push(`[Output capped at ${MAX_RAW_ROWS} rows; ${next}]`)
      }
      const cut = cutValues(rows.slice(0, table.rows))
      if (cut > 0) {
        lines.push(
          `[${plural(cut, "value")} longer than ${MAX_VALUE_CHARS} characters ${
            cut === 1 ? "was" : "were"
          } cut as fetched; select substr(<column>, <start>, ${MAX_VALUE_CHARS}) to read a part]`
        )
      }
      return { lines, truncated: result?.stopped !== undefined || table.rows < rows.length, suffix: "" }
    }
  }
}
