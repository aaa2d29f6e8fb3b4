/**
 * The structure views over the indentation engine: golden outputs for files in several languages,
 * properties on generated and real files (the rows of a summary cover every line once; an outline
 * nests; a block holds its line), and the cases that mislead a naive scanner.
 */
import { describe, expect, it } from "@effect/vitest"
import * as FastCheck from "effect/FastCheck"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import type { Declaration, FileStructure } from "../src/internal/core/declarations.js"
import { headingsStructure, keysStructure, plainStructure } from "../src/internal/core/headings.js"
import { indentationStructure, languageOfPath } from "../src/internal/core/indentation.js"
import { MAX_LINE_LENGTH, pageBytes } from "../src/internal/core/lines.js"
import * as Views from "../src/internal/core/structureViews.js"

const FIXTURES = nodePath.resolve(import.meta.dirname, "fixtures/structure")

const linesOf = (text: string): Array<string> => {
  const lines = text.split(/\r\n|\n|\r/)
  if (lines[lines.length - 1] === "") lines.pop()
  return lines
}

const fixture = (name: string): { readonly lines: Array<string>; readonly language: string | undefined } => ({
  lines: linesOf(fs.readFileSync(nodePath.join(FIXTURES, name), "utf8")),
  language: languageOfPath(name.replace(/\.txt$/, ""))
})

const render = (result: Views.ViewResult): string =>
  [...(result.header === undefined ? [] : [result.header]), ...result.rows, result.footer].join("\n") + "\n"

/** Compare with the golden file; `UPDATE_GOLDEN=1` rewrites it (then read the diff before committing). */
const golden = (name: string, text: string) => {
  const file = nodePath.join(FIXTURES, "golden", name)
  if (process.env.UPDATE_GOLDEN === "1") {
    fs.mkdirSync(nodePath.dirname(file), { recursive: true })
    fs.writeFileSync(file, text)
  }
  expect(text).toBe(fs.readFileSync(file, "utf8"))
}

const flatten = (declarations: ReadonlyArray<Declaration>): Array<Declaration> =>
  declarations.flatMap((d) => [d, ...flatten(d.children)])

const find = (structure: FileStructure, name: string): Declaration => {
  const found = flatten(structure.declarations).find((d) => d.name === name)
  if (found === undefined) throw new Error(`no declaration ${name}`)
  return found
}

/** The rows of a summary cover lines 1..N once each; a kept row shows its line as a page does. */
const expectPartition = (rows: ReadonlyArray<string>, lines: ReadonlyArray<string>) => {
  let next = 1
  for (const row of rows) {
    const match = /^(\d+)(?:-(\d+))?: /.exec(row)
    expect(match, row).not.toBeNull()
    const from = Number(match![1])
    const to = match![2] === undefined ? from : Number(match![2])
    expect(from, row).toBe(next)
    expect(to, row).toBeGreaterThanOrEqual(from)
    if (match![2] === undefined) expect(row).toBe(Views.numberedLine(from, lines[from - 1]!))
    else expect(to - from + 1, row).toBeGreaterThanOrEqual(Views.MIN_BODY_LINES - 1)
    next = to + 1
  }
  expect(next - 1).toBe(lines.length)
}

/** Spans within the file, children inside their parent's body, siblings in order without overlap. */
const expectWellFormed = (structure: FileStructure) => {
  const check = (declarations: ReadonlyArray<Declaration>, within: { start: number; end: number }) => {
    let previous = within.start - 1
    for (const d of declarations) {
      expect(d.span.start).toBeGreaterThan(previous)
      expect(d.span.start).toBeGreaterThanOrEqual(within.start)
      expect(d.span.end).toBeLessThanOrEqual(within.end)
      expect(d.headerLine).toBeGreaterThanOrEqual(d.span.start)
      expect(d.headerLine).toBeLessThanOrEqual(d.span.end)
      if (d.body !== undefined) {
        expect(d.body.start).toBeGreaterThan(d.headerLine)
        expect(d.body.end).toBeGreaterThanOrEqual(d.body.start)
        expect(d.body.end).toBeLessThanOrEqual(d.span.end)
        check(d.children, d.body)
      } else expect(d.children).toEqual([])
      previous = d.span.end
    }
  }
  check(structure.declarations, { start: 1, end: structure.lines })
  for (const comment of structure.comments) {
    expect(comment.start).toBeGreaterThanOrEqual(1)
    expect(comment.end).toBeLessThanOrEqual(structure.lines)
  }
}

/** Outline rows: ranges in order, two spaces per depth, a child's range inside its parent's. */
const FOLD = / {2}\(\+(\d+) inside: :(\d+)-(\d+):outline\)$/
const ALL = { levels: 1e9, limit: 1e9, maxBytes: 1e12 } as const
const depthOf = (row: string): number => /^ */.exec(row)![0].length / 2

/**
 * Outline levels, on any structure: \`levels: k\` shows exactly the rows of depth < k of the full
 * outline, in order; the rows it shows and the counts of the rows it folds add up to the full
 * outline; each fold's selector (\`:A-B:outline\`) shows exactly the rows it hides; the default
 * fits its page and shows the deepest levels that do.
 */
