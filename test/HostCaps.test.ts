/**
 * Caps the host sets (`Limits.PageLimits`): every source and view pages by the values in force,
 * and every footer, notice and description states them, never the defaults. Set through
 * `Limits.layer`, through the CLI's flags (`--max-lines`, …) and through `effect-read mcp`'s flags
 * with the official MCP client. A setting no read could honour is a typed error at start-up.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Http from "node:http"
import { createRequire } from "node:module"
import type { AddressInfo } from "node:net"
import * as nodePath from "node:path"
import * as Limits from "../src/Limits.js"
import * as McpServer from "../src/McpServer.js"
import * as Permission from "../src/Permission.js"
import * as Read from "../src/Read.js"
import * as ReadMany from "../src/ReadMany.js"
import * as ReadTool from "../src/ReadTool.js"
import { fieldsOf, nodeLayer, projectDirs, runProcess } from "./support/index.js"
import { PNG } from "./support/media.js"
import { zip } from "./support/zipFixtures.js"

const project = projectDirs()
const bin = nodePath.resolve("dist/bin.js")

/** Caps far from the defaults, so a default that leaks through shows. */
const caps = { lines: 3, lineLength: 20, bytes: 2048, mediaBytes: 10_000_000, directoryEntries: 2 }
const small = Limits.layer({ page: caps })

const readWith = (root: string, params: Read.ReadParams, limits = small, layer = nodeLayer(root)) =>
  Read.read(params).pipe(Effect.provide(Layer.merge(layer, limits)))

const numbered = (count: number, width = 10) =>
  Array.from({ length: count }, (_, i) => `line ${String(i + 1).padEnd(width, "x")}`).join("\n") + "\n"

const shownLines = (output: string) => output.split("\n").filter((line) => /^\d+: /.test(line)).length

describe("Limits.layer checks what it is given", () => {
  it("a nonsensical cap is InvalidLimits naming the setting and what it must be", () => {
    expect(Limits.check({ page: { lines: 500 }, web: { timeout: "10 seconds" }, lockTimeout: "5 seconds" }))
      .toBeUndefined()
    const cases: ReadonlyArray<readonly [Limits.Settings, string]> = [
      [{ page: { lines: 0 } }, "page.lines"],
      [{ page: { lines: 2.5 } }, "page.lines"],
      [{ page: { lineLength: 4 } }, "page.lineLength"],
      [{ page: { bytes: 100 } }, "page.bytes"],
      [{ page: { mediaBytes: -1 } }, "page.mediaBytes"],
      [{ page: { directoryEntries: Number.NaN } }, "page.directoryEntries"],
      [{ image: { maxDimension: 0 } }, "image.maxDimension"],
      [{ web: { timeout: "soon" as never } }, "web.timeout"],
      [{ readMany: { concurrency: 0 } }, "readMany.concurrency"],
      [{ pdfPageImages: { maxPages: 0 } }, "pdfPageImages.maxPages"],
      [{ hostMedia: { pdf: "fax" as never } }, "hostMedia.pdf"],
      [{ description: { form: "tiny" as never } }, "description.form"],
      [{ page: { line: 5 } as never }, "page.line"],
      [{ pages: { lines: 5 } } as never, "pages"],
      [{ lockTimeout: "never" as never }, "lockTimeout"]
    ]
    for (const [settings, setting] of cases) {
      const invalid = Limits.check(settings)
      expect(invalid?._tag, setting).toBe("InvalidLimits")
      expect(invalid?.setting).toBe(setting)
      expect(invalid?.message).toContain(`Invalid limit ${setting}:`)
    }
    expect(Limits.check({ page: { bytes: 100 } })?.message).toBe(
      "Invalid limit page.bytes: 100 (a whole number of at least 1,024)"
    )
  })

  it.effect("the layer fails when it is built, before any read; nothing is clamped", () =>
    Effect.gen(function*() {
      const failed = yield* Effect.flip(Limits.current.pipe(Effect.provide(Limits.layer({ page: { lines: 0 } }))))
      expect(failed).toBeInstanceOf(Limits.InvalidLimits)
      expect(failed.setting).toBe("page.lines")
      const kept = yield* Limits.current.pipe(
        Effect.provide(Limits.layer({ page: { lines: 1, lineLength: 16, bytes: 1024 } }))
      )
      expect(kept.page).toMatchObject({ lines: 1, lineLength: 16, bytes: 1024 })
    }))

  it.effect("PdfPageImages, DiagnosticsOnRead and ModelInput are set through Limits too (old names kept)", () =>
    Effect.gen(function*() {
      const current = yield* Limits.current.pipe(
        Effect.provide(Limits.layer({
          pdfPageImages: { maxPages: 2 },
          diagnostics: { severity: "errors" },
          modelInput: { images: false }
        }))
      )
      expect(current.pdfPageImages).toEqual({ maxPages: 2 })
      expect(current.diagnostics).toMatchObject({ severity: "errors", maxCount: 20 })
      expect(current.modelInput).toEqual({ images: false, pdfs: true })
      expect(Read.PdfPageImages).toBe(Limits.PdfPageImages)
      expect(Read.DiagnosticsOnRead).toBe(Limits.DiagnosticsOnRead)
    }))
})

