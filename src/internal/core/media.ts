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
 * Why the whole file's bytes are not a complete `mime` document, or undefined when they are.
 * Checks the end marker each format has, so a download cut short is not sent to a model.
 */
export const incompleteReason = (mime: string, bytes: Uint8Array): string | undefined => {
  const n = bytes.length
  switch (mime) {
    case "image/png":
      // The last chunk is IEND: length (4) + "IEND" + CRC (4).
      return n >= 20 && ascii(bytes, n - 8, n - 4) === "IEND" ? undefined : "the PNG is truncated (no IEND chunk at the end)"
    case "image/jpeg":
      // End-of-image marker FF D9; allow a little trailing padding some encoders add.
      return lastIndexOfPair(bytes, 0xff, 0xd9, 1024) >= 2 ? undefined : "the JPEG is truncated (no end-of-image marker)"
    case "image/gif": {
      let end = n - 1
      while (end > 0 && bytes[end] === 0) end--
      return n >= 14 && bytes[end] === 0x3b ? undefined : "the GIF is truncated (no trailer byte)"
    }
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
