/**
 * The tail scanner: a pure, incremental state machine that walks a text's bytes backwards from
 * its end and finds where its last N lines start, so a tail reads only those bytes. Lines end
 * at `\n`, `\r\n` or a lone `\r` (as code units of the encoding), and a final terminator does
 * not start an empty last line, exactly as the forward pager counts (`lines.ts`).
 *
 * It numbers nothing: the lines before the start are counted by the caller (the line index's
 * total, or a forward count of the bytes before it) — walking backwards gives no line numbers.
 */

import type { LineMeasure } from "./lines.js"

const LF = 10
const CR = 13
const EMPTY = new Uint8Array(0)

export interface TailOptions {
  /** Lines wanted from the end. */
  readonly count: number
  /**
   * Stop earlier when the lines found would render to more than this many bytes (the page cap):
   * a tail keeps the last lines that fit. Infinity: count only.
   */
  readonly maxBytes: number
  /** Bytes per code unit (1, 2 or 4) and the index of the significant byte in a unit. */
  readonly unit: number
  readonly low: number
  /** Where the text starts (after a byte-order mark): nothing before it is a line. */
  readonly origin: number
  /** The end of the text (its size). */
  readonly end: number
  /** What a line renders to, from its first bytes (`lineMeasure` of the text's codec). */
  readonly measure: LineMeasure
}

export interface TailStart {
  /** Byte position where the first of the tail's lines starts. */
  readonly position: number
  /** Lines from `position` to the end. */
  readonly lines: number
  /** The walk reached the start of the text: `lines` is the whole text and no line comes before. */
  readonly atOrigin: boolean
  /** Fewer lines than asked because the page cap stopped the walk. */
  readonly cappedByBytes: boolean
  /**
   * Under a byte cap, each line found, the last first: where it starts, what it renders to but
   * for its number's digits, and how often its number is printed (see `fitNumbered`).
   */
  readonly measured: ReadonlyArray<readonly [start: number, bytes: number, numbers: number]>
}

export class TailScanner {
  private readonly options: TailOptions
  /** Line starts found so far (each after a terminator, before the end). */
  private found = 0
  /** The start of the last line found. */
  private start: number
  /** The unit after the current one (in file order) was a `\n`: a `\r` here is its CRLF. */
  private afterIsLF = false
  /**
   * The line being walked through, as far as the chunks already pushed hold it: its first bytes
   * among those (at most `measure.keep`, copied: a caller may reuse its buffers) and how many
   * bytes that part has in all.
   */
  private carried: Uint8Array = EMPTY
  private carriedBytes = 0
  private bytes = 0
  private readonly measured: Array<readonly [number, number, number]> = []
  private state: "walk" | "done" = "walk"
  private capped = false
  private atOrigin = false

  constructor(options: TailOptions) {
    this.options = options
    this.start = options.end
    if (options.count <= 0 || options.end <= options.origin) this.finish(options.end <= options.origin)
  }

  get done(): boolean {
    return this.state === "done"
  }

  /**
   * Feed the chunk that ends where the previous one began, starting at byte `position` (aligned
   * to a code unit from `origin`). The first chunk ends at `end`.
   */
  pushBackward(chunk: Uint8Array, position: number): void {
    if (this.options.unit === 1) return this.pushBytesBackward(chunk, position)
    const { low, unit } = this.options
    // A partial code unit at the very end belongs to the last line (the decoder replaces it).
    const whole = chunk.length - (chunk.length % unit)
    /** Where the bytes of the line being walked end in this chunk: its terminator, or the chunk's end. */
    let lineEnd = chunk.length
    for (let at = whole - unit; at >= 0 && this.state === "walk"; at -= unit) {
      const byte = chunk[at + low]!
      if ((byte === LF || byte === CR) && this.isWhole(chunk, at)) {
        // A `\r` before a `\n` is the CRLF's first half: not a terminator of its own.
        const terminator = byte === LF || !this.afterIsLF
        this.afterIsLF = byte === LF
        const next = position + at + unit
        // A terminator ends a line: the line after it starts at `next`, unless `next` is the end.
        if (terminator && next < this.options.end) this.lineStart(next, chunk.subarray(at + unit, lineEnd))
        lineEnd = at
      } else {
        this.afterIsLF = false
      }
    }
    if (this.state === "walk") this.carry(chunk.subarray(0, lineEnd))
  }

