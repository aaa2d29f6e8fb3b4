/**
 * The tool's description, generated from a template (`prompts/read.txt`, `prompts/read-short.txt`)
 * and what a host has: only what is enabled and installed is described, with the caps in force.
 *
 * A template line may start with a condition in brackets, `[archive] - Archives: …`: the line is
 * kept only when every comma-separated term holds (`!term` when it does not). `{name}` anywhere is
 * replaced by a value (`{lines}`, `{bytes}`, …). Lines without a condition are always kept.
 */
import { bytesLabel } from "./lines.js"

/** What the description depends on, as the host's services say it (`Read.description` gathers it). */
export interface DescriptionInput {
  /** Names of the registry's sources (`Sources`): `database`, `archive`, `pdf-text`, `media`, … */
  readonly sources: ReadonlyArray<string>
  /** Lower-case schemes the registry answers (`https`, `file`, …). */
  readonly schemes: ReadonlyArray<string>
  /** Optional packages that are installed (`OptionalPackages`). */
  readonly installed: ReadonlyArray<string>
  /** What the model takes besides text (`ModelInput`). */
  readonly modelInput: { readonly images: boolean; readonly pdfs: boolean }
  /** The caps of a page in force (`PageLimits`). */
  readonly page: {
    readonly lines: number
    readonly lineLength: number
    readonly bytes: number
    readonly mediaBytes: number
    readonly directoryEntries: number
  }
  /** Pixels on an attached image's longest side (`ImageLimits.maxDimension`). */
  readonly maxDimension: number
  /** PDF pages one `pageImages` read renders (`PdfPageImages.maxPages`). */
  readonly pdfPages: number
}

/** The conditions a template line can name, and whether they hold for `input`. */
export const featuresOf = (input: DescriptionInput): ReadonlySet<string> => {
  const has = (name: string) => input.sources.includes(name)
  const installed = (name: string) => input.installed.includes(name)
  const features = new Set<string>()
  if (has("archive")) features.add("archive")
  if (has("database") && installed("better-sqlite3")) features.add("database")
  if (has("notebook")) features.add("notebook")
  if (has("document")) features.add("documents")
  const pdfText = has("pdf-text") && installed("pdfjs-dist")
  if (pdfText) features.add("pdf-text")
  if (input.schemes.includes("https") || input.schemes.includes("http")) features.add("web")
  if (input.schemes.includes("file")) features.add("file-url")
  const media = has("media")
  if (media && input.modelInput.images) features.add("images")
  if (media && !input.modelInput.images) features.add("images-described")
  if (media && installed("sharp")) features.add("resize")
  if (input.modelInput.pdfs && (media || has("pdf-text"))) features.add("pdf-attach")
  if (
    has("pdf-text") && input.modelInput.images && installed("pdfjs-dist") && installed("@napi-rs/canvas")
  ) features.add("page-images")
  if (features.has("archive") || features.has("database")) features.add("containers")
  if (features.has("notebook") || features.has("documents") || features.has("pdf-text")) features.add("converted")
  return features
}

/** The formats of the document source that can be read here (.docx and .xlsx need their packages). */
const documentFormats = (input: DescriptionInput): string =>
  [
    ...(input.installed.includes("mammoth") ? [".docx"] : []),
    ...(input.installed.includes("exceljs") ? [".xlsx"] : []),
    ".pptx",
    ".epub",
    ".odt"
  ].join(", ")

/** The values `{name}` stands for. */
export const valuesOf = (input: DescriptionInput): Readonly<Record<string, string>> => {
  const features = featuresOf(input)
  const containers = [
    ...(features.has("archive") ? ["archives (\"a.zip\" lists it, \"a.tgz:dir/f.ts:10-20\" reads a member)"] : []),
    ...(features.has("database")
      ? ["SQLite (\"app.db\" lists tables, \"app.db:users\" a table, \"app.db?q=SELECT ...\")"]
      : [])
  ]
  const converted = [
    ...(features.has("notebook") ? [".ipynb"] : []),
    ...(features.has("documents") ? [documentFormats(input)] : []),
    ...(features.has("pdf-text") ? ["PDF (\"f.pdf:pages=3-5\")"] : [])
  ]
  return {
    ...pageValues(input),
    containers: containers.join("; "),
    converted: converted.join(", ")
  }
}

const pageValues = (input: DescriptionInput): Readonly<Record<string, string>> => ({
  lines: String(input.page.lines),
  lineLength: String(input.page.lineLength),
  bytes: bytesLabel(input.page.bytes),
  mediaBytes: bytesLabel(input.page.mediaBytes),
  entries: String(input.page.directoryEntries),
  maxDimension: String(input.maxDimension),
  pdfPages: String(input.pdfPages),
  documents: documentFormats(input)
})

const CONDITION = /^\[([^\]]*)\] ?/

/** Does `condition` (`a,!b`) hold? */
const holds = (condition: string, features: ReadonlySet<string>): boolean =>
  condition.split(",").map((term) => term.trim()).filter((term) => term !== "").every((term) =>
    term.startsWith("!") ? !features.has(term.slice(1)) : features.has(term)
  )

/** The template with the lines whose conditions fail left out and the values filled in. */
export const renderDescription = (template: string, input: DescriptionInput): string => {
  const features = featuresOf(input)
  const values = valuesOf(input)
  const kept: Array<string> = []
  for (const line of template.replace(/\n+$/, "").split("\n")) {
    const condition = CONDITION.exec(line)
    if (condition !== null && !holds(condition[1]!, features)) continue
    const text = condition === null ? line : line.slice(condition[0].length)
    kept.push(text.replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole))
  }
  return kept.join("\n")
}
