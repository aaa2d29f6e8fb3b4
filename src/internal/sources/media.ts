/**
 * The media source: images and PDFs whose bytes say so are attached, from the checked descriptor
 * or from bytes already read (a web response). An attachment is complete (end markers checked);
 * an image is decoded before it is attached (sharp/libvips), so a file whose bytes start like a
 * PNG but do not decode is `InvalidMedia`, never an attachment. Width, height and format are
 * reported; an image over `ImageLimits` (default 2000 px per side, 5 MB encoded) is downscaled
 * and/or re-encoded so one screenshot can never break a session.
 */
import type { File } from "@effect/platform/FileSystem"
import type * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { SharpConstructor } from "sharp"
import { ImageLimits, PageLimits } from "../../Limits.js"
import { ModelInput } from "../../ModelInput.js"
import { OptionalPackages, PackageNotInstalled } from "../../OptionalPackages.js"
import { formatBytes, InvalidMedia, InvalidParams, MediaTooLarge, MissingPackage } from "../../ReadError.js"
import type { ReadResult } from "../../ReadResult.js"
import { detect } from "../core/encoding.js"
import { incompleteReason, mediaExtensions, mediaKind } from "../core/media.js"
import { readFully } from "../io/bytes.js"
import { fromPlatformError } from "../io/platformError.js"
import { type Target } from "../read/access.js"
import { endedEarly } from "../read/open.js"
import type { FileSourceRequest } from "./types.js"

export { ImageLimits, type ImageLimitsShape } from "../../Limits.js"

export type ImageFormat = "png" | "jpeg" | "gif" | "webp"

const formatMime: Record<ImageFormat, string> = {
  png: "image/png",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp"
}

export interface ImageFacts {
  readonly width: number
  readonly height: number
  readonly format: ImageFormat
}

export interface PreparedImage {
  /** The file as it is. */
  readonly original: ImageFacts & { readonly size: number }
  /** What to attach: the file's own bytes when it is within the limits. */
  readonly attached: ImageFacts & { readonly size: number; readonly mime: string; readonly bytes: Uint8Array }
  /** The attachment differs from the file. */
  readonly changed: boolean
  /** Said after `Image read successfully`, in parentheses, when the attachment differs. */
  readonly detail: string | undefined
  /** Frames of the file (more than 1: animated), when it was re-encoded. */
  readonly frames?: number | undefined
  /** Attached pixels per original pixel of what is shown (1: full resolution), when it was re-encoded. */
  readonly scale?: number | undefined
}

/**
 * sharp loads libvips: only when an image is read. It is an optional package: `undefined` when it
 * is not installed (other load failures are defects).
 */
const loadSharp = Effect.flatMap(
  OptionalPackages,
  (packages) =>
    Effect.promise(() =>
      packages.load("sharp").then((m) => m.default as SharpConstructor, (error: unknown) => {
        if (error instanceof PackageNotInstalled) return undefined
        throw error
      })
    )
)

/** sharp's messages repeat libvips' lines; the first one says it. */
const firstLine = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error)).split("\n").map((line) => line.trim()).find((line) =>
    line.length > 0
  ) ?? "unknown error"

const asFormat = (format: string | undefined): ImageFormat | undefined =>
  format === "png" || format === "jpeg" || format === "gif" || format === "webp" ? format : undefined

/** Qualities tried, in order, when re-encoding to fit the byte limit. */
const QUALITIES = [85, 70, 55, 40] as const
/** Each further step scales the image down by this much. */
const SHRINK = 0.75

/** A part of an image to look at, in the original image's pixels (EXIF orientation applied). */
export interface ImageRegion {
  readonly x: number
  readonly y: number
  readonly width: number
  readonly height: number
}

/** What a read asks of an image besides the whole of it: a region, a frame, the full resolution. */
export interface ImageRequest {
  readonly region?: ImageRegion | undefined
  /** The frame of an animated image (1-based). */
  readonly frame?: number | undefined
  /** Attach at the original resolution (the region's, or the image's), within `maxFullDimension`. */
  readonly fullResolution?: boolean | undefined
}

/** Longest side of a full-resolution read when `ImageLimits` does not say (8000 px). */
export const DEFAULT_MAX_FULL_DIMENSION = 8000

