/**
 * The standard envelope: every envelope produced here is checked against the exported
 * JSON Schema with a real validator (ajv) and decoded with the `Envelope` schema.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Ajv } from "ajv"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Cli from "../src/Cli.js"
import * as Envelope from "../src/Envelope.js"
import * as Permission from "../src/Permission.js"
import * as Read from "../src/Read.js"
import * as ReadError from "../src/ReadError.js"
import { nodeLayer, runProcess, tempDir, writeTree } from "./support/index.js"
import { PNG } from "./support/media.js"
import { unprivilegedCli } from "./support/unprivileged.js"

const validate = new Ajv({ allErrors: true, strict: true }).compile(Envelope.jsonSchema)

/** Valid against the JSON Schema and the Effect schema, or the test fails with ajv's reasons. */
const checked = (envelope: unknown): Envelope.Envelope => {
  const valid = validate(envelope)
  expect(validate.errors ?? []).toEqual([])
  expect(valid).toBe(true)
  return Schema.decodeUnknownSync(Envelope.Envelope)(envelope)
}

/** The `error` of an error envelope. */
const errorOf = (envelope: Envelope.Envelope) => envelope.status === "error" ? envelope.error : undefined

const lines = (n: number, from = 1) => Array.from({ length: n }, (_, i) => `line ${from + i}`)

const root = tempDir()
writeTree(root, {
  "src/app.ts": "import x from \"y\"\nexport const a = 1\n",
  "src/util.ts": "export const u = 2\n",
  "notes.md": lines(12).join("\n") + "\n",
  "long.txt": lines(10_001).join("\n"),
  "unicode.txt": "héllo 😀\n",
  "empty.txt": "",
  "empty-dir/.keep": "",
  "config.json": "{}\n",
  "wide.txt": `${"x".repeat(99)}\n`.repeat(1000),
  "one-long-line.txt": "y".repeat(2500),
  "blob.bin": Buffer.from([0x00, 0x01, 0x02, 0x00, 0xff]),
  "pixel.png": PNG,
  "fake.png": "not an image\n",
  "huge.png": PNG.subarray(0, 33)
})
fs.rmSync(path.join(root, "empty-dir/.keep"))
fs.truncateSync(path.join(root, "huge.png"), 21 * 1024 * 1024)
execFileSync("mkfifo", [path.join(root, "pipe")])
const outside = tempDir("effect-read-outside-")
writeTree(outside, { "secret.txt": "outside\n" })
afterAll(() => {
  fs.rmSync(root, { recursive: true, force: true })
  fs.rmSync(outside, { recursive: true, force: true })
})

/** `readEnvelope` over the project; `it.effect`'s TestClock makes `time_ms` 0. */
const envelopeOf = (params: unknown, options: Envelope.ReadOptions = {}, layerOptions = {}) =>
  Envelope.readEnvelope(params, options).pipe(Effect.provide(nodeLayer(root, layerOptions)), Effect.map(checked))

