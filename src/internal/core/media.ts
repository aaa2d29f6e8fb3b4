/**
 * Images and PDFs: which ones we attach, and whether their bytes are complete.
 */

export type MediaKind = "image" | "pdf"

/** The image formats models accept as attachments. */
export const attachableImages: ReadonlySet<string> = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"])

/** Names that promise an attachable image or a PDF. */
export const mediaExtensions: ReadonlyMap<string, string> = new Map([
  [".png", "image/png"],
  [".jpg", "image/jpeg"],
  [".jpeg", "image/jpeg"],
  [".gif", "image/gif"],
  [".webp", "image/webp"],
  [".pdf", "application/pdf"]
])

/** Attachments above this size are refused rather than sent. */
export const MAX_MEDIA_BYTES = 20 * 1024 * 1024

export const mediaKind = (mime: string): MediaKind | undefined =>
  attachableImages.has(mime) ? "image" : mime === "application/pdf" ? "pdf" : undefined

const ascii = (bytes: Uint8Array, from: number, to: number): string =>
  String.fromCharCode(...bytes.subarray(Math.max(0, from), Math.max(0, to)))

const lastIndexOfPair = (bytes: Uint8Array, a: number, b: number, window: number): number => {
  for (let i = bytes.length - 2; i >= Math.max(0, bytes.length - window); i--) {
    if (bytes[i] === a && bytes[i + 1] === b) return i
  }
  return -1
}

/**
 * Whether a GIF's blocks are whole: the screen descriptor, its colour table, then extensions and
 * images (each image's data sub-blocks up to their terminator) to the trailer. A file that ends
 * after a whole block, with no trailer (or with zeros in its place), is complete: decoders show it,
 * and old encoders wrote such files (the IDLE icons in CPython 2.7-3.8, minusnode.gif). A cut
 * download ends inside a block.
 */
const gifComplete = (bytes: Uint8Array): boolean => {
  const n = bytes.length
  if (n < 13) return false
  const table = (packed: number) => (packed & 0x80) === 0 ? 0 : 3 * 2 ** ((packed & 0x07) + 1)
  /** The end of the data sub-blocks starting at `at` (past their zero terminator); -1 when cut. */
  const subBlocks = (at: number): number => {
    while (at < n) {
      const size = bytes[at]!
      if (size === 0) return at + 1
      at += 1 + size
    }
    return -1
  }
  let at = 13 + table(bytes[10]!)
  let images = 0
  while (at < n) {
    const introducer = bytes[at]!
    if (introducer === 0x3b) return images > 0
    if (introducer === 0x21) {
      at = at + 2 > n ? -1 : subBlocks(at + 2)
    } else if (introducer === 0x2c) {
      if (at + 11 > n) return false
      at = subBlocks(at + 10 + table(bytes[at + 9]!) + 1)
      if (at !== -1) images++
    } else {
      // Padding in place of the trailer; anything else is not GIF data.
      return images > 0 && bytes.subarray(at).every((byte) => byte === 0)
    }
    if (at === -1) return false
  }
  return images > 0
}

/**
 * Why the whole file's bytes are not a complete `mime` document, or undefined when they are.
 * Checks the end marker each format has, so a download cut short is not sent to a model.
 */
export const incompleteReason = (mime: string, bytes: Uint8Array): string | undefined => {
  const n = bytes.length
  switch (mime) {
    case "image/png":
      // The last chunk is IEND: length (4) + "IEND" + CRC (4).
      return n >= 20 && ascii(bytes, n - 8, n - 4) === "IEND"
        ? undefined
        : "the PNG is truncated (no IEND chunk at the end)"
    case "image/jpeg":
      // End-of-image marker FF D9; allow a little trailing padding some encoders add.
      return lastIndexOfPair(bytes, 0xff, 0xd9, 1024) >= 2
        ? undefined
        : "the JPEG is truncated (no end-of-image marker)"
    case "image/gif":
      return gifComplete(bytes) ? undefined : "the GIF is truncated (its blocks end before the image data does)"
    case "image/webp": {
      if (n < 12) return "the WebP is truncated (header incomplete)"
      const declared = (bytes[4]! | (bytes[5]! << 8) | (bytes[6]! << 16) | (bytes[7]! << 24)) >>> 0
      return declared + 8 <= n ? undefined : `the WebP is truncated (${n} of ${declared + 8} bytes)`
    }
    case "application/pdf":
      return ascii(bytes, n - 1024, n).includes("%%EOF") ? undefined : "the PDF is truncated (no %%EOF marker)"
    default:
      return undefined
  }
}
