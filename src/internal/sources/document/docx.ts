/**
 * .docx with mammoth: Word styles become HTML (headings, lists, tables), then markdown.
 * Images are not embedded (a notice with their alt text instead); external files are never read.
 */
import type Mammoth from "mammoth"
import { htmlToMarkdown } from "./markdown.js"
import type { Converted } from "./types.js"
import { openZip } from "./zip.js"

/** `mammoth` is the optional package's default export, loaded by the caller. */
export const convertDocx = async (mammoth: typeof Mammoth, bytes: Buffer): Promise<Converted> => {
  const zip = await openZip(bytes, "docx")
  try {
    // mammoth inflates with its own zip reader: prove every entry's size first.
    await zip.verify()
  } finally {
    zip.close()
  }
  const result = await mammoth.convertToHtml(
    { buffer: bytes },
    {
      externalFileAccess: false,
      convertImage: mammoth.images.imgElement(() => Promise.resolve({ src: "" }))
    }
  )
  const text = await htmlToMarkdown(result.value)
  return { text: text.length === 0 ? "[the document has no text]\n" : `${text}\n` }
}
