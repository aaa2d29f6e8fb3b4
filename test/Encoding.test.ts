/**
 * Text fidelity: every encoding, every line-ending style, and the facts an Edit tool needs to
 * write a file back byte-exactly. Fixtures are generated here, on the real Node filesystem.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import * as Effect from "effect/Effect"
import iconv from "iconv-lite"
import * as fs from "node:fs"
import { detect } from "../src/internal/encoding.js"
import { read } from "../src/Read.js"
import { nodeLayer, tempDir } from "./support.js"

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
    ["UTF-32BE with BOM", iconv.encode(text, "utf-32be", { addBOM: true }), "utf-32be", true]
  ]
  for (const [name, bytes, encoding, bom] of cases) {
    it.effect(`${name} reads as the same text, with encoding and BOM in metadata`, () =>
      Effect.gen(function*() {
        const result = yield* readFile(fileWith(bytes))
        expect(body(result.output)).toBe(numbered)
        expect(result.output).toContain("(End of file - total 3 lines)")
        expect(result.metadata).toMatchObject({ encoding, bom, lineEnding: "lf", finalNewline: true })
        expect(result.metadata.invalidBytesReplaced).toBeUndefined()
      }))
  }

  const legacy: ReadonlyArray<readonly [string, string, string]> = [
    ["gbk", "这是一个用国标编码保存的中文文件。\n第二行：更多的中文内容，用来检测编码。\n", "gb18030"],
    ["gb18030", "简体中文文本，包括标点符号和数字一二三。\n另一行文字在这里出现。\n", "gb18030"],
    ["shift_jis", "これはシフトJISで保存された日本語のファイルです。\n二行目のテキストもあります。\n", "shift_jis"],
    ["euc-kr", "이것은 EUC-KR로 저장된 한국어 파일입니다.\n두 번째 줄도 한국어입니다.\n", "euc-kr"],
    ["windows-1252", "Caf\u00e9 cr\u00e8me br\u00fbl\u00e9e \u2014 \u201cna\u00efve\u201d r\u00e9sum\u00e9 for the fa\u00e7ade.\nSecond line: \u00bfQu\u00e9 tal? \u00a1Ol\u00e9!\n", "windows-1252"]
  ]
  for (const [source, content, reported] of legacy) {
    it.effect(`${source} is detected and decoded (reported as ${reported})`, () =>
      Effect.gen(function*() {
        const result = yield* readFile(fileWith(iconv.encode(content, source)))
        const lines = content.trimEnd().split("\n")
        expect(body(result.output)).toBe(lines.map((line, i) => `${i + 1}: ${line}`).join("\n"))
        expect(result.metadata.encoding).toBe(reported)
        expect(result.metadata.invalidBytesReplaced).toBeUndefined()
      }))
  }

  it.effect("invalid UTF-8 that fits no encoding is decoded with replacement, and the result says so", () =>
    Effect.gen(function*() {
      const result = yield* readFile(fileWith(Buffer.concat([Buffer.from("x = 1\n"), Buffer.from([0x80]), Buffer.from("\n")])))
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
      expect(result.metadata.encoding).toBe("utf-16le")
      expect(result.metadata.totalLines).toBe(50)
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
      const error = yield* Effect.flip(readFile(fileWith(Buffer.from([0x61, 0x62, 0x63, 0x00, 0xff, 0xfe, 0x64, 0x65]))))
      expect(error._tag).toBe("BinaryFile")
      expect(error.message).toContain("starting with 61 62 63 00 ff fe 64 65")
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
    }
  )

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
      expect(first.metadata.lineEnding).toBe("crlf")
      const rest = yield* readFile(utf16, { offset: 2, column: 2001 })
      expect(body(rest.output)).toBe(`2: ${"長".repeat(500)}\n3: z`)
      const sentence = "これは長い行です、漢字とかなが混ざっています。" // 23 characters
      const line = sentence.repeat(100) // 2300 characters
      const sjis = fileWith(iconv.encode(`一行目です。\n${line}\n`, "shift_jis"))
      const cont = yield* readFile(sjis, { offset: 2, column: 2001 })
      expect(cont.metadata.encoding).toBe("shift_jis")
      expect(body(cont.output)).toBe(`2: ${line.slice(2000)}`)
      expect(cont.output).toContain("(Line 2 is shown from character 2001.)")
    }))
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
