/**
 * Hashline anchors (pure): the `¶PATH#TAG` header, `N:text` lines, the tag of a whole text, and
 * where lines a model saw under one tag sit in the file now.
 *
 * The tag is the low 16 bits of xxHash32 (seed 0) of the whole text after CRLF/CR → LF and with
 * trailing spaces and tabs stripped from every line, as 4 upper-case hex digits (oh-my-pi's tag:
 * `"alpha\nbeta\n"` → `0063`). It names a version of the whole file, so any change anywhere
 * changes it (1 in 65,536 collide); where the lines sit is decided by their text, not by the tag.
 */

import { diffBlocks, unifiedHunks } from "./diff.js"

/** Files larger than this get no tag (their lines are still `N:`-numbered): the text is held whole to hash it. */
export const HASHLINE_MAX_BYTES = 4 * 1024 * 1024

const P1 = 0x9e3779b1
const P2 = 0x85ebca77
const P3 = 0xc2b2ae3d
const P4 = 0x27d4eb2f
const P5 = 0x165667b1

const rotl = (x: number, r: number): number => (x << r) | (x >>> (32 - r))
const u32 = (b: Uint8Array, i: number): number =>
  (b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24)) >>> 0
const round = (acc: number, lane: number): number => Math.imul(rotl((acc + Math.imul(lane, P2)) | 0, 13), P1)

/** xxHash32 of `bytes` (unsigned 32-bit). */
export const xxHash32 = (bytes: Uint8Array, seed = 0): number => {
  const length = bytes.length
  let i = 0
  let h: number
  if (length >= 16) {
    let v1 = (seed + P1 + P2) | 0
    let v2 = (seed + P2) | 0
    let v3 = seed | 0
    let v4 = (seed - P1) | 0
    for (; i + 16 <= length; i += 16) {
      v1 = round(v1, u32(bytes, i))
      v2 = round(v2, u32(bytes, i + 4))
      v3 = round(v3, u32(bytes, i + 8))
      v4 = round(v4, u32(bytes, i + 12))
    }
    h = (rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18)) | 0
  } else {
    h = (seed + P5) | 0
  }
  h = (h + length) | 0
  for (; i + 4 <= length; i += 4) h = Math.imul(rotl((h + Math.imul(u32(bytes, i), P3)) | 0, 17), P4)
  for (; i < length; i++) h = Math.imul(rotl((h + Math.imul(bytes[i]!, P5)) | 0, 11), P1)
  h ^= h >>> 15
  h = Math.imul(h, P2)
  h ^= h >>> 13
  h = Math.imul(h, P3)
  h ^= h >>> 16
  return h >>> 0
}

/** The text the tag hashes: LF line ends, no trailing spaces or tabs on any line. */
export const normalize = (text: string): string =>
  // Most files have neither: one search instead of a copy of a large text.
  /\r|[ \t](?:\n|$)/.test(text)
    ? text.replace(/[ \t]*(?:\r\n?|\n)|[ \t]+$/g, (cut) => cut.endsWith("\n") || cut.endsWith("\r") ? "\n" : "")
    : text

const encoder = new TextEncoder()

/** The tag of a whole text: 4 upper-case hex digits. */
export const tagOf = (text: string): string => tagOfNormal(normalize(text))

/** The tag of a text already `normalize`d. */
export const tagOfNormal = (normal: string): string =>
  (xxHash32(encoder.encode(normal)) & 0xffff).toString(16).toUpperCase().padStart(4, "0")

/** A tag as written: 4 hex digits. */
export const isTag = (text: string): boolean => /^[0-9A-Fa-f]{4}$/.test(text)

/** The first line of a hashline read. */
export const anchorHeader = (path: string, tag: string): string => `¶${path}#${tag}`

/** `¶PATH#TAG` → its parts (the tag upper-cased); undefined when it is not a header. */
export const parseHeader = (header: string): { readonly path: string; readonly tag: string } | undefined => {
  const match = /^¶(.+)#([0-9A-Fa-f]{4})$/.exec(header.trim())
  return match === null ? undefined : { path: match[1]!, tag: match[2]!.toUpperCase() }
}

/** One shown line in the hashline format. */
export const hashline = (number: number, text: string): string => `${number}:${text}`

/**
 * The lines of a text as the pager counts them: split at LF, CRLF or CR, a final terminator
 * ending the last line (no empty line after it), trailing spaces and tabs stripped (as the tag
 * sees them). An empty text is no lines.
 */
export const linesOf = (text: string): Array<string> => {
  if (text.length === 0) return []
  const lines = normalize(text).split("\n")
  if (lines[lines.length - 1] === "") lines.pop()
  return lines
}

/**
 * Lines `from` to `to` (1-based, inclusive) of a `normalize`d text, as `linesOf` gives them,
 * found without splitting the whole text (a page of a large file needs its own lines only).
 */
export const linesBetween = (normal: string, from: number, to: number): Array<string> => {
  const lines: Array<string> = []
  let start = 0
  for (let line = 1; line < from && start < normal.length; line++) {
    const end = normal.indexOf("\n", start)
    if (end === -1) return lines
    start = end + 1
  }
  for (let line = from; line <= to && start < normal.length; line++) {
    const end = normal.indexOf("\n", start)
    lines.push(normal.slice(start, end === -1 ? normal.length : end))
    if (end === -1) break
    start = end + 1
  }
  return lines
}