  /**
   * `pushBackward` for one-byte units: the terminators found by native searches (`lastIndexOf`,
   * memrchr) instead of a look at every byte; the bytes between them are one line's.
   */
  private pushBytesBackward(chunk: Uint8Array, position: number): void {
    let at = chunk.length - 1
    let cr = at >= 0 ? chunk.lastIndexOf(CR, at) : -1
    let lineEnd = chunk.length
    while (at >= 0 && this.state === "walk") {
      if (cr > at) cr = chunk.lastIndexOf(CR, at)
      const t = Math.max(chunk.lastIndexOf(LF, at), cr)
      if (t === -1) {
        this.afterIsLF = false
        break
      }
      // Bytes after the terminator (to `at`) belong to the line it ends; none is a `\n`.
      if (at > t) this.afterIsLF = false
      const isLF = chunk[t] === LF
      const terminator = isLF || !this.afterIsLF
      this.afterIsLF = isLF
      const next = position + t + 1
      if (terminator && next < this.options.end) this.lineStart(next, chunk.subarray(t + 1, lineEnd))
      lineEnd = t
      at = t - 1
    }
    if (this.state === "walk") this.carry(chunk.subarray(0, lineEnd))
  }

  /** The walk reached the origin (or the caller stopped reading): the result. */
  result(): TailStart {
    if (this.state === "walk") {
      // The text's first line starts at the origin.
      if (this.start > this.options.origin) this.lineStart(this.options.origin, EMPTY)
      if (this.state === "walk") this.finish(true)
    }
    return {
      position: this.start,
      lines: this.found,
      atOrigin: this.atOrigin,
      cappedByBytes: this.capped,
      measured: this.measured
    }
  }

  private isWhole(chunk: Uint8Array, at: number): boolean {
    for (let k = 0; k < this.options.unit; k++) {
      if (k !== this.options.low && chunk[at + k] !== 0) return false
    }
    return true
  }

  /** The first bytes (up to `keep`) of `part` followed by what was carried of its line. */
  private headOf(part: Uint8Array): Uint8Array {
    const keep = this.options.measure.keep
    if (part.length >= keep || this.carried.length === 0) return part.length > keep ? part.subarray(0, keep) : part
    const head = new Uint8Array(Math.min(keep, part.length + this.carried.length))
    head.set(part)
    head.set(this.carried.subarray(0, head.length - part.length), part.length)
    return head
  }

  /** The chunk ends inside a line: keep its first bytes for when the line's start is found. */
  private carry(part: Uint8Array): void {
    if (this.options.maxBytes === Infinity) return
    this.carried = this.headOf(part).slice()
    this.carriedBytes += part.length
  }

  /** A line starts at `position`; `part` is its bytes in the chunk being walked, before what was carried. */
  private lineStart(position: number, part: Uint8Array): void {
    // Without a byte cap nothing is charged: the lines are counted, not measured.
    if (this.options.maxBytes !== Infinity) {
      const head = this.headOf(part)
      const { bytes, numbers } = this.options.measure.measure(head, part.length + this.carriedBytes <= head.length)
      // A digit for each print of the number: no fewer lines than fit are found, and
      // `fitNumbered` charges the rest once the numbers are known.
      const cost = bytes + numbers
      // At least one line is always shown; the forward pager cuts it if it must.
      if (this.found > 0 && this.bytes + cost > this.options.maxBytes) {
        this.capped = true
        return this.finish(false)
      }
      this.bytes += cost
      this.measured.push([position, bytes, numbers])
    }
    this.carried = EMPTY
    this.carriedBytes = 0
    this.found++
    this.start = position
    if (position <= this.options.origin) return this.finish(true)
    if (this.found >= this.options.count) this.finish(false)
  }

  private finish(atOrigin: boolean): void {
    this.atOrigin = atOrigin || this.start <= this.options.origin
    this.state = "done"
  }
}

/** The tail of bytes in memory, in one go. */
export const tailStartOf = (bytes: Uint8Array, options: Omit<TailOptions, "end">): TailStart => {
  const scanner = new TailScanner({ ...options, end: bytes.length })
  scanner.pushBackward(bytes.subarray(options.origin), options.origin)
  return scanner.result()
}

const digits = (n: number): number => String(n).length

/**
 * A tail's lines once the lines before them are counted (`before`): each is charged its number's
 * digits, and lines are dropped from the front until the rest fit `maxBytes` (one always stays).
 * What the page then shows ends at the text's last line, as full as the cap allows.
 */
export const fitNumbered = (
  tail: TailStart,
  before: number,
  maxBytes: number
): { readonly position: number; readonly lines: number; readonly skipped: number } => {
  const measured = tail.measured
  if (measured.length < tail.lines || tail.lines <= 1) return { position: tail.position, lines: tail.lines, skipped: 0 }
  let total = 0
  let kept = 0
  for (; kept < tail.lines; kept++) {
    const [, bytes, numbers] = measured[kept]!
    const cost = bytes + numbers * digits(before + tail.lines - kept)
    if (kept > 0 && total + cost > maxBytes) break
    total += cost
  }
  return { position: measured[kept - 1]![0], lines: kept, skipped: tail.lines - kept }
}