/** Why `region` does not fit an image of `width` x `height`, or undefined when it does. */
export const regionProblem = (region: ImageRegion, width: number, height: number): string | undefined => {
  const at = `region x=${region.x} y=${region.y} ${region.width}x${region.height}`
  if (region.x >= width || region.y >= height) {
    return `${at} starts outside the ${width}x${height} image (x must be below ${width}, y below ${height})`
  }
  if (region.x + region.width > width) {
    return `${at} reaches past the image's right edge (x + width = ${
      region.x + region.width
    }, the image is ${width} pixels wide)`
  }
  if (region.y + region.height > height) {
    return `${at} reaches past the image's bottom edge (y + height = ${
      region.y + region.height
    }, the image is ${height} pixels high)`
  }
  return undefined
}

/** A scale factor as people read it: 0.5, 0.333, 0.0625. */
const formatScale = (scale: number) => String(Number(scale.toPrecision(3)))

/**
 * Decode `bytes` (sniffed as `mime`), and return what to attach: the image, its `frame`, or its
 * `region` (cropped before any downscale), fitted to `ImageLimits` unless `fullResolution`. Fails
 * with `InvalidMedia` when the image does not decode or is over the pixel limit, `InvalidParams`
 * for a region or frame the image does not have. `undefined` when sharp is not installed: the
 * image cannot be checked or resized.
 */
