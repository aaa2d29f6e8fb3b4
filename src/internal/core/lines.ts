/**
 * The line pager: a pure, incremental state machine over the bytes of a text file.
 *
 * Feed it chunks in order from a known line start; it keeps only the lines of the requested
 * window (each capped to the bytes a cut line can need), counts every other line on raw bytes
 * without decoding, records a checkpoint (line number → byte offset) every K lines for the
 * line index, and says when the caller can stop reading. Lines end at `\n`, `\r\n` or a lone
 * `\r` (as code units of the file's encoding); a final terminator does not start an extra empty
 * line, as editors and `wc -l` count.
 */
import { isAscii, isUtf8 } from "node:buffer"
import type { Codec, ShiftTracker } from "./encoding.js"
import { utf8 } from "./encoding.js"
import { nthLineFeed } from "./lineFeeds.js"

export const DEFAULT_LIMIT = 2000
export const MAX_LINE_LENGTH = 2000
export const MAX_BYTES = 50 * 1024
export const MAX_BYTES_LABEL = "50 KB"

/**
 * A byte cap as the notices write it: `50 KB` for the default 51,200, `1 MB`, `1.5 KB`,
 * `900 bytes` — the value in force, whatever the host set.
 */
export const bytesLabel = (bytes: number): string => {
  const unit = (size: number, name: string) => {
    const value = bytes / size
    return `${Number.isInteger(value) ? value : Number(value.toFixed(1))} ${name}`
  }
  return bytes >= 1024 * 1024 ? unit(1024 * 1024, "MB") : bytes >= 1024 ? unit(1024, "KB") : `${bytes} bytes`
}

/** The caps of a page a pure view pages by: the host's (`PageLimits`), or these defaults. */
export interface PageCaps {
  readonly lines: number
  readonly lineLength: number
  readonly bytes: number
}

export const DEFAULT_PAGE: PageCaps = { lines: DEFAULT_LIMIT, lineLength: MAX_LINE_LENGTH, bytes: MAX_BYTES }

/** The opening words of a page the byte cap ended: `Output capped at 50 KB`. */
export const cappedAt = (maxBytes: number): string => `Output capped at ${bytesLabel(maxBytes)}`
/** After a full page, keep counting this many bytes for an exact total before giving up. */
export const COUNT_AHEAD_BYTES = 1024 * 1024
/**
 * A shown line that has all it can show (cut) and still has not ended after this many bytes
 * ends the page: the rest of a 200 MB minified line is not read to find the lines after it.
 */
export const LONG_LINE_BYTES = 1024 * 1024

/**
 * A chunk of UTF-8 text up to this size that is all ASCII is decoded once, when its first shown
 * line ends, and its lines are slices of that text: no view, decoder call or result per line.
 */
export const ASCII_CHUNK_BYTES = 64 * 1024

const LF = 10
const CR = 13
const LINE_BREAK = Uint8Array.of(LF)

/** The notice that ends a cut line, with the cursor that continues it. */
export const lineCutSuffix = (maxLineLength: number, line: number, nextColumn: number): string =>
  `... (line truncated to ${maxLineLength} chars; use offset=${line} column=${nextColumn} to read more of it)`

export interface PageOptions {
  /** First line to show, 1-based. */
  readonly offset: number
  /** Most lines to show. */
  readonly limit: number
  /** Most UTF-16 code units shown of one line. */
  readonly maxLineLength: number
  /** Most bytes of rendered lines (`N: text` plus newline). */
  readonly maxBytes: number
  /** A cut line still open after this many bytes ends the page (default `LONG_LINE_BYTES`). */
  readonly longLine?: number
  /** Character (UTF-16 code unit, 1-based) at which the first shown line starts. */
  readonly column?: number
  /** Bytes counted past a full page in search of the end of the file (Infinity: to the end). */
  readonly countAhead?: number
  /** Record a checkpoint every this many lines (0: none). */
  readonly checkpointEvery?: number
}

