/**
 * Images through `read` over real temp directories: decoded before they are attached, width,
 * height and format in metadata, downscaled/re-encoded over `ImageLimits`. Fixtures are made
 * by sharp in the test.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import sharp from "sharp"
import { ImageLimits } from "../src/Limits.js"
import * as OptionalPackages from "../src/OptionalPackages.js"
import { readUnknown } from "../src/Read.js"
import type { Attachment } from "../src/Read.js"
import { fieldsOf, type LayerOptions, nodeLayer, tempDir, writeTree } from "./support/index.js"
import { GIF, PDF, PNG } from "./support/media.js"

const roots: Array<string> = []
afterAll(() => {
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true })
})

const project = (files: Readonly<Record<string, string | Uint8Array>> = {}): string => {
  const root = tempDir("effect-read-image-")
  roots.push(root)
  writeTree(root, files)
  return root
}

const readIn = (root: string, params: unknown, options: LayerOptions = {}) =>
  readUnknown(params).pipe(Effect.provide(nodeLayer(root, options)))

const failIn = (root: string, params: unknown, options: LayerOptions = {}) => Effect.flip(readIn(root, params, options))

const make = (promise: () => Promise<Buffer>) => Effect.promise(promise)

/** A smooth gradient: compresses well. */
const gradient = (width: number, height: number, channels: 3 | 4 = 3): Buffer => {
  const data = Buffer.alloc(width * height * channels)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * channels
      data[i] = (x * 255 / width) | 0
      data[i + 1] = (y * 255 / height) | 0
      data[i + 2] = 128
      if (channels === 4) data[i + 3] = 200
    }
  }
  return data
}

/** Deterministic noise (xorshift): does not compress, so a big encoded file from few pixels. */
const noise = (width: number, height: number, channels: 3 | 4): Buffer => {
  const data = Buffer.alloc(width * height * channels)
  let state = 0x9e3779b9
  for (let i = 0; i < data.length; i++) {
    state ^= state << 13
    state ^= state >>> 17
    state ^= state << 5
    data[i] = state & 0xff
  }
  return data
}

const raw = (data: Buffer, width: number, height: number, channels: 3 | 4) =>
  sharp(data, { raw: { width, height, channels } })

/** The bytes of a data: URL attachment. */
const bytesOf = (attachment: Attachment): Buffer => {
  expect(attachment.url.startsWith(`data:${attachment.mime};base64,`)).toBe(true)
  return Buffer.from(attachment.url.slice(attachment.url.indexOf(",") + 1), "base64")
}

const MB = 1024 * 1024

describe("images: decoded, with width, height and format", () => {
  it.effect("a PNG within the limits is attached as it is, with its size and format in metadata", () =>
    Effect.gen(function*() {
      const png = yield* make(() => raw(gradient(300, 200), 300, 200, 3).png().toBuffer())
      const root = project({ "shot.png": png })
      const result = yield* readIn(root, { filePath: "shot.png" })
      expect(result.output).toBe("Image read successfully")
      expect(result.metadata).toMatchObject({
        kind: "image",
        mime: "image/png",
        width: 300,
        height: 200,
        format: "png",
        size: png.length
      })
      expect(fieldsOf(result).attached).toBeUndefined()
      expect(bytesOf(result.attachments![0]!).equals(png)).toBe(true)
    }))

  it.effect("JPEG, GIF and WebP report their own format", () =>
    Effect.gen(function*() {
      const files = {
        "a.jpg": yield* make(() => raw(gradient(40, 30), 40, 30, 3).jpeg().toBuffer()),
        "a.gif": yield* make(() => raw(gradient(41, 31), 41, 31, 3).gif().toBuffer()),
        "a.webp": yield* make(() => raw(gradient(42, 32, 4), 42, 32, 4).webp().toBuffer())
      }
      const root = project(files)
      const expected = [
        ["a.jpg", "jpeg", "image/jpeg", 40, 30],
        ["a.gif", "gif", "image/gif", 41, 31],
        ["a.webp", "webp", "image/webp", 42, 32]
      ] as const
      for (const [name, format, mime, width, height] of expected) {
        const result = yield* readIn(root, { filePath: name })
        expect(result.output).toBe("Image read successfully")
        expect(result.metadata).toMatchObject({ kind: "image", mime, format, width, height })
        expect(result.attachments![0]!.mime).toBe(mime)
        expect(bytesOf(result.attachments![0]!).equals(files[name])).toBe(true)
      }
    }))

  it.effect("the 1x1 PNG fixture reads as 1x1", () =>
    Effect.gen(function*() {
      const root = project({ "pixel.png": PNG })
      const result = yield* readIn(root, { filePath: "pixel.png" })
      expect(result.metadata).toMatchObject({ width: 1, height: 1, format: "png" })
    }))

  it.effect("PDFs are attached as they are, without image metadata", () =>
    Effect.gen(function*() {
      const root = project({ "doc.pdf": PDF })
      const result = yield* readIn(root, { filePath: "doc.pdf" })
      expect(result.output).toBe("PDF read successfully")
      expect(bytesOf(result.attachments![0]!).equals(PDF)).toBe(true)
      expect(fieldsOf(result).width).toBeUndefined()
    }))
})

