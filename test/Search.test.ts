/**
 * Search inside a file: the pure matcher and pager (`core/search.ts`, properties over random
 * texts), and `search` through `read` on every text source: files on the real filesystem (in
 * several encodings, a huge one with progress), archive members, notebooks, real files from
 * node_modules; the selector form, paging over matches, and the errors.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import {
  ChunkSearcher,
  nextMatchOffset,
  parseSearch,
  requiredLiteral,
  SearchCollector,
  SearchError,
  searchFooter,
  searchLines,
  type SearchPage,
  type SearchQuery
} from "../src/internal/core/search.js"
import * as Progress from "../src/Progress.js"
import { read } from "../src/Read.js"
import type { ReadResult } from "../src/ReadResult.js"
import { fieldsOf, nodeLayer, projectDirs } from "./support/index.js"
import { zip } from "./support/zipFixtures.js"

const project = projectDirs()
const readIn = (root: string, params: Parameters<typeof read>[0]) => read(params).pipe(Effect.provide(nodeLayer(root)))
const failIn = (root: string, params: Parameters<typeof read>[0]) => Effect.flip(readIn(root, params))

const query = (text: string): SearchQuery => {
  const parsed = parseSearch(text)
  if (parsed instanceof SearchError) throw new Error(parsed.message)
  return parsed
}

describe("the expression", () => {
  it("is JavaScript syntax; /re/i and a leading (?i) ignore case", () => {
    expect(query("a+b").regex.test("xaab")).toBe(true)
    expect(query("Foo").regex.test("foo")).toBe(false)
    expect(query("/Foo/i").regex.test("foo")).toBe(true)
    expect(query("(?i)Foo").regex.test("FOO")).toBe(true)
    // Slashes inside the slashed form are the pattern's.
    expect(query("/a/b/").regex.test("a/b")).toBe(true)
    expect(query("\\bfn\\(").regex.test("call fn(1)")).toBe(true)
  })

  it("a broken expression, an unknown flag and an empty one are errors that say why", () => {
    expect(parseSearch("(")).toBeInstanceOf(SearchError)
    expect((parseSearch("(") as SearchError).message).toContain("not a valid regular expression (JavaScript syntax)")
    expect((parseSearch("/a/g") as SearchError).message).toContain("unsupported flag")
    expect(parseSearch("")).toBeInstanceOf(SearchError)
  })
})

const options = { offset: 1, limit: 100, context: 2, maxLineLength: 2000, maxBytes: 50_000 }

describe("the pager over matches", () => {
  it("merges overlapping windows and marks matches and context", () => {
    const lines = ["a", "b", "hit 1", "c", "hit 2", "d", "e", "f", "g", "h", "hit 3", "i"]
    const page = searchLines(lines, query("hit"), options)
    expect(page.windows.map((window) => window.map((line) => line.rendered))).toEqual([
      ["1- a", "2- b", "3: hit 1", "4- c", "5: hit 2", "6- d", "7- e"],
      ["9- g", "10- h", "11: hit 3", "12- i"]
    ])
    expect(page.totalMatches).toBe(3)
    expect(searchFooter(page, 1, "50 KB")).toBe("(3 matches for /hit/ in 12 lines.)")
  })

  it("no match is an answer", () => {
    const page = searchLines(["a", "b"], query("z"), options)
    expect(page.windows).toEqual([])
    expect(searchFooter(page, 1, "50 KB")).toBe("(0 matches for /z/ in 2 lines.)")
  })

  it("the limit ends a page; the footer names the next offset; context never shows a match as context", () => {
    const lines = ["hit", "x", "hit", "hit", "y"]
    const first = searchLines(lines, query("hit"), { ...options, limit: 2, context: 1 })
    expect(first.windows.map((window) => window.map((line) => line.rendered))).toEqual([["1: hit", "2- x", "3: hit"]])
    expect(searchFooter(first, 1, "50 KB")).toBe(
      "(Showing matches 1-2 of 3 for /hit/ in 5 lines. Use offset=3 to continue.)"
    )
    const second = searchLines(lines, query("hit"), { ...options, offset: 3, limit: 2, context: 1 })
    expect(second.windows.map((window) => window.map((line) => line.rendered))).toEqual([["4: hit", "5- y"]])
    expect(searchFooter(second, 3, "50 KB")).toBe("(Showing match 3 of 3 for /hit/ in 5 lines.)")
  })

  it("a match past the length cap says where it is and how to read it", () => {
    const long = `${"x".repeat(3000)}needle`
    const page = searchLines([long], query("needle"), { ...options, context: 0 })
    expect(page.windows[0]![0]!.rendered).toBe(
      `1: ${
        "x".repeat(2000)
      }... (line truncated to 2000 chars; the match starts at character 3001: use offset=1 column=3001 to read it)`
    )
    expect(page.linesCut).toBe(1)
  })

  it("the byte cap ends a page between matches, never before the first", () => {
    const lines = Array.from({ length: 200 }, (_, i) => `match ${i} ${"y".repeat(500)}`)
    const page = searchLines(lines, query("match"), { ...options, context: 0, maxBytes: 5000 })
    expect(page.stoppedBy).toBe("bytes")
    expect(page.first).toBe(1)
    expect(page.last).toBeLessThan(10)
    expect(searchFooter(page, 1, "50 KB")).toMatch(
      /^\(Output capped at 50 KB\. Showing matches 1-\d of 200 .* Use offset=\d+ to continue\.\)$/
    )
    const tiny = searchLines(["a".repeat(1900), "match"], query("match"), { ...options, context: 1, maxBytes: 100 })
    expect(tiny.windows.flat().map((line) => line.number)).toEqual([2])
  })

  const texts = FastCheck.array(FastCheck.stringMatching(/^[ab ]{0,6}$/), { maxLength: 60 })
  const patterns = FastCheck.constantFrom("a", "ab", "^b", "a$", "b b", "^$", "(?i)A")

  /** Every page, following the footer's offset until none is named. */
  const allPages = (lines: ReadonlyArray<string>, text: string, limit: number, context: number): Array<SearchPage> => {
    const pages: Array<SearchPage> = []
    let offset: number | undefined = 1
    while (offset !== undefined) {
      const page = searchLines(lines, query(text), { ...options, offset, limit, context })
      pages.push(page)
      offset = nextMatchOffset(page, offset)
      if (pages.length > 200) throw new Error("paging does not end")
    }
    return pages
  }

  it.prop("every shown match is a real match at its true number; context lines are true and not matches", [
    texts,
    patterns,
    FastCheck.integer({ min: 0, max: 3 })
  ], ([lines, text, context]) => {
    const regex = query(text).regex
    const page = searchLines(lines, query(text), { ...options, context })
    for (const line of page.windows.flat()) {
      const original = lines[line.number - 1]!
      expect(line.rendered).toBe(`${line.number}${line.match ? ":" : "-"} ${original}`)
      expect(regex.test(original)).toBe(line.match)
    }
    expect(page.totalMatches).toBe(lines.filter((line) => regex.test(line)).length)
  })

  it.prop("windows never overlap or touch, and each is lines in a row", [
    texts,
    patterns,
    FastCheck.integer({ min: 0, max: 3 })
  ], (
    [lines, text, context]
  ) => {
    const page = searchLines(lines, query(text), { ...options, context })
    page.windows.forEach((window, i) => {
      window.forEach((line, j) => j > 0 && expect(line.number).toBe(window[j - 1]!.number + 1))
      if (i > 0) expect(window[0]!.number).toBeGreaterThan(page.windows[i - 1]!.at(-1)!.number + 1)
    })
  })

  it.prop("a paged search visits every match exactly once", [
    texts,
    patterns,
    FastCheck.integer({ min: 1, max: 4 }),
    FastCheck.integer({ min: 0, max: 2 })
  ], ([lines, text, limit, context]) => {
    const regex = query(text).regex
    const expected = lines.flatMap((line, i) => regex.test(line) ? [i + 1] : [])
    const seen = allPages(lines, text, limit, context).flatMap((page) =>
      page.windows.flat().filter((line) => line.match).map((line) => line.number)
    )
    expect(seen).toEqual(expected)
  })
})

