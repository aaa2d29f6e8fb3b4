/**
 * What a path asks of a SQLite database: `app.db`, `app.db:users`, `app.db:users:42`,
 * `app.db:users?limit=&offset=&order=col:desc&where=…`, `app.db?q=SELECT …`. Pure parsing and
 * guards; table and column names are checked against the schema once the database is open.
 */

export const DEFAULT_PAGE_ROWS = 20
export const MAX_PAGE_ROWS = 500
export const SAMPLE_ROWS = 5

export class SelectorFailure {
  readonly _tag = "SelectorFailure"
  constructor(readonly message: string) {}
}

export interface PageQuery {
  readonly limit: number
  readonly offset: number
  /** As written: `col`, `col:desc`, or a comma-separated list of those. */
  readonly order: string | undefined
  readonly where: string | undefined
}

export type DatabaseSelector =
  | { readonly kind: "list" }
  | { readonly kind: "raw"; readonly sql: string }
  /** `reference` is `table` or `table:key`; the schema decides where the table name ends. */
  | { readonly kind: "table"; readonly reference: string; readonly query: PageQuery | undefined }

const RAW_ONLY = "SQLite raw queries cannot be combined with table selectors or pagination"
const KEYS = ["limit", "offset", "order", "where"] as const
type Key = typeof KEYS[number]

/**
 * A value as written, or URL-decoded when it looks encoded (`SELECT+1`, `id%3E5`) and holds no
 * space: SQL typed into a path (`name LIKE '%ab%'`, `1+1`) is kept as it is.
 */
export const decodeValue = (value: string): string => {
  if (/\s/.test(value) || !/\+|%[0-9a-f]{2}/i.test(value)) return value
  try {
    return decodeURIComponent(value.replace(/\+/g, " "))
  } catch {
    return value
  }
}

/** Split `a=1&b='x&y'` at the `&`s outside quotes. */
export const splitParams = (query: string): Array<string> => {
  const parts: Array<string> = []
  let start = 0
  let quote: string | undefined
  for (let i = 0; i < query.length; i++) {
    const c = query[i]!
    if (quote !== undefined) {
      if (c === quote) quote = undefined
    } else if (c === "'" || c === "\"" || c === "`") {
      quote = c
    } else if (c === "[") {
      quote = "]"
    } else if (c === "&") {
      parts.push(query.slice(start, i))
      start = i + 1
    }
  }
  parts.push(query.slice(start))
  return parts.filter((part) => part.length > 0)
}

/** What to write in a path for a parameter value so `parseSelector` reads it back. */
export const encodeValue = (value: string): string => {
  if (!/\s/.test(value)) return value.replace(/[%&+]/g, (c) => encodeURIComponent(c))
  // Spaces keep the value as written; a bare `&` would split it, so then all of it is encoded.
  const parts = splitParams(value)
  if (parts.length === 1 && parts[0] === value) return value
  try {
    return encodeURIComponent(value)
  } catch {
    return value // a lone surrogate: nothing to encode it as
  }
}

const nameOf = (part: string): string => {
  const eq = part.indexOf("=")
  return (eq < 0 ? part : part.slice(0, eq)).trim().toLowerCase()
}

export const parseSelector = (inner: string): DatabaseSelector | SelectorFailure => {
  const mark = inner.indexOf("?")
  const reference = mark < 0 ? inner : inner.slice(0, mark)
  const query = mark < 0 ? "" : inner.slice(mark + 1)

  if (/^q=/i.test(query)) {
    // Everything after `q=` is the SQL: `&` and `=` in it are SQL, not parameter syntax.
    if (reference.length > 0) return new SelectorFailure(RAW_ONLY)
    const sql = decodeValue(query.slice(2)).trim()
    if (sql.length === 0) return new SelectorFailure("SQLite query parameter 'q' cannot be empty")
    return { kind: "raw", sql }
  }
  const parts = splitParams(query)
  if (parts.some((part) => nameOf(part) === "q")) {
    return new SelectorFailure(
      parts.length === 1 && reference.length === 0 ? "SQLite query parameter 'q' cannot be empty" : RAW_ONLY
    )
  }
  if (reference.length === 0) {
    return parts.length === 0
      ? { kind: "list" }
      : new SelectorFailure("SQLite query parameters require a table selector or q=SELECT...")
  }
  if (reference.trim().length === 0 || reference.startsWith(":")) {
    return new SelectorFailure("SQLite selectors must include a table name")
  }
  if (parts.length === 0) return { kind: "table", reference, query: undefined }

  const values: Partial<Record<Key, string>> = {}
  for (const part of parts) {
    const key = nameOf(part)
    if (!(KEYS as ReadonlyArray<string>).includes(key)) {
      return new SelectorFailure(
        `Unsupported SQLite query parameter '${key}'; use limit, offset, order and where (or q=SELECT... alone)`
      )
    }
    if (values[key as Key] !== undefined) return new SelectorFailure(`SQLite query parameter '${key}' is given twice`)
    const eq = part.indexOf("=")
    values[key as Key] = eq < 0 ? "" : decodeValue(part.slice(eq + 1))
  }

  let limit = DEFAULT_PAGE_ROWS
  if (values.limit !== undefined) {
    const text = values.limit.trim()
    if (!/^\d+$/.test(text) || Number(text) < 1) {
      return new SelectorFailure(`SQLite limit must be a positive integer; got '${values.limit}'`)
    }
    limit = Math.min(MAX_PAGE_ROWS, Number(text))
  }
  let offset = 0
  if (values.offset !== undefined) {
    const text = values.offset.trim()
    if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text))) {
      return new SelectorFailure(`SQLite offset must be a non-negative integer; got '${values.offset}'`)
    }
    offset = Number(text)
  }
  let order: string | undefined
  if (values.order !== undefined) {
    const terms = parseOrder(values.order)
    if (terms instanceof SelectorFailure) return terms
    order = values.order.trim()
  }
  let where: string | undefined
  if (values.where !== undefined) {
    const failure = checkWhere(values.where)
    if (failure !== undefined) return failure
    where = values.where.trim()
  }
  return { kind: "table", reference, query: { limit, offset, order, where } }
}

