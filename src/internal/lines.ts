/**
 * The line pager: a pure, incremental state machine over the bytes of a UTF-8 text file.
 *
 * Feed it chunks in order; it keeps only the lines of the requested window (each capped to the
 * bytes a cut line can need), counts every other line on raw bytes without decoding, and says
 * when the caller can stop reading. Lines end at `\n`, `\r\n` or a lone `\r`; a final line
 * terminator does not start an extra empty line (as editors and `wc -l` count).
 */

export const DEFAULT_LIMIT = 2000
export const MAX_LINE_LENGTH = 2000
export const MAX_BYTES = 50 * 1024
export const MAX_BYTES_LABEL = "50 KB"

export const lineCutSuffix = (maxLineLength: number): string => `... (line truncated to ${maxLineLength} chars)`

const LF = 10
const CR = 13

export interface PageOptions {
  /** First line to show, 1-based. */
  readonly offset: number
  /** Most lines to show. */
  readonly limit: number
  /** Most UTF-16 code units shown of one line. */
  readonly maxLineLength: number
  /** Most bytes of rendered lines (`N: text` plus newline). */
  readonly maxBytes: number
}

export interface Page {
  /** The shown lines, without numbers, each already cut to `maxLineLength`. */
  readonly lines: ReadonlyArray<string>
  /** The shown lines as rendered (`N: text`). */
  readonly rendered: ReadonlyArray<string>
  readonly offset: number
  /** How many shown lines were cut to `maxLineLength`. */
  readonly linesCut: number
  /** Why the page ended. */
  readonly stoppedBy: "eof" | "limit" | "bytes"
  /** Lines in the file, when the pager saw the end of it. */
  readonly totalLines: number | undefined
}

/** Cut `text` to at most `max` UTF-16 code units, never between the halves of a surrogate pair. */
export const cutLine = (text: string, max: number): string => {
  if (text.length <= max) return text
  const last = text.charCodeAt(max - 1)
  const end = last >= 0xd800 && last <= 0xdbff ? max - 1 : max
  return text.slice(0, end)
}

const utf8 = new TextEncoder()
const byteLength = (text: string): number => {
  // Fast path for ASCII; TextEncoder otherwise.
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) > 0x7f) return utf8.encode(text).length
  }
  return text.length
}

export class LinePager {
  private readonly options: PageOptions
  private readonly suffix: string
  /** Bytes of one line we keep: enough for `maxLineLength` code units plus slack to detect a cut. */
  private readonly keepBytes: number
  private readonly decoder = new TextDecoder("utf-8")

  /** Completed lines so far. */
  private completed = 0
  /** The previous chunk ended in `\r`: a `\n` at the start of the next one belongs to it. */
  private pendingCR = false
  /** The current (unterminated) line has at least one byte. */
  private lineOpen = false
  /** Kept bytes of the current line when it is in the window. */
  private lineParts: Array<Uint8Array> = []
  private lineKept = 0
  private lineOverflow = false

  private readonly lines: Array<string> = []
  private readonly rendered: Array<string> = []
  private bytes = 0
  private linesCut = 0
  private state: "skip" | "collect" | "count" | "done" = "skip"
  private stoppedBy: Page["stoppedBy"] = "eof"

  constructor(options: PageOptions) {
    this.options = options
    this.suffix = lineCutSuffix(options.maxLineLength)
    this.keepBytes = options.maxLineLength * 4 + 8
    if (options.offset <= 1) this.state = "collect"
  }

  /** True once the page and its footer are known: the caller may stop reading. */
  get done(): boolean {
    return this.state === "done"
  }

  /** Feed the next chunk. The pager copies what it keeps, so the caller may reuse the buffer. */
  push(chunk: Uint8Array): void {
    let i = 0
    const n = chunk.length
    if (this.pendingCR && n > 0) {
      this.pendingCR = false
      if (chunk[0] === LF) i = 1
    }
    while (i < n && this.state !== "done") {
      if (this.state === "collect") {
        i = this.collect(chunk, i)
      } else {
        i = this.count(chunk, i)
      }
    }
  }

  /** The end of the file was reached. */
  end(): Page {
    if (this.state !== "done") {
      if (this.lineOpen) this.terminate()
      this.pendingCR = false
      this.state = "done"
    }
    const total = this.stoppedBy === "bytes" ? undefined : this.completed
    return {
      lines: this.lines,
      rendered: this.rendered,
      offset: this.options.offset,
      linesCut: this.linesCut,
      stoppedBy: this.stoppedBy === "limit" && total === this.options.offset - 1 + this.lines.length
        ? "eof"
        : this.stoppedBy,
      totalLines: total
    }
  }