describe("images: over the limits", () => {
  it.effect("a 3000x1000 PNG is resized to 2000x667, still a PNG, and the output says so", () =>
    Effect.gen(function*() {
      const png = yield* make(() => raw(gradient(3000, 1000), 3000, 1000, 3).png().toBuffer())
      const root = project({ "wide.png": png })
      const result = yield* readIn(root, { filePath: "wide.png" })
      expect(result.output).toBe(
        "Image read successfully (resized from 3000x1000 to 2000x667, scale 0.667: a pixel here is about 1.5 in the original; a region in original pixels shows more detail)"
      )
      const attachment = result.attachments![0]!
      expect(attachment.mime).toBe("image/png")
      const bytes = bytesOf(attachment)
      const meta = yield* Effect.promise(() => sharp(bytes).metadata())
      expect([meta.format, meta.width, meta.height]).toEqual(["png", 2000, 667])
      expect(result.metadata).toMatchObject({
        width: 3000,
        height: 1000,
        format: "png",
        mime: "image/png",
        size: png.length,
        attached: { width: 2000, height: 667, format: "png", mime: "image/png", size: bytes.length }
      })
    }))

  it.effect("a tall WebP is resized on its long side and stays WebP", () =>
    Effect.gen(function*() {
      const webp = yield* make(() => raw(gradient(100, 2500), 100, 2500, 3).webp().toBuffer())
      const root = project({ "tall.webp": webp })
      const result = yield* readIn(root, { filePath: "tall.webp" })
      expect(result.output).toBe(
        "Image read successfully (resized from 100x2500 to 80x2000, scale 0.8: a pixel here is about 1.25 in the original; a region in original pixels shows more detail)"
      )
      expect(result.attachments![0]!.mime).toBe("image/webp")
    }))

  it.effect("an image over 5 MB is re-encoded under the cap (noise PNG -> JPEG, same pixel size)", () =>
    Effect.gen(function*() {
      const png = yield* make(() => raw(noise(1400, 1400, 3), 1400, 1400, 3).png().toBuffer())
      expect(png.length).toBeGreaterThan(5 * MB)
      const root = project({ "noise.png": png })
      const result = yield* readIn(root, { filePath: "noise.png" })
      const attachment = result.attachments![0]!
      const bytes = bytesOf(attachment)
      expect(bytes.length).toBeLessThanOrEqual(5 * MB)
      expect(attachment.mime).toBe("image/jpeg")
      const meta = yield* Effect.promise(() => sharp(bytes).metadata())
      expect([meta.format, meta.width, meta.height]).toEqual(["jpeg", 1400, 1400])
      expect(result.output).toMatch(
        /^Image read successfully \(re-encoded from PNG \(\d+\.\d MiB\) to JPEG \(\d+\.\d MiB\) to fit the 5\.0 MiB limit\)$/
      )
      expect(result.metadata).toMatchObject({ width: 1400, height: 1400, format: "png", attached: { format: "jpeg" } })
    }))

  it.effect("transparency over the byte cap is kept: WebP, not JPEG", () =>
    Effect.gen(function*() {
      const png = yield* make(() => raw(noise(300, 300, 4), 300, 300, 4).png().toBuffer())
      const root = project({ "alpha.png": png })
      const result = yield* readIn(root, { filePath: "alpha.png" }).pipe(
        Effect.provideService(ImageLimits, { maxDimension: 2000, maxBytes: 200 * 1024, maxPixels: 100_000_000 })
      )
      const attachment = result.attachments![0]!
      expect(attachment.mime).toBe("image/webp")
      expect(bytesOf(attachment).length).toBeLessThanOrEqual(200 * 1024)
      const meta = yield* Effect.promise(() => sharp(bytesOf(attachment)).metadata())
      expect(meta.hasAlpha).toBe(true)
    }))

  it.effect("the limits are an Effect Context.Reference: smaller limits resize smaller", () =>
    Effect.gen(function*() {
      const png = yield* make(() => raw(gradient(300, 200), 300, 200, 3).png().toBuffer())
      const root = project({ "shot.png": png })
      const result = yield* readIn(root, { filePath: "shot.png" }).pipe(
        Effect.provideService(ImageLimits, { maxDimension: 100, maxBytes: 5 * MB, maxPixels: 100_000_000 })
      )
      expect(result.output).toBe(
        "Image read successfully (resized from 300x200 to 100x67, scale 0.333: a pixel here is about 3 in the original; a region in original pixels shows more detail)"
      )
    }))

  it.effect("an image over the pixel limit is refused before it is decoded", () =>
    Effect.gen(function*() {
      const png = yield* make(() => raw(gradient(100, 100), 100, 100, 3).png().toBuffer())
      const root = project({ "big.png": png })
      const error = yield* failIn(root, { filePath: "big.png" }).pipe(
        Effect.provideService(ImageLimits, { maxDimension: 2000, maxBytes: 5 * MB, maxPixels: 1000 })
      )
      expect(error._tag).toBe("InvalidMedia")
      expect(error.message).toBe(
        `Cannot read ${root}/big.png: the image is 100x100 pixels, over the 1,000-pixel limit for decoding`
      )
    }))
})