const expectLevels = (
  structure: FileStructure,
  lines: ReadonlyArray<string>,
  path: string,
  aim = Views.OUTLINE_ROWS
) => {
  const full = Views.outline(structure, lines, { path, ...ALL })
  expect(full.rows.every((row) => !FOLD.test(row))).toBe(true)
  const depth = full.rows.reduce((deepest, row) => Math.max(deepest, depthOf(row) + 1), 0)
  expect(full.counts.depth).toBe(depth)
  for (let levels = 1; levels <= depth; levels++) {
    const shown = Views.outline(structure, lines, { path, ...ALL, levels })
    expect(shown.rows.map((row) => row.replace(FOLD, ""))).toEqual(full.rows.filter((row) => depthOf(row) < levels))
    const folds = shown.rows.map((row) => FOLD.exec(row)).filter((fold) => fold !== null)
    expect(shown.rows.length + folds.reduce((sum, fold) => sum + Number(fold[1]), 0)).toBe(full.rows.length)
    expect(shown.counts.folded).toBe(full.rows.length - shown.rows.length)
    // Only rows at the last level shown fold, and those that have members always do.
    shown.rows.forEach((row, i) => {
      const next = full.rows[full.rows.indexOf(row.replace(FOLD, "")) + 1]
      const hasMembers = next !== undefined && depthOf(next) > depthOf(row)
      expect(FOLD.test(row), row).toBe(depthOf(row) === levels - 1 && hasMembers)
      expect(i === 0 || row !== shown.rows[i - 1]).toBe(true)
    })
    for (const fold of folds) {
      const row = fold.input!.replace(FOLD, "")
      const at = full.rows.indexOf(row)
      const members: Array<string> = []
      for (let i = at + 1; i < full.rows.length && depthOf(full.rows[i]!) > depthOf(row); i++) {
        members.push(full.rows[i]!)
      }
      const inside = Views.outline(structure, lines, {
        path,
        ...ALL,
        range: { start: Number(fold[2]), end: Number(fold[3]) }
      })
      expect(inside.rows.length, row).toBe(Number(fold[1]))
      expect(inside.rows).toEqual(members.map((member) => member.slice(2 * (depthOf(row) + 1))))
    }
  }
  // The default: one page of the deepest levels that fit it (deeper while a level shows < 10 rows).
  const byDefault = Views.outline(structure, lines, { path, rows: aim })
  const chosen = byDefault.counts.levels!
  const rowsAt = (levels: number) => Views.outline(structure, lines, { path, ...ALL, levels }).rows
  expect(byDefault.rows.length).toBeLessThanOrEqual(aim)
  expect(byDefault.rows).toEqual(rowsAt(chosen).slice(0, byDefault.rows.length))
  if (chosen < depth) {
    const deeper = rowsAt(chosen + 1)
    const fits = deeper.length <= aim && deeper.reduce((sum, row) => sum + Buffer.byteLength(row) + 1, 0) <= 51_200
    expect(!fits || rowsAt(chosen).length < Math.min(Views.OUTLINE_MIN_ROWS, aim), `levels ${chosen + 1} fit`).toBe(
      true
    )
  } else {
    expect(byDefault.footer).not.toContain("levels=")
  }
  return { full, byDefault }
}

const expectOutlineNests = (rows: ReadonlyArray<string>) => {
  const stack: Array<{ depth: number; start: number; end: number }> = []
  let previousStart = 0
  for (const row of rows) {
    const match = /^( *)(\d+)(?:-(\d+))?: /.exec(row)
    expect(match, row).not.toBeNull()
    const depth = match![1]!.length / 2
    const start = Number(match![2])
    const end = match![3] === undefined ? start : Number(match![3])
    expect(Number.isInteger(depth)).toBe(true)
    expect(start).toBeGreaterThan(previousStart)
    while (stack.length > 0 && stack[stack.length - 1]!.depth >= depth) stack.pop()
    expect(depth).toBe(stack.length)
    const parent = stack[stack.length - 1]
    if (parent !== undefined) {
      expect(start).toBeGreaterThanOrEqual(parent.start)
      expect(end).toBeLessThanOrEqual(parent.end)
    }
    stack.push({ depth, start, end })
    previousStart = start
  }
}

const LANGUAGES = [
  undefined,
  "typescript",
  "javascript",
  "python",
  "go",
  "rust",
  "java",
  "c",
  "cpp",
  "csharp",
  "ruby",
  "php",
  "bash",
  "markdown",
  "json",
  "yaml",
  "toml"
] as const

