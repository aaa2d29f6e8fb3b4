/**
 * Decoders for the CJK encodings iconv-lite lacks, built on its tables:
 *
 * - ISO-2022-JP (with the designations of ISO-2022-JP-2 and -2004), ISO-2022-KR and HZ-GB-2312,
 *   the 7-bit encodings that switch character sets with escape sequences;
 * - Shift_JISX0213 and EUC-JISX0213 (JIS X 0213), and JIS X 0213 characters in Shift_JIS and
 *   EUC-JP files where Microsoft's tables have none;
 * - Johab (Korean), and the KS X 1001:1998 make-up sequences of EUC-KR (a filler and three jamo
 *   that spell one syllable).
 *
 * Every decoder is pure over the bytes of one line or a stream of them; the only state that can
 * outlive a line is ISO-2022-JP's designation of G0 (`Iso2022JpState`).
 */
import { isAscii } from "node:buffer"
import { conflicts, pairs, plane1, plane2 } from "./jisx0213.js"
import { iconv } from "./legacy.js"

const asBuffer = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
const REPLACEMENT = "\ufffd"

// -----------------------------------------------------------------------------
// JIS X 0213
// -----------------------------------------------------------------------------

let x0213Cells: Map<number, string> | undefined
let x0213Conflicts: ReadonlySet<number> | undefined

/** `plane << 16 | lead << 8 | trail` (EUC bytes) → the JIS X 0213 text where iconv-lite differs. */
const x0213Table = (): Map<number, string> => {
  if (x0213Cells !== undefined) return x0213Cells
  const cells = new Map<number, string>()
  for (const [plane, rows] of [[1, plane1], [2, plane2]] as const) {
    for (const [lead, row] of Object.entries(rows)) {
      let trail = 0xa1
      for (const cell of row) {
        if (cell !== " ") cells.set((plane << 16) | (Number(lead) << 8) | trail, cell)
        trail++
      }
    }
  }
  for (const [code, text] of Object.entries(pairs)) cells.set(Number(code), text)
  x0213Cells = cells
  x0213Conflicts = new Set(conflicts)
  return cells
}

/**
 * The JIS X 0213 text of an EUC code, when it differs from iconv-lite's EUC-JP. `first`: JIS X
 * 0213 wins over Microsoft's mappings; otherwise it only fills codes iconv-lite leaves unmapped.
 */
const x0213 = (plane: number, lead: number, trail: number, first: boolean): string | undefined => {
  const code = (plane << 16) | (lead << 8) | trail
  const text = x0213Table().get(code)
  return text !== undefined && (first || !x0213Conflicts!.has(code)) ? text : undefined
}

/** Shift_JIS lead and trail bytes → JIS X 0213 plane and EUC row and cell bytes (0xA1-0xFE). */
const sjisToEuc = (lead: number, trail: number): readonly [number, number, number] | undefined => {
  if (trail < 0x40 || trail === 0x7f || trail > 0xfc) return undefined
  const second = trail >= 0x9f
  const cell = second ? trail - 0x9e : trail - (trail >= 0x80 ? 0x40 : 0x3f)
  if (lead >= 0x81 && lead <= 0xef && !(lead >= 0xa0 && lead <= 0xdf)) {
    const row = (lead <= 0x9f ? lead - 0x81 : lead - 0xc1) * 2 + 1 + (second ? 1 : 0)
    return [1, row + 0xa0, cell + 0xa0]
  }
  if (lead >= 0xf0 && lead <= 0xfc) {
    // Plane 2 puts its rows 1, 3-5, 8 and 12-15 on F0-F4, then 78-94 two per lead byte.
    const low: Record<number, readonly [number, number]> = {
      0xf0: [1, 8],
      0xf1: [3, 4],
      0xf2: [5, 12],
      0xf3: [13, 14],
      0xf4: [15, 78]
    }
    const row = lead <= 0xf4 ? low[lead]![second ? 1 : 0] : (lead - 0xf5) * 2 + 79 + (second ? 1 : 0)
    return [2, row + 0xa0, cell + 0xa0]
  }
  return undefined
}

