/**
 * Images looked at closer: a `region` (parameter or `:region=X,Y,W,H`) cropped in the original
 * image's pixels before any downscale, full-resolution reads within their cap, the frame of an
 * animation, and the original size and scale factor stated after every downscale. Real images
 * encoded by sharp; what was attached is decoded again and its pixels compared.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import * as Effect from "effect/Effect"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { promisify } from "node:util"
import sharp from "sharp"
import * as FileTime from "../src/FileTime.js"
import { ImageLimits } from "../src/internal/sources/media.js"
import * as ModelResult from "../src/ModelResult.js"
import * as Read from "../src/Read.js"
import { fieldsOf, nodeLayer, tempDir, writeTree } from "./support/index.js"

const root = tempDir("effect-read-region-")
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

const W = 3000
const H = 2000
/** Each corner's 40x40 square a colour of its own; fine 1-pixel stripes in the top-left quarter; grey elsewhere. */
const corners = {
  topLeft: [255, 0, 0],
  topRight: [0, 255, 0],
  bottomLeft: [0, 0, 255],
  bottomRight: [255, 255, 0]
} as const
const pixels = (() => {
  const data = Buffer.alloc(W * H * 3, 128)
  const set = (x: number, y: number, rgb: ReadonlyArray<number>) => data.set(rgb, (y * W + x) * 3)
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      if (x < 40 && y < 40) set(x, y, corners.topLeft)
      else if (x >= W - 40 && y < 40) set(x, y, corners.topRight)
      else if (x < 40 && y >= H - 40) set(x, y, corners.bottomLeft)
      else if (x >= W - 40 && y >= H - 40) set(x, y, corners.bottomRight)
      else if (x < 1000 && y < 1000 && x % 2 === 0) set(x, y, [0, 0, 0])
    }
  }
  return data
})()

const setup = Effect.promise(async () => {
  if (fs.existsSync(path.join(root, "big.png"))) return
  const big = await sharp(pixels, { raw: { width: W, height: H, channels: 3 } }).png().toBuffer()
  const frames = Buffer.alloc(20 * 60 * 3)
  for (let i = 0; i < frames.length; i += 3) {
    frames.set([[200, 0, 0], [0, 200, 0], [0, 0, 200]][Math.floor(i / (20 * 20 * 3))]!, i)
  }
  const gif = await sharp(frames, { raw: { width: 20, height: 60, channels: 3, pageHeight: 20 } }).gif({
    delay: [100, 100, 100]
  }).toBuffer()
  // Stored 40x20 with EXIF orientation 6 (rotate 90° clockwise): shown 20x40.
  const rotated = await sharp(Buffer.alloc(40 * 20 * 3, 90), { raw: { width: 40, height: 20, channels: 3 } }).jpeg()
    .withMetadata({ orientation: 6 }).toBuffer()
  writeTree(root, { "big.png": big, "spin.gif": gif, "rotated.jpg": rotated, "notes.txt": "a\nb\n" })
})

const read = (params: Read.ReadParams) =>
  Effect.zipRight(setup, Read.read(params).pipe(Effect.provide(nodeLayer(root))))
const fail = (params: Read.ReadParams) => Effect.flip(read(params))

/** The attached image, decoded: its size and its pixels. */
const attached = (result: Read.ReadResult) =>
  Effect.promise(async () => {
    const bytes = ModelResult.bytesOf(result.attachments![0]!)
    const { data, info } = await sharp(Buffer.from(bytes)).removeAlpha().raw().toBuffer({ resolveWithObject: true })
    return {
      width: info.width,
      height: info.height,
      at: (x: number, y: number) => [...data.subarray((y * info.width + x) * 3, (y * info.width + x) * 3 + 3)]
    }
  })

