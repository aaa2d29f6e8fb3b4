/**
 * The bounds of converting notebooks and documents to text. Conversion holds the whole file and
 * its text in memory, so every input and every product is capped.
 */

/** Extensions converted to text. */
export const documentExtensions: ReadonlySet<string> = new Set([".docx", ".xlsx", ".pptx", ".epub", ".odt"])

/** Largest notebook or document converted (bytes on disk). */
export const MAX_DOCUMENT_BYTES = 50 * 1024 * 1024

/** Zip-based documents (.docx .xlsx .pptx .odt .epub): most bytes all entries may unpack to. */
export const MAX_UNPACKED_BYTES = 100 * 1024 * 1024

/** Zip-based documents: most entries in the archive. */
export const MAX_ZIP_ENTRIES = 10_000

/** Converted text kept (UTF-16 code units); conversion stops with a notice past this. */
export const MAX_TEXT_CHARS = 16 * 1024 * 1024

/** Spreadsheets: rows and columns shown per sheet, characters shown per cell. */
export const MAX_SHEET_ROWS = 1000
export const MAX_SHEET_COLUMNS = 50
export const MAX_CELL_CHARS = 200

/** Converted texts kept for paging through one document without converting it again. */
export const CACHE_ENTRIES = 8
export const CACHE_CHARS = 32 * 1024 * 1024
