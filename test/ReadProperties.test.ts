/**
 * Invariants of `read` over arbitrary text, on MemoryFileSystem: numbering matches the file, no
 * line exceeds the cap, output stays within 50 KB, and following every footer's `offset=` to
 * the end reproduces each line exactly once.
 */
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import * as Effect from "effect/Effect"
import * as Read from "../src/Read.js"
import { memoryLayer } from "./support/index.js"

const referenceLines = (withBom: string): Array<string> => {
  const text = withBom.replace(/^\uFEFF/, "")
  if (text.length === 0) return []
  const lines = text.split(/\r\n|\r|\n/)
  if (/(\r\n|\r|\n)$/.test(text)) lines.pop()
  return lines
}

const lineArb = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.string({ unit: fc.constantFrom("a", "Z", " ", "é", "中", "😀", "\t", "<", "#"), maxLength: 40 })
  },
  // occasionally a line over the 2000-character cap
  { weight: 1, arbitrary: fc.integer({ min: 1990, max: 2100 }).map((n) => "x".repeat(n - 2) + "😀") },
  // and sometimes several times over it, with a pair straddling a cut
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 5 }).map((k) => ("y".repeat(1999) + "😀").repeat(k) + "end") }
)
const textArb = fc.tuple(
  fc.array(fc.tuple(lineArb, fc.constantFrom("\n", "\r\n", "\r")), { maxLength: 120 }),
  fc.boolean(),
  fc.boolean()
).map(([lines, finalTerminator, bom]) => {
  const body = lines.map(([line, end]) => line + end).join("")
  const text = finalTerminator ? body : body.replace(/(\r\n|\r|\n)$/, "")
  return (bom ? "\uFEFF" : "") + text
})

const suffix = (line: number, column: number) =>
  `... (line truncated to 2000 chars; use offset=${line} column=${column} to read more of it)`
const expectedShown = (line: string, number: number) => {
  if (line.length <= 2000) return line
  const end = /[\ud800-\udbff]/.test(line[1999]!) ? 1999 : 2000
  return line.slice(0, end) + suffix(number, end + 1)
}
const cutNotice = /\.\.\. \(line truncated to 2000 chars; use offset=(\d+) column=(\d+) to read more of it\)$/

/** The numbered lines of an output, parsed back. */
const shownLines = (output: string): Array<[number, string]> => {
  const content = output.split("<content>\n")[1]!
  // An empty page has no numbered lines: the footer follows the blank line at once.
  if (content.startsWith("\n(")) return []
  const body = content.slice(0, content.lastIndexOf("\n\n("))
  return body.split("\n").map((line) => {
    const colon = line.indexOf(": ")
    return [Number(line.slice(0, colon)), line.slice(colon + 2)]
  })
}

const readAt = (offset: number, limit: number | undefined) =>
  Read.read({ filePath: "file.txt", offset, ...(limit === undefined ? {} : { limit }) })

describe("read invariants (MemoryFileSystem)", () => {
  it.effect.prop(
    "numbering matches the file, lines and output stay within their caps",
    [textArb, fc.integer({ min: 0, max: 130 }), fc.option(fc.integer({ min: 1, max: 150 }), { nil: undefined })],
    ([text, offset, limit]) =>
      Effect.gen(function*() {
        const lines = referenceLines(text)
        const start = Math.max(1, offset)
        const result = yield* readAt(offset, limit).pipe(Effect.either)
        if (start > lines.length && !(lines.length === 0 && start === 1)) {
          expect(result._tag === "Left" && result.left._tag).toBe("OffsetOutOfRange")
          return
        }
        if (result._tag === "Left") throw result.left
        const { output } = result.right
        expect(new TextEncoder().encode(output).length).toBeLessThanOrEqual(50 * 1024)
        const shown = shownLines(output)
        shown.forEach(([number, line], i) => {
          expect(number).toBe(start + i)
          expect(line).toBe(expectedShown(lines[number - 1]!, number))
          expect(line.replace(cutNotice, "").length).toBeLessThanOrEqual(2000)
        })
      }).pipe(Effect.provide(memoryLayer({ "/project/file.txt": text }))),
    { fastCheck: { numRuns: 60 } }
  )

  it.effect.prop(
    "following each footer's offset reproduces every line exactly once",
    [textArb, fc.integer({ min: 1, max: 40 })],
    ([text, limit]) =>
      Effect.gen(function*() {
        const seen: Array<string> = []
        let offset = 1
        for (;;) {
          const { output } = yield* readAt(offset, limit)
          seen.push(...shownLines(output).map(([, line]) => line))
          const next = /Use offset=(\d+) to continue/.exec(output)
          if (next === null) {
            expect(output).toMatch(/\(End of file - total \d+ lines\)\n<\/content>$/)
            break
          }
          offset = Number(next[1])
        }
        expect(seen).toEqual(referenceLines(text).map((line, i) => expectedShown(line, i + 1)))
      }).pipe(Effect.provide(memoryLayer({ "/project/file.txt": text }))),
    { fastCheck: { numRuns: 60 } }
  )

  it.effect.prop(
    "following the line and column cursors reproduces the file's text exactly",
    [textArb, fc.integer({ min: 1, max: 40 })],
    ([text, limit]) =>
      Effect.gen(function*() {
        const rebuilt: Array<string> = []
        // Read the rest of a cut line by its column cursor until it is whole.
        const chase = (line: number, column: number) =>
          Effect.gen(function*() {
            for (;;) {
              const { output } = yield* Read.read({ filePath: "file.txt", offset: line, column, limit: 1 })
              const [[number, shown]] = shownLines(output) as [[number, string]]
              expect(number).toBe(line)
              const cut = cutNotice.exec(shown)
              rebuilt[line - 1] += shown.replace(cutNotice, "")
              if (cut === null) return
              column = Number(cut[2])
            }
          })
        let offset = 1
        for (;;) {
          const { output } = yield* readAt(offset, limit)
          for (const [number, shown] of shownLines(output)) {
            rebuilt[number - 1] = shown.replace(cutNotice, "")
            const cut = cutNotice.exec(shown)
            if (cut !== null) yield* chase(number, Number(cut[2]))
          }
          const next = /Use offset=(\d+) to continue/.exec(output)
          if (next === null) break
          offset = Number(next[1])
        }
        expect(rebuilt).toEqual(referenceLines(text))
      }).pipe(Effect.provide(memoryLayer({ "/project/file.txt": text }))),
    { fastCheck: { numRuns: 60 } }
  )

  it.effect("pages a file larger than 50 KB on MemoryFileSystem the same way", () =>
    Effect.gen(function*() {
      const { metadata, output } = yield* readAt(1, undefined)
      expect(output).toContain("(Output capped at 50 KB. Showing lines 1-")
      expect(metadata.truncated).toBe(true)
      expect(new TextEncoder().encode(output).length).toBeLessThanOrEqual(50 * 1024)
    }).pipe(Effect.provide(memoryLayer({ "/project/file.txt": "0123456789".repeat(10).concat("\n").repeat(3000) }))))
})
