/**
 * Tails (`offset: -N`, `PATH:-N`): the last lines with their true numbers, read from the end of
 * the file, over the in-memory and the real Node filesystems, archive members and the pure
 * scanner.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import iconv from "iconv-lite"
import * as fs from "node:fs"
import { codecFor, utf8 } from "../src/internal/core/encoding.js"
import { lineCutSuffix, lineMeasure } from "../src/internal/core/lines.js"
import { fitNumbered, TailScanner, tailStartOf } from "../src/internal/core/tail.js"
import { memoryPageAt, memoryTailAt } from "../src/internal/present/pages.js"
import * as LineIndex from "../src/LineIndex.js"
import { read, readUnknown } from "../src/Read.js"
import { countingReads, fieldsOf, memoryLayer, nodeLayer, tempDir, writeTree } from "./support/index.js"
import { zip } from "./support/zipFixtures.js"

const roots: Array<string> = []
afterAll(() => {
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true })
})
const project = (files: Readonly<Record<string, string | Uint8Array>>): string => {
  const root = tempDir("effect-read-tail-")
  roots.push(root)
  writeTree(root, files)
  return root
}

const page = (path: string, lines: ReadonlyArray<string>, footer: string): string =>
  `<path>${path}</path>\n<type>file</type>\n<content>\n${
    lines.map((line) => `${line}\n`).join("")
  }\n${footer}\n</content>`

const readMemory = (files: Record<string, string | Uint8Array>, params: unknown) =>
  readUnknown(params).pipe(
    Effect.provide(memoryLayer(Object.fromEntries(Object.entries(files).map(([k, v]) => [`/project/${k}`, v]))))
  )

const readNode = (root: string, params: unknown) => readUnknown(params).pipe(Effect.provide(nodeLayer(root)))

describe("tail by negative offset", () => {
  it.effect("offset -2 shows the last two lines, numbered, with the read that gives the lines before", () =>
    Effect.gen(function*() {
      const result = yield* readMemory({ "log.txt": "one\ntwo\nthree\nfour\nfive\n" }, {
        filePath: "log.txt",
        offset: -2
      })
      expect(result.output).toBe(
        page(
          "/project/log.txt",
          ["4: four", "5: five"],
          "(Showing the last 2 lines: 4-5 of 5. Use offset=2 limit=2 to read the 2 lines before them.)"
        )
      )
      expect(result.metadata).toMatchObject({ startLine: 4, endLine: 5, totalLines: 5, truncated: false })
      expect(result.metadata).not.toHaveProperty("nextOffset")
    }))

  it.effect("offset -1 is the last line; the one before it is named in the singular", () =>
    Effect.gen(function*() {
      const result = yield* readMemory({ "a.txt": "x\ny\n" }, { filePath: "a.txt", offset: -1 })
      expect(result.output).toBe(
        page(
          "/project/a.txt",
          ["2: y"],
          "(Showing the last 1 lines: 2-2 of 2. Use offset=1 limit=1 to read the line before them.)"
        )
      )
    }))

  it.effect("CRLF and no final newline: the last line counts, a terminator never starts an empty line", () =>
    Effect.gen(function*() {
      const root = project({ "crlf.txt": "a\r\nb\r\nc\r\nd", "final.txt": "a\r\nb\r\nc\r\n", "cr.txt": "a\rb\rc" })
      const crlf = yield* readNode(root, { filePath: "crlf.txt", offset: -2 })
      expect(crlf.output).toContain("3: c\n4: d\n\n(Showing the last 2 lines: 3-4 of 4.")
      expect(crlf.metadata).toMatchObject({ lineEnding: "crlf", finalNewline: false, totalLines: 4 })
      const final = yield* readNode(root, { filePath: "final.txt", offset: -1 })
      expect(final.output).toContain("3: c\n\n(Showing the last 1 lines: 3-3 of 3.")
      const cr = yield* readNode(root, { filePath: "cr.txt", offset: -2 })
      expect(cr.output).toContain("2: b\n3: c\n\n")
    }))

  it.effect("a file smaller than the tail reads whole, exactly as a plain read", () =>
    Effect.gen(function*() {
      const root = project({ "small.txt": "a\nb\nc\n" })
      const tail = yield* readNode(root, { filePath: "small.txt", offset: -200 })
      const plain = yield* readNode(root, { filePath: "small.txt" })
      expect(tail.output).toBe(plain.output)
      expect(tail.output).toContain("(End of file - total 3 lines)")
      const empty = project({ "empty.txt": "" })
      expect((yield* readNode(empty, { filePath: "empty.txt", offset: -5 })).output).toContain(
        "(End of file - total 0 lines)"
      )
    }))

  it.effect("limit counts from the first line of the tail; the footer continues forward", () =>
    Effect.gen(function*() {
      const text = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join("\n") + "\n"
      const window = yield* readMemory({ "t.txt": text }, { filePath: "t.txt", offset: -5, limit: 2 })
      expect(window.output).toBe(
        page("/project/t.txt", ["6: line 6", "7: line 7"], "(Showing lines 6-7 of 10. Use offset=8 to continue.)")
      )
      expect(fieldsOf(window).nextOffset).toBe(8)
      // A limit past the end is the tail itself.
      const whole = yield* readMemory({ "t.txt": text }, { filePath: "t.txt", offset: -3, limit: 50 })
      expect(whole.output).toContain("8: line 8\n9: line 9\n10: line 10\n\n(Showing the last 3 lines: 8-10 of 10.")
    }))

  it.effect("the 50 KB cap keeps the last lines that fit, and says how many of those asked it shows", () =>
    Effect.gen(function*() {
      const lines = Array.from({ length: 3000 }, (_, i) => `${i + 1} ${"x".repeat(96)}`)
      const root = project({ "wide.txt": lines.join("\n") + "\n" })
      const result = yield* readNode(root, { filePath: "wide.txt", offset: -2000 })
      expect(Buffer.byteLength(result.output)).toBeLessThanOrEqual(50 * 1024)
      expect(fieldsOf(result).endLine).toBe(3000)
      const first = fieldsOf(result).startLine!
      expect(first).toBeGreaterThan(1000)
      expect(result.output).toContain(`${first}: ${first} x`)
      expect(result.output).toContain(
        `3000: 3000 ${"x".repeat(96)}\n\n(Output capped at 50 KB. Showing the last ${
          3001 - first
        } of the 2000 lines asked: lines ${first}-3000 of 3000.`
      )
    }))

  it.effect("a file of several MB: true numbers, read from the end once the index knows the total", () =>
    Effect.gen(function*() {
      const count = 400_000
      const text = Array.from({ length: count }, (_, i) => `row ${i + 1}`).join("\n") + "\n"
      const root = project({ "big.log": text })
      const size = Buffer.byteLength(text)
      expect(size).toBeGreaterThan(4 * 1024 * 1024)
      const counting = countingReads()
      const index = LineIndex.makeMemory()
      const tail = (offset: number) =>
        counting.wrap(read({ filePath: "big.log", offset })).pipe(
          Effect.provideService(LineIndex.LineIndex, index),
          Effect.provide(nodeLayer(root))
        )
      const cold = yield* tail(-3)
      expect(cold.output).toContain(
        `${count - 2}: row ${count - 2}\n${count - 1}: row ${count - 1}\n${count}: row ${count}\n\n`
      )
      expect(fieldsOf(cold).totalLines).toBe(count)
      // Cold: the lines before the tail are counted once, in bounded chunks: about the file, never twice.
      expect(counting.stats.bytes).toBeLessThan(size * 1.2)
      counting.stats.bytes = 0
      counting.stats.ranges.length = 0
      const warm = yield* tail(-5)
      expect(warm.output).toContain(`${count - 4}: row ${count - 4}\n`)
      // Warm: the index has the total; only the end of the file is read.
      expect(counting.stats.bytes).toBeLessThan(1024 * 1024)
      // …once: the bytes walked back over are counted and paged from memory. Only the change
      // check's last 4 KB (read at open and again after the read) lie under another read.
      const end = counting.stats.ranges.filter(([from]) => from >= size - 1024 * 1024)
      const check = ([from, to]: readonly [number, number]) => from === size - 4096 && to === size
      const others = end.filter((range) => !check(range))
      expect(end.filter(check)).toHaveLength(2)
      expect(others).toHaveLength(1)
      // The count filled the index: a deep forward page starts near its line too.
      counting.stats.bytes = 0
      const deep = yield* counting.wrap(read({ filePath: "big.log", offset: 200_000, limit: 1 })).pipe(
        Effect.provideService(LineIndex.LineIndex, index),
        Effect.provide(nodeLayer(root))
      )
      expect(deep.output).toContain("200000: row 200000\n")
      expect(counting.stats.bytes).toBeLessThan(2 * 1024 * 1024)
    }))

  it.effect("a file that reports more bytes than it holds (FUSE): the tail shows only bytes it read", () =>
    Effect.gen(function*() {
      const text = Array.from({ length: 20_000 }, (_, i) => `row ${i + 1}`).join("\n") + "\n"
      const claimed = Buffer.byteLength(text) + 200_000
      // Every stat says 200,000 bytes more than the reads give.
      const lie = (info: FileSystem.File.Info): FileSystem.File.Info => ({ ...info, size: FileSystem.Size(claimed) })
      const lying = <A, E, R>(self: Effect.Effect<A, E, R>) =>
        Effect.flatMap(FileSystem.FileSystem, (fs) =>
          Effect.provideService(self, FileSystem.FileSystem, {
            ...fs,
            stat: (path) => Effect.map(fs.stat(path), lie),
            open: (path, options) =>
              Effect.map(fs.open(path, options), (file) =>
                ({
                  ...file,
                  stat: Effect.map(file.stat, lie),
                  seek: (offset, from) => file.seek(offset, from),
                  read: (buffer: Uint8Array) => file.read(buffer)
                }) as FileSystem.File)
          }))
      for (const offset of [-3, -2500]) {
        const result = yield* lying(read({ filePath: "big.log", offset })).pipe(
          Effect.provide(memoryLayer({ "/project/big.log": text }))
        )
        const shown = result.output.slice(result.output.indexOf("<content>\n") + 10).split("\n\n")[0]!.split("\n")
        expect(shown.length).toBeGreaterThan(0)
        // Each line is a line of the file, under its own number: no byte the reads did not give.
        for (const line of shown) expect(line).toMatch(/^(\d+): row \1$/)
        expect(shown.at(-1)).toBe("20000: row 20000")
      }
    }))

  it.effect("UTF-16 text: the walk back keeps to whole code units", () =>
    Effect.gen(function*() {
      const text = "first\nsecond\nthird\n"
      const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")])
      const root = project({ "wide.txt": bytes })
      const result = yield* readNode(root, { filePath: "wide.txt", offset: -2 })
      expect(result.output).toContain("2: second\n3: third\n\n(Showing the last 2 lines: 2-3 of 3.")
      expect(fieldsOf(result).encoding).toBe("utf-16le")
    }))
})

/** Rendered `N: text` lines of an output, between `<content>` and its blank line. */
const numbered = (output: string): ReadonlyArray<string> => {
  const body = output.slice(output.indexOf("<content>\n") + 10)
  return body.slice(0, body.indexOf("\n\n")).split("\n").filter((line) => /^\d+: /.test(line))
}