describe("Envelope", () => {
  it.effect("a whole file: success, %4d numbering with a newline after every line, stats and context", () =>
    Effect.gen(function*() {
      const envelope = yield* envelopeOf({ filePath: "src/app.ts" })
      const mtime = fs.statSync(path.join(root, "src/app.ts")).mtime.getTime()
      expect(envelope).toEqual({
        status: "success",
        data: { content: "   1 | import x from \"y\"\n   2 | export const a = 1\n", truncated: false },
        text: "Read 2 lines from 'src/app.ts' (Lines 1-2).\n(Took 0ms)",
        stats: {
          time_ms: 0,
          lines_read: 2,
          chars_read: 35,
          total_lines: 2,
          file_size_bytes: 37,
          file_mtime_ms: mtime,
          encoding: "utf-8"
        },
        context: { cwd: ".", params_input: { filePath: "src/app.ts" }, path_resolved: "src/app.ts" }
      })
    }))

  it.effect("a page: partial, numbering from the offset, the continuation hint", () =>
    Effect.gen(function*() {
      const first = yield* envelopeOf({ filePath: "notes.md", limit: 5 })
      expect(first.status).toBe("partial")
      expect(first.data).toEqual({
        content: "   1 | line 1\n   2 | line 2\n   3 | line 3\n   4 | line 4\n   5 | line 5\n",
        truncated: true
      })
      expect(first.text).toBe(
        "Read 5 lines from 'notes.md' (Lines 1-5).\n(Took 0ms)\n[Truncated: Showing first 5 of 12 lines. Use offset=6 to continue.]"
      )
      expect(first.stats).toMatchObject({ lines_read: 5, total_lines: 12 })

      const middle = yield* envelopeOf({ filePath: "notes.md", offset: 8, limit: 2 })
      expect(middle.data.content).toBe("   8 | line 8\n   9 | line 9\n")
      expect(middle.text).toBe(
        "Read 2 lines from 'notes.md' (Lines 8-9).\n(Took 0ms)\n[Truncated: Showing lines 8-9 of 12. Use offset=10 to continue.]"
      )
      expect(middle.context.params_input).toEqual({ filePath: "notes.md", offset: 8, limit: 2 })

      const last = yield* envelopeOf({ filePath: "notes.md", offset: 11 })
      expect(last.status).toBe("success")
      expect(last.data).toEqual({ content: "  11 | line 11\n  12 | line 12\n", truncated: false })
      expect(last.text).toBe("Read 2 lines from 'notes.md' (Lines 11-12).\n(Took 0ms)")
    }))

  it.effect("numbers wider than four digits are not cut", () =>
    Effect.gen(function*() {
      const envelope = yield* envelopeOf({ filePath: "long.txt", offset: 9999, limit: 3 })
      expect(envelope.data.content).toBe("9999 | line 9999\n10000 | line 10000\n10001 | line 10001\n")
      expect(envelope.stats).toMatchObject({ lines_read: 3, total_lines: 10_001 })
    }))

  it.effect("cwd and path_resolved are relative to the project root", () =>
    Effect.gen(function*() {
      const envelope = yield* envelopeOf({ filePath: "app.ts" }, {}, { directory: path.join(root, "src") })
      expect(envelope.context).toEqual({
        cwd: "src",
        params_input: { filePath: "app.ts" },
        path_resolved: "src/app.ts"
      })
      const missing = yield* envelopeOf({ filePath: "nope.ts" }, {}, { directory: path.join(root, "src") })
      expect(missing.context).toEqual({
        cwd: "src",
        params_input: { filePath: "nope.ts" },
        path_resolved: "src/nope.ts"
      })
    }))

  it.effect("the 50 KB cap and cut lines make a partial envelope that says how to go on", () =>
    Effect.gen(function*() {
      const capped = yield* envelopeOf({ filePath: "wide.txt" })
      expect(capped.status).toBe("partial")
      expect(capped.data.truncated).toBe(true)
      const shown = capped.stats.lines_read
      expect(shown).toBeGreaterThan(0)
      expect(shown).toBeLessThan(1000)
      expect(capped.data.content.split("\n")).toHaveLength(shown + 1)
      expect(capped.data.content.endsWith(`${String(shown).padStart(4)} | ${"x".repeat(99)}\n`)).toBe(true)
      expect(capped.text).toMatch(
        new RegExp(
          `\\[Truncated: Showing (first ${shown} of \\S+( \\S+)* lines|lines 1-${shown}[^\\]]*)\\. Use offset=${
            shown + 1
          } to continue\\.\\]$`
        )
      )

      const cut = yield* envelopeOf({ filePath: "one-long-line.txt" })
      expect(cut.status).toBe("partial")
      expect(cut.data.content.startsWith(`   1 | ${"y".repeat(2000)}`)).toBe(true)
      expect(cut.text).toContain("1 line was cut at 2000 characters.")
      // The notice after the cut is shown, not counted as read.
      expect(cut.data.content).toContain("... (line truncated to 2000 chars")
      expect(cut.stats.chars_read).toBe(2000)
    }))

  it.effect("chars_read counts code points of the shown text", () =>
    Effect.gen(function*() {
      const envelope = yield* envelopeOf({ filePath: "unicode.txt" })
      expect(envelope.data.content).toBe("   1 | héllo 😀\n")
      expect(envelope.stats.chars_read).toBe(7)
    }))

  it.effect("an empty file: success, no content, the envelope's summary", () =>
    Effect.gen(function*() {
      const envelope = yield* envelopeOf({ filePath: "empty.txt" })
      expect(envelope).toMatchObject({
        status: "success",
        data: { content: "", truncated: false },
        text: "Read 0 lines from 'empty.txt' (file is empty).",
        stats: { lines_read: 0, chars_read: 0, total_lines: 0, file_size_bytes: 0 }
      })
    }))

  it.effect("a directory: entries numbered like lines; IS_DIRECTORY only with filesOnly", () =>
    Effect.gen(function*() {
      const listing = yield* envelopeOf({ filePath: "src" })
      expect(listing).toMatchObject({
        status: "success",
        data: { content: "   1 | app.ts\n   2 | util.ts\n", truncated: false },
        text: "Listed 2 entries of 'src' (Entries 1-2).\n(Took 0ms)",
        stats: { lines_read: 2, total_lines: 2 },
        context: { path_resolved: "src" }
      })
      expect(listing.stats.encoding).toBeUndefined()

      const page = yield* envelopeOf({ filePath: ".", limit: 2 })
      expect(page.status).toBe("partial")
      expect(page.context.path_resolved).toBe(".")
      expect(page.text).toMatch(/\[Truncated: Showing first 2 of \d+ entries\. Use offset=3 to continue\.\]$/)

      const empty = yield* envelopeOf({ filePath: "empty-dir" })
      expect(empty.text).toBe("Listed 0 entries of 'empty-dir' (directory is empty).")

      const filesOnly = yield* envelopeOf({ filePath: "src" }, { filesOnly: true })
      expect(filesOnly).toMatchObject({
        status: "error",
        data: { content: "", truncated: false },
        error: { code: "IS_DIRECTORY", message: "Path 'src' is a directory. Read a file inside it instead." },
        context: { path_resolved: "src" }
      })
      // A file is unaffected by filesOnly.
      expect((yield* envelopeOf({ filePath: "config.json" }, { filesOnly: true })).status).toBe("success")
    }))

  it.effect("an image: its attachment in data, no lines", () =>
    Effect.gen(function*() {
      const envelope = yield* envelopeOf({ filePath: "pixel.png" })
      expect(envelope).toMatchObject({
        status: "success",
        data: {
          content: "",
          truncated: false,
          attachments: [{ type: "file", mime: "image/png", url: `data:image/png;base64,${PNG.toString("base64")}` }]
        },
        text: `Read image 'pixel.png' (image/png, ${PNG.length} bytes); it is in data.attachments.\n(Took 0ms)`,
        stats: { lines_read: 0, chars_read: 0, file_size_bytes: PNG.length }
      })
    }))

  describe("error codes", () => {
    const failing: ReadonlyArray<
      readonly [string, unknown, Envelope.ErrorCode, string | undefined, Parameters<typeof nodeLayer>[1]?]
    > = [
      ["a missing file", { filePath: "config.jsn" }, "NOT_FOUND", "config.jsn"],
      ["a permission rule", { filePath: "config.json" }, "ACCESS_DENIED", "config.json", {
        permission: Permission.layerDenyAll
      }],
      [
        "a path outside the project",
        { filePath: path.join(outside, "secret.txt") },
        "ACCESS_DENIED",
        path.join(
          outside,
          "secret.txt"
        ),
        { permission: Cli.permissionLayer({ allowExternal: false, interactive: false }) }
      ],
      ["a binary file", { filePath: "blob.bin" }, "BINARY_FILE", "blob.bin"],
      ["offset 1.5", { filePath: "notes.md", offset: 1.5 }, "INVALID_PARAM", "notes.md"],
      ["a missing filePath", { limit: 3 }, "INVALID_PARAM", undefined],
      ["an offset past the end", { filePath: "notes.md", offset: 13 }, "INVALID_PARAM", "notes.md"],
      ["a FIFO", { filePath: "pipe" }, "NOT_A_FILE", "pipe"],
      ["an image over 20 MB", { filePath: "huge.png" }, "FILE_TOO_LARGE", "huge.png"],
      ["a .png holding text", { filePath: "fake.png" }, "INVALID_MEDIA", "fake.png"]
    ]
    it.effect.each(failing)("%s", ([, params, code, pathResolved, layerOptions]) =>
      Effect.gen(function*() {
        const envelope = yield* envelopeOf(params, {}, layerOptions)
        // The same read, for the message the envelope must carry.
        const error = yield* Effect.flip(Read.readUnknown(params).pipe(Effect.provide(nodeLayer(root, layerOptions))))
        expect(envelope.status).toBe("error")
        expect(envelope).toMatchObject({
          data: { content: "", truncated: false },
          text: error.message,
          stats: { time_ms: 0, lines_read: 0, chars_read: 0 },
          context: { cwd: ".", params_input: params },
          error: { code, message: error.message }
        })
        expect(envelope.context.path_resolved).toBe(pathResolved)
      }))

    it.effect("an offset past the end reports the file's total lines", () =>
      Effect.gen(function*() {
        const envelope = yield* envelopeOf({ filePath: "notes.md", offset: 13 })
        expect(envelope.stats.total_lines).toBe(12)
        expect(envelope.text).toBe(`Offset 13 is out of range for this file (12 lines)`)
      }))

    it("ReadFailed is ACCESS_DENIED for EACCES and EPERM, READ_FAILED otherwise", () => {
      const failed = (code: string) => new ReadError.ReadFailed({ path: "/p/a", reason: `refused (${code})`, code })
      const rendered = (error: ReadError.ReadError) =>
        checked(Envelope.fromError(error, { params: { filePath: "a" }, pathResolved: "a", timeMs: 3.6 }))
      expect(errorOf(rendered(failed("EACCES")))).toEqual({
        code: "ACCESS_DENIED",
        message: "Cannot read /p/a: refused (EACCES)"
      })
      expect(errorOf(rendered(failed("EPERM")))?.code).toBe("ACCESS_DENIED")
      const eio = rendered(failed("EIO"))
      expect(eio).toEqual({
        status: "error",
        data: { content: "", truncated: false },
        text: "Cannot read /p/a: refused (EIO)",
        stats: { time_ms: 4, lines_read: 0, chars_read: 0 },
        context: { cwd: ".", params_input: { filePath: "a" }, path_resolved: "a" },
        error: { code: "READ_FAILED", message: "Cannot read /p/a: refused (EIO)" }
      })
    })

    it("every ReadError has a code chosen for it", () => {
      // A new ReadError must be added here (and to the table in Envelope.ts and the README).
      const expected: Readonly<Record<string, Envelope.ErrorCode>> = {
        FileNotFound: "NOT_FOUND",
        PermissionDenied: "ACCESS_DENIED",
        BinaryFile: "BINARY_FILE",
        InvalidParams: "INVALID_PARAM",
        OffsetOutOfRange: "INVALID_PARAM",
        ColumnOutOfRange: "INVALID_PARAM",
        InvalidSelector: "INVALID_PARAM",
        NotAFile: "NOT_A_FILE",
        MediaTooLarge: "FILE_TOO_LARGE",
        InvalidMedia: "INVALID_MEDIA",
        ArchiveError: "READ_FAILED",
        DatabaseError: "READ_FAILED",
        ConversionFailed: "READ_FAILED",
        FileChanged: "READ_FAILED",
        ReadFailed: "READ_FAILED",
        FetchFailed: "READ_FAILED",
        MissingPackage: "READ_FAILED"
      }
      for (const member of ReadError.ReadError.members) {
        const tag = (member as unknown as { readonly _tag: string })._tag
        expect(Object.keys(expected)).toContain(tag)
        expect([tag, Envelope.errorCode({ _tag: tag } as ReadError.ReadError)]).toEqual([tag, expected[tag]])
      }
    })
  })

  describe("decoding fallback", () => {
    const result = (metadata: Record<string, unknown>): Read.ReadResult => ({
      title: "legacy.txt",
      output:
        "<path>/p/legacy.txt</path>\n<type>file</type>\n<content>\n1: caf\uFFFD\n\n(End of file - total 1 lines)\n</content>",
      metadata: {
        kind: "text",
        path: "/p/legacy.txt",
        preview: "caf\uFFFD",
        truncated: false,
        startLine: 1,
        endLine: 1,
        totalLines: 1,
        size: 4,
        ...metadata
      } as Read.ReadMetadata
    })

    it("bytes shown as U+FFFD make the envelope partial with fallback_encoding \"replace\"", () => {
      const envelope = checked(
        Envelope.fromResult(result({ encoding: "utf-8", invalidBytesReplaced: true }), {
          params: { filePath: "legacy.txt" }
        })
      )
      expect(envelope.status).toBe("partial")
      expect(envelope.data).toEqual({ content: "   1 | caf\uFFFD\n", truncated: false, fallback_encoding: "replace" })
      expect(envelope.stats.encoding).toBe("utf-8")
      expect(envelope.text).toBe(
        "Read 1 line from 'legacy.txt' (Lines 1-1).\n(Took 0ms)\n[Decoded with fallback 'replace': bytes that are not valid text were replaced.]"
      )
    })

    it("the detected encoding is reported; no fallback means no fallback_encoding", () => {
      const envelope = checked(Envelope.fromResult(result({ encoding: "shift_jis" }), { params: {} }))
      expect(envelope.status).toBe("success")
      expect(envelope.data).not.toHaveProperty("fallback_encoding")
      expect(envelope.stats.encoding).toBe("shift_jis")
    })
  })

  it("render picks fromResult or fromError", () => {
    const error = new ReadError.BinaryFile({ path: "/p/x.bin" })
    const rendered = checked(Envelope.render(Either.left(error), { params: { filePath: "x.bin" } }))
    expect(errorOf(rendered)).toEqual({ code: "BINARY_FILE", message: error.message })
  })

  it("the JSON Schema is self-contained and rejects what the seed forbids", () => {
    const text = JSON.stringify(Envelope.jsonSchema)
    expect(text).not.toContain("$ref")
    expect(text).not.toContain("$defs")
    const ok = {
      status: "success",
      data: { content: "", truncated: false },
      text: "Read 0 lines from 'a' (file is empty).",
      stats: { time_ms: 0, lines_read: 0, chars_read: 0, file_size_bytes: 0 },
      context: { cwd: ".", params_input: { filePath: "a" } }
    }
    expect(validate(ok)).toBe(true)
    // Only the five top-level fields, and `error` only with status "error".
    expect(validate({ ...ok, extra: 1 })).toBe(false)
    expect(validate({ ...ok, error: { code: "NOT_FOUND", message: "x" } })).toBe(false)
    expect(validate({ ...ok, status: "error" })).toBe(false)
    expect(validate({ ...ok, status: "error", error: { code: "NOPE", message: "x" } })).toBe(false)
    expect(validate({ ...ok, stats: { ...ok.stats, time_ms: 1.5 } })).toBe(false)
    const { cwd: _, ...noCwd } = ok.context
    expect(validate({ ...ok, context: noCwd })).toBe(false)
  })
})