export const prepareImage = Effect.fn("Read.prepareImage")(function*(
  path: string,
  bytes: Uint8Array,
  mime: string,
  request: ImageRequest = {}
) {
  const limits = yield* ImageLimits
  const sharp = yield* loadSharp
  if (sharp === undefined) return undefined
  const invalid = (reason: string) => new InvalidMedia({ path, reason })
  const input = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const page = request.frame === undefined ? {} : { page: request.frame - 1 }
  // `limitInputPixels` guards every decode below; failOn "warning" turns damaged data into errors.
  const open = () => sharp(input, { failOn: "warning", limitInputPixels: limits.maxPixels, ...page })

  // The header only (no pixels decoded yet), so the pixel limit is checked below with a clear message.
  const meta = yield* Effect.tryPromise({
    try: () => sharp(input, { failOn: "warning", limitInputPixels: false }).metadata(),
    catch: (error) => invalid(`the ${mime} data cannot be decoded (${firstLine(error)})`)
  })
  const format = asFormat(meta.format)
  if (format === undefined || meta.width === undefined || meta.height === undefined) {
    return yield* invalid(`the ${mime} data cannot be decoded (unsupported image: ${meta.format ?? "unknown format"})`)
  }
  const frames = meta.pages ?? 1
  if (request.frame !== undefined && request.frame > frames) {
    return yield* new InvalidParams({
      reason: `frame ${request.frame} is past the last frame: ${path} has ${
        frames === 1 ? "1 frame" : `${frames} frames (1-${frames})`
      }`
    })
  }
  // One frame of an animation: the frames are stacked, each `pageHeight` tall.
  const frameHeight = frames > 1 ? meta.pageHeight ?? meta.height : meta.height
  if (meta.width * frameHeight > limits.maxPixels) {
    return yield* invalid(
      `the image is ${meta.width}x${frameHeight} pixels, over the ${
        limits.maxPixels.toLocaleString("en-US")
      }-pixel limit for decoding`
    )
  }
  // Orientation from EXIF decides how the image is seen, so report, crop and resize by that.
  const width = meta.autoOrient?.width ?? meta.width
  const height = frames > 1 ? frameHeight : meta.autoOrient?.height ?? meta.height
  const original = { width, height, format, size: bytes.length }
  const region = request.region
  if (region !== undefined) {
    const problem = regionProblem(region, width, height)
    if (problem !== undefined) return yield* new InvalidParams({ reason: `${problem}: ${path}` })
  }
  // What is shown: the region, or the whole image.
  const shown = region === undefined ? { width, height } : { width: region.width, height: region.height }
  const maxFull = limits.maxFullDimension ?? DEFAULT_MAX_FULL_DIMENSION
  if (request.fullResolution === true && Math.max(shown.width, shown.height) > maxFull) {
    return yield* new InvalidParams({
      reason: `${
        region === undefined ? "the image" : "the region"
      } is ${shown.width}x${shown.height} pixels, over the ${maxFull}-pixel side a full-resolution read allows: read a region of it (${path})`
    })
  }
  const maxSide = request.fullResolution === true ? maxFull : limits.maxDimension

  const oversized = shown.width > maxSide || shown.height > maxSide
  const heavy = bytes.length > limits.maxBytes
  // A frame of an animation is re-encoded alone; the whole file goes as it is when it fits.
  const whole = region === undefined && request.frame === undefined
  if (whole && !oversized && !heavy) {
    // Decode every pixel once: a valid header over damaged data must not be attached.
    yield* Effect.tryPromise({
      try: () => open().stats(),
      catch: (error) => invalid(`the ${mime} data is corrupt (${firstLine(error)})`)
    })
    return {
      original,
      attached: { ...original, mime, bytes },
      changed: false,
      // The file as it is: said when the model asked for the full resolution (it may be over the usual size).
      detail: request.fullResolution === true ? `at full resolution, ${width}x${height}` : undefined
    } satisfies PreparedImage
  }

  const encode = (target: { width: number; height: number }, as: ImageFormat, quality: number | undefined) =>
    Effect.tryPromise({
      try: () => {
        // Oriented first, then cropped (in the coordinates the model was given), then resized.
        let pipeline = open().rotate()
        if (region !== undefined) {
          pipeline = pipeline.extract({ left: region.x, top: region.y, width: region.width, height: region.height })
        }
        if (target.width !== shown.width || target.height !== shown.height) {
          pipeline = pipeline.resize({ width: target.width, height: target.height, fit: "fill" })
        }
        switch (as) {
          case "png":
            pipeline = pipeline.png({ compressionLevel: 9 })
            break
          case "gif":
            pipeline = pipeline.gif()
            break
          case "webp":
            pipeline = pipeline.webp(quality === undefined ? {} : { quality })
            break
          case "jpeg":
            // JPEG has no alpha: flatten onto white rather than black. (Not mozjpeg: 30x slower on noisy images.)
            pipeline = pipeline.flatten({ background: "#ffffff" }).jpeg({ quality: quality ?? 85 })
            break
        }
        return pipeline.toBuffer({ resolveWithObject: true })
      },
      catch: (error) => invalid(`the ${mime} data is corrupt (${firstLine(error)})`)
    })

  // Fit inside maxSide x maxSide, keeping the aspect ratio.
  const scale = Math.min(1, maxSide / shown.width, maxSide / shown.height)
  let size = {
    width: Math.max(1, Math.round(shown.width * scale)),
    height: Math.max(1, Math.round(shown.height * scale))
  }
  // A frame alone is a still image: PNG, not a one-frame GIF.
  let result = yield* encode(size, request.frame !== undefined && format === "gif" ? "png" : format, undefined)
  let sizeDriven = false
  if (result.data.length > limits.maxBytes) {
    sizeDriven = true
    // Lossy and compact: WebP when there is transparency to keep, JPEG otherwise.
    const lossy: ImageFormat = meta.hasAlpha ? "webp" : "jpeg"
    search: for (;;) {
      for (const quality of QUALITIES) {
        result = yield* encode(size, lossy, quality)
        if (result.data.length <= limits.maxBytes) break search
      }
      // A full-resolution read is never scaled down to fit: it fails below instead.
      if (request.fullResolution === true || (size.width <= 1 && size.height <= 1)) break
      size = {
        width: Math.max(1, Math.round(size.width * SHRINK)),
        height: Math.max(1, Math.round(size.height * SHRINK))
      }
    }
    if (result.data.length > limits.maxBytes) {
      return yield* request.fullResolution === true
        ? new InvalidParams({
          reason: `at full resolution ${region === undefined ? "the image" : "the region"} does not fit the ${
            formatBytes(limits.maxBytes)
          } attachment limit: read a smaller region of it (${path})`
        })
        : invalid(`the image cannot be re-encoded under ${formatBytes(limits.maxBytes)}`)
    }
  }
  const attachedFormat = asFormat(result.info.format) ?? format
  const attached = {
    width: result.info.width,
    height: result.info.height,
    format: attachedFormat,
    size: result.data.length,
    mime: formatMime[attachedFormat],
    bytes: new Uint8Array(result.data.buffer, result.data.byteOffset, result.data.byteLength)
  }
  const parts: Array<string> = []
  if (request.frame !== undefined) parts.push(`frame ${request.frame} of ${frames}`)
  if (region !== undefined) {
    parts.push(`region x=${region.x} y=${region.y} ${region.width}x${region.height} of the ${width}x${height} image`)
  }
  if (attached.width !== shown.width || attached.height !== shown.height) {
    const factor = attached.width / shown.width
    parts.push(
      `resized from ${shown.width}x${shown.height} to ${attached.width}x${attached.height}, scale ${
        formatScale(factor)
      }: ` +
        `a pixel here is about ${
          formatScale(1 / factor)
        } in the original; a region in original pixels shows more detail`
    )
  } else if (region !== undefined || request.fullResolution === true) {
    parts.push("at full resolution")
  }
  if (sizeDriven || (heavy && whole)) {
    parts.push(
      attachedFormat === format
        ? `re-encoded from ${formatBytes(bytes.length)} to ${formatBytes(attached.size)} to fit the ${
          formatBytes(limits.maxBytes)
        } limit`
        : `re-encoded from ${format.toUpperCase()} (${formatBytes(bytes.length)}) to ${attachedFormat.toUpperCase()} (${
          formatBytes(attached.size)
        }) to fit the ${formatBytes(limits.maxBytes)} limit`
    )
  }
  return {
    original,
    attached,
    changed: true,
    detail: parts.length === 0 ? undefined : parts.join("; "),
    frames,
    scale: attached.width / shown.width
  } satisfies PreparedImage
})

