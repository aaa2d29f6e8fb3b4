/**
 * Search inside a text: the lines a regular expression matches, under their true numbers, with a
 * few lines of context, paged over matches. Pure and incremental: the caller pushes every line in
 * order (from a page, a stream, a string) and the collector keeps only the page it will show,
 * counting every match.
 *
 * The expression is JavaScript's. `/re/flags` (flags `i`, `u`, `v`) or a leading `(?i)` asks
 * for it case-insensitively; anything else is the pattern itself. A line is matched alone: `^`
 * and `$` are its start and end, and no match spans two lines.
 */
import { Buffer } from "node:buffer"
import { formatBytes } from "./format.js"
import { nthLineFeed } from "./lineFeeds.js"
import { cutLine } from "./lines.js"

/** Lines of context on each side of a match when none is asked for. */
export const DEFAULT_CONTEXT = 2
/** Most lines of context asked for. */
export const MAX_CONTEXT = 50
/** Matches on one page when no limit is asked for. */
export const DEFAULT_MATCHES = 100
/** Characters of one line searched: the rest of a longer line is not searched. */
export const SEARCH_LINE_CHARS = 64 * 1024

export class SearchError {
  readonly _tag = "SearchError"
  constructor(readonly message: string) {}
}

export interface SearchQuery {
  /** As asked (shown in footers). */
  readonly text: string
  /** Matches one line (no `g`/`y` flag: `test` keeps no state). */
  readonly regex: RegExp
}

const SLASHED = /^\/(.+)\/([a-z]*)$/s
const ALLOWED_FLAGS = /^[iuv]*$/

/** Parse what `search` (or a `:/re/` selector) holds into a line matcher. */
export const parseSearch = (text: string): SearchQuery | SearchError => {
  if (text.length === 0) {
    return new SearchError("search must not be empty: give a regular expression (JavaScript syntax)")
  }
  let source = text
  let flags = ""
  const slashed = SLASHED.exec(text)
  if (slashed !== null) {
    if (!ALLOWED_FLAGS.test(slashed[2]!)) {
      return new SearchError(
        `search ${JSON.stringify(text)}: unsupported flag in /${slashed[1]}/${slashed[2]}; use i (ignore case), u or v`
      )
    }
    source = slashed[1]!
    flags = [...new Set(slashed[2]!)].join("")
  } else if (text.startsWith("(?i)") && text.length > 4) {
    source = text.slice(4)
    flags = "i"
  }
  try {
    return { text, regex: new RegExp(source, flags) }
  } catch (error) {
    return new SearchError(
      `search ${JSON.stringify(text)} is not a valid regular expression (JavaScript syntax): ${
        error instanceof Error ? error.message.replace(/^Invalid regular expression: /, "") : String(error)
      }`
    )
  }
}

/** Where a match starts in a line (UTF-16 index), or -1. */
export const matchIndex = (query: SearchQuery, line: string): number => {
  const searched = line.length > SEARCH_LINE_CHARS ? cutLine(line, SEARCH_LINE_CHARS) : line
  const match = query.regex.exec(searched)
  return match === null ? -1 : match.index
}

const QUANTIFIER = /^(?:[*+?]|\{\d+(?:,\d*)?\})\??/
const HEX = /^[0-9a-fA-F]*/
const GROUP_NAME = /^<[A-Za-z_$][\w$]*>/
const WORD_CHAR = /^[\p{L}\p{N}_]$/u

/** The index after the group (`(`) or class (`[`) that starts at `i`, or -1 when it does not close. */
const pastGroup = (source: string, i: number): number => {
  let depth = 0
  let inClass = false
  for (let at = i; at < source.length; at++) {
    const c = source[at]
    if (c === "\\") at++
    else if (inClass) inClass = c !== "]"
    else if (c === "[") {
      inClass = true
      if (depth === 0) {
        // A class alone: its first `]` closes it (`[]` is the empty class).
        for (at++; at < source.length; at++) {
          if (source[at] === "\\") at++
          else if (source[at] === "]") return at + 1
        }
        return -1
      }
    } else if (c === "(") depth++
    else if (c === ")" && --depth === 0) return at + 1
  }
  return -1
}

/** Whether `source` has a `|` outside every group and class: alternatives share no run. */
const alternates = (source: string): boolean => {
  let depth = 0
  let inClass = false
  for (let at = 0; at < source.length; at++) {
    const c = source[at]
    if (c === "\\") at++
    else if (inClass) inClass = c !== "]"
    else if (c === "[") inClass = true
    else if (c === "(") depth++
    else if (c === ")") depth--
    else if (c === "|" && depth <= 0) return true
  }
  return false
}

