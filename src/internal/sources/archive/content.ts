/**
 * Collecting one member's bytes as they inflate: the size and ratio caps enforced on every
 * chunk (declared sizes can lie), and binary members recognised from their first bytes so
 * their rest is never inflated.
 */
import * as zlib from "node:zlib"
import { SAMPLE_BYTES } from "../../core/binary.js"
import { type Detection, detect } from "../../core/encoding.js"
import { type ArchiveLimits, ArchiveFailure, type EntryTable, messages, type RawEntry } from "./model.js"

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

export type Content =
  | { readonly _tag: "Text"; readonly bytes: Uint8Array; readonly detection: Text }
  /** Not text: its first bytes (up to `SAMPLE_BYTES`), to say what it looks like. */
  | { readonly _tag: "Binary"; readonly head: Uint8Array }

export interface CollectorOptions {
  readonly member: string
  /** What the archive says the member's size is; undefined where it says nothing (plain gzip). */
  readonly declaredSize: number | undefined
  readonly limits: ArchiveLimits
  /** Compressed bytes behind what has inflated so far; undefined when the member is stored. */
  readonly compressed: () => number | undefined
}

export class Collector {
  private readonly chunks: Array<Uint8Array> = []
  private total = 0
  private judged = false

  constructor(private readonly options: CollectorOptions) {}

  get size(): number {
    return this.total
  }

  /** Take a chunk; "binary" means stop: the member is not text. Throws on a cap. */
  push(chunk: Uint8Array): "more" | "binary" {
    const { declaredSize, limits, member } = this.options
    this.total += chunk.length
    if (this.total > limits.maxMemberBytes) {
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
      if (detect(this.bytes().subarray(0, SAMPLE_BYTES), false)._tag === "Binary") return "binary"
    }
    return "more"
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
