/**
 * The behaviour of `read` over the real Node filesystem (a fresh temp directory per test):
 * exact model-facing output, footers, paging, media, binary, errors, permissions and services.
 */
import { SystemError } from "@effect/platform/Error"
import * as FileSystem from "@effect/platform/FileSystem"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as FileTime from "../src/FileTime.js"
import * as Lsp from "../src/Lsp.js"
import * as Permission from "../src/Permission.js"
import { read, type ReadParams, readUnknown } from "../src/Read.js"
import { countingReads, fieldsOf, nodeLayer, projectDirs } from "./support/index.js"
import type { LayerOptions } from "./support/index.js"
import { GIF, JPEG, PDF, PNG, WEBP } from "./support/media.js"

// -----------------------------------------------------------------------------
// Helpers
// -----------------------------------------------------------------------------

const project = projectDirs()

/** `read(params)` over the Node filesystem with the project at `root`. */
const readIn = (root: string, params: ReadParams | unknown, options: LayerOptions = {}) =>
  readUnknown(params).pipe(Effect.provide(nodeLayer(root, options)))

const failIn = (root: string, params: ReadParams | unknown, options: LayerOptions = {}) =>
  Effect.flip(readIn(root, params, options))

/** The exact text of a file page, as the output contract writes it. */
const filePage = (path: string, lines: ReadonlyArray<string>, footer: string): string =>
  `<path>${path}</path>\n<type>file</type>\n<content>\n${
    lines.map((line) => `${line}\n`).join("")
  }\n${footer}\n</content>`

/** The exact text of a directory page. */
const dirPage = (path: string, entries: ReadonlyArray<string>, footer: string): string =>
  `<path>${path}</path>\n<type>directory</type>\n<entries>\n${
    entries.map((e) => `${e}\n`).join("")
  }\n${footer}\n</entries>`

const numbered = (lines: ReadonlyArray<string>, first = 1): Array<string> => lines.map((l, i) => `${first + i}: ${l}`)

const eof = (total: number) => `(End of file - total ${total} lines)`

const bytes = (text: string): number => Buffer.byteLength(text, "utf8")

/** The numbered lines of an output, as [number, text] pairs. */
const shownLines = (output: string): Array<[number, string]> => {
  const body = output.split("\n<content>\n")[1]!.split("\n\n(")[0]!
  return body.split("\n").map((line) => {
    const colon = line.indexOf(": ")
    return [Number(line.slice(0, colon)), line.slice(colon + 2)]
  })
}

/** A permission asker that answers `answer` and records every request. */
const recordingAsker = (answer: Permission.Answer = "once") => {
  const requests: Array<Permission.PermissionRequest> = []
  const asker: Permission.Asker = (request) =>
    Effect.sync(() => {
      requests.push(request)
      return answer
    })
  return { asker, requests }
}

/** Run `self` with the FileSystem it would get replaced by `wrap(original)`. */
const withFileSystem =
  (wrap: (fs: FileSystem.FileSystem) => FileSystem.FileSystem) => <A, E, R>(self: Effect.Effect<A, E, R>) =>
    Effect.flatMap(
      FileSystem.FileSystem,
      (original) => Effect.provideService(self, FileSystem.FileSystem, wrap(original))
    )

const eacces = (method: string, path: string) =>
  new SystemError({
    reason: "PermissionDenied",
    module: "FileSystem",
    method,
    pathOrDescriptor: path,
    description: `EACCES: permission denied, ${method} '${path}'`
  })

// --- media fixtures: test/media.ts -------------------------------------------

const decodeDataUrl = (url: string, mime: string): Buffer => {
  const prefix = `data:${mime};base64,`
  expect(url.startsWith(prefix)).toBe(true)
  return Buffer.from(url.slice(prefix.length), "base64")
}

// -----------------------------------------------------------------------------
// Text files
// -----------------------------------------------------------------------------