/** Where the lines a model meant are now. Line numbers are 1-based and inclusive. */
export type Location =
  | { readonly _tag: "Same" }
  | { readonly _tag: "Moved"; readonly start: number; readonly end: number }
  /** The lines are not in the file as they were: `near` is where they most likely were changed. */
  | { readonly _tag: "Changed"; readonly near: { readonly start: number; readonly end: number } | undefined }
  /** They occur at several places that nothing known tells apart. */
  | { readonly _tag: "Ambiguous"; readonly starts: ReadonlyArray<number> }

const strip = (line: string): string => line.replace(/[ \t\r]+$/, "")

/**
 * Find lines `start`-`end` of an earlier version in the current lines. `known` holds the lines of
 * the earlier version that are known (at least `start`-`end`; more around them tell repeated
 * blocks apart). Each place the block occurs is scored by how many known lines directly above and
 * below it still match; the best place wins, the original place on a tie, and a tie elsewhere is
 * `Ambiguous`. Lines compare without trailing spaces and tabs (as the tag sees them).
 */
export const locate = (
  known: ReadonlyMap<number, string>,
  start: number,
  end: number,
  current: ReadonlyArray<string>
): Location => {
  const block: Array<string> = []
  for (let n = start; n <= end; n++) block.push(strip(known.get(n)!))
  const now = current.map(strip)
  const candidates: Array<number> = []
  for (let p = 1; p + block.length - 1 <= now.length; p++) {
    let match = true
    for (let k = 0; k < block.length && match; k++) match = now[p - 1 + k] === block[k]
    if (match) candidates.push(p)
  }
  if (candidates.length === 0) return { _tag: "Changed", near: nearOf(known, start, end, now) }
  const score = (p: number): number => {
    let s = 0
    for (let k = 1; known.has(start - k) && p - k >= 1 && now[p - k - 1] === strip(known.get(start - k)!); k++) s++
    const last = p + block.length - 1
    for (
      let k = 1;
      known.has(end + k) && last + k <= now.length && now[last + k - 1] === strip(known.get(end + k)!);
      k++
    ) s++
    return s
  }
  const scored = candidates.map((p) => [p, score(p)] as const)
  const best = Math.max(...scored.map(([, s]) => s))
  const top = scored.filter(([, s]) => s === best).map(([p]) => p)
  if (top.includes(start)) return { _tag: "Same" }
  if (top.length > 1) return { _tag: "Ambiguous", starts: top }
  return { _tag: "Moved", start: top[0]!, end: top[0]! + block.length - 1 }
}

/** Lines of context around a block used to find where a changed block went. */
const NEAR_CONTEXT = 3

/**
 * Where a changed block most likely is now: between the nearest known lines above and below it
 * that occur exactly once in the current text (else at the same numbers, clamped).
 */
const nearOf = (
  known: ReadonlyMap<number, string>,
  start: number,
  end: number,
  now: ReadonlyArray<string>
): { start: number; end: number } | undefined => {
  if (now.length === 0) return undefined
  const unique = (line: string): number => {
    const first = now.indexOf(line)
    return first === -1 || now.indexOf(line, first + 1) !== -1 ? -1 : first + 1
  }
  let above: number | undefined
  for (let k = 1; k <= NEAR_CONTEXT && known.has(start - k); k++) {
    const at = unique(strip(known.get(start - k)!))
    if (at !== -1) {
      above = at + k - 1
      break
    }
  }
  let below: number | undefined
  for (let k = 1; k <= NEAR_CONTEXT && known.has(end + k); k++) {
    const at = unique(strip(known.get(end + k)!))
    if (at !== -1) {
      below = at - k + 1
      break
    }
  }
  const from = above === undefined ? (below === undefined ? start : below - (end - start + 1)) : above + 1
  const to = below === undefined ? from + (end - start) : below - 1
  const first = Math.min(Math.max(1, from), now.length)
  return { start: first, end: Math.min(Math.max(first - 1, to), now.length) }
}

/** Most lines on either side that `unifiedDiff` compares (beyond: no diff, the lines are shown). */
export const DIFF_MAX_LINES = 2_000

/**
 * A unified diff of two small blocks (`---`/`+++` labels, then one hunk holding every line of
 * both, numbered from their `start`), lines compared without trailing blanks; undefined when a
 * block has more than `DIFF_MAX_LINES` lines.
 */
export const unifiedDiff = (
  before: { readonly label: string; readonly start: number; readonly lines: ReadonlyArray<string> },
  after: { readonly label: string; readonly start: number; readonly lines: ReadonlyArray<string> }
): string | undefined => {
  const a = before.lines
  const b = after.lines
  if (a.length > DIFF_MAX_LINES || b.length > DIFF_MAX_LINES) return undefined
  const everything = a.length + b.length
  const blocks = diffBlocks(a.length, b.length, (i, j) => strip(a[i]!) === strip(b[j]!), {
    maxEdits: everything,
    maxWork: 1_000_000
  })
  if (blocks === undefined) return undefined
  // No line differs but for trailing blanks: one hunk of context, the block as it is now.
  const hunks = blocks.length === 0
    ? [`@@ -${before.start},${a.length} +${after.start},${b.length} @@`, ...b.map((line) => ` ${line}`)]
    : unifiedHunks(blocks, a.length, (i) => a[i]!, (j) => b[j]!, {
      context: everything,
      oldFirst: before.start,
      newFirst: after.start
    })
  return [`--- ${before.label}`, `+++ ${after.label}`, ...hunks].join("\n")
}