/** Text kept from an image's metadata: at most this many entries, characters per entry, and in all. */
const EMBEDDED_TEXT = { entries: 12, perEntry: 400, total: 2_000 } as const

/** One line per text entry of the metadata (PNG tEXt/zTXt/iTXt), control characters shown as spaces, capped. */
const embeddedText = (comments: ReadonlyArray<{ readonly keyword: string; readonly text: string }>): Array<string> => {
  const lines: Array<string> = []
  let total = 0
  for (const { keyword, text } of comments) {
    if (lines.length === EMBEDDED_TEXT.entries || total >= EMBEDDED_TEXT.total) {
      lines.push(`(${comments.length - lines.length} more entries not shown)`)
      break
    }
    const flat = `${keyword}: ${text}`.replace(/[\u0000-\u001f\u007f]+/g, " ").trim()
    const room = Math.min(EMBEDDED_TEXT.perEntry, EMBEDDED_TEXT.total - total)
    const shown = flat.length > room ? `${flat.slice(0, room)}… (${flat.length - room} more characters)` : flat
    total += shown.length
    lines.push(shown)
  }
  return lines
}

/**
 * An image for a model that cannot see images: described in words, never attached. Its type,
 * pixel size (EXIF orientation applied), size, frames (animated GIF and WebP), and for a PNG the
 * text its metadata carries (what a screenshot tool writes: software, title, description …).
 * Only the header is decoded.
 */
export const describeImage = Effect.fn("Read.describeImage")(function*(request: AttachRequest) {
  const { bytes, mime, path } = request
  const sharp = yield* loadSharp
  const type = mime.slice("image/".length).toUpperCase()
  const facts: Array<string> = [type]
  let meta:
    | { readonly width: number; readonly height: number; readonly format: ImageFormat; readonly frames: number }
    | undefined
  let text: Array<string> = []
  if (sharp !== undefined) {
    const input = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    const header = yield* Effect.tryPromise({
      try: () => sharp(input, { failOn: "warning", limitInputPixels: false, animated: true }).metadata(),
      catch: (error) => new InvalidMedia({ path, reason: `the ${mime} data cannot be decoded (${firstLine(error)})` })
    })
    const format = asFormat(header.format)
    if (format === undefined || header.width === undefined || header.height === undefined) {
      return yield* new InvalidMedia({
        path,
        reason: `the ${mime} data cannot be decoded (unsupported image: ${header.format ?? "unknown format"})`
      })
    }
    const frames = header.pages ?? 1
    // An animation's frames are stacked: one frame is `pageHeight` tall.
    const frameHeight = frames > 1 ? header.pageHeight ?? header.height : header.height
    const width = header.autoOrient?.width ?? header.width
    const height = frames > 1 ? frameHeight : header.autoOrient?.height ?? header.height
    meta = { width, height, format, frames }
    facts.push(`${width}x${height} pixels`)
    if (frames > 1) {
      const delays = header.delay ?? []
      const duration = delays.reduce((sum, delay) => sum + delay, 0)
      facts.push(`${frames} frames (animated${duration > 0 ? `, ${(duration / 1000).toFixed(1)} s a loop` : ""})`)
    } else {
      facts.push("1 frame")
    }
    text = embeddedText(header.comments ?? [])
  } else {
    facts.push("pixel size not known (the optional package sharp is not installed; npm install sharp adds it)")
  }
  facts.push(formatBytes(bytes.length))
  const lines = [
    `Image not attached (you cannot see images here), described instead: ${facts.join(", ")}.`,
    ...(text.length === 0 ? [] : ["Text embedded in its metadata:", ...text.map((line) => `  ${line}`)])
  ]
  const output = lines.join("\n")
  const result: ReadResult = {
    title: request.title,
    output,
    metadata: {
      kind: "image",
      preview: output,
      path,
      truncated: false,
      mime,
      ...request.facts,
      ...request.metadata,
      ...(meta === undefined
        ? {}
        : { width: meta.width, height: meta.height, format: meta.format, frames: meta.frames })
    }
  }
  return result
})

