/**
 * What a file's first bytes are, by their magic numbers: file-type's answer, in less time. Its
 * parser turns each text signature (`%PDF`, `BEGIN:`, `<?xml `, …) into bytes on every check it
 * makes, some seventy per file that starts like text, most of a small text read's sniff (and of
 * its garbage); here each signature's bytes are made once, by file-type's own code. The answer
 * is file-type's for the same bytes (a property test compares them); were the parser ever to
 * stop making its signatures that way, the override would just not be used.
 */
import { FileTypeParser } from "file-type"

/** The parser's own steps that the override stands between (not in its published types). */
interface Checks {
  check(bytes: ReadonlyArray<number>, options?: SignatureOptions): boolean
  checkString(header: string, options?: SignatureOptions): boolean
}

interface SignatureOptions {
  readonly offset?: number
  readonly encoding?: string
}

/** At most this many signatures' bytes are kept: file-type's own are a hundred or so, all literals. */
export const MAX_SIGNATURES = 512

const signatures = new Map<string, ReadonlyArray<number>>()

/** The bytes file-type checks for `header` (in `options.encoding`), as its own `checkString` makes them. */
export const signatureBytes = (header: string, options?: SignatureOptions): ReadonlyArray<number> | undefined => {
  const key = options?.encoding === undefined ? header : `${options.encoding}\u0000${header}`
  const known = signatures.get(key)
  if (known !== undefined) return known
  // `checkString` makes the bytes and hands them to `check`: a `check` that returns them gives them here.
  const made: unknown = (FileTypeParser.prototype as unknown as Checks).checkString.call(
    { check: (bytes: unknown) => bytes } as unknown as Checks,
    header,
    options
  )
  if (!Array.isArray(made) || !made.every((byte) => typeof byte === "number")) return undefined
  if (signatures.size < MAX_SIGNATURES) signatures.set(key, made)
  return made
}

/** How many signatures' bytes are held (for the bound's test). */
export const signaturesHeld = (): number => signatures.size

/** file-type's parser, making each text signature's bytes once. */
class Sniffer extends FileTypeParser {
  checkString(header: string, options?: SignatureOptions): boolean {
    const bytes = signatureBytes(header, options)
    const checks = this as unknown as Checks
    return bytes === undefined
      ? (FileTypeParser.prototype as unknown as Checks).checkString.call(this, header, options)
      : checks.check(bytes, options)
  }
}

/** The format `head` shows (file-type's answer), or undefined when none is recognised or the sniff fails. */
export const sniff = (head: Uint8Array): Promise<{ readonly mime: string; readonly ext: string } | undefined> =>
  new Sniffer().fromBuffer(head).catch(() => undefined)
