/**
 * Rows as text: a bounded ASCII table (120 columns in all, 40 per column, `…` where a cell is
 * cut), or one `column: value` line per column when a table would be too narrow to read. Pure.
 */
import { formatBytes } from "../../core/format.js"

export const MAX_TABLE_WIDTH = 120
export const MAX_COLUMN_WIDTH = 40
/** Characters of one value shown in a row view (and fetched from the database for it). */
export const MAX_VALUE_CHARS = 2000
/** A column narrower than this (or its own width, when less) makes the table vertical. */
const MIN_READABLE_WIDTH = 5
const TAB = "   "

/** One value as fetched: `text` was cut at `MAX_VALUE_CHARS` when `chars` is given. */
export type Value =
  | null
  | bigint
  | number
  | string
  | Uint8Array
  | { readonly _tag: "Blob"; readonly bytes: number }
  | { readonly _tag: "LongText"; readonly text: string; readonly chars: number }

/** Text on one line: newlines as `\\n`, tabs as three spaces, other control characters as `\\xNN`. */
export const escapeText = (text: string): string =>
  text
    .replace(/\r\n|\r|\n/g, "\\n")
    .replace(/\t/g, TAB)
    // Other control characters would break the table (or a terminal): show them escaped.

    .replace(/[\x00-\x08\x0b-\x1f\x7f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`)

const blob = (bytes: number): string => `<BLOB ${formatBytes(bytes)}>`

/** A value as one line of text: `NULL`, `<BLOB 2.0 KB>`, numbers, escaped text. */
export const formatValue = (value: Value): string => {
  if (value === null || value === undefined) return "NULL"
  if (typeof value === "string") return escapeText(value)
  if (typeof value === "bigint" || typeof value === "number") return String(value)
  if (value instanceof Uint8Array) return blob(value.byteLength)
  if (typeof value === "object" && "_tag" in value) {
    return value._tag === "Blob" ? blob(value.bytes) : escapeText(value.text)
  }
  return escapeText(JSON.stringify(value) ?? String(value))
}

const chars = (text: string): Array<string> => Array.from(text)
const widthOf = (text: string): number => chars(text).length

/** Cut to `width` characters, the last one `…` when something was cut. */
export const fit = (text: string, width: number): string => {
  const all = chars(text)
  return all.length <= width ? text : `${all.slice(0, Math.max(0, width - 1)).join("")}…`
}

/** A row view line: the value up to `MAX_VALUE_CHARS`, then how long it really is. */
export const formatFullValue = (value: Value): string => {
  const text = formatValue(value)
  const total = typeof value === "object" && value !== null && "_tag" in value && value._tag === "LongText"
    ? value.chars
    : undefined
  if (total === undefined && widthOf(text) <= MAX_VALUE_CHARS) return text
  return `${chars(text).slice(0, MAX_VALUE_CHARS).join("")}… (${total ?? widthOf(text)} characters)`
}

export interface TableLayout {
  /** Header and divider (empty for the vertical layout). */
  readonly head: ReadonlyArray<string>
  /** The lines of each row, in order. */
  readonly rows: ReadonlyArray<ReadonlyArray<string>>
}

/**
 * Lay rows out as a table: widths from the header and cells, each at most 40, the widest
 * shrunk until the table fits in 120 columns. When that would leave a column unreadably
 * narrow, each row becomes a block of `column: value` lines instead.
 * `firstRow` numbers the blocks of the vertical layout.
 */
export const layoutTable = (
  columns: ReadonlyArray<string>,
  rows: ReadonlyArray<ReadonlyArray<Value>>,
  firstRow = 1
): TableLayout => {
  const header = columns.map(escapeText)
  const cells = rows.map((row) => row.map(formatValue))
  const natural = header.map((name, i) =>
    Math.min(MAX_COLUMN_WIDTH, Math.max(1, widthOf(name), ...cells.map((row) => widthOf(row[i] ?? ""))))
  )
  const widths = [...natural]
  const total = () => widths.reduce((sum, w) => sum + w, 0) + 3 * widths.length + 1
  while (total() > MAX_TABLE_WIDTH) {
    let widest = 0
    widths.forEach((w, i) => {
      if (w > widths[widest]!) widest = i
    })
    if (widths[widest]! <= 1) break
    widths[widest]! -= 1
  }
  const readable = widths.every((w, i) => w >= Math.min(natural[i]!, MIN_READABLE_WIDTH))
  if (!readable) {
    return {
      head: [],
      rows: cells.map((row, r) => [
        `── Row ${firstRow + r} ──`,
        ...header.map((name, i) => fit(`${name}: ${row[i] ?? ""}`, MAX_TABLE_WIDTH))
      ])
    }
  }
  const line = (values: ReadonlyArray<string>) => fit(`| ${values.join(" | ")} |`, MAX_TABLE_WIDTH)
  // Padded by characters, not UTF-16 units, so astral characters do not shift the columns.
  const cell = (value: string, i: number) => {
    const cut = fit(value, widths[i]!)
    return cut + " ".repeat(Math.max(0, widths[i]! - widthOf(cut)))
  }
  return {
    head: [line(header.map(cell)), line(widths.map((w) => "-".repeat(w)))],
    rows: cells.map((row) => [line(widths.map((_, i) => cell(row[i] ?? "", i)))])
  }
}

/** A single row as `column: value` lines. */
export const rowLines = (columns: ReadonlyArray<string>, row: ReadonlyArray<Value>): Array<string> =>
  columns.length === 0
    ? ["(no columns)"]
    : columns.map((name, i) => `${escapeText(name)}: ${formatFullValue(row[i] ?? null)}`)