describe("tail over a real file (property)", () => {
  // Lines of 0-3,000 characters with any terminator, a last line with or without one, files of
  // tens of KB to a few MB: the walk back ends inside its first read, after several, or past the
  // bytes it keeps (1 MB), and the count before it starts at the index's checkpoint or the start.
  const fileArb = FastCheck.record({
    lines: FastCheck.array(
      FastCheck.tuple(
        FastCheck.oneof(FastCheck.integer({ min: 0, max: 120 }), FastCheck.integer({ min: 0, max: 3000 })),
        FastCheck.constantFrom("\n", "\n", "\n", "\r\n", "\r")
      ),
      { minLength: 1, maxLength: 4000 }
    ),
    finalNewline: FastCheck.boolean(),
    count: FastCheck.oneof(FastCheck.integer({ min: 1, max: 50 }), FastCheck.integer({ min: 1, max: 5000 })),
    limit: FastCheck.option(FastCheck.integer({ min: 1, max: 300 }), { nil: undefined })
  })

  it.effect.prop(
    "shows the same lines, numbered the same, as the forward read of its range; index cold, then warm",
    [fileArb],
    ([spec]) =>
      Effect.gen(function*() {
        const text = spec.lines.map(([length, end], i) =>
          `${i + 1}:${"abcdefghij".repeat(Math.ceil(length / 10)).slice(0, length)}${
            i === spec.lines.length - 1 && !spec.finalNewline ? "" : end
          }`
        ).join("")
        const root = project({ "t.log": text })
        const index = LineIndex.makeMemory()
        const inRoot = <A, E>(self: Effect.Effect<A, E, any>) =>
          self.pipe(
            Effect.provideService(LineIndex.LineIndex, index),
            Effect.provide(nodeLayer(root))
          ) as Effect.Effect<A, E>
        const params = {
          filePath: "t.log",
          offset: -spec.count,
          ...(spec.limit === undefined ? {} : { limit: spec.limit })
        }
        for (const _ of ["cold", "warm"]) {
          const tail = yield* inRoot(read(params))
          const { endLine, startLine, totalLines } = fieldsOf(tail)
          expect(startLine).toBeDefined()
          expect(totalLines).toBeDefined()
          expect(endLine! - startLine! + 1).toBe(numbered(tail.output).length)
          if (spec.limit === undefined && !tail.metadata.truncated) expect(endLine).toBe(totalLines)
          const forward = yield* inRoot(
            read({ filePath: "t.log", offset: startLine!, limit: endLine! - startLine! + 1 })
          )
          expect(numbered(tail.output)).toEqual(numbered(forward.output))
          expect(totalLines).toBe(fieldsOf(forward).totalLines ?? totalLines)
        }
      }),
    { fastCheck: { numRuns: 25 } }
  )
})