describe("image regions", () => {
  it.effect("a downscaled image states its original size and scale factor", () =>
    Effect.gen(function*() {
      const whole = yield* read({ filePath: "big.png" })
      expect(whole.output).toBe(
        "Image read successfully (resized from 3000x2000 to 2000x1333, scale 0.667: a pixel here is about 1.5 in the original; a region in original pixels shows more detail)"
      )
      expect(whole.metadata).toMatchObject({
        width: 3000,
        height: 2000,
        scale: 2000 / 3000,
        attached: { width: 2000, height: 1333 }
      })
    }))

  it.effect("a region is cropped before the downscale: more detail than the downscale of the same part", () =>
    Effect.gen(function*() {
      const whole = yield* attached(yield* read({ filePath: "big.png" }))
      const result = yield* read({ filePath: "big.png", region: { x: 0, y: 0, width: 1000, height: 1000 } })
      expect(result.output).toBe(
        "Image read successfully (region x=0 y=0 1000x1000 of the 3000x2000 image; at full resolution)"
      )
      expect(result.metadata).toMatchObject({
        region: { x: 0, y: 0, width: 1000, height: 1000 },
        width: 3000,
        height: 2000
      })
      expect(fieldsOf(result).scale).toBeUndefined()
      const region = yield* attached(result)
      // The same part of the image: 1000x1000 pixels here, about 667x667 in the downscale.
      expect(region.width).toBe(1000)
      expect(region.width).toBeGreaterThan(Math.round(1000 * whole.width / W))
      // The 1-pixel stripes survive the crop exactly; the downscale blurs them to greys.
      expect([region.at(100, 100), region.at(101, 100)]).toEqual([[0, 0, 0], [128, 128, 128]])
      const blurred = new Set([60, 61, 62, 63].map((x) => whole.at(x, 60).join(",")))
      expect(blurred.has("0,0,0") && blurred.has("128,128,128")).toBe(false)
    }))

  it.effect("corners: each corner's region holds that corner's colour", () =>
    Effect.gen(function*() {
      const cases = [
        [{ x: 0, y: 0 }, corners.topLeft],
        [{ x: W - 10, y: 0 }, corners.topRight],
        [{ x: 0, y: H - 10 }, corners.bottomLeft],
        [{ x: W - 10, y: H - 10 }, corners.bottomRight]
      ] as const
      for (const [at, rgb] of cases) {
        const region = yield* attached(yield* read({ filePath: "big.png", region: { ...at, width: 10, height: 10 } }))
        expect([region.width, region.height]).toEqual([10, 10])
        expect(region.at(0, 0)).toEqual([...rgb])
        expect(region.at(9, 9)).toEqual([...rgb])
      }
    }))

  it.effect("a region reaching out of the image is a clear InvalidParams", () =>
    Effect.gen(function*() {
      const right = yield* fail({ filePath: "big.png", region: { x: W - 5, y: 0, width: 10, height: 10 } })
      expect(right._tag).toBe("InvalidParams")
      expect(right.message).toContain(
        "region x=2995 y=0 10x10 reaches past the image's right edge (x + width = 3005, the image is 3000 pixels wide)"
      )
      const bottom = yield* fail({ filePath: "big.png", region: { x: 0, y: 1999, width: 1, height: 2 } })
      expect(bottom.message).toContain(
        "reaches past the image's bottom edge (y + height = 2001, the image is 2000 pixels high)"
      )
      const outside = yield* fail({ filePath: "big.png", region: { x: 3000, y: 0, width: 1, height: 1 } })
      expect(outside.message).toContain("starts outside the 3000x2000 image")
      const empty = yield* fail({ filePath: "big.png", region: { x: 0, y: 0, width: 0, height: 5 } })
      expect(empty.message).toContain("region.width must be at least 1")
    }))

  it.effect("the selector form: :region=X,Y,W,H and :frame=N, alone or together; not twice", () =>
    Effect.gen(function*() {
      const bySelector = yield* read({ filePath: "big.png:region=2990,1990,10,10" })
      expect(fieldsOf(bySelector).region).toEqual({ x: 2990, y: 1990, width: 10, height: 10 })
      expect((yield* attached(bySelector)).at(5, 5)).toEqual([...corners.bottomRight])
      const both = yield* read({ filePath: "spin.gif:region=0,0,5,5:frame=3" })
      expect((yield* attached(both)).at(0, 0)).toEqual([0, 0, 200])
      const twice = yield* fail({ filePath: "big.png:region=0,0,5,5", region: { x: 0, y: 0, width: 5, height: 5 } })
      expect(twice.message).toContain("region is given twice")
      expect((yield* fail({ filePath: "big.png:region=0,0,0,5" })).message).toContain(
        "is empty; width and height must be at least 1"
      )
    }))

  it.effect("full resolution: the whole image within the cap, else an error that says to read a region", () =>
    Effect.gen(function*() {
      const full = yield* read({ filePath: "big.png", fullResolution: true })
      expect(full.output).toBe("Image read successfully (at full resolution, 3000x2000)")
      const image = yield* attached(full)
      expect([image.width, image.height]).toEqual([W, H])
      const capped = yield* Effect.flip(
        read({ filePath: "big.png", fullResolution: true }).pipe(
          Effect.provideService(ImageLimits, {
            maxDimension: 2000,
            maxBytes: 5 * 1024 * 1024,
            maxPixels: 100_000_000,
            maxFullDimension: 2500
          })
        )
      )
      expect(capped.message).toContain(
        "the image is 3000x2000 pixels, over the 2500-pixel side a full-resolution read allows: read a region of it"
      )
      // A region within the cap is fine.
      const part = yield* read({
        filePath: "big.png",
        fullResolution: true,
        region: { x: 0, y: 0, width: 2500, height: 100 }
      }).pipe(
        Effect.provideService(ImageLimits, {
          maxDimension: 2000,
          maxBytes: 5 * 1024 * 1024,
          maxPixels: 100_000_000,
          maxFullDimension: 2500
        })
      )
      expect((yield* attached(part)).width).toBe(2500)
    }))

  it.effect("an animation: the frame asked for, as a still PNG; a frame past the last is an error", () =>
    Effect.gen(function*() {
      const second = yield* read({ filePath: "spin.gif", frame: 2 })
      expect(second.output).toBe("Image read successfully (frame 2 of 3)")
      expect(second.attachments?.[0]?.mime).toBe("image/png")
      expect(second.metadata).toMatchObject({ frame: 2, frames: 3, width: 20, height: 20 })
      expect((yield* attached(second)).at(10, 10)).toEqual([0, 200, 0])
      const past = yield* fail({ filePath: "spin.gif", frame: 4 })
      expect(past.message).toContain(`frame 4 is past the last frame: ${root}/spin.gif has 3 frames (1-3)`)
    }))

  it.effect("regions are in the image as shown (EXIF orientation applied)", () =>
    Effect.gen(function*() {
      const shown = yield* read({ filePath: "rotated.jpg", region: { x: 0, y: 30, width: 20, height: 10 } })
      expect(shown.metadata).toMatchObject({ width: 20, height: 40 })
      expect([(yield* attached(shown)).width, (yield* attached(shown)).height]).toEqual([20, 10])
      expect((yield* fail({ filePath: "rotated.jpg", region: { x: 30, y: 0, width: 5, height: 5 } })).message)
        .toContain(
          "starts outside the 20x40 image"
        )
    }))

  it.effect("not an image: region, frame and fullResolution are InvalidParams, and nothing is recorded", () =>
    Effect.gen(function*() {
      const error = yield* fail({ filePath: "notes.txt", region: { x: 0, y: 0, width: 1, height: 1 } })
      expect(error.message).toContain(
        `region applies to images (PNG, JPEG, GIF, WebP); ${root}/notes.txt is read as text`
      )
      expect((yield* fail({ filePath: "notes.txt:frame=2" })).message).toContain("frame applies to images")
      expect((yield* fail({ filePath: ".", fullResolution: true })).message).toContain(
        "fullResolution applies to images"
      )
      const covered = yield* Effect.flatMap(
        FileTime.FileTime,
        (ledger) => ledger.covers("test", `${root}/notes.txt`, 1, 2)
      ).pipe(
        Effect.provide(nodeLayer(root))
      )
      expect(covered).toBe(false)
    }))
})