describe("read: text files", () => {
  it.effect("renders numbered lines and the end-of-file footer exactly", () =>
    Effect.gen(function*() {
      const root = project({ "src/app.ts": "import x from \"y\"\nexport const a = 1\n" })
      const result = yield* readIn(root, { filePath: "src/app.ts" })
      expect(result.output).toBe(
        `<path>${root}/src/app.ts</path>\n<type>file</type>\n<content>\n` +
          `1: import x from "y"\n2: export const a = 1\n\n(End of file - total 2 lines)\n</content>`
      )
      expect(result.title).toBe("src/app.ts")
      expect(result.attachments).toBeUndefined()
    }))

  it.effect("the line cap stops the page with the exact 'Showing lines' footer", () =>
    Effect.gen(function*() {
      const lines = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`)
      const root = project({ "ten.txt": lines.join("\n") + "\n" })
      const path = `${root}/ten.txt`
      const first = yield* readIn(root, { filePath: "ten.txt", limit: 3 })
      expect(first.output).toBe(
        filePage(path, numbered(lines.slice(0, 3)), "(Showing lines 1-3 of 10. Use offset=4 to continue.)")
      )
      expect(first.metadata).toMatchObject({ startLine: 1, endLine: 3, totalLines: 10, nextOffset: 4, truncated: true })

      const middle = yield* readIn(root, { filePath: "ten.txt", offset: 4, limit: 3 })
      expect(middle.output).toBe(
        filePage(path, numbered(lines.slice(3, 6), 4), "(Showing lines 4-6 of 10. Use offset=7 to continue.)")
      )

      const last = yield* readIn(root, { filePath: "ten.txt", offset: 8, limit: 3 })
      expect(last.output).toBe(filePage(path, numbered(lines.slice(7), 8), eof(10)))
      expect(last.metadata.truncated).toBe(false)
      expect(fieldsOf(last).nextOffset).toBeUndefined()

      // A limit that ends exactly on the last line is the end of the file, not a cap.
      const exact = yield* readIn(root, { filePath: "ten.txt", offset: 5, limit: 6 })
      expect(exact.output).toBe(filePage(path, numbered(lines.slice(4), 5), eof(10)))
    }))

  it.effect("default limit is 2000 lines: a 2500-line file pages as 1-2000 then 2001-2500", () =>
    Effect.gen(function*() {
      const lines = Array.from({ length: 2500 }, (_, i) => `row ${i + 1}`)
      const root = project({ "big.txt": lines.join("\n") + "\n" })
      const path = `${root}/big.txt`
      const first = yield* readIn(root, { filePath: "big.txt" })
      expect(first.output).toBe(
        filePage(path, numbered(lines.slice(0, 2000)), "(Showing lines 1-2000 of 2500. Use offset=2001 to continue.)")
      )
      expect(first.metadata).toMatchObject({ startLine: 1, endLine: 2000, totalLines: 2500, nextOffset: 2001 })
      const second = yield* readIn(root, { filePath: "big.txt", offset: fieldsOf(first).nextOffset })
      expect(second.output).toBe(filePage(path, numbered(lines.slice(2000), 2001), eof(2500)))
    }))

  it.effect("the 50 KB byte cap stops mid-file on a whole line; following nextOffset reads every line once", () =>
    Effect.gen(function*() {
      const lines = Array.from({ length: 1500 }, (_, i) => `line ${i + 1} `.padEnd(100, "abcdefghij"))
      const root = project({ "wide.txt": lines.join("\n") + "\n" })
      const path = `${root}/wide.txt`
      const first = yield* readIn(root, { filePath: "wide.txt" })
      const shown = shownLines(first.output)
      const last = shown.length
      expect(last).toBeGreaterThan(100)
      expect(last).toBeLessThan(1500)
      expect(first.output).toBe(
        filePage(
          path,
          numbered(lines.slice(0, last)),
          `(Output capped at 50 KB. Showing lines 1-${last}. Use offset=${last + 1} to continue.)`
        )
      )
      expect(bytes(first.output)).toBeLessThanOrEqual(51200)
      // The cap is used, not wasted: the page stops within a few lines of 50 KB.
      expect(bytes(first.output)).toBeGreaterThan(51200 - 512)
      expect(first.metadata).toMatchObject({ startLine: 1, endLine: last, nextOffset: last + 1, truncated: true })
      expect(fieldsOf(first).totalLines).toBeUndefined()

      // Follow the footers to the end: every line exactly once, in order.
      const seen: Array<[number, string]> = [...shown]
      let next = fieldsOf(first).nextOffset
      let pages = 1
      let output = first.output
      while (next !== undefined) {
        const page = yield* readIn(root, { filePath: "wide.txt", offset: next })
        expect(bytes(page.output)).toBeLessThanOrEqual(51200)
        expect(shownLines(page.output)[0]![0]).toBe(next)
        seen.push(...shownLines(page.output))
        next = fieldsOf(page).nextOffset
        output = page.output
        pages++
      }
      expect(pages).toBeGreaterThanOrEqual(3)
      expect(output.endsWith(`${eof(1500)}\n</content>`)).toBe(true)
      expect(seen).toEqual(lines.map((line, i) => [i + 1, line]))
    }))

  it.effect("the byte cap counts UTF-8 bytes, not characters (CJK lines)", () =>
    Effect.gen(function*() {
      const lines = Array.from({ length: 800 }, (_, i) => `${i}:` + "漢字かな".repeat(20))
      const root = project({ "cjk.txt": lines.join("\n") })
      const result = yield* readIn(root, { filePath: "cjk.txt" })
      expect(bytes(result.output)).toBeLessThanOrEqual(51200)
      const last = fieldsOf(result).endLine!
      expect(last).toBeLessThan(800)
      expect(result.output).toContain(
        `(Output capped at 50 KB. Showing lines 1-${last}. Use offset=${last + 1} to continue.)`
      )
      expect(shownLines(result.output)).toEqual(lines.slice(0, last).map((line, i) => [i + 1, line]))
    }))

  it.effect("a line over 2000 characters is cut with the truncation suffix", () =>
    Effect.gen(function*() {
      const root = project({ "long.txt": `short\n${"x".repeat(2500)}\nafter\n` })
      const result = yield* readIn(root, { filePath: "long.txt" })
      expect(result.output).toBe(
        filePage(
          `${root}/long.txt`,
          [
            "1: short",
            `2: ${"x".repeat(2000)}... (line truncated to 2000 chars; use offset=2 column=2001 to read more of it)`,
            "3: after"
          ],
          eof(3)
        )
      )
      expect(result.metadata.truncated).toBe(true)
      expect(fieldsOf(result).linesCut).toBe(1)
      expect(fieldsOf(result).nextOffset).toBeUndefined()
    }))

  it.effect("a line of exactly 2000 characters is not cut", () =>
    Effect.gen(function*() {
      const root = project({ "exact.txt": "y".repeat(2000) })
      const result = yield* readIn(root, { filePath: "exact.txt" })
      expect(result.output).toBe(filePage(`${root}/exact.txt`, [`1: ${"y".repeat(2000)}`], eof(1)))
      expect(result.metadata.truncated).toBe(false)
    }))

  it.effect("an emoji straddling the 2000-character cut is dropped whole, never split", () =>
    Effect.gen(function*() {
      const straddling = "a".repeat(1999) + "😀" + "tail"
      const fitting = "b".repeat(1998) + "😀" + "tail"
      const root = project({ "emoji.txt": `${straddling}\n${fitting}\n` })
      const result = yield* readIn(root, { filePath: "emoji.txt" })
      expect(result.output).toBe(
        filePage(
          `${root}/emoji.txt`,
          [
            `1: ${"a".repeat(1999)}... (line truncated to 2000 chars; use offset=1 column=2000 to read more of it)`,
            `2: ${"b".repeat(1998)}😀... (line truncated to 2000 chars; use offset=2 column=2001 to read more of it)`
          ],
          eof(2)
        )
      )
      expect(result.output).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/)
      expect(result.output).not.toContain("\ufffd")
    }))

  it.effect("CJK text reads as is and long CJK lines are cut at 2000 characters", () =>
    Effect.gen(function*() {
      const root = project({ "cjk.md": `# 标题\n日本語のテキスト\n${"中文".repeat(1500)}\n` })
      const result = yield* readIn(root, { filePath: "cjk.md" })
      expect(result.output).toBe(
        filePage(
          `${root}/cjk.md`,
          [
            "1: # 标题",
            "2: 日本語のテキスト",
            `3: ${"中文".repeat(1000)}... (line truncated to 2000 chars; use offset=3 column=2001 to read more of it)`
          ],
          eof(3)
        )
      )
    }))

  it.effect("CRLF, lone CR and mixed line endings: no \\r in the output", () =>
    Effect.gen(function*() {
      const root = project({
        "crlf.txt": "one\r\ntwo\r\n",
        "cr.txt": "one\rtwo\rthree",
        "mixed.txt": "a\r\nb\rc\nd\r\n\r\ne"
      })
      const crlf = yield* readIn(root, { filePath: "crlf.txt" })
      expect(crlf.output).toBe(filePage(`${root}/crlf.txt`, ["1: one", "2: two"], eof(2)))
      const cr = yield* readIn(root, { filePath: "cr.txt" })
      expect(cr.output).toBe(filePage(`${root}/cr.txt`, ["1: one", "2: two", "3: three"], eof(3)))
      const mixed = yield* readIn(root, { filePath: "mixed.txt" })
      expect(mixed.output).toBe(
        filePage(`${root}/mixed.txt`, ["1: a", "2: b", "3: c", "4: d", "5: ", "6: e"], eof(6))
      )
      expect(mixed.output).not.toContain("\r")
    }))

  it.effect("a CRLF split across the 64 KB read chunks is one line ending (collecting and counting)", () =>
    Effect.gen(function*() {
      // Byte 65535 is the CR, byte 65536 (the next chunk) its LF.
      const collected = "x".repeat(65535) + "\r\n" + "y\n"
      const counted = "a\n" + "x".repeat(65533) + "\r\n" + "z\n"
      const lone = "x".repeat(65535) + "\r" + "y"
      const root = project({ "collect.txt": collected, "count.txt": counted, "lone.txt": lone })
      const a = yield* readIn(root, { filePath: "collect.txt" })
      expect(a.output).toBe(
        filePage(`${root}/collect.txt`, [
          `1: ${"x".repeat(2000)}... (line truncated to 2000 chars; use offset=1 column=2001 to read more of it)`,
          "2: y"
        ], eof(2))
      )
      const b = yield* readIn(root, { filePath: "count.txt", limit: 1 })
      expect(b.output).toBe(
        filePage(`${root}/count.txt`, ["1: a"], "(Showing lines 1-1 of 3. Use offset=2 to continue.)")
      )
      const b3 = yield* readIn(root, { filePath: "count.txt", offset: 3 })
      expect(b3.output).toBe(filePage(`${root}/count.txt`, ["3: z"], eof(3)))
      const c = yield* readIn(root, { filePath: "lone.txt", offset: 2 })
      expect(c.output).toBe(filePage(`${root}/lone.txt`, ["2: y"], eof(2)))
    }))

  it.effect("a line spanning two 64 KB read chunks is shown intact (the read buffer is reused)", () =>
    Effect.gen(function*() {
      // Line 2 starts at byte 65001 and ends after byte 65536: its first part comes from chunk 1.
      const spanning = Array.from({ length: 100 }, (_, i) => `w${i}`).join(" ")
      const after = Array.from({ length: 20 }, (_, i) => `line ${i + 3} ` + "#".repeat(40))
      const root = project({ "span.txt": `${"x".repeat(65000)}\n${spanning}\n${after.join("\n")}\n` })
      const page = yield* readIn(root, { filePath: "span.txt", offset: 2, limit: 3 })
      expect(page.output).toBe(
        filePage(
          `${root}/span.txt`,
          [`2: ${spanning}`, `3: ${after[0]}`, `4: ${after[1]}`],
          "(Showing lines 2-4 of 22. Use offset=5 to continue.)"
        )
      )
    }))

  it.effect("a UTF-8 BOM is not shown", () =>
    Effect.gen(function*() {
      const root = project({ "bom.txt": "\ufeffhello\r\nworld\r\n", "bom-only.txt": "\ufeff" })
      const result = yield* readIn(root, { filePath: "bom.txt" })
      expect(result.output).toBe(filePage(`${root}/bom.txt`, ["1: hello", "2: world"], eof(2)))
      expect(result.output).not.toContain("\ufeff")
      const only = yield* readIn(root, { filePath: "bom-only.txt" })
      expect(only.output).toBe(filePage(`${root}/bom-only.txt`, [], eof(0)))
    }))

  it.effect("line counting: 'a\\nb\\n' and 'a\\nb' are 2 lines, '\\n' is one empty line", () =>
    Effect.gen(function*() {
      const root = project({ "t1.txt": "a\nb\n", "t2.txt": "a\nb", "t3.txt": "\n", "t4.txt": "a\n\n" })
      expect((yield* readIn(root, { filePath: "t1.txt" })).output).toBe(
        filePage(`${root}/t1.txt`, ["1: a", "2: b"], eof(2))
      )
      expect((yield* readIn(root, { filePath: "t2.txt" })).output).toBe(
        filePage(`${root}/t2.txt`, ["1: a", "2: b"], eof(2))
      )
      expect((yield* readIn(root, { filePath: "t3.txt" })).output).toBe(filePage(`${root}/t3.txt`, ["1: "], eof(1)))
      expect((yield* readIn(root, { filePath: "t4.txt" })).output).toBe(
        filePage(`${root}/t4.txt`, ["1: a", "2: "], eof(2))
      )
    }))

  it.effect("an empty file reads as '(End of file - total 0 lines)'", () =>
    Effect.gen(function*() {
      const root = project({ "empty.txt": "" })
      const result = yield* readIn(root, { filePath: "empty.txt" })
      expect(result.output).toBe(
        `<path>${root}/empty.txt</path>\n<type>file</type>\n<content>\n\n(End of file - total 0 lines)\n</content>`
      )
      expect(result.metadata).toMatchObject({ kind: "text", preview: "", truncated: false, totalLines: 0, size: 0 })
      expect(fieldsOf(result).startLine).toBeUndefined()
      // offset 1 (and 0) on an empty file is fine; 2 is past the end.
      expect((yield* readIn(root, { filePath: "empty.txt", offset: 1 })).output).toBe(result.output)
      expect((yield* readIn(root, { filePath: "empty.txt", offset: 0 })).output).toBe(result.output)
      const error = yield* failIn(root, { filePath: "empty.txt", offset: 2 })
      expect(error._tag).toBe("OffsetOutOfRange")
      expect(error.message).toBe("Offset 2 is out of range for this file (0 lines)")
    }))

  it.effect("offset 0 is offset 1", () =>
    Effect.gen(function*() {
      const root = project({ "f.txt": "a\nb\nc\n" })
      const zero = yield* readIn(root, { filePath: "f.txt", offset: 0 })
      const one = yield* readIn(root, { filePath: "f.txt", offset: 1 })
      expect(zero).toEqual(one)
      expect(zero.output).toBe(filePage(`${root}/f.txt`, ["1: a", "2: b", "3: c"], eof(3)))
    }))

  it.effect("an offset past the end fails with OffsetOutOfRange; the last line is still in range", () =>
    Effect.gen(function*() {
      const root = project({ "f.txt": "a\nb\nc\n" })
      const error = yield* failIn(root, { filePath: "f.txt", offset: 4 })
      expect(error._tag).toBe("OffsetOutOfRange")
      expect(error.message).toBe("Offset 4 is out of range for this file (3 lines)")
      expect(error).toMatchObject({ offset: 4, totalLines: 3, path: `${root}/f.txt` })
      const far = yield* failIn(root, { filePath: "f.txt", offset: 1000, limit: 5 })
      expect(far.message).toBe("Offset 1000 is out of range for this file (3 lines)")
      const last = yield* readIn(root, { filePath: "f.txt", offset: 3 })
      expect(last.output).toBe(filePage(`${root}/f.txt`, ["3: c"], eof(3)))
    }))

  it.effect("ANSI colour escapes (ESC) and form feeds are text", () =>
    Effect.gen(function*() {
      const log = Array.from({ length: 40 }, (_, i) => `\u001b[3${i % 8}mINFO\u001b[0m step ${i}\f`).join("\n")
      const root = project({ "build.log": log })
      const result = yield* readIn(root, { filePath: "build.log", limit: 2 })
      expect(result.output).toBe(
        filePage(
          `${root}/build.log`,
          ["1: \u001b[30mINFO\u001b[0m step 0\f", "2: \u001b[31mINFO\u001b[0m step 1\f"],
          "(Showing lines 1-2 of 40. Use offset=3 to continue.)"
        )
      )
    }))

  it.effect("a UTF-8 file of CJK and emoji is text", () =>
    Effect.gen(function*() {
      const text = Array.from({ length: 300 }, () => "你好世界🎉🚀こんにちは한국어").join("\n")
      const root = project({ "intl.txt": text })
      const result = yield* readIn(root, { filePath: "intl.txt", limit: 1 })
      expect(result.metadata.kind).toBe("text")
      expect(result.output).toContain("1: 你好世界🎉🚀こんにちは한국어\n")
    }))

  it.effect("SVG and .fbs (FlatBuffers schema) files are text, not images", () =>
    Effect.gen(function*() {
      const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"><rect/></svg>\n`
      const fbs = "namespace Game;\ntable Monster { hp: short = 100; }\nroot_type Monster;\n"
      const root = project({ "icon.svg": svg, "schema.fbs": fbs })
      const a = yield* readIn(root, { filePath: "icon.svg" })
      expect(a.output).toBe(filePage(`${root}/icon.svg`, [`1: ${svg.trimEnd()}`], eof(1)))
      expect(a.attachments).toBeUndefined()
      const b = yield* readIn(root, { filePath: "schema.fbs" })
      expect(b.output).toBe(
        filePage(
          `${root}/schema.fbs`,
          ["1: namespace Game;", "2: table Monster { hp: short = 100; }", "3: root_type Monster;"],
          eof(3)
        )
      )
      expect(b.metadata.kind).toBe("text")
    }))
})