/** Where the pager starts: a line start, as the count of lines before it and its byte position. */
export interface Start {
  readonly lines: number
  readonly position: number
}

export interface LineEndings {
  readonly lf: number
  readonly crlf: number
  readonly cr: number
}

export interface Page {
  /** The shown lines, without numbers, each already cut to `maxLineLength`. */
  readonly lines: ReadonlyArray<string>
  /** The shown lines as rendered (`N: text`). */
  readonly rendered: ReadonlyArray<string>
  readonly offset: number
  /** The character the first shown line starts at (1 unless `column` was given). */
  readonly column: number
  /** How many shown lines were cut to `maxLineLength`. */
  readonly linesCut: number
  /** Why the page ended. */
  readonly stoppedBy: "eof" | "limit" | "bytes"
  /** Lines in the file, when the pager reached its end. */
  readonly totalLines: number | undefined
  /** Lines known to exist (a lower bound when `totalLines` is unknown). */
  readonly linesAtLeast: number
  /** Shown lines held bytes invalid in the encoding (shown as U+FFFD). */
  readonly replaced: boolean
  /** Terminators seen in the bytes the pager scanned. */
  readonly endings: LineEndings
  /** `column` lies past the end of the first line: that line's length. */
  readonly columnPastEnd: number | undefined
  /** `[lines before, byte position]` of each line start at a multiple of `checkpointEvery`. */
  readonly checkpoints: ReadonlyArray<readonly [number, number]>
  /** Byte position after the last byte the pager consumed. */
  readonly position: number
  /** The file ends with a terminator; undefined unless the pager saw the end of the file. */
  readonly finalNewline: boolean | undefined
}

/** Cut `text` to at most `max` UTF-16 code units, never between the halves of a surrogate pair. */
export const cutLine = (text: string, max: number): string => {
  if (text.length <= max) return text
  const last = text.charCodeAt(max - 1)
  const end = last >= 0xd800 && last <= 0xdbff ? max - 1 : max
  return text.slice(0, end)
}

const encoder = new TextEncoder()
const byteLength = (text: string): number => {
  // Fast path for ASCII; TextEncoder otherwise.
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) > 0x7f) return encoder.encode(text).length
  }
  return text.length
}

export class LinePager {
  private readonly options: PageOptions
  private readonly codec: Codec
  private readonly unit: number
  /** Index within a code unit of its significant byte (0 little-endian, unit-1 big-endian). */
  private readonly low: number
  /** Bytes of one line we keep: enough for `maxLineLength` code units plus slack to detect a cut. */
  private readonly keepBytes: number
  private readonly column: number
  private readonly countAhead: number
  private readonly every: number

  /** Completed lines so far (including those before the start). */
  private completed: number
  /** Absolute position of the current chunk's first byte. */
  private position: number
  /** Byte offset of content start, for code-unit alignment. */
  private readonly origin: number
  /** The previous chunk ended in `\r`: a `\n` at the start of the next one belongs to it. */
  private pendingCR = false
  private pendingCheckpoint = false
  /** The current (unterminated) line has at least one byte. */
  private lineOpen = false
  /** Kept bytes of the current line when it is in the window. */
  private lineParts: Array<Uint8Array> = []
  private lineKept = 0
  /**
   * The kept bytes of the current line that lie in the chunk being pushed, by position: a line
   * that ends in its chunk is decoded from the chunk itself, and only one still open when the
   * chunk ends is copied (a copy per line was most of a page's time).
   */
  private chunk: Uint8Array | undefined
  /** The chunk being pushed as text, once a shown line ended in it (`null`: not all-ASCII UTF-8 of at most `ASCII_CHUNK_BYTES`). */
  private chunkText: string | null | undefined = undefined
  private heldFrom = -1
  private heldTo = -1
  private lineOverflow = false
  /** Bytes of the current line scanned while it is in the window. */
  private lineBytes = 0
  /** The page ended inside its last shown line, before that line's end was found. */
  private cutInside = false
  /** Stateful encodings (ISO-2022-JP): the shift state over every byte so far, and at this line's start. */
  private readonly tracker: ShiftTracker | undefined
  private lineState = 0
  /** Column mode, first line: decoded text after the skipped characters. */
  private skipDecoder: ReturnType<Codec["stream"]> | undefined
  private skipped = 0
  private columnText = ""

