/**
 * Text fidelity: every encoding, every line-ending style, and the facts an Edit tool needs to
 * write a file back byte-exactly. Fixtures are generated here, on the real Node filesystem.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import * as Effect from "effect/Effect"
import iconv from "iconv-lite"
import { execFile, execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import * as zlib from "node:zlib"
import { detect, detectOnce, firstTelling } from "../src/internal/core/encoding.js"
import { read } from "../src/Read.js"
import * as ReadTool from "../src/ReadTool.js"
import { fieldsOf, nodeLayer, tempDir } from "./support/index.js"

const root = tempDir()
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

let counter = 0
const fileWith = (bytes: Uint8Array, name = `f${counter++}.txt`): string => {
  fs.writeFileSync(`${root}/${name}`, bytes)
  return name
}
const readFile = (name: string, params: Record<string, unknown> = {}) =>
  read({ filePath: name, ...params }).pipe(Effect.provide(nodeLayer(root)))

const body = (output: string) => output.split("<content>\n")[1]!.split("\n\n(")[0]!

const text = "第一行 first line\nzweite Zeile: äöü\n3rd: emoji 😀 and ✓\n"
const numbered = "1: 第一行 first line\n2: zweite Zeile: äöü\n3: 3rd: emoji 😀 and ✓"

const swap16 = (bytes: Buffer) => {
  const out = Buffer.from(bytes)
  out.swap16()
  return out
}

describe("encodings", () => {
  const cases: ReadonlyArray<readonly [string, Buffer, string, boolean]> = [
    ["UTF-8", Buffer.from(text, "utf8"), "utf-8", false],
    ["UTF-8 with BOM", Buffer.from("\ufeff" + text, "utf8"), "utf-8", true],
    ["UTF-16LE with BOM", Buffer.from("\ufeff" + text, "utf16le"), "utf-16le", true],
    ["UTF-16BE with BOM", swap16(Buffer.from("\ufeff" + text, "utf16le")), "utf-16be", true],
    ["UTF-16LE without BOM", Buffer.from(text, "utf16le"), "utf-16le", false],
    ["UTF-16BE without BOM", swap16(Buffer.from(text, "utf16le")), "utf-16be", false],
    ["UTF-32LE with BOM", iconv.encode(text, "utf-32le", { addBOM: true }), "utf-32le", true],
    ["UTF-32BE with BOM", iconv.encode(text, "utf-32be", { addBOM: true }), "utf-32be", true],
    // Seen in chardet's test files (plane1-utf-32le.html): refused as binary before.
    ["UTF-32LE without BOM", iconv.encode(text, "utf-32le", { addBOM: false }), "utf-32le", false],
    ["UTF-32BE without BOM", iconv.encode(text, "utf-32be", { addBOM: false }), "utf-32be", false]
  ]
  for (const [name, bytes, encoding, bom] of cases) {
    it.effect(`${name} reads as the same text, with encoding and BOM in metadata`, () =>
      Effect.gen(function*() {
        const result = yield* readFile(fileWith(bytes))
        expect(body(result.output)).toBe(numbered)
        expect(result.output).toContain("(End of file - total 3 lines)")
        expect(result.metadata).toMatchObject({ encoding, bom, lineEnding: "lf", finalNewline: true })
        expect(fieldsOf(result).invalidBytesReplaced).toBeUndefined()
      }))
  }

  const legacy: ReadonlyArray<readonly [string, string, string]> = [
    ["gbk", "这是一个用国标编码保存的中文文件。\n第二行：更多的中文内容，用来检测编码。\n", "gb18030"],
    ["gb18030", "简体中文文本，包括标点符号和数字一二三。\n另一行文字在这里出现。\n", "gb18030"],
    ["shift_jis", "これはシフトJISで保存された日本語のファイルです。\n二行目のテキストもあります。\n", "shift_jis"],
    ["euc-kr", "이것은 EUC-KR로 저장된 한국어 파일입니다.\n두 번째 줄도 한국어입니다.\n", "euc-kr"],
    [
      "windows-1252",
      "Caf\u00e9 cr\u00e8me br\u00fbl\u00e9e \u2014 \u201cna\u00efve\u201d r\u00e9sum\u00e9 for the fa\u00e7ade.\nSecond line: \u00bfQu\u00e9 tal? \u00a1Ol\u00e9!\n",
      "windows-1252"
    ]
  ]
  for (const [source, content, reported] of legacy) {
    it.effect(`${source} is detected and decoded (reported as ${reported})`, () =>
      Effect.gen(function*() {
        const result = yield* readFile(fileWith(iconv.encode(content, source)))
        const lines = content.trimEnd().split("\n")
        expect(body(result.output)).toBe(lines.map((line, i) => `${i + 1}: ${line}`).join("\n"))
        expect(fieldsOf(result).encoding).toBe(reported)
        expect(fieldsOf(result).invalidBytesReplaced).toBeUndefined()
      }))
  }

  it.effect("invalid UTF-8 that fits no encoding is decoded with replacement, and the result says so", () =>
    Effect.gen(function*() {
      const result = yield* readFile(
        fileWith(Buffer.concat([Buffer.from("x = 1\n"), Buffer.from([0x80]), Buffer.from("\n")]))
      )
      expect(body(result.output)).toBe("1: x = 1\n2: \ufffd")
      expect(result.output).toContain(
        "(Some bytes are not valid utf-8; they are shown as \ufffd. If the file is in another encoding, pass it as encoding, e.g. \"windows-1252\".)"
      )
      expect(result.metadata).toMatchObject({ encoding: "utf-8", invalidBytesReplaced: true })
    }))

  it.effect("a UTF-8 file with one stray byte stays UTF-8 (its other characters intact)", () =>
    Effect.gen(function*() {
      const bytes = Buffer.concat([Buffer.from("naïve café\n"), Buffer.from([0xff]), Buffer.from(" crème\n")])
      const result = yield* readFile(fileWith(bytes))
      expect(body(result.output)).toBe("1: naïve café\n2: \ufffd crème")
      expect(result.metadata).toMatchObject({ encoding: "utf-8", invalidBytesReplaced: true })
    }))

  it.effect("a UTF-16 text file is text, not binary, despite its zero bytes", () =>
    Effect.gen(function*() {
      const result = yield* readFile(fileWith(Buffer.from("plain ascii in utf-16\n".repeat(50), "utf16le"), "log.dat"))
      expect(fieldsOf(result).encoding).toBe("utf-16le")
      expect(fieldsOf(result).totalLines).toBe(50)
    }))

  it.effect("little-endian 16-bit numbers are not mistaken for UTF-16 text", () =>
    Effect.gen(function*() {
      const numbers = Buffer.alloc(2048)
      for (let i = 0; i < 1024; i++) numbers.writeUInt16LE(i % 7, i * 2)
      const error = yield* Effect.flip(readFile(fileWith(numbers, "samples.raw")))
      expect(error._tag).toBe("BinaryFile")
    }))

  it.effect("a NUL among 8-bit bytes is binary, not UTF-16 by its zero's parity (61 62 63 00 ff fe 64 65)", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        readFile(fileWith(Buffer.from([0x61, 0x62, 0x63, 0x00, 0xff, 0xfe, 0x64, 0x65])))
      )
      expect(error._tag).toBe("BinaryFile")
      expect(error.message).toContain("starting with 61 62 63 00 ff fe 64 65")
    }))

  // A source file embedding binary data in a string (pdfjs-dist's pdf.sandbox.mjs: 11 KB of
  // JavaScript, then WebAssembly bytes) was refused as "binary data starting with 2f 2a 2a 0a".
  const source = "const answer = 42 // plain source text.\n".repeat(20)
  const nulAfter = (prefix: Buffer) => Buffer.concat([prefix, Buffer.from([0, 1, 2, 0x61, 0x0a])])
  const refusedAs = (bytes: Buffer, description: string, size = `${bytes.length} bytes`) =>
    Effect.gen(function*() {
      const name = fileWith(bytes)
      const error = yield* Effect.flip(readFile(name))
      expect(error._tag).toBe("BinaryFile")
      expect(error.message).toBe(`Cannot read binary file: ${root}/${name} (${description}, ${size})`)
      return name
    })

  it.effect("text, then a NUL byte in the first 4 KB: the refusal says where, and how to read it anyway", () =>
    Effect.gen(function*() {
      const name = yield* refusedAs(
        nulAfter(Buffer.from(source)),
        `text for its first 800 bytes, then a NUL byte; encoding "utf-8" reads it as text anyway`
      )
      // What the refusal says works.
      const result = yield* readFile(name, { encoding: "utf-8" })
      expect(result.output).toContain("20: const answer = 42 // plain source text.")
      expect(result.output).toContain("(End of file - total 21 lines)")
    }))

  it.effect("text, then a NUL byte past the first 4 KB: found by the look-ahead, at its offset in the file", () =>
    Effect.gen(function*() {
      const prefix = Buffer.from(source.repeat(13))
      expect(prefix.length).toBe(10_400)
      yield* refusedAs(
        nulAfter(prefix),
        `text for its first 10,400 bytes, then a NUL byte; encoding "utf-8" reads it as text anyway`,
        "10.2 KiB"
      )
      // Text past the first 4 KB that tells its encoding (UTF-8), then the NUL.
      yield* refusedAs(
        nulAfter(Buffer.concat([prefix, Buffer.from("caf\u00e9 cr\u00e8me\n")])),
        `text for its first 10,413 bytes, then a NUL byte; encoding "utf-8" reads it as text anyway`,
        "10.2 KiB"
      )
    }))

  it.effect("text that is not UTF-8, then a NUL byte: the refusal asks for the text's encoding", () =>
    Effect.gen(function*() {
      const latin1 = Buffer.from("caf\u00e9 cr\u00e8me br\u00fbl\u00e9e\n".repeat(30), "latin1")
      yield* refusedAs(
        nulAfter(latin1),
        `text for its first ${latin1.length} bytes, then a NUL byte; naming its encoding (e.g. encoding "windows-1252") reads it as text anyway`
      )
      const result = yield* readFile(fileWith(nulAfter(latin1)), { encoding: "windows-1252" })
      expect(result.output).toContain("1: café crème brûlée")
    }))

  it.effect("under 512 bytes of text before the NUL, or binary bytes before it: the first bytes in hex", () =>
    Effect.gen(function*() {
      yield* refusedAs(
        nulAfter(Buffer.from(source.slice(0, 511))),
        "unrecognised binary data starting with 63 6f 6e 73 74 20 61 6e"
      )
      const controls = Buffer.concat([Buffer.from(source), Buffer.alloc(400, 0x01)])
      // 400 control bytes in 1,200: more than 30 %, so binary before its NUL.
      yield* refusedAs(nulAfter(controls), "unrecognised binary data starting with 63 6f 6e 73 74 20 61 6e", "1.2 KiB")
    }))

  it.prop(
    "UTF-32 without a BOM is told by its zero bytes, in either byte order",
    [
      fc.array(
        fc.oneof(
          { weight: 12, arbitrary: fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz0123456789.,;:()=<>/\"'") },
          { weight: 3, arbitrary: fc.constantFrom(" ", "\n", "\t", "\r\n") },
          { weight: 2, arbitrary: fc.constantFrom("\u00e9", "\u4e2d", "\u0416", "\u{1f600}", "\u{20000}") }
        ),
        { minLength: 32, maxLength: 300 }
      ),
      fc.constantFrom("utf-32le", "utf-32be")
    ],
    ([chars, encoding]) => {
      const text = chars.join("")
      const units = [...text]
      // Text as the detector takes it: mostly ASCII, some whitespace.
      fc.pre(units.filter((c) => c < "\u0080").length * 2 >= units.length)
      fc.pre(units.filter((c) => /\s/.test(c)).length * 20 >= units.length)
      const detection = detect(iconv.encode(text, encoding, { addBOM: false }), true)
      expect(detection).toMatchObject({ _tag: "Text", bomLength: 0, fallback: false })
      expect(detection._tag === "Text" && detection.codec.encoding).toBe(encoding)
    }
  )

  it.effect("32-bit numbers are not UTF-32: counters, and small values", () =>
    Effect.gen(function*() {
      const words = (values: ReadonlyArray<number>) => {
        const bytes = Buffer.alloc(values.length * 4)
        values.forEach((value, i) => bytes.writeUInt32LE(value, i * 4))
        return bytes
      }
      const counters = words(Array.from({ length: 1024 }, (_, i) => i))
      const printable = words(Array.from({ length: 64 }, (_, i) => 0x41 + (i % 26)))
      expect(detect(counters, true)._tag).toBe("Binary")
      // Letters without a space between them: not text either.
      expect(detect(printable, true)._tag).toBe("Binary")
      const error = yield* Effect.flip(readFile(fileWith(counters)))
      expect(error._tag).toBe("BinaryFile")
    }))

  it.prop(
    "8-bit text with up to 3 NULs is never taken for UTF-16",
    [
      fc.array(
        fc.oneof(
          { weight: 20, arbitrary: fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz ABC.,;:()=\n\t") },
          { weight: 1, arbitrary: fc.constantFrom("\u00e9", "\u00fc", "\u00ff", "\u00a0") }
        ),
        { minLength: 16, maxLength: 300 }
      ),
      fc.array(fc.nat(), { minLength: 1, maxLength: 3 })
    ],
    ([chars, positions]) => {
      const bytes = [...Buffer.from(chars.join(""), "latin1")]
      for (const position of positions) bytes.splice(position % (bytes.length + 1), 0, 0)
      expect(detect(Uint8Array.from(bytes), true)._tag).toBe("Binary")
    },
    // Seed 1737164845 found "éa" pairs and a NUL read as UTF-16BE private-use characters; now
    // 8-bit-looking bytes must read as one script. What remains possible (about one case in
    // 150,000 here): accent-dense bytes whose every pair is a real CJK or full-width character,
    // which no byte rule can tell from UTF-16. A fixed seed, so CI never meets it by chance;
    // ENCODING_SEED to try others.
    { fastCheck: { numRuns: 5_000, seed: Number(process.env["ENCODING_SEED"] ?? 20261123) } }
  )

  it.prop(
    "a sample judged once answers as `detect` does, whichever way it is asked first",
    [
      fc.uint8Array({ maxLength: 64 }),
      fc.array(fc.boolean(), { minLength: 1, maxLength: 4 })
    ],
    ([bytes, completes]) => {
      // A legacy codec is made afresh for each detection: compare what it is, not its functions.
      const judged = (detection: ReturnType<typeof detect>) =>
        detection._tag === "Binary" ? detection : { ...detection, codec: detection.codec.encoding }
      // The same sample asked about more than once (the facts, then the text source), complete or not.
      for (const complete of completes) {
        expect(judged(detectOnce(bytes, complete))).toEqual(judged(detect(bytes, complete)))
      }
      // Asked again right after, the sample gets the answer it was given: it is not judged twice.
      const last = completes.at(-1)!
      expect(detectOnce(bytes, last)).toBe(detectOnce(bytes, last))
      // Another sample with the same bytes is judged on its own.
      const copy = bytes.slice()
      expect(judged(detectOnce(copy, completes[0]!))).toEqual(judged(detect(bytes, completes[0]!)))
      // Reads that interleave: the first sample is judged again, to the same answer.
      expect(judged(detectOnce(bytes, last))).toEqual(judged(detect(bytes, last)))
    }
  )

  it("a NUL among accented 8-bit text is not UTF-16 whose units are private-use or of mixed scripts", () => {
    // 'éaéaaaéa' with a NUL: read two bytes at a time, units E961 (private use) and 6161 (Han).
    const bytes = Buffer.concat([
      Buffer.from("éaéaaaéa", "latin1"),
      Buffer.from([0]),
      Buffer.from("aaaéaaaéa", "latin1")
    ])
    expect(detect(bytes, true)._tag).toBe("Binary")
  })

  it("UTF-16 text with few zero bytes is still UTF-16: kana and kanji with one ASCII newline", () => {
    for (const text of ["日本語のテキストです\n", "テキスト\n", "한국어 텍스트입니다\n"]) {
      const le = Buffer.from(text, "utf16le")
      expect(detect(le, true)).toMatchObject({ _tag: "Text", codec: { encoding: "utf-16le" } })
    }
  })

  it("UTF-16 text without a BOM is still recognised when its zeros agree with every code unit", () => {
    const units = (text: string) => Array.from({ length: text.length }, (_, i) => text.charCodeAt(i))
    const encode = (codes: ReadonlyArray<number>, bigEndian: boolean) => {
      const bytes = Buffer.alloc(codes.length * 2)
      codes.forEach((code, i) => bigEndian ? bytes.writeUInt16BE(code, i * 2) : bytes.writeUInt16LE(code, i * 2))
      return bytes
    }
    const sample = units("function f() {\n  return \"日本語のテキスト\"\n}\n")
    for (const bigEndian of [false, true]) {
      const detection = detect(encode(sample, bigEndian), true)
      expect(detection._tag === "Text" && detection.codec.encoding).toBe(bigEndian ? "utf-16be" : "utf-16le")
      // An odd length, a lone surrogate, a NUL or a noncharacter is not UTF-16 text.
      expect(detect(Buffer.concat([encode(sample, bigEndian), Buffer.from([0x41])]), true)._tag).toBe("Binary")
      for (const bad of [[0xd800, 0x78], [0xdc00], [0], [0xffff], [0x1]]) {
        expect(detect(encode([...sample, ...bad], bigEndian), true)._tag).toBe("Binary")
      }
      // A high surrogate cut by the sample's edge is not held against it.
      expect(detect(encode([...sample, 0xd83d], bigEndian), false)._tag).toBe("Text")
    }
  })

  it.effect("OLE2 compound files (legacy .doc, .xls, .msi) are binary, with a description the model can act on", () =>
    Effect.gen(function*() {
      const magic = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])
      // The signature alone, or followed by bytes that would pass for text.
      for (const bytes of [magic, Buffer.concat([magic, Buffer.from("Caf\u00e9 cr\u00e8me ".repeat(20), "latin1")])]) {
        const error = yield* Effect.flip(readFile(fileWith(bytes, `legacy${counter++}.doc`)))
        expect(error._tag).toBe("BinaryFile")
        expect(error.message).toContain("an OLE2 compound file: a legacy Office document (.doc, .xls, .ppt)")
        expect(error.message).toContain("convert it to .docx, .xlsx or .pptx")
      }
      // A real compound-file header (sector shifts, byte order mark, zero padding).
      const header = Buffer.alloc(1536)
      magic.copy(header)
      header.writeUInt16LE(0x3e, 0x18)
      header.writeUInt16LE(3, 0x1a)
      header.writeUInt16LE(0xfffe, 0x1c)
      header.writeUInt16LE(9, 0x1e)
      const error = yield* Effect.flip(readFile(fileWith(header, "setup.msi")))
      expect(error.message).toContain("an installer (.msi)")
    }))

  it.effect("UTF-16 and legacy files page and continue long lines like UTF-8", () =>
    Effect.gen(function*() {
      const long = "長".repeat(2500)
      const utf16 = fileWith(Buffer.from(`a\r\n${long}\r\nz\r\n`, "utf16le"))
      const first = yield* readFile(utf16, { limit: 2 })
      expect(body(first.output)).toBe(
        `1: a\n2: ${"長".repeat(2000)}... (line truncated to 2000 chars; use offset=2 column=2001 to read more of it)`
      )
      expect(fieldsOf(first).lineEnding).toBe("crlf")
      const rest = yield* readFile(utf16, { offset: 2, column: 2001 })
      expect(body(rest.output)).toBe(`2: ${"長".repeat(500)}\n3: z`)
      const sentence = "これは長い行です、漢字とかなが混ざっています。" // 23 characters
      const line = sentence.repeat(100) // 2300 characters
      const sjis = fileWith(iconv.encode(`一行目です。\n${line}\n`, "shift_jis"))
      const cont = yield* readFile(sjis, { offset: 2, column: 2001 })
      expect(fieldsOf(cont).encoding).toBe("shift_jis")
      expect(body(cont.output)).toBe(`2: ${line.slice(2000)}`)
      expect(cont.output).toContain("(Line 2 is shown from character 2001.)")
    }))
})

describe("the first telling byte", () => {
  /** Byte by byte: the first byte past ASCII, an ESC, a NUL, or the `~` of a `~{`. */
  const reference = (bytes: Uint8Array): number =>
    bytes.findIndex((b, i) => b >= 0x80 || b === 0x1b || b === 0 || (b === 0x7e && bytes[i + 1] === 0x7b))

  it.prop(
    "is found where a look at every byte finds it, in ASCII and in any other bytes",
    [
      fc.array(fc.constantFrom(0x41, 0x20, 0x0a, 0x7e, 0x7b, 0x1b, 0x00, 0xe9, 0x7f), { maxLength: 300 }),
      fc.nat({ max: 40 })
    ],
    ([bytes, pad]) => {
      // Mostly ASCII with the odd telling byte, after an ASCII run of any length.
      const text = new Uint8Array([...Array<number>(pad).fill(0x61), ...bytes])
      expect(firstTelling(text)).toBe(reference(text))
      expect(firstTelling(text.subarray(pad))).toBe(reference(text.subarray(pad)))
    },
    { fastCheck: { numRuns: 2000 } }
  )
})