// -----------------------------------------------------------------------------
// Parameters
// -----------------------------------------------------------------------------

/** An object that holds itself (`JSON.stringify` throws on it). */
const circular = (): Record<string, unknown> => {
  const value: Record<string, unknown> = {}
  value["self"] = value
  return value
}

describe("read: invalid parameters", () => {
  const cases: ReadonlyArray<[string, unknown, string]> = [
    ["limit 0", { filePath: "a.txt", limit: 0 }, "limit"],
    ["negative limit", { filePath: "a.txt", limit: -5 }, "limit"],
    ["non-integer offset", { filePath: "a.txt", offset: 1.5 }, "offset"],
    ["non-integer limit", { filePath: "a.txt", limit: 2.5 }, "limit"],
    // An integer-valued string is mended (see ToolSchemas.test.ts); other strings are not.
    ["word as offset", { filePath: "a.txt", offset: "three" }, "offset"],
    ["fraction as a string", { filePath: "a.txt", limit: "2.5" }, "limit"],
    ["NaN limit", { filePath: "a.txt", limit: Number.NaN }, "limit"],
    ["NUL byte in the path", { filePath: "a.txt\0.png" }, "filePath"],
    ["empty path", { filePath: "" }, "filePath"],
    ["missing path", { offset: 1 }, "filePath"],
    ["non-string path", { filePath: 42 }, "filePath"],
    ["extra property", { filePath: "a.txt", charset: "latin1" }, "charset"],
    // Only JavaScript callers can send these; each is still a typed failure, never a defect.
    ["BigInt encoding", { filePath: "a.txt", encoding: 10n }, "encoding"],
    ["circular encoding", { filePath: "a.txt", encoding: circular() }, "encoding"],
    ["symbol encoding", { filePath: "a.txt", encoding: Symbol("utf-8") }, "encoding"],
    ["function limit", { filePath: "a.txt", limit: () => 1 }, "limit"],
    ["BigInt offset", { filePath: "a.txt", offset: 2n }, "offset"],
    ["circular parameters", Object.assign(circular(), { filePath: "a.txt" }), "self"]
  ]
  for (const [name, params, parameter] of cases) {
    it.effect(`${name} → InvalidParams naming '${parameter}'`, () =>
      Effect.gen(function*() {
        const root = project({ "a.txt": "a\n" })
        const error = yield* failIn(root, params)
        expect(error._tag).toBe("InvalidParams")
        expect(error.message).toContain(parameter)
        expect(error.message.startsWith("Invalid parameters: ")).toBe(true)
      }))
  }

  it.effect("messages say what is wrong", () =>
    Effect.gen(function*() {
      const root = project({ "a.txt": "a\n" })
      expect((yield* failIn(root, { filePath: "" })).message).toBe(
        "Invalid parameters: filePath: filePath must not be empty"
      )
      expect((yield* failIn(root, { filePath: "x\0y" })).message).toBe(
        "Invalid parameters: filePath: filePath must not contain a NUL byte"
      )
      expect((yield* failIn(root, { filePath: "a.txt", limit: 0 })).message).toBe(
        "Invalid parameters: limit: limit must be at least 1"
      )
      for (const encoding of [10n, 7, circular(), Symbol("x")]) {
        expect((yield* failIn(root, { filePath: "a.txt", encoding })).message).toMatch(
          /^Invalid parameters: encoding: Expected string, actual /
        )
      }
      expect((yield* failIn(root, { filePath: "a.txt", encoding: "klingon" })).message).toMatch(
        /^Invalid parameters: encoding: unknown encoding "klingon"; use a WHATWG/
      )
    }))

  it.effect("not an object at all → InvalidParams", () =>
    Effect.gen(function*() {
      const root = project()
      expect((yield* failIn(root, "a.txt"))._tag).toBe("InvalidParams")
      expect((yield* failIn(root, null))._tag).toBe("InvalidParams")
    }))
})