describe("the chunk search (a UTF-8 file's bytes)", () => {
  /** Lines as the pager counts them: `\n`, `\r\n` or a lone `\r`; a final terminator ends the last. */
  const linesOf = (text: string): Array<string> => {
    const lines = text.split(/\r\n|\r|\n/)
    if (lines.at(-1) === "") lines.pop()
    return lines
  }
  const chunked = (text: string, cuts: ReadonlyArray<number>, text_: string, pageOptions: typeof options) => {
    const bytes = new TextEncoder().encode(text)
    const collector = new SearchCollector(query(text_), pageOptions)
    const searcher = new ChunkSearcher(collector, (b) => new TextDecoder("utf-8", { ignoreBOM: true }).decode(b))
    const at = [...new Set(cuts.map((cut) => Math.floor(cut * bytes.length)))].sort((a, b) => a - b)
    let from = 0
    // Through one reused buffer, as a file is read: nothing may keep a view of it.
    const reused = Buffer.alloc(bytes.length)
    for (const cut of [...at, bytes.length]) {
      reused.set(bytes.subarray(from, cut))
      searcher.push(reused.subarray(0, cut - from))
      reused.fill(0x3f)
      from = cut
    }
    return collector.end(searcher.end())
  }

  const texts = FastCheck.array(
    FastCheck.constantFrom("a", "b", " ", "\n", "\n", "\n", "\r\n", "\r", "é", "ab\n", "(?=", "\u2028"),
    { maxLength: 120 }
  ).map((parts) => parts.join(""))
  const patterns = FastCheck.constantFrom("a", "ab", "^b", "a$", "^$", "b(?!a)", "(?<=a)b", "é", "a\\s*$", "(?i)A")

  it.prop("finds what the line-by-line search finds, wherever the chunks are cut", [
    texts,
    patterns,
    FastCheck.array(FastCheck.double({ min: 0, max: 1, noNaN: true }), { maxLength: 6 }),
    FastCheck.integer({ min: 0, max: 3 }),
    FastCheck.integer({ min: 1, max: 5 }),
    FastCheck.integer({ min: 1, max: 4 })
  ], ([text, pattern, cuts, context, offset, limit]) => {
    const pageOptions = { ...options, context, offset, limit }
    const expected = searchLines(linesOf(text), query(pattern), pageOptions)
    expect(chunked(text, cuts, pattern, pageOptions)).toEqual(expected)
  })

  // Chunks without a carriage return and without what every match holds are counted, not
  // searched: texts of long runs of such lines, with the few that match anywhere among them.
  const sparse = FastCheck.array(
    FastCheck.constantFrom("a", "b", "c", " ", "\n", "\n", "é", "ab\n", "b c\n", "a+b", "cab"),
    { maxLength: 200 }
  ).map((parts) => parts.join(""))
  const literalPatterns = FastCheck.constantFrom(
    "ab",
    "b c",
    "cab",
    "a\\+b",
    "é",
    "ab?c",
    "^ab",
    "c$",
    "(?<=c)ab",
    "x|ab"
  )

  it.prop("skips the chunks that cannot match and still finds, counts and shows what line-by-line does", [
    sparse,
    literalPatterns,
    FastCheck.array(FastCheck.double({ min: 0, max: 1, noNaN: true }), { maxLength: 8 }),
    FastCheck.integer({ min: 0, max: 3 }),
    FastCheck.integer({ min: 1, max: 3 }),
    FastCheck.integer({ min: 1, max: 4 })
  ], ([text, pattern, cuts, context, offset, limit]) => {
    const pageOptions = { ...options, context, offset, limit }
    const expected = searchLines(linesOf(text), query(pattern), pageOptions)
    expect(chunked(text, cuts, pattern, pageOptions)).toEqual(expected)
  })

  it("a skipped chunk of one empty line still gives it as context to a match after it", () => {
    // The chunk's complete lines are just "\n": its last line starts at its first byte.
    for (const [text, cuts] of [["\ncab", []], ["x\n\ncab\n", [0.5]], ["\n\ncab", [0.2]]] as const) {
      const pageOptions = { ...options, context: 1 }
      expect(chunked(text, cuts, "ab", pageOptions), text).toEqual(searchLines(linesOf(text), query("ab"), pageOptions))
    }
  })

  it("what every match must contain: runs of plain characters, nothing a quantifier may drop", () => {
    const cases: ReadonlyArray<readonly [RegExp, string | undefined]> = [
      [/2024-05-02T10:56:32\.186Z/, "2024-05-02T10:56:32.186Z"],
      [/ERROR.*timeout/, "timeout"],
      [/colou?r/, "colo"],
      [/a+bc/, "bc"],
      [/aaa+/, "aaa"],
      [/a{2,3}bb/, "bb"],
      [/x\d{2}yyyy/, "yyyy"],
      [/(foo|bar)baz/, "baz"],
      [/[abc]+xyz/, "xyz"],
      [/[\]x]yz/, "yz"],
      [/\x41BC/, "BC"],
      [/\bfoo\b/, "foo"],
      [/\/path\/to/, "/path/to"],
      [/é+x/, "é"],
      [/😀?abc/u, "abc"],
      // None it can be sure of: alternatives, case folding, only classes, braces that are not
      // unicode escapes outside unicode mode (`\p{a|b}` is `p{a` or `b}`).
      [/a|b/, undefined],
      [/abc/i, undefined],
      [/\p{L}+/u, undefined],
      [/.{20}/, undefined],
      [new RegExp("xx\\p{a|b}yy"), undefined]
    ]
    for (const [regex, literal] of cases) expect(requiredLiteral(regex), String(regex)).toBe(literal)
  })

  it("a line longer than is searched is searched in its first part, and counted as one line", () => {
    const long = "x".repeat(200_000) + "needle" + "y".repeat(100_000)
    const text = `a\n${long}\nneedle\n`
    const page = chunked(text, [0.1, 0.3, 0.5, 0.9], "needle", { ...options, context: 0 })
    expect(page.totalLines).toBe(3)
    expect(page.windows.flat().map((line) => line.number)).toEqual([3])
  })
})