describe("tail selector", () => {
  it.effect("PATH:-N reads the tail; :-N:raw without numbers", () =>
    Effect.gen(function*() {
      const files = { "t.txt": "a\nb\nc\nd\n" }
      const result = yield* readMemory(files, { filePath: "t.txt:-2" })
      expect(result.output).toContain("3: c\n4: d\n\n(Showing the last 2 lines: 3-4 of 4.")
      const raw = yield* readMemory(files, { filePath: "t.txt:-2:raw" })
      expect(raw.output).toContain("<content>\nc\nd\n\n")
    }))

  it.effect("errors: :-0, a selector with offset, a negative offset with column, a directory", () =>
    Effect.gen(function*() {
      const files = { "t.txt": "a\nb\n", "dir/x.txt": "x" }
      expect((yield* Effect.flip(readMemory(files, { filePath: "t.txt:-0" }))).message).toBe(
        "Tail selector :-0 is empty; use :-N for the last N lines (N >= 1)."
      )
      expect((yield* Effect.flip(readMemory(files, { filePath: "t.txt:-2", offset: 3 })))._tag).toBe("InvalidParams")
      expect((yield* Effect.flip(readMemory(files, { filePath: "t.txt", offset: -2, column: 3 }))).message).toContain(
        "column continues one line"
      )
      expect((yield* Effect.flip(readMemory(files, { filePath: "dir", offset: -2 }))).message).toContain(
        "a negative offset reads the last lines of a file; /project/dir is a directory"
      )
      expect((yield* Effect.flip(readMemory(files, { filePath: "dir:-2" }))).message).toContain(
        "reads a file's text; /project/dir is a directory"
      )
      expect((yield* Effect.flip(readMemory(files, { filePath: "t.txt", offset: 1.5 }))).message).toContain(
        "offset must be a whole number"
      )
    }))

  it.effect("an archive member's tail: its last lines, from memory", () =>
    Effect.gen(function*() {
      const root = project({
        "a.zip": zip([{ name: "logs/app.log", data: "boot\nready\nrequest\nshutdown\n" }])
      })
      const result = yield* readNode(root, { filePath: "a.zip:logs/app.log:-2" })
      expect(result.output).toContain("3: request\n4: shutdown\n\n(Showing the last 2 lines: 3-4 of 4.")
      const byOffset = yield* readNode(root, { filePath: "a.zip:logs/app.log", offset: -1 })
      expect(byOffset.output).toContain("4: shutdown\n\n")
    }))
})