// -----------------------------------------------------------------------------
// Directories
// -----------------------------------------------------------------------------

describe("read: directories", () => {
  const tree = () => {
    const root = project({ "d/B.txt": "b", "d/a.txt": "a", "d/Zeta.md": "z", "d/docs/x.md": "x", "d/Alpha/y": "y" })
    fs.symlinkSync(`${root}/d/docs`, `${root}/d/link`)
    fs.symlinkSync(`${root}/d/nowhere`, `${root}/d/broken`)
    return root
  }

  it.effect("lists entries sorted case-insensitively, '/' after directories and links to directories", () =>
    Effect.gen(function*() {
      const root = tree()
      const result = yield* readIn(root, { filePath: "d" })
      const entries = ["a.txt", "Alpha/", "B.txt", "broken", "docs/", "link/", "Zeta.md"]
      expect(result.output).toBe(dirPage(`${root}/d`, entries, "(7 entries)"))
      expect(result.title).toBe("d")
      expect(result.metadata).toMatchObject({
        kind: "directory",
        path: `${root}/d`,
        preview: entries.join("\n"),
        truncated: false,
        startLine: 1,
        endLine: 7,
        totalLines: 7
      })
      expect(fieldsOf(result).nextOffset).toBeUndefined()
    }))

  it.effect("pages with offset/limit and both footers exactly", () =>
    Effect.gen(function*() {
      const root = tree()
      const page = yield* readIn(root, { filePath: "d", offset: 3, limit: 2 })
      expect(page.output).toBe(
        dirPage(
          `${root}/d`,
          ["B.txt", "broken"],
          "(Showing 2 of 7 entries. Use 'offset' parameter to read beyond entry 5)"
        )
      )
      expect(page.metadata).toMatchObject({ startLine: 3, endLine: 4, totalLines: 7, nextOffset: 5, truncated: true })
      const first = yield* readIn(root, { filePath: "d", limit: 1 })
      expect(first.output).toBe(
        dirPage(`${root}/d`, ["a.txt"], "(Showing 1 of 7 entries. Use 'offset' parameter to read beyond entry 2)")
      )
      const tail = yield* readIn(root, { filePath: "d", offset: 6, limit: 5 })
      expect(tail.output).toBe(dirPage(`${root}/d`, ["link/", "Zeta.md"], "(7 entries)"))
      const zero = yield* readIn(root, { filePath: "d", offset: 0 })
      expect(zero.output).toBe((yield* readIn(root, { filePath: "d" })).output)
    }))

  it.effect("an offset past the last entry fails with OffsetOutOfRange", () =>
    Effect.gen(function*() {
      const root = tree()
      const error = yield* failIn(root, { filePath: "d", offset: 8 })
      expect(error._tag).toBe("OffsetOutOfRange")
      expect(error.message).toBe("Offset 8 is out of range for this directory (7 entries)")
    }))

  it.effect("an empty directory lists '(0 entries)'; offset 2 on it fails", () =>
    Effect.gen(function*() {
      const root = project()
      fs.mkdirSync(`${root}/empty`)
      const result = yield* readIn(root, { filePath: "empty" })
      expect(result.output).toBe(dirPage(`${root}/empty`, [], "(0 entries)"))
      expect((yield* failIn(root, { filePath: "empty", offset: 2 }))._tag).toBe("OffsetOutOfRange")
    }))

  it.effect("the worktree itself reads with title '.'; a trailing slash is accepted", () =>
    Effect.gen(function*() {
      const root = project({ "z.txt": "", ".hidden": "" })
      const result = yield* readIn(root, { filePath: "." })
      expect(result.title).toBe(".")
      expect(result.output).toBe(dirPage(root, [".hidden", "z.txt"], "(2 entries)"))
      const abs = yield* readIn(root, { filePath: `${root}/` })
      expect(abs.output).toBe(result.output)
    }))
})

// -----------------------------------------------------------------------------
// Binary files
// -----------------------------------------------------------------------------

describe("read: binary files", () => {
  for (const name of ["tool.exe", "module.wasm", "cache.pyc", "lib.so", "data.dat", "mesh.obj"]) {
    it.effect(`${name} holding text is read: content decides, not the extension`, () =>
      Effect.gen(function*() {
        const root = project({ [`bin/${name}`]: "plain looking text\n" })
        const result = yield* readIn(root, { filePath: `bin/${name}` })
        expect(result.output).toContain("1: plain looking text")
      }))
  }

  it.effect("a real WebAssembly header in a .wasm file is binary, and the message says what it looks like", () =>
    Effect.gen(function*() {
      const root = project({ "m.wasm": Buffer.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]) })
      const error = yield* failIn(root, { filePath: "m.wasm" })
      expect(error.message).toBe(`Cannot read binary file: ${root}/m.wasm (application/wasm (.wasm), 8 bytes)`)
    }))

  it.effect("an ELF executable is binary; an unrecognised format is described by its first bytes", () =>
    Effect.gen(function*() {
      const elf = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00]), Buffer.alloc(56)])
      const unknown = Buffer.from([0x01, 0x02, 0x00, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x00])
      const root = project({ "tool": elf, "blob.exe": unknown })
      expect((yield* failIn(root, { filePath: "tool" })).message).toBe(
        `Cannot read binary file: ${root}/tool (application/x-elf (.elf), 64 bytes)`
      )
      expect((yield* failIn(root, { filePath: "blob.exe" })).message).toBe(
        `Cannot read binary file: ${root}/blob.exe (.exe file, unrecognised binary data starting with 01 02 00 03 04 05 06 07, 10 bytes)`
      )
    }))

  it.effect("a NUL byte in a .txt file is binary", () =>
    Effect.gen(function*() {
      const root = project({
        "data.txt": Buffer.concat([Buffer.from("hello\nworld"), Buffer.from([0]), Buffer.from("x\n")])
      })
      const error = yield* failIn(root, { filePath: "data.txt" })
      expect(error._tag).toBe("BinaryFile")
      expect(error.message).toBe(
        `Cannot read binary file: ${root}/data.txt (unrecognised binary data starting with 68 65 6c 6c 6f 0a 77 6f, 14 bytes)`
      )
    }))

  it.effect("more than 30% control bytes is binary; exactly 30% is text", () =>
    Effect.gen(function*() {
      const sample = (control: number) =>
        Buffer.concat([Buffer.alloc(control, 0x01), Buffer.alloc(100 - control, 0x61)])
      const root = project({ "over.txt": sample(31), "at.txt": sample(30) })
      expect((yield* failIn(root, { filePath: "over.txt" }))._tag).toBe("BinaryFile")
      const at = yield* readIn(root, { filePath: "at.txt" })
      expect(at.metadata.kind).toBe("text")
      expect(fieldsOf(at).totalLines).toBe(1)
    }))

  it.effect("tabs, newlines, CR, VT, FF and ESC are not control bytes for the test", () =>
    Effect.gen(function*() {
      const root = project({ "ws.txt": "\t\v\f\u001b\r\n".repeat(50) + "x" })
      const result = yield* readIn(root, { filePath: "ws.txt", limit: 1 })
      expect(result.metadata.kind).toBe("text")
    }))
})

// -----------------------------------------------------------------------------
// Images and PDFs
// -----------------------------------------------------------------------------