/** Bytes of the character starting at `i` (1 for a single byte or an invalid one). */
type CharLength = (bytes: Uint8Array, i: number) => number

const sjisLength: CharLength = (bytes, i) => {
  const b = bytes[i]!
  return (b >= 0x81 && b <= 0x9f) || (b >= 0xe0 && b <= 0xfc) ? 2 : 1
}

const eucJpLength: CharLength = (bytes, i) => {
  const b = bytes[i]!
  return b === 0x8f ? 3 : b === 0x8e || (b >= 0xa1 && b <= 0xfe) ? 2 : 1
}

/**
 * Decode with iconv-lite's `base`, except the characters `special` names: runs between them go
 * through iconv-lite in one call each.
 */
const decodeRuns = (
  bytes: Uint8Array,
  base: string,
  length: CharLength,
  special: (bytes: Uint8Array, i: number, length: number) => string | undefined
): string => {
  let out = ""
  let run = 0
  for (let i = 0; i < bytes.length;) {
    const n = Math.min(length(bytes, i), bytes.length - i)
    const text = n > 1 ? special(bytes, i, n) : undefined
    if (text !== undefined) {
      if (i > run) out += iconv().decode(asBuffer(bytes.subarray(run, i)), base)
      out += text
      run = i + n
    }
    i += n
  }
  return run === 0 ? iconv().decode(asBuffer(bytes), base) : out + iconv().decode(asBuffer(bytes.subarray(run)), base)
}

/** Is this character (alone) mapped by iconv-lite's `base`? */
const mapped = (bytes: Uint8Array, i: number, n: number, base: string): boolean =>
  !iconv().decode(asBuffer(bytes.subarray(i, i + n)), base).includes(REPLACEMENT)

/**
 * Shift_JIS: Microsoft's code page 932; a line holding codes only JIS X 0213 has is read as
 * Shift_JISX0213 throughout (`x0213First`: JIS X 0213 first, code page 932 for the rest), so a
 * code both map (code page 932's IBM extensions, JIS X 0213's plane 2) follows its neighbours.
 */
export const decodeShiftJis = (bytes: Uint8Array, x0213First: boolean): string => {
  if (!x0213First) {
    const fast = iconv().decode(asBuffer(bytes), "shift_jis")
    if (!fast.includes(REPLACEMENT) || decodeShiftJisRuns(bytes, false) === fast) return fast
  }
  return decodeShiftJisRuns(bytes, true)
}

const decodeShiftJisRuns = (bytes: Uint8Array, x0213First: boolean): string =>
  decodeRuns(bytes, "shift_jis", sjisLength, (b, i, n) => {
    const euc = sjisToEuc(b[i]!, b[i + 1]!)
    if (euc === undefined) return undefined
    const text = x0213(euc[0], euc[1], euc[2], x0213First)
    return text !== undefined && (x0213First || !mapped(b, i, n, "shift_jis")) ? text : undefined
  })

/** EUC-JP; a line holding codes only JIS X 0213 has is read as EUC-JISX0213 (as Shift_JIS above). */
export const decodeEucJp = (bytes: Uint8Array, x0213First: boolean): string => {
  if (!x0213First) {
    const fast = iconv().decode(asBuffer(bytes), "euc-jp")
    if (!fast.includes(REPLACEMENT) || decodeEucJpRuns(bytes, false) === fast) return fast
  }
  return decodeEucJpRuns(bytes, true)
}

const decodeEucJpRuns = (bytes: Uint8Array, x0213First: boolean): string =>
  decodeRuns(bytes, "euc-jp", eucJpLength, (b, i, n) => {
    const text = n === 3
      ? x0213(2, b[i + 1]!, b[i + 2]!, x0213First)
      : b[i] === 0x8e
      ? undefined
      : x0213(1, b[i]!, b[i + 1]!, x0213First)
    return text !== undefined && (x0213First || !mapped(b, i, n, "euc-jp")) ? text : undefined
  })

// -----------------------------------------------------------------------------
// Korean: Johab, and EUC-KR make-up sequences
// -----------------------------------------------------------------------------