describe("tails in multi-byte legacy encodings", () => {
  // 1,000 lines of Japanese, Korean or Chinese: each character two bytes in the file, three in
  // the UTF-8 the model reads, so the last lines that fit the cap are fewer than the bytes suggest.
  const texts: ReadonlyArray<readonly [string, string]> = [
    ["shift_jis", "日本語の文章を末尾から読むための試験です。行"],
    ["euc-kr", "한국어 문장을 끝에서부터 읽기 위한 시험입니다 줄"],
    ["gbk", "这是用来从末尾读取中文文本的测试句子第行"],
    ["big5", "這是用來從末尾讀取中文文本的測試句子第行"]
  ]
  for (const [encoding, sentence] of texts) {
    it.effect(`${encoding}: the tail's first page ends at the last line, as full as the cap allows`, () =>
      Effect.gen(function*() {
        const lines = Array.from({ length: 1000 }, (_, i) => `${sentence}${i + 1}`)
        const bytes = new Uint8Array(iconv.encode(`${lines.join("\n")}\n`, encoding))
        expect(bytes.length).toBeLessThan(60 * 1024)
        const root = project({ "text.txt": bytes })
        for (const params of [{ filePath: "text.txt:-1000" }, { filePath: "text.txt", offset: -1000 }]) {
          const result = yield* readNode(root, { ...params, encoding })
          const shown = result.output.split("\n").filter((line) => /^\d+: /.test(line))
          expect(shown.at(-1)).toBe(`1000: ${lines[999]}`)
          expect(result.metadata).toMatchObject({ endLine: 1000, totalLines: 1000 })
          const first = fieldsOf(result).startLine!
          expect(result.output).toContain(
            `(Output capped at 50 KB. Showing the last ${
              1001 - first
            } of the 1000 lines asked: lines ${first}-1000 of 1000.`
          )
          // By what the lines render to: within the cap, and at most a line short of filling it.
          expect(Buffer.byteLength(result.output)).toBeLessThanOrEqual(50 * 1024)
          expect(Buffer.byteLength(result.output)).toBeGreaterThan(
            50 * 1024 - 4 * Buffer.byteLength(`${first}: ${lines[0]}\n`)
          )
        }
        // An archive member (in memory) is tailed the same way.
        const member = project({ "a.zip": zip([{ name: "text.txt", data: bytes }]) })
        const inZip = yield* readNode(member, { filePath: "a.zip:text.txt:-1000", encoding })
        expect(inZip.output).toContain(`1000: ${lines[999]}\n`)
      }))
  }
})