/** Where an escape's argument ends: `\x41`, `\u0041`, `\u{1F600}`, `\cA`, `\p{L}`, `\k<name>`, `\12`. */
const pastEscape = (source: string, i: number, unicode: boolean): number => {
  const escaped = source[i + 1]!
  const at = i + 2
  // Braces belong to the escape only in unicode mode; elsewhere `\p{` is `p{`.
  const braced = () => unicode ? (source.indexOf("}", at) + 1) || source.length : at
  if (escaped === "x") return at + HEX.exec(source.slice(at, at + 2))![0].length
  if (escaped === "u") return source[at] === "{" ? braced() : at + HEX.exec(source.slice(at, at + 4))![0].length
  if (escaped === "c") return /[A-Za-z]/.test(source[at] ?? "") ? at + 1 : at
  if ((escaped === "p" || escaped === "P") && source[at] === "{") return braced()
  if (escaped === "k") return at + (GROUP_NAME.exec(source.slice(at))?.[0].length ?? 0)
  let end = at
  if (/[0-9]/.test(escaped)) { while (/[0-9]/.test(source[end] ?? "")) end++ }
  return end
}

/**
 * The longest run of characters every match of `regex` contains, or undefined when there is none
 * this reading can be sure of. A fast scan passes over bytes without it (`ChunkSearcher`), so a
 * wrong answer would lose matches: anything unclear ends a run rather than joins it. Alternation
 * at the top, case folding (`i`) and `v` class syntax give none at all; groups, classes, escapes
 * other than punctuation, anchors and dots end a run; a character a quantifier may drop (`?`,
 * `*`, `{0,n}`) is left out.
 */
export const requiredLiteral = (regex: RegExp): string | undefined => {
  if (regex.flags.includes("i") || regex.flags.includes("v")) return undefined
  const source = regex.source
  if (alternates(source)) return undefined
  const runs: Array<string> = []
  let run = ""
  const endRun = () => {
    if (run.length > 0) runs.push(run)
    run = ""
  }
  const pastQuantifier = (at: number) => at + (QUANTIFIER.exec(source.slice(at, at + 32))?.[0].length ?? 0)
  /** A literal character that ends at `next`, kept unless a quantifier may drop it. */
  const literal = (char: string, next: number): number => {
    const quantifier = QUANTIFIER.exec(source.slice(next, next + 32))?.[0]
    if (quantifier === undefined) {
      run += char
      return next
    }
    // `a+` holds an `a`; what follows may come after more of them.
    if (quantifier.startsWith("+")) run += char
    endRun()
    return next + quantifier.length
  }
  let i = 0
  while (i < source.length) {
    const c = source[i]!
    if (c === "|" || c === ")") return undefined
    if (c === "(" || c === "[") {
      const end = pastGroup(source, i)
      if (end === -1) return undefined
      endRun()
      i = pastQuantifier(end)
    } else if (c === "\\") {
      const escaped = source[i + 1]
      if (escaped === undefined) return undefined
      if (WORD_CHAR.test(escaped)) {
        // A class (\d), an anchor (\b), a control (\n), a code point (\x41), a property (\p{L}),
        // a back reference (\1): none of it joins a run.
        endRun()
        i = pastQuantifier(pastEscape(source, i, regex.unicode))
      } else {
        // Escaped punctuation is itself.
        i = literal(escaped, i + 2)
      }
    } else if (".^$*+?{}".includes(c)) {
      endRun()
      i = pastQuantifier(i + 1)
    } else {
      const point = String.fromCodePoint(source.codePointAt(i)!)
      i = literal(point, i + point.length)
    }
  }
  endRun()
  // U+FFFD stands in the decoded text for bytes that are not UTF-8; it is not in the bytes.
  const usable = runs.filter((r) => !r.includes("\uFFFD") && !r.includes("\n") && !r.includes("\r"))
  return usable.reduce<string | undefined>(
    (best, r) => best === undefined || Buffer.byteLength(r) > Buffer.byteLength(best) ? r : best,
    undefined
  )
}

export interface SearchPageOptions {
  /** The first match shown, 1-based. */
  readonly offset: number
  /** Most matches shown. */
  readonly limit: number
  /** Lines of context each side. */
  readonly context: number
  /** Characters shown of one line. */
  readonly maxLineLength: number
  /** Bytes of shown lines (rendered, newline included). */
  readonly maxBytes: number
}

