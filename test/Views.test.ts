/**
 * The structure views through `read`: `view` and the selectors (`:outline`, `:summary`,
 * `:N:block`), `context: "syntax"`, the host's outline-instead-of-a-cut-page setting, on the
 * in-memory and the real Node filesystems, an archive member, and the errors for wrong targets.
 * The views' rows themselves are tested in test/StructureViews.test.ts; here, their plumbing.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import { StructureDefaults } from "../src/Limits.js"
import { read, readUnknown } from "../src/Read.js"
import type { ReadResult } from "../src/ReadResult.js"
import { fieldsOf, memoryLayer, nodeLayer, tempDir, writeTree } from "./support/index.js"
import { zip } from "./support/zipFixtures.js"

const roots: Array<string> = []
afterAll(() => {
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true })
})
const project = (files: Readonly<Record<string, string | Uint8Array>>): string => {
  const root = tempDir("effect-read-views-")
  roots.push(root)
  writeTree(root, files)
  return root
}

/** A Python module: two functions with bodies and a class with a method (12 lines before `run`). */
const PY = [
  "import os",
  "",
  "",
  "def first(x):",
  "    total = 0",
  "    for i in range(x):",
  "        total += i",
  "    return total",
  "",
  "",
  "class Runner:",
  "    # Runs things.",
  "    def run(self):",
  "        a = 1",
  "        b = 2",
  "        c = 3",
  "        return a + b + c",
  "",
  "",
  "def last():",
  "    return 1",
  ""
].join("\n")

const memory = (params: unknown) => readUnknown(params).pipe(Effect.provide(memoryLayer({ "/project/mod.py": PY })))