/** Hangul compatibility jamo (U+3131…) of the 19 initial consonants, in syllable order. */
const INITIALS = [
  0x3131,
  0x3132,
  0x3134,
  0x3137,
  0x3138,
  0x3139,
  0x3141,
  0x3142,
  0x3143,
  0x3145,
  0x3146,
  0x3147,
  0x3148,
  0x3149,
  0x314a,
  0x314b,
  0x314c,
  0x314d,
  0x314e
]
/** The 27 final consonants, in syllable order (index + 1; 0 is none). */
const FINALS = [
  0x3131,
  0x3132,
  0x3133,
  0x3134,
  0x3135,
  0x3136,
  0x3137,
  0x3139,
  0x313a,
  0x313b,
  0x313c,
  0x313d,
  0x313e,
  0x313f,
  0x3140,
  0x3141,
  0x3142,
  0x3144,
  0x3145,
  0x3146,
  0x3147,
  0x3148,
  0x314a,
  0x314b,
  0x314c,
  0x314d,
  0x314e
]
/** The 21 vowels are U+314F…U+3163 in syllable order. */
const VOWEL = 0x314f
const FILLER = 0x3164
const syllable = (initial: number, vowel: number, final: number): string =>
  String.fromCharCode(0xac00 + (initial * 21 + vowel) * 28 + final)

/**
 * KS X 1001:1998 Annex 3: a Hangul filler followed by an initial, a vowel and a final (or a
 * filler) spells the syllable, for the 8,822 syllables EUC-KR has no code for.
 */
const MAKE_UP = /\u3164([\u3131-\u314e])([\u314f-\u3163])([\u3131-\u314e\u3164])/g
export const composeMakeUp = (text: string): string =>
  text.indexOf("\u3164") === -1 ?
    text :
    text.replace(MAKE_UP, (sequence, initial: string, vowel: string, final: string) => {
      const i = INITIALS.indexOf(initial.charCodeAt(0))
      const f = final.charCodeAt(0) === FILLER ? 0 : FINALS.indexOf(final.charCodeAt(0)) + 1
      return i === -1 || f === 0 && final.charCodeAt(0) !== FILLER
        ? sequence
        : syllable(i, vowel.charCodeAt(0) - VOWEL, f)
    })

/** How much of a decoded tail may still become a make-up syllable when more text follows. */
export const makeUpTail = (text: string): number => {
  for (let back = 1; back <= 3 && back <= text.length; back++) {
    if (text.charCodeAt(text.length - back) === FILLER) return back
  }
  return 0
}

// Johab's 5-bit fields → syllable indices: -1 for a filler, undefined for an unused value.
const JOHAB_INITIAL = (v: number) => v === 1 ? -1 : v >= 2 && v <= 20 ? v - 2 : undefined
const JOHAB_VOWEL = (v: number) =>
  v === 2
    ? -1
    : v >= 3 && v <= 7
    ? v - 3
    : v >= 10 && v <= 15
    ? v - 5
    : v >= 18 && v <= 23
    ? v - 7
    : v >= 26 && v <= 29
    ? v - 9
    : undefined
const JOHAB_FINAL = (v: number) => v === 1 ? -1 : v >= 2 && v <= 17 ? v - 1 : v >= 19 && v <= 29 ? v - 2 : undefined

/** One Johab Hangul code (lead 0x84-0xD3): a syllable, a lone jamo, or undefined when invalid. */
const johabHangul = (code: number): string | undefined => {
  const i = JOHAB_INITIAL((code >> 10) & 0x1f)
  const v = JOHAB_VOWEL((code >> 5) & 0x1f)
  const f = JOHAB_FINAL(code & 0x1f)
  if (i === undefined || v === undefined || f === undefined) return undefined
  if (i >= 0 && v >= 0) return syllable(i, v, Math.max(f, 0))
  if (i >= 0) return f < 0 ? String.fromCharCode(INITIALS[i]!) : undefined
  if (v >= 0) return f < 0 ? String.fromCharCode(VOWEL + v) : undefined
  return String.fromCharCode(f < 0 ? 0x3000 : FINALS[f - 1]!)
}