/** What `attachBytes` attaches: bytes already read, and what to say about them. */
export interface AttachRequest {
  /** The path (or URL) errors and metadata name. */
  readonly path: string
  readonly title: string
  readonly bytes: Uint8Array
  readonly mime: string
  /** Size and modification time of what the bytes came from. */
  readonly facts: { readonly size: number; readonly mtime?: number }
  /** Extra metadata (a web page's URL and status). */
  readonly metadata?: Readonly<Record<string, unknown>>
  /** A region, a frame or the full resolution of an image. */
  readonly image?: ImageRequest | undefined
}

// Node's native encoder: `Encoding.encodeBase64` takes seconds on a 20 MB attachment.
export const dataUrl = (type: string, data: Uint8Array) =>
  `data:${type};base64,${Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("base64")}`

/** Attach an image or a PDF; a truncated or undecodable one is `InvalidMedia`. */
export const attachBytes = Effect.fn("Read.attach")(function*(request: AttachRequest) {
  const { bytes, mime, path } = request
  const kind = mediaKind(mime)
  if (kind === undefined) return yield* new InvalidMedia({ path, reason: `${mime} cannot be attached` })
  const incomplete = incompleteReason(mime, bytes)
  if (incomplete !== undefined) return yield* new InvalidMedia({ path, reason: incomplete })
  const input = yield* ModelInput
  // What the model cannot take is never attached: an image is described, a PDF here (from the web) refused.
  if (kind === "image" && !input.images) return yield* describeImage(request)
  if (kind === "pdf" && !input.pdfs) {
    return yield* new InvalidMedia({
      path,
      reason:
        "the model takes no PDF files, and a PDF from the web is not converted to text: save it in the workspace and read the file, which reads its text"
    })
  }
  const base = { path, truncated: false, mime, ...request.facts, ...request.metadata }
  // The bytes attached as they are, under `message`.
  const asIs = (message: string): ReadResult => ({
    title: request.title,
    output: message,
    metadata: { kind, preview: message, ...base },
    attachments: [{ type: "file", mime, url: dataUrl(mime, bytes) }]
  })
  const asked = request.image ?? {}
  const looksCloser = asked.region !== undefined || asked.frame !== undefined || asked.fullResolution === true
  if (kind === "pdf") {
    if (looksCloser) {
      return yield* new InvalidParams({ reason: `region, frame and fullResolution apply to images; ${path} is a PDF` })
    }
    return asIs("PDF read successfully")
  }
  const image = yield* prepareImage(path, bytes, mime, asked)
  if (image === undefined && looksCloser) {
    return yield* new MissingPackage({
      path,
      package: "sharp",
      purpose: "cropping an image, or taking one frame of it"
    })
  }
  if (image === undefined) {
    // Without sharp the bytes go as they are: only an image within the size cap.
    const limits = yield* ImageLimits
    if (bytes.length > limits.maxBytes) {
      return yield* new MissingPackage({
        path,
        package: "sharp",
        purpose: `fitting an image of ${formatBytes(bytes.length)} to the ${
          formatBytes(limits.maxBytes)
        } attachment limit`
      })
    }
    return asIs(
      "Image read successfully (not validated or resized: the optional package sharp is not installed; npm install sharp adds it)"
    )
  }
  const message = image.detail === undefined ? "Image read successfully" : `Image read successfully (${image.detail})`
  const { bytes: attachedBytes, ...attached } = image.attached
  const result: ReadResult = {
    title: request.title,
    output: message,
    metadata: {
      kind,
      preview: message,
      ...base,
      width: image.original.width,
      height: image.original.height,
      format: image.original.format,
      ...(image.changed ? { attached } : {}),
      ...(image.frames !== undefined && image.frames > 1 ? { frames: image.frames } : {}),
      ...(asked.frame === undefined ? {} : { frame: asked.frame }),
      ...(asked.region === undefined ? {} : { region: asked.region }),
      ...(image.scale === undefined || image.scale === 1 ? {} : { scale: image.scale })
    },
    attachments: [{ type: "file", mime: attached.mime, url: dataUrl(attached.mime, attachedBytes) }]
  }
  return result
})

