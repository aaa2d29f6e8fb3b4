/**
 * What the model can take (`ModelInput`): for a model that cannot see images, an image is
 * described in words and never attached; for one that takes no PDFs, a PDF is read as its text;
 * `read_many` follows; the descriptions and schemas then name no attachment. Through the library,
 * the `@effect/ai` toolkit, the CLI and the MCP server (official SDK client), on PNGs encoded by
 * sharp (a screenshot-sized one carrying the text chunks screenshot tools write, an animated GIF)
 * and PDFs pdf.js reads.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { promisify } from "node:util"
import * as zlib from "node:zlib"
import sharp from "sharp"
import * as McpServer from "../src/McpServer.js"
import * as ModelInput from "../src/ModelInput.js"
import * as OptionalPackages from "../src/OptionalPackages.js"
import * as Read from "../src/Read.js"
import * as ReadMany from "../src/ReadMany.js"
import * as ReadTool from "../src/ReadTool.js"
import { nodeLayer, tempDir, writeTree } from "./support/index.js"
import { assemblePdf, makePdf, pdfStream, pngChunk } from "./support/media.js"

const root = tempDir("effect-read-model-input-")
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

/** `png` with text chunks inserted after IHDR: tEXt, zTXt (compressed) and iTXt (UTF-8), as screenshot tools write. */
const withText = (
  png: Buffer,
  entries: ReadonlyArray<readonly [keyword: string, text: string, kind: "tEXt" | "zTXt" | "iTXt"]>
) => {
  const ihdrEnd = 8 + 12 + 13
  const chunks = entries.map(([keyword, text, kind]) =>
    kind === "tEXt"
      ? pngChunk("tEXt", Buffer.concat([Buffer.from(`${keyword}\0`, "latin1"), Buffer.from(text, "latin1")]))
      : kind === "zTXt"
      ? pngChunk(
        "zTXt",
        Buffer.concat([Buffer.from(`${keyword}\0\0`, "latin1"), zlib.deflateSync(Buffer.from(text, "latin1"))])
      )
      : pngChunk("iTXt", Buffer.concat([Buffer.from(`${keyword}\0\0\0\0\0`, "latin1"), Buffer.from(text, "utf8")]))
  )
  return Buffer.concat([png.subarray(0, ihdrEnd), ...chunks, png.subarray(ihdrEnd)])
}

const gradient = (width: number, height: number): Buffer => {
  const data = Buffer.alloc(width * height * 3)
  for (let i = 0; i < data.length; i += 3) {
    const x = (i / 3) % width
    data[i] = (x * 255 / width) | 0
    data[i + 1] = 90
    data[i + 2] = 200
  }
  return data
}

const PDF = makePdf([["Quarterly notes", "All quiet"], ["Second page text"]])

let screenshot: Buffer
let animated: Buffer

const setup = Effect.promise(async () => {
  if (screenshot !== undefined) return
  const png = await sharp(gradient(1280, 800), { raw: { width: 1280, height: 800, channels: 3 } }).png().toBuffer()
  screenshot = withText(png, [
    ["Software", "gnome-screenshot", "tEXt"],
    ["Title", "Build failed: 3 errors", "zTXt"],
    ["Description", "Terminal — npm test ✗", "iTXt"]
  ])
  const frames = 3
  // Frames that differ (identical ones are merged by the encoder).
  const pixels = gradient(40, 30 * frames)
  for (let i = 0; i < pixels.length; i += 3) pixels[i + 1] = Math.floor(i / (40 * 30 * 3)) * 100
  animated = await sharp(pixels, { raw: { width: 40, height: 30 * frames, channels: 3, pageHeight: 30 } })
    .gif({ delay: [100, 200, 300], loop: 0 })
    .toBuffer()
  writeTree(root, {
    "shot.png": screenshot,
    "spinner.gif": animated,
    "notes.pdf": PDF,
    "a.txt": "alpha\n"
  })
})

const inRoot = <A, E>(effect: Effect.Effect<A, E, Read.EffectRequirements>, input?: ModelInput.ModelInputShape) =>
  Effect.zipRight(
    setup,
    effect.pipe(
      Effect.provide(Layer.merge(nodeLayer(root), input === undefined ? Layer.empty : ModelInput.layer(input)))
    )
  )