  private readonly lines: Array<string> = []
  private readonly rendered: Array<string> = []
  private readonly checkpoints: Array<readonly [number, number]> = []
  private bytes = 0
  private linesCut = 0
  private replaced = false
  private counted = 0
  private endings = { lf: 0, crlf: 0, cr: 0 }
  private columnPastEnd: number | undefined = undefined
  private state: "skip" | "collect" | "count" | "done" = "skip"
  private stoppedBy: Page["stoppedBy"] = "eof"

  /** Cached search results within the current chunk. */
  private nextLF = -1
  private nextCR = -1
  /** The pager was done before the end of a chunk pushed: it never saw the bytes after it. */
  private unread = false

  constructor(options: PageOptions, codec: Codec = utf8, start: Start = { lines: 0, position: 0 }, origin = 0) {
    this.options = options
    this.codec = codec
    this.unit = codec.unit
    this.low = codec.bigEndian ? codec.unit - 1 : 0
    this.keepBytes = options.maxLineLength * 4 + 8
    this.column = Math.max(1, options.column ?? 1)
    this.countAhead = options.countAhead ?? Infinity
    this.every = options.checkpointEvery ?? 0
    this.completed = start.lines
    this.position = start.position
    this.origin = origin
    // The state a stateful encoding starts in is only known at the start of the text: its
    // callers start there (checkpoints do not record it).
    this.tracker = codec.tracker?.()
    if (this.completed >= options.offset - 1) this.enterWindow()
  }

  /** Still before the window: the caller may read in larger chunks. */
  get skipping(): boolean {
    return this.state === "skip"
  }

  /** True once the page and its footer are known: the caller may stop reading. */
  get done(): boolean {
    return this.state === "done"
  }

  /** Feed the next chunk. The pager copies what it keeps, so the caller may reuse the buffer. */
  push(chunk: Uint8Array): void {
    this.chunk = chunk
    try {
      this.pushChunk(chunk)
    } finally {
      this.copyHeld()
      this.chunk = undefined
      this.chunkText = undefined
    }
  }

  /** The current line's bytes held in the chunk become a copy of its own. */
  private copyHeld(): void {
    if (this.heldFrom === -1) return
    // `new Uint8Array` copies (a Buffer's `slice` is a view).
    this.lineParts.push(new Uint8Array(this.chunk!.subarray(this.heldFrom, this.heldTo)))
    this.heldFrom = this.heldTo = -1
  }