describe("structure views through read", () => {
  it.effect("outline: a row per declaration with its lines, led by the counts; view and selector agree", () =>
    Effect.gen(function*() {
      const result = yield* memory({ filePath: "mod.py", view: "outline" })
      expect(result.output).toMatch(
        /^<path>\/project\/mod\.py<\/path>\n<type>file<\/type>\n<content>\n\(Outline of \/project\/mod\.py: \d+ declarations in 21 lines\./
      )
      expect(result.output).toContain("\n4-8: def first(x):\n")
      expect(result.output).toContain("\n11-17: class Runner:\n")
      // Both engines attach the comment above it (tree-sitter-python puts it outside the class's block).
      expect(result.output).toContain("\n  12-17: def run(self):\n")
      expect(result.output).toContain("(End of outline - total")
      expect(result.metadata).toMatchObject({
        kind: "text",
        totalLines: 21,
        structure: { view: "outline", language: "python" }
      })
      expect(fieldsOf(result).startLine).toBeUndefined()
      const bySelector = yield* memory({ filePath: "mod.py:outline" })
      expect(bySelector.output).toBe(result.output)
      // An outline's footer offset applies to the selector form too.
      const paged = yield* memory({ filePath: "mod.py:outline", offset: 2, limit: 1 })
      expect(paged.output).toContain("\n11-17: class Runner:\n\n(Showing declarations 2-2 of ")
    }))

  it.effect("summary: bodies fold into their opener rows that name the hidden lines", () =>
    Effect.gen(function*() {
      const result = yield* memory({ filePath: "mod.py:summary" })
      expect(result.output).toContain("\n1: import os\n")
      expect(result.output).toContain("\n4-8: def first(x): …\n")
      expect(result.output).toContain("\n13-17:     def run(self): …\n")
      expect(result.output).toMatch(/\(Summary: \d+ of 21 lines elided in 2 spans\. Elided spans are hidden, not empty/)
      expect(fieldsOf(result).structure).toMatchObject({ view: "summary", spans: 2 })
      expect((yield* memory({ filePath: "mod.py", view: "summary" })).output).toBe(result.output)
    }))

  it.effect("block: the declaration around a line with its comment; levels climbs; :N:block is the same", () =>
    Effect.gen(function*() {
      const result = yield* memory({ filePath: "mod.py", view: "block", offset: 15 })
      expect(result.output).toMatch(
        /^<path>\/project\/mod\.py<\/path>\n<type>file<\/type>\n<content>\n\(Block: method run, lines 12-17 of 21\.\)\n12: {5}# Runs things\.\n/
      )
      expect(result.output).toContain(
        "13:     def run(self):\n14:         a = 1\n15:         b = 2\n16:         c = 3\n17:         return a + b + c\n\n(End of block: lines 12-17 of 21."
      )
      expect(result.output).toContain("levels=2 shows the declaration around it.)\n</content>")
      expect(result.metadata).toMatchObject({ endLine: 17, structure: { view: "block" } })
      expect((yield* memory({ filePath: "mod.py:15:block" })).output).toBe(result.output)
      const outer = yield* memory({ filePath: "mod.py", view: "block", offset: 15, levels: 2 })
      expect(outer.output).toContain("(Block: class Runner, lines 11-17 of 21.)\n11: class Runner:\n")
      const blank = yield* memory({ filePath: "mod.py:2:block" })
      expect(blank.output).toContain("(Line 2 is blank, between statements: no block holds it.")
    }))

  it.effect("a block longer than a page is shown as its summary; a summary over a page becomes an outline", () =>
    Effect.gen(function*() {
      const methods = Array.from(
        { length: 400 },
        (_, i) =>
          [`    def m${i}(self):`, "        a = 1", "        b = 2", "        c = 3", "        return a + b + c", ""]
            .join("\n")
      ).join("\n")
      const root = project({ "big.py": `class Big:\n${methods}\n`, "long.py": `${methods.replace(/^ {4}/gm, "")}\n` })
      const block = yield* read({ filePath: "big.py:3:block", levels: 2 }).pipe(Effect.provide(nodeLayer(root)))
      expect(block.output).toContain("(Block: class Big, lines 1-")
      expect(block.output).toContain("longer than a page, so this is its summary.)")
      expect(block.output).toContain("\n2-6:     def m0(self): …\n")
      expect(fieldsOf(block).structure?.view).toBe("summary")
      const wide = Array.from({ length: 2100 }, (_, i) => `x${i} = ${i}`).join("\n")
      const root2 = project({ "flat.py": `${wide}\n` })
      const summary = yield* read({ filePath: "flat.py", view: "summary" }).pipe(Effect.provide(nodeLayer(root2)))
      expect(fieldsOf(summary).structure?.view).toBe("outline")
      expect(summary.output).toContain("is longer than a page, so this is the outline")
      // The outline it became is paged like any outline: its footer's offset continues it, as a
      // view or as a selector.
      const functions = Array.from(
        { length: 2100 },
        (_, i) => `def f${i}():\n    a = 1\n    b = 2\n    c = 3\n    return ${i}\n`
      )
      const root3 = project({ "many.py": functions.join("\n") })
      const first = yield* read({ filePath: "many.py", view: "summary" }).pipe(Effect.provide(nodeLayer(root3)))
      expect(first.output).toContain("is longer than a page, so this is the outline")
      const next = Number(/Use offset=(\d+) to continue\.\)\n/.exec(first.output)?.[1])
      expect(next).toBeGreaterThan(1)
      expect(fieldsOf(first).nextOffset).toBe(next)
      for (const request of [{ filePath: "many.py", view: "summary" as const }, { filePath: "many.py:summary" }]) {
        // Following the footer's offset from the second page shows every function once, in order.
        const seen: Array<string> = []
        let offset: number | undefined = next
        while (offset !== undefined) {
          const more: ReadResult = yield* read({ ...request, offset }).pipe(Effect.provide(nodeLayer(root3)))
          expect(fieldsOf(more).structure?.view).toBe("outline")
          seen.push(...[...more.output.matchAll(/: def (f\d+)\(\):/g)].map((match) => match[1]!))
          offset = fieldsOf(more).nextOffset
          if (offset === undefined) expect(more.output).toContain("(End of outline - total 2100 declarations)")
        }
        expect(seen).toEqual(Array.from({ length: 2100 - next + 1 }, (_, i) => `f${next - 1 + i}`))
      }
    }))

  it.effect("context syntax widens a range to the statements it cuts and says so; never unasked", () =>
    Effect.gen(function*() {
      const widened = yield* memory({ filePath: "mod.py", offset: 15, limit: 1, context: "syntax" })
      expect(widened.output).toContain("<content>\n11: class Runner:\n")
      expect(widened.output).toContain(
        "17:         return a + b + c\n\n(Lines 11-14 and 16-17 added as context: the start and end of the enclosing class Runner.)\n(Showing lines 11-17 of 21. Use offset=18 to continue.)"
      )
      const plain = yield* memory({ filePath: "mod.py", offset: 15, limit: 1 })
      expect(plain.output).toBe(
        "<path>/project/mod.py</path>\n<type>file</type>\n<content>\n15:         b = 2\n\n(Showing lines 15-15 of 21. Use offset=16 to continue.)\n</content>"
      )
      const bySelector = yield* memory({ filePath: "mod.py:15-15", context: "syntax" })
      expect(bySelector.output).toBe(widened.output)
    }))

  it.effect("a file that ends with blank lines: the views count them, as a page does", () =>
    Effect.gen(function*() {
      // Python with the syntax engine, Markdown with the headings engine: both see 4 lines.
      const files = { "/project/tail.py": "def f():\n    return 1\n\n\n", "/project/tail.md": "# A\n\ntext\n\n" }
      const tail = (params: unknown) => readUnknown(params).pipe(Effect.provide(memoryLayer(files)))
      for (const name of ["tail.py", "tail.md"]) {
        const outline = yield* tail({ filePath: `${name}:outline` })
        expect(outline.output).toContain(`(Outline of /project/${name}: 1 declaration in 4 lines.`)
        expect(outline.metadata).toMatchObject({ totalLines: 4, structure: { lines: 4 } })
        expect((yield* tail({ filePath: `${name}:1:block` })).output).toContain(" of 4.)")
      }
    }))

  it.effect("block on a comment that no declaration or statement holds: the comment, not 'blank'", () =>
    Effect.gen(function*() {
      const files = {
        "/project/lic.py": "# Copyright Someone.\n# Licensed under X.\n\nimport os\n\n\ndef f():\n    return 1\n",
        "/project/lic.go":
          "// Copyright Someone.\n// Licensed under X.\n\npackage main\n\n/* a note\n   that stands alone */\n\nfunc f() {}\n"
      }
      const lic = (params: unknown) => readUnknown(params).pipe(Effect.provide(memoryLayer(files)))
      const py = yield* lic({ filePath: "lic.py:2:block" })
      expect(py.output).toContain(
        "(Block: comment, lines 1-2 of 8.)\n1: # Copyright Someone.\n2: # Licensed under X.\n\n(End of block: lines 1-2 of 8.)"
      )
      const go = yield* lic({ filePath: "lic.go:7:block" })
      expect(go.output).toContain("(Block: comment, lines 6-7 of 9.)\n6: /* a note\n7:    that stands alone */\n")
      // A blank line is still said to be one.
      expect((yield* lic({ filePath: "lic.py:3:block" })).output).toContain("(Line 3 is blank, between statements")
    }))

  it.effect("a text over 2 MiB on few lines (a minified bundle) is over the views' cap, not an outline of its first 2,000 characters", () =>
    Effect.gen(function*() {
      const bundle = `${"function f(){return 1};".repeat(100_000)}\n`
      const files = { "/project/bundle.min.js": bundle }
      const result = yield* read({ filePath: "bundle.min.js:outline" }).pipe(Effect.provide(memoryLayer(files)))
      expect(result.output).toContain("(The outline view is for texts up to 20,000 lines and 2 MiB;")
      expect(result.output).not.toContain("declaration")
    }))

  it.effect("lines longer than a page shows them are read whole by the engines, shown cut", () =>
    Effect.gen(function*() {
      // A string of 2,500 characters: cut at 2,000 it loses its closing quote, and the engines
      // saw a statement running on; read whole, the first const ends on line 2 (its comment above it).
      const long = "x".repeat(2500)
      const text = `// long\nconst s = "${long}"\nconst t = 1\nfunction f() {\n  return t\n}\n`
      const node = project({ "long.ts": text })
      const files = { "/project/long.ts": text }
      for (const layer of [memoryLayer(files), nodeLayer(node)]) {
        const block = yield* read({ filePath: "long.ts:2:block" }).pipe(Effect.provide(layer))
        expect(block.output).toContain("(Block: const s, lines 1-2 of 6.)")
        // Shown as a page shows it: cut at 2,000 characters, with the notice.
        expect(block.output).toContain(
          `2: const s = "${"x".repeat(2000 - 11)}... (line truncated to 2000 chars; use offset=2 column=2001`
        )
        const outline = yield* read({ filePath: "long.ts:outline" }).pipe(Effect.provide(layer))
        expect(outline.output).toContain("\n4-6: function f() {")
      }
    }))

  it.effect("an archive member's outline, from memory", () =>
    Effect.gen(function*() {
      const root = project({ "a.zip": zip([{ name: "pkg/mod.py", data: PY }]) })
      const result = yield* read({ filePath: "a.zip:pkg/mod.py:outline" }).pipe(Effect.provide(nodeLayer(root)))
      expect(result.output).toContain(`(Outline of ${root}/a.zip:pkg/mod.py:`)
      expect(result.output).toContain("\n4-8: def first(x):\n")
      expect(result.metadata.kind).toBe("archive")
    }))

  it.effect("wrong targets and missing anchors are clear errors", () =>
    Effect.gen(function*() {
      const root = project({ "mod.py": PY, "dir/x.py": "x = 1\n" })
      const fail = (params: unknown) => Effect.flip(readUnknown(params).pipe(Effect.provide(nodeLayer(root))))
      expect((yield* fail({ filePath: "dir", view: "outline" })).message).toBe(
        `Invalid parameters: view "outline" shows a file's text; ${root}/dir is a directory (its views: list, tree)`
      )
      expect((yield* fail({ filePath: "mod.py", view: "block" })).message).toContain(
        "view \"block\" shows the declaration around a line: give that line as offset"
      )
      expect((yield* fail({ filePath: "mod.py:block" }))._tag).toBe("InvalidSelector")
      // A range with block, or a view with a line, is a selector that says what is wrong, not a missing file.
      const ranged = yield* fail({ filePath: "mod.py:1-5:block" })
      expect(ranged._tag).toBe("InvalidSelector")
      expect(ranged.message).toContain(
        "Invalid selector ':1-5:block'. The block view needs one line to start from: :N:block (e.g. :1:block)."
      )
      expect((yield* fail({ filePath: "mod.py:3:outline" })).message).toContain(
        ":outline shows the whole file, or with one range A-B"
      )
      expect((yield* fail({ filePath: "mod.py:conflicts:raw" }))._tag).toBe("InvalidSelector")
      expect((yield* fail({ filePath: "mod.py:99:block" }))._tag).toBe("OffsetOutOfRange")
      expect((yield* fail({ filePath: "mod.py", context: "syntax" })).message).toContain(
        "context \"syntax\" widens a range you ask for"
      )
      expect((yield* fail({ filePath: "mod.py", view: "block", offset: 3, levels: 0 })).message).toContain(
        "levels must be at least 1"
      )
      expect((yield* fail({ filePath: "mod.py", view: "outline", offset: 500 })).message).toContain(
        "past the last row of the outline"
      )
    }))
})

describe("the host's outline for a read a page would cut", () => {
  const long = Array.from({ length: 2500 }, (_, i) => `def f${i}():\n    return ${i}\n`).join("")
  it.effect("off by default: the first page, exactly as opencode shows it", () =>
    Effect.gen(function*() {
      const root = project({ "long.py": long })
      const result = yield* read({ filePath: "long.py" }).pipe(Effect.provide(nodeLayer(root)))
      expect(result.output).toContain("\n1: def f0():\n")
      expect(result.output).toContain("(Showing lines 1-2000 of 5000. Use offset=2001 to continue.)")
      expect(fieldsOf(result).structure).toBeUndefined()
    }))

  it.effect("on: the outline instead, saying why; a file that fits a page is read as usual", () =>
    Effect.gen(function*() {
      const root = project({ "long.py": long, "short.py": "def f():\n    return 1\n" })
      const on = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
        effect.pipe(
          Effect.provideService(StructureDefaults, { outlineWhenTruncated: true }),
          Effect.provide(nodeLayer(root))
        )
      const result = yield* on(read({ filePath: "long.py" }))
      expect(result.output).toContain("it is longer than a page, so this is its outline instead of its first lines")
      expect(result.output).toContain("\n1-2: def f0():\n")
      expect(fieldsOf(result).structure?.view).toBe("outline")
      const short = yield* on(read({ filePath: "short.py" }))
      expect(short.output).toContain("1: def f():\n2:     return 1\n\n(End of file - total 2 lines)")
      // Asked-for pages are never replaced.
      const paged = yield* on(read({ filePath: "long.py", offset: 10, limit: 2 }))
      expect(paged.output).toContain("10:     return 4\n11: def f5():\n")
    }))
})

describe("outline levels through read", () => {
  const typescript = `${process.cwd()}/node_modules/typescript/lib/typescript.d.ts`
  const real = <A, E>(effect: Effect.Effect<A, E, any>) => effect.pipe(Effect.provide(nodeLayer(process.cwd())))

  it.effect("a very large file's default outline is one page of the levels that fit; its folds expand by selector", () =>
    Effect.gen(function*() {
      const result = yield* real(read({ filePath: `${typescript}:outline` }))
      const fields = fieldsOf(result)
      expect(Buffer.byteLength(result.output)).toBeLessThan(51_200)
      expect(fields.structure).toMatchObject({ view: "outline", levels: 2 })
      expect(fields.structure!.depth).toBeGreaterThan(2)
      expect(fields.structure!.folded).toBeGreaterThan(1000)
      expect(fields).toMatchObject({ truncated: true, nextOffset: 251 })
      expect(result.output).toMatch(/\n {2}17-3640: namespace server \{ {2}\(\+\d+ inside: :18-3639:outline\)\n/)
      // The fold says how many declarations it hides: the outline of its range shows exactly them.
      const hidden = Number(/namespace server \{ {2}\(\+(\d+) inside/.exec(result.output)![1])
      const inside = yield* real(read({ filePath: `${typescript}:18-3639:outline`, levels: 99, limit: 5000 }))
      expect(fieldsOf(inside).structure?.declarations).toBe(hidden)
      expect(inside.output).toContain("(Outline of " + typescript + ", lines 18-3639: ")
      expect(inside.output).toContain("\n18-2561: namespace protocol {\n")
      // levels asked: exactly that depth, by view or selector.
      const top = yield* real(read({ filePath: typescript, view: "outline", levels: 1 }))
      expect(top.output).toMatch(
        /\n16-11436: declare namespace ts \{ {2}\(\+\d+ inside: :17-11435:outline\)\n\n\(End of outline - 1 of \d+ declarations, level 1 of \d+; \d+ deeper ones folded into the rows marked \+N inside\. levels=2 shows one level more\.\)/
      )
      expect(fieldsOf(top)).toMatchObject({ truncated: true, structure: { levels: 1 } })
      expect(fieldsOf(top).nextOffset).toBeUndefined()
    }))

  it.effect("an outline that fits is whole; the host sets the rows an outline aims for", () =>
    Effect.gen(function*() {
      const whole = yield* memory({ filePath: "mod.py:outline" })
      expect(whole.output).not.toContain("inside:")
      expect(fieldsOf(whole)).toMatchObject({ truncated: false, structure: { levels: 2, depth: 2, folded: 0 } })
      const aimed = yield* memory({ filePath: "mod.py:outline" }).pipe(
        Effect.provideService(StructureDefaults, { outlineWhenTruncated: false, outlineRows: 3 })
      )
      expect(aimed.output).toContain("\n11-17: class Runner:  (+1 inside: :12-17:outline)\n")
      expect(fieldsOf(aimed).structure).toMatchObject({ levels: 1, depth: 2, folded: 1 })
    }))

  it.effect("levels outside the outline and block views, and a range that is not one A-B, are clear errors", () =>
    Effect.gen(function*() {
      const fail = (params: unknown) => Effect.flip(memory(params))
      expect((yield* fail({ filePath: "mod.py", levels: 2 })).message).toContain(
        "levels applies to the outline (view \"outline\" or /project/mod.py:outline: the depth shown)"
      )
      expect((yield* fail({ filePath: "mod.py", search: "def", levels: 2 })).message).toContain(
        "levels applies to the outline"
      )
      expect((yield* fail({ filePath: "mod.py", levels: 0, view: "outline" })).message).toContain(
        "levels must be at least 1"
      )
      expect((yield* fail({ filePath: "mod.py:4-:outline" })).message).toContain(":A-B:outline")
    }))
})