describe("every source pages by the caps in force", () => {
  it.effect("text: lines, line length and the byte cap, small files and the streamed path, any encoding", () =>
    Effect.gen(function*() {
      const long = `${"a".repeat(50)}\n`
      const root = project({
        "small.txt": long + numbered(9),
        "utf16.txt": Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(long + numbered(9), "utf16le")]),
        "latin1.txt": Buffer.from(`caf\xe9 ${"b".repeat(40)}\n${numbered(9)}`, "latin1"),
        "big.log": numbered(20_000, 30)
      })
      for (const file of ["small.txt", "utf16.txt", "latin1.txt"]) {
        const page = yield* readWith(root, { filePath: file })
        expect(shownLines(page.output), file).toBe(3)
        expect(page.output, file).toContain(
          "... (line truncated to 20 chars; use offset=1 column=21 to read more of it)"
        )
        expect(page.output, file).toContain("(Showing lines 1-3 of 10. Use offset=4 to continue.)")
      }
      const big = yield* readWith(root, { filePath: "big.log", offset: 10_000 })
      expect(shownLines(big.output)).toBe(3)
      expect(big.output).toContain("10000: line 10000xxxxxxxxxx... (line truncated to 20 chars")
      expect(big.output).toMatch(/\(Showing lines 10000-10002 of (at least )?\d+/)
      const capped = yield* readWith(root, { filePath: "big.log", offset: 100, limit: 1000 })
      expect(capped.output).toMatch(/\(Output capped at 2 KB\. Showing lines 100-\d+\. Use offset=\d+ to continue\.\)/)
      expect(Buffer.byteLength(capped.output)).toBeLessThanOrEqual(2048)
      // A limit asked for is honoured up to the byte cap: the line cap is only the default.
      const asked = yield* readWith(root, { filePath: "small.txt", offset: 2, limit: 5 })
      expect(shownLines(asked.output)).toBe(5)
    }))

  it.effect("tails, search, ranges and the views state the cap in force", () =>
    Effect.gen(function*() {
      const source = Array.from({ length: 60 }, (_, i) => `export function f${i}(x: number) {\n  return x + ${i}\n}\n`)
        .join("")
      const root = project({ "big.log": numbered(5000, 60), "mod.ts": source })
      const tail = yield* readWith(root, { filePath: "big.log", offset: -200 })
      expect(tail.output).toMatch(/\(Output capped at 2 KB\. Showing the last \d+ of the 200 lines asked/)
      expect(Buffer.byteLength(tail.output)).toBeLessThanOrEqual(2048)
      const search = yield* readWith(root, { filePath: "big.log", search: "line", context: 0 })
      expect(search.output).toContain("... (line truncated to 20 chars")
      expect(search.output).toMatch(/\(Output capped at 2 KB\. Showing matches 1-\d+ of 5,000/)
      const ranges = yield* readWith(root, { filePath: "big.log:1-400,900-950" })
      expect(ranges.output).toMatch(/\(Output capped at 2 KB\. Showing lines 1-\d+\. Use offset=\d+ to continue\.\)/)
      const outline = yield* readWith(root, { filePath: "mod.ts", view: "outline" })
      expect(outline.output).toContain("(Showing declarations 1-3 of 60. Use offset=4 to continue.)")
      const summary = yield* readWith(root, { filePath: "mod.ts", view: "summary" })
      // 60 folded functions do not fit a page of 3 rows: the summary becomes the outline.
      expect(summary.output).toContain("is longer than a page, so this is the outline")
      const block = yield* readWith(root, { filePath: "mod.ts:2:block" })
      expect(block.output).toContain("1: export function f0(")
    }))

  it.effect("directories, trees and archives list a page of the entries in force", () =>
    Effect.gen(function*() {
      const root = project({
        "dir/a.txt": "a",
        "dir/b.txt": "b",
        "dir/c.txt": "c",
        "dir/d.txt": "d",
        "many/keep.txt": "x",
        ...Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`wide/${"n".repeat(40)}${i}.txt`, "x"])),
        "a.zip": zip(["one.ts", "two.ts", "three.ts", "four.ts"].map((name) => ({ name, data: numbered(9) })))
      })
      const listing = yield* readWith(root, { filePath: "dir" })
      expect(listing.output).toContain("(Showing 2 of 4 entries. Use 'offset' parameter to read beyond entry 3)")
      const wide = yield* readWith(root, { filePath: "wide", limit: 500 })
      expect(wide.output).toMatch(/\(Output capped at 2 KB\. Showing \d+ of 200 entries/)
      const tree = yield* readWith(root, { filePath: ".", view: "tree" })
      expect(tree.output).toMatch(/\(Showing lines 1-2 of \d+\. Use offset=3 to continue\.\)/)
      const archive = yield* readWith(root, { filePath: "a.zip" })
      expect(archive.output).toContain("(Showing 2 of 4 entries. Use 'offset' parameter to read beyond entry 3)")
      const member = yield* readWith(root, { filePath: "a.zip:two.ts" })
      expect(member.output).toContain("(Showing lines 1-3 of 9. Use offset=4 to continue.)")
    }))

  it.effect("a database page stops at the byte cap and says which", () =>
    Effect.gen(function*() {
      const root = project({})
      const Database = createRequire(createRequire(import.meta.url).resolve("@effect/sql-sqlite-node/package.json"))(
        "better-sqlite3"
      ) as new(path: string) => { exec(sql: string): void; close(): void }
      const db = new Database(nodePath.join(root, "app.db"))
      db.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
      db.exec(
        `INSERT INTO notes (body) SELECT printf('%.200c', 'x') FROM (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 60) SELECT i FROM n)`
      )
      db.close()
      const page = yield* readWith(root, { filePath: "app.db:notes?limit=60" })
      expect(page.output).toContain("(output capped at 2 KB)")
      expect(Buffer.byteLength(page.output)).toBeLessThanOrEqual(2048)
    }))

  it.effect("notebooks and documents page their text by the caps", () =>
    Effect.gen(function*() {
      const notebook = JSON.stringify({
        cells: Array.from({ length: 5 }, (_, i) => ({
          cell_type: "code",
          metadata: {},
          source: [`x${i} = ${i}\n`, `print(x${i})`],
          outputs: [],
          execution_count: i + 1
        })),
        metadata: {},
        nbformat: 4,
        nbformat_minor: 5
      })
      const paragraphs = Array.from({ length: 8 }, (_, i) => `<text:p>Paragraph ${i + 1}</text:p>`).join("")
      const odt = zip([
        { name: "mimetype", data: "application/vnd.oasis.opendocument.text", method: 0 },
        {
          name: "content.xml",
          data:
            `<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:text>${paragraphs}</office:text></office:body></office:document-content>`
        }
      ])
      const root = project({ "nb.ipynb": notebook, "notes.odt": odt })
      for (const file of ["nb.ipynb", "notes.odt"]) {
        const page = yield* readWith(root, { filePath: file })
        expect(shownLines(page.output), file).toBe(3)
        expect(page.output, file).toMatch(/\(Showing lines 1-3 of \d+\. Use offset=4 to continue\.\)/)
      }
    }))

  it.effect("an attachment past the media cap is refused with the cap in force", () =>
    Effect.gen(function*() {
      const root = project({ "shot.png": PNG })
      const refused = yield* Effect.flip(
        readWith(root, { filePath: "shot.png" }, Limits.layer({ page: { mediaBytes: PNG.length - 1 } }))
      )
      expect(refused._tag).toBe("MediaTooLarge")
      expect(refused).toMatchObject({ maxSize: PNG.length - 1 })
      const taken = yield* readWith(root, { filePath: "shot.png" }, Limits.layer({ page: { mediaBytes: PNG.length } }))
      expect(taken.attachments?.length).toBe(1)
    }))

  it.effect("read_many reads each file by the caps in force", () =>
    Effect.gen(function*() {
      const root = project({ "a.txt": numbered(9), "b.txt": numbered(9) })
      const many = yield* ReadMany.readMany({ files: [{ filePath: "a.txt" }, { filePath: "b.txt" }] }).pipe(
        Effect.provide(Layer.merge(nodeLayer(root), small))
      )
      expect(many.files.map((file) => fieldsOf(file)?.endLine)).toEqual([3, 3])
      expect(many.output.match(/\(Showing lines 1-3 of 9\. Use offset=4 to continue\.\)/g)?.length).toBe(2)
    }))
})