describe("tails by the output they produce", () => {
  /** Characters of each encoding: one byte and several, and what becomes more bytes in UTF-8. */
  const alphabets: Record<string, ReadonlyArray<string>> = {
    "utf-8": ["a", "é", "日本", "😀", "\uFFFD"],
    "utf-16le": ["a", "é", "日本", "😀"],
    "utf-16be": ["a", "é", "日本"],
    "shift_jis": ["a", "日本語", "ｶﾀｶﾅ", "。"],
    "euc-jp": ["a", "日本語", "ｶﾀｶﾅ"],
    "euc-kr": ["a", "한국어"],
    "gbk": ["a", "中文字"],
    "gb18030": ["a", "中文", "😀"],
    "big5": ["a", "中文字"],
    "windows-1252": ["a", "€", "é", "\u201C"]
  }
  const encodings = Object.keys(alphabets)
  const piece = (encoding: string) =>
    FastCheck.oneof(
      { weight: 12, arbitrary: FastCheck.constantFrom(...alphabets[encoding]!) },
      { weight: 3, arbitrary: FastCheck.constantFrom("\n", "\r\n", "\r") },
      // A line longer than is shown: cut, with its notice.
      { weight: 1, arbitrary: FastCheck.constantFrom(alphabets[encoding]!.at(-1)!.repeat(2100), "x".repeat(2500)) }
    )
  const bytesOf = (parts: ReadonlyArray<string | Uint8Array>, encoding: string): Uint8Array =>
    new Uint8Array(Buffer.concat(parts.map((part) => typeof part === "string" ? iconv.encode(part, encoding) : part)))

  it.prop(
    "the first page of a tail ends at the last line, within the cap and as full as it allows",
    [
      FastCheck.constantFrom(...encodings).chain((encoding) =>
        FastCheck.tuple(
          FastCheck.constant(encoding),
          FastCheck.array(
            encoding === "utf-8"
              // Bytes that are not UTF-8 become U+FFFD: three bytes out of one.
              ? FastCheck.oneof({ weight: 8, arbitrary: piece(encoding) }, {
                weight: 1,
                arbitrary: FastCheck.constant(Uint8Array.of(0xff))
              })
              : piece(encoding),
            { maxLength: 120 }
          )
        )
      ),
      FastCheck.integer({ min: 1, max: 200 }),
      FastCheck.integer({ min: 20, max: 6000 })
    ],
    ([[encoding, parts], count, maxBytes]) => {
      const codec = codecFor(encoding)!
      const bytes = bytesOf(parts, encoding)
      const everything = Effect.runSync(
        memoryPageAt(bytes, codec)({ offset: 1, limit: 1e9, column: 1, maxBytes: Infinity })
      )
      const all = everything.rendered
      const page = Effect.runSync(memoryTailAt(bytes, codec)({ count, limit: undefined, maxBytes }))
      const size = (lines: ReadonlyArray<string>) => lines.reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0)
      // The last lines, as a forward read renders them, up to the end.
      expect(page.totalLines).toBe(all.length)
      expect(page.rendered).toEqual(all.slice(all.length - page.rendered.length))
      if (all.length === 0) return
      expect(page.rendered.length).toBeGreaterThan(0)
      expect(page.rendered.length).toBeLessThanOrEqual(count)
      // Within the cap (one line is always shown), and no line before them would have fit.
      if (page.rendered.length > 1) expect(size(page.rendered)).toBeLessThanOrEqual(maxBytes)
      if (page.rendered.length < Math.min(count, all.length)) {
        expect(size(all.slice(all.length - page.rendered.length - 1))).toBeGreaterThan(maxBytes)
      }
    },
    { fastCheck: { numRuns: 300 } }
  )
})

