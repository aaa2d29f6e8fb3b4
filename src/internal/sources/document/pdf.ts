/**
 * PDF text with pdf.js (the legacy build runs in Node; with no worker configured it runs its
 * worker code in-process). Each page is marked `--- page N ---`; `:pages=` converts only the
 * pages asked for.
 */
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { formatBytes } from "../../core/format.js"
import type { LineRange } from "../../core/ranges.js"
import { clampPages, reasonOf, Unconvertible } from "./failure.js"
import { MAX_TEXT_CHARS } from "./limits.js"
import { tidy } from "./markdown.js"
import type { Converted } from "./types.js"

/** pdf.js's legacy build (an optional package, loaded by the caller). */
export type PdfJs = typeof import("pdfjs-dist/legacy/build/pdf.mjs")

interface TextPiece {
  readonly str: string
  readonly hasEOL: boolean
  readonly transform: ReadonlyArray<number>
  readonly height: number
}

const isPiece = (item: object): item is TextPiece => "str" in item

/** The lines of one page: pdf.js ends lines with `hasEOL`; a jump in baseline also starts one. */
export const pageText = (items: ReadonlyArray<object>): string => {
  const lines: Array<string> = []
  let line = ""
  let baseline: number | undefined
  for (const item of items) {
    if (!isPiece(item)) continue
    const y = item.transform[5] ?? 0
    if (baseline !== undefined && line.length > 0 && Math.abs(y - baseline) > Math.max(1, item.height / 2)) {
      lines.push(line)
      line = ""
    }
    line += item.str
    if (item.hasEOL) {
      lines.push(line)
      line = ""
      baseline = undefined
    } else {
      baseline = y
    }
  }
  if (line.length > 0) lines.push(line)
  return tidy(lines.join("\n"))
}

/**
 * pdf.js's data directories: CMaps map the character codes of CJK fonts to text (without them
 * such pages come out empty), standard font data helps with non-embedded fonts.
 */
const dataDirectories = (): { readonly cMapUrl?: string; readonly cMapPacked?: boolean; readonly standardFontDataUrl?: string } => {
  try {
    const root = dirname(createRequire(import.meta.url).resolve("pdfjs-dist/package.json"))
    return { cMapUrl: join(root, "cmaps/"), cMapPacked: true, standardFontDataUrl: join(root, "standard_fonts/") }
  } catch {
    return {}
  }
}

const openFailure = (error: unknown): Unconvertible => {
  const name = error instanceof Error ? error.name : ""
  if (name === "PasswordException") {
    return new Unconvertible("the PDF is encrypted and needs a password; its text cannot be extracted")
  }
  if (name === "InvalidPDFException") return new Unconvertible(`not a valid PDF (${reasonOf(error)})`)
  return new Unconvertible(`cannot open the PDF (${reasonOf(error)})`)
}

export const convertPdf = async (
  pdfjs: PdfJs,
  bytes: Uint8Array,
  pages: LineRange | undefined,
  signal: AbortSignal
): Promise<Converted> => {
  const task = pdfjs.getDocument({
    // pdf.js may transfer the buffer it is given: hand it a copy.
    data: new Uint8Array(bytes),
    verbosity: 0,
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    stopAtErrors: false,
    ...dataDirectories()
  })
  const abort = () => void task.destroy()
  signal.addEventListener("abort", abort)
  try {
    const document = await task.promise.catch((error: unknown) => {
      throw openFailure(error)
    })
    const count = document.numPages
    const range = pages === undefined
      ? { first: 1, last: count, note: undefined }
      : clampPages(pages, count, "page")
    const parts: Array<string> = []
    let chars = 0
    for (let n = range.first; n <= range.last; n++) {
      if (signal.aborted) throw new Unconvertible("conversion interrupted")
      let text: string
      try {
        const page = await document.getPage(n)
        const content = await page.getTextContent()
        page.cleanup()
        text = pageText(content.items)
        if (text.length === 0) text = "[no extractable text on this page]"
      } catch (error) {
        text = `[page ${n} could not be read: ${reasonOf(error)}]`
      }
      parts.push(`--- page ${n} ---\n${text}`)
      chars += text.length
      if (chars > MAX_TEXT_CHARS && n < range.last) {
        parts.push(
          `[conversion stopped after page ${n}: the text passed ${formatBytes(MAX_TEXT_CHARS)}. Read later pages with :pages=${
            n + 1
          }-${range.last}]`
        )
        break
      }
    }
    if (count === 0) parts.push("[the PDF has no pages]")
    return { text: `${parts.join("\n\n")}\n`, note: range.note }
  } finally {
    signal.removeEventListener("abort", abort)
    await task.destroy().catch(() => undefined)
  }
}