const described = "Image not attached (you cannot see images here), described instead: PNG, 1280x800 pixels, 1 frame, "

describe("ModelInput: the library", () => {
  it.effect("text-only: a PNG is described in words with the text its metadata carries, never attached", () =>
    inRoot(
      Effect.gen(function*() {
        const result = yield* Read.read({ filePath: "shot.png" })
        expect(result.attachments).toBeUndefined()
        expect(result.output.startsWith(described)).toBe(true)
        expect(result.output).not.toContain("read successfully")
        expect(result.output.split("\n").slice(1)).toEqual([
          "Text embedded in its metadata:",
          "  Software: gnome-screenshot",
          "  Title: Build failed: 3 errors",
          "  Description: Terminal — npm test ✗"
        ])
        expect(result.metadata).toMatchObject({
          kind: "image",
          width: 1280,
          height: 800,
          format: "png",
          frames: 1,
          mime: "image/png"
        })
      }),
      ModelInput.textOnly
    ))

  it.effect("text-only: an animated GIF says its frames and loop time", () =>
    inRoot(
      Effect.gen(function*() {
        const result = yield* Read.read({ filePath: "spinner.gif" })
        expect(result.attachments).toBeUndefined()
        expect(result.output).toMatch(
          /^Image not attached .*: GIF, 40x30 pixels, 3 frames \(animated, 0\.6 s a loop\), [\d.]+ \w+\.$/
        )
        expect(result.metadata).toMatchObject({ width: 40, height: 30, frames: 3 })
      }),
      ModelInput.textOnly
    ))

  it.effect("text-only: a PDF is read as its text, pages as for :pages=", () =>
    inRoot(
      Effect.gen(function*() {
        const whole = yield* Read.read({ filePath: "notes.pdf" })
        expect(whole.attachments).toBeUndefined()
        expect(whole.output).toContain("--- page 1 ---")
        expect(whole.output).toContain("Second page text")
        const second = yield* Read.read({ filePath: "notes.pdf:pages=2" })
        expect(second.output).toContain("Second page text")
        expect(second.output).not.toContain("Quarterly notes")
      }),
      ModelInput.textOnly
    ))

  it.effect("by default both are attached, as before; images without PDFs: the image attached, the PDF read as text", () =>
    inRoot(Effect.gen(function*() {
      const image = yield* Read.read({ filePath: "shot.png" })
      expect(image.output).toBe("Image read successfully")
      expect(image.attachments?.[0]?.mime).toBe("image/png")
      expect((yield* Read.read({ filePath: "notes.pdf" })).attachments?.[0]?.mime).toBe("application/pdf")
      const mixed = { images: true, pdfs: false }
      const imageToo = yield* Effect.provide(Read.read({ filePath: "shot.png" }), ModelInput.layer(mixed))
      expect(imageToo.attachments?.[0]?.mime).toBe("image/png")
      const pdfText = yield* Effect.provide(Read.read({ filePath: "notes.pdf" }), ModelInput.layer(mixed))
      expect(pdfText.attachments).toBeUndefined()
      expect(pdfText.output).toContain("Quarterly notes")
    })))

  it.effect("read_many follows: no attachment, the image described, the PDF's text", () =>
    inRoot(
      Effect.gen(function*() {
        const many = yield* ReadMany.readMany({
          files: [{ filePath: "shot.png" }, { filePath: "notes.pdf" }, { filePath: "a.txt" }]
        })
        expect(many.attachments).toBeUndefined()
        expect(many.output).toContain(described)
        expect(many.output).toContain("Quarterly notes")
        expect(many.output).toContain("1: alpha")
        expect(many.files.every((file) => file.attachmentIndexes === undefined)).toBe(true)
      }),
      ModelInput.textOnly
    ))

  it("the description follows: text-only names no attachment, images-only still attaches images", () => {
    expect(Read.descriptionFor(ModelInput.all)).toBe(Read.defaultDescription)
    const textOnly = Read.descriptionFor(ModelInput.textOnly)
    expect(textOnly).not.toMatch(/attach/i)
    expect(textOnly).toContain("described in words")
    expect(textOnly).toContain("A PDF is read as its text")
    const imagesOnly = Read.descriptionFor({ images: true, pdfs: false })
    expect(imagesOnly).toContain("images are attached for you to look at")
    expect(imagesOnly).toContain("A PDF is read as its text")
    expect(imagesOnly).not.toContain("A PDF is attached")
    // Page images are offered to the model that can see them, never to a text-only one.
    expect(imagesOnly).toContain("pageImages: true shows a PDF's pages as images instead (at most 5 a read")
    expect(textOnly).not.toContain("pageImages")
    // Everything else is the same text.
    const others = (text: string) => text.split("\n").filter((line) => !/image|PDF/.test(line))
    expect(others(textOnly)).toEqual(others(Read.defaultDescription))
  })
})