  private pushChunk(chunk: Uint8Array): void {
    const n = chunk.length
    let i = 0
    this.nextLF = -2
    this.nextCR = -2
    if (this.pendingCR && n > 0) {
      this.pendingCR = false
      if (this.isUnit(chunk, 0, LF)) {
        i = this.unit
        this.endings.crlf++
        // The count ahead spends a CRLF's bytes whole, however the chunks cut it, and may stop
        // on its last byte as it would have on the whole text.
        if (this.state === "count") {
          this.counted += this.unit
          if (this.counted >= this.countAhead) this.state = "done"
        }
      } else {
        this.endings.cr++
      }
      if (this.pendingCheckpoint) this.recordCheckpoint(this.position + i)
    }
    while (i < n && this.state !== "done") {
      if (this.state === "skip" && this.unit === 1 && this.tracker === undefined) {
        i = this.skipLines(chunk, i)
        if (i >= n) break
      }
      const t = this.nextTerminator(chunk, i)
      const end = t === -1 ? n : t
      if (end > i) {
        this.lineOpen = true
        if (this.tracker !== undefined && this.state !== "count") this.tracker.scan(chunk.subarray(i, end))
        if (this.state === "collect") {
          this.keep(chunk, i, end)
          this.lineBytes += end - i
        } else if (this.state === "count") this.counted += end - i
      }
      if (t === -1) {
        if (
          this.state === "collect" && this.lineBytes > (this.options.longLine ?? LONG_LINE_BYTES) && this.lineFull()
        ) {
          this.cutShort()
        }
        i = n
        break
      }
      let next = t + this.unit
      let ambiguous = false
      if (chunk[t + this.low] === LF) {
        this.endings.lf++
      } else if (next >= n) {
        // A CR at the end of the chunk: whether a LF follows is for the next chunk to say.
        this.pendingCR = true
        ambiguous = true
      } else if (this.isUnit(chunk, next, LF)) {
        next += this.unit
        this.endings.crlf++
      } else {
        this.endings.cr++
      }
      if (this.state === "count") this.counted += next - end
      i = next
      this.lineEnd(this.position + next, ambiguous)
    }
    // Done inside the chunk: the bytes after `i` were not looked at, so whatever the caller read
    // after them, the pager has not seen the end of the file.
    if (i < n) this.unread = true
    this.position += this.unread ? i : n
  }

  /** The caller stopped reading; `eof` says it reached the end of the file. */
  end(readToEnd: boolean): Page {
    const eof = readToEnd && !this.unread
    if (this.pendingCR) {
      this.pendingCR = false
      this.endings.cr++
    }
    const finalNewline = eof && this.state !== "done" ? !this.lineOpen && this.position > this.origin : undefined
    // The last line needs no terminator; a page stopped by the byte cap shows nothing more.
    if (eof && this.lineOpen && this.stoppedBy !== "bytes") this.lineEnd(this.position, false)
    // A checkpoint waits on a `\r` that ended the last chunk: at the end of the text the next line
    // starts after it; short of it a `\n` may follow, and the line after starts past that, so
    // the checkpoint is not known and not recorded (a wrong one would misnumber later reads).
    if (this.pendingCheckpoint) {
      if (eof) this.recordCheckpoint(this.position)
      else this.pendingCheckpoint = false
    }
    this.state = "done"
    const shownLast = this.options.offset - 1 + this.lines.length
    const known = eof && this.stoppedBy !== "bytes"
    const total = known ? this.completed : undefined
    // Cut short inside a line: that line is known to exist, nothing after it.
    const atLeast = this.cutInside
      ? this.completed + 1
      : Math.max(this.completed + (this.lineOpen ? 1 : 0), shownLast + (this.stoppedBy === "eof" ? 0 : 1))
    return {
      lines: this.lines,
      rendered: this.rendered,
      offset: this.options.offset,
      column: this.column,
      linesCut: this.linesCut,
      stoppedBy: this.stoppedBy === "limit" && total === shownLast ? "eof" : this.stoppedBy,
      totalLines: total,
      linesAtLeast: total ?? atLeast,
      replaced: this.replaced,
      endings: this.endings,
      columnPastEnd: this.columnPastEnd,
      checkpoints: this.checkpoints,
      position: this.position,
      finalNewline
    }
  }

  private enterWindow(): void {
    this.state = "collect"
    if (this.column > 1 && this.lines.length === 0) this.skipDecoder = this.codec.stream(this.lineState)
  }

  /** Is the code unit at `at` the character `char` (all other bytes zero)? */
  private isUnit(chunk: Uint8Array, at: number, char: number): boolean {
    if (at + this.unit > chunk.length) return false
    for (let k = 0; k < this.unit; k++) {
      if (chunk[at + k] !== (k === this.low ? char : 0)) return false
    }
    return true
  }

