import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { codecFor, utf8 } from "../src/internal/core/encoding.js"
import { cutLine, LinePager, MAX_BYTES, pageBytes, type PageOptions } from "../src/internal/core/lines.js"

const encode = (text: string) => new TextEncoder().encode(text)
const options = (overrides: Partial<PageOptions> = {}): PageOptions => ({
  offset: 1,
  limit: 2000,
  maxLineLength: 2000,
  maxBytes: MAX_BYTES,
  ...overrides
})

/** The reference split: editors' lines, a final terminator does not open an empty line. */
const referenceLines = (text: string): Array<string> => {
  if (text.length === 0) return []
  const lines = text.split(/\r\n|\r|\n/)
  if (/(\r\n|\r|\n)$/.test(text)) lines.pop()
  return lines
}

/** Lines of `units`, each ended by `\n`, `\r\n` or `\r`, joined. */
const terminatedLines = (units: ReadonlyArray<string>, maxLineLength: number, maxLines: number) =>
  fc.array(
    fc.tuple(
      fc.string({ unit: fc.constantFrom(...units), maxLength: maxLineLength }),
      fc.constantFrom("\n", "\r\n", "\r")
    ),
    { maxLength: maxLines }
  ).map((lines) => lines.map(([line, end]) => line + end).join(""))

/** Text made of lines with every terminator style, CJK, emoji and control characters. */
const textArb = terminatedLines(["a", "b", " ", "é", "中", "😀", "\t", "\u001b", "x"], 30, 60).chain((text) =>
  fc.boolean().map((finalTerminator) => finalTerminator ? text : text.replace(/(\r\n|\r|\n)$/, ""))
)

/** A page's window, caps and count ahead, small enough that chunk edges fall inside them; plus `more`. */
const pageArb = <A extends Record<string, fc.Arbitrary<unknown>>>(more: A) =>
  fc.record({
    offset: fc.integer({ min: 1, max: 30 }),
    limit: fc.integer({ min: 1, max: 30 }),
    maxLineLength: fc.integer({ min: 1, max: 12 }),
    countAhead: fc.integer({ min: 0, max: 60 }),
    maxBytes: fc.integer({ min: 20, max: 600 }),
    ...more
  })

/**
 * Page `bytes` pushed in pieces (split at the cut points, to exercise state carried across chunks), each from one reused buffer that is overwritten after the push,
 * as a reader reuses its buffer: the pager must keep copies of what it still needs.
 */
const pageInChunks = (bytes: Uint8Array, cuts: ReadonlyArray<number>, opts: PageOptions) => {
  const pager = new LinePager(opts)
  const buffer = new Uint8Array(bytes.length)
  const push = (from: number, to: number) => {
    const piece = buffer.subarray(0, to - from)
    piece.set(bytes.subarray(from, to))
    pager.push(piece)
    piece.fill(0x3f)
  }
  let at = 0
  for (const cut of [...cuts].map((c) => c % (bytes.length + 1)).sort((a, b) => a - b)) {
    push(at, cut)
    at = cut
  }
  push(at, bytes.length)
  return pager.end(true)
}

