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
const dataDirectories = (): {
  readonly cMapUrl?: string
  readonly cMapPacked?: boolean
  readonly standardFontDataUrl?: string
} => {
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

/** `use` on the opened document; pdf.js is torn down after, or when `signal` aborts. */
const withPdf = async <A>(
  pdfjs: PdfJs,
  bytes: Uint8Array,
  signal: AbortSignal,
  use: (document: Awaited<ReturnType<PdfJs["getDocument"]>["promise"]>) => Promise<A>
): Promise<A> => {
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
    return await use(document)
  } finally {
    signal.removeEventListener("abort", abort)
    await task.destroy().catch(() => undefined)
  }
}

export const convertPdf = (
  pdfjs: PdfJs,
  bytes: Uint8Array,
  pages: LineRange | undefined,
  signal: AbortSignal
): Promise<Converted> =>
  withPdf(pdfjs, bytes, signal, async (document) => {
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
          `[conversion stopped after page ${n}: the text passed ${
            formatBytes(MAX_TEXT_CHARS)
          }. Read later pages with :pages=${n + 1}-${range.last}]`
        )
        break
      }
    }
    if (count === 0) parts.push("[the PDF has no pages]")
    return { text: `${parts.join("\n\n")}\n`, note: range.note }
  })

/** `createCanvas` of @napi-rs/canvas (an optional package, loaded by the caller). */
export type CreateCanvas = typeof import("@napi-rs/canvas").createCanvas

/** One page rendered: its number, pixel size and PNG bytes. */
export interface RenderedPage {
  readonly page: number
  readonly width: number
  readonly height: number
  readonly png: Uint8Array
}

export interface RenderedPages {
  /** Pages in the document. */
  readonly count: number
  /** The pages asked for (the selection, clamped to the document), before the cap. */
  readonly asked: { readonly first: number; readonly last: number }
  readonly pages: ReadonlyArray<RenderedPage>
  /** Said when the selection ran past the end. */
  readonly note: string | undefined
}

/**
 * Pages of a PDF rendered as PNG images: the `pages` selection (default all), at most `maxPages`
 * of them from the first, each scaled so that its longest side is at most `maxSide` pixels and a
 * point is at most 2 pixels (144 dpi): the pixel size is proportional to the page's size.
 */
export const renderPdfPages = (
  pdfjs: PdfJs,
  createCanvas: CreateCanvas,
  bytes: Uint8Array,
  options: { readonly pages: LineRange | undefined; readonly maxPages: number; readonly maxSide: number },
  signal: AbortSignal
): Promise<RenderedPages> =>
  withPdf(pdfjs, bytes, signal, async (document) => {
    const count = document.numPages
    if (count === 0) throw new Unconvertible("the PDF has no pages")
    const range = options.pages === undefined
      ? { first: 1, last: count, note: undefined }
      : clampPages(options.pages, count, "page")
    const last = Math.min(range.last, range.first + options.maxPages - 1)
    const pages: Array<RenderedPage> = []
    for (let n = range.first; n <= last; n++) {
      if (signal.aborted) throw new Unconvertible("rendering interrupted")
      const page = await document.getPage(n)
      const size = page.getViewport({ scale: 1 })
      const scale = Math.min(2, options.maxSide / Math.max(size.width, size.height, 1))
      const viewport = page.getViewport({ scale })
      const width = Math.max(1, Math.round(viewport.width))
      const height = Math.max(1, Math.round(viewport.height))
      const canvas = createCanvas(width, height)
      const context = canvas.getContext("2d")
      // A page draws on white paper: its background is not transparent.
      context.fillStyle = "#ffffff"
      context.fillRect(0, 0, width, height)
      try {
        // pdf.js types the DOM's canvas; @napi-rs/canvas implements what it draws with.
        type RenderParameters = Parameters<typeof page.render>[0]
        await page.render({
          canvas: canvas as unknown as RenderParameters["canvas"],
          canvasContext: context as unknown as RenderParameters["canvasContext"],
          viewport
        }).promise
      } catch (error) {
        throw new Unconvertible(`page ${n} could not be rendered (${reasonOf(error)})`)
      }
      page.cleanup()
      const png = await canvas.encode("png")
      pages.push({ page: n, width, height, png: new Uint8Array(png.buffer, png.byteOffset, png.byteLength) })
    }
    return { count, asked: { first: range.first, last: range.last }, pages, note: range.note }
  })