describe("search through read", () => {
  const SOURCE =
    Array.from({ length: 500 }, (_, i) => i % 97 === 0 ? `export const value${i} = ${i}` : `// line ${i + 1}`)
      .join("\n") + "\n"

  it.effect("a file: matching lines with context, the total, metadata", () =>
    Effect.gen(function*() {
      const root = project({ "src.ts": SOURCE })
      const result = yield* readIn(root, { filePath: "src.ts", search: "export const", context: 1 })
      expect(result.output).toBe([
        `<path>${nodePath.join(root, "src.ts")}</path>`,
        "<type>file</type>",
        "<content>",
        "1: export const value0 = 0",
        "2- // line 2",
        "--",
        "97- // line 97",
        "98: export const value97 = 97",
        "99- // line 99",
        "--",
        "194- // line 194",
        "195: export const value194 = 194",
        "196- // line 196",
        "--",
        "291- // line 291",
        "292: export const value291 = 291",
        "293- // line 293",
        "--",
        "388- // line 388",
        "389: export const value388 = 388",
        "390- // line 390",
        "--",
        "485- // line 485",
        "486: export const value485 = 485",
        "487- // line 487",
        "",
        "(6 matches for /export const/ in 500 lines.)",
        "</content>"
      ].join("\n"))
      expect(fieldsOf(result).search).toEqual({
        pattern: "export const",
        matches: 6,
        first: 1,
        last: 6,
        lines: [1, 98, 195, 292, 389, 486]
      })
      expect(result.metadata.truncated).toBe(false)
      expect(fieldsOf(result).totalLines).toBe(500)
    }))

  it.effect("the selector form, paged by offset and limit over matches", () =>
    Effect.gen(function*() {
      const root = project({ "src.ts": SOURCE })
      const first = yield* readIn(root, { filePath: "src.ts:/VALUE\\d+ = [12]/i", limit: 1, context: 0 })
      expect(first.output).toContain("195: export const value194 = 194\n\n")
      expect(first.output).toContain(
        "(Showing match 1 of 2 for /VALUE\\d+ = [12]/i in 500 lines. Use offset=2 to continue.)"
      )
      expect(fieldsOf(first).nextOffset).toBe(2)
      expect(first.metadata.truncated).toBe(true)
      const second = yield* readIn(root, { filePath: "src.ts:/VALUE\\d+ = [12]/i", offset: 2, limit: 1, context: 0 })
      expect(second.output).toContain("292: export const value291 = 291\n\n(Showing match 2 of 2")
    }))

  it.effect("no match is an answer; a broken expression and a search with a view are InvalidParams", () =>
    Effect.gen(function*() {
      const root = project({ "src.ts": SOURCE })
      const none = yield* readIn(root, { filePath: "src.ts", search: "nothing here" })
      expect(none.output).toContain("(0 matches for /nothing here/ in 500 lines.)")
      expect(fieldsOf(none).search?.matches).toBe(0)
      const broken = yield* failIn(root, { filePath: "src.ts", search: "value(" })
      expect(broken._tag).toBe("InvalidParams")
      expect(broken.message).toContain("not a valid regular expression")
      const withView = yield* failIn(root, { filePath: "src.ts", search: "a", view: "outline" })
      expect(withView._tag).toBe("InvalidParams")
      const withTail = yield* failIn(root, { filePath: "src.ts", search: "a", offset: -5 })
      expect(withTail.message).toContain("offset is the first match")
      const wide = yield* failIn(root, { filePath: "src.ts", search: "a", context: 51 })
      expect(wide._tag).toBe("InvalidParams")
    }))

  it.effect("other encodings: the match is found in the decoded text, at its true line", () =>
    Effect.gen(function*() {
      const text = "first\nzweite Zeile\nüber alles\nlast\n"
      const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")])
      const latin1 = Buffer.from(text, "latin1")
      const root = project({ "u16.txt": utf16, "l1.txt": latin1, "crlf.txt": text.replaceAll("\n", "\r\n") })
      for (const file of ["u16.txt", "l1.txt", "crlf.txt"]) {
        const result = yield* readIn(root, { filePath: file, search: "^über", context: 0 })
        expect(result.output, file).toContain("3: über alles\n")
        expect(fieldsOf(result).search?.matches, file).toBe(1)
      }
    }))

  it.effect("an archive member and a notebook are searched as their text", () =>
    Effect.gen(function*() {
      const notebook = JSON.stringify({
        cells: [
          { cell_type: "markdown", metadata: {}, source: ["# Title\n", "Some prose"] },
          {
            cell_type: "code",
            metadata: {},
            source: ["import numpy as np\n", "x = np.zeros(3)"],
            outputs: [],
            execution_count: 1
          }
        ],
        metadata: {},
        nbformat: 4,
        nbformat_minor: 5
      })
      const root = project({
        "a.zip": zip([{ name: "pkg/mod.ts", data: SOURCE }]),
        "nb.ipynb": notebook
      })
      const member = yield* readIn(root, { filePath: "a.zip:pkg/mod.ts", search: "value388", context: 0 })
      expect(member.output).toContain("389: export const value388 = 388\n")
      expect(member.metadata.kind).toBe("archive")
      const cells = yield* readIn(root, { filePath: "nb.ipynb", search: "np\\.zeros", context: 0 })
      expect(fieldsOf(cells).search?.matches).toBe(1)
      expect(cells.output).toMatch(/\n\d+: x = np\.zeros\(3\)\n/)
    }))

  it.effect("a real file from node_modules: every match found, each at its true line", () =>
    Effect.gen(function*() {
      const path = nodePath.resolve("node_modules/typescript/lib/typescript.d.ts")
      const lines = fs.readFileSync(path, "utf8").split(/\r?\n/)
      if (lines.at(-1) === "") lines.pop()
      const expected = lines.flatMap((line, i) => /\binterface \w+Node\b/.test(line) ? [i + 1] : [])
      expect(expected.length).toBeGreaterThan(20)
      const seen: Array<number> = []
      let offset: number | undefined = 1
      while (offset !== undefined) {
        const page: ReadResult = yield* readIn(process.cwd(), {
          filePath: path,
          search: "\\binterface \\w+Node\\b",
          offset,
          limit: 7,
          context: 0
        })
        const shown = fieldsOf(page).search?.lines ?? []
        seen.push(...shown)
        for (const n of shown) expect(page.output).toContain(`\n${n}: ${lines[n - 1]}\n`)
        offset = fieldsOf(page).nextOffset
      }
      expect(seen).toEqual(expected)
    }))

  it.effect("a large file streams through with progress, in bounded pages", () =>
    Effect.gen(function*() {
      const count = 300_000
      const body = Array.from({ length: count }, (_, i) => i === count - 10 ? "the needle line" : `row ${i}`).join("\n")
      const root = project({ "big.log": body })
      const updates: Array<Progress.Update> = []
      const result = yield* readIn(root, { filePath: "big.log", search: "needle", context: 1 }).pipe(
        Effect.provideService(Progress.Progress, { report: (update) => updates.push(update) })
      )
      expect(result.output).toContain(
        `${count - 10}- row ${count - 11}\n${count - 9}: the needle line\n${count - 8}- row ${count - 9}`
      )
      expect(result.output).toContain(`(1 match for /needle/ in ${count.toLocaleString("en-US")} lines.)`)
      expect(updates.length).toBeGreaterThan(0)
    }))
})