  /** Lines counted so far (all of them once `end` was called without a byte stop). */
  get linesSeen(): number {
    return this.completed
  }

  /** Skip or count lines without decoding: find terminators on raw bytes. */
  private count(chunk: Uint8Array, from: number): number {
    let i = from
    const n = chunk.length
    while (i < n) {
      const b = chunk[i]!
      if (b === LF) {
        this.lineOpen = false
        this.lineEnded()
        i++
        if (this.state === "collect") return i
      } else if (b === CR) {
        this.lineOpen = false
        i++
        if (i === n) this.pendingCR = true
        else if (chunk[i] === LF) i++
        this.lineEnded()
        if (this.state === "collect") return i
      } else {
        this.lineOpen = true
        // Jump to the next terminator with native search when the chunk is a Buffer.
        const next = nextTerminator(chunk, i)
        if (next === -1) return n
        i = next
      }
    }
    return i
  }

  private collect(chunk: Uint8Array, from: number): number {
    const next = nextTerminator(chunk, from)
    const stop = next === -1 ? chunk.length : next
    if (stop > from) {
      this.lineOpen = true
      this.keep(chunk, from, stop)
    }
    if (next === -1) return chunk.length
    let i = next + 1
    if (chunk[next] === CR) {
      if (i === chunk.length) this.pendingCR = true
      else if (chunk[i] === LF) i++
    }
    this.terminate()
    return i
  }

  private keep(chunk: Uint8Array, from: number, to: number): void {
    const room = this.keepBytes - this.lineKept
    if (room <= 0) {
      this.lineOverflow = true
      return
    }
    const end = Math.min(to, from + room)
    if (end < to) this.lineOverflow = true
    // A copy: `Buffer#slice` is a view, and the caller reuses its buffer for the next chunk.
    this.lineParts.push(new Uint8Array(chunk.subarray(from, end)))
    this.lineKept += end - from
  }

  /** A line in the window ended: decode, cut, render, and check the caps. */
  private terminate(): void {
    if (this.state !== "collect") {
      this.lineOpen = false
      this.lineEnded()
      return
    }
    const bytes = this.lineParts.length === 1 ? this.lineParts[0]! : concat(this.lineParts, this.lineKept)
    const decoded = this.decoder.decode(bytes)
    const cut = this.lineOverflow || decoded.length > this.options.maxLineLength
    const text = cut ? cutLine(decoded, this.options.maxLineLength) + this.suffix : decoded
    this.lineParts = []
    this.lineKept = 0
    this.lineOverflow = false
    this.lineOpen = false

    const number = this.completed + 1
    const line = `${number}: ${text}`
    const size = byteLength(line) + 1
    if (this.lines.length > 0 && this.bytes + size > this.options.maxBytes) {
      this.stoppedBy = "bytes"
      this.state = "done"
      return
    }
    this.lines.push(text)
    this.rendered.push(line)
    this.bytes += size
    if (cut) this.linesCut++
    this.lineEnded()
  }

  private lineEnded(): void {
    this.completed++
    if (this.state === "skip" && this.completed >= this.options.offset - 1) {
      this.state = "collect"
    } else if (this.state === "collect" && this.lines.length >= this.options.limit) {
      this.state = "count"
      this.stoppedBy = "limit"
    }
  }
}

const nextTerminator = (chunk: Uint8Array, from: number): number => {
  if (Buffer.isBuffer(chunk)) {
    const lf = chunk.indexOf(LF, from)
    // Most files have no CR at all; only look for one before the next LF.
    const crEnd = lf === -1 ? chunk.length : lf
    const cr = chunk.subarray(from, crEnd).indexOf(CR)
    return cr === -1 ? lf : from + cr
  }
  for (let i = from; i < chunk.length; i++) {
    const b = chunk[i]
    if (b === LF || b === CR) return i
  }
  return -1
}

const concat = (parts: ReadonlyArray<Uint8Array>, length: number): Uint8Array => {
  const out = new Uint8Array(length)
  let at = 0
  for (const part of parts) {
    out.set(part, at)
    at += part.length
  }
  return out
}

/** Page a whole in-memory text in one go (tests, small inputs). */
export const pageBytes = (bytes: Uint8Array, options: PageOptions): Page => {
  const pager = new LinePager(options)
  pager.push(bytes)
  return pager.end()
}