describe("line endings and final newline", () => {
  const styles: ReadonlyArray<readonly [string, string, string, boolean]> = [
    ["lf", "a\nb\n", "lf", true],
    ["crlf", "a\r\nb\r\n", "crlf", true],
    ["cr", "a\rb\r", "cr", true],
    ["mixed", "a\r\nb\nc\r", "mixed", true],
    ["no final newline", "a\nb", "lf", false],
    ["a single line without terminator", "only", "none", false]
  ]
  for (const [name, content, lineEnding, finalNewline] of styles) {
    it.effect(`${name}: lineEnding ${lineEnding}, finalNewline ${finalNewline}, no \\r in the output`, () =>
      Effect.gen(function*() {
        const result = yield* readFile(fileWith(Buffer.from(content)))
        expect(result.metadata).toMatchObject({ lineEnding, finalNewline })
        expect(result.output).not.toContain("\r")
      }))
  }

  it.effect("an empty file has no line ending and no final newline", () =>
    Effect.gen(function*() {
      const result = yield* readFile(fileWith(Buffer.alloc(0)))
      expect(result.metadata).toMatchObject({ lineEnding: "none", finalNewline: false, totalLines: 0 })
    }))
})

/**
 * Legacy CJK encodings on fixtures that Python's own codecs write (python3 is on every machine
 * the suite runs on), each compared line by line with the text it was written from.
 */