const facts = (info: File.Info) => ({
  size: Number(info.size),
  ...Option.match(info.mtime, { onNone: () => ({}), onSome: (mtime) => ({ mtime: mtime.getTime() }) })
})

/**
 * Attach an image or a PDF, read from the descriptor that was checked (the path may lead
 * elsewhere by now). Images are decoded and fitted to `ImageLimits`; PDFs go as they are.
 */
const attach = (
  target: Target,
  info: File.Info,
  file: FileSystem.File,
  mime: string,
  image: ImageRequest | undefined
) =>
  Effect.gen(function*() {
    const size = Number(info.size)
    const { mediaBytes } = yield* PageLimits
    if (size > mediaBytes) {
      return yield* new MediaTooLarge({ path: target.absolute, mime, size, maxSize: mediaBytes })
    }
    yield* file.seek(0, "start")
    const buffer = new Uint8Array(size)
    const n = yield* readFully(file, buffer).pipe(Effect.mapError((e) => fromPlatformError(target.absolute, e)))
    if (n < size) yield* endedEarly(file, target, size)
    return yield* attachBytes({
      path: target.absolute,
      title: target.relative,
      bytes: buffer.subarray(0, n),
      mime,
      facts: facts(info),
      image
    })
  })

/**
 * The image request of a read: `region` and `frame` from the parameters or the selector (not
 * both), `fullResolution` from the parameters.
 */
export const imageRequestOf = (
  path: string,
  params: {
    readonly region?: ImageRegion | undefined
    readonly frame?: number | undefined
    readonly fullResolution?: boolean | undefined
  },
  selection: { readonly region?: ImageRegion | undefined; readonly frame?: number | undefined }
): Effect.Effect<ImageRequest, InvalidParams> => {
  const twice = (params.region !== undefined && selection.region !== undefined) ?
    "region" :
    params.frame !== undefined && selection.frame !== undefined
    ? "frame"
    : undefined
  if (twice !== undefined) {
    return Effect.fail(
      new InvalidParams({
        reason: `${twice} is given twice for ${path}: use either the :${twice}= selector or the ${twice} parameter`
      })
    )
  }
  return Effect.succeed({
    region: params.region ?? selection.region,
    frame: params.frame ?? selection.frame,
    fullResolution: params.fullResolution
  })
}

/**
 * The media source: images and PDFs whose bytes say so are attached; a name that promises one
 * over other content (or nothing) is `InvalidMedia`.
 */
export const readMedia = Effect.fnUntraced(function*(request: FileSourceRequest) {
  const { head, sniffed, target } = request
  const mime = sniffed === undefined ? undefined : mediaKind(sniffed.mime) === undefined ? undefined : sniffed.mime
  if (mime !== undefined) {
    const image = yield* imageRequestOf(target.absolute, request.params, request.selection)
    return yield* attach(target, request.info, request.file, mime, image)
  }
  const promised = mediaExtensions.get(request.extension) ?? "media"
  const reason = head.length === 0
    ? "the file is empty"
    : `the name says ${promised} but the content is ${
      sniffed?.mime ??
        (detect(head, head.length >= Number(request.info.size))._tag === "Binary" ? "not a recognised format" : "text")
    }`
  return yield* new InvalidMedia({ path: target.absolute, reason })
})