const johabLength: CharLength = (bytes, i) => {
  const b = bytes[i]!
  return (b >= 0x84 && b <= 0xd3) || (b >= 0xd8 && b <= 0xde) || (b >= 0xe0 && b <= 0xf9) ? 2 : 1
}

/**
 * Johab: Hangul spelled by its jamo in 5-bit fields; symbols and Hanja are the rows of KS X 1001
 * two to a lead byte (D9-DE: rows 0x21-0x2C, E0-F9: rows 0x4A-0x7D), decoded through EUC-KR.
 */
export const decodeJohab = (bytes: Uint8Array): string => {
  let out = ""
  const euc: Array<number> = []
  const flush = () => {
    if (euc.length > 0) out += iconv().decode(Buffer.from(euc), "cp949")
    euc.length = 0
  }
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i]!
    const n = Math.min(johabLength(bytes, i), bytes.length - i)
    if (n === 1) {
      if (b < 0x80) euc.push(b)
      else {
        flush()
        out += REPLACEMENT
      }
      i++
      continue
    }
    const t = bytes[i + 1]!
    if (b <= 0xd3) {
      flush()
      out += johabHangul((b << 8) | t) ?? REPLACEMENT
    } else {
      const position = t >= 0x31 && t <= 0x7e ? t - 0x31 : t >= 0x91 && t <= 0xfe ? t - 0x91 + 78 : -1
      const row = (b <= 0xde ? 0x21 + (b - 0xd9) * 2 : 0x4a + (b - 0xe0) * 2) + (position >= 94 ? 1 : 0)
      // D8 is user-defined; the KS X 1001 jamo row (0x24) is spelled in the Hangul area instead.
      if (position < 0 || b === 0xd8 || row === 0x24) {
        flush()
        out += REPLACEMENT
      } else euc.push(row | 0x80, ((position % 94) + 0x21) | 0x80)
    }
    i += 2
  }
  flush()
  return out
}

// -----------------------------------------------------------------------------
// Escape-based encodings
// -----------------------------------------------------------------------------

const ESC = 0x1b
const SO = 0x0e
const SI = 0x0f
const LF = 0x0a

/** ISO-2022-JP's G0 character sets (the state a line can start in). */
export const Iso2022Jp = {
  ascii: 0,
  roman: 1,
  katakana: 2,
  jis0208: 3,
  jis0212: 4,
  gb2312: 5,
  ksc5601: 6,
  x0213Plane1: 7,
  x0213Plane2: 8
} as const
export type Iso2022JpState = number

/** Designations: the bytes after ESC → the G0 set they select. */
const designations: ReadonlyArray<readonly [ReadonlyArray<number>, number]> = [
  [[0x28, 0x42], Iso2022Jp.ascii], // ( B
  [[0x28, 0x4a], Iso2022Jp.roman], // ( J
  [[0x28, 0x48], Iso2022Jp.roman], // ( H (an old spelling of J)
  [[0x28, 0x49], Iso2022Jp.katakana], // ( I
  [[0x24, 0x40], Iso2022Jp.jis0208], // $ @ (JIS C 6226-1978)
  [[0x24, 0x42], Iso2022Jp.jis0208], // $ B
  [[0x24, 0x41], Iso2022Jp.gb2312], // $ A
  [[0x24, 0x28, 0x40], Iso2022Jp.jis0208], // $ ( @ (the long forms of the three above)
  [[0x24, 0x28, 0x41], Iso2022Jp.gb2312], // $ ( A
  [[0x24, 0x28, 0x42], Iso2022Jp.jis0208], // $ ( B
  [[0x24, 0x28, 0x43], Iso2022Jp.ksc5601], // $ ( C
  [[0x24, 0x28, 0x44], Iso2022Jp.jis0212], // $ ( D
  [[0x24, 0x28, 0x4f], Iso2022Jp.x0213Plane1], // $ ( O (JIS X 0213:2000)
  [[0x24, 0x28, 0x51], Iso2022Jp.x0213Plane1], // $ ( Q (JIS X 0213:2004)
  [[0x24, 0x28, 0x50], Iso2022Jp.x0213Plane2] // $ ( P
]
/** Sequences that change nothing we decode: `ESC & @` announces JIS X 0208-1990. */
const ignored: ReadonlyArray<ReadonlyArray<number>> = [[0x26, 0x40]]
/** G2 sets of ISO-2022-JP-2, used one character at a time by `ESC N`. */
const g2Designations: ReadonlyArray<readonly [ReadonlyArray<number>, string]> = [
  [[0x2e, 0x41], "latin1"], // . A
  [[0x2e, 0x46], "iso-8859-7"] // . F
]