describe("legacy CJK encodings", () => {
  /** Write `text` in Python's `codec` to `name`; a file of bytes when `text` is undefined. */
  const writeWithPython = (files: ReadonlyArray<readonly [name: string, codec: string, text: string]>) =>
    execFileSync("python3", [
      "-c",
      "import json, sys\nfor name, codec, text in json.load(sys.stdin):\n    open(sys.argv[1] + '/' + name, 'wb').write(text.encode(codec))",
      root
    ], { input: JSON.stringify(files) })
  const decodeWithPython = (name: string, codec: string): string =>
    execFileSync("python3", [
      "-c",
      "import sys\nsys.stdout.buffer.write(open(sys.argv[1], 'rb').read().decode(sys.argv[2]).encode('utf-8'))",
      `${root}/${name}`,
      codec
    ]).toString("utf8")

  const lines = (text: string) => text.replace(/\n$/, "").split("\n")
  const shown = (output: string) => body(output).split("\n").map((line) => line.replace(/^\d+: /, ""))

  const korean = "이것은 한국어 텍스트입니다.\n세 번째 줄: 漢字도 있습니다.\n"
  const japanese = "これは日本語のテキストです。\n漢字とひらがな、カタカナ。\n"
  /** [Python codec, text, the encoding reported, its distinguishing line (absent from the plain text)] */
  const cases: ReadonlyArray<readonly [string, string, string, string]> = [
    // UHC syllables EUC-KR has no code for.
    ["cp949", korean, "cp949", "똠방각하 뷁 쓔쓔쓩 햏 펲"],
    ["johab", korean, "johab", "똠방각하 뷁 쓔쓔쓩 햏 펲"],
    // Python writes those syllables in EUC-KR as KS X 1001 make-up sequences.
    ["euc_kr", korean, "euc-kr", "똠방각하 뷁 쓔쓔쓩 햏 펲"],
    ["big5", "這是繁體中文的文字。\n第三行：臺灣。\n", "big5", "第二行：香港、澳門。"],
    ["big5hkscs", "這是繁體中文的文字。\n第三行：臺灣。\n", "big5-hkscs", "香港字：𠄌 嘅 啲 冇 咗 㗎 鵮"],
    ["gb2312", "这是简体中文文本。\n第三行。\n", "gb18030", "第二行：北京、上海。"],
    ["gbk", "这是简体中文文本。\n第三行。\n", "gb18030", "生僻字：镕 堃"],
    ["gb18030", "这是简体中文文本。\n第三行。\n", "gb18030", "生僻字：镕 堃 𠀀 㐀，欧元€"],
    ["shift_jis", japanese, "shift_jis", "二行目：東京と大阪。"],
    ["euc_jp", japanese, "euc-jp", "二行目：東京と大阪。"],
    ["shift_jisx0213", japanese, "shift_jisx0213", "ノか゚ ト゚ トキ喝塀 𡚴𪎌 麀齁𩛰"],
    ["euc_jisx0213", japanese, "euc-jisx0213", "ノか゚ ト゚ トキ喝塀 𡚴𪎌 麀齁𩛰"],
    ["iso2022_jp", japanese, "iso-2022-jp", "二行目：東京と大阪。"],
    // ISO-2022-JP-2: Korean and Chinese sets, and Latin-1 through a G2 single shift.
    ["iso2022_jp_2", japanese, "iso-2022-jp", "日本語と한국어と简体字。Café crème."],
    ["iso2022_jp_2004", japanese, "iso-2022-jp", "ノか゚ ト゚ 𡚴𪎌 麀齁𩛰"],
    ["iso2022_kr", korean, "iso-2022-kr", "두 번째 줄: 한글과 漢字."],
    ["hz", "这是简体中文文本。\n第三行。\n", "hz-gb-2312", "The next sentence: 己所不欲，勿施於人。"]
  ]
  const text = (plain: string, special: string) => {
    const [first, ...rest] = lines(plain)
    return [first!, special, ...rest].join("\n") + "\n"
  }

  it.effect("each of 17 encodings reads exactly as the text Python wrote, every line", () =>
    Effect.gen(function*() {
      const files = cases.map(([codec, plain, , special]) =>
        [`small-${codec}.txt`, codec, text(plain, special)] as const
      )
      writeWithPython(files)
      for (const [name, codec, written] of files) {
        const result = yield* readFile(name)
        const reported = cases.find(([c]) => c === codec)![2]
        expect({ codec, lines: shown(result.output), encoding: fieldsOf(result).encoding }).toEqual({
          codec,
          lines: lines(written),
          encoding: reported
        })
        expect(fieldsOf(result).invalidBytesReplaced).toBeUndefined()
      }
    }))

  it.effect("past the 4 KB sample: the distinguishing characters decode exactly when the first 4 KB do not show them", () =>
    Effect.gen(function*() {
      // 400 lines of the plain text (well over 4 KB), then the line only the superset has.
      const files = cases.map(([codec, plain, , special]) => {
        const filler = lines(plain).map((line, i) => `${line} ${i}`)
        const all = [...Array.from({ length: 400 }, (_, i) => filler[i % filler.length]!), special, ...filler]
        return [`large-${codec}.txt`, codec, all.join("\n") + "\n", all] as const
      })
      writeWithPython(files.map(([name, codec, written]) => [name, codec, written]))
      for (const [name, codec, , all] of files) {
        expect(fs.statSync(`${root}/${name}`).size).toBeGreaterThan(4096)
        const result = yield* readFile(name)
        expect({ codec, lines: shown(result.output) }).toEqual({ codec, lines: all })
        expect(fieldsOf(result).invalidBytesReplaced).toBeUndefined()
      }
    }))

  it.effect("an ASCII start longer than the sample does not hide the encoding that follows it", () =>
    Effect.gen(function*() {
      const ascii = Array.from({ length: 300 }, (_, i) => `// license header line ${i}, plain ASCII`)
      const files = cases.map(([codec, plain, , special]) =>
        [`ascii-${codec}.txt`, codec, [...ascii, ...lines(text(plain, special))].join("\n") + "\n"] as const
      )
      writeWithPython(files)
      for (const [name, codec, written] of files) {
        expect(Buffer.byteLength(ascii.join("\n"))).toBeGreaterThan(8192)
        const result = yield* readFile(name)
        const reported = cases.find(([c]) => c === codec)![2]
        expect({ codec, lines: shown(result.output), encoding: fieldsOf(result).encoding }).toEqual({
          codec,
          lines: lines(written),
          // Past the sample only the start of the text is judged: the JIS X 0213 forms and the
          // supersets are told by characters the first 4 KB after the ASCII include.
          encoding: reported
        })
      }
    }))

  it.effect("CPython's own CJK codec test files, when the machine has them, read as their UTF-8 twins", () =>
    Effect.gen(function*() {
      const found = execFileSync("python3", [
        "-c",
        "import os, test; print(os.path.join(os.path.dirname(test.__file__), 'cjkencodings'))"
      ], {
        stdio: ["ignore", "pipe", "ignore"]
      }).toString().trim()
      if (!fs.existsSync(found)) return
      const names = fs.readdirSync(found).filter((name) => name.endsWith(".txt") && !name.endsWith("-utf8.txt"))
      for (const name of names) {
        fs.copyFileSync(`${found}/${name}`, `${root}/cpython-${name}`)
        const twin = fs.readFileSync(`${found}/${name.replace(".txt", "-utf8.txt")}`, "utf8")
        const result = yield* readFile(`cpython-${name}`)
        expect({ name, lines: shown(result.output) }).toEqual({ name, lines: lines(twin) })
      }
    }))

  it.effect("ISO-2022-JP that stays in JIS X 0208 across lines reads right on a deep page, read twice", () =>
    Effect.gen(function*() {
      // Python's encoder returns to ASCII at each line end; files need not, and its decoder keeps
      // the designation across line breaks. 30,000 lines in kanji mode, escapes only at the ends.
      const kanji = Buffer.from("\u001b$B", "latin1")
      const encoded = JSON.parse(
        execFileSync("python3", [
          "-c",
          "import json\nprint(json.dumps([('第%s行の漢字' % n).encode('iso2022_jp').decode('latin1') for n in '〇一二三四五六七八九']))"
        ]).toString()
      ) as Array<string>
      // The JIS bytes of each line without the `ESC $ B … ESC ( B` around them (and none inside).
      expect(
        encoded.every((row) =>
          row.startsWith("\u001b$B") && row.endsWith("\u001b(B") && row.split("\u001b").length === 3
        )
      )
        .toBe(true)
      const jis = (i: number) => Buffer.from(encoded[i]!.slice(3, -3), "latin1")
      const rows = Array.from({ length: 30000 }, (_, i) => jis(i % 10))
      // Back to ASCII at the very end, before the last line break.
      const bytes = Buffer.concat([
        kanji,
        ...rows.flatMap((row, i) => [row, Buffer.from(i === rows.length - 1 ? "\u001b(B\n" : "\n", "latin1")])
      ])
      const name = fileWith(bytes, "kanji-mode.txt")
      const expected = lines(decodeWithPython(name, "iso2022_jp"))
      expect(expected[29000]).toBe("第〇行の漢字")
      const first = yield* readFile(name, { limit: 3 })
      expect(fieldsOf(first).encoding).toBe("iso-2022-jp")
      expect(shown(first.output)).toEqual(expected.slice(0, 3))
      for (let pass = 0; pass < 2; pass++) {
        const deep = yield* readFile(name, { offset: 29001, limit: 4 })
        expect(shown(deep.output)).toEqual(expected.slice(29000, 29004))
      }
      const last = yield* readFile(name, { offset: 30000 })
      expect(shown(last.output)).toEqual([expected[29999]])
      expect(last.output).toContain("(End of file - total 30000 lines)")
    }))
})