describe("read: images and PDFs", () => {
  const media: ReadonlyArray<[string, Buffer, string, "Image" | "PDF"]> = [
    ["pixel.png", PNG, "image/png", "Image"],
    ["pixel.gif", GIF, "image/gif", "Image"],
    ["photo.jpg", JPEG, "image/jpeg", "Image"],
    ["pixel.webp", WEBP, "image/webp", "Image"],
    ["doc.pdf", PDF, "application/pdf", "PDF"]
  ]
  for (const [name, content, mime, label] of media) {
    it.effect(`${name} → '${label} read successfully' with a ${mime} data: URL attachment`, () =>
      Effect.gen(function*() {
        const root = project({ [`assets/${name}`]: content })
        const result = yield* readIn(root, { filePath: `assets/${name}` })
        expect(result.output).toBe(`${label} read successfully`)
        expect(result.title).toBe(`assets/${name}`)
        expect(result.attachments).toHaveLength(1)
        const attachment = result.attachments![0]!
        expect(attachment).toEqual({ type: "file", mime, url: expect.any(String) })
        expect(decodeDataUrl(attachment.url, mime).equals(content)).toBe(true)
        expect(result.metadata).toMatchObject({
          kind: label === "Image" ? "image" : "pdf",
          path: `${root}/assets/${name}`,
          mime,
          size: content.length,
          truncated: false
        })
      }))
  }

  it("the PNG fixture is a valid 1x1 PNG", () => {
    expect(PNG.subarray(12, 16).toString("ascii")).toBe("IHDR")
    expect(PNG.readUInt32BE(16)).toBe(1)
    expect(PNG.subarray(PNG.length - 8, PNG.length - 4).toString("ascii")).toBe("IEND")
    // The well-known CRC of an empty IEND chunk.
    expect(PNG.readUInt32BE(PNG.length - 4)).toBe(0xae426082)
  })

  it.effect("bytes decide, not names: JPEG bytes in a .bin file are an image", () =>
    Effect.gen(function*() {
      const root = project({ "blob.bin": JPEG, "noext": PNG })
      const result = yield* readIn(root, { filePath: "blob.bin" })
      expect(result.output).toBe("Image read successfully")
      expect(result.attachments![0]!.mime).toBe("image/jpeg")
      expect(decodeDataUrl(result.attachments![0]!.url, "image/jpeg").equals(JPEG)).toBe(true)
      const png = yield* readIn(root, { filePath: "noext" })
      expect(png.attachments![0]!.mime).toBe("image/png")
    }))

  it.effect("a PNG named .jpg is attached as the PNG it is", () =>
    Effect.gen(function*() {
      const root = project({ "wrong.jpg": PNG })
      const result = yield* readIn(root, { filePath: "wrong.jpg" })
      expect(result.attachments![0]!.mime).toBe("image/png")
    }))

  it.effect("an empty .png is InvalidMedia", () =>
    Effect.gen(function*() {
      const root = project({ "empty.png": "" })
      const error = yield* failIn(root, { filePath: "empty.png" })
      expect(error._tag).toBe("InvalidMedia")
      expect(error.message).toBe(`Cannot read ${root}/empty.png: the file is empty`)
    }))

  it.effect("a PNG cut before IEND is InvalidMedia, not an attachment", () =>
    Effect.gen(function*() {
      const root = project({ "cut.png": PNG.subarray(0, PNG.length - 12) })
      const error = yield* failIn(root, { filePath: "cut.png" })
      expect(error._tag).toBe("InvalidMedia")
      expect(error.message).toContain(`${root}/cut.png`)
      expect(error.message).toContain("truncated")
    }))

  it.effect("truncated JPEG, GIF, WebP and PDF files are InvalidMedia", () =>
    Effect.gen(function*() {
      const root = project({
        "a.jpg": JPEG.subarray(0, JPEG.length - 2),
        // Cut inside the image data (a GIF missing only its trailer is whole: Image.test.ts).
        "a.gif": GIF.subarray(0, GIF.length - 3),
        "a.webp": WEBP.subarray(0, WEBP.length - 4),
        "a.pdf": PDF.subarray(0, PDF.length - 7)
      })
      for (const name of ["a.jpg", "a.gif", "a.webp", "a.pdf"]) {
        const error = yield* failIn(root, { filePath: name })
        expect(error._tag).toBe("InvalidMedia")
      }
    }))

  it.effect("an HTML page named .png is InvalidMedia", () =>
    Effect.gen(function*() {
      const root = project({ "logo.png": "<!doctype html>\n<html><body>Not found</body></html>\n" })
      const error = yield* failIn(root, { filePath: "logo.png" })
      expect(error._tag).toBe("InvalidMedia")
      expect(error.message).toBe(`Cannot read ${root}/logo.png: the name says image/png but the content is text`)
    }))

  it.effect("a media file over 20 MB is MediaTooLarge, not attached", () =>
    Effect.gen(function*() {
      const root = project({ "huge.png": PNG.subarray(0, 33), "huge.pdf": "%PDF-1.7\n" })
      const size = 21 * 1024 * 1024
      fs.truncateSync(`${root}/huge.png`, size)
      fs.truncateSync(`${root}/huge.pdf`, size)
      const png = yield* failIn(root, { filePath: "huge.png" })
      expect(png._tag).toBe("MediaTooLarge")
      expect(png).toMatchObject({ path: `${root}/huge.png`, mime: "image/png", size, maxSize: 20 * 1024 * 1024 })
      expect(png.message).toBe(
        `Cannot attach ${root}/huge.png: the image/png file is 21.0 MiB, over the 20.0 MiB limit for attachments`
      )
      const pdf = yield* failIn(root, { filePath: "huge.pdf" })
      expect(pdf).toMatchObject({ _tag: "MediaTooLarge", mime: "application/pdf", size })
    }))

  it.effect("a media file of exactly 20 MB is still attached", () =>
    Effect.gen(function*() {
      const size = 20 * 1024 * 1024
      const content = Buffer.alloc(size)
      PDF.copy(content, 0)
      Buffer.from("\n%%EOF\n").copy(content, size - 7)
      const root = project({ "edge.pdf": content })
      const result = yield* readIn(root, { filePath: "edge.pdf" })
      expect(result.output).toBe("PDF read successfully")
      expect(result.metadata.size).toBe(size)
    }))
})

// -----------------------------------------------------------------------------
// Not found, suggestions, Unicode look-alikes
// -----------------------------------------------------------------------------