const startsWith = (bytes: Uint8Array, at: number, prefix: ReadonlyArray<number>): boolean =>
  prefix.every((byte, k) => bytes[at + 1 + k] === byte)

/** Could the bytes from `at` (an ESC) still become one of the known sequences? */
const couldBeEscape = (bytes: Uint8Array, at: number): boolean => {
  const have = bytes.length - at - 1
  return [...designations.map(([seq]) => seq), ...ignored, ...g2Designations.map(([seq]) => seq)]
    .some((seq) => seq.length > have && startsWith(bytes, at, seq.slice(0, have)))
}

/** A decoder for one charset's 2-byte codes (0x21-0x7E each), as EUC bytes with the high bit set. */
const wideDecoders: Record<number, (euc: Uint8Array) => string> = {
  [Iso2022Jp.jis0208]: (euc) => decodeEucJp(euc, false),
  [Iso2022Jp.jis0212]: (euc) => decodeEucJp(withPrefix(euc, 0x8f), false),
  [Iso2022Jp.gb2312]: (euc) => iconv().decode(asBuffer(euc), "gbk"),
  [Iso2022Jp.ksc5601]: (euc) => iconv().decode(asBuffer(euc), "cp949"),
  [Iso2022Jp.x0213Plane1]: (euc) => decodeEucJp(euc, true),
  [Iso2022Jp.x0213Plane2]: (euc) => decodeEucJp(withPrefix(euc, 0x8f), true)
}

/** `8F a b 8F c d …`: each 2-byte code of a run prefixed, for EUC-JP's plane 2 codes. */
const withPrefix = (euc: Uint8Array, prefix: number): Uint8Array => {
  const out = new Uint8Array((euc.length / 2) * 3)
  for (let i = 0, o = 0; i + 1 < euc.length; i += 2, o += 3) {
    out[o] = prefix
    out[o + 1] = euc[i]!
    out[o + 2] = euc[i + 1]!
  }
  return out
}

/**
 * What the 7-bit shift decoders share: bytes held back when a write ends inside an escape or a
 * 2-byte code, and the text out with a run of 2-byte codes that is decoded at once (a run is
 * cheaper to hand to the charset decoder than one code at a time).
 */
abstract class ShiftDecoder {
  private pending: Uint8Array = new Uint8Array(0)
  private out = ""
  private readonly wide: Array<number> = []

  /** How the 2-byte codes of the set in force read, given as EUC bytes (high bit set). */
  protected abstract decodeWide(euc: Uint8Array): string

  /** The bytes held back from the last write, then `chunk`; the text out starts empty. */
  protected begin(chunk: Uint8Array): Uint8Array {
    const bytes = this.pending.length > 0 ? concat(this.pending, chunk) : chunk
    this.pending = new Uint8Array(0)
    this.out = ""
    return bytes
  }

  /** Keep the bytes from `at` for the next write; the text so far is this write's. */
  protected hold(bytes: Uint8Array, at: number): string {
    this.pending = bytes.slice(at)
    return this.finish()
  }

  /** Decode the run of 2-byte codes waiting (in the set in force until now). */
  protected flush(): void {
    if (this.wide.length === 0) return
    this.out += this.decodeWide(Uint8Array.from(this.wide))
    this.wide.length = 0
  }

  protected emit(text: string): void {
    this.flush()
    this.out += text
  }

