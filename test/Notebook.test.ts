/**
 * Jupyter notebooks through `read` over the real filesystem: cell markers, outputs (streams,
 * results, tracebacks, images), clipping budgets, `:raw`, selectors and paging on the converted
 * text, and every malformed notebook. Fixtures are written as JSON by the tests.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { notebookText } from "../src/internal/sources/notebook.js"
import { read, type ReadParams } from "../src/Read.js"
import { fieldsOf, nodeLayer, projectDirs } from "./support/index.js"

const project = projectDirs()

const readIn = (root: string, params: ReadParams) => read(params).pipe(Effect.provide(nodeLayer(root)))
const failIn = (root: string, params: ReadParams) => Effect.flip(readIn(root, params))

const page = (path: string, lines: ReadonlyArray<string>, footer: string, note?: string): string =>
  `${note === undefined ? "" : `${note}\n`}<path>${path}</path>\n<type>file</type>\n<content>\n${
    lines.map((line) => `${line}\n`).join("")
  }\n${footer}\n</content>`

const numbered = (lines: ReadonlyArray<string>, first = 1): Array<string> => lines.map((l, i) => `${first + i}: ${l}`)

/** The shown lines without their numbers. */
const text = (output: string): string =>
  output.split("\n<content>\n")[1]!.split("\n\n(")[0]!.split("\n").map((line) => line.replace(/^\d+: /, "")).join("\n")

/** The notebook's text; the test fails if the JSON is not taken for a notebook. */
const converted = (json: string): string => {
  const result = notebookText(json)
  if (result._tag !== "Notebook") throw new Error(`not a notebook: ${result.reason}`)
  return result.text
}

const eof = (total: number) => `(End of file - total ${total} lines)`

type Cell = Record<string, unknown>
const notebook = (cells: ReadonlyArray<Cell>): string =>
  JSON.stringify({ nbformat: 4, nbformat_minor: 5, metadata: {}, cells }, null, 1)
const markdown = (source: string | ReadonlyArray<string>): Cell => ({ cell_type: "markdown", metadata: {}, source })
const code = (
  source: string | ReadonlyArray<string>,
  outputs: ReadonlyArray<unknown> = [],
  count: number | null = null
): Cell => ({
  cell_type: "code",
  execution_count: count,
  metadata: {},
  outputs,
  source
})
const stream = (text: string, name = "stdout") => ({ output_type: "stream", name, text })

/** The notebook every format test reads: each kind of cell and output once. */
const sample = notebook([
  markdown(["# Notebook Title\n", "\n", "Notebook body\n"]),
  code(["print('hello')\n", "x = 41 + 1\n", "x"], [
    stream("hello\n"),
    { output_type: "execute_result", execution_count: 3, metadata: {}, data: { "text/plain": ["42"] } }
  ], 3),
  code("import matplotlib.pyplot as plt\nplt.plot([1, 2])", [{
    output_type: "display_data",
    metadata: {},
    data: { "image/png": "iVBORw0KGgo=", "text/plain": ["<Figure size 640x480 with 1 Axes>"] }
  }, { output_type: "display_data", metadata: {}, data: { "text/html": ["<b>only html</b>"] } }], 4),
  code("1 / 0", [{
    output_type: "error",
    ename: "ZeroDivisionError",
    evalue: "division by zero",
    traceback: [
      "\u001b[0;31m---------------------------------------------------------------------------\u001b[0m",
      "\u001b[0;31mZeroDivisionError\u001b[0m                         Traceback (most recent call last)\nCell \u001b[0;32mIn[5], line 1\u001b[0m\n\u001b[0;32m----> 1\u001b[0m \u001b[38;5;241m1\u001b[39m \u001b[38;5;241m/\u001b[39m \u001b[38;5;241m0\u001b[39m",
      "\u001b[0;31mZeroDivisionError\u001b[0m: division by zero"
    ]
  }], 5),
  code("for i in tqdm(range(3)): pass", [
    stream("  0%|          | 0/3\r 33%|###       | 1/3\r100%|##########| 3/3\n", "stderr")
  ], 6),
  code(""),
  { cell_type: "raw", metadata: {}, source: "# %% [code] cell:9\nraw text" }
])