export interface ShownLine {
  readonly number: number
  /** A match (`N: text`) or context (`N- text`). */
  readonly match: boolean
  /** As rendered. */
  readonly rendered: string
  /** Cut to `maxLineLength`. */
  readonly cut: boolean
}

/** A window: lines in a row, one or more matches with their context; windows never touch. */
export type Window = ReadonlyArray<ShownLine>

export interface SearchPage {
  readonly query: SearchQuery
  readonly windows: ReadonlyArray<Window>
  /** Every match in the text. */
  readonly totalMatches: number
  /** Numbers (1-based, among matches) of the first and last shown; undefined when none is. */
  readonly first: number | undefined
  readonly last: number | undefined
  /** Lines searched (the text's lines). */
  readonly totalLines: number
  /** Why the page holds no more: all shown, the match limit, or the byte cap. */
  readonly stoppedBy: "end" | "limit" | "bytes"
  /** Shown lines cut to `maxLineLength`. */
  readonly linesCut: number
}

const encoder = new TextEncoder()
const byteLength = (text: string): number => {
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) > 0x7f) return encoder.encode(text).length
  }
  return text.length
}

/** One line as shown: numbered, `:` for a match and `-` for context, cut with a cursor to the rest. */
const renderLine = (number: number, line: string, match: boolean, at: number, maxLineLength: number) => {
  const mark = match ? ": " : "- "
  if (line.length <= maxLineLength) return { text: `${number}${mark}${line}`, cut: false }
  const shown = cutLine(line, maxLineLength)
  const where = match && at >= shown.length
    ? `; the match starts at character ${at + 1}: use offset=${number} column=${at + 1} to read it`
    : `; use offset=${number} column=${shown.length + 1} to read more of it`
  return { text: `${number}${mark}${shown}... (line truncated to ${maxLineLength} chars${where})`, cut: true }
}

/**
 * Collects one page of a search while every line passes through it. Memory: the page, plus the
 * `context` lines before the current one.
 */
export class SearchCollector {
  private readonly before: Array<{ readonly number: number; readonly line: string }> = []
  private readonly windows: Array<Array<ShownLine>> = []
  private matches = 0
  private first: number | undefined = undefined
  private last: number | undefined = undefined
  private lastNumber = 0
  /** The last line that matched, shown or not: context never shows a match as context. */
  private lastMatchLine = 0
  /** The last line in a window. */
  private windowEnd = -1
  private afterLeft = 0
  private bytes = 0
  private linesCut = 0
  private stoppedBy: SearchPage["stoppedBy"] = "end"
  private full = false

  constructor(readonly query: SearchQuery, readonly options: SearchPageOptions) {}

  /** The next line of the text (numbers in order, from 1 or from where a scan resumed). */
  push(number: number, line: string): void {
    this.lastNumber = number
    const at = matchIndex(this.query, line)
    if (at === -1) {
      if (this.afterLeft > 0) {
        this.afterLeft--
        this.add(number, line, false, -1)
      } else if (this.options.context > 0 && !this.full) {
        this.before.push({ number, line })
        if (this.before.length > this.options.context) this.before.shift()
      }
      return
    }
    this.found(number, line, at)
  }

  /** A line known to match at `at` (a caller that already searched it). */
  pushMatch(number: number, line: string, at: number): void {
    this.lastNumber = number
    this.found(number, line, at)
  }

  /** Lines that did not match, seen only as a count (a fast scan); they end any context. */
  skip(toNumber: number): void {
    if (toNumber <= this.lastNumber) return
    this.lastNumber = toNumber
    this.afterLeft = 0
    this.before.length = 0
  }

  /** Lines of context still wanted after the last match shown: the next lines must be pushed. */
  get wantsAfter(): boolean {
    return this.afterLeft > 0
  }