  /** The start of the next `\n` or `\r` code unit at or after `from`, or -1. */
  private nextTerminator(chunk: Uint8Array, from: number): number {
    if (this.nextLF !== -1 && this.nextLF < from) this.nextLF = this.find(chunk, from, LF)
    if (this.nextCR !== -1 && this.nextCR < from) this.nextCR = this.find(chunk, from, CR)
    if (this.nextLF === -1) return this.nextCR
    if (this.nextCR === -1) return this.nextLF
    return Math.min(this.nextLF, this.nextCR)
  }

  /** Native byte search (memchr on a Buffer), then a check that the hit is a whole code unit. */
  private find(chunk: Uint8Array, from: number, char: number): number {
    let at = from + this.low
    for (;;) {
      const hit = chunk.indexOf(char, at)
      if (hit === -1) return -1
      const start = hit - this.low
      if (this.unit === 1) return hit
      if ((this.position + start - this.origin) % this.unit === 0 && this.isUnit(chunk, start, char)) return start
      at = hit + 1
    }
  }

  /**
   * Skip whole lines before the window: one native byte search per line and no other work, up
   * to the next `\r` (whose line ending the general loop decides) or the end of the chunk.
   * Returns where the general loop goes on.
   */
  private skipLines(chunk: Uint8Array, from: number): number {
    if (this.nextCR !== -1 && this.nextCR < from) this.nextCR = this.find(chunk, from, CR)
    const stop = this.nextCR === -1 ? chunk.length : this.nextCR
    const target = this.options.offset - 1
    const every = this.every
    let completed = this.completed
    let at = from
    while (completed < target) {
      // As many lines as lead to the page or the next checkpoint, found in one search.
      const wanted = every > 0 ? Math.min(target - completed, every - (completed % every)) : target - completed
      const found = nthLineFeed(chunk, at, stop, wanted)
      if (found < 0) {
        // Fewer here: the lines up to the last line feed before `stop` are skipped.
        const fewer = -1 - found
        if (fewer > 0) {
          completed += fewer
          at = chunk.lastIndexOf(LF, stop - 1) + 1
        }
        break
      }
      completed += wanted
      at = found
      if (every > 0 && completed % every === 0) this.checkpoints.push([completed, this.position + at])
    }
    if (at === from) return from
    this.endings.lf += completed - this.completed
    this.completed = completed
    this.lineOpen = false
    // The cached position of the next `\n` lies behind us now.
    this.nextLF = -2
    if (completed >= target) this.enterWindow()
    return at
  }

  private keep(chunk: Uint8Array, from: number, to: number): void {
    if (this.skipDecoder !== undefined) return this.keepFromColumn(chunk.subarray(from, to))
    const room = this.keepBytes - this.lineKept
    if (room <= 0) {
      this.lineOverflow = true
      return
    }
    const end = Math.min(to, from + room)
    if (end < to) this.lineOverflow = true
    // Held in the chunk (copied if the line is still open when the chunk ends: see `push`).
    if (this.heldFrom !== -1 && this.heldTo !== from) this.copyHeld()
    if (this.heldFrom === -1) this.heldFrom = from
    this.heldTo = end
    this.lineKept += end - from
  }

  /**
   * The column text holds more than a line shows. One unit of slack: a column inside a surrogate
   * pair keeps the pair's second half, which is dropped when the line is shown.
   */
  private columnFull(): boolean {
    return this.columnText.length > this.options.maxLineLength + 1
  }

  /** Column mode: decode as we go, drop the first `column - 1` characters, keep what follows. */
  private keepFromColumn(bytes: Uint8Array): void {
    if (this.columnFull()) return
    this.takeColumnText(this.skipDecoder!.write(bytes))
  }

  private takeColumnText(text: string): void {
    const skip = this.column - 1 - this.skipped
    if (skip > 0) {
      const dropped = Math.min(skip, text.length)
      this.skipped += dropped
      text = text.slice(dropped)
    }
    if (text.length > 0) this.columnText += text
  }

