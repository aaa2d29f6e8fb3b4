/**
 * The tail scanner: a pure, incremental state machine that walks a text's bytes backwards from
 * its end and finds where its last N lines start, so a tail reads only those bytes. Lines end
 * at `\n`, `\r\n` or a lone `\r` (as code units of the encoding), and a final terminator does
 * not start an empty last line, exactly as the forward pager counts (`lines.ts`).
 *
 * It numbers nothing: the lines before the start are counted by the caller (the line index's
 * total, or a forward count of the bytes before it) — walking backwards gives no line numbers.
 */

const LF = 10
const CR = 13

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
  /** The most bytes one rendered line can take (a cut line and its notice). */
  readonly maxLineBytes: number
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
}

/** Rendered bytes of a line of `bytes` raw bytes, as an upper estimate: number, `": "`, text, newline. */
const costOf = (bytes: number, unit: number, maxLineBytes: number): number =>
  // UTF-16/32: a code unit of 2 bytes may become 3 UTF-8 bytes.
  Math.min(unit === 1 ? bytes : Math.ceil(bytes * 1.5), maxLineBytes) + 16

export class TailScanner {
  private readonly options: TailOptions
  /** Line starts found so far (each after a terminator, before the end). */
  private found = 0
  /** The start of the last line found. */
  private start: number
  /** The unit after the current one (in file order) was a `\n`: a `\r` here is its CRLF. */
  private afterIsLF = false
  /** Raw bytes of the line being walked through. */
  private lineBytes = 0
  private bytes = 0
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
    const { unit, low } = this.options
    // A partial code unit at the very end belongs to the last line (the decoder replaces it).
    const whole = chunk.length - (chunk.length % unit)
    this.lineBytes += chunk.length - whole
    for (let at = whole - unit; at >= 0 && this.state === "walk"; at -= unit) {
      const byte = chunk[at + low]!
      let terminator = false
      if ((byte === LF || byte === CR) && this.isWhole(chunk, at)) {
        terminator = byte === LF || !this.afterIsLF
        this.afterIsLF = byte === LF
      } else {
        this.afterIsLF = false
      }
      const next = position + at + unit
      // A terminator ends a line: the line after it starts at `next`, unless `next` is the end.
      if (terminator && next < this.options.end) this.lineStart(next)
      else if (!terminator) this.lineBytes += unit
    }
  }

  /**
   * `pushBackward` for one-byte units: the terminators found by native searches (`lastIndexOf`,
   * memrchr) instead of a look at every byte; the bytes between them are one line's.
   */
  private pushBytesBackward(chunk: Uint8Array, position: number): void {
    let at = chunk.length - 1
    let cr = at >= 0 ? chunk.lastIndexOf(CR, at) : -1
    while (at >= 0 && this.state === "walk") {
      if (cr > at) cr = chunk.lastIndexOf(CR, at)
      const t = Math.max(chunk.lastIndexOf(LF, at), cr)
      if (t === -1) {
        this.lineBytes += at + 1
        this.afterIsLF = false
        return
      }
      // Bytes after the terminator (to `at`) belong to the line it ends; none is a `\n`.
      if (at > t) {
        this.lineBytes += at - t
        this.afterIsLF = false
      }
      const isLF = chunk[t] === LF
      const terminator = isLF || !this.afterIsLF
      this.afterIsLF = isLF
      const next = position + t + 1
      if (terminator && next < this.options.end) this.lineStart(next)
      else if (!terminator) this.lineBytes += 1
      at = t - 1
    }
  }

  /** The walk reached the origin (or the caller stopped reading): the result. */
  result(): TailStart {
    if (this.state === "walk") {
      // The text's first line starts at the origin.
      if (this.start > this.options.origin) this.lineStart(this.options.origin)
      if (this.state === "walk") this.finish(true)
    }
    return { position: this.start, lines: this.found, atOrigin: this.atOrigin, cappedByBytes: this.capped }
  }

  private isWhole(chunk: Uint8Array, at: number): boolean {
    for (let k = 0; k < this.options.unit; k++) {
      if (k !== this.options.low && chunk[at + k] !== 0) return false
    }
    return true
  }

  private lineStart(position: number): void {
    const cost = costOf(this.lineBytes, this.options.unit, this.options.maxLineBytes)
    this.lineBytes = 0
    // At least one line is always shown; the forward pager cuts it if it must.
    if (this.found > 0 && this.bytes + cost > this.options.maxBytes) {
      this.capped = true
      return this.finish(false)
    }
    this.bytes += cost
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