describe("the encoding parameter", () => {
  it.effect("overrides detection: a file read in the named encoding, reported as such", () =>
    Effect.gen(function*() {
      // Short Cyrillic text chardet cannot be sure of: read as windows-1251 on request.
      const name = fileWith(iconv.encode("Привет, мир\nВторая строка\n", "windows-1251"))
      const result = yield* readFile(name, { encoding: "windows-1251" })
      expect(body(result.output)).toBe("1: Привет, мир\n2: Вторая строка")
      expect(result.metadata).toMatchObject({ encoding: "windows-1251", bom: false })
      expect(fieldsOf(result).invalidBytesReplaced).toBeUndefined()
      // Any spelling iconv-lite accepts, and ours.
      expect(fieldsOf(yield* readFile(name, { encoding: "CP1251" })).encoding).toBe("cp1251")
      const kr = fileWith(iconv.encode("한국어 텍스트\n", "cp949"))
      expect(body((yield* readFile(kr, { encoding: "UHC" })).output)).toBe("1: 한국어 텍스트")
    }))

  it.effect("UTF-16 without a BOM that detection cannot tell reads when named; a BOM of the named encoding is skipped", () =>
    Effect.gen(function*() {
      // No ASCII, so no zero bytes to tell UTF-16 by.
      const cjk = "漢字かな交じり文と한국어"
      const bare = fileWith(Buffer.from(cjk, "utf16le"))
      expect(fieldsOf(yield* readFile(bare)).encoding).not.toBe("utf-16le")
      const named = yield* readFile(bare, { encoding: "utf-16le" })
      expect(body(named.output)).toBe(`1: ${cjk}`)
      expect(named.metadata).toMatchObject({ encoding: "utf-16le", bom: false })
      const withBom = yield* readFile(fileWith(Buffer.from(`\ufeff${cjk}`, "utf16le")), { encoding: "utf-16le" })
      expect(body(withBom.output)).toBe(`1: ${cjk}`)
      expect(fieldsOf(withBom).bom).toBe(true)
    }))

  it.effect("a wrong guess corrected by name: Latin-1 bytes read as windows-1252 or as Latin-1", () =>
    Effect.gen(function*() {
      const name = fileWith(Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a, 0x80, 0x0a]))
      expect(body((yield* readFile(name, { encoding: "windows-1252" })).output)).toBe("1: café\n2: €")
      const latin1 = yield* readFile(name, { encoding: "latin1" })
      expect(body(latin1.output)).toBe("1: café\n2: \u0080")
      expect(fieldsOf(latin1).encoding).toBe("iso-8859-1")
    }))

  it.effect("an unknown name is InvalidParams that says how to find valid ones", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(readFile(fileWith(Buffer.from("x\n")), { encoding: "klingon-8" }))
      expect(error._tag).toBe("InvalidParams")
      expect(error.message).toBe(
        "Invalid parameters: encoding: unknown encoding \"klingon-8\"; use a WHATWG or iconv-lite encoding name such as utf-8, utf-16le, utf-16be, windows-1252, iso-8859-2, koi8-r, shift_jis, euc-jp, iso-2022-jp, gb18030, big5, euc-kr, cp949, or leave encoding out to detect it"
      )
      expect((yield* Effect.flip(readFile(fileWith(Buffer.from("x\n")), { encoding: "" })))._tag).toBe("InvalidParams")
    }))

  it.effect("a binary format stays binary whatever encoding is named", () =>
    Effect.gen(function*() {
      const ole = Buffer.concat([
        Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]),
        Buffer.from("text".repeat(10))
      ])
      expect((yield* Effect.flip(readFile(fileWith(ole, "legacy.doc"), { encoding: "latin1" })))._tag).toBe(
        "BinaryFile"
      )
      const gzip = zlib.gzipSync(Buffer.alloc(10_000))
      const error = yield* Effect.flip(readFile(fileWith(gzip, "x.dat"), { encoding: "latin1" }))
      expect(error.message).toContain("application/gzip")
    }))

  it("is in the tool's JSON Schema with its description", () => {
    expect(ReadTool.jsonSchema).toMatchObject({
      properties: { encoding: { type: "string", description: expect.stringContaining("instead of the detected one") } }
    })
  })

  it("passes through the CLI as --encoding", async () => {
    const name = fileWith(iconv.encode("Привет\n", "koi8-r"))
    // Spawned asynchronously: the worker's event loop stays free while the CLI runs.
    const run = (args: ReadonlyArray<string>) =>
      new Promise<{ readonly status: number | null; readonly stdout: string; readonly stderr: string }>((resolve) => {
        execFile(
          process.execPath,
          [nodePath.resolve("dist/bin.js"), "--cwd", root, ...args],
          (error, stdout, stderr) =>
            resolve({ status: error === null ? 0 : typeof error.code === "number" ? error.code : null, stdout, stderr })
        )
      })
    const ok = await run(["--json", "--encoding", "koi8-r", name])
    expect(ok.status).toBe(0)
    expect(JSON.parse(ok.stdout)).toMatchObject({
      metadata: { encoding: "koi8-r" },
      output: expect.stringContaining("1: Привет\n")
    })
    const bad = await run(["--encoding", "nope", name])
    expect(bad.status).toBe(2)
    expect(bad.stderr).toContain("encoding: unknown encoding \"nope\"")
  })
})