describe("read: not found", () => {
  it.effect("suggests up to 3 absolute paths: same stem first, then containment either way, case-insensitively", () =>
    Effect.gen(function*() {
      const root = project({
        "src/config.json.bak": "",
        "src/Old-Config.JSON": "",
        "src/config.yaml": "",
        "src/config.json.orig.backup": "",
        "src/settings.json": "",
        "src/notes.txt": ""
      })
      const error = yield* failIn(root, { filePath: "src/config.json" })
      expect(error._tag).toBe("FileNotFound")
      expect(error.message).toBe(
        `File not found: ${root}/src/config.json\n\nDid you mean one of these?\n` +
          `${root}/src/config.yaml\n${root}/src/config.json.bak\n${root}/src/Old-Config.JSON`
      )
      expect(error).toMatchObject({
        path: `${root}/src/config.json`,
        suggestions: [`${root}/src/config.yaml`, `${root}/src/config.json.bak`, `${root}/src/Old-Config.JSON`]
      })
    }))

  it.effect("a name contained in the missing one is suggested, and a different case of the same name", () =>
    Effect.gen(function*() {
      const root = project({ "window.ts": "", "README.md": "", "zzz.md": "" })
      const contained = yield* failIn(root, { filePath: "main-window.ts" })
      expect(contained.message).toBe(
        `File not found: ${root}/main-window.ts\n\nDid you mean one of these?\n${root}/window.ts`
      )
      const cased = yield* failIn(root, { filePath: "readme.md" })
      expect(cased.message).toBe(`File not found: ${root}/readme.md\n\nDid you mean one of these?\n${root}/README.md`)
    }))

  it.effect("no suggestions: the bare message", () =>
    Effect.gen(function*() {
      const root = project({ "alpha.ts": "", "beta.md": "" })
      const error = yield* failIn(root, { filePath: "zzzz.go" })
      expect(error._tag).toBe("FileNotFound")
      expect(error.message).toBe(`File not found: ${root}/zzzz.go`)
      expect(error).toMatchObject({ suggestions: [] })
    }))

  it.effect("a missing parent directory, or a path through a file, is FileNotFound", () =>
    Effect.gen(function*() {
      const root = project({ "file.txt": "x" })
      const missing = yield* failIn(root, { filePath: "no/such/dir/a.ts" })
      expect(missing.message).toBe(`File not found: ${root}/no/such/dir/a.ts`)
      const through = yield* failIn(root, { filePath: "file.txt/inner" })
      expect(through._tag).toBe("FileNotFound")
      expect(through.message).toBe(`File not found: ${root}/file.txt/inner`)
    }))

  it.effect("a dangling symlink is FileNotFound", () =>
    Effect.gen(function*() {
      const root = project()
      fs.symlinkSync(`${root}/gone.txt`, `${root}/link.txt`)
      const error = yield* failIn(root, { filePath: "link.txt" })
      expect(error._tag).toBe("FileNotFound")
      expect(error.message).toBe(`File not found: ${root}/link.txt`)
    }))

  it.effect("suggestions are NOT listed when reading the directory is denied", () =>
    Effect.gen(function*() {
      const root = project({ "secret/missing.md": "hidden", "secret/other.txt": "" })
      const rules: ReadonlyArray<Permission.Rule> = [
        { permission: "read", pattern: "*", action: "allow" },
        { permission: "read", pattern: "secret", action: "deny" },
        { permission: "read", pattern: "secret/*", action: "allow" }
      ]
      const error = yield* failIn(root, { filePath: "secret/missing.txt" }, {
        permission: Permission.layerRules(rules)
      })
      expect(error._tag).toBe("FileNotFound")
      expect(error.message).toBe(`File not found: ${root}/secret/missing.txt`)
      // Control: with the directory allowed, the sibling is suggested.
      const allowed = yield* failIn(root, { filePath: "secret/missing.txt" })
      expect(allowed.message).toBe(
        `File not found: ${root}/secret/missing.txt\n\nDid you mean one of these?\n${root}/secret/missing.md`
      )
    }))

  it.effect("the directory listing for suggestions asks the user, and a refusal lists nothing", () =>
    Effect.gen(function*() {
      const root = project({ "private/missing.md": "" })
      const { asker, requests } = recordingAsker("reject")
      const rules: ReadonlyArray<Permission.Rule> = [
        { permission: "read", pattern: "*", action: "allow" },
        { permission: "read", pattern: "private", action: "ask" }
      ]
      const error = yield* failIn(root, { filePath: "private/missing.txt" }, {
        permission: Permission.layerRules(rules, { asker })
      })
      expect(error.message).toBe(`File not found: ${root}/private/missing.txt`)
      expect(requests.map((r) => [r.permission, r.patterns])).toEqual([["read", ["private"]]])
    }))

  it.effect("an NFD-named file is read through the NFC path", () =>
    Effect.gen(function*() {
      const nfd = "cafe\u0301.txt"
      const root = project({ [nfd]: "espresso\n" })
      const result = yield* readIn(root, { filePath: "caf\u00e9.txt" })
      expect(result.output).toBe(filePage(`${root}/${nfd}`, ["1: espresso"], eof(1)))
      expect(result.title).toBe(nfd)
      expect(result.metadata.path).toBe(`${root}/${nfd}`)
    }))

  it.effect("an NFC-named file is read through the NFD path", () =>
    Effect.gen(function*() {
      const root = project({ "r\u00e9sum\u00e9.md": "cv\n" })
      const result = yield* readIn(root, { filePath: "re\u0301sume\u0301.md" })
      expect(result.metadata.path).toBe(`${root}/r\u00e9sum\u00e9.md`)
    }))

  it.effect("a name with U+202F (narrow no-break space) is read with a plain space", () =>
    Effect.gen(function*() {
      const name = "Screenshot 2024-01-01 at 10.00.00\u202fPM.txt"
      const root = project({ [name]: "shot\n" })
      const result = yield* readIn(root, { filePath: "Screenshot 2024-01-01 at 10.00.00 PM.txt" })
      expect(result.output).toBe(filePage(`${root}/${name}`, ["1: shot"], eof(1)))
    }))

  it.effect("curly and straight quotes are the same name", () =>
    Effect.gen(function*() {
      const root = project({ "it\u2019s.txt": "curly\n", "don't.txt": "straight\n" })
      const curly = yield* readIn(root, { filePath: "it's.txt" })
      expect(curly.metadata.path).toBe(`${root}/it\u2019s.txt`)
      expect(curly.output).toContain("1: curly\n")
      const straight = yield* readIn(root, { filePath: "don\u2019t.txt" })
      expect(straight.metadata.path).toBe(`${root}/don't.txt`)
    }))

  it.effect("look-alike directory components are recovered too (NFC path, NFD directories)", () =>
    Effect.gen(function*() {
      const root = project({
        "Cafe\u0301/Re\u0301sume\u0301/notes.txt": "deep\n",
        "Cafe\u0301/Re\u0301sume\u0301/other.md": ""
      })
      const result = yield* readIn(root, { filePath: "Caf\u00e9/R\u00e9sum\u00e9/notes.txt" })
      expect(result.output).toBe(filePage(`${root}/Cafe\u0301/Re\u0301sume\u0301/notes.txt`, ["1: deep"], eof(1)))
      expect(result.title).toBe("Cafe\u0301/Re\u0301sume\u0301/notes.txt")
      // In a recovered directory, a missing file gets suggestions from the real directory.
      const error = yield* failIn(root, { filePath: "Caf\u00e9/R\u00e9sum\u00e9/other.txt" })
      expect(error.message).toBe(
        `File not found: ${root}/Caf\u00e9/R\u00e9sum\u00e9/other.txt\n\nDid you mean one of these?\n` +
          `${root}/Cafe\u0301/Re\u0301sume\u0301/other.md`
      )
    }))

  it.effect("two look-alike matches are ambiguous: FileNotFound suggesting both", () =>
    Effect.gen(function*() {
      const root = project({ "it\u2019s.txt": "", "it\u2018s.txt": "" })
      const error = yield* failIn(root, { filePath: "it's.txt" })
      expect(error._tag).toBe("FileNotFound")
      expect(error).toMatchObject({
        suggestions: expect.arrayContaining([`${root}/it\u2019s.txt`, `${root}/it\u2018s.txt`])
      })
    }))

  it.effect("a look-alike recovered into a denied file is still denied", () =>
    Effect.gen(function*() {
      const root = project({ "caf\u00e9.env": "TOKEN=1\n" })
      const error = yield* failIn(root, { filePath: "cafe\u0301.env" }, {
        permission: Permission.layerRules(Permission.defaultRules)
      })
      expect(error._tag).toBe("PermissionDenied")
      expect(JSON.stringify(error)).not.toContain("TOKEN")
    }))
})

// -----------------------------------------------------------------------------
// Permissions
// -----------------------------------------------------------------------------