describe("web pages", () => {
  let server: Http.Server
  let port = 0
  beforeAll(async () => {
    server = Http.createServer((_, res) => {
      res.writeHead(200, { "content-type": "text/plain; charset=utf-8" })
      res.end(numbered(50))
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    port = (server.address() as AddressInfo).port
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  it.live("are paged by the caps in force", () =>
    Effect.gen(function*() {
      const root = project({})
      const rules = Layer.effect(
        Permission.Permission,
        Effect.suspend(() =>
          Permission.make([
            ...Permission.defaultRules,
            { permission: "webfetch", pattern: "*", action: "allow" },
            { permission: "webfetch_private", pattern: `http://127.0.0.1:${port}/*`, action: "allow" }
          ])
        )
      )
      const page = yield* readWith(
        root,
        { filePath: `http://127.0.0.1:${port}/lines` },
        small,
        nodeLayer(root, { permission: rules })
      )
      expect(page.metadata.kind).toBe("web")
      expect(shownLines(page.output)).toBe(3)
      expect(page.output).toContain("(Showing lines 1-3 of 50. Use offset=4 to continue.)")
    }))
})

describe("the description and the schemas state the caps in force", () => {
  it.effect("Read.description and the toolkit's schemas", () =>
    Effect.gen(function*() {
      const text = yield* Read.description.pipe(Effect.provide(small))
      expect(text).toContain("By default up to 3 lines are returned.")
      expect(text).toContain("A page stops at 2 KB of output")
      expect(text).toContain("Lines longer than 20 characters are cut")
      expect(text).toContain("up to 2 a page")
      expect(text).not.toMatch(/2000 (lines|characters|a page)|50 KB/)
      // The image cap is ImageLimits', not the page's: still its default here.
      expect(text).toContain("downscaled to 2000 px")
      const toolkit = yield* ReadTool.toolkitWith("standard").pipe(Effect.provide(small))
      expect(toolkit.tools.read.description).toBe(text)
      // The static toolkit keeps the defaults; the one built with the services states the caps.
      expect(JSON.stringify(ReadTool.jsonSchema)).toContain("(default 2000)")
      const [read, many] = yield* McpServer.toolDefinitionsWith.pipe(Effect.provide(small))
      expect(read.description).toBe(text)
      const properties = (read.inputSchema as { properties: Record<string, { description?: string }> }).properties
      expect(properties.limit?.description).toBe(
        "The maximum number of lines to read (default 3). Only for large files."
      )
      expect(properties.column?.description).toContain("a line cut at 20 characters")
      expect(JSON.stringify(many.inputSchema)).toContain("(default 3)")
      expect(JSON.stringify([read.inputSchema, many.inputSchema])).not.toContain("(default 2000)")
    }))

  it.effect("read_many's description states its bounds in force", () =>
    Effect.gen(function*() {
      const toolkit = yield* ReadTool.toolkitWith("standard").pipe(
        Effect.provide(Limits.layer({ readMany: { maxFiles: 4, maxBytes: 8192 } }))
      )
      expect(toolkit.tools.read_many.description).toContain("At most 4 files per call")
      expect(toolkit.tools.read_many.description).toContain("share one 8 KB output budget")
    }))
})

describe("the command line", () => {
  it("--max-lines and friends set the caps of a read; a cap no read could honour is a usage error", async () => {
    const root = project({ "a.txt": `${"z".repeat(40)}\n${numbered(9)}`, "dir/1": "", "dir/2": "", "dir/3": "" })
    const read = await runProcess(process.execPath, [
      bin,
      "--cwd",
      root,
      "--max-lines",
      "3",
      "--max-line-length",
      "16",
      "a.txt"
    ])
    expect(read.code).toBe(0)
    expect(read.stdout).toContain("... (line truncated to 16 chars; use offset=1 column=17 to read more of it)")
    expect(read.stdout).toContain("(Showing lines 1-3 of 10. Use offset=4 to continue.)")
    const listed = await runProcess(process.execPath, [bin, "--cwd", root, "--max-directory-entries", "1", "dir"])
    expect(listed.stdout).toContain("(Showing 1 of 3 entries.")
    const many = await runProcess(process.execPath, [bin, "many", "--cwd", root, "--max-lines", "2", "a.txt"])
    expect(many.stdout).toContain("(Showing lines 1-2 of 10. Use offset=3 to continue.)")
    const wrong = await runProcess(process.execPath, [bin, "--cwd", root, "--max-bytes", "10", "a.txt"])
    expect(wrong.code).toBe(2)
    expect(wrong.stderr).toContain("effect-read: --max-bytes 10: must be a whole number of at least 1,024")
    expect(wrong.stdout).toBe("")
  })

  it("effect-read mcp --max-lines …: tools/list states the caps and the reads follow them (official MCP client)", async () => {
    const root = project({ "a.txt": numbered(9) })
    const client = new Client({ name: "caps-test", version: "1.0.0" })
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [bin, "mcp", "--cwd", root, "--max-lines", "3", "--max-bytes", "4096"],
        stderr: "pipe"
      })
    )
    try {
      const { tools } = await client.listTools()
      const read = tools.find((tool) => tool.name === "read")!
      expect(read.description).toContain("By default up to 3 lines are returned.")
      expect(read.description).toContain("A page stops at 4 KB of output")
      expect((read.inputSchema.properties as Record<string, { description: string }>).limit!.description).toContain(
        "(default 3)"
      )
      const result = await client.callTool({ name: "read", arguments: { filePath: "a.txt" } })
      const text = (result.content as Array<{ type: string; text: string }>)[0]!.text
      expect(text).toContain("(Showing lines 1-3 of 9. Use offset=4 to continue.)")
      expect(fieldsOf({ metadata: (result.structuredContent as { metadata: never }).metadata }).nextOffset).toBe(4)
    } finally {
      await client.close()
    }
    const bad = await runProcess(process.execPath, [bin, "mcp", "--cwd", root, "--max-lines", "0"])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain("--max-lines 0: must be a whole number of at least 1")
  })
})
