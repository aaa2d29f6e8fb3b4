/**
 * Jupyter notebooks as numbered text. Each cell is a `# %% [type] cell:N` marker (N from 0, the
 * cell's index in the notebook) followed by its source; code cells' outputs follow under
 * `# Out[N]:` (N the execution count): streams, `text/plain` results and error tracebacks (ANSI
 * colours stripped) as text, rich outputs such as images counted but not inlined. Outputs are
 * clipped to a budget per output and per notebook. Cells are separated by a blank line.
 *
 * Source lines that already look like a marker get one more `%` (`# %%% [code] cell:3`), so
 * every marker in the text is a real cell boundary. `:raw` never gets here: it reads the JSON.
 */
import * as Effect from "effect/Effect"
import { InvalidSelector } from "../../ReadError.js"
import { decodeText } from "../core/encoding.js"
import { convertAndPresent } from "./convert.js"
import type { FileRequest } from "./types.js"

/** Lines kept of one output (head and tail), and of all outputs together. */
const OUTPUT_HEAD_LINES = 30
const OUTPUT_TAIL_LINES = 10
const NOTEBOOK_OUTPUT_LINES = 1000

const MARKER = /^# %%+ \[/

const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]/g

/** Multiline strings in nbformat are a string or an array of strings to concatenate. */
const joined = (value: unknown): string | undefined =>
  typeof value === "string"
    ? value
    : Array.isArray(value) && value.every((part) => typeof part === "string")
    ? value.join("")
    : undefined

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value)

/** Output text as a terminal would show it: no colours, `\r` overwrites (progress bars). */
const terminalLines = (text: string): Array<string> => {
  const lines = text.replace(ANSI, "").replace(/\r\n/g, "\n").split("\n")
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop()
  return lines.map((line) => {
    const parts = line.split("\r").filter((part) => part.length > 0)
    return parts.length === 0 ? "" : parts[parts.length - 1]!
  })
}

/** The lines one output shows, before clipping. */
const outputLines = (output: unknown): Array<string> => {
  if (!isRecord(output)) return ["[unrecognised output omitted]"]
  switch (output["output_type"]) {
    case "stream": {
      const text = joined(output["text"]) ?? ""
      return text.length === 0 ? [] : terminalLines(text)
    }
    case "error": {
      const traceback = Array.isArray(output["traceback"])
        ? output["traceback"].filter((line): line is string => typeof line === "string")
        : []
      if (traceback.length > 0) return traceback.flatMap(terminalLines)
      return terminalLines(`${String(output["ename"] ?? "Error")}: ${String(output["evalue"] ?? "")}`)
    }
    case "execute_result":
    case "display_data": {
      const data = isRecord(output["data"]) ? output["data"] : {}
      const lines: Array<string> = []
      const plain = joined(data["text/plain"])
      if (plain !== undefined) lines.push(...terminalLines(plain))
      for (const mime of Object.keys(data)) {
        if (mime === "text/plain") continue
        // Rich forms beside a text/plain form are alternatives of it; say only what is lost.
        if (mime.startsWith("image/") || plain === undefined) lines.push(`[${mime} output omitted]`)
      }
      return lines
    }
    default:
      return [`[${String(output["output_type"] ?? "unknown")} output omitted]`]
  }
}

/** Keep the head and tail of a long output. */
const clip = (lines: Array<string>): Array<string> =>
  lines.length <= OUTPUT_HEAD_LINES + OUTPUT_TAIL_LINES + 1
    ? lines
    : [
      ...lines.slice(0, OUTPUT_HEAD_LINES),
      `[output clipped: ${lines.length - OUTPUT_HEAD_LINES - OUTPUT_TAIL_LINES} more lines]`,
      ...lines.slice(lines.length - OUTPUT_TAIL_LINES)
    ]

/** The notebook as text, or why the JSON is not a notebook (then it is shown as plain text). */
export type NotebookText =
  | { readonly _tag: "Notebook"; readonly text: string }
  | { readonly _tag: "NotANotebook"; readonly reason: string }