export interface OrderTerm {
  readonly column: string
  readonly descending: boolean
}

/** `col`, `col:asc`, `col:desc`, or several joined by `,`; the direction is after the last `:`. */
export const parseOrder = (order: string): ReadonlyArray<OrderTerm> | SelectorFailure => {
  const terms: Array<OrderTerm> = []
  for (const raw of order.split(",")) {
    const term = raw.trim()
    const colon = term.lastIndexOf(":")
    const column = (colon < 0 ? term : term.slice(0, colon)).trim()
    const direction = colon < 0 ? "asc" : term.slice(colon + 1).trim()
    if (column.length === 0) return new SelectorFailure(`SQLite order must name a column; got '${order}'`)
    if (!/^(?:asc|desc)$/i.test(direction)) {
      return new SelectorFailure(`SQLite order direction must be 'asc' or 'desc'; got '${direction}'`)
    }
    terms.push({ column, descending: /^desc$/i.test(direction) })
  }
  return terms
}

const FORBIDDEN = /\b(?:LIMIT|OFFSET|UNION|INTERSECT|EXCEPT|ATTACH|DETACH|PRAGMA)\b/i
const PARAMETER = /\?|(?:^|[^\w$])[:@$][A-Za-z_]/

/**
 * A `where` clause is one boolean expression: outside its string literals and quoted names it
 * holds no statement terminator, comment, clause that changes the page, compound query, bound
 * parameter or unbalanced parenthesis.
 */
export const checkWhere = (where: string): SelectorFailure | undefined => {
  if (where.trim().length === 0) return new SelectorFailure("SQLite 'where' clause cannot be empty")
  let outside = ""
  let quote: string | undefined
  for (let i = 0; i < where.length; i++) {
    const c = where[i]!
    if (quote !== undefined) {
      if (c === quote) {
        // A doubled quote is an escaped quote inside the literal.
        if (where[i + 1] === quote && quote !== "]") i++
        else {
          quote = undefined
          outside += " "
        }
      }
      continue
    }
    if (c === "'" || c === "\"" || c === "`") quote = c
    else if (c === "[") quote = "]"
    else outside += c
  }
  if (quote !== undefined) {
    return new SelectorFailure(
      `SQLite 'where' clause has an unterminated ${quote === "'" ? "string literal" : "quoted name"}`
    )
  }
  if (/;|--|\/\*|\*\//.test(outside)) {
    return new SelectorFailure(
      "SQLite 'where' clause must not contain comments or statement terminators; use '?q=SELECT ...' for raw SQL"
    )
  }
  if (FORBIDDEN.test(outside)) {
    return new SelectorFailure(
      "SQLite 'where' clause must not contain LIMIT/OFFSET/UNION/INTERSECT/EXCEPT/ATTACH/DETACH/PRAGMA; use '?q=SELECT ...' for raw SQL"
    )
  }
  if (PARAMETER.test(outside)) {
    return new SelectorFailure(
      "SQLite where clause changed the expected pagination parameters; use q=SELECT ... for raw SQL"
    )
  }
  let depth = 0
  for (const c of outside) {
    depth += c === "(" ? 1 : c === ")" ? -1 : 0
    if (depth < 0) break
  }
  if (depth !== 0) return new SelectorFailure("SQLite 'where' clause has unbalanced parentheses")
  return undefined
}

/** The first keyword of a statement, past leading comments and parentheses. */
export const leadingKeyword = (sql: string): string => {
  const stripped = sql.replace(/^(?:\s+|--[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/|\()*/, "")
  return (/^[A-Za-z]+/.exec(stripped)?.[0] ?? "").toUpperCase()
}