describe("CLI --format envelope", () => {
  const bin = path.resolve("dist/bin.js")
  const run = (args: ReadonlyArray<string>) => runProcess(process.execPath, [bin, ...args])

  it("prints one envelope and exits 0 on success", async () => {
    const { code, stderr, stdout } = await run(["--cwd", root, "--format", "envelope", "--limit", "2", "notes.md"])
    expect(code).toBe(0)
    expect(stderr).toBe("")
    expect(stdout.endsWith("}\n")).toBe(true)
    const envelope = checked(JSON.parse(stdout))
    expect(envelope.status).toBe("partial")
    expect(envelope.data.content).toBe("   1 | line 1\n   2 | line 2\n")
    expect(envelope.context).toEqual({
      cwd: ".",
      params_input: { filePath: "notes.md", limit: 2 },
      path_resolved: "notes.md"
    })
  })

  it("keeps the exit codes: 1 for a tool failure, 2 for invalid parameters, the envelope on stdout", async () => {
    const missing = await run(["--cwd", root, "--format", "envelope", "config.jsn"])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toBe("")
    expect(errorOf(checked(JSON.parse(missing.stdout)))?.code).toBe("NOT_FOUND")
    const invalid = await run(["--cwd", root, "--format", "envelope", "--limit", "0", "notes.md"])
    expect(invalid.code).toBe(2)
    expect(errorOf(checked(JSON.parse(invalid.stdout)))?.code).toBe("INVALID_PARAM")
    const outOfRange = await run(["--cwd", root, "--format", "envelope", "--offset", "99", "notes.md"])
    expect(outOfRange.code).toBe(1)
    expect(errorOf(checked(JSON.parse(outOfRange.stdout)))?.code).toBe("INVALID_PARAM")
  })

  it("--files-only makes a directory IS_DIRECTORY (exit 1)", async () => {
    const { code, stdout } = await run(["--cwd", root, "--format", "envelope", "--files-only", "src"])
    expect(code).toBe(1)
    expect(errorOf(checked(JSON.parse(stdout)))?.code).toBe("IS_DIRECTORY")
  })

  it("EACCES from the operating system is ACCESS_DENIED", async () => {
    const dir = tempDir()
    fs.chmodSync(dir, 0o755)
    const locked = path.join(dir, "locked.txt")
    fs.writeFileSync(locked, "private\n")
    fs.chmodSync(locked, 0o000)
    // root reads anything, so as root the CLI runs as nobody, from a place nobody can enter.
    const cli = unprivilegedCli()
    const { code, stdout } = await runProcess(process.execPath, [
      cli.bin,
      "--cwd",
      dir,
      "--format",
      "envelope",
      "locked.txt"
    ], cli.asUser)
    expect(code).toBe(1)
    const envelope = checked(JSON.parse(stdout))
    expect(errorOf(envelope)).toEqual({
      code: "ACCESS_DENIED",
      message: `Cannot read ${locked}: permission denied by the operating system (EACCES)`
    })
    fs.rmSync(dir, { recursive: true, force: true })
  })
})