  /** One 2-byte code of the set in force, as its two 7-bit bytes. */
  protected pair(lead: number, trail: number): void {
    this.wide.push(lead | 0x80, trail | 0x80)
  }

  /**
   * The byte at `i`, not an escape: a 1-byte character (`single`), or with a 2-byte set in force
   * (`wide`) the first byte of a code. Where the next byte is, or -1 when the bytes end inside
   * the code.
   */
  protected step(bytes: Uint8Array, i: number, wide: boolean, single: (byte: number) => string): number {
    const b = bytes[i]!
    if (b >= 0x80) {
      this.emit(REPLACEMENT)
      return i + 1
    }
    if (!wide || b < 0x21 || b === 0x7f) {
      this.emit(single(b))
      return i + 1
    }
    if (i + 1 >= bytes.length) return -1
    const t = bytes[i + 1]!
    if (!isTrail(t)) {
      this.emit(REPLACEMENT)
      return i + 1
    }
    this.pair(b, t)
    return i + 2
  }

  protected finish(): string {
    this.flush()
    return this.out
  }

  /** What is held back when the text ends: a cut character, shown as one replacement. */
  protected takePending(): Uint8Array {
    const rest = this.pending
    this.pending = new Uint8Array(0)
    return rest
  }

  end(): string {
    return this.takePending().length > 0 ? REPLACEMENT : ""
  }
}

/** A 2-byte code's second byte must be 0x21-0x7E as its first. */
const isTrail = (t: number): boolean => t >= 0x21 && t <= 0x7e

/**
 * An ISO-2022-JP stream decoder. The G0 designation carries across lines (as Python's codec
 * keeps it); `state` is the designation in force after the bytes written so far.
 */
export class Iso2022JpDecoder extends ShiftDecoder {
  private g0: number
  private g2: string | undefined = undefined

  constructor(state: Iso2022JpState = Iso2022Jp.ascii) {
    super()
    this.g0 = state
  }

  get state(): Iso2022JpState {
    return this.g0
  }

  protected decodeWide(euc: Uint8Array): string {
    return wideDecoders[this.g0]!(euc)
  }

  /** Follow the designations only (no text): what the pager does over lines it skips. */
  scan(chunk: Uint8Array): void {
    const bytes = this.begin(chunk)
    for (let at = bytes.indexOf(ESC); at !== -1; at = bytes.indexOf(ESC, at + 1)) {
      if (this.escape(bytes, at) === -1) {
        this.hold(bytes, at)
        return
      }
    }
  }

  write(chunk: Uint8Array): string {
    const bytes = this.begin(chunk)
    let i = 0
    while (i < bytes.length) {
      const b = bytes[i]!
      if (b === ESC) {
        // The run so far is in the set in force before this sequence.
        this.flush()
        const taken = this.escape(bytes, i)
        // Cut by the end of this chunk: the rest comes with the next.
        if (taken === -1) return this.hold(bytes, i)
        if (taken === 0) {
          this.emit("\u001b")
          i++
          continue
        }
        if (bytes[i + 1] === 0x4e) {
          // ESC N x: one character of G2.
          const x = bytes[i + 2]!
          this.emit(
            this.g2 !== undefined && x >= 0x20 && x < 0x80
              ? iconv().decode(Buffer.from([x | 0x80]), this.g2)
              : REPLACEMENT
          )
        }
        i += taken
        continue
      }
      const next = this.step(bytes, i, wideDecoders[this.g0] !== undefined, (byte) => this.single(byte))
      // Half a 2-byte code: wait for its other half.
      if (next === -1) return this.hold(bytes, i)
      i = next
    }
    return this.finish()
  }

  /** A byte of a 1-byte set (or a control character). */
  private single(b: number): string {
    if (b < 0x21 || b === 0x7f) return String.fromCharCode(b)
    if (this.g0 === Iso2022Jp.roman) return b === 0x5c ? "\u00a5" : b === 0x7e ? "\u203e" : String.fromCharCode(b)
    if (this.g0 === Iso2022Jp.katakana) return b <= 0x5f ? String.fromCharCode(0xff61 + b - 0x21) : REPLACEMENT
    return String.fromCharCode(b)
  }