describe("read: permissions", () => {
  it.effect(".env asks the asker with permission 'read' and the worktree-relative pattern", () =>
    Effect.gen(function*() {
      const root = project({ "config/.env": "API_KEY=abc\n" })
      const { asker, requests } = recordingAsker("once")
      const result = yield* readIn(root, { filePath: "config/.env" }, {
        permission: Permission.layerRules(Permission.defaultRules, { asker })
      })
      expect(result.output).toBe(filePage(`${root}/config/.env`, ["1: API_KEY=abc"], eof(1)))
      expect(requests).toHaveLength(1)
      expect(requests[0]!.permission).toBe("read")
      expect(requests[0]!.patterns).toEqual(["config/.env"])
    }))

  it.effect(".env.local asks too; .env.example and ordinary files are not asked", () =>
    Effect.gen(function*() {
      const root = project({ ".env.local": "A=1\n", ".env.example": "A=\n", "src/a.ts": "x\n" })
      const { asker, requests } = recordingAsker("once")
      const layerOptions = { permission: Permission.layerRules(Permission.defaultRules, { asker }) }
      yield* readIn(root, { filePath: ".env.example" }, layerOptions)
      yield* readIn(root, { filePath: "src/a.ts" }, layerOptions)
      expect(requests).toEqual([])
      yield* readIn(root, { filePath: ".env.local" }, layerOptions)
      expect(requests.map((r) => r.patterns)).toEqual([[".env.local"]])
    }))

  it.effect("a refused or denied .env read is PermissionDenied and shows nothing", () =>
    Effect.gen(function*() {
      const root = project({ ".env": "SECRET=hunter2\n" })
      const { asker } = recordingAsker("reject")
      const rejected = yield* failIn(root, { filePath: ".env" }, {
        permission: Permission.layerRules(Permission.defaultRules, { asker })
      })
      expect(rejected).toMatchObject({
        _tag: "PermissionDenied",
        permission: "read",
        patterns: [".env"],
        reason: "rejected"
      })
      const denied = yield* failIn(root, { filePath: ".env" }, {
        permission: Permission.layerRules([...Permission.defaultRules, {
          permission: "read",
          pattern: "*.env",
          action: "deny"
        }])
      })
      expect(denied).toMatchObject({ _tag: "PermissionDenied", permission: "read", reason: "rule" })
      expect(denied.message).not.toContain("hunter2")
      const all = yield* failIn(root, { filePath: ".env" }, { permission: Permission.layerDenyAll })
      expect(all._tag).toBe("PermissionDenied")
    }))

  const outsideSetup = () => {
    const base = project({ "project/README.md": "inside\n", "outside/secret.txt": "outside content\n" })
    return { base, worktree: `${base}/project`, outside: `${base}/outside` }
  }

  it.effect("a file outside the worktree asks external_directory with '<dir>/*'; title is absolute", () =>
    Effect.gen(function*() {
      const { outside, worktree } = outsideSetup()
      const { asker, requests } = recordingAsker("once")
      const result = yield* readIn(worktree, { filePath: `${outside}/secret.txt` }, {
        permission: Permission.layerRules(Permission.defaultRules, { asker })
      })
      expect(result.title).toBe(`${outside}/secret.txt`)
      expect(result.output).toBe(filePage(`${outside}/secret.txt`, ["1: outside content"], eof(1)))
      expect(requests.map((r) => [r.permission, r.patterns])).toEqual([["external_directory", [`${outside}/*`]]])
    }))

  it.effect("a relative '../' path leaving the worktree asks external_directory too", () =>
    Effect.gen(function*() {
      const { outside, worktree } = outsideSetup()
      const { asker, requests } = recordingAsker("once")
      const result = yield* readIn(worktree, { filePath: "../outside/secret.txt" }, {
        permission: Permission.layerRules(Permission.defaultRules, { asker })
      })
      expect(result.metadata.path).toBe(`${outside}/secret.txt`)
      expect(requests.map((r) => [r.permission, r.patterns])).toEqual([["external_directory", [`${outside}/*`]]])
    }))

  it.effect("an outside directory asks external_directory for the directory itself", () =>
    Effect.gen(function*() {
      const { outside, worktree } = outsideSetup()
      const { asker, requests } = recordingAsker("once")
      const result = yield* readIn(worktree, { filePath: outside }, {
        permission: Permission.layerRules(Permission.defaultRules, { asker })
      })
      expect(result.output).toBe(dirPage(outside, ["secret.txt"], "(1 entry)"))
      expect(requests.map((r) => r.patterns)).toEqual([[`${outside}/*`]])
    }))

  it.effect("a symlink INSIDE the worktree to a file OUTSIDE asks external_directory for the real directory", () =>
    Effect.gen(function*() {
      const { outside, worktree } = outsideSetup()
      fs.symlinkSync(`${outside}/secret.txt`, `${worktree}/innocent.txt`)
      const { asker, requests } = recordingAsker("once")
      const result = yield* readIn(worktree, { filePath: "innocent.txt" }, {
        permission: Permission.layerRules(Permission.defaultRules, { asker })
      })
      expect(result.title).toBe("innocent.txt")
      expect(result.output).toContain("1: outside content")
      expect(requests).toHaveLength(1)
      expect(requests[0]!.permission).toBe("external_directory")
      expect(requests[0]!.patterns).toEqual([`${outside}/*`])
    }))

  it.effect("with external_directory denied, the symlinked outside file is never shown", () =>
    Effect.gen(function*() {
      const { outside, worktree } = outsideSetup()
      fs.symlinkSync(`${outside}/secret.txt`, `${worktree}/innocent.txt`)
      fs.symlinkSync(outside, `${worktree}/linkdir`)
      const deny = Permission.layerRules([
        ...Permission.defaultRules,
        { permission: "external_directory", pattern: "*", action: "deny" }
      ])
      for (const filePath of ["innocent.txt", "linkdir/secret.txt", "linkdir"]) {
        const error = yield* failIn(worktree, { filePath }, { permission: deny })
        expect(error).toMatchObject({ _tag: "PermissionDenied", permission: "external_directory", reason: "rule" })
        expect(error).toMatchObject({ patterns: [`${outside}/*`] })
        expect(JSON.stringify(error)).not.toContain("outside content")
        expect(error.message).not.toContain("outside content")
      }
      // The asker refusing is just as final.
      const { asker } = recordingAsker("reject")
      const refused = yield* failIn(worktree, { filePath: "innocent.txt" }, {
        permission: Permission.layerRules(Permission.defaultRules, { asker })
      })
      expect(refused).toMatchObject({ _tag: "PermissionDenied", reason: "rejected" })
    }))

  it.effect("a symlink inside the worktree to another file inside asks nothing", () =>
    Effect.gen(function*() {
      const root = project({ "real.txt": "r\n" })
      fs.symlinkSync(`${root}/real.txt`, `${root}/alias.txt`)
      const { asker, requests } = recordingAsker("reject")
      const result = yield* readIn(root, { filePath: "alias.txt" }, {
        permission: Permission.layerRules(Permission.defaultRules, { asker })
      })
      expect(result.output).toBe(filePage(`${root}/alias.txt`, ["1: r"], eof(1)))
      expect(requests).toEqual([])
    }))

  it.effect("a denied path is PermissionDenied whether or not it exists (existence does not leak)", () =>
    Effect.gen(function*() {
      const root = project({ "present.txt": "x" })
      const error = yield* failIn(root, { filePath: "absent.txt" }, { permission: Permission.layerDenyAll })
      expect(error._tag).toBe("PermissionDenied")
    }))
})

// -----------------------------------------------------------------------------
// Special files and OS errors
// -----------------------------------------------------------------------------

describe("read: special files and OS errors", () => {
  it.effect("a FIFO is NotAFile, decided before any open (no hang)", () =>
    Effect.gen(function*() {
      const root = project()
      execFileSync("mkfifo", [`${root}/pipe`])
      const error = yield* failIn(root, { filePath: "pipe" })
      expect(error._tag).toBe("NotAFile")
      expect(error.message).toBe(`Cannot read ${root}/pipe: it is a named pipe (FIFO), not a regular file or directory`)
    }), 10_000)

  it.effect("/dev/null is NotAFile (character device)", () =>
    Effect.gen(function*() {
      const root = project()
      const error = yield* failIn(root, { filePath: "/dev/null" })
      expect(error).toMatchObject({ _tag: "NotAFile", path: "/dev/null", kind: "character device" })
    }), 10_000)

  it.scoped("a Unix socket is NotAFile", () =>
    Effect.gen(function*() {
      const root = project()
      const socketPath = `${root}/app.sock`
      yield* Effect.acquireRelease(
        Effect.async<net.Server>((resume) => {
          const server = net.createServer()
          server.listen(socketPath, () => resume(Effect.succeed(server)))
        }),
        (server) => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
      )
      const error = yield* failIn(root, { filePath: "app.sock" })
      expect(error).toMatchObject({ _tag: "NotAFile", kind: "socket" })
    }), 10_000)

  it.effect("a symlink loop is a ReadFailed, not a defect", () =>
    Effect.gen(function*() {
      const root = project()
      fs.symlinkSync(`${root}/loop-b`, `${root}/loop-a`)
      fs.symlinkSync(`${root}/loop-a`, `${root}/loop-b`)
      const error = yield* failIn(root, { filePath: "loop-a" })
      expect(error._tag).toBe("ReadFailed")
      expect(error).toMatchObject({ path: `${root}/loop-a`, code: "ELOOP" })
    }))

  it.effect("EACCES on open → ReadFailed naming the path, code EACCES", () =>
    Effect.gen(function*() {
      const root = project({ "locked.txt": "secret\n" })
      const path = `${root}/locked.txt`
      const error = yield* read({ filePath: "locked.txt" }).pipe(
        withFileSystem((original) => ({ ...original, open: (p) => Effect.fail(eacces("open", p)) })),
        Effect.flip,
        Effect.provide(nodeLayer(root))
      )
      expect(error).toMatchObject({ _tag: "ReadFailed", path, code: "EACCES" })
      expect(error.message).toBe(`Cannot read ${path}: permission denied by the operating system (EACCES)`)
    }))

  it.effect("EACCES on stat → ReadFailed naming the path, code EACCES", () =>
    Effect.gen(function*() {
      const root = project({ "locked.txt": "secret\n" })
      const path = `${root}/locked.txt`
      const error = yield* read({ filePath: "locked.txt" }).pipe(
        withFileSystem((original) => ({
          ...original,
          stat: (p) => p === path ? Effect.fail(eacces("stat", p)) : original.stat(p)
        })),
        Effect.flip,
        Effect.provide(nodeLayer(root))
      )
      expect(error).toMatchObject({ _tag: "ReadFailed", path, code: "EACCES" })
      expect(error.message).toContain(path)
    }))

  it.effect("EACCES listing a directory → ReadFailed naming the directory", () =>
    Effect.gen(function*() {
      const root = project({ "d/a.txt": "" })
      const error = yield* read({ filePath: "d" }).pipe(
        withFileSystem((original) => ({
          ...original,
          readDirectory: (p) => Effect.fail(eacces("readdir", p))
        })),
        Effect.flip,
        Effect.provide(nodeLayer(root))
      )
      expect(error).toMatchObject({ _tag: "ReadFailed", path: `${root}/d`, code: "EACCES" })
    }))
})

// -----------------------------------------------------------------------------
// Result shape, workspace, services
// -----------------------------------------------------------------------------