const notANotebook = (reason: string): NotebookText => ({ _tag: "NotANotebook", reason })

/** One line: JSON.parse messages may span several. */
const oneLine = (text: string): string => text.replace(/\s+/g, " ").trim()

export const notebookText = (json: string): NotebookText => {
  let notebook: unknown
  try {
    notebook = JSON.parse(json)
  } catch (error) {
    return notANotebook(`invalid JSON (${oneLine(error instanceof Error ? error.message : String(error))})`)
  }
  if (!isRecord(notebook)) return notANotebook("the JSON is not an object")
  const cells = notebook["cells"]
  if (!Array.isArray(cells)) {
    return notANotebook(
      Array.isArray(notebook["worksheets"])
        ? "an nbformat 3 notebook (cells under worksheets), which is not supported"
        : "no cells array"
    )
  }
  let budget = NOTEBOOK_OUTPUT_LINES
  const blocks = cells.map((cell: unknown, index) => {
    const source = isRecord(cell) ? joined(cell["source"] ?? "") : undefined
    if (!isRecord(cell) || typeof cell["cell_type"] !== "string" || source === undefined) {
      // One bad cell does not hide the others: its place says why it is missing.
      return `[cell ${index} skipped: not a valid cell (expected an object with a cell_type string and a source string or list of strings)]`
    }
    const lines = [`# %% [${cell["cell_type"]}] cell:${index}`]
    if (source.length > 0) {
      lines.push(
        ...source.replace(/\n$/, "").split("\n").map((
          line
        ) => (MARKER.test(line) ? line.replace("# %%", "# %%%") : line))
      )
    }
    const outputs = cell["cell_type"] === "code" && Array.isArray(cell["outputs"]) ? cell["outputs"] : []
    const shown: Array<string> = []
    for (const output of outputs) {
      const clipped = clip(outputLines(output))
      if (clipped.length === 0) continue
      if (budget <= 0) {
        shown.push(
          `[output omitted: ${clipped.length} lines; the notebook's output budget of ${NOTEBOOK_OUTPUT_LINES} lines is used up]`
        )
        continue
      }
      const kept = clipped.slice(0, budget)
      budget -= kept.length
      shown.push(...kept)
      if (kept.length < clipped.length) {
        shown.push(
          `[output clipped: ${
            clipped.length - kept.length
          } more lines; the notebook's output budget of ${NOTEBOOK_OUTPUT_LINES} lines is used up]`
        )
      }
    }
    if (shown.length > 0) {
      const count = cell["execution_count"]
      lines.push(typeof count === "number" ? `# Out[${count}]:` : "# Out:", ...shown)
    }
    return lines.join("\n")
  })
  return { _tag: "Notebook", text: blocks.length === 0 ? "[the notebook has no cells]\n" : `${blocks.join("\n\n")}\n` }
}

/** Bytes of a file that is not a notebook, as its text is shown instead. */
const plainText = (json: string): string => json.length === 0 || /[\r\n]$/.test(json) ? json : `${json}\n`

export const readNotebook = Effect.fn("Read.notebook")(function*(request: FileRequest) {
  if (request.selection.pages !== undefined) {
    return yield* new InvalidSelector({
      path: request.target.absolute,
      reason: "Page selectors (:pages=N-M) apply to PDF and .pptx files only; select lines of a notebook with :N-M."
    })
  }
  return yield* convertAndPresent(request, {
    format: "ipynb",
    kind: "notebook",
    mime: "application/x-ipynb+json",
    variant: "",
    convert: (bytes) =>
      Promise.resolve().then(() => {
        const json = decodeText(bytes)
        const converted = notebookText(json)
        return converted._tag === "Notebook"
          ? { text: converted.text }
          : {
            text: plainText(json),
            note: `(Not a valid notebook: ${converted.reason}. Showing the file as plain text.)`
          }
      })
  })
})