/** Lines made of the pieces that mislead scanners: brackets, quotes, comment markers, closing words. */
const pieces = FastCheck.constantFrom(
  "function f() {",
  "class A {",
  "def g(x):",
  "}",
  "};",
  "})",
  "(",
  ")",
  "[",
  "]",
  "{",
  "end",
  "fi",
  "else:",
  "} else {",
  "x = 1",
  "return x",
  "\"a { string\"",
  "'c'",
  "'a",
  "`tpl ${",
  "`",
  "/* open",
  "*/",
  "// } comment",
  "# { comment",
  "\"\"\"",
  "@decorator",
  "#[attr]",
  "/re{/",
  "\\",
  "if (x) {",
  "impl X {",
  "interface I<out A> {",
  "\t",
  "# Title",
  "## Part",
  "===",
  "---",
  "```",
  "key:",
  "- item: 1",
  "value |",
  "[table]",
  "k = [",
  "\"k\": {",
  "\"a\": 1,"
)
const generatedFile = FastCheck.array(
  FastCheck.tuple(FastCheck.integer({ min: 0, max: 12 }), FastCheck.array(pieces, { maxLength: 3 })),
  { maxLength: 50 }
).map((rows) => rows.map(([indent, parts]) => " ".repeat(indent) + parts.join(" ")))

