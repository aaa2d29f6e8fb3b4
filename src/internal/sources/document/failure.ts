/**
 * Failures raised inside the Promise-based converters, mapped to typed `ReadError`s at the Effect
 * boundary (`document.ts`, `notebook.ts`).
 */

/** The document cannot be converted; `reason` is what the model reads. */
export class Unconvertible extends Error {
  constructor(readonly reason: string) {
    super(reason)
    this.name = "Unconvertible"
  }
}

/** A `:pages=` selection that starts past the last page (or slide). */
export class PageOutOfRange extends Error {
  constructor(readonly start: number, readonly count: number, readonly unit: "page" | "slide") {
    super(pageOutOfRangeMessage(start, count, unit))
    this.name = "PageOutOfRange"
  }
}

const plural = (count: number, unit: string) => `${count} ${unit}${count === 1 ? "" : "s"}`

export const pageOutOfRangeMessage = (start: number, count: number, unit: "page" | "slide"): string =>
  count === 0
    ? `${unit === "page" ? "Page" : "Slide"} ${start} is beyond the end of the document: it has no ${unit}s.`
    : `${unit === "page" ? "Page" : "Slide"} ${start} is beyond the end of the document (${
      plural(count, unit)
    }). Use :pages=${count === 1 ? "1" : `1-${count}`}.`

/** A readable reason from anything a library threw. */
export const reasonOf = (error: unknown): string => {
  if (error instanceof Unconvertible) return error.reason
  if (error instanceof Error) return error.message.trim() || error.name
  return String(error)
}

/** The page range actually available, and a note when the selection ran past the end. */
export const clampPages = (
  pages: { readonly start: number; readonly end: number | undefined },
  count: number,
  unit: "page" | "slide"
): { readonly first: number; readonly last: number; readonly note: string | undefined } => {
  if (pages.start > count) throw new PageOutOfRange(pages.start, count, unit)
  const end = pages.end ?? pages.start
  if (end <= count) return { first: pages.start, last: end, note: undefined }
  const missing = end === count + 1 ? `${unit} ${end} is` : `${unit}s ${count + 1}-${end} are`
  return {
    first: pages.start,
    last: count,
    note: `(The document has ${plural(count, unit)}; ${missing} beyond its end. Showing ${
      pages.start === count ? `${unit} ${count}` : `${unit}s ${pages.start}-${count}`
    }.)`
  }
}
