/**
 * Scale: the line index (page cost by the window, invalidation when the file changes), honest
 * footers when the total is not counted, long-line continuation, and many concurrent reads.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import * as Layer from "effect/Layer"
import * as fs from "node:fs"
import { COUNT_AHEAD_BYTES, LONG_LINE_BYTES } from "../src/internal/core/lines.js"
import { TAIL_BYTES } from "../src/internal/read/open.js"
import { CHUNK_BYTES } from "../src/internal/sources/text.js"
import * as LineIndex from "../src/LineIndex.js"
import { read } from "../src/Read.js"
import { countingReads, fieldsOf, nodeLayer, tempDir } from "./support/index.js"

const root = tempDir()
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

const withIndex = (every: number) => Layer.merge(nodeLayer(root), LineIndex.layerMemory({ every }))
const lineOf = (n: number) => `line ${String(n).padStart(7, "0")} ${"-".repeat(n % 17)}`
const write = (name: string, from: number, to: number) =>
  fs.writeFileSync(`${root}/${name}`, Array.from({ length: to - from + 1 }, (_, i) => lineOf(from + i) + "\n").join(""))
const firstShown = (output: string) => output.split("<content>\n")[1]!.split("\n")[0]!

describe("line index", () => {
  it.effect("a repeated deep page reads about a page of bytes, not the file", () =>
    Effect.gen(function*() {
      write("deep.log", 1, 1_000_000)
      const size = fs.statSync(`${root}/deep.log`).size
      const first = countingReads()
      const a = yield* first.wrap(read({ filePath: "deep.log", offset: 900_000, limit: 50 }))
      expect(firstShown(a.output)).toBe(`900000: ${lineOf(900_000)}`)
      expect(first.stats.bytes).toBeGreaterThan(size / 2)
      const again = countingReads()
      const b = yield* again.wrap(read({ filePath: "deep.log", offset: 899_000, limit: 50 }))
      expect(firstShown(b.output)).toBe(`899000: ${lineOf(899_000)}`)
      // The sample, a stretch from the nearest checkpoint, and the count-ahead window (read in
      // whole chunks): a small fraction of the 30 MB the first read scanned.
      expect(again.stats.bytes).toBeLessThan(COUNT_AHEAD_BYTES + 2 * CHUNK_BYTES)
    }).pipe(Effect.provide(withIndex(1000))))

  it.effect("appending to the file invalidates the index; new lines and totals are right", () =>
    Effect.gen(function*() {
      write("grow.log", 1, 5000)
      const before = yield* read({ filePath: "grow.log", offset: 4990 })
      expect(before.output).toContain("(End of file - total 5000 lines)")
      fs.appendFileSync(`${root}/grow.log`, Array.from({ length: 10 }, (_, i) => lineOf(5001 + i) + "\n").join(""))
      const after = yield* read({ filePath: "grow.log", offset: 5005 })
      expect(firstShown(after.output)).toBe(`5005: ${lineOf(5005)}`)
      expect(after.output).toContain("(End of file - total 5010 lines)")
    }).pipe(Effect.provide(withIndex(100))))

  it.effect("rewriting the file between reads invalidates the index", () =>
    Effect.gen(function*() {
      write("rewrite.log", 1, 3000)
      yield* read({ filePath: "rewrite.log", offset: 2900 })
      fs.writeFileSync(`${root}/rewrite.log`, Array.from({ length: 4000 }, (_, i) => `short ${i + 1}\n`).join(""))
      const after = yield* read({ filePath: "rewrite.log", offset: 2950, limit: 1 })
      expect(firstShown(after.output)).toBe("2950: short 2950")
    }).pipe(Effect.provide(withIndex(100))))

  it.effect("an in-place rewrite with the same size and mtime is caught by checking the checkpoint", () =>
    Effect.gen(function*() {
      const path = `${root}/sneaky.log`
      const old = Array.from({ length: 1000 }, (_, i) => `${String(i + 1).padStart(9, "0")}\n`).join("") // 10-byte lines
      fs.writeFileSync(path, old)
      const { mtime } = fs.statSync(path)
      yield* read({ filePath: "sneaky.log", offset: 900 })
      // Same size, different line lengths (15 bytes), and the old mtime put back.
      const next = Array.from({ length: 666 }, (_, i) => `${String(i + 1).padStart(14, "0")}\n`).join("")
      fs.writeFileSync(path, next + "x".repeat(old.length - next.length))
      fs.utimesSync(path, mtime, mtime)
      const after = yield* read({ filePath: "sneaky.log", offset: 600, limit: 1 })
      expect(firstShown(after.output)).toBe(`600: ${String(600).padStart(14, "0")}`)
    }).pipe(Effect.provide(withIndex(100))))

  it.effect("a CRLF split between two read chunks where a page's count stops records no checkpoint between its CR and LF", () =>
    Effect.gen(function*() {
      // Line 1, then 100-byte CRLF lines to ~1 MB, then one long line whose \r is the last byte of
      // the fifth chunk read and whose \n is the first of the sixth: the first page's count ahead
      // (1 MB) is done at that line end, with the \n not read. Then line `after`.
      const chunks = 5
      const filler = Array.from({ length: 9_900 }, (_, i) => `${String(i + 2).padStart(97, "0")}\r\n`).join("")
      const head = `first\r\n${filler}`
      const longLine = "L".repeat(chunks * CHUNK_BYTES - 1 - Buffer.byteLength(head))
      const text = `${head}${longLine}\r\nafter\r\nend\r\n`
      expect(text.charCodeAt(chunks * CHUNK_BYTES - 1)).toBe(13)
      expect(chunks * CHUNK_BYTES - 1 - 7).toBeGreaterThan(COUNT_AHEAD_BYTES)
      fs.writeFileSync(`${root}/split.log`, text)
      const afterLine = 1 + 9_900 + 1 + 1
      yield* read({ filePath: "split.log", limit: 1 })
      // A checkpoint there would put the line after the long one at its \n: an empty line, and
      // every later number one off.
      const after = yield* read({ filePath: "split.log", offset: afterLine, limit: 2 })
      expect(after.output).toContain(`\n${afterLine}: after\n${afterLine + 1}: end\n`)
    }).pipe(Effect.provide(withIndex(1))))

  it.live.prop(
    "any reads in any order, pages and tails, answer with a shared index exactly as without one",
    [
      FastCheck.record({
        lines: FastCheck.array(
          FastCheck.tuple(
            FastCheck.oneof(
              { weight: 9, arbitrary: FastCheck.integer({ min: 0, max: 80 }) },
              { weight: 1, arbitrary: FastCheck.integer({ min: 0, max: 1500 }) }
            ),
            FastCheck.constantFrom("\n", "\n", "\r\n", "\r")
          ),
          { minLength: 2000, maxLength: 6000 }
        ),
        every: FastCheck.integer({ min: 1, max: 50 }),
        reads: FastCheck.array(
          FastCheck.record({
            offset: FastCheck.oneof(
              FastCheck.integer({ min: 1, max: 6100 }),
              FastCheck.integer({ min: -3000, max: -1 })
            ),
            limit: FastCheck.option(FastCheck.integer({ min: 1, max: 2500 }), { nil: undefined })
          }),
          { minLength: 3, maxLength: 6 }
        )
      })
    ],
    ([spec]) =>
      Effect.gen(function*() {
        // Lines of any terminator, some long: files of ~0.1-2 MB, read in several 256 KB chunks.
        const name = `shared-${Math.random().toString(36).slice(2)}.log`
        fs.writeFileSync(
          `${root}/${name}`,
          spec.lines.map(([length, end], i) => `${i + 1}:${"x".repeat(length)}${end}`).join("")
        )
        const index = LineIndex.makeMemory({ every: spec.every })
        for (const { limit, offset } of spec.reads) {
          const params = { filePath: name, offset, ...(limit === undefined ? {} : { limit }) }
          const shared = yield* read(params).pipe(Effect.provideService(LineIndex.LineIndex, index), Effect.either)
          const alone = yield* read(params).pipe(
            Effect.provideService(LineIndex.LineIndex, LineIndex.noop),
            Effect.either
          )
          expect(Either.map(shared, (result) => result.output)).toEqual(Either.map(alone, (result) => result.output))
        }
      }).pipe(Effect.provide(nodeLayer(root))),
    { timeout: 240_000, fastCheck: { numRuns: 12 } }
  )

  it.effect("without an index every deep page scans (LineIndex.layerNoop), with the same result", () =>
    Effect.gen(function*() {
      write("plain.log", 1, 3000)
      const a = yield* read({ filePath: "plain.log", offset: 2500, limit: 1 })
      const b = yield* read({ filePath: "plain.log", offset: 2500, limit: 1 })
      expect(a.output).toBe(b.output)
      expect(firstShown(a.output)).toBe(`2500: ${lineOf(2500)}`)
    }).pipe(Effect.provide(Layer.merge(nodeLayer(root), LineIndex.layerNoop))))
})

describe("small files", () => {
  it.effect("are read once: the page, the encoding sample and the last byte come from one read", () =>
    Effect.gen(function*() {
      // ASCII for its first 8 KB, so the encoding is looked for past the 4 KB sample.
      const text = Array.from({ length: 300 }, (_, i) => lineOf(i + 1)).join("\n") + "\n// é\n"
      fs.writeFileSync(`${root}/small.ts`, text)
      const size = Buffer.byteLength(text)
      const counting = countingReads()
      const result = yield* counting.wrap(read({ filePath: "small.ts" }))
      expect(result.output).toContain("301: // é")
      expect(result.metadata).toMatchObject({ encoding: "utf-8", finalNewline: true, totalLines: 301 })
      // The whole file once, and the last bytes before and after (the check that it did not change).
      expect(counting.stats.bytes).toBeLessThanOrEqual(size + 2 * TAIL_BYTES)
    }).pipe(Effect.provide(nodeLayer(root))))
})

describe("honest totals", () => {
  it.effect("a page of a big file says 'at least' until a scan has reached the end", () =>
    Effect.gen(function*() {
      write("big.log", 1, 100_000) // ~2.8 MB: more than the 1 MiB counted past a page
      const first = yield* read({ filePath: "big.log", limit: 10 })
      expect(first.output).toMatch(
        /\(Showing lines 1-10 of at least \d+ in a 2\.\d MiB file\. Use offset=11 to continue\.\)/
      )
      expect(fieldsOf(first).totalLines).toBeUndefined()
      expect(fieldsOf(first).totalLinesAtLeast).toBeGreaterThan(10)
      const past = yield* Effect.flip(read({ filePath: "big.log", offset: 100_001 }))
      expect(past.message).toBe("Offset 100001 is out of range for this file (100000 lines)")
      const again = yield* read({ filePath: "big.log", limit: 10 })
      expect(again.output).toContain("(Showing lines 1-10 of 100000. Use offset=11 to continue.)")
      expect(fieldsOf(again).totalLines).toBe(100_000)
    }).pipe(Effect.provide(withIndex(1000))))
})

describe("long lines", () => {
  const line = Array.from({ length: 2_000_000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join("") // 2 M chars
  fs.writeFileSync(`${root}/minified.js`, `${line}\nsecond\n`)

  it.effect("a cut line says how to continue, and the column cursor reads on from there", () =>
    Effect.gen(function*() {
      const first = yield* read({ filePath: "minified.js" })
      expect(firstShown(first.output)).toBe(
        `1: ${line.slice(0, 2000)}... (line truncated to 2000 chars; use offset=1 column=2001 to read more of it)`
      )
      // A line of 2 MB is over LONG_LINE_BYTES: the page ends in it, the next one starts after it.
      expect(first.output).toContain("(Showing lines 1-1 of at least 1 in a 1.9 MiB file. Use offset=2 to continue.)")
      expect(first.metadata).toMatchObject({ nextOffset: 2, totalLinesAtLeast: 1 })
      const next = yield* read({ filePath: "minified.js", offset: 2 })
      expect(firstShown(next.output)).toBe("2: second")
      const deep = yield* read({ filePath: "minified.js", offset: 1, column: 1_500_001, limit: 1 })
      expect(firstShown(deep.output)).toBe(
        `1: ${
          line.slice(1_500_000, 1_502_000)
        }... (line truncated to 2000 chars; use offset=1 column=1502001 to read more of it)`
      )
      expect(deep.output).toContain("(Line 1 is shown from character 1500001.)")
      expect(deep.metadata).toMatchObject({ column: 1_500_001, truncated: true, nextOffset: 2 })
      const tail = yield* read({ filePath: "minified.js", offset: 1, column: 1_999_001 })
      expect(firstShown(tail.output)).toBe(`1: ${line.slice(1_999_000)}`)
    }).pipe(Effect.provide(nodeLayer(root))))

  it.effect("a huge line: the first page and the column cursor read a bounded stretch, not the line", () =>
    Effect.gen(function*() {
      // 48 MiB of one line (digits, so a column's text is checkable), then a second line.
      const block = Buffer.from("0123456789".repeat(104_858)) // 1 MiB + 4 bytes
      const file = `${root}/bundle.min.js`
      fs.writeFileSync(file, "")
      for (let i = 0; i < 48; i++) fs.appendFileSync(file, block)
      fs.appendFileSync(file, "\nafter\n")
      const first = countingReads()
      const page = yield* first.wrap(read({ filePath: "bundle.min.js" }))
      expect(firstShown(page.output)).toBe(
        `1: ${"0123456789".repeat(200)}... (line truncated to 2000 chars; use offset=1 column=2001 to read more of it)`
      )
      expect(page.output).toContain("Use offset=2 to continue.)")
      expect(first.stats.bytes).toBeLessThan(LONG_LINE_BYTES + 3 * CHUNK_BYTES)
      const column = 20_000_001
      const cursor = countingReads()
      const resumed = yield* cursor.wrap(read({ filePath: "bundle.min.js", offset: 1, column }))
      expect(firstShown(resumed.output)).toBe(
        `1: ${"0123456789".repeat(200)}... (line truncated to 2000 chars; use offset=1 column=${
          column + 2000
        } to read more of it)`
      )
      expect(cursor.stats.bytes).toBeLessThan(column + LONG_LINE_BYTES + 3 * CHUNK_BYTES)
      // The line after it is one offset on, found by reading through the line once.
      const after = yield* read({ filePath: "bundle.min.js", offset: 2 })
      expect(firstShown(after.output)).toBe("2: after")
    }).pipe(Effect.provide(nodeLayer(root))))

  it.effect("a column past the end of the line is a ColumnOutOfRange", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(read({ filePath: "minified.js", offset: 2, column: 10 }))
      expect(error._tag).toBe("ColumnOutOfRange")
      expect(error.message).toBe("Column 10 is past the end of line 2 (6 characters)")
    }).pipe(Effect.provide(nodeLayer(root))))

  it.effect("column 0 or a fraction is InvalidParams", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(read({ filePath: "minified.js", column: 0 }))
      expect(error._tag).toBe("InvalidParams")
      expect(error.message).toContain("column must be at least 1")
    }).pipe(Effect.provide(nodeLayer(root))))
})

describe("concurrency", () => {
  it.effect("1,000 concurrent reads through one runtime all succeed", () =>
    Effect.gen(function*() {
      for (let i = 0; i < 50; i++) write(`many-${i}.txt`, 1, 200)
      const results = yield* Effect.forEach(
        Array.from({ length: 1000 }, (_, i) => i),
        (i) => read({ filePath: `many-${i % 50}.txt`, offset: (i % 200) + 1, limit: 1 }),
        { concurrency: "unbounded" }
      )
      results.forEach((result, i) =>
        expect(firstShown(result.output)).toBe(`${(i % 200) + 1}: ${lineOf((i % 200) + 1)}`)
      )
    }).pipe(Effect.provide(nodeLayer(root))))
})