  /** A line ended at byte `next` (the start of the following line). */
  private lineEnd(next: number, ambiguous: boolean): void {
    if (this.state === "collect" && !this.show()) return
    this.lineOpen = false
    this.completed++
    if (this.tracker !== undefined) {
      // A sequence cut by the line break is no sequence.
      this.tracker.scan(LINE_BREAK)
      this.lineState = this.tracker.state
    }
    if (this.every > 0 && this.completed % this.every === 0) {
      if (ambiguous) this.pendingCheckpoint = true
      else this.recordCheckpoint(next)
    }
    if (this.state === "skip" && this.completed >= this.options.offset - 1) {
      this.enterWindow()
    } else if (this.state === "collect" && this.lines.length >= this.options.limit) {
      this.state = this.countAhead > 0 ? "count" : "done"
      this.stoppedBy = "limit"
    } else if (this.state === "count" && this.counted >= this.countAhead) {
      this.state = "done"
    }
  }

  /** The current line holds all of itself that can be shown: the rest only says where it ends. */
  private lineFull(): boolean {
    return this.skipDecoder !== undefined ? this.columnFull() : this.lineOverflow
  }

  /**
   * End the page inside a long line: show it cut (its cursor continues it), and stop without
   * looking for its end. The page stops as at its limit; the total stays unknown.
   */
  private cutShort(): void {
    if (!this.show()) return
    this.cutInside = true
    this.stoppedBy = "limit"
    this.state = "done"
  }

  private recordCheckpoint(position: number): void {
    this.pendingCheckpoint = false
    this.checkpoints.push([this.completed, position])
  }

  /** Decode, cut and render the line just ended; false when the byte cap stops the page. */
  private show(): boolean {
    const number = this.completed + 1
    let decoded: string
    /** UTF-8 bytes of `decoded`, when known without counting: the bytes of valid UTF-8. */
    let decodedBytes: number | undefined
    let start = 1
    let overflow = this.lineOverflow
    if (this.skipDecoder !== undefined) {
      if (!this.columnFull()) this.takeColumnText(this.skipDecoder.end())
      this.skipDecoder = undefined
      if (this.skipped < this.column - 1) {
        this.columnPastEnd = this.skipped
        this.state = "done"
        return false
      }
      // A column inside a surrogate pair starts after it rather than on half a character.
      const first = this.columnText.charCodeAt(0)
      decoded = first >= 0xdc00 && first <= 0xdfff ? this.columnText.slice(1) : this.columnText
      start = this.column
      overflow = false
    } else {
      if (this.heldFrom !== -1 && this.lineParts.length > 0) this.copyHeld()
      if (this.heldFrom !== -1 && this.asciiChunk()) {
        // ASCII is its own UTF-8: the line is its bytes' slice of the chunk's text.
        decoded = this.chunkText!.slice(this.heldFrom, this.heldTo)
        decodedBytes = this.heldTo - this.heldFrom
        this.heldFrom = this.heldTo = -1
      } else {
        const bytes = this.heldFrom !== -1
          ? this.chunk!.subarray(this.heldFrom, this.heldTo)
          : this.lineParts.length === 1
          ? this.lineParts[0]!
          : concat(this.lineParts, this.lineKept)
        this.heldFrom = this.heldTo = -1
        const result = this.codec.decode(bytes, this.lineState)
        decoded = result.text
        if (this.codec === utf8 && !result.replaced) decodedBytes = bytes.length
        // Bytes kept up to the cap may end inside a character: only what is shown counts.
        if (result.replaced && (!overflow || cutLine(decoded, this.options.maxLineLength).includes("\ufffd"))) {
          this.replaced = true
        }
      }
    }
    this.lineParts = []
    this.lineKept = 0
    this.lineOverflow = false
    this.lineBytes = 0
    this.columnText = ""

    const cut = overflow || decoded.length > this.options.maxLineLength
    const kept = cut ? cutLine(decoded, this.options.maxLineLength) : decoded
    const text = cut ? kept + lineCutSuffix(this.options.maxLineLength, number, start + kept.length) : kept
    const line = `${number}: ${text}`
    // The number and ": " are ASCII.
    const size = (cut || decodedBytes === undefined ? byteLength(line) : line.length - text.length + decodedBytes) + 1
    if (this.lines.length > 0 && this.bytes + size > this.options.maxBytes) {
      this.stoppedBy = "bytes"
      this.state = "done"
      return false
    }
    this.lines.push(text)
    this.rendered.push(line)
    this.bytes += size
    if (cut) this.linesCut++
    return true
  }