describe("images: corrupt", () => {
  it.effect("a PNG with a valid signature, header and IEND but damaged pixel data is InvalidMedia", () =>
    Effect.gen(function*() {
      const png = yield* make(() => raw(noise(64, 64, 3), 64, 64, 3).png().toBuffer())
      const damaged = Buffer.from(png)
      const idat = damaged.indexOf("IDAT")
      for (let i = idat + 10; i < idat + 60; i++) damaged[i] = damaged[i]! ^ 0x5a
      const root = project({ "broken.png": damaged })
      const error = yield* failIn(root, { filePath: "broken.png" })
      expect(error._tag).toBe("InvalidMedia")
      expect(error.message).toMatch(
        new RegExp(`^Cannot read ${root}/broken\\.png: the image/png data is corrupt \\(.+\\)$`)
      )
    }))

  it.effect("a PNG whose header is garbage after the signature is InvalidMedia", () =>
    Effect.gen(function*() {
      const garbage = Buffer.concat([PNG.subarray(0, 8), Buffer.alloc(40, 0x41), PNG.subarray(PNG.length - 12)])
      const root = project({ "garbage.png": garbage })
      const error = yield* failIn(root, { filePath: "garbage.png" })
      // Not even sniffed as a PNG: refused as a name that promises one.
      expect(error._tag).toBe("InvalidMedia")
      expect(error.message).toContain("the name says image/png")
    }))

  it.effect("a JPEG with no image data is InvalidMedia", () =>
    Effect.gen(function*() {
      const root = project({ "empty.jpg": Buffer.from("ffd8ffe000104a46494600010100000100010000ffd9", "hex") })
      const error = yield* failIn(root, { filePath: "empty.jpg" })
      expect(error._tag).toBe("InvalidMedia")
    }))

  it.effect("an HTML page named .png is InvalidMedia, not an attachment", () =>
    Effect.gen(function*() {
      const root = project({ "logo.png": "<!doctype html>\n<html><body>Not found</body></html>\n" })
      const error = yield* failIn(root, { filePath: "logo.png" })
      expect(error).toMatchObject({ _tag: "InvalidMedia" })
      expect(error.message).toBe(`Cannot read ${root}/logo.png: the name says image/png but the content is text`)
    }))
})