const bin = path.resolve("dist/bin.js")
const run = promisify(execFile)

describe("image regions through the doors", () => {
  it("the CLI: --region, --frame, --full-resolution; a malformed --region is a usage error", async () => {
    await Effect.runPromise(setup)
    const cli = (...args: ReadonlyArray<string>) =>
      run(process.execPath, [bin, "--cwd", root, "--json", ...args], { encoding: "utf8", timeout: 60_000 }).then((
        { stdout }
      ) => JSON.parse(stdout))
    expect((await cli("--region", "0,0,640,480", "big.png")).metadata).toMatchObject({
      region: { x: 0, y: 0, width: 640, height: 480 }
    })
    expect((await cli("--frame", "2", "spin.gif")).metadata.frame).toBe(2)
    expect((await cli("--full-resolution", "big.png")).metadata.scale).toBeUndefined()
    const usage = await run(process.execPath, [bin, "--cwd", root, "--region", "0,0,640", "big.png"], {
      encoding: "utf8"
    }).then(
      () => undefined,
      (error: { code?: number; stderr?: string }) => error
    )
    expect(usage?.code).toBe(2)
    expect(usage?.stderr).toContain("--region takes x,y,width,height as whole numbers")
  })

  it("MCP: a region comes back as an image block of the region's size; the schema offers region", async () => {
    await Effect.runPromise(setup)
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [bin, "mcp", "--cwd", root],
      stderr: "pipe"
    })
    const client = new Client({ name: "effect-read-region-test", version: "1.0.0" })
    await client.connect(transport)
    try {
      const { tools } = await client.listTools()
      const properties = (tools.find((tool) =>
        tool.name === "read"
      )!.inputSchema as { properties: Record<string, unknown> }).properties
      expect(Object.keys(properties)).toEqual(expect.arrayContaining(["region", "frame", "fullResolution"]))
      const result = await client.callTool({
        name: "read",
        arguments: { filePath: "big.png", region: { x: 100, y: 100, width: 300, height: 200 } }
      }) as {
        content: Array<{ type: string; data?: string }>
      }
      expect(result.content.map((block) => block.type)).toEqual(["text", "image"])
      const meta = await sharp(Buffer.from(result.content[1]!.data!, "base64")).metadata()
      expect([meta.width, meta.height]).toEqual([300, 200])
    } finally {
      await client.close()
    }
  })
})