describe("the indentation engine and the views", () => {
  describe("golden outputs", () => {
    for (
      const name of [
        "micro.ts.txt",
        "inventory.py",
        "server.go",
        "lib.rs",
        "shelf.rb",
        "deploy.sh",
        "readme.md",
        "package.json",
        "workflow.yaml",
        "cargo.toml"
      ]
    ) {
      it(`${name}: summary and outline`, () => {
        const { language, lines } = fixture(name)
        const structure = plainStructure(lines, language)
        expectWellFormed(structure)
        const path = name.replace(/\.txt$/, "")
        const summary = Views.summary(structure, lines, { path })
        expect(summary.view).toBe("summary")
        expectPartition(summary.rows, lines)
        golden(`${path}.summary.txt`, render(summary))
        const outline = Views.outline(structure, lines, { path })
        expectOutlineNests(outline.rows)
        golden(`${path}.outline.txt`, render(outline))
      })
    }
  })

  it("TypeScript: variance annotations, containers open, members folded, doc comments to their first sentence", () => {
    const { language, lines } = fixture("micro.ts.txt")
    const structure = indentationStructure(lines, language)
    const micro = flatten(structure.declarations).find((d) => d.header.startsWith("export interface Micro<out A"))!
    expect(micro).toMatchObject({ kind: "interface", name: "Micro", container: true, span: { start: 66, end: 79 } })
    expect(micro.headerLine).toBe(73)
    const impl = find(structure, "MicroCauseImpl")
    expect(impl.container).toBe(true)
    expect(impl.children.map((d) => d.name)).toEqual([
      "[MicroCauseTypeId]",
      "constructor",
      "pipe",
      "toString",
      "[NodeInspectSymbol]"
    ])
    const rows = Views.summary(structure, lines, { path: "Micro.ts" }).rows
    // A parameter list over several lines stays; the fold starts at the line that opens the body.
    const at = rows.indexOf("257:   constructor(")
    expect(rows.slice(at, at + 6)).toEqual([
      "257:   constructor(",
      "258:     readonly _tag: Tag,",
      "259:     originalError: unknown,",
      "260:     readonly traces: ReadonlyArray<string>",
      "261-290:   ) { … }",
      "291:   pipe() {"
    ])
    expect(rows).toContain("36-40: /** @since 3.4.0 … */")
    expect(rows).toContain(
      "1-6: /** A lightweight alternative to the `Effect` data type, with a subset of the functionality. … */"
    )
  })

  it("runs of imports keep their first and last lines and hide the ones between, in each language", () => {
    const summaryOf = (language: string, text: string) => {
      const lines = text.split("\n")
      const rows = Views.summary(indentationStructure(lines, language), lines, { path: "f" }).rows
      expectPartition(rows, lines)
      return rows
    }
    const ts = [
      "// The module.",
      "import * as A from \"./a.js\"",
      "import type { B } from \"./b.js\"",
      "",
      "import {",
      "  c,",
      "  d",
      "} from \"./cd.js\"",
      "// Why e.",
      "import e from \"./e.js\"",
      "export const x = await import(\"./f.js\")",
      "const y = 1"
    ].join("\n")
    expect(summaryOf("typescript", ts)).toEqual([
      "1: // The module.",
      "2: import * as A from \"./a.js\"",
      "3-9: …",
      "10: import e from \"./e.js\"",
      "11: export const x = await import(\"./f.js\")",
      "12: const y = 1"
    ])
    const py = ["import os", "import sys", "from a import (", "    b,", "    c,", ")", "from d import e", "", "x = 1"]
      .join("\n")
    expect(summaryOf("python", py)).toEqual(["1: import os", "2-6: …", "7: from d import e", "8: ", "9: x = 1"])
    const go = [
      "package main",
      "",
      "import (",
      "\t\"fmt\"",
      "\t\"os\"",
      "\t\"strings\"",
      "\t\"time\"",
      ")",
      "",
      "func main() {}"
    ].join("\n")
    // This engine sees Go's `import ( … )` as a body, folded into its opener row as bodies are.
    expect(summaryOf("go", go)).toEqual(["1: package main", "2: ", "3-8: import ( … )", "9: ", "10: func main() {}"])
    const rust = [
      "use std::io;",
      "use std::fs;",
      "pub use crate::a;",
      "pub(crate) use crate::b;",
      "use crate::c;",
      "use crate::d;",
      "",
      "fn main() {}"
    ]
      .join("\n")
    expect(summaryOf("rust", rust)).toEqual(["1: use std::io;", "2-5: …", "6: use crate::d;", "7: ", "8: fn main() {}"])
    // Fewer than 4 lines between the first and the last: nothing is hidden.
    expect(summaryOf("python", "import a\nimport b\nimport c\nimport d\nimport e\nx = 1")).toHaveLength(6)
    // Another language's imports, or none: as before.
    expect(summaryOf("ruby", "require 'a'\nrequire 'b'\nrequire 'c'\nrequire 'd'\nrequire 'e'\nrequire 'f'"))
      .toHaveLength(6)
  })

  it("Python: decorators attach, docstrings fold, a header over several lines ends at its colon", () => {
    const { language, lines } = fixture("inventory.py")
    const structure = indentationStructure(lines, language)
    expect(find(structure, "Part")).toMatchObject({ span: { start: 11, end: 29 }, headerLine: 12, container: true })
    expect(find(structure, "empty")).toMatchObject({ kind: "method", span: { start: 27, end: 29 }, headerLine: 28 })
    expect(find(structure, "__init__")).toMatchObject({ headerLine: 33, body: { start: 37, end: 40 } })
    expect(find(structure, "report")).toMatchObject({ kind: "function", body: { start: 53, end: 56 } })
    expect(structure.comments).toEqual([{ start: 2, end: 5 }])
    const rows = Views.summary(structure, lines, { path: "inventory.py" }).rows
    expect(rows).toContain("2-5: \"\"\"Keep an inventory of parts. … \"\"\"")
    expect(rows).toContain("36-40:                  strict: bool = False): …")
  })

  it("Ruby: def … end closes at the header's indent; the closing word joins the fold", () => {
    const { language, lines } = fixture("shelf.rb")
    const structure = indentationStructure(lines, language)
    expect(find(structure, "Library")).toMatchObject({ kind: "module", container: true, span: { start: 1, end: 25 } })
    expect(find(structure, "Shelf")).toMatchObject({ kind: "class", container: true, span: { start: 3, end: 24 } })
    expect(find(structure, "add")).toMatchObject({ kind: "method", body: { start: 14, end: 18 }, span: { end: 19 } })
    expect(find(structure, "empty")).toMatchObject({ kind: "method", span: { start: 21, end: 23 } })
    expect(Views.summary(structure, lines, { path: "shelf.rb" }).rows).toContain("13-19:     def add(book) … end")
  })

  it("braces inside strings, chars, raw strings, templates, regexes and comments open nothing", () => {
    const go = fixture("server.go")
    expect(find(indentationStructure(go.lines, go.language), "ServeHTTP")).toMatchObject({
      kind: "method",
      span: { start: 30, end: 38 }
    })
    const rust = fixture("lib.rs")
    const rs = indentationStructure(rust.lines, rust.language)
    expect(find(rs, "new")).toMatchObject({ span: { start: 15, end: 19 } })
    expect(find(rs, "drain")).toMatchObject({ span: { start: 30, end: 39 }, body: { start: 34, end: 38 } })
    const ts = [
      "const a = \"{\"",
      "const b = `${a} } ${`{`}`",
      "const c = /[{(]/",
      "// {",
      "/* { */",
      "function f() {",
      "  return 1",
      "}"
    ]
    const structure = indentationStructure(ts, "typescript")
    // The comments right above the function are its own.
    expect(find(structure, "f")).toMatchObject({
      kind: "function",
      span: { start: 4, end: 8 },
      headerLine: 6,
      body: { start: 7, end: 7 }
    })
    expect(flatten(structure.declarations).map((d) => d.span)).toEqual([
      { start: 1, end: 1 },
      { start: 2, end: 2 },
      { start: 3, end: 3 },
      { start: 4, end: 8 }
    ])
  })

  it("a comment at column 0 inside an indented body does not end it (commented-out code in CPython's compiler/transformer.py)", () => {
    const lines = [
      "class Transformer:",
      "    def if_stmt(self, nodelist):",
      "        if len(nodelist) % 4 == 3:",
      "            elseNode = self.com_node(nodelist[-1])",
      "##      elseNode.lineno = nodelist[-1][1][2]",
      "        else:",
      "            elseNode = None",
      "        return elseNode",
      "",
      "    def other(self):",
      "        return 1",
      "",
      "# A comment above the next function.",
      "def last():",
      "    return 2"
    ]
    const structure = indentationStructure(lines, "python")
    expect(flatten(structure.declarations).map((d) => [d.kind, d.name, d.span.start, d.span.end])).toEqual([
      ["class", "Transformer", 1, 11],
      ["method", "if_stmt", 2, 8],
      ["method", "other", 10, 11],
      ["function", "last", 13, 15]
    ])
  })

  it("a minified line's slashes are told apart from regexes in one pass (a 1 MB line used to take minutes)", () => {
    // Divisions, a regex after `return` and after `(`, a regex holding `{` and a string holding `/`.
    const unit = "n=a/b+c/d;function g(s){return /[{]/.test(s)||(/\\}/).test(\"/\")}"
    const line = unit.repeat(Math.ceil(1_000_000 / unit.length))
    const structure = indentationStructure([line, "function h() {", "  return 1", "}"], "javascript")
    // Every brace of the line closes on it: the function below is found whole.
    expect(structure.declarations.map((d) => [d.kind, d.name, d.span])).toEqual([["function", "h", {
      start: 2,
      end: 4
    }]])
  }, 30_000)

  it("C-family headers: a return type on the line above, Allman braces, attributes, fields that are not methods", () => {
    const c = [
      "static PyObject *",
      "make_point(int x, int y)",
      "{",
      "    return NULL;",
      "}",
      "",
      "static struct point origin = {",
      "    0, 0",
      "};",
      "",
      "struct point {",
      "    int x;",
      "};"
    ]
    const cs = indentationStructure(c, "c")
    expect(cs.declarations.map((d) => [d.kind, d.name, d.span.start, d.span.end, d.header])).toEqual([
      ["function", "make_point", 1, 5, "static PyObject * make_point(int x, int y) {"],
      ["block", undefined, 7, 9, "static struct point origin = {"],
      ["struct", "point", 11, 13, "struct point {"]
    ])
    const java = [
      "@Service",
      "public class Orders {",
      "    private final List<String> orders = new ArrayList<>();",
      "    public <T> T get(Class<T> type) {",
      "        return null;",
      "    }",
      "}"
    ]
    const orders = indentationStructure(java, "java").declarations[0]!
    expect(orders).toMatchObject({ kind: "class", name: "Orders", span: { start: 1, end: 7 }, headerLine: 2 })
    expect(orders.children.map((d) => [d.kind, d.name])).toEqual([["method", "get"]])
    const csharp = [
      "namespace Shop",
      "{",
      "    [Serializable]",
      "    public class Order",
      "    {",
      "        public void Ship(string address)",
      "        {",
      "            Console.WriteLine($\"{{ {address} }}\");",
      "        }",
      "    }",
      "}"
    ]
    const shop = indentationStructure(csharp, "csharp").declarations[0]!
    expect(shop).toMatchObject({ kind: "namespace", name: "Shop", container: true, body: { start: 3, end: 10 } })
    expect(shop.children[0]).toMatchObject({ kind: "class", span: { start: 3, end: 10 }, headerLine: 4 })
    expect(shop.children[0]!.children[0]).toMatchObject({
      kind: "method",
      name: "Ship",
      header: "public void Ship(string address) {",
      body: { start: 8, end: 8 }
    })
    const php = ["<?php", "#[Attribute]", "final class Cart", "{", "    # a { comment", "}"]
    expect(indentationStructure(php, "php").declarations).toMatchObject([
      { kind: "class", name: "Cart", span: { start: 2, end: 6 }, headerLine: 3, body: { start: 5, end: 5 } }
    ])
  })

  it("text with no structure: no declarations, a summary that elides nothing, an outline that says so", () => {
    const lines = [
      "This is a note about the release.",
      "",
      "It has two paragraphs, and nothing in it (really) opens a block.",
      "Don't read too much into it."
    ]
    const structure = indentationStructure(lines, undefined)
    expect(structure.declarations).toEqual([])
    const summary = Views.summary(structure, lines, { path: "NOTES" })
    expect(summary.rows).toEqual(lines.map((line, i) => `${i + 1}: ${line}`))
    expect(summary.footer).toBe("(Summary: nothing to elide; all 4 lines shown.)")
    expect(render(Views.outline(structure, lines, { path: "NOTES" }))).toBe(
      "(Outline of NOTES: no declarations found in 4 lines. Read it with offset/limit.)\n(End of outline - total 0 declarations)\n"
    )
    expect(indentationStructure([], "typescript")).toMatchObject({ lines: 0, declarations: [] })
  })

  it("a kept line is cut as a page cuts it", () => {
    const long = "x".repeat(MAX_LINE_LENGTH + 50)
    const page = pageBytes(new TextEncoder().encode(`short\n${long}\n`), {
      offset: 1,
      limit: 10,
      maxLineLength: MAX_LINE_LENGTH,
      maxBytes: 1e9
    })
    expect([Views.numberedLine(1, "short"), Views.numberedLine(2, long)]).toEqual(page.rendered)
  })

  it("a summary longer than a page becomes an outline and says so", () => {
    const { language, lines } = fixture("micro.ts.txt")
    const structure = indentationStructure(lines, language)
    const result = Views.summary(structure, lines, { path: "Micro.ts", maxRows: 20 })
    expect(result.view).toBe("outline")
    expect(result.header).toMatch(
      /^\(Outline of Micro\.ts: \d+ declarations in 330 lines; its summary \(\d+ rows, \d+ KB\) is longer than a page, so this is the outline\. Read one with offset\/limit or Micro\.ts:A-B\. Showing level 1 of 3: .*\)$/
    )
    // A page of 20 rows: the outline folds to the levels whose rows fit it, and pages by 20.
    expect(result.rows).toHaveLength(20)
    expect(result.footer).toMatch(/^\(Showing declarations 1-20 of \d+, level 1 of 3\. Use offset=21 to continue\.\)$/)
    const bytes = Views.summary(structure, lines, { path: "Micro.ts", maxBytes: 2000 })
    expect(bytes.view).toBe("outline")
    expect(bytes.rows.reduce((sum, row) => sum + Buffer.byteLength(row) + 1, 0)).toBeLessThanOrEqual(2000)
    const narrow = Views.outline(structure, lines, { path: "Micro.ts", maxBytes: 500, levels: 3 })
    expect(narrow.footer).toMatch(
      /^\(Output capped at 50 KB\. Showing declarations 1-\d+ of 40\. Use offset=\d+ to continue\.\)$/
    )
  })

  it("an outline pages over declarations", () => {
    const { language, lines } = fixture("micro.ts.txt")
    const structure = indentationStructure(lines, language)
    const total = Views.outline(structure, lines, { path: "m.ts" }).rows.length
    const page = Views.outline(structure, lines, { path: "m.ts", offset: 11, limit: 5 })
    expect(page.rows).toEqual(Views.outline(structure, lines, { path: "m.ts" }).rows.slice(10, 15))
    expect(page.footer).toBe(`(Showing declarations 11-15 of ${total}. Use offset=16 to continue.)`)
    const tail = Views.outline(structure, lines, { path: "m.ts", offset: total })
    expect(tail.rows).toHaveLength(1)
    expect(tail.footer).toBe(`(End of outline - total ${total} declarations)`)
    expect(Views.outline(structure, lines, { path: "m.ts", offset: total + 1 })).toMatchObject({
      rows: [],
      pastEnd: true
    })
  })

  it("blockAt: the innermost declaration around a line, climbing levels; statementAt outside any", () => {
    const { language, lines } = fixture("shelf.rb")
    const structure = indentationStructure(lines, language)
    expect(Views.blockAt(structure, 15)).toMatchObject({
      span: { start: 13, end: 19 },
      header: "(Block: method add, lines 13-19 of 25.)"
    })
    expect(Views.blockAt(structure, 15, 2)?.header).toBe("(Block: class Shelf, lines 3-24 of 25.)")
    expect(Views.blockAt(structure, 15, 3)?.header).toBe("(Block: module Library, lines 1-25 of 25.)")
    expect(Views.blockAt(structure, 15, 9)?.header).toBe("(Block: module Library, lines 1-25 of 25.)")
    const sh = fixture("deploy.sh")
    const script = indentationStructure(sh.lines, sh.language)
    expect(Views.blockAt(script, 3)).toBeUndefined()
    expect(Views.statementAt(sh.lines, 3, sh.language)).toEqual({ start: 1, end: 3 })
    expect(Views.statementAt(sh.lines, 14, sh.language)).toEqual({ start: 12, end: 16 })
    expect(Views.statementAt(sh.lines, 4, sh.language)).toBeUndefined()
  })

  it("syntaxContext widens a range to whole statements, at most 20 lines each side, and says why", () => {
    const { language, lines } = fixture("shelf.rb")
    const structure = indentationStructure(lines, language)
    expect(Views.syntaxContext(structure, lines, 15, 16)).toEqual({
      from: 1,
      to: 25,
      before: { start: 1, end: 14 },
      after: { start: 17, end: 25 },
      footer: "(Lines 1-14 and 17-25 added as context: the start and end of the enclosing module Library.)"
    })
    expect(Views.syntaxContext(structure, lines, 13, 19).footer).toBe(
      "(Lines 1-12 and 20-25 added as context: the start and end of the enclosing module Library.)"
    )
    const long = ["function f() {", ...Array.from({ length: 60 }, (_, i) => `  step(${i})`), "}"]
    const far = Views.syntaxContext(indentationStructure(long, "typescript"), long, 25, 26)
    expect(far).toMatchObject({ from: 25, to: 26, before: undefined, after: undefined })
    expect(far.footer).toBe(
      "(No lines added as context: the enclosing function f (lines 1-62) reaches more than 20 lines past lines 25-26.)"
    )
    const flat = ["a = 1", "b = 2"]
    expect(Views.syntaxContext(indentationStructure(flat, "python"), flat, 1, 2).footer).toBe(
      "(No lines added as context: lines 1-2 already hold whole statements.)"
    )
  })

  it("Markdown: ATX and setext headings nest; fenced code and front matter hold none", () => {
    const lines = [
      "---",
      "title: # not a heading",
      "---",
      "Guide",
      "=====",
      "",
      "Intro.",
      "",
      "## Install",
      "",
      "```sh",
      "# a shell comment, not a heading",
      "```",
      "",
      "Usage",
      "-----",
      "### Flags ###",
      "text",
      "",
      "# Appendix"
    ]
    const structure = headingsStructure(lines)
    expect(structure.engine).toBe("headings")
    const outline = Views.outline(structure, lines, { path: "guide.md" }).rows
    expect(outline).toEqual([
      "4-18: Guide",
      "  9-13: ## Install",
      "  15-18: Usage",
      "    17-18: ### Flags ###",
      "20: # Appendix"
    ])
    expect(flatten(structure.declarations).map((d) => d.name)).toEqual([
      "# Guide",
      "## Install",
      "## Usage",
      "### Flags",
      "# Appendix"
    ])
    expect(find(structure, "## Install")).toMatchObject({ body: { start: 10, end: 13 }, container: false })
    expect(Views.summary(structure, lines, { path: "guide.md" }).rows).toContain("9-13: ## Install …")
  })

  it("Markdown: inline code of three backticks opens no fence; <pre> blocks and HTML comments hold no headings", () => {
    // @tokenizer/inflate's README writes "```InflatedDataHandler```" in a paragraph; the JDK's
    // legal/libpng.md is one <pre> block with setext-looking lines in it.
    const lines = [
      "# API",
      "```Handler``` is called per file.",
      "## Types",
      "```ts",
      "# not a heading",
      "```",
      "<pre>",
      "COPYRIGHT NOTICE",
      "================",
      "</pre>",
      "<!--",
      "## commented out",
      "-->",
      "## Last"
    ]
    expect(flatten(headingsStructure(lines).declarations).map((d) => [d.name, d.headerLine])).toEqual([
      ["# API", 1],
      ["## Types", 3],
      ["## Last", 14]
    ])
  })

  it("JSON: a tolerant scan: comments, trailing commas, a broken tail, top-level arrays; keys to depth 2", () => {
    const lines = [
      "{",
      "  // a comment { with a brace",
      "  \"name\": \"x}\",",
      "  \"scripts\": {",
      "    \"build\": \"tsc\",",
      "    \"deep\": { \"hidden\": { \"x\": 1 } },",
      "  },",
      "  \"list\": [",
      "    1,",
      "    2,",
      "    3,",
      "    4",
      "  ],",
      "  \"broken\": {",
      "    \"a\": "
    ]
    const structure = keysStructure(lines, "json")
    expect(Views.outline(structure, lines, { path: "p.json" }).rows).toEqual([
      "3: \"name\": \"x}\",",
      "4-7: \"scripts\": {",
      "  5: \"build\": \"tsc\",",
      "  6: \"deep\": { \"hidden\": { \"x\": 1 } },",
      "8-13: \"list\": [",
      "14-15: \"broken\": {",
      "  15: \"a\":"
    ])
    expect(Views.summary(structure, lines, { path: "p.json" }).rows).toContain("8-13:   \"list\": [ … ],")
    const array = ["[", "  {", "    \"id\": 1", "  },", "  2", "]"]
    expect(Views.outline(keysStructure(array, "json"), array, { path: "a.json" }).rows).toEqual([
      "2-4: {",
      "  3: \"id\": 1"
    ])
    expect(keysStructure(["not json"], "json").declarations).toEqual([])
  })

  it("YAML and TOML: keys by indentation and tables; listed, never hidden", () => {
    const yaml = fixture("workflow.yaml")
    const structure = keysStructure(yaml.lines, "yaml")
    expect(flatten(structure.declarations).map((d) => d.name)).toEqual([
      "name",
      "on",
      "push",
      "pull_request",
      "env",
      "NODE_OPTIONS",
      "jobs",
      "test",
      "release"
    ])
    expect(find(structure, "test").span).toEqual({ start: 12, end: 24 })
    expect(Views.summary(structure, yaml.lines, { path: "w.yaml" }).counts.spans).toBe(0)
    const toml = fixture("cargo.toml")
    const manifest = keysStructure(toml.lines, "toml")
    expect(manifest.declarations.map((d) => [d.kind, d.name, d.span])).toEqual([
      ["key", "name", { start: 2, end: 2 }],
      ["table", "package", { start: 4, end: 10 }],
      ["table", "dependencies", { start: 12, end: 17 }],
      ["array of tables", "bin", { start: 19, end: 21 }],
      ["table", "profile.release", { start: 23, end: 24 }]
    ])
    expect(find(manifest, "description").span).toEqual({ start: 7, end: 10 })
    expect(find(manifest, "tokio").span).toEqual({ start: 14, end: 17 })
    expect(Views.summary(manifest, toml.lines, { path: "Cargo.toml" }).counts.spans).toBe(0)
  })

  it("plainStructure picks the engine by language", () => {
    expect(plainStructure(["# a"], "markdown").engine).toBe("headings")
    expect(plainStructure(["{}"], "json").engine).toBe("keys")
    expect(plainStructure(["a: 1"], "yaml").engine).toBe("keys")
    expect(plainStructure(["a = 1"], "toml").engine).toBe("keys")
    expect(plainStructure(["def f():", "  pass"], "python").engine).toBe("indentation")
    expect(plainStructure(["text"], undefined)).toMatchObject({ engine: "indentation", language: undefined })
  })

  it.prop(
    "generated files: the structure is well formed, a summary covers every line once, outlines nest, blocks hold their line",
    [generatedFile, FastCheck.constantFrom(...LANGUAGES), FastCheck.nat(), FastCheck.integer({ min: 1, max: 4 })],
    ([lines, language, anchor, levels]) => {
      const structure = plainStructure(lines, language)
      expectWellFormed(structure)
      const summary = Views.summary(structure, lines, { path: "f", maxRows: 1e9, maxBytes: 1e12 })
      expectPartition(summary.rows, lines)
      expect(summary.counts.elidedLines).toBeLessThanOrEqual(lines.length)
      expectOutlineNests(Views.outline(structure, lines, { path: "f" }).rows)
      expectLevels(structure, lines, "f", 1 + (anchor % 12))
      if (lines.length === 0) return
      const line = 1 + anchor % lines.length
      const block = Views.blockAt(structure, line, levels)
      if (block !== undefined) {
        expect(block.span.start).toBeLessThanOrEqual(line)
        expect(block.span.end).toBeGreaterThanOrEqual(line)
      }
      const statement = Views.statementAt(lines, line, language)
      if (statement !== undefined) expect(statement.start <= line && line <= statement.end).toBe(true)
      // Outside every statement, a line that is not blank is in a run of comment lines that holds it.
      const comment = Views.commentAt(lines, line, language)
      if (statement !== undefined || lines[line - 1]!.trim() === "") expect(comment).toBeUndefined()
      else {
        expect(comment !== undefined && comment.start <= line && line <= comment.end).toBe(true)
        expect(lines.slice(comment!.start - 1, comment!.end).every((text) => text.trim() !== "")).toBe(true)
      }
      const to = Math.min(lines.length, line + (anchor % 5))
      const context = Views.syntaxContext(structure, lines, line, to)
      expect(context.from).toBeLessThanOrEqual(line)
      expect(context.from).toBeGreaterThanOrEqual(Math.max(1, line - Views.MAX_CONTEXT_LINES))
      expect(context.to).toBeGreaterThanOrEqual(to)
      expect(context.to).toBeLessThanOrEqual(Math.min(lines.length, to + Views.MAX_CONTEXT_LINES))
    },
    { fastCheck: { numRuns: 400 } }
  )

  it("real files (effect's sources, Python's standard library): well formed, summaries cover every line once", () => {
    const effect = nodePath.resolve(import.meta.dirname, "../node_modules/effect/src")
    const stdlib = execFileSync("python3", ["-c", "import os; print(os.path.dirname(os.__file__))"], {
      encoding: "utf8"
    }).trim()
    const files = [
      ...fs.readdirSync(effect).filter((name) => name.endsWith(".ts")).slice(0, 40).map((name) =>
        nodePath.join(effect, name)
      ),
      ...fs.readdirSync(stdlib).filter((name) => name.endsWith(".py")).sort().slice(0, 40).map((name) =>
        nodePath.join(stdlib, name)
      )
    ]
    expect(files.length).toBeGreaterThan(40)
    let lineCount = 0
    let elided = 0
    for (const file of files) {
      const lines = linesOf(fs.readFileSync(file, "utf8"))
      const structure = indentationStructure(lines, languageOfPath(file))
      expectWellFormed(structure)
      const summary = Views.summary(structure, lines, { path: file, maxRows: 1e9, maxBytes: 1e12 })
      expectPartition(summary.rows, lines)
      expectOutlineNests(Views.outline(structure, lines, { path: file }).rows)
      expectLevels(structure, lines, file, 40)
      lineCount += lines.length
      elided += summary.counts.elidedLines
    }
    // Real sources have structure, and their summaries hide a good part of them.
    expect(elided).toBeGreaterThan(lineCount / 3)
  })
  it("outline levels on real files: TypeScript's own declarations, a Markdown README, package.json", () => {
    const modules = nodePath.resolve(import.meta.dirname, "../node_modules")
    const typescript = nodePath.join(modules, "typescript/lib/typescript.d.ts")
    const lines = linesOf(fs.readFileSync(typescript, "utf8"))
    const structure = indentationStructure(lines, "typescript")
    const { byDefault, full } = expectLevels(structure, lines, "typescript.d.ts")
    // Thousands of declarations in one namespace: the default shows what the namespace holds, one page.
    expect(full.rows.length).toBeGreaterThan(2000)
    expect(byDefault.rows[0]).toMatch(/^16-11436: declare namespace ts \{$/)
    expect(byDefault.rows[1]).toMatch(/^ {2}17-\d+: namespace server \{ {2}\(\+\d+ inside: :18-\d+:outline\)$/)
    expect(byDefault.counts).toMatchObject({ levels: 2, depth: full.counts.depth })
    expect(byDefault.footer).toMatch(
      /^\(Showing declarations 1-250 of \d+, levels 1-2 of \d+\. Use offset=251 to continue\.\)$/
    )
    expect(byDefault.header).toContain("levels=3 shows one level more.")
    for (const name of ["yauzl/README.md", "exceljs/README.md", "typescript/package.json", "effect/package.json"]) {
      const file = nodePath.join(modules, name)
      const text = linesOf(fs.readFileSync(file, "utf8"))
      expectLevels(plainStructure(text, name.endsWith(".md") ? "markdown" : "json"), text, name, 20)
    }
  })
})
