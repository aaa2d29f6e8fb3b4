/**
 * The tool's description, generated from what the host has: the registry's sources and schemes,
 * the optional packages installed, the caps in force, what the model takes; in a full form and a
 * short one of at most 1.5 KB. A source turned off or a package missing is not described.
 */
import * as Tool from "@effect/ai/Tool"
import { describe, expect, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as nodePath from "node:path"
import { renderDescription } from "../src/internal/core/description.js"
import * as Limits from "../src/Limits.js"
import * as McpServer from "../src/McpServer.js"
import * as ModelInput from "../src/ModelInput.js"
import * as OptionalPackages from "../src/OptionalPackages.js"
import * as Read from "../src/Read.js"
import * as ReadTool from "../src/ReadTool.js"
import * as Sources from "../src/Sources.js"
import { tempDir } from "./support/index.js"

const SHORT_LIMIT = 1536
const bin = nodePath.resolve("dist/bin.js")
const describeWith = (layer: Layer.Layer<never, Limits.InvalidLimits>) => Read.description.pipe(Effect.provide(layer))
const without = (name: string) => Sources.layer(Sources.defaults.filter((source) => source.name !== name))
const short = Limits.layer({ description: { form: "short" } })

describe("the template", () => {
  it("keeps a line when every condition holds, fills in the values", () => {
    const input = { ...Read.defaultDescriptionInput, sources: ["text", "archive"], schemes: [] }
    const template = "always {lines}\n[archive] zip\n[database] sqlite\n[archive,!web] zip, no web\n[web] web"
    expect(renderDescription(template, input)).toBe("always 2000\nzip\nzip, no web")
  })
})

describe("Read.description", () => {
  it.effect("with nothing set it is the default description, every source described", () =>
    Effect.gen(function*() {
      const text = yield* Read.description
      expect(text).toBe(Read.defaultDescription)
      for (
        const line of [
          "- Archives:",
          "- SQLite:",
          "- Notebooks (.ipynb)",
          "- Documents (.docx, .xlsx, .pptx, .epub, .odt)",
          "- Web pages:"
        ]
      ) {
        expect(text).toContain(line)
      }
      expect(text).toContain("pageImages: true shows a PDF's pages as images")
      expect(text).not.toMatch(/\{\w+\}|^\[/m)
    }))

  it.effect("a source the host turned off is not described", () =>
    Effect.gen(function*() {
      const all = yield* Read.description
      const noArchive = yield* describeWith(without("archive"))
      expect(noArchive).not.toContain("Archives:")
      expect(noArchive.split("\n").length).toBe(all.split("\n").length - 1)
      expect(yield* describeWith(without("database"))).not.toContain("SQLite")
      expect(yield* describeWith(without("notebook"))).not.toContain("Notebooks")
      expect(yield* describeWith(without("document"))).not.toContain("Documents (")
      const noWeb = yield* describeWith(without("web"))
      expect(noWeb).not.toMatch(/web page|https?:\/\//i)
      expect(noWeb.split("\n")[0]).toBe("Read a file or directory from the local filesystem.")
      const noMedia = yield* describeWith(
        Sources.layer(Sources.defaults.filter((s) => s.name !== "media" && s.name !== "pdf-text"))
      )
      expect(noMedia).not.toMatch(/PNG|PDF/)
    }))

  it.effect("a missing optional package takes its part out", () =>
    Effect.gen(function*() {
      const noSqlite = yield* describeWith(OptionalPackages.layerWithout(["better-sqlite3"]))
      expect(noSqlite).not.toContain("SQLite")
      const noOffice = yield* describeWith(OptionalPackages.layerWithout(["mammoth", "exceljs"]))
      expect(noOffice).toContain("- Documents (.pptx, .epub, .odt) read as text.")
      const noPdfjs = yield* describeWith(OptionalPackages.layerWithout(["pdfjs-dist"]))
      expect(noPdfjs).toContain("- A PDF is attached (up to 20 MB).")
      expect(noPdfjs).not.toContain("pages=3-5")
      expect(noPdfjs).not.toContain("pageImages")
      const noCanvas = yield* describeWith(OptionalPackages.layerWithout(["@napi-rs/canvas"]))
      expect(noCanvas).not.toContain("pageImages")
      const noSharp = yield* describeWith(OptionalPackages.layerWithout(["sharp"]))
      expect(noSharp).not.toContain("downscaled")
      expect(yield* OptionalPackages.installed.pipe(Effect.provide(OptionalPackages.layerWithout(["sharp"])))).not
        .toContain("sharp")
    }))

  it.effect("the caps and the model's input appear as set", () =>
    Effect.gen(function*() {
      const text = yield* describeWith(Limits.layer({
        page: { lines: 250, bytes: 16 * 1024, lineLength: 300, mediaBytes: 5 * 1024 * 1024, directoryEntries: 100 },
        image: { maxDimension: 1568 },
        pdfPageImages: { maxPages: 2 }
      }))
      for (
        const part of [
          "up to 250 lines",
          "stops at 16 KB of output",
          "longer than 300 characters",
          "up to 100 a page",
          "up to 5 MB each",
          "downscaled to 1568 px",
          "at most 2 a read"
        ]
      ) {
        expect(text).toContain(part)
      }
      const textOnly = yield* describeWith(ModelInput.layerTextOnly)
      expect(textOnly).not.toMatch(/attach|pageImages/i)
      expect(textOnly).toContain("described in words")
      expect(textOnly).toContain("A PDF is read as its text")
    }))

  it.effect("the short form is at most 1.5 KB whatever is enabled, and follows the same rules", () =>
    Effect.gen(function*() {
      const full = yield* Read.description
      const text = yield* describeWith(short)
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(SHORT_LIMIT)
      expect(Buffer.byteLength(text)).toBeLessThan(Buffer.byteLength(full) / 3)
      expect(text).toContain("up to 2000 lines or 50 KB a page")
      expect(text).toContain("SQLite")
      const capped = yield* describeWith(
        Limits.layer({ description: { form: "short" }, page: { lines: 40, bytes: 4096 } })
      )
      expect(capped).toContain("up to 40 lines or 4 KB a page")
      const bare = yield* describeWith(Layer.merge(short, Sources.layer([Sources.text])))
      expect(bare).not.toMatch(/SQLite|archive|Images|PDF|web/i)
      const textOnly = yield* describeWith(Layer.merge(short, ModelInput.layerTextOnly))
      expect(textOnly).not.toMatch(/attach/i)
      // Every combination of sources and packages stays within the limit.
      const input = Read.defaultDescriptionInput
      for (let mask = 0; mask < 1 << input.sources.length; mask += 7) {
        const sources = input.sources.filter((_, i) => (mask >> i) & 1)
        expect(Buffer.byteLength(Read.describe({ ...input, sources }, "short"))).toBeLessThanOrEqual(SHORT_LIMIT)
      }
    }))

  it.effect("the doors use it: the toolkit and the MCP definitions", () =>
    Effect.gen(function*() {
      const layer = Layer.mergeAll(short, without("database"))
      const text = yield* describeWith(layer)
      const toolkit = yield* ReadTool.toolkitWith("openai-strict").pipe(Effect.provide(layer))
      expect(toolkit.tools.read.description).toBe(text)
      // The parameters say less too, in any dialect: the short descriptions with the caps in force.
      const strict = JSON.stringify(
        yield* ReadTool.toolkitWith("openai-strict").pipe(
          Effect.map((kit) => Tool.getJsonSchema(kit.tools.read)),
          Effect.provide(Layer.merge(layer, Limits.layer({ page: { lines: 77 } })))
        )
      )
      expect(strict).toContain("Most lines to show (default 77)")
      expect(strict).not.toContain("Only for large files")
      const [read] = yield* McpServer.toolDefinitionsWith.pipe(Effect.provide(layer))
      expect(read.description).toBe(text)
    }))
})

describe("tools/list through the official MCP client", () => {
  it("the short form is smaller, and its description at most 1.5 KB", async () => {
    const list = async (flags: ReadonlyArray<string>) => {
      const client = new Client({ name: "description-test", version: "1.0.0" })
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [bin, "mcp", "--cwd", tempDir(), ...flags],
          stderr: "pipe"
        })
      )
      try {
        return (await client.listTools()).tools
      } finally {
        await client.close()
      }
    }
    const full = await list([])
    const shortTools = await list(["--short-description"])
    const fullRead = full.find((tool) => tool.name === "read")!
    const shortRead = shortTools.find((tool) => tool.name === "read")!
    expect(fullRead.description).toBe(Read.defaultDescription)
    expect(Buffer.byteLength(shortRead.description!)).toBeLessThanOrEqual(SHORT_LIMIT)
    expect(Buffer.byteLength(JSON.stringify(shortTools))).toBeLessThan(Buffer.byteLength(JSON.stringify(full)))
    // Same tools, same parameters: only what they say of themselves is shorter.
    expect(Object.keys(shortRead.inputSchema.properties ?? {})).toEqual(
      Object.keys(fullRead.inputSchema.properties ?? {})
    )
    const properties = shortRead.inputSchema.properties as Record<string, { readonly description: string }>
    expect(properties.limit!.description).toBe("Most lines to show (default 2000)")
    expect(properties.view!.description.length).toBeLessThan(100)
    const shortMany = shortTools.find((tool) => tool.name === "read_many")!
    expect(shortMany.description).toContain("at most 20 files sharing 50 KB of output")
    expect(JSON.stringify(shortMany.inputSchema)).toContain("Most lines to show (default 2000)")
  })
})