/** Pages of the given sizes (points), each with a black bar across its top and a line of text. */
const sizedPdf = (sizes: ReadonlyArray<readonly [width: number, height: number]>): Buffer =>
  assemblePdf([
    "<< /Type /Catalog /Pages 2 0 R >>",
    `<< /Type /Pages /Kids [${sizes.map((_, i) => `${4 + i * 2} 0 R`).join(" ")}] /Count ${sizes.length} >>`,
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ...sizes.flatMap(([width, height], i) => [
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${width} ${height}] /Resources << /Font << /F1 3 0 R >> >> /Contents ${
        5 + i * 2
      } 0 R >>`,
      pdfStream(`0 0 0 rg 0 ${height - 20} ${width} 20 re f\nBT /F1 12 Tf 20 ${height - 60} Td (Page ${i + 1}) Tj ET`)
    ])
  ])

const imagesNotPdfs: ModelInput.ModelInputShape = { images: true, pdfs: false }

const pngSizes = (result: Read.ReadResult) =>
  Effect.promise(() =>
    Promise.all((result.attachments ?? []).map(async (attachment) => {
      expect(attachment.mime).toBe("image/png")
      const bytes = Buffer.from(attachment.url.slice("data:image/png;base64,".length), "base64")
      const meta = await sharp(bytes).metadata()
      const stats = await sharp(bytes).stats()
      return { width: meta.width, height: meta.height, format: meta.format, darkest: stats.channels[0]!.min }
    }))
  )

describe("ModelInput: PDF pages as images for a model that takes images but not PDFs", () => {
  const pagesRoot = tempDir("effect-read-page-images-")
  afterAll(() => fs.rmSync(pagesRoot, { recursive: true, force: true }))
  writeTree(pagesRoot, {
    "mixed.pdf": sizedPdf([[612, 792], [792, 306], [300, 300]]),
    "long.pdf": sizedPdf(Array.from({ length: 8 }, () => [200, 100] as const)),
    "notes.txt": "alpha\n"
  })
  const inPages = <A, E>(effect: Effect.Effect<A, E, Read.EffectRequirements>, input = imagesNotPdfs) =>
    effect.pipe(Effect.provide(Layer.merge(nodeLayer(pagesRoot), ModelInput.layer(input))))

  it.effect("pageImages: each selected page a PNG, its pixel size proportional to the page, drawn", () =>
    inPages(Effect.gen(function*() {
      const result = yield* Read.read({ filePath: "mixed.pdf", pageImages: true })
      const sizes = yield* pngSizes(result)
      // 2 pixels a point (144 dpi) while the longest side stays within 2000 pixels.
      expect(sizes.map(({ height, width }) => [width, height])).toEqual([[1224, 1584], [1584, 612], [600, 600]])
      expect(sizes.every((size) => size.format === "png" && size.darkest === 0)).toBe(true)
      expect(result.output).toBe(
        "PDF pages 1-3 of 3 attached as images, in order (page 1: 1224x1584 PNG; page 2: 1584x612 PNG; page 3: 600x600 PNG)."
      )
      expect(result.metadata).toMatchObject({
        kind: "pdf",
        pageImages: [1, 2, 3],
        truncated: false,
        mime: "application/pdf"
      })
      const second = yield* Read.read({ filePath: "mixed.pdf:pages=2", pageImages: true })
      expect((yield* pngSizes(second)).map(({ height, width }) => [width, height])).toEqual([[1584, 612]])
      expect(second.output).toContain("PDF page 2 of 3 attached")
    })))

  it.effect("not asked: the PDF's text, no attachment", () =>
    inPages(Effect.gen(function*() {
      const result = yield* Read.read({ filePath: "mixed.pdf" })
      expect(result.attachments).toBeUndefined()
      expect(result.output).toContain("--- page 2 ---")
      expect(result.output).toContain("Page 2")
    })))

  it.effect("more pages than the cap: the first 5 rendered, and the answer says so and how to go on", () =>
    inPages(Effect.gen(function*() {
      const result = yield* Read.read({ filePath: "long.pdf", pageImages: true })
      expect(result.attachments).toHaveLength(5)
      expect(result.metadata).toMatchObject({ pageImages: [1, 2, 3, 4, 5], truncated: true })
      expect(result.output.split("\n")[1]).toBe(
        "(pages 1-8 were asked for; at most 5 are rendered a read. Next: long.pdf:pages=6-8 with pageImages.)"
      )
      const rest = yield* Read.read({ filePath: "long.pdf:pages=6-8", pageImages: true })
      expect(rest.metadata).toMatchObject({ pageImages: [6, 7, 8], truncated: false })
      const wider = yield* Read.read({ filePath: "long.pdf", pageImages: true }).pipe(
        Effect.provideService(Read.PdfPageImages, { maxPages: 8 })
      )
      expect(wider.attachments).toHaveLength(8)
    })))

  it.effect("a page past the end, a file that is not a PDF, a model that sees no images: clear errors", () =>
    inPages(Effect.gen(function*() {
      const past = yield* Effect.flip(Read.read({ filePath: "mixed.pdf:pages=4", pageImages: true }))
      expect(past).toMatchObject({ _tag: "InvalidSelector" })
      expect(past.message).toContain("Page 4 is beyond the end of the document (3 pages)")
      const text = yield* Effect.flip(Read.read({ filePath: "notes.txt", pageImages: true }))
      expect(text).toMatchObject({ _tag: "InvalidParams" })
      expect(text.message).toContain("pageImages applies to PDF files")
      const blind = yield* Effect.flip(
        inPages(Read.read({ filePath: "mixed.pdf", pageImages: true }), ModelInput.textOnly)
      )
      expect(blind.message).toContain("cannot see images")
    })))

  it.effect("without @napi-rs/canvas: MissingPackage, naming it", () =>
    inPages(Effect.gen(function*() {
      const error = yield* Effect.flip(
        Read.read({ filePath: "mixed.pdf", pageImages: true }).pipe(
          Effect.provide(OptionalPackages.layerWithout(["@napi-rs/canvas"]))
        )
      )
      expect(error).toMatchObject({ _tag: "MissingPackage", package: "@napi-rs/canvas" })
    })))

  const spec = "/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf"
  it.effect.skipIf(!fs.existsSync(spec))(
    "a real PDF nobody here wrote (the shared-mime-info spec, where the system ships it): pages at 144 dpi",
    () =>
      Effect.gen(function*() {
        const result = yield* Read.read({ filePath: `${spec}:pages=2-3`, pageImages: true }).pipe(
          Effect.provide(Layer.merge(nodeLayer(path.dirname(spec)), ModelInput.layer(imagesNotPdfs)))
        )
        const sizes = yield* pngSizes(result)
        expect(sizes).toHaveLength(2)
        // Two pixels a point of the page as pdf.js measures it.
        const page = yield* Effect.promise(async () => {
          const pdfjs = await import("pdfjs-dist/legacy/build/pdf.mjs")
          const document = await pdfjs.getDocument({ data: new Uint8Array(fs.readFileSync(spec)), verbosity: 0 })
            .promise
          const viewport = (await document.getPage(2)).getViewport({ scale: 2 })
          await document.destroy()
          return [Math.round(viewport.width), Math.round(viewport.height)]
        })
        expect(sizes.map(({ height, width }) => [width, height])).toEqual([page, page])
        expect(result.output).toContain("PDF pages 2-3 of ")
        expect(sizes.every((size) => size.darkest < 128)).toBe(true)
      })
  )
})

describe("ModelInput: the @effect/ai toolkit", () => {
  it.effect("toolkitFor(dialect, textOnly): the description names no attachment; with ModelInput the handler attaches nothing", () =>
    inRoot(
      Effect.gen(function*() {
        const toolkit = ReadTool.toolkitFor("standard", ModelInput.textOnly)
        expect(toolkit.tools.read.description).not.toMatch(/attach/i)
        expect(toolkit.tools.read_many.description).not.toMatch(/attach/i)
        expect(ReadTool.toolkitFor("openai-strict", ModelInput.textOnly).tools.read.description).toBe(
          toolkit.tools.read.description
        )
        const handlers = yield* Effect.provide(toolkit, ReadTool.layer)
        const image = yield* handlers.handle("read", { filePath: "shot.png" })
        const result = image.result as Read.ReadResult
        expect(result.attachments).toBeUndefined()
        expect(result.output.startsWith(described)).toBe(true)
        // What the model is sent (the encoded result) holds no attachment either.
        expect(JSON.stringify(image.encodedResult)).not.toMatch(/attachments/)
      }),
      ModelInput.textOnly
    ))
})

const bin = path.resolve("dist/bin.js")
const run = promisify(execFile)

describe("ModelInput: the CLI", () => {
  it("--text-only: a PNG described, a PDF's text, read_many the same; without it the image is attached", async () => {
    await Effect.runPromise(setup)
    const cli = (...args: ReadonlyArray<string>) =>
      run(process.execPath, [bin, "--cwd", root, ...args], { encoding: "utf8", timeout: 60_000 }).then(({ stdout }) =>
        stdout
      )
    expect((await cli("--text-only", "shot.png")).startsWith(described)).toBe(true)
    expect(await cli("--text-only", "notes.pdf:pages=2")).toContain("Second page text")
    const json = JSON.parse(await cli("--text-only", "--json", "shot.png"))
    expect(json.attachments).toBeUndefined()
    expect(json.metadata.frames).toBe(1)
    const many = await cli("many", "--text-only", "shot.png", "notes.pdf")
    expect(many).toContain(described)
    expect(many).toContain("Quarterly notes")
    expect(JSON.parse(await cli("--json", "shot.png")).attachments[0].mime).toBe("image/png")
  })
})

describe("ModelInput: the MCP server", () => {
  const connect = async (args: ReadonlyArray<string>) => {
    await Effect.runPromise(setup)
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [bin, "mcp", "--cwd", root, ...args],
      stderr: "pipe"
    })
    const client = new Client({ name: "effect-read-model-input-test", version: "1.0.0" })
    await client.connect(transport)
    return client
  }

  it("mcp --text-only: the tools name no attachment (description and output schema); reads send text blocks only", async () => {
    const client = await connect(["--text-only"])
    try {
      const { tools } = await client.listTools()
      for (const tool of tools) {
        expect(JSON.stringify({ description: tool.description, outputSchema: tool.outputSchema })).not.toMatch(
          /attach/i
        )
      }
      expect(tools.find((tool) => tool.name === "read")?.description).toBe(Read.descriptionFor(ModelInput.textOnly))
      const image = await client.callTool({ name: "read", arguments: { filePath: "shot.png" } }) as {
        content: Array<{ type: string; text?: string }>
        structuredContent: Record<string, unknown>
      }
      expect(image.content.map((block) => block.type)).toEqual(["text"])
      expect(image.content[0]?.text?.startsWith(described)).toBe(true)
      expect(image.structuredContent["attachments"]).toBeUndefined()
      const pdf = await client.callTool({ name: "read", arguments: { filePath: "notes.pdf" } }) as {
        content: Array<{ type: string; text?: string }>
      }
      expect(pdf.content.map((block) => block.type)).toEqual(["text"])
      expect(pdf.content[0]?.text).toContain("Quarterly notes")
      const many = await client.callTool({
        name: "read_many",
        arguments: { files: [{ filePath: "spinner.gif" }, { filePath: "shot.png" }] }
      }) as {
        content: Array<{ type: string; text?: string }>
      }
      expect(many.content.map((block) => block.type)).toEqual(["text"])
      expect(many.content[0]?.text).toContain("3 frames")
    } finally {
      await client.close()
    }
  })

  it("mcp without it: the image is an image block and the description offers it", async () => {
    const client = await connect([])
    try {
      const { tools } = await client.listTools()
      expect(tools.find((tool) => tool.name === "read")?.description).toBe(Read.defaultDescription)
      expect(McpServer.toolDefinitionsFor(ModelInput.all)[0]).toBe(McpServer.toolDefinition)
      const image = await client.callTool({ name: "read", arguments: { filePath: "shot.png" } }) as {
        content: Array<{ type: string }>
      }
      expect(image.content.map((block) => block.type)).toEqual(["text", "image"])
    } finally {
      await client.close()
    }
  })
})