describe("the tail scanner", () => {
  const lines = (text: string) => {
    const parts = text.split(/\r\n|\r|\n/)
    return /(\r\n|\r|\n)$/.test(text) ? parts.slice(0, -1) : text.length === 0 ? [] : parts
  }
  it.prop(
    "memoryTailAt shows the last lines of any text, numbered as a forward read numbers them",
    [
      FastCheck.array(FastCheck.constantFrom("a", "bc", "\n", "\r", "\r\n", "é"), { maxLength: 60 }).map((parts) =>
        parts.join("")
      ),
      FastCheck.integer({ min: 1, max: 12 })
    ],
    ([text, count]) => {
      const all = lines(text)
      const page = Effect.runSync(
        memoryTailAt(new TextEncoder().encode(text))({ count, limit: undefined, maxBytes: 50_000 })
      )
      const first = Math.max(1, all.length - count + 1)
      expect(page.lines).toEqual(all.slice(first - 1))
      expect(page.offset).toBe(all.length === 0 ? 1 : first)
      expect(page.totalLines).toBe(all.length)
    },
    { fastCheck: { numRuns: 500 } }
  )

  it.prop(
    "the walk back ends where it would have with the text in one piece, however it is cut in chunks",
    [
      FastCheck.array(FastCheck.constantFrom("a", "bcdefgh", "\n", "\r", "\r\n", "é", "\n\n"), { maxLength: 80 }).map((
        parts
      ) => parts.join("")),
      FastCheck.array(FastCheck.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 40 }),
      FastCheck.integer({ min: 1, max: 30 }),
      FastCheck.oneof(FastCheck.constant(Infinity), FastCheck.integer({ min: 1, max: 400 })),
      FastCheck.boolean(),
      // A short line length makes lines longer than the bytes kept of them, carried across chunks.
      FastCheck.constantFrom(2, 5, 2000)
    ],
    ([text, cuts, count, maxBytes, wide, maxLineLength]) => {
      const bytes = wide ? new Uint8Array(Buffer.from(text, "utf16le")) : new TextEncoder().encode(text)
      const codec = wide ? codecFor("utf-16le")! : utf8
      const options = {
        count,
        maxBytes,
        unit: wide ? 2 : 1,
        low: 0,
        origin: 0,
        measure: lineMeasure(codec, maxLineLength)
      }
      const whole = tailStartOf(bytes, options)
      const scanner = new TailScanner({ ...options, end: bytes.length })
      let position = bytes.length
      for (let i = 0; position > 0 && !scanner.done; i++) {
        const start = Math.max(0, position - cuts[i % cuts.length]! * options.unit)
        scanner.pushBackward(bytes.subarray(start, position), start)
        position = start
      }
      expect(scanner.result()).toEqual(whole)
    },
    { fastCheck: { numRuns: 1000 } }
  )

  /**
   * What the walk back should find, worked out forwards: each line's start and bytes (without
   * its terminator), then the last lines taken while they fit, each charged its bytes, `: `, a
   * newline and one digit of its number (the lines are short, valid UTF-8: what they render to is
   * their bytes; the rest of the number is charged once it is known).
   */
  const expectedStart = (bytes: Uint8Array, count: number, maxBytes: number) => {
    const lines: Array<{ start: number; bytes: number }> = []
    let start = 0
    for (let i = 0; i < bytes.length; i++) {
      const crlf = bytes[i] === 13 && bytes[i + 1] === 10
      if (bytes[i] === 10 || bytes[i] === 13) {
        lines.push({ start, bytes: i - start })
        if (crlf) i++
        start = i + 1
      }
    }
    if (start < bytes.length) lines.push({ start, bytes: bytes.length - start })
    let found = 0
    let total = 0
    let capped = false
    let position = bytes.length
    for (let k = lines.length - 1; k >= 0 && found < count; k--) {
      const cost = lines[k]!.bytes + 4
      if (found > 0 && total + cost > maxBytes) {
        capped = true
        break
      }
      total += cost
      found++
      position = lines[k]!.start
    }
    return { position, lines: found, atOrigin: !capped && position === 0, cappedByBytes: capped }
  }

  it.prop(
    "one-byte text: where the last lines start, how many, and whether the budget stopped it",
    [
      FastCheck.array(FastCheck.constantFrom("a", "bcdefgh", "\n", "\r", "\r\n", "é", "\n\n"), { maxLength: 80 }).map((
        parts
      ) => parts.join("")),
      FastCheck.integer({ min: 1, max: 30 }),
      FastCheck.oneof(FastCheck.constant(Infinity), FastCheck.integer({ min: 1, max: 400 }))
    ],
    ([text, count, maxBytes]) => {
      const bytes = new TextEncoder().encode(text)
      const found = tailStartOf(bytes, { count, maxBytes, unit: 1, low: 0, origin: 0, measure: lineMeasure(utf8) })
      const expected = expectedStart(bytes, count, maxBytes)
      expect(found.lines).toBe(expected.lines)
      expect(found.cappedByBytes).toBe(expected.cappedByBytes)
      if (expected.lines > 0) expect(found.position).toBe(expected.position)
    },
    { fastCheck: { numRuns: 1000 } }
  )

  it("stops at the byte budget but always keeps one line; each line measured as it renders", () => {
    const bytes = new TextEncoder().encode(`${"a".repeat(100)}\n${"b".repeat(100)}\n`)
    const options = { unit: 1, low: 0, origin: 0, measure: lineMeasure(utf8) }
    // 100 characters, ": " and a newline, and the number's digits (one is charged walking back).
    expect(tailStartOf(bytes, { ...options, count: 2, maxBytes: 150 })).toEqual({
      position: 101,
      lines: 1,
      atOrigin: false,
      cappedByBytes: true,
      measured: [[101, 103, 1]]
    })
    expect(tailStartOf(bytes, { ...options, count: 2, maxBytes: 10 }).lines).toBe(1)
    // Without a cap, lines are counted, not measured.
    expect(tailStartOf(bytes, { ...options, count: 5, maxBytes: Infinity })).toEqual({
      position: 0,
      lines: 2,
      atOrigin: true,
      cappedByBytes: false,
      measured: []
    })
  })

  it("a cut line is charged its notice, which names its number again", () => {
    const line = "é".repeat(3000)
    const bytes = new TextEncoder().encode(`${line}\n`)
    const found = tailStartOf(bytes, {
      unit: 1,
      low: 0,
      origin: 0,
      count: 1,
      maxBytes: 50_000,
      measure: lineMeasure(utf8)
    })
    const rendered = `1: ${"é".repeat(2000)}${lineCutSuffix(2000, 1, 2001)}\n`
    expect(found.measured).toEqual([[0, Buffer.byteLength(rendered) - 2, 2]])
  })

  it("once the lines before are counted, wider numbers drop lines from the front until the rest fit", () => {
    // Ten lines of 6 bytes ("xxxxx" and a newline) render as "N: xxxxx\n": 9 bytes, 10 for line 10.
    const bytes = new TextEncoder().encode("xxxxx\n".repeat(10))
    const options = { unit: 1, low: 0, origin: 0, count: 10, measure: lineMeasure(utf8) }
    const scan = tailStartOf(bytes, { ...options, maxBytes: 90 })
    expect(scan).toMatchObject({ position: 0, lines: 10, atOrigin: true })
    // Numbered from 1, the ten take 91 bytes: the first is dropped.
    expect(fitNumbered(scan, 0, 90)).toEqual({ position: 6, lines: 9, skipped: 1 })
    expect(fitNumbered(scan, 0, 91)).toEqual({ position: 0, lines: 10, skipped: 0 })
    // Numbered from 1,001 (four digits each: 12 bytes a line), 90 bytes hold seven.
    expect(fitNumbered(scan, 1000, 90)).toEqual({ position: 18, lines: 7, skipped: 3 })
    // One line always stays.
    expect(fitNumbered(scan, 0, 1)).toMatchObject({ lines: 1, position: 54 })
  })
})