describe("paging legacy text", () => {
  it.effect("continuing a cut line with column decodes whole characters across chunks (Shift_JIS, Big5, Johab, ISO-2022-JP)", () =>
    Effect.gen(function*() {
      const sentence = "漢字とかなの長い行です。"
      for (
        const [encoding, text] of [
          ["shift_jis", sentence],
          ["big5", "這是一個很長的繁體中文句子。"],
          ["gb18030", "这是一个很长的简体中文句子𠀀。"],
          ["euc-jp", sentence]
        ] as const
      ) {
        const line = text.repeat(Math.ceil(300_000 / text.length))
        const name = fileWith(iconv.encode(`first\n${line}\nlast\n`, encoding))
        const page = yield* readFile(name, { offset: 2, column: 150_001, limit: 1 })
        expect(fieldsOf(page).encoding).toBe(encoding)
        expect(body(page.output).slice(0, 2003)).toBe(`2: ${line.slice(150_000, 152_000)}`)
      }
      // Python writes the escape-based and Johab forms.
      const kanji = "日本語の長い行、漢字とかな。".repeat(8000)
      const written = execFileSync("python3", [
        "-c",
        "import sys\nline = sys.stdin.read()\nsys.stdout.buffer.write(('first\\n' + line + '\\nlast\\n').encode(sys.argv[1]))",
        "iso2022_jp"
      ], { input: kanji })
      const iso = yield* readFile(fileWith(written), { offset: 2, column: 100_001, limit: 1 })
      expect(fieldsOf(iso).encoding).toBe("iso-2022-jp")
      expect(body(iso.output).slice(0, 2003)).toBe(`2: ${kanji.slice(100_000, 102_000)}`)
      const hangul = "조합형 한글로 쓴 긴 줄입니다. ".repeat(10000)
      const johab = execFileSync("python3", [
        "-c",
        "import sys\nline = sys.stdin.read()\nsys.stdout.buffer.write(('first\\n' + line + '\\nlast\\n').encode(sys.argv[1]))",
        "johab"
      ], { input: hangul })
      const jb = yield* readFile(fileWith(johab), { offset: 2, column: 100_001, limit: 1 })
      expect(fieldsOf(jb).encoding).toBe("johab")
      expect(body(jb.output).slice(0, 2003)).toBe(`2: ${hangul.slice(100_000, 102_000)}`)
    }))

  it.effect("a deep page of a multi-megabyte UHC file reads the same from the line index as from the start", () =>
    Effect.gen(function*() {
      const rows = Array.from({ length: 80_000 }, (_, i) => `${i}: 똠방각하 뷁 한국어 줄`)
      const name = fileWith(iconv.encode(rows.join("\n") + "\n", "cp949"))
      expect(fs.statSync(`${root}/${name}`).size).toBeGreaterThan(2 * 1024 * 1024)
      for (let pass = 0; pass < 2; pass++) {
        const page = yield* readFile(name, { offset: 75_001, limit: 3 })
        expect(fieldsOf(page).encoding).toBe("cp949")
        expect(body(page.output)).toBe(rows.slice(75_000, 75_003).map((row, i) => `${75_001 + i}: ${row}`).join("\n"))
      }
    }))
})
