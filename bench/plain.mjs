/** The plain small-file function the small-file cases compare with (`child.mjs`, `profile.mjs`). */
import { promises as fsp } from "node:fs"

/**
 * The Effect overhead baseline: read, refuse binary (a NUL in the first 4 KB), decode UTF-8,
 * split, number, cut, footer — the same output text.
 */
export const plainRead = async (filePath, offset = 1, limit = 2000) => {
  const bytes = await fsp.readFile(filePath)
  if (bytes.subarray(0, 4096).includes(0)) throw new Error("binary")
  const text = new TextDecoder("utf-8").decode(bytes)
  const lines = text.split(/\r\n|\n|\r/)
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop()
  const page = lines.slice(offset - 1, offset - 1 + limit)
  const rendered = page.map((line, i) => `${offset + i}: ${line.length > 2000 ? `${line.slice(0, 2000)}...` : line}`)
  const last = offset - 1 + page.length
  const footer = last < lines.length
    ? `(Showing lines ${offset}-${last} of ${lines.length}. Use offset=${last + 1} to continue.)`
    : `(End of file - total ${lines.length} lines)`
  return ["<path>" + filePath + "</path>", "<type>file</type>", "<content>", ...rendered, "", footer, "</content>"]
    .join("\n")
}
