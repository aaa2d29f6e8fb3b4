/**
 * .xlsx with exceljs: each sheet as `## Sheet: name` and a markdown table whose header is the
 * sheet's first non-empty row. Rows, columns and cell text are bounded, with notices.
 */
import type ExcelJS from "exceljs"
import { formatBytes } from "../../core/format.js"
import { MAX_CELL_CHARS, MAX_SHEET_COLUMNS, MAX_SHEET_ROWS, MAX_TEXT_CHARS } from "./limits.js"
import { markdownTable } from "./markdown.js"
import type { Converted } from "./types.js"
import { openZip } from "./zip.js"

const isoDate = (date: Date): string => {
  if (Number.isNaN(date.getTime())) return "#INVALID DATE"
  const iso = date.toISOString()
  return iso.endsWith("T00:00:00.000Z") ? iso.slice(0, 10) : iso.replace(".000Z", "Z")
}

/** A cell value as text: dates in ISO form, formulas by their cached result. */
export const cellValueText = (value: ExcelJS.CellValue): string => {
  if (value === null || value === undefined) return ""
  if (value instanceof Date) return isoDate(value)
  if (typeof value === "boolean") return value ? "TRUE" : "FALSE"
  if (typeof value === "number" || typeof value === "string") return String(value)
  if (typeof value === "object") {
    if ("richText" in value && Array.isArray(value.richText)) return value.richText.map((run) => run.text).join("")
    if ("error" in value) return String(value.error)
    if ("formula" in value || "sharedFormula" in value) {
      const result = (value as { result?: unknown }).result
      const formula = (value as { formula?: string; sharedFormula?: string }).formula ??
        (value as { sharedFormula?: string }).sharedFormula ?? ""
      return result === undefined ? `=${formula}` : cellValueText(result as ExcelJS.CellValue)
    }
    if ("text" in value) {
      const text = (value as { text: unknown }).text
      return typeof text === "string" ? text : cellValueText(text as ExcelJS.CellValue)
    }
  }
  return String(value)
}

const clip = (text: string): string => (text.length > MAX_CELL_CHARS ? `${text.slice(0, MAX_CELL_CHARS)}…` : text)

const plural = (count: number, unit: string) => `${count} ${unit}${count === 1 ? "" : "s"}`

const renderSheet = (sheet: ExcelJS.Worksheet): Array<string> => {
  const state = sheet.state === "visible" ? "" : ` (${sheet.state})`
  const heading = `## Sheet: ${sheet.name}${state}`
  const rows: Array<Array<string>> = []
  let width = 0
  let columns = 0
  let nonEmpty = 0
  sheet.eachRow({ includeEmpty: false }, (row) => {
    const cells: Array<string> = []
    const last = Math.min(row.cellCount, MAX_SHEET_COLUMNS)
    columns = Math.max(columns, row.cellCount)
    for (let c = 1; c <= last; c++) cells.push(clip(cellValueText(row.getCell(c).value)))
    while (cells.length > 0 && cells[cells.length - 1] === "") cells.pop()
    if (cells.length === 0 && row.cellCount <= MAX_SHEET_COLUMNS) return
    nonEmpty++
    if (rows.length < MAX_SHEET_ROWS + 1) {
      rows.push(cells)
      width = Math.max(width, cells.length)
    }
  })
  if (rows.length === 0) return [heading, "", "[empty sheet]"]
  const notices: Array<string> = []
  if (nonEmpty > rows.length) {
    notices.push(`[${plural(nonEmpty - rows.length, "more row")} not shown; the sheet has ${nonEmpty} non-empty rows]`)
  }
  if (columns > MAX_SHEET_COLUMNS) {
    notices.push(`[${plural(columns - MAX_SHEET_COLUMNS, "more column")} not shown; the sheet has ${columns} columns]`)
  }
  return [
    heading,
    "",
    ...markdownTable(rows.map((row) => [...row, ...Array<string>(width - row.length).fill("")])),
    ...(notices.length > 0 ? ["", ...notices] : [])
  ]
}

/** `Excel` is the optional package's default export, loaded by the caller. */
export const convertXlsx = async (Excel: typeof ExcelJS, bytes: Buffer): Promise<Converted> => {
  const zip = await openZip(bytes, "xlsx")
  try {
    // exceljs inflates with its own zip reader: prove every entry's size first.
    await zip.verify()
  } finally {
    zip.close()
  }
  const workbook = new Excel.Workbook()
  await workbook.xlsx.load(bytes as unknown as Parameters<typeof workbook.xlsx.load>[0])
  const sheets: Array<string> = []
  let chars = 0
  for (const [i, sheet] of workbook.worksheets.entries()) {
    if (chars > MAX_TEXT_CHARS) {
      const rest = workbook.worksheets.slice(i).map((later) => later.name)
      sheets.push(
        `[conversion stopped: the text passed ${formatBytes(MAX_TEXT_CHARS)}; sheets not shown: ${rest.join(", ")}]`
      )
      break
    }
    const text = renderSheet(sheet).join("\n")
    sheets.push(text)
    chars += text.length
  }
  return { text: sheets.length === 0 ? "[the workbook has no sheets]\n" : `${sheets.join("\n\n")}\n` }
}