  private found(number: number, line: string, at: number): void {
    this.matches++
    const index = this.matches
    const shown = !this.full && index >= this.options.offset
    if (!shown) {
      // A match not shown ends the context of the one before it.
      this.afterLeft = 0
      this.before.length = 0
      this.lastMatchLine = number
      return
    }
    if (this.first !== undefined && index - this.first >= this.options.limit) {
      this.stop("limit")
      return
    }
    const context = this.before.filter((entry) => entry.number > this.lastMatchLine && entry.number > this.windowEnd)
    const lines = [
      ...context.map((entry) => this.renderOf(entry.number, entry.line, false, -1)),
      this.renderOf(number, line, true, at)
    ]
    const costOf = (shown: ReadonlyArray<ShownLine>) =>
      shown.reduce((sum, entry) => sum + byteLength(entry.rendered) + 1, 0) + 2
    if (this.first !== undefined && this.bytes + costOf(lines) > this.options.maxBytes) {
      this.linesCut -= lines.filter((entry) => entry.cut).length
      this.stop("bytes")
      return
    }
    // The first match is always shown: its context gives way to it.
    while (lines.length > 1 && costOf(lines) > this.options.maxBytes) {
      if (lines.shift()!.cut) this.linesCut--
    }
    this.before.length = 0
    const startsAt = lines[0]!.number
    if (this.windows.length === 0 || startsAt > this.windowEnd + 1) this.windows.push([])
    const window = this.windows[this.windows.length - 1]!
    for (const entry of lines) {
      window.push(entry)
      this.bytes += byteLength(entry.rendered) + 1
    }
    this.bytes += 2
    this.windowEnd = number
    this.lastMatchLine = number
    this.first ??= index
    this.last = index
    this.afterLeft = this.options.context
  }

  private stop(reason: SearchPage["stoppedBy"]): void {
    this.full = true
    this.stoppedBy = reason
    this.afterLeft = 0
    this.before.length = 0
  }

  private renderOf(number: number, line: string, match: boolean, at: number): ShownLine {
    const { cut, text } = renderLine(number, line, match, at, this.options.maxLineLength)
    if (cut) this.linesCut++
    return { number, match, rendered: text, cut }
  }

  private add(number: number, line: string, match: boolean, at: number): void {
    const entry = this.renderOf(number, line, match, at)
    const cost = byteLength(entry.rendered) + 1
    if (this.bytes + cost > this.options.maxBytes) {
      // Context that does not fit is left out; the matches shown are all there.
      if (entry.cut) this.linesCut--
      this.afterLeft = 0
      return
    }
    this.windows[this.windows.length - 1]!.push(entry)
    this.bytes += cost
    this.windowEnd = number
  }

  /** The page, once every line was pushed (`totalLines`: the text's lines). */
  end(totalLines: number): SearchPage {
    return {
      query: this.query,
      windows: this.windows,
      totalMatches: this.matches,
      first: this.first,
      last: this.last,
      totalLines,
      stoppedBy: this.stoppedBy,
      linesCut: this.linesCut
    }
  }
}

/** Search a whole text in memory (tests, small sources): every line pushed, the page returned. */
export const searchLines = (
  lines: ReadonlyArray<string>,
  query: SearchQuery,
  options: SearchPageOptions
): SearchPage => {
  const collector = new SearchCollector(query, options)
  lines.forEach((line, i) => collector.push(i + 1, line))
  return collector.end(lines.length)
}

const plural = (count: number, one: string, many: string) =>
  `${count.toLocaleString("en-US")} ${count === 1 ? one : many}`

/** The offset that continues a search page, when matches remain after it. */
export const nextMatchOffset = (page: SearchPage, offset: number): number | undefined =>
  page.stoppedBy === "end" ? undefined : (page.last ?? offset - 1) + 1

/**
 * The footer: how many matches, which are shown, and the call that shows the next ones.
 * `in` names what was searched when it is not the whole text ("lines 1-500").
 */
export const searchFooter = (page: SearchPage, offset: number, maxBytesLabel: string): string => {
  const what = `for /${page.query.regex.source}/${page.query.regex.flags} in ${
    plural(page.totalLines, "line", "lines")
  }`
  if (page.totalMatches === 0) return `(0 matches ${what}.)`
  if (page.first === undefined) {
    return `(${
      plural(page.totalMatches, "match", "matches")
    } ${what}; offset ${offset} is past the last. Use offset=1 to see the first.)`
  }
  const range = page.first === page.last ? `match ${page.first}` : `matches ${page.first}-${page.last}`
  const next = nextMatchOffset(page, offset)
  if (next === undefined) {
    return page.first === 1
      ? `(${plural(page.totalMatches, "match", "matches")} ${what}.)`
      : `(Showing ${range} of ${page.totalMatches.toLocaleString("en-US")} ${what}.)`
  }
  const cap = page.stoppedBy === "bytes" ? `Output capped at ${maxBytesLabel}. ` : ""
  return `(${cap}Showing ${range} of ${
    page.totalMatches.toLocaleString("en-US")
  } ${what}. Use offset=${next} to continue.)`
}