describe("read: result and services", () => {
  it.effect("metadata: preview is the first 20 lines, plus range, totals, size and mtime", () =>
    Effect.gen(function*() {
      const lines = Array.from({ length: 30 }, (_, i) => `const v${i} = ${i}`)
      const content = lines.join("\n") + "\n"
      const root = project({ "src/vars.ts": content })
      const result = yield* readIn(root, { filePath: "src/vars.ts", offset: 2, limit: 25 })
      const stat = fs.statSync(`${root}/src/vars.ts`)
      expect(result.title).toBe("src/vars.ts")
      expect(result.metadata).toEqual({
        kind: "text",
        path: `${root}/src/vars.ts`,
        preview: lines.slice(1, 21).join("\n"),
        truncated: true,
        startLine: 2,
        endLine: 26,
        totalLines: 30,
        nextOffset: 27,
        next: { filePath: "src/vars.ts", offset: 27, limit: 25 },
        encoding: "utf-8",
        bom: false,
        lineEnding: "lf",
        finalNewline: true,
        size: Buffer.byteLength(content),
        mtime: stat.mtime.getTime()
      })
    }))

  it.effect("relative paths resolve against Workspace.directory; titles stay worktree-relative", () =>
    Effect.gen(function*() {
      const root = project({ "pkg/src/main.ts": "main\n", "README.md": "readme\n" })
      const options = { directory: `${root}/pkg/src`, worktree: root }
      const main = yield* readIn(root, { filePath: "main.ts" }, options)
      expect(main.title).toBe("pkg/src/main.ts")
      expect(main.output).toBe(filePage(`${root}/pkg/src/main.ts`, ["1: main"], eof(1)))
      const up = yield* readIn(root, { filePath: "../../README.md" }, options)
      expect(up.title).toBe("README.md")
      const abs = yield* readIn(root, { filePath: `${root}/README.md` }, options)
      expect(abs.title).toBe("README.md")
      const dot = yield* readIn(root, { filePath: "." }, options)
      expect(dot.title).toBe("pkg/src")
    }))

  it.effect("a successful read is recorded in FileTime for the session", () =>
    Effect.gen(function*() {
      const root = project({ "a.txt": "hello\n" })
      const path = `${root}/a.txt`
      yield* Effect.gen(function*() {
        const fileTime = yield* FileTime.FileTime
        expect(Option.isNone(yield* fileTime.get("s-1", path))).toBe(true)
        yield* read({ filePath: "a.txt" })
        const stamp = yield* fileTime.get("s-1", path)
        expect(Option.isSome(stamp)).toBe(true)
        expect(Option.getOrThrow(stamp)).toMatchObject({ path, size: 6 })
        expect(Option.isNone(yield* fileTime.get("other-session", path))).toBe(true)
        yield* fileTime.assert("s-1", path)
      }).pipe(Effect.provide(nodeLayer(root, { sessionId: "s-1" })))
    }))

  it.effect("a failed read records nothing in FileTime", () =>
    Effect.gen(function*() {
      const root = project({ "f.txt": "a\n" })
      yield* Effect.gen(function*() {
        const fileTime = yield* FileTime.FileTime
        yield* Effect.flip(read({ filePath: "f.txt", offset: 9 }))
        expect(Option.isNone(yield* fileTime.get("test", `${root}/f.txt`))).toBe(true)
      }).pipe(Effect.provide(nodeLayer(root)))
    }))

  it.effect("the read touches the file in the Lsp", () =>
    Effect.gen(function*() {
      const root = project({ "src/a.ts": "export {}\n" })
      yield* Effect.gen(function*() {
        const recorder = yield* Lsp.Recorder
        yield* read({ filePath: "src/a.ts" })
        let touched = yield* recorder.touched
        for (let i = 0; i < 100 && touched.length === 0; i++) {
          yield* Effect.yieldNow()
          touched = yield* recorder.touched
        }
        expect(touched).toEqual([`${root}/src/a.ts`])
      }).pipe(Effect.provide(nodeLayer(root)))
    }))

  it.effect("a failing, dying or never-completing Lsp touch does not fail or delay the read", () =>
    Effect.gen(function*() {
      const root = project({ "a.ts": "x\n" })
      const touches: ReadonlyArray<Lsp.LspShape["touchFile"]> = [
        () => Effect.never,
        () => Effect.die(new Error("language server crashed")),
        // A typed failure smuggled past the signature, as a buggy layer could.
        () => Effect.fail(new Error("no server")) as unknown as Effect.Effect<void>
      ]
      for (const touchFile of touches) {
        const result = yield* read({ filePath: "a.ts" }).pipe(
          Effect.provideService(Lsp.Lsp, { touchFile }),
          Effect.provide(nodeLayer(root)),
          Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => new Error("read was delayed") }),
          // The test clock never moves on its own; a live clock makes the timeout real.
          Effect.withClock(Effect.runSync(Effect.clock))
        )
        expect(result.output).toBe(filePage(`${root}/a.ts`, ["1: x"], eof(1)))
      }
    }))

  it.effect(
    "a 50 MB file: the first page, a deep page and the byte-capped page report the right lines",
    () =>
      Effect.gen(function*() {
        // 64 lines of 64 bytes per 4 KB block; 12,800 blocks = 50 MiB = 819,200 lines.
        const block = Buffer.from(
          Array.from({ length: 64 }, (_, i) => `${String(i).padStart(2, "0")}:`.padEnd(63, "0123456789") + "\n").join(
            ""
          )
        )
        expect(block.length).toBe(4096)
        const root = project()
        const path = `${root}/huge.log`
        const fd = fs.openSync(path, "w")
        for (let i = 0; i < 12_800; i++) fs.writeSync(fd, block)
        fs.closeSync(fd)
        const lineAt = (n: number) => block.subarray(((n - 1) % 64) * 64, ((n - 1) % 64) * 64 + 63).toString()

        const first = yield* readIn(root, { filePath: "huge.log", limit: 100 })
        expect(first.output).toBe(
          filePage(
            path,
            Array.from({ length: 100 }, (_, i) => `${i + 1}: ${lineAt(i + 1)}`),
            // Counting stops 1 MiB past the page: the total is not known yet, and the footer says so.
            "(Showing lines 1-100 of at least 16484 in a 50.0 MiB file. Use offset=101 to continue.)"
          )
        )
        expect(first.metadata).toMatchObject({ totalLinesAtLeast: 16_484, size: 50 * 1024 * 1024 })
        expect(fieldsOf(first).totalLines).toBeUndefined()

        const deep = yield* readIn(root, { filePath: "huge.log", offset: 819_150 })
        expect(deep.output).toBe(
          filePage(path, Array.from({ length: 51 }, (_, i) => `${819_150 + i}: ${lineAt(819_150 + i)}`), eof(819_200))
        )
        // That scan reached the end: the line index now knows the total for every later page.
        const again = yield* readIn(root, { filePath: "huge.log", limit: 100 })
        expect(again.output).toContain("(Showing lines 1-100 of 819200. Use offset=101 to continue.)")

        // Default limit: the byte cap stops the page, so the rest of the file is never read.
        const counter = countingReads()
        const capped = yield* read({ filePath: "huge.log" }).pipe(
          counter.wrap,
          Effect.provide(nodeLayer(root))
        )
        const last = fieldsOf(capped).endLine!
        expect(capped.output.endsWith(
          `(Output capped at 50 KB. Showing lines 1-${last}. Use offset=${last + 1} to continue.)\n</content>`
        )).toBe(true)
        expect(shownLines(capped.output)).toEqual(Array.from({ length: last }, (_, i) => [i + 1, lineAt(i + 1)]))
        expect(counter.stats.bytes).toBeLessThan(1024 * 1024)
      }),
    120_000
  )
})

describe("reads of a small file", () => {
  it.effect("its last 4 KB, then the file once, then its last 4 KB again to confirm it did not change", () =>
    Effect.gen(function*() {
      const sizes = [1, 100, 4096, 4097, 20_000, 64 * 1024]
      const root = project(
        Object.fromEntries(sizes.map((size) => [`f${size}.txt`, "ab\n".repeat(size).slice(0, size)]))
      )
      for (const size of sizes) {
        const counter = countingReads()
        const result = yield* read({ filePath: `f${size}.txt` }).pipe(counter.wrap, Effect.provide(nodeLayer(root)))
        expect(result.output).toContain("1: a")
        const last = Math.min(4096, size)
        // The last bytes first: a rewrite while the file is read changes them under it.
        expect([size, counter.stats.ranges]).toEqual([size, [[size - last, size], [0, size], [size - last, size]]])
      }
      // Over 64 KB it is read in pages: its last 4 KB are read at open and again at the end.
      const big = 64 * 1024 + 1
      const bigRoot = project({ "big.txt": "ab\n".repeat(big).slice(0, big) })
      const counter = countingReads()
      yield* read({ filePath: "big.txt" }).pipe(counter.wrap, Effect.provide(nodeLayer(bigRoot)))
      expect(counter.stats.ranges.filter(([from, to]) => from === big - 4096 && to === big)).toHaveLength(2)
    }))
})
