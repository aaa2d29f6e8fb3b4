/**
 * Collecting one member's bytes as they inflate: the size and ratio caps enforced on every
 * chunk (declared sizes can lie), and binary members recognised from their first bytes so
 * their rest is never inflated.
 */
import * as zlib from "node:zlib"
import { SAMPLE_BYTES } from "../../core/binary.js"
import { detect, type Detection } from "../../core/encoding.js"
import { LinePager, type Page, type PageOptions } from "../../core/lines.js"
import { ArchiveFailure, type ArchiveLimits, type EntryTable, messages, type RawEntry } from "./model.js"

/** Random access to the archive's bytes; a short result means the end of the file. */
export interface ByteSource {
  readonly size: number
  readonly readAt: (position: number, length: number) => Promise<Uint8Array>
}

export interface ScanResult {
  readonly table: EntryTable
  /** Every entry was seen (false when the scan stopped at the member it was looking for). */
  readonly complete: boolean
  readonly found?: { readonly path: string; readonly entry: RawEntry; readonly content: Content }
  /** The archive is damaged after `found` was read: why a later copy of it could not be looked for. */
  readonly damaged?: string
  /** A `.gz` that is no tar: the one file it compresses, inflated (`size` bytes). */
  readonly single?: { readonly name: string; readonly size: number; readonly content: Content }
}

export type Text = Extract<Detection, { readonly _tag: "Text" }>

/**
 * A text member too large to hold (it inflates past `maxMemberBytes`): read by streaming it
 * again from the start for each page. `open` yields its bytes from its first (BOM included).
 */
export interface Streamed {
  readonly _tag: "Stream"
  readonly detection: Text
  /** Its size in bytes when the archive states it (a tar header); undefined for a plain gzip. */
  readonly size: number | undefined
  readonly open: () => AsyncGenerator<Uint8Array>
}

export type Content =
  | { readonly _tag: "Text"; readonly bytes: Uint8Array; readonly detection: Text }
  /** Not text: its first bytes (up to `SAMPLE_BYTES`), to say what it looks like. */
  | { readonly _tag: "Binary"; readonly head: Uint8Array }
  | Streamed

export interface CollectorOptions {
  readonly member: string
  /** What the archive says the member's size is; undefined where it says nothing (plain gzip). */
  readonly declaredSize: number | undefined
  readonly limits: ArchiveLimits
  /** Compressed bytes behind what has inflated so far; undefined when the member is stored. */
  readonly compressed: () => number | undefined
  /**
   * The member can be streamed again (a gzip or tar stream): past `maxMemberBytes`, `push`
   * answers "over" and drops what it held instead of failing on the cap.
   */
  readonly streamable?: boolean | undefined
}

export class Collector {
  private readonly chunks: Array<Uint8Array> = []
  private total = 0
  private judged = false

  constructor(private readonly options: CollectorOptions) {}

  get size(): number {
    return this.total
  }

  /**
   * Take a chunk; "binary" means stop: the member is not text; "over" (a streamable text member
   * past the size cap): stop, and stream it (`detection` says how it decodes). Throws on a cap.
   */
  push(chunk: Uint8Array): "more" | "binary" | "over" {
    const { declaredSize, limits, member } = this.options
    this.total += chunk.length
    if (this.total > limits.maxMemberBytes) {
      if (this.options.streamable === true) {
        // Judged now if the cap is below the sample size (tests use small caps).
        if (!this.judged) {
          this.judged = true
          const detection = detect(Buffer.concat([...this.chunks, chunk]).subarray(0, SAMPLE_BYTES), false)
          if (detection._tag === "Binary") return "binary"
          this.sample = detection
        }
        this.chunks.length = 0
        return "over"
      }
      throw new ArchiveFailure(messages.inflatesTooLarge(member, declaredSize, limits), member)
    }
    const compressed = this.options.compressed()
    if (
      compressed !== undefined && this.total > limits.ratioMinBytes &&
      this.total > limits.maxRatio * Math.max(compressed, 1)
    ) {
      throw new ArchiveFailure(messages.bomb(member, compressed, this.total, limits, true), member)
    }
    this.chunks.push(chunk)
    if (!this.judged && this.total >= SAMPLE_BYTES) {
      this.judged = true
      const detection = detect(this.bytes().subarray(0, SAMPLE_BYTES), false)
      if (detection._tag === "Binary") return "binary"
      this.sample = detection
    }
    return "more"
  }

  /** How the member decodes, judged from its first bytes (once `SAMPLE_BYTES` have arrived). */
  private sample: Text | undefined = undefined

  /** The text detection of a member that went "over". */
  get detection(): Text {
    return this.sample!
  }

  /** The whole member has arrived. */
  end(): Content {
    const bytes = this.bytes()
    const detection = detect(bytes.subarray(0, SAMPLE_BYTES), bytes.length <= SAMPLE_BYTES)
    return detection._tag === "Binary" ? this.binary() : { _tag: "Text", bytes, detection }
  }

  /** The member is binary (`push` said so, or `end` found it): what its first bytes are. */
  binary(): Content {
    return { _tag: "Binary", head: this.bytes().slice(0, SAMPLE_BYTES) }
  }

  bytes(): Uint8Array {
    if (this.chunks.length !== 1) {
      const joined = Buffer.concat(this.chunks, this.total)
      this.chunks.length = 0
      this.chunks.push(joined)
    }
    return this.chunks[0] ?? new Uint8Array(0)
  }
}

const table = (() => {
  const out = new Int32Array(256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    out[n] = c
  }
  return out
})()

/** CRC-32 (the ZIP polynomial): native where Node has it. */
export const crc32 = (bytes: Uint8Array): number => {
  const native = (zlib as { readonly crc32?: (data: Uint8Array) => number }).crc32
  if (typeof native === "function") return native(bytes) >>> 0
  let c = -1
  for (let i = 0; i < bytes.length; i++) c = table[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8)
  return (c ^ -1) >>> 0
}

/**
 * One page of a streamed member: inflate it from the start, feed the pager, and stop as soon as
 * the page is known (by default `countAhead: 0`: the lines after it are not counted, so a page
 * short of the end says "at least"; a tail's page counts to the end). Memory holds one chunk and
 * the page; time grows with how deep the page is.
 */
export const pageStream = async (content: Streamed, options: PageOptions, signal: AbortSignal): Promise<Page> => {
  const pager = new LinePager({ countAhead: 0, ...options }, content.detection.codec)
  let bom = content.detection.bomLength
  let ended = true
  for await (const chunk of content.open()) {
    if (signal.aborted) throw new ArchiveFailure("Interrupted")
    const piece = bom > 0 ? chunk.subarray(Math.min(bom, chunk.length)) : chunk
    bom -= chunk.length - piece.length
    if (piece.length > 0) pager.push(piece)
    if (pager.done) {
      ended = false
      break
    }
  }
  return pager.end(ended)
}