describe("images: complete without a trailer", () => {
  // CPython 2.7-3.8 ship IDLE's minusnode.gif: whole image data, then no 0x3B trailer. Decoders
  // (sharp, browsers, PIL) show it; it was refused as "truncated (no trailer byte)".
  const noTrailer = GIF.subarray(0, GIF.length - 1)

  it.effect("a GIF whose blocks are whole but which has no trailer byte is attached", () =>
    Effect.gen(function*() {
      const root = project({ "minusnode.gif": noTrailer, "padded.gif": Buffer.concat([noTrailer, Buffer.alloc(4)]) })
      for (const name of ["minusnode.gif", "padded.gif"]) {
        const result = yield* readIn(root, { filePath: name })
        expect(result.output).toMatch(/^Image read successfully/)
        expect(result.attachments![0]!.mime).toBe("image/gif")
        const bare = yield* readIn(root, { filePath: name }).pipe(
          Effect.provide(OptionalPackages.layerWithout(["sharp"]))
        )
        expect(bare.attachments![0]!.mime).toBe("image/gif")
      }
    }))

  it.effect("a GIF cut inside its image data, its extension or its colour table is InvalidMedia", () =>
    Effect.gen(function*() {
      // 13 bytes of header and screen, a 6-byte colour table, an 8-byte extension, then the image.
      const root = project({
        "data.gif": GIF.subarray(0, GIF.length - 3),
        "ext.gif": GIF.subarray(0, 22),
        "table.gif": GIF.subarray(0, 16)
      })
      for (const name of ["data.gif", "ext.gif", "table.gif"]) {
        const error = yield* failIn(root, { filePath: name }).pipe(
          Effect.provide(OptionalPackages.layerWithout(["sharp"]))
        )
        expect(error._tag).toBe("InvalidMedia")
        expect(error.message).toBe(
          `Cannot read ${root}/${name}: the GIF is truncated (its blocks end before the image data does)`
        )
      }
    }))
})

describe("images without the optional package sharp", () => {
  const withoutSharp = OptionalPackages.layerWithout(["sharp"])

  it.effect("an image within the size cap is still attached, as it is, saying it was not validated or resized", () =>
    Effect.gen(function*() {
      const png = yield* make(() => raw(gradient(300, 200), 300, 200, 3).png().toBuffer())
      const root = project({ "shot.png": png })
      const result = yield* readIn(root, { filePath: "shot.png" }).pipe(Effect.provide(withoutSharp))
      expect(result.output).toBe(
        "Image read successfully (not validated or resized: the optional package sharp is not installed; npm install sharp adds it)"
      )
      expect(result.attachments).toHaveLength(1)
      expect(bytesOf(result.attachments![0]!).equals(png)).toBe(true)
      expect(result.metadata).not.toHaveProperty("width")
      // With sharp (the default) the same file is decoded.
      expect((yield* readIn(root, { filePath: "shot.png" })).metadata).toMatchObject({ width: 300, height: 200 })
    }))

  it.effect("an image over the size cap is MissingPackage, naming the package and the command", () =>
    Effect.gen(function*() {
      const png = yield* make(() => raw(noise(300, 200, 3), 300, 200, 3).png().toBuffer())
      const root = project({ "noise.png": png })
      const error = yield* failIn(root, { filePath: "noise.png" }).pipe(
        Effect.provide(withoutSharp),
        Effect.provideService(ImageLimits, { maxDimension: 2000, maxBytes: 50_000, maxPixels: 100_000_000 })
      )
      expect(error._tag).toBe("MissingPackage")
      expect(error.message).toBe(
        `Cannot read ${root}/noise.png: fitting an image of ${
          (png.length / 1024).toFixed(1)
        } KiB to the 48.8 KiB attachment limit needs the optional package sharp, which is not installed. Install it with: npm install sharp`
      )
    }))

  it.effect("a PDF is still attached", () =>
    Effect.gen(function*() {
      const root = project({ "doc.pdf": PDF })
      const result = yield* readIn(root, { filePath: "doc.pdf" }).pipe(Effect.provide(withoutSharp))
      expect(result.output).toBe("PDF read successfully")
      expect(result.attachments).toHaveLength(1)
    }))
})