  /**
   * Apply the escape sequence at `at`: its length, 0 when it is none we know (the ESC is shown
   * as it is), -1 when the bytes end before it could be told.
   */
  private escape(bytes: Uint8Array, at: number): number {
    for (const [sequence, set] of designations) {
      if (startsWith(bytes, at, sequence)) {
        this.g0 = set
        return sequence.length + 1
      }
    }
    for (const sequence of ignored) if (startsWith(bytes, at, sequence)) return sequence.length + 1
    for (const [sequence, set] of g2Designations) {
      if (startsWith(bytes, at, sequence)) {
        this.g2 = set
        return sequence.length + 1
      }
    }
    if (bytes[at + 1] === 0x4e) return at + 2 < bytes.length ? 3 : -1
    return couldBeEscape(bytes, at) ? -1 : 0
  }
}

/** Decode one line of ISO-2022-JP that starts with `state` in force. */
export const decodeIso2022Jp = (bytes: Uint8Array, state: Iso2022JpState): string => {
  const decoder = new Iso2022JpDecoder(state)
  return decoder.write(bytes) + decoder.end()
}

const KR_DESIGNATION = [0x24, 0x29, 0x43]

/**
 * ISO-2022-KR: `ESC $ ) C` designates KS X 1001 once; SO shifts to it, SI back, and a line feed
 * ends a shift. Each line therefore starts in ASCII.
 */
export class Iso2022KrDecoder extends ShiftDecoder {
  private shifted = false

  protected decodeWide(euc: Uint8Array): string {
    return iconv().decode(asBuffer(euc), "cp949")
  }

  write(chunk: Uint8Array): string {
    const bytes = this.begin(chunk)
    for (let i = 0; i < bytes.length;) {
      const b = bytes[i]!
      if (b === ESC && startsWith(bytes, i, KR_DESIGNATION)) {
        i += 4
        continue
      }
      if (b === ESC && i + 4 > bytes.length && startsWith(bytes, i, KR_DESIGNATION.slice(0, bytes.length - i - 1))) {
        return this.hold(bytes, i)
      }
      if (b === SO || b === SI) {
        this.flush()
        this.shifted = b === SO
        i++
        continue
      }
      if (b === LF) this.shifted = false
      const next = this.step(bytes, i, this.shifted, (byte) => String.fromCharCode(byte))
      if (next === -1) return this.hold(bytes, i)
      i = next
    }
    return this.finish()
  }
}

/**
 * HZ-GB-2312: `~{` enters GB 2312 (2-byte codes of 0x21-0x7E), `~}` leaves it, `~~` is a tilde,
 * and `~` before a line break joins the lines (the break stays: lines are the file's lines). A
 * line starts in ASCII: a GB run may not span a line break.
 */
export class HzDecoder extends ShiftDecoder {
  private gb = false

  protected decodeWide(euc: Uint8Array): string {
    return iconv().decode(asBuffer(euc), "gbk")
  }

  write(chunk: Uint8Array): string {
    const bytes = this.begin(chunk)
    for (let i = 0; i < bytes.length;) {
      const b = bytes[i]!
      if (b === LF || b === 0x0d) {
        this.gb = false
        this.emit(String.fromCharCode(b))
        i++
        continue
      }
      if (i + 1 >= bytes.length && (b === 0x7e || this.gb)) return this.hold(bytes, i)
      const next = bytes[i + 1]!
      if (b === 0x7e && (next === 0x7b || next === 0x7d || (!this.gb && next === 0x7e))) {
        this.flush()
        if (next === 0x7e) this.emit("~")
        else this.gb = next === 0x7b
        i += 2
        continue
      }
      if (b >= 0x80 || (this.gb && (b < 0x21 || !isTrail(next)))) {
        this.emit(REPLACEMENT)
        i++
        continue
      }
      if (!this.gb) {
        this.emit(String.fromCharCode(b))
        i++
        continue
      }
      this.pair(b, next)
      i += 2
    }
    return this.finish()
  }