describe("LinePager", () => {
  it("counts lines as editors do", () => {
    const count = (text: string) => pageBytes(encode(text), options()).totalLines
    expect(count("")).toBe(0)
    expect(count("a")).toBe(1)
    expect(count("a\nb\n")).toBe(2)
    expect(count("a\nb")).toBe(2)
    expect(count("\n")).toBe(1)
    expect(count("a\r\nb\r\n")).toBe(2)
    expect(count("a\rb\r")).toBe(2)
    expect(count("a\n\n")).toBe(2)
  })

  it("keeps a CRLF split across chunks as one terminator", () => {
    const pager = new LinePager(options())
    pager.push(encode("one\r"))
    pager.push(encode("\ntwo"))
    const page = pager.end(true)
    expect(page.lines).toEqual(["one", "two"])
  })

  it("stops at the line limit, then counts the rest without keeping it", () => {
    const page = pageBytes(encode("1\n2\n3\n4\n5\n"), options({ offset: 2, limit: 2 }))
    expect(page.rendered).toEqual(["2: 2", "3: 3"])
    expect(page.stoppedBy).toBe("limit")
    expect(page.totalLines).toBe(5)
  })

  it("calls a page that ends on the last line the end of the file", () => {
    const page = pageBytes(encode("1\n2\n"), options({ limit: 2 }))
    expect(page.stoppedBy).toBe("eof")
  })

  it("stops at the byte cap with whole lines and no total", () => {
    const page = pageBytes(encode("x".repeat(100) + "\n" + "y".repeat(100) + "\n"), options({ maxBytes: 150 }))
    expect(page.lines).toEqual(["x".repeat(100)])
    expect(page.stoppedBy).toBe("bytes")
    expect(page.totalLines).toBeUndefined()
  })

  it("says it is done once the page and footer are known", () => {
    const pager = new LinePager(options({ maxBytes: 20 }))
    pager.push(encode("a".repeat(30) + "\n" + "b".repeat(30) + "\n"))
    expect(pager.done).toBe(true)
  })

  it("cuts long lines on a code point boundary", () => {
    const line = "a".repeat(1999) + "😀" + "tail"
    const page = pageBytes(encode(line), options())
    expect(page.lines[0]).toBe(
      "a".repeat(1999) + "... (line truncated to 2000 chars; use offset=1 column=2000 to read more of it)"
    )
    expect(page.linesCut).toBe(1)
    expect(cutLine("ab😀", 3)).toBe("ab")
    expect(cutLine("ab😀", 4)).toBe("ab😀")
  })

  it("keeps bounded bytes of a huge line", () => {
    const pager = new LinePager(options())
    const chunk = encode("z".repeat(1 << 16))
    for (let i = 0; i < 64; i++) pager.push(chunk) // 4 MiB, one line
    const page = pager.end(true)
    expect(page.lines[0]).toBe(
      "z".repeat(2000) + "... (line truncated to 2000 chars; use offset=1 column=2001 to read more of it)"
    )
    // The page ended inside the line (after 1 MiB): the bytes pushed after that were not looked
    // at, so the total is not known, however far the caller read.
    expect(page.totalLines).toBeUndefined()
    expect(page.linesAtLeast).toBe(1)
  })

  it("stops inside a huge shown line after a bounded scan, the line cut with its cursor", () => {
    const digits = encode("0123456789".repeat(6554)) // 64 KiB + 4 bytes: chunks start at shifting digits
    const pushUntilDone = (opts: PageOptions) => {
      const pager = new LinePager(opts)
      let pushed = 0
      // 64 MiB of one line, were it all read.
      while (!pager.done && pushed < 1024) {
        pager.push(digits)
        pushed++
      }
      return { page: pager.end(false), pushed }
    }
    const { page, pushed } = pushUntilDone(options({ longLine: 1 << 20 }))
    expect(pushed).toBeLessThanOrEqual(17)
    expect(page.lines).toEqual([
      "0123456789".repeat(200) + "... (line truncated to 2000 chars; use offset=1 column=2001 to read more of it)"
    ])
    expect(page.stoppedBy).toBe("limit")
    expect(page.totalLines).toBeUndefined()
    expect(page.linesAtLeast).toBe(1)

    // The column cursor reads to its column, then as far past it as a first page does.
    const column = 3_000_001
    const resumed = pushUntilDone(options({ column, longLine: 1 << 20 }))
    expect(resumed.pushed).toBeLessThanOrEqual(Math.ceil((column + (1 << 20)) / digits.length) + 1)
    expect(resumed.page.lines).toEqual([
      "0123456789".repeat(200) +
      `... (line truncated to 2000 chars; use offset=1 column=${column + 2000} to read more of it)`
    ])
    expect(resumed.page.column).toBe(column)
    expect(resumed.page.linesAtLeast).toBe(1)
  })

  it("a long line that ends in the chunk being read does not end the page: the lines after it follow", () => {
    const pager = new LinePager(options({ longLine: 1000 }))
    pager.push(encode("z".repeat(1500)))
    pager.push(encode("z".repeat(1500) + "\nnext\n"))
    const page = pager.end(true)
    expect(page.lines).toEqual([
      "z".repeat(2000) + "... (line truncated to 2000 chars; use offset=1 column=2001 to read more of it)",
      "next"
    ])
    expect(page.totalLines).toBe(2)
  })

  it.prop("numbers lines as the reference split does, whatever the chunking", [
    textArb,
    fc.integer({ min: 1, max: 80 }),
    fc.integer({ min: 1, max: 80 }),
    fc.array(fc.nat(), { maxLength: 6 })
  ], ([text, offset, limit, cuts]) => {
    const reference = referenceLines(text)
    const page = pageInChunks(encode(text), cuts, options({ offset, limit }))
    expect(page.totalLines).toBe(reference.length)
    expect(page.lines).toEqual(reference.slice(offset - 1, offset - 1 + limit))
    expect(page.rendered).toEqual(page.lines.map((line, i) => `${offset + i}: ${line}`))
  })

  it.prop("any chunking gives the page the whole text gives, with a column, caps and a count ahead", [
    terminatedLines(["a", "é", "中", "😀", " ", "\t"], 40, 40),
    fc.array(fc.nat(), { maxLength: 12 }),
    pageArb({ column: fc.integer({ min: 1, max: 5 }) })
  ], ([text, cuts, page]) => {
    const bytes = encode(text)
    const whole = pageBytes(bytes, options(page))
    const chunked = pageInChunks(bytes, cuts, options(page))
    expect(chunked.rendered).toEqual(whole.rendered)
    expect(chunked.lines).toEqual(whole.lines)
  }, { fastCheck: { numRuns: 2000 } })

  it.prop("all-ASCII chunks, their lines sliced from the chunk's text, page as each line decoded on its own does", [
    fc.array(
      fc.tuple(
        fc.string({ unit: fc.constantFrom("a", "b", " ", "\t", "\u001b", "~"), maxLength: 90, size: "max" }),
        fc.constantFrom("\n", "\r\n", "\r")
      ),
      { maxLength: 40 }
    ).map((lines) => lines.map(([line, end]) => line + end).join("")),
    fc.array(fc.nat(), { maxLength: 8 }),
    pageArb({ column: fc.integer({ min: 1, max: 3 }), maxLineLength: fc.integer({ min: 1, max: 100 }) }),
    fc.constantFrom("", "é", "中")
  ], ([text, cuts, page, tail]) => {
    // A UTF-8 codec that is not `utf8` itself takes the general way: each line decoded alone.
    const general = { ...utf8 }
    const bytes = encode(text + tail)
    const sliced = pageInChunks(bytes, cuts, options(page))
    const decoded = pageBytes(bytes, options(page), general)
    expect(sliced.rendered).toEqual(decoded.rendered)
    expect(sliced.lines).toEqual(decoded.lines)
    expect([sliced.stoppedBy, sliced.totalLines, sliced.linesCut]).toEqual([
      decoded.stoppedBy,
      decoded.totalLines,
      decoded.linesCut
    ])
  }, { fastCheck: { numRuns: 1000 } })

  it("a \\r that ends the bytes read before the end gives no checkpoint: a \\n may follow it", () => {
    const bytes = encode("\n\r\nx\n")
    const opts = options({ offset: 2, limit: 1, checkpointEvery: 1, countAhead: 0 })
    expect(pageBytes(bytes, opts).checkpoints).toEqual([[1, 1], [2, 3]])
    // The page is done at the \r that ends the first chunk: line 3 starts at 2 or at 3.
    const pager = new LinePager(opts)
    pager.push(bytes.subarray(0, 2))
    expect(pager.done).toBe(true)
    expect(pager.end(false).checkpoints).toEqual([[1, 1]])
    // At the end of the text it ends the line, and the next would start after it.
    const last = new LinePager(options({ offset: 1, limit: 5, checkpointEvery: 1 }))
    last.push(encode("a\r"))
    expect(last.end(true).checkpoints).toEqual([[1, 2]])
  })

  it.prop(
    "chunked in any code-unit-aligned pieces, in UTF-8, UTF-16 and Shift_JIS: the page of the whole text, and only its checkpoints",
    [
      terminatedLines(["a", "é", "中", "😀", " "], 30, 40),
      fc.array(fc.nat(), { maxLength: 12 }),
      fc.constantFrom("utf-8", "utf-16le", "shift_jis"),
      pageArb({ checkpointEvery: fc.integer({ min: 0, max: 4 }) })
    ],
    ([text, cuts, encoding, page]) => {
      const codec = codecFor(encoding)!
      const unit = encoding === "utf-16le" ? 2 : 1
      const bytes = encoding === "utf-16le"
        ? new Uint8Array(Buffer.from(text, "utf16le"))
        : encode(encoding === "shift_jis" ? text.replace(/[^\x00-\x7f]/g, "x") : text)
      const whole = pageBytes(bytes, options(page), codec)
      const pager = new LinePager(options(page), codec)
      const buffer = new Uint8Array(bytes.length)
      let at = 0
      for (
        const cut of [
          ...cuts.map((c) => c % (bytes.length + 1)).map((c) => c - (c % unit)).sort((a, b) => a - b),
          bytes.length
        ]
      ) {
        if (pager.done) break
        // From one reused buffer, overwritten after each push.
        const piece = buffer.subarray(0, cut - at)
        piece.set(bytes.subarray(at, cut))
        pager.push(piece)
        piece.fill(0x3f)
        at = cut
      }
      const chunked = pager.end(at >= bytes.length)
      expect(chunked.rendered).toEqual(whole.rendered)
      // A reader that stops early may know fewer checkpoints, never another one.
      expect(whole.checkpoints.slice(0, chunked.checkpoints.length)).toEqual(chunked.checkpoints)
    },
    { fastCheck: { numRuns: 3000 } }
  )

  it("a count ahead spends the same bytes on a CRLF split between two chunks", () => {
    // After line 1, the count ahead spends its 9 bytes on "b\n", "ccc\r\n" and "d\n", and stops
    // there. Split after the "\r", the "\n" was not counted: it went on to count "e" as well.
    const bytes = encode("a\nb\nccc\r\nd\ne\n")
    const opts = options({ offset: 1, limit: 1, countAhead: 9, checkpointEvery: 1 })
    const whole = pageBytes(bytes, opts)
    expect([whole.totalLines, whole.linesAtLeast]).toEqual([undefined, 4])
    const split = pageInChunks(bytes, [8], opts)
    expect([split.totalLines, split.linesAtLeast, split.checkpoints]).toEqual([undefined, 4, whole.checkpoints])
    // With 7 bytes the count stops on the "\n" of that CRLF, which the second chunk holds.
    const onLF = options({ offset: 1, limit: 1, countAhead: 7, checkpointEvery: 1 })
    expect(pageBytes(bytes, onLF).linesAtLeast).toBe(3)
    const stopped = pageInChunks(bytes, [8], onLF)
    expect([stopped.linesAtLeast, stopped.checkpoints]).toEqual([3, pageBytes(bytes, onLF).checkpoints])
  })

  it("a column inside a surrogate pair, its line split between chunks, is still shown cut", () => {
    // From column 4 the line is "\uDE00aa😀a😀": the pair's second half is dropped when shown,
    // so five units are "aa😀a" and the last 😀 (in the second chunk) is what was cut.
    const bytes = encode("\naa😀aa😀a😀")
    const page = pageInChunks(bytes, [14], options({ offset: 2, limit: 1, maxLineLength: 5, column: 4 }))
    expect(page.rendered).toEqual(["2: aa😀a... (line truncated to 5 chars; use offset=2 column=9 to read more of it)"])
  })

  it.prop("a total is given only when the pager saw the end: a count-ahead that stops inside a chunk gives none", [
    textArb,
    fc.integer({ min: 1, max: 20 }),
    fc.integer({ min: 1, max: 5 }),
    fc.integer({ min: 0, max: 40 }),
    fc.array(fc.nat(), { maxLength: 6 })
  ], ([text, offset, limit, countAhead, cuts]) => {
    // The caller reads to the end of the file (eof) whether or not the pager was done before it.
    const page = pageInChunks(encode(text), cuts, options({ offset, limit, countAhead }))
    if (page.totalLines !== undefined) expect(page.totalLines).toBe(referenceLines(text).length)
    else expect(page.linesAtLeast).toBeLessThanOrEqual(referenceLines(text).length)
  })

  it("a count-ahead that stops at the last terminator before an unterminated line gives no total", () => {
    // Found by test/Faults.test.ts: the count ran out at the last `\n`, the chunk held "c" after it.
    const page = pageInChunks(encode("a\nb\nc"), [], options({ offset: 1, limit: 1, countAhead: 2 }))
    expect(page.totalLines).toBeUndefined()
    expect(page.linesAtLeast).toBe(2)
  })

  it.prop("skipping to a deep offset keeps every count: checkpoints, endings and the page", [
    // Mostly `\n` (the skip's fast path), with some `\r\n` and lone `\r` that interrupt it.
    fc.array(
      fc.tuple(
        fc.string({ unit: fc.constantFrom("a", "é", "中", " "), maxLength: 12 }),
        fc.constantFrom("\n", "\n", "\n", "\n", "\r\n", "\r")
      ),
      { maxLength: 120 }
    ),
    fc.boolean(),
    fc.integer({ min: 1, max: 130 }),
    fc.integer({ min: 1, max: 5 }),
    fc.integer({ min: 1, max: 7 }),
    fc.array(fc.nat(), { maxLength: 8 })
  ], ([lines, finalTerminator, offset, limit, every, cuts]) => {
    const joined = lines.map(([line, end]) => line + end).join("")
    const text = finalTerminator ? joined : joined.replace(/(\r\n|\r|\n)$/, "")
    const bytes = encode(text)
    const reference = referenceLines(text)
    // Byte position where each line after the k-th starts.
    const starts: Array<number> = [0]
    for (const match of text.matchAll(/\r\n|\r|\n/g)) {
      starts.push(encode(text.slice(0, match.index + match[0].length)).length)
    }
    if (!/(\r\n|\r|\n)$/.test(text) && text.length > 0) starts.push(bytes.length)
    const page = pageInChunks(bytes, cuts, options({ offset, limit, checkpointEvery: every }))
    expect(page.totalLines).toBe(reference.length)
    expect(page.lines).toEqual(reference.slice(offset - 1, offset - 1 + limit))
    expect(page.checkpoints).toEqual(
      starts.flatMap((position, k) => k > 0 && k % every === 0 ? [[k, position] as const] : [])
    )
    expect(page.endings).toEqual({
      lf: (text.match(/(?<!\r)\n/g) ?? []).length,
      crlf: (text.match(/\r\n/g) ?? []).length,
      cr: (text.match(/\r(?!\n)/g) ?? []).length
    })
  })

  it.prop("never exceeds the line or byte caps", [
    textArb,
    fc.integer({ min: 1, max: 20 }),
    fc.integer({ min: 1, max: 40 }),
    fc.integer({ min: 60, max: 400 })
  ], ([text, offset, maxLineLength, maxBytes]) => {
    const page = pageBytes(encode(text), options({ offset, maxLineLength, maxBytes }))
    const suffix =
      `... (line truncated to ${maxLineLength} chars; use offset=${1000} column=${1000} to read more of it)`
    for (const line of page.lines) {
      expect(line.length).toBeLessThanOrEqual(maxLineLength + suffix.length)
    }
    const bytes = page.rendered.reduce((sum, line) => sum + encode(line).length + 1, 0)
    // The first line is always shown so paging makes progress; after it the cap holds.
    if (page.rendered.length > 1) expect(bytes).toBeLessThanOrEqual(maxBytes)
  })

  it.prop(
    "the byte cap counts the bytes shown, for any bytes in any encoding, and stops only when the next line would not fit",
    [
      fc.uint8Array({ minLength: 100, maxLength: 600, size: "max" }).map((bytes) =>
        bytes.map((byte) => (byte % 7 === 0 ? 10 : byte))
      ),
      fc.constantFrom("utf-8", "windows-1252", "shift_jis"),
      fc.integer({ min: 30, max: 400 })
    ],
    ([bytes, encoding, maxBytes]) => {
      const page = pageBytes(bytes, options({ maxBytes, maxLineLength: 2000 }), codecFor(encoding)!)
      const shown = page.rendered.reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0)
      if (page.rendered.length > 1) expect(shown).toBeLessThanOrEqual(maxBytes)
      if (page.stoppedBy === "bytes") {
        // The line after the last one shown is what did not fit.
        const all = pageBytes(bytes, options({ maxBytes: Infinity, maxLineLength: 2000 }), codecFor(encoding)!).rendered
        expect(shown + Buffer.byteLength(all[page.rendered.length]!) + 1).toBeGreaterThan(maxBytes)
      }
    }
  )

  it.prop("following the next offset reproduces every line exactly once", [
    textArb,
    fc.integer({ min: 1, max: 7 }),
    fc.integer({ min: 40, max: 200 })
  ], ([text, limit, maxBytes]) => {
    const bytes = encode(text)
    const seen: Array<string> = []
    let offset = 1
    for (;;) {
      const page = pageBytes(bytes, options({ offset, limit, maxBytes, maxLineLength: 1000 }))
      seen.push(...page.lines)
      if (page.stoppedBy === "eof") break
      offset += page.lines.length
    }
    expect(seen).toEqual(referenceLines(text))
  })
})
