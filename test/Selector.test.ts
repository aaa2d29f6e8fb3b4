/**
 * Selectors in the path: the pure grammar, and reads through `read` with ranges, lists of
 * ranges, raw text, `~` and `file://` paths.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import { pathToFileURL } from "node:url"
import { mergeRanges } from "../src/internal/core/ranges.js"
import type { SelectorError } from "../src/internal/core/selector.js"
import { parseSelector, splitSelector } from "../src/internal/core/selector.js"
import { read } from "../src/Read.js"
import { nodeLayer, tempDir } from "./support/index.js"

describe("selector grammar", () => {
  it("splits a selector off the last colon only when it is one", () => {
    expect(splitSelector("src/app.ts:50-100")).toEqual({ path: "src/app.ts", selector: "50-100" })
    expect(splitSelector("src/app.ts:L50-L60")).toEqual({ path: "src/app.ts", selector: "L50-L60" })
    expect(splitSelector("src/app.ts:2-4:raw")).toEqual({ path: "src/app.ts", selector: "2-4:raw" })
    expect(splitSelector("src/app.ts:raw:2-4")).toEqual({ path: "src/app.ts", selector: "raw:2-4" })
    expect(splitSelector("f:10:20")).toEqual({ path: "f:10", selector: "20" })
    expect(splitSelector("foo:../bar.ts")).toEqual({ path: "foo:../bar.ts", selector: undefined })
    expect(splitSelector(":12")).toEqual({ path: ":12", selector: undefined })
    expect(splitSelector("report.pdf:pages=3-5")).toEqual({ path: "report.pdf", selector: "pages=3-5" })
  })

  it("parses every range form", () => {
    const ranges = (selector: string) => (parseSelector(selector) as { ranges: unknown }).ranges
    expect(ranges("50-100")).toEqual([{ start: 50, end: 100 }])
    expect(ranges("50")).toEqual([{ start: 50, end: undefined }])
    expect(ranges("50-")).toEqual([{ start: 50, end: undefined }])
    expect(ranges("50+20")).toEqual([{ start: 50, end: 69 }])
    expect(ranges("L50-L60")).toEqual([{ start: 50, end: 60 }])
    expect(ranges("3..5")).toEqual([{ start: 3, end: 5 }])
    expect(ranges("960-973,5-16")).toEqual([{ start: 5, end: 16 }, { start: 960, end: 973 }])
    expect(ranges("3-7,6-9")).toEqual([{ start: 3, end: 9 }])
    expect(ranges("3-5,6-9")).toEqual([{ start: 3, end: 9 }])
    expect(parseSelector("2-4:raw")).toEqual({ ranges: [{ start: 2, end: 4 }], raw: true, pages: undefined })
    expect(parseSelector("raw")).toEqual({ ranges: [], raw: true, pages: undefined })
  })

  it("says what is wrong and what is valid", () => {
    const message = (selector: string) => (parseSelector(selector) as SelectorError).message
    expect(message("0")).toBe("Line selector 0 is invalid; lines are 1-indexed. Use :1.")
    expect(message("5+0")).toBe("Invalid range 5+0: count must be >= 1.")
    expect(message("9-5")).toBe("Invalid range 9-5: end must be >= start.")
    expect(message("pages=0")).toBe("Page selector 0 is invalid; pages are 1-indexed. Use :pages=1.")
  })

  it("tails and views: :-N, :-N:raw, :conflicts, :outline, :summary, :N:block", () => {
    expect(splitSelector("a.ts:120:block")).toEqual({ path: "a.ts", selector: "120:block" })
    // A view with another part is one selector, so the parser can say what is wrong with it.
    expect(splitSelector("a.ts:1-5:block")).toEqual({ path: "a.ts", selector: "1-5:block" })
    expect(splitSelector("a.ts:3:outline")).toEqual({ path: "a.ts", selector: "3:outline" })
    expect(parseSelector("outline")).toEqual({ ranges: [], raw: false, pages: undefined, view: "outline" })
    expect(parseSelector("Summary")).toEqual({ ranges: [], raw: false, pages: undefined, view: "summary" })
    expect(parseSelector("120:block")).toEqual({
      ranges: [{ start: 120, end: undefined }],
      raw: false,
      pages: undefined,
      view: "block"
    })
    expect((parseSelector("block") as SelectorError).message).toBe(
      "Invalid selector ':block'. The block view needs one line to start from: :N:block (e.g. :120:block)."
    )
    expect(splitSelector("app.log:-200")).toEqual({ path: "app.log", selector: "-200" })
    expect(splitSelector("app.log:-200:raw")).toEqual({ path: "app.log", selector: "-200:raw" })
    expect(splitSelector("a.ts:conflicts")).toEqual({ path: "a.ts", selector: "conflicts" })
    expect(splitSelector("a.ts:conflicts:raw")).toEqual({ path: "a.ts", selector: "conflicts:raw" })
    // Other pairs peel the last part alone.
    expect(splitSelector("a.ts:tree:raw")).toEqual({ path: "a.ts:tree", selector: "raw" })
    expect(splitSelector("notes-2024:-x")).toEqual({ path: "notes-2024:-x", selector: undefined })
    expect(parseSelector("-200")).toEqual({ ranges: [], raw: false, pages: undefined, tail: 200 })
    expect(parseSelector("-3:raw")).toEqual({ ranges: [], raw: true, pages: undefined, tail: 3 })
    expect(parseSelector("Conflicts")).toEqual({ ranges: [], raw: false, pages: undefined, view: "conflicts" })
    const message = (selector: string) => (parseSelector(selector) as SelectorError).message
    expect(message("-0")).toBe("Tail selector :-0 is empty; use :-N for the last N lines (N >= 1).")
    expect(message("5-9:conflicts")).toBe(
      "Invalid selector ':5-9:conflicts'. :conflicts shows the whole file; it takes no line range."
    )
    expect(message("conflicts:raw")).toBe(
      "Invalid selector ':conflicts:raw'. :conflicts cannot be combined with other selectors."
    )
    // A range is not the block's line: the message names the selector and the line it could be.
    expect(message("1-5:block")).toBe(
      "Invalid selector ':1-5:block'. The block view needs one line to start from: :N:block (e.g. :1:block)."
    )
    expect(message("7-:block")).toBe(
      "Invalid selector ':7-:block'. The block view needs one line to start from: :N:block (e.g. :7:block)."
    )
    expect(message("3:outline")).toBe(
      "Invalid selector ':3:outline'. :outline shows the whole file, or with one range A-B the declarations inside lines A-B (:A-B:outline, e.g. :120-480:outline)."
    )
    expect(message("3-9:summary")).toBe(
      "Invalid selector ':3-9:summary'. :summary shows the whole file; it takes no line range."
    )
    expect(parseSelector("120-480:outline")).toMatchObject({ view: "outline", ranges: [{ start: 120, end: 480 }] })
    expect(message("1-5,9-12:outline")).toContain(":outline shows the whole file, or with one range A-B")
  })

  it("merges open ranges by absorbing what follows", () => {
    expect(mergeRanges([{ start: 10, end: undefined }, { start: 20, end: 30 }])).toEqual([{
      start: 10,
      end: undefined
    }])
  })
})

describe("reads with selectors", () => {
  const root = tempDir()
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }))
  const lines = Array.from({ length: 1000 }, (_, i) => `line ${i + 1}`)
  fs.writeFileSync(`${root}/app.ts`, lines.join("\n") + "\n")
  fs.writeFileSync(`${root}/notes:12`, "a file whose name looks like a selector\n")
  fs.writeFileSync(`${root}/small.txt`, "one\ntwo\nthree\nfour\n")
  const inRoot = <A, E>(effect: Effect.Effect<A, E, any>) => effect.pipe(Effect.provide(nodeLayer(root)))
  const body = (output: string) => output.split("<content>\n")[1]!.split("\n\n")[0]!

  it.effect("app.ts:50-52 reads exactly those lines, with the usual footer", () =>
    inRoot(Effect.gen(function*() {
      const result = yield* read({ filePath: "app.ts:50-52" })
      expect(body(result.output)).toBe("50: line 50\n51: line 51\n52: line 52")
      expect(result.output).toContain("(Showing lines 50-52 of 1000. Use offset=53 to continue.)")
      expect(result.title).toBe("app.ts")
    })))

  it.effect(":50+2, :L50-L51 and :998- are the same grammar", () =>
    inRoot(Effect.gen(function*() {
      expect(body((yield* read({ filePath: "app.ts:50+2" })).output)).toBe("50: line 50\n51: line 51")
      expect(body((yield* read({ filePath: "app.ts:L50-L51" })).output)).toBe("50: line 50\n51: line 51")
      const tail = yield* read({ filePath: "app.ts:998-" })
      expect(body(tail.output)).toBe("998: line 998\n999: line 999\n1000: line 1000")
      expect(tail.output).toContain("(End of file - total 1000 lines)")
    })))

  it.effect("a list of ranges is sorted and merged, with a … line for each gap", () =>
    inRoot(Effect.gen(function*() {
      const result = yield* read({ filePath: "app.ts:960-961,5-6" })
      expect(result.output).toBe(
        `<path>${root}/app.ts</path>\n<type>file</type>\n<content>\n5: line 5\n6: line 6\n…\n960: line 960\n961: line 961\n\n(Showing lines 5-6, 960-961 of 1000.)\n</content>`
      )
    })))

  it.effect("a range past the end in a list is skipped with a notice; alone it is an error", () =>
    inRoot(Effect.gen(function*() {
      const listed = yield* read({ filePath: "small.txt:2-3,10-12" })
      expect(body(listed.output)).toBe("2: two\n3: three")
      expect(listed.output).toContain("(Range 10-12 is beyond the end of the file (4 lines); skipped.)")
      const alone = yield* Effect.flip(read({ filePath: "small.txt:10-12" }))
      expect(alone.message).toBe("Offset 10 is out of range for this file (4 lines)")
    })))

  it.effect(":raw shows the text without numbers; :2-3:raw and :raw:2-3 are the same", () =>
    inRoot(Effect.gen(function*() {
      expect(body((yield* read({ filePath: "small.txt:raw" })).output)).toBe("one\ntwo\nthree\nfour")
      const a = yield* read({ filePath: "small.txt:2-3:raw" })
      const b = yield* read({ filePath: "small.txt:raw:2-3" })
      expect(body(a.output)).toBe("two\nthree")
      expect(a.output).toBe(b.output)
    })))

  it.effect("a selector and explicit offset/limit together are InvalidParams", () =>
    inRoot(Effect.gen(function*() {
      const error = yield* Effect.flip(read({ filePath: "app.ts:5-10", offset: 3 }))
      expect(error._tag).toBe("InvalidParams")
      expect(error.message).toContain("has a selector; do not also pass offset, limit or column")
    })))

  it.effect("an invalid selector fails with a message that shows the valid form", () =>
    inRoot(Effect.gen(function*() {
      const zero = yield* Effect.flip(read({ filePath: "app.ts:0" }))
      expect(zero._tag).toBe("InvalidSelector")
      expect(zero.message).toBe("Line selector 0 is invalid; lines are 1-indexed. Use :1.")
      const reversed = yield* Effect.flip(read({ filePath: "app.ts:20-10" }))
      expect(reversed.message).toBe("Invalid range 20-10: end must be >= start.")
    })))

  it.effect("a file whose real name ends like a selector is read as it is", () =>
    inRoot(Effect.gen(function*() {
      const result = yield* read({ filePath: "notes:12" })
      expect(body(result.output)).toBe("1: a file whose name looks like a selector")
    })))

  it.effect("file:// URLs and ~ are paths", () =>
    inRoot(Effect.gen(function*() {
      const url = yield* read({ filePath: `${pathToFileURL(`${root}/small.txt`).href}:2` })
      expect(body(url.output)).toBe("2: two\n3: three\n4: four")
      // ~ expands to the home directory: outside this worktree, so it needs external_directory (allowed here).
      const home = os.homedir()
      const probe = `effect-read-home-${process.pid}.txt`
      fs.writeFileSync(`${home}/${probe}`, "from home\n")
      try {
        const result = yield* read({ filePath: `~/${probe}` })
        expect(result.output).toContain(`<path>${home}/${probe}</path>`)
        expect(body(result.output)).toBe("1: from home")
      } finally {
        fs.rmSync(`${home}/${probe}`)
      }
    })))

  it.effect("a directory takes a single range as offset/limit; a list of ranges is refused", () =>
    inRoot(Effect.gen(function*() {
      fs.mkdirSync(`${root}/dir`, { recursive: true })
      for (const name of ["a", "b", "c", "d"]) fs.writeFileSync(`${root}/dir/${name}`, "")
      const page = yield* read({ filePath: "dir:2-3" })
      expect(page.output).toContain(
        "<entries>\nb\nc\n\n(Showing 2 of 4 entries. Use 'offset' parameter to read beyond entry 4)"
      )
      const error = yield* Effect.flip(read({ filePath: "dir:1-2,4" }))
      expect(error.message).toBe("Multi-range line selectors are not supported for directory listings.")
    })))
})