/** The shown lines: each window's lines, a `--` line between windows. */
export const searchBody = (page: SearchPage): ReadonlyArray<string> =>
  page.windows.flatMap((window, i) => [...(i > 0 ? ["--"] : []), ...window.map((line) => line.rendered)])

/** Progress wording of a long search. */
export const searchTask = (path: string, size: number): string => `Searching ${path} (${formatBytes(size)})`

const LF = 10
const CR = 13
/** Where the line holding `s[at]` starts (`lastIndexOf` would look at index 0 for a negative start). */
const lineStart = (s: string, at: number): number => at <= 0 ? 0 : s.lastIndexOf("\n", at - 1) + 1
/** Lookarounds see past a line's ends in a chunk: such expressions are matched line by line. */
const LOOKAROUND = /\(\?<?[=!]/

/** Bytes kept of a line still open at a chunk's end: enough for `SEARCH_LINE_CHARS` characters. */
const OPEN_LINE_BYTES = SEARCH_LINE_CHARS * 4 + 8

/**
 * A search over the raw bytes of a text in an ASCII-compatible encoding whose line terminators
 * are single bytes (UTF-8), fed chunk by chunk in order. A chunk's complete lines are decoded at
 * once and the expression runs over all of them: only the lines it finds (and their context) are
 * cut out and checked alone, so the lines between cost a count of line feeds, not a string each.
 * Lines end at `\n`, `\r\n` or a lone `\r`, as the line pager counts them.
 */
export class ChunkSearcher {
  private readonly scan: RegExp | undefined
  /** Completed lines before the current chunk's text. */
  private lines = 0
  /** The bytes of a line still open, up to `OPEN_LINE_BYTES`. */
  private open: Array<Uint8Array> = []
  private openBytes = 0
  /** The last chunk ended in `\r`: a `\n` that starts the next belongs to it. */
  private pendingCR = false

  private readonly context: number
  /** What every match contains, as UTF-8: lines without it are counted, never decoded. */
  private readonly required: Buffer | undefined

  constructor(readonly collector: SearchCollector, readonly decode: (bytes: Uint8Array) => string) {
    this.context = collector.options.context
    const regex = collector.query.regex
    this.scan = LOOKAROUND.test(regex.source) ? undefined : new RegExp(regex.source, `${regex.flags}gm`)
    const literal = requiredLiteral(regex)
    this.required = literal === undefined ? undefined : Buffer.from(literal, "utf8")
  }

  push(chunk: Uint8Array): void {
    let bytes = chunk
    if (this.pendingCR && bytes.length > 0) {
      this.pendingCR = false
      if (bytes[0] === LF) bytes = bytes.subarray(1)
    }
    let split = bytes.length - 1
    while (split >= 0 && bytes[split] !== LF && bytes[split] !== CR) split--
    if (split < 0) {
      this.keepOpen(bytes)
      return
    }
    if (bytes[split] === CR && split === bytes.length - 1) this.pendingCR = true
    let head = bytes.subarray(0, split + 1)
    if (this.openBytes > 0) {
      // The line the last chunk left open, alone: the rest of the chunk stays where it was read.
      let first = 0
      while (head[first] !== LF && head[first] !== CR) first++
      if (head[first] === CR && head[first + 1] === LF) first++
      const line = this.joined(head.subarray(0, first + 1))
      this.open = []
      this.openBytes = 0
      this.text(this.decode(line), undefined)
      head = head.subarray(first + 1)
    }
    if (head.length > 0) this.complete(head)
    this.keepOpen(bytes.subarray(split + 1))
  }

  /** Complete lines, each with its terminator. */
  private complete(head: Uint8Array): void {
    if (this.required !== undefined && !this.collector.wantsAfter) {
      const bytes = Buffer.isBuffer(head) ? head : Buffer.from(head.buffer, head.byteOffset, head.byteLength)
      // No line here can match: count them (`\n` only, so no lone `\r` may end one) and keep the
      // last few as context for a match early in the next chunk.
      if (bytes.indexOf(this.required) === -1 && bytes.indexOf(CR) === -1) {
        // Where the last `context` lines start (`lastIndexOf` would read a negative start from the end).
        let start = head.length
        for (let k = 0; k < this.context && start > 0; k++) start = start < 2 ? 0 : head.lastIndexOf(LF, start - 2) + 1
        this.lines += -1 - nthLineFeed(head, 0, start, Number.MAX_SAFE_INTEGER)
        this.collector.skip(this.lines)
        if (start < head.length) this.text(this.decode(head.subarray(start)), head.subarray(start))
        return
      }
    }
    this.text(this.decode(head), head)
  }

  /** The end of the text: a last line without a terminator is a line. Returns the lines searched. */
  end(): number {
    if (this.openBytes > 0) {
      const last = this.decode(this.joined(new Uint8Array(0)))
      this.open = []
      this.openBytes = 0
      this.text(`${last}\n`, undefined)
    }
    return this.lines
  }

  private keepOpen(bytes: Uint8Array): void {
    // A line longer than is searched keeps its first bytes; the rest only ends it.
    const room = OPEN_LINE_BYTES - this.openBytes
    if (bytes.length === 0 || room <= 0) return
    const kept = bytes.subarray(0, Math.min(room, bytes.length))
    // A copy (a Node Buffer's `slice` would share the caller's reused buffer).
    this.open.push(new Uint8Array(kept))
    this.openBytes += kept.length
  }

  private joined(head: Uint8Array): Uint8Array {
    const out = new Uint8Array(this.openBytes + head.length)
    let at = 0
    for (const part of this.open) {
      out.set(part, at)
      at += part.length
    }
    out.set(head, at)
    return out
  }

  /**
   * Complete lines, each with its terminator; `bytes` when they are the same text (line feeds are
   * then counted on the bytes: fast where they lie in `searchableBuffers`).
   */
  private text(s: string, bytes: Uint8Array | undefined): void {
    const collector = this.collector
    if (this.scan === undefined || s.includes("\r")) {
      // Line by line: lone `\r` terminators, or an expression that looks past a line's ends.
      const parts = s.split(/\r\n|\r|\n/)
      parts.pop()
      for (const line of parts) collector.push(++this.lines, line)
      return
    }
    const base = this.lines
    /** Lines counted in `s` up to `countedTo` (a line start). */
    let counted = 0
    let countedTo = 0
    const ascii = bytes !== undefined && bytes.length === s.length
    const lineNumberAt = (start: number) => {
      if (ascii) counted += -1 - nthLineFeed(bytes, countedTo, start, Number.MAX_SAFE_INTEGER)
      else for (let i = s.indexOf("\n", countedTo); i !== -1 && i < start; i = s.indexOf("\n", i + 1)) counted++
      countedTo = start
      return base + counted + 1
    }
    /** The line starting at `start`: its text and where the next starts. */
    const lineAt = (start: number) => {
      const end = s.indexOf("\n", start)
      return { line: s.slice(start, end), next: end + 1 }
    }
    let pushedThrough = base
    let position = 0
    // Context owed to a match in the previous chunk.
    while (collector.wantsAfter && position < s.length) {
      const { line, next } = lineAt(position)
      collector.push(++pushedThrough, line)
      position = next
    }
    const scan = this.scan
    scan.lastIndex = position
    for (;;) {
      const found = scan.exec(s)
      // An empty match after the last terminator (`^$`) is no line.
      if (found === null || found.index >= s.length) break
      const start = lineStart(s, found.index)
      const number = lineNumberAt(start)
      // The lines before it not pushed yet (those of the chunk before were, at its end).
      const from = Math.max(pushedThrough + 1, number - this.context)
      if (from - 1 > pushedThrough) collector.skip(from - 1)
      this.pushBefore(s, start, from, number)
      let { line, next } = lineAt(start)
      collector.push(number, line)
      pushedThrough = number
      // Its context after (a match among those lines asks for more).
      while (collector.wantsAfter && next < s.length) {
        ;({ line, next } = lineAt(next))
        collector.push(++pushedThrough, line)
      }
      scan.lastIndex = next
      if (next >= s.length) break
    }
    this.lines = lineNumberAt(s.length) - 1
    if (pushedThrough < this.lines) {
      // The last lines go through the collector: the context of a match early in the next chunk.
      const from = Math.max(pushedThrough + 1, this.lines - this.context + 1)
      if (from - 1 > pushedThrough) collector.skip(from - 1)
      this.pushBefore(s, s.length, from, this.lines + 1)
    }
  }

  /** Push the lines `from`..`number - 1` of `s`, which end just before `start` (a line start). */
  private pushBefore(s: string, start: number, from: number, number: number): void {
    const before: Array<string> = []
    let at = start
    for (let n = number - 1; n >= from; n--) {
      const previous = lineStart(s, at - 1)
      before.push(s.slice(previous, at - 1))
      at = previous
    }
    before.reverse().forEach((line, i) => this.collector.push(number - before.length + i, line))
  }
}