  override end(): string {
    const rest = this.takePending()
    // A `~` that ends the text (or a line, `~` + break) is a line continuation: nothing to show.
    return rest.length === 0 || (rest.length === 1 && rest[0] === 0x7e) ? "" : REPLACEMENT
  }
}

const concat = (a: Uint8Array, b: Uint8Array): Uint8Array => {
  const out = new Uint8Array(a.length + b.length)
  out.set(a)
  out.set(b, a.length)
  return out
}

// -----------------------------------------------------------------------------
// Streaming for the stateless multi-byte decoders
// -----------------------------------------------------------------------------

export interface StreamDecoder {
  readonly write: (bytes: Uint8Array) => string
  readonly end: () => string
}

export const charLengths = { sjis: sjisLength, eucJp: eucJpLength, johab: johabLength } as const

/**
 * A stream over a whole-buffer decoder: bytes of a character cut by a write wait for the next
 * one (`length` says where characters start, scanning from the last safe point).
 */
export const chunked = (decode: (bytes: Uint8Array) => string, length: CharLength): StreamDecoder => {
  let pending: Uint8Array = new Uint8Array(0)
  return {
    write: (chunk) => {
      const bytes = pending.length > 0 ? concat(pending, chunk) : chunk
      let i = 0
      let complete = 0
      while (i < bytes.length) {
        const n = length(bytes, i)
        if (i + n > bytes.length) break
        i += n
        complete = i
      }
      pending = bytes.slice(complete)
      return complete > 0 ? decode(bytes.subarray(0, complete)) : ""
    },
    end: () => {
      const rest = pending
      pending = new Uint8Array(0)
      return rest.length > 0 ? decode(rest) : ""
    }
  }
}

// -----------------------------------------------------------------------------
// Recognising the escape-based encodings
// -----------------------------------------------------------------------------

/** The escape-based encoding a 7-bit sample is written in, judged by its escape sequences. */
export const escapeEncoding = (sample: Uint8Array): "iso-2022-jp" | "iso-2022-kr" | "hz-gb-2312" | undefined => {
  if (!isAscii(sample)) return undefined
  // Neither an escape sequence nor an HZ run (`~{`) can start: most ASCII text, told natively.
  if (!sample.includes(ESC) && !sample.includes(0x7e)) return undefined
  let jp = false
  let kr = false
  for (let at = sample.indexOf(ESC); at !== -1; at = sample.indexOf(ESC, at + 1)) {
    if (startsWith(sample, at, [0x24, 0x29, 0x43])) kr = true
    // A 2-byte set or half-width katakana: `ESC ( B` alone is what terminals emit too.
    for (const [sequence, set] of designations) {
      if (set !== Iso2022Jp.ascii && set !== Iso2022Jp.roman && startsWith(sample, at, sequence)) jp = true
    }
  }
  if (kr && sample.includes(SO)) return "iso-2022-kr"
  if (jp) return "iso-2022-jp"
  return isStrictHz(sample) ? "hz-gb-2312" : undefined
}

/**
 * HZ by its rules, not just its `~{`: at least one GB run, every `~` in ASCII text followed by
 * `{`, `~` or a line break, every GB run of whole 2-byte codes closed by `~}` on its line.
 */
const isStrictHz = (sample: Uint8Array): boolean => {
  let runs = 0
  let gb = false
  for (let i = 0; i < sample.length;) {
    const b = sample[i]!
    if (gb) {
      if (b === 0x7e && sample[i + 1] === 0x7d) {
        gb = false
        i += 2
        continue
      }
      if (b < 0x21 || b > 0x7e) return b === LF ? false : i + 1 >= sample.length
      const t = sample[i + 1]
      if (t === undefined) return true
      if (t < 0x21 || t > 0x7e) return false
      i += 2
      continue
    }
    if (b === 0x7e) {
      const next = sample[i + 1]
      if (next === undefined) return runs > 0
      if (next === 0x7b) {
        gb = true
        runs++
      } else if (next !== 0x7e && next !== LF && next !== 0x0d) return false
      i += 2
      continue
    }
    i++
  }
  return runs > 0
}