  /** Whether the chunk being pushed is all-ASCII UTF-8 of at most `ASCII_CHUNK_BYTES`, decoded (`chunkText`) if so. */
  private asciiChunk(): boolean {
    if (this.chunkText === undefined) {
      const chunk = this.chunk!
      this.chunkText = this.codec === utf8 && chunk.length <= ASCII_CHUNK_BYTES && isAscii(chunk)
        ? Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length).toString("latin1")
        : null
    }
    return this.chunkText !== null
  }
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

/** The page of a file whose end (`totalLines`) is already known to come before `offset`. */
export const pastEnd = (offset: number, totalLines: number): Page => ({
  lines: [],
  rendered: [],
  offset,
  column: 1,
  linesCut: 0,
  stoppedBy: "eof",
  totalLines,
  linesAtLeast: totalLines,
  replaced: false,
  endings: { lf: 0, crlf: 0, cr: 0 },
  columnPastEnd: undefined,
  checkpoints: [],
  position: 0,
  finalNewline: undefined
})

/** Page a whole in-memory text in one go (tests, small inputs). */
export const pageBytes = (bytes: Uint8Array, options: PageOptions, codec: Codec = utf8): Page => {
  const pager = new LinePager(options, codec)
  pager.push(bytes)
  return pager.end(true)
}

/** What a line renders to, told from its first bytes: what the tail scanner charges a line. */
export interface LineMeasure {
  /** The bytes of a line's start it needs (as many as the pager keeps of a line). */
  readonly keep: number
  /**
   * The bytes the pager renders for a line (`N: text` and a newline, the text cut as shown, with
   * its notice) but for the digits of its number, and how many times the number is printed (a
   * cut line's notice names it again), from the line's first `keep` bytes (`whole`: all of it).
   */
  readonly measure: (head: Uint8Array, whole: boolean) => RenderedLine
}

export interface RenderedLine {
  readonly bytes: number
  readonly numbers: 1 | 2
}

/**
 * The rendered size of a line in `codec`, decoded and cut as the pager does (no column): a tail
 * keeps the last lines that fit the page by the output they make, not by their raw bytes (a
 * Shift_JIS or GBK character of two bytes is three in UTF-8; a half-width katakana, one byte, is
 * three). Valid UTF-8 no longer than a line may be is its own size, told without decoding.
 */
export const lineMeasure = (codec: Codec, maxLineLength: number = MAX_LINE_LENGTH): LineMeasure => ({
  keep: maxLineLength * 4 + 8,
  measure: (head, whole) => {
    // `: ` and the newline; the number's digits are the caller's.
    if (whole && codec === utf8 && head.length <= maxLineLength && isUtf8(head)) {
      return { bytes: head.length + 3, numbers: 1 }
    }
    const text = codec.decode(head).text
    if (whole && text.length <= maxLineLength) return { bytes: byteLength(text) + 3, numbers: 1 }
    const kept = cutLine(text, maxLineLength)
    // The notice names the line (its digits counted as one here) and the column after the cut.
    const notice = lineCutSuffix(maxLineLength, 0, 1 + kept.length).length - 1
    return { bytes: byteLength(kept) + notice + 3, numbers: 2 }
  }
})