const sampleLines = [
  "# %% [markdown] cell:0",
  "# Notebook Title",
  "",
  "Notebook body",
  "",
  "# %% [code] cell:1",
  "print('hello')",
  "x = 41 + 1",
  "x",
  "# Out[3]:",
  "hello",
  "42",
  "",
  "# %% [code] cell:2",
  "import matplotlib.pyplot as plt",
  "plt.plot([1, 2])",
  "# Out[4]:",
  "<Figure size 640x480 with 1 Axes>",
  "[image/png output omitted]",
  "[text/html output omitted]",
  "",
  "# %% [code] cell:3",
  "1 / 0",
  "# Out[5]:",
  "---------------------------------------------------------------------------",
  "ZeroDivisionError                         Traceback (most recent call last)",
  "Cell In[5], line 1",
  "----> 1 1 / 0",
  "ZeroDivisionError: division by zero",
  "",
  "# %% [code] cell:4",
  "for i in tqdm(range(3)): pass",
  "# Out[6]:",
  "100%|##########| 3/3",
  "",
  "# %% [code] cell:5",
  "",
  "# %% [raw] cell:6",
  "# %%% [code] cell:9",
  "raw text"
]

describe("notebooks", () => {
  it.effect("cells become numbered text with markers; outputs follow under Out[N], images counted, ANSI stripped", () =>
    Effect.gen(function*() {
      const root = project({ "nb.ipynb": sample })
      const result = yield* readIn(root, { filePath: "nb.ipynb" })
      const path = nodePath.join(root, "nb.ipynb")
      expect(result.output).toBe(page(path, numbered(sampleLines), eof(sampleLines.length)))
      expect(result.title).toBe("nb.ipynb")
      expect(result.metadata).toMatchObject({
        kind: "notebook",
        path,
        truncated: false,
        startLine: 1,
        endLine: sampleLines.length,
        totalLines: sampleLines.length,
        size: Buffer.byteLength(sample),
        mime: "application/x-ipynb+json",
        lineEnding: "lf"
      })
      expect(result.attachments).toBeUndefined()
    }))

  it.effect("the reference example: markdown then code, cells separated by one blank line", () =>
    Effect.gen(function*() {
      const root = project({
        "ref.ipynb": notebook([markdown(["# Notebook Title\n", "\n", "Notebook body\n"]), code(["print('hello')\n"])])
      })
      const result = yield* readIn(root, { filePath: "ref.ipynb" })
      expect(text(result.output)).toBe(
        "# %% [markdown] cell:0\n# Notebook Title\n\nNotebook body\n\n# %% [code] cell:1\nprint('hello')"
      )
    }))

  it.effect(":raw reads the notebook's JSON as text, verbatim", () =>
    Effect.gen(function*() {
      const root = project({ "nb.ipynb": sample })
      const result = yield* readIn(root, { filePath: "nb.ipynb:raw" })
      const jsonLines = sample.split("\n")
      expect(result.metadata.kind).toBe("text")
      expect(result.output).toBe(page(nodePath.join(root, "nb.ipynb"), jsonLines, eof(jsonLines.length)))
    }))

  it.effect("line selectors apply to the converted text: a range, several ranges with a gap, raw", () =>
    Effect.gen(function*() {
      const root = project({ "nb.ipynb": sample })
      const path = nodePath.join(root, "nb.ipynb")
      const range = yield* readIn(root, { filePath: "nb.ipynb:6-9" })
      expect(range.output).toBe(
        page(
          path,
          numbered(sampleLines.slice(5, 9), 6),
          `(Showing lines 6-9 of ${sampleLines.length}. Use offset=10 to continue.)`
        )
      )
      expect(range.metadata).toMatchObject({
        kind: "notebook",
        startLine: 6,
        endLine: 9,
        nextOffset: 10,
        truncated: true
      })

      const ranges = yield* readIn(root, { filePath: "nb.ipynb:1-2,22-23" })
      expect(ranges.output).toBe(page(
        path,
        [...numbered(sampleLines.slice(0, 2), 1), "…", ...numbered(sampleLines.slice(21, 23), 22)],
        `(Showing lines 1-2, 22-23 of ${sampleLines.length}.)`
      ))

      // With :raw the lines are the notebook's JSON, not the converted text.
      const raw = yield* readIn(root, { filePath: "nb.ipynb:2-3:raw" })
      const json = sample.split("\n")
      expect(raw.output).toBe(
        page(path, json.slice(1, 3), `(Showing lines 2-3 of ${json.length}. Use offset=4 to continue.)`)
      )
      expect(raw.metadata.kind).toBe("text")
    }))

  it.effect("offset and limit page through the converted text with the usual footers", () =>
    Effect.gen(function*() {
      const root = project({ "nb.ipynb": sample })
      const path = nodePath.join(root, "nb.ipynb")
      const first = yield* readIn(root, { filePath: "nb.ipynb", limit: 5 })
      expect(first.output).toBe(
        page(
          path,
          numbered(sampleLines.slice(0, 5)),
          `(Showing lines 1-5 of ${sampleLines.length}. Use offset=6 to continue.)`
        )
      )
      const last = yield* readIn(root, { filePath: "nb.ipynb", offset: 36 })
      expect(last.output).toBe(page(path, numbered(sampleLines.slice(35), 36), eof(sampleLines.length)))
      const past = yield* failIn(root, { filePath: "nb.ipynb", offset: 99 })
      expect(past._tag).toBe("OffsetOutOfRange")
      expect(past.message).toBe(`Offset 99 is out of range for this file (${sampleLines.length} lines)`)
    }))

  it.effect("a large notebook stops at the 50 KB cap on a whole line; following nextOffset reads every line once", () =>
    Effect.gen(function*() {
      const body = Array.from(
        { length: 3000 },
        (_, i) => `cell text line ${String(i + 1).padStart(4, "0")} ${"x".repeat(30)}`
      )
      const root = project({ "big.ipynb": notebook([markdown(body.join("\n"))]) })
      const expected = ["# %% [markdown] cell:0", ...body]
      const seen: Array<string> = []
      let offset = 1
      for (let pages = 0; pages < 10; pages++) {
        const result = yield* readIn(root, { filePath: "big.ipynb", offset })
        const shown = text(result.output).split("\n")
        seen.push(...shown)
        const next = fieldsOf(result).nextOffset
        if (next === undefined) {
          expect(result.output.endsWith(`${eof(expected.length)}\n</content>`)).toBe(true)
          break
        }
        expect(result.output).toContain(
          `(Output capped at 50 KB. Showing lines ${offset}-${next - 1}. Use offset=${next} to continue.)`
        )
        expect(Buffer.byteLength(result.output)).toBeLessThanOrEqual(50 * 1024)
        offset = next
      }
      expect(seen).toEqual(expected)
    }))

  it.effect("a long output keeps its head and tail with a clipped notice", () =>
    Effect.gen(function*() {
      const text = Array.from({ length: 100 }, (_, i) => `row ${i + 1}\n`).join("")
      const root = project({ "long.ipynb": notebook([code("show()", [stream(text)], 1)]) })
      const result = yield* readIn(root, { filePath: "long.ipynb" })
      const expected = [
        "# %% [code] cell:0",
        "show()",
        "# Out[1]:",
        ...Array.from({ length: 30 }, (_, i) => `row ${i + 1}`),
        "[output clipped: 60 more lines]",
        ...Array.from({ length: 10 }, (_, i) => `row ${i + 91}`)
      ]
      expect(result.output).toBe(page(nodePath.join(root, "long.ipynb"), numbered(expected), eof(expected.length)))
    }))

  it.effect("outputs share a budget of 1000 lines per notebook; later outputs are omitted with a notice", () =>
    Effect.gen(function*() {
      const forty = Array.from({ length: 40 }, (_, i) => `line ${i}\n`).join("")
      const cells = Array.from({ length: 26 }, (_, i) => code(`step(${i})`, [stream(forty)], i + 1))
      const root = project({ "budget.ipynb": notebook(cells) })
      const out = converted(fs.readFileSync(nodePath.join(root, "budget.ipynb"), "utf8"))
      // 25 cells × 40 lines = 1000: the 26th output is over budget.
      expect(out).toContain("# %% [code] cell:24\nstep(24)\n# Out[25]:\nline 0\n")
      expect(out).toContain(
        "# %% [code] cell:25\nstep(25)\n# Out[26]:\n[output omitted: 40 lines; the notebook's output budget of 1000 lines is used up]\n"
      )
      expect(out.match(/^line \d+$/gm)?.length).toBe(1000)
    }))

  it.effect("an output that crosses the budget is cut there with a notice", () =>
    Effect.gen(function*() {
      const many = (n: number) => Array.from({ length: n }, (_, i) => `v${i}\n`).join("")
      const cells = [
        ...Array.from({ length: 24 }, (_, i) => code(`a${i}`, [stream(many(40))], i + 1)),
        code("tail", [stream(many(30)), stream(many(30))], 99)
      ]
      const root = project({ "cross.ipynb": notebook(cells) })
      const out = converted(fs.readFileSync(nodePath.join(root, "cross.ipynb"), "utf8"))
      expect(out).toContain(
        "v29\nv0\nv1\nv2\nv3\nv4\nv5\nv6\nv7\nv8\nv9\n[output clipped: 20 more lines; the notebook's output budget of 1000 lines is used up]\n"
      )
    }))

  it.effect("sources that look like markers get one more %, so markers stay unambiguous", () =>
    Effect.gen(function*() {
      const root = project({ "m.ipynb": notebook([code("# %% [markdown] cell:7\n# %%% [code]\nprint(1)\n")]) })
      const result = yield* readIn(root, { filePath: "m.ipynb" })
      expect(result.output).toBe(page(
        nodePath.join(root, "m.ipynb"),
        numbered(["# %% [code] cell:0", "# %%% [markdown] cell:7", "# %%%% [code]", "print(1)"]),
        eof(4)
      ))
    }))

  it.effect("an empty notebook says so", () =>
    Effect.gen(function*() {
      const root = project({ "empty.ipynb": notebook([]) })
      const result = yield* readIn(root, { filePath: "empty.ipynb" })
      expect(result.output).toBe(
        page(nodePath.join(root, "empty.ipynb"), numbered(["[the notebook has no cells]"]), eof(1))
      )
    }))

  it.effect("a file that is not notebook JSON is shown as plain text, with a one-line notice saying why", () =>
    Effect.gen(function*() {
      const files: Record<string, readonly [string, string]> = {
        "bad.ipynb": ["{ not json\n  \"cells\": [\n", "invalid JSON \\(.+\\)"],
        "array.ipynb": ["[1, 2]", "the JSON is not an object"],
        "nocells.ipynb": [JSON.stringify({ nbformat: 4, metadata: {} }), "no cells array"],
        "v3.ipynb": [
          JSON.stringify({ nbformat: 3, worksheets: [{ cells: [] }] }, null, 1),
          "an nbformat 3 notebook \\(cells under worksheets\\), which is not supported"
        ]
      }
      const root = project(Object.fromEntries(Object.entries(files).map(([name, [content]]) => [name, content])))
      for (const [name, [content, reason]] of Object.entries(files)) {
        const result = yield* readIn(root, { filePath: name })
        const [notice, ...rest] = result.output.split("\n")
        expect(notice).toMatch(
          new RegExp(`^\\(Not a valid notebook: ${reason}\\. Showing the file as plain text\\.\\)$`)
        )
        const lines = content.replace(/\n$/, "").split("\n")
        expect(rest.join("\n")).toBe(page(nodePath.join(root, name), numbered(lines), eof(lines.length)))
        expect(result.metadata).toMatchObject({ totalLines: lines.length, truncated: false })
      }
      // Paging works on the plain text as on any file.
      const second = yield* readIn(root, { filePath: "bad.ipynb", offset: 2, limit: 1 })
      expect(second.output).toContain("\n2:   \"cells\": [\n")
      // :raw reads the JSON without the notice.
      expect((yield* readIn(root, { filePath: "bad.ipynb:raw" })).output).toMatch(
        /^<path>.*\n<type>file<\/type>\n<content>\n\{ not json\n/
      )
    }))

  it.effect("a malformed cell is skipped with a notice in its place; the other cells are shown", () =>
    Effect.gen(function*() {
      const root = project({
        "badcell.ipynb": JSON.stringify({ cells: [markdown("ok"), { source: "no type" }, code("print(2)")] }),
        "badsource.ipynb": JSON.stringify({
          cells: [{ cell_type: "code", source: [1, 2] }, "not a cell", markdown("fine")]
        })
      })
      const skipped = (index: number) =>
        `[cell ${index} skipped: not a valid cell (expected an object with a cell_type string and a source string or list of strings)]`
      const first = yield* readIn(root, { filePath: "badcell.ipynb" })
      const expected = ["# %% [markdown] cell:0", "ok", "", skipped(1), "", "# %% [code] cell:2", "print(2)"]
      expect(first.output).toBe(page(nodePath.join(root, "badcell.ipynb"), numbered(expected), eof(expected.length)))
      expect(first.metadata.kind).toBe("notebook")
      const second = yield* readIn(root, { filePath: "badsource.ipynb" })
      expect(text(second.output)).toBe([skipped(0), "", skipped(1), "", "# %% [markdown] cell:2", "fine"].join("\n"))
    }))

  it.effect("a page selector on a notebook is an InvalidSelector", () =>
    Effect.gen(function*() {
      const root = project({ "nb.ipynb": sample })
      const error = yield* failIn(root, { filePath: "nb.ipynb:pages=1" })
      expect(error._tag).toBe("InvalidSelector")
      expect(error.message).toBe(
        "Page selectors (:pages=N-M) apply to PDF and .pptx files only; select lines of a notebook with :N-M."
      )
    }))

  it.effect("a notebook over the 50 MB conversion cap is refused before it is read", () =>
    Effect.gen(function*() {
      const root = project()
      const big = nodePath.join(root, "big.ipynb")
      fs.writeFileSync(big, "")
      fs.truncateSync(big, 51 * 1024 * 1024)
      const error = yield* failIn(root, { filePath: "big.ipynb" })
      expect(error._tag).toBe("ConversionFailed")
      expect(error.message).toBe(
        `Cannot read ipynb file ${big}: the file is 51.0 MiB, over the 50.0 MiB limit for converting a notebook to text`
      )
    }))
})
