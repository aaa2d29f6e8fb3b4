/**
 * Text encodings: decide from a file's first bytes whether it is text and in which encoding,
 * and decode lines of it. Byte-order marks first, then UTF-16 by its zero-byte pattern, then the
 * escape-based encodings by their escape sequences (ISO-2022-JP, ISO-2022-KR, HZ), then strict
 * UTF-8, then a statistical detector (chardet) for legacy encodings decoded by iconv-lite — each
 * guess checked by decoding the sample, and the superset preferred that decodes it cleanly.
 */
import { isAscii } from "node:buffer"
import { binarySignature, isBinarySample } from "./binary.js"
import {
  charLengths,
  chunked,
  composeMakeUp,
  decodeEucJp,
  decodeIso2022Jp,
  decodeJohab,
  decodeShiftJis,
  escapeEncoding,
  HzDecoder,
  Iso2022JpDecoder,
  Iso2022KrDecoder,
  makeUpTail
} from "./cjk.js"
import { chardet, iconv } from "./legacy.js"

export interface Decoded {
  readonly text: string
  /** Some bytes were invalid in the encoding and became U+FFFD. */
  readonly replaced: boolean
}

export interface StreamDecoder {
  readonly write: (bytes: Uint8Array) => string
  readonly end: () => string
}

/** Follows the shift state of a stateful encoding over bytes fed in order (any chunking). */
export interface ShiftTracker {
  readonly scan: (bytes: Uint8Array) => void
  /** The state after the bytes scanned so far. */
  readonly state: number
}

export interface Codec {
  /** The name reported to callers (WHATWG-style, lower case): `utf-8`, `utf-16le`, `shift_jis`, … */
  readonly encoding: string
  /** Bytes per code unit: line terminators are whole units (`\n` is `0A 00` in UTF-16LE). */
  readonly unit: 1 | 2 | 4
  readonly bigEndian: boolean
  /**
   * Decode the bytes of one line (complete, or cut at a byte cap); `state` is the shift state the
   * line starts in, for encodings with a `tracker`.
   */
  readonly decode: (bytes: Uint8Array, state?: number) => Decoded
  /** A decoder that carries partial characters across calls, for skipping into long lines. */
  readonly stream: (state?: number) => StreamDecoder
  /**
   * Encodings whose escape sequences hold from one line to the next (ISO-2022-JP): the state a
   * line starts in depends on every byte before it, so a page must be read from the file's start.
   */
  readonly tracker?: () => ShiftTracker
}

export type Detection =
  | {
    readonly _tag: "Text"
    readonly codec: Codec
    /** Bytes of byte-order mark before the text (0 when none). */
    readonly bomLength: number
    /** The bytes fit no encoding well: decoded as UTF-8 with replacement characters. */
    readonly fallback: boolean
  }
  | { readonly _tag: "Binary" }

const asBuffer = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)

/** A codec on the platform's TextDecoder (native and fast): UTF-8 and UTF-16LE. */
const nativeCodec = (encoding: "utf-8" | "utf-16le", unit: 1 | 2): Codec => {
  const strict = new TextDecoder(encoding, { fatal: true, ignoreBOM: true })
  const lenient = new TextDecoder(encoding, { ignoreBOM: true })
  return {
    encoding,
    unit,
    bigEndian: false,
    decode: (bytes) => {
      try {
        return { text: strict.decode(bytes), replaced: false }
      } catch {
        return { text: lenient.decode(bytes), replaced: true }
      }
    },
    stream: () => {
      const decoder = new TextDecoder(encoding, { ignoreBOM: true })
      return { write: (bytes) => decoder.decode(bytes, { stream: true }), end: () => decoder.decode() }
    }
  }
}

/** A codec on iconv-lite: UTF-16BE, UTF-32 and the legacy encodings. */
const iconvCodec = (encoding: string, unit: 1 | 2 | 4 = 1, bigEndian = false, name = encoding): Codec => ({
  encoding: name,
  unit,
  bigEndian,
  decode: (bytes) => {
    const text = iconv().decode(asBuffer(bytes), encoding, { stripBOM: false })
    return { text, replaced: text.includes("\ufffd") }
  },
  stream: () => {
    const decoder = iconv().getDecoder(encoding, { stripBOM: false })
    return { write: (bytes) => decoder.write(asBuffer(bytes)), end: () => decoder.end() ?? "" }
  }
})

/** A codec on a whole-buffer decoder of our own, streamed by whole characters. */
const ownCodec = (
  encoding: string,
  decode: (bytes: Uint8Array) => string,
  stream: () => StreamDecoder
): Codec => ({
  encoding,
  unit: 1,
  bigEndian: false,
  decode: (bytes) => {
    const text = decode(bytes)
    return { text, replaced: text.includes("\ufffd") }
  },
  stream
})

/** Korean: UHC (code page 949, a superset of EUC-KR), with KS X 1001 make-up sequences composed. */
const korean = (name: string): Codec =>
  ownCodec(name, (bytes) => composeMakeUp(iconv().decode(asBuffer(bytes), "cp949")), () => {
    const decoder = iconv().getDecoder("cp949")
    let held = ""
    return {
      write: (bytes) => {
        // A filler and up to two jamo at the end may become one syllable with what follows.
        const text = held + decoder.write(asBuffer(bytes))
        const keep = makeUpTail(text)
        held = text.slice(text.length - keep)
        return composeMakeUp(text.slice(0, text.length - keep))
      },
      end: () => composeMakeUp(held + (decoder.end() ?? ""))
    }
  })

const iso2022Jp: Codec = {
  encoding: "iso-2022-jp",
  unit: 1,
  bigEndian: false,
  decode: (bytes, state = 0) => {
    const text = decodeIso2022Jp(bytes, state)
    return { text, replaced: text.includes("\ufffd") }
  },
  stream: (state = 0) => new Iso2022JpDecoder(state),
  tracker: () => new Iso2022JpDecoder()
}

const lineDecoder = (make: () => StreamDecoder) => (bytes: Uint8Array): string => {
  const decoder = make()
  return decoder.write(bytes) + decoder.end()
}

export const utf8: Codec = nativeCodec("utf-8", 1)
const utf16le: Codec = nativeCodec("utf-16le", 2)
const utf16be: Codec = iconvCodec("utf-16be", 2, true)
const utf32le: Codec = iconvCodec("utf-32le", 4, false)
const utf32be: Codec = iconvCodec("utf-32be", 4, true)

/** Codecs by name, for names iconv-lite lacks or decodes with a smaller table than we do. */
const ownCodecs: Record<string, () => Codec> = {
  "utf-8": () => utf8,
  "utf-16le": () => utf16le,
  "utf-16be": () => utf16be,
  "utf-32le": () => utf32le,
  "utf-32be": () => utf32be,
  "iso-2022-jp": () => iso2022Jp,
  "iso-2022-kr": () => ownCodec("iso-2022-kr", lineDecoder(() => new Iso2022KrDecoder()), () => new Iso2022KrDecoder()),
  "hz-gb-2312": () => ownCodec("hz-gb-2312", lineDecoder(() => new HzDecoder()), () => new HzDecoder()),
  "shift_jis": () =>
    ownCodec(
      "shift_jis",
      (bytes) => decodeShiftJis(bytes, false),
      () => chunked((bytes) => decodeShiftJis(bytes, false), charLengths.sjis)
    ),
  "shift_jisx0213": () =>
    ownCodec(
      "shift_jisx0213",
      (bytes) => decodeShiftJis(bytes, true),
      () => chunked((bytes) => decodeShiftJis(bytes, true), charLengths.sjis)
    ),
  "euc-jp": () =>
    ownCodec(
      "euc-jp",
      (bytes) => decodeEucJp(bytes, false),
      () => chunked((bytes) => decodeEucJp(bytes, false), charLengths.eucJp)
    ),
  "euc-jisx0213": () =>
    ownCodec(
      "euc-jisx0213",
      (bytes) => decodeEucJp(bytes, true),
      () => chunked((bytes) => decodeEucJp(bytes, true), charLengths.eucJp)
    ),
  "johab": () => ownCodec("johab", decodeJohab, () => chunked(decodeJohab, charLengths.johab)),
  "euc-kr": () => korean("euc-kr"),
  "cp949": () => korean("cp949"),
  // iconv-lite's Big5 is Big5-HKSCS, a superset.
  "big5": () => iconvCodec("big5hkscs", 1, false, "big5"),
  "big5-hkscs": () => iconvCodec("big5hkscs", 1, false, "big5-hkscs"),
  // WHATWG decodes Latin-1 labels as windows-1252; asked for by name, Latin-1 is Latin-1.
  "latin1": () => iconvCodec("latin1", 1, false, "iso-8859-1")
}

/** Other spellings of our codecs' names (compared without case, dashes or underscores). */
const aliases: Record<string, string> = {
  utf8: "utf-8",
  unicode11utf8: "utf-8",
  utf16le: "utf-16le",
  utf16: "utf-16le",
  ucs2: "utf-16le",
  unicode: "utf-16le",
  utf16be: "utf-16be",
  unicodefffe: "utf-16be",
  utf32le: "utf-32le",
  utf32: "utf-32le",
  ucs4: "utf-32le",
  utf32be: "utf-32be",
  iso2022jp: "iso-2022-jp",
  csiso2022jp: "iso-2022-jp",
  iso2022jp1: "iso-2022-jp",
  iso2022jp2: "iso-2022-jp",
  iso2022jp3: "iso-2022-jp",
  iso2022jp2004: "iso-2022-jp",
  jis: "iso-2022-jp",
  iso2022kr: "iso-2022-kr",
  csiso2022kr: "iso-2022-kr",
  hzgb2312: "hz-gb-2312",
  hz: "hz-gb-2312",
  shiftjis: "shift_jis",
  sjis: "shift_jis",
  cp932: "shift_jis",
  ms932: "shift_jis",
  windows31j: "shift_jis",
  mskanji: "shift_jis",
  csshiftjis: "shift_jis",
  xsjis: "shift_jis",
  windows932: "shift_jis",
  shiftjisx0213: "shift_jisx0213",
  shiftjis2004: "shift_jisx0213",
  sjis2004: "shift_jisx0213",
  sjisx0213: "shift_jisx0213",
  eucjp: "euc-jp",
  cseucpkdfmtjapanese: "euc-jp",
  xeucjp: "euc-jp",
  ujis: "euc-jp",
  eucjisx0213: "euc-jisx0213",
  eucjis2004: "euc-jisx0213",
  johab: "johab",
  cp1361: "johab",
  mscp1361: "johab",
  euckr: "euc-kr",
  cseuckr: "euc-kr",
  ksc5601: "euc-kr",
  ksc56011987: "euc-kr",
  ksc56011989: "euc-kr",
  isoir149: "euc-kr",
  korean: "euc-kr",
  cp949: "cp949",
  uhc: "cp949",
  windows949: "cp949",
  ms949: "cp949",
  big5: "big5",
  cnbig5: "big5",
  csbig5: "big5",
  xxbig5: "big5",
  cp950: "big5",
  big5hkscs: "big5-hkscs",
  latin1: "latin1",
  iso88591: "latin1",
  l1: "latin1",
  isoir100: "latin1",
  cp819: "latin1",
  ibm819: "latin1"
}

const nameKey = (name: string): string => name.toLowerCase().replace(/[^0-9a-z]/g, "")

/** The codec for an encoding name (any spelling iconv-lite accepts, plus ours), if we decode it. */
export const codecFor = (name: string): Codec | undefined => {
  const own = aliases[nameKey(name)]
  if (own !== undefined) return ownCodecs[own]!()
  const trimmed = name.trim().toLowerCase()
  if (trimmed.length === 0 || !iconv().encodingExists(trimmed)) return undefined
  // Multi-byte Unicode forms need their code unit for line breaks; iconv-lite's "utf-7" and the
  // like are 1-byte-based and ASCII-compatible.
  return iconvCodec(trimmed)
}

/** Whether `read` can decode text in the encoding of this name. */
export const encodingExists = (name: string): boolean => codecFor(name) !== undefined

/** A few names, for messages: docs/encodings.md lists the families. */
export const encodingExamples =
  "utf-8, utf-16le, utf-16be, windows-1252, iso-8859-2, koi8-r, shift_jis, euc-jp, iso-2022-jp, gb18030, big5, euc-kr, cp949"

const boms: ReadonlyArray<readonly [ReadonlyArray<number>, Codec]> = [
  [[0xef, 0xbb, 0xbf], utf8],
  [[0xff, 0xfe, 0x00, 0x00], utf32le],
  [[0x00, 0x00, 0xfe, 0xff], utf32be],
  [[0xff, 0xfe], utf16le],
  [[0xfe, 0xff], utf16be]
]

/**
 * UTF-16 text without a BOM: its zero bytes (the high half of ASCII) fall on one side. The zeros
 * only nominate a byte order; the whole sample must then read as UTF-16 text.
 */
const utf16ByZeros = (sample: Uint8Array, complete: boolean): Codec | undefined => {
  const pairs = Math.floor(sample.length / 2)
  if (pairs < 2) return undefined
  // A whole file of UTF-16 is whole code units.
  if (complete && sample.length % 2 === 1) return undefined
  // No zero byte, no UTF-16 by zeros (most text, told natively).
  if (!sample.includes(0)) return undefined
  let evenZeros = 0
  let oddZeros = 0
  for (let i = 0; i + 1 < sample.length; i += 2) {
    if (sample[i] === 0) evenZeros++
    if (sample[i + 1] === 0) oddZeros++
  }
  // ASCII in UTF-16 puts its zero bytes on one side; CJK text may have few zeros at all.
  const zeros = evenZeros + oddZeros
  const bigEndian = zeros === 0
    ? undefined
    : oddZeros >= zeros * 0.9
    ? false
    : evenZeros >= zeros * 0.9
    ? true
    : undefined
  if (bigEndian === undefined) return undefined
  // Few zeros are weak evidence: then the bytes must not also read as UTF-8 (ASCII with a NUL).
  const strong = zeros >= pairs * 0.3 && zeros >= 4
  if (!strong && isUtf8(sample, complete)) return undefined
  if (!isUtf16Text(sample, bigEndian, strong, complete)) return undefined
  if (!strong && readsAs8BitText(sample) && !oneScript(sample, bigEndian)) return undefined
  return bigEndian ? utf16be : utf16le
}

/**
 * No control byte but NUL, whitespace and escape: the bytes read as 8-bit text with stray NULs.
 * UTF-16 text beyond ASCII almost always holds some (CJK units' bytes are spread over 00-FF).
 */
const readsAs8BitText = (sample: Uint8Array): boolean =>
  sample.every((byte) =>
    byte === 0 || byte === 27 || (byte >= 9 && byte <= 13) ||
    (byte >= 0x20 && byte !== 0x7f && (byte < 0x80 || byte >= 0xa0))
  )

/**
 * The script a UTF-16 code unit is written in, coarsely: `cjk` (Han, kana, Hangul and their
 * punctuation and full-width forms), `neutral` (punctuation and symbols any text may hold),
 * `rare` (private use, Yi, presentation forms, Braille: what pairs of Latin-1 bytes read as,
 * and plain text almost never holds), or the unit's 256-character block (one script each).
 */
const scriptOfUnit = (unit: number): string => {
  if ((unit >= 0x2e80 && unit <= 0x9fff) || (unit >= 0xac00 && unit <= 0xd7af) || (unit >= 0xf900 && unit <= 0xfaff)) {
    return unit >= 0x4dc0 && unit <= 0x4dff ? "rare" : "cjk"
  }
  if ((unit >= 0x1100 && unit <= 0x11ff) || (unit >= 0xff00 && unit <= 0xffef)) return "cjk"
  if (unit >= 0x2800 && unit <= 0x28ff) return "rare"
  if (unit >= 0x2000 && unit <= 0x2bff) return "neutral"
  if ((unit >= 0xa000 && unit <= 0xa4cf) || (unit >= 0xe000 && unit <= 0xf8ff) || unit >= 0xfb50) return "rare"
  return `block-${unit >> 8}`
}

/** Every unit beyond Latin-1 is in one script (`scriptOfUnit`), and none is rare. */
const oneScript = (sample: Uint8Array, bigEndian: boolean): boolean => {
  let script: string | undefined
  for (let k = 0; k + 1 < sample.length; k += 2) {
    const unit = bigEndian ? (sample[k]! << 8) | sample[k + 1]! : (sample[k + 1]! << 8) | sample[k]!
    if (unit < 0x100 || (unit >= 0xd800 && unit <= 0xdfff)) continue
    const of = scriptOfUnit(unit)
    if (of === "rare") return false
    if (of === "neutral") continue
    if (script !== undefined && of !== script) return false
    script = of
  }
  return true
}

/** Printable ASCII, or tab, newline, carriage return. */
const isAsciiText = (byte: number): boolean => (byte >= 0x20 && byte < 0x7f) || byte === 9 || byte === 10 || byte === 13

/**
 * Every code unit of the sample is a character text holds: no NUL, no control character but
 * whitespace and escape, no lone surrogate, no noncharacter, no byte-order mark past the start.
 * With few zero bytes (`strong` false), most units must also not be two printable ASCII bytes:
 * that is 8-bit text with a stray NUL (`61 62 63 00 …`), read two bytes at a time.
 */
const isUtf16Text = (sample: Uint8Array, bigEndian: boolean, strong: boolean, complete: boolean): boolean => {
  const units = Math.floor(sample.length / 2)
  let wide = 0
  let asciiPairs = 0
  for (let k = 0; k < units; k++) {
    const a = sample[2 * k]!
    const b = sample[2 * k + 1]!
    const unit = bigEndian ? (a << 8) | b : (b << 8) | a
    if (unit < 0x100) {
      if (unit < 0x20 ? !(unit >= 9 && unit <= 13) && unit !== 27 : unit >= 0x7f && unit < 0xa0) return false
      continue
    }
    if (unit >= 0xd800 && unit <= 0xdbff) {
      // A high surrogate needs a low one next, unless the sample's edge cut the pair.
      const next = k + 1 < units
        ? (bigEndian ? (sample[2 * k + 2]! << 8) | sample[2 * k + 3]! : (sample[2 * k + 3]! << 8) | sample[2 * k + 2]!)
        : undefined
      if (next === undefined ? complete : next < 0xdc00 || next > 0xdfff) return false
      k++
      wide++
      continue
    }
    if ((unit >= 0xdc00 && unit <= 0xdfff) || unit === 0xfffe || unit === 0xffff || unit === 0xfeff) return false
    wide++
    if (isAsciiText(a) && isAsciiText(b)) asciiPairs++
  }
  return strong || asciiPairs === 0 || asciiPairs * 2 < wide
}

/** At least this many characters make a sample UTF-32 without a BOM (fewer: a few small numbers can look like text). */
const UTF32_MIN_UNITS = 32

/**
 * UTF-32 text without a BOM: each 4-byte unit one character, the high bytes of any character
 * zero. Every unit must be a character text holds (no control character but whitespace and
 * escape, no surrogate, nothing past U+10FFFF, no noncharacter), at least half of them ASCII
 * and one in twenty whitespace, as in text: an array of 32-bit numbers is rarely all of that.
 */
const utf32ByZeros = (sample: Uint8Array, complete: boolean): Codec | undefined => {
  const units = Math.floor(sample.length / 4)
  if (units < UTF32_MIN_UNITS || (complete && sample.length % 4 !== 0)) return undefined
  if (isUtf32Text(sample, units, false)) return utf32le
  if (isUtf32Text(sample, units, true)) return utf32be
  return undefined
}

/** Whether the sample's first `units` 4-byte units read as text in UTF-32 of one byte order. */
const isUtf32Text = (sample: Uint8Array, units: number, bigEndian: boolean): boolean => {
  let ascii = 0
  let spaces = 0
  for (let at = 0; at < units * 4; at += 4) {
    const value = bigEndian
      ? sample[at]! * 0x1000000 + (sample[at + 1]! << 16) + (sample[at + 2]! << 8) + sample[at + 3]!
      : sample[at + 3]! * 0x1000000 + (sample[at + 2]! << 16) + (sample[at + 1]! << 8) + sample[at]!
    if (value > 0x10ffff || (value >= 0xd800 && value <= 0xdfff) || (value & 0xfffe) === 0xfffe) return false
    if (value < 0x20 ? !(value >= 9 && value <= 13) && value !== 27 : value >= 0x7f && value < 0xa0) return false
    if (value < 0x80) ascii++
    if (value === 0x20 || (value >= 9 && value <= 13)) spaces++
  }
  return ascii * 2 >= units && spaces * 20 >= units
}

/** Valid UTF-8, allowing a character cut by the end of the sample when more follows. */
export const isUtf8 = (sample: Uint8Array, complete: boolean): boolean => {
  if (isAscii(sample)) return true
  let end = sample.length
  if (!complete) {
    // Drop a trailing partial sequence: up to 3 bytes after the last lead byte.
    for (let back = 1; back <= Math.min(3, end); back++) {
      const b = sample[end - back]!
      if ((b & 0xc0) === 0xc0) {
        const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2
        if (need > back) end -= back
        break
      }
      if ((b & 0x80) === 0) break
    }
  }
  return utf8.decode(sample.subarray(0, end)).replaced === false
}

/** chardet's names mapped to the codec we decode with (supersets: UHC for EUC-KR, HKSCS for Big5). */
const legacyNames: Record<string, string> = {
  "GB18030": "gb18030",
  "Shift_JIS": "shift_jis",
  "EUC-JP": "euc-jp",
  "EUC-KR": "euc-kr",
  "Big5": "big5",
  "windows-1250": "windows-1250",
  "windows-1251": "windows-1251",
  "windows-1252": "windows-1252",
  "windows-1253": "windows-1253",
  "windows-1254": "windows-1254",
  "windows-1255": "windows-1255",
  "windows-1256": "windows-1256",
  // Browsers decode Latin-1 labels as windows-1252, which only adds printable characters.
  "ISO-8859-1": "windows-1252",
  "ISO-8859-2": "iso-8859-2",
  "ISO-8859-5": "iso-8859-5",
  "ISO-8859-6": "iso-8859-6",
  "ISO-8859-7": "iso-8859-7",
  "ISO-8859-8": "iso-8859-8",
  "ISO-8859-9": "iso-8859-9",
  "KOI8-R": "koi8-r"
}

type Script = "latin" | "cyrillic" | "greek" | "hebrew" | "arabic" | "korean" | "japanese" | "chinese"

/** The script text in each encoding is written in: its letters must be mostly of that script. */
const scriptOf: Record<string, Script> = {
  "windows-1250": "latin",
  "windows-1252": "latin",
  "windows-1254": "latin",
  "iso-8859-2": "latin",
  "iso-8859-9": "latin",
  "windows-1251": "cyrillic",
  "iso-8859-5": "cyrillic",
  "koi8-r": "cyrillic",
  "windows-1253": "greek",
  "iso-8859-7": "greek",
  "windows-1255": "hebrew",
  "iso-8859-8": "hebrew",
  "windows-1256": "arabic",
  "iso-8859-6": "arabic",
  "euc-kr": "korean",
  "cp949": "korean",
  "johab": "korean",
  "shift_jis": "japanese",
  "euc-jp": "japanese",
  "gb18030": "chinese",
  "big5": "chinese"
}

const isHan = (c: number) =>
  (c >= 0x4e00 && c <= 0x9fff) || (c >= 0x3400 && c <= 0x4dbf) || (c >= 0xf900 && c <= 0xfaff) ||
  (c >= 0x20000 && c <= 0x3ffff) ||
  c === 0x3005 || c === 0x3007
const isHangul = (c: number) =>
  (c >= 0xac00 && c <= 0xd7a3) || (c >= 0x1100 && c <= 0x11ff) || (c >= 0x3130 && c <= 0x318f)
const isKana = (c: number) =>
  (c >= 0x3040 && c <= 0x30ff) || (c >= 0x31f0 && c <= 0x31ff) || (c >= 0xff66 && c <= 0xff9f)

/** Share of a script's letters among the non-ASCII letters that must be reached, and the test. */
const scripts: Record<Script, readonly [number, (c: number) => boolean]> = {
  latin: [0.9, (c) => c >= 0xc0 && c <= 0x24f],
  cyrillic: [0.9, (c) => c >= 0x400 && c <= 0x52f],
  greek: [0.9, (c) => (c >= 0x370 && c <= 0x3ff) || (c >= 0x1f00 && c <= 0x1fff)],
  hebrew: [0.9, (c) => c >= 0x590 && c <= 0x5ff],
  arabic: [0.8, (c) => (c >= 0x600 && c <= 0x6ff) || (c >= 0x750 && c <= 0x77f) || (c >= 0xfb50 && c <= 0xfeff)],
  korean: [0.5, isHangul],
  japanese: [0.7, (c) => isKana(c) || isHan(c)],
  // HKSCS has Latin letters with tone marks for romanised Cantonese names.
  chinese: [0.3, isHan]
}

const LETTER = /\p{L}/u
const isAsciiLetter = (c: number) => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)

/**
 * Does `text`, decoded from a sample in an encoding of `script`, read as text of it? No
 * replacement character, no C1 control, no private-use character, at least `evidence` letters of
 * the script, and its non-ASCII letters mostly of the script. A Latin encoding's accented letters also sit inside words: CJK bytes
 * read as windows-1252 are runs of accented letters and symbols.
 */
const readsAs = (text: string, script: Script | undefined, evidence: number): boolean => {
  let letters = 0
  let inScript = 0
  let inWords = 0
  const chars = Array.from(text)
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!.codePointAt(0)!
    if (c < 0x80) continue
    if (c === 0xfffd || (c >= 0x80 && c < 0xa0) || (c >= 0xe000 && c <= 0xf8ff)) return false
    if (script === undefined || !LETTER.test(chars[i]!)) continue
    letters++
    if (scripts[script][1](c)) inScript++
    const before = i > 0 ? chars[i - 1]!.codePointAt(0)! : 0
    const after = i + 1 < chars.length ? chars[i + 1]!.codePointAt(0)! : 0
    if (isAsciiLetter(before) || isAsciiLetter(after)) inWords++
  }
  if (script === undefined) return true
  if (inScript < evidence) return false
  if (letters < 2) return true
  if (inScript < letters * scripts[script][0]) return false
  return script !== "latin" || inWords * 2 >= letters
}

/** The sample decoded, without what a character cut by the sample's edge decodes to. */
const decodeSample = (codec: Codec, sample: Uint8Array, complete: boolean): string => {
  const text = codec.decode(sample).text
  return complete ? text : text.replace(/\ufffd{1,3}$/, "")
}

/** Do all 2-byte codes lie in EUC-KR's KS X 1001 area (else the file uses UHC's extensions)? */
const isPlainEucKr = (bytes: Uint8Array): boolean => {
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i]! < 0x80) continue
    if (bytes[i]! < 0xa1 || (bytes[i + 1] ?? 0xa1) < 0xa1) return false
    i++
  }
  return true
}

/** Do all 2-byte codes lie in Big5's own lead bytes (else the file uses HKSCS's)? */
const isPlainBig5 = (bytes: Uint8Array): boolean => {
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i]! < 0x80) continue
    if (bytes[i]! < 0xa1 || bytes[i]! > 0xf9) return false
    i++
  }
  return true
}

/**
 * The codec a guess stands for, narrowed by the sample: Shift_JIS and EUC-JP become their JIS X
 * 0213 forms when the sample needs JIS X 0213; EUC-KR is reported as CP949 when the sample uses
 * UHC's extensions, Big5 as Big5-HKSCS when it uses HKSCS's (decoding is the same).
 */
const refine = (name: string, body: Uint8Array, complete: boolean): string => {
  const unmapped = (base: string) => decodeSample(iconvCodec(base), body, complete).includes("\ufffd")
  switch (name) {
    case "shift_jis":
      return unmapped("shift_jis") ? "shift_jisx0213" : name
    case "euc-jp":
      return unmapped("euc-jp") ? "euc-jisx0213" : name
    case "euc-kr":
      return isPlainEucKr(body) ? name : "cp949"
    case "big5":
      return isPlainBig5(body) ? name : "big5-hkscs"
    default:
      return name
  }
}

/** Encodings chardet has no model for (UHC, Johab, HKSCS), tried when its own guesses fail. */
const unmodelled = ["cp949", "johab", "big5", "gb18030"]

/** Below this chardet confidence (0-100) a guess is worse than UTF-8 with replacements. */
const MIN_CONFIDENCE = 20

/**
 * Valid multi-byte UTF-8 sequences against invalid bytes: a UTF-8 file with a few stray
 * bytes is still UTF-8 (decoded with replacements), not Windows-1250.
 */
const utf8Evidence = (sample: Uint8Array): { readonly valid: number; readonly invalid: number } => {
  let valid = 0
  let invalid = 0
  for (let i = 0; i < sample.length;) {
    const b = sample[i]!
    const need = b < 0x80
      ? 0
      : b >= 0xc2 && b <= 0xdf
      ? 1
      : b >= 0xe0 && b <= 0xef
      ? 2
      : b >= 0xf0 && b <= 0xf4
      ? 3
      : -1
    if (need === 0) {
      i++
      continue
    }
    let ok = need > 0 && i + need < sample.length + 1
    for (let k = 1; ok && k <= need; k++) ok = i + k < sample.length && (sample[i + k]! & 0xc0) === 0x80
    if (ok) {
      valid++
      i += need + 1
    } else {
      invalid++
      i++
    }
  }
  return { valid, invalid }
}

/**
 * A legacy encoding for a sample that is not UTF-8: chardet's confident guesses first, then the
 * encodings it cannot tell apart — the first whose decoding of the sample reads as text of its
 * script.
 */
const legacyCodec = (sample: Uint8Array, complete: boolean): Codec | undefined => {
  const tried = new Set<string>()
  const attempt = (name: string | undefined, evidence: number): Codec | undefined => {
    if (name === undefined || tried.has(name)) return undefined
    tried.add(name)
    const codec = codecFor(refine(name, sample, complete))
    return codec !== undefined && readsAs(decodeSample(codec, sample, complete), scriptOf[name], evidence)
      ? codec
      : undefined
  }
  for (const match of chardet().analyse(sample)) {
    if (match.confidence < MIN_CONFIDENCE) break
    const codec = attempt(legacyNames[match.name], 0)
    if (codec !== undefined) return codec
  }
  // Without chardet's word for it, the sample must hold letters of the script.
  for (const name of unmodelled) {
    const codec = attempt(name, 2)
    if (codec !== undefined) return codec
  }
  return undefined
}

/**
 * Judge a file by its first bytes. `complete` says the sample is the whole file (so a
 * character cut at its end is an error, not the sample's edge).
 */
export const detect = (sample: Uint8Array, complete: boolean): Detection => {
  if (binarySignature(sample) !== undefined) return { _tag: "Binary" }
  for (const [bom, codec] of boms) {
    if (sample.length >= bom.length && bom.every((byte, i) => sample[i] === byte)) {
      return { _tag: "Text", codec, bomLength: bom.length, fallback: false }
    }
  }
  const wide = utf32ByZeros(sample, complete) ?? utf16ByZeros(sample, complete)
  if (wide !== undefined) return { _tag: "Text", codec: wide, bomLength: 0, fallback: false }
  if (isBinarySample(sample)) return { _tag: "Binary" }
  const escaped = escapeEncoding(sample)
  if (escaped !== undefined) {
    const codec = codecFor(escaped)!
    if (!decodeSample(codec, sample, complete).includes("\ufffd")) {
      return { _tag: "Text", codec, bomLength: 0, fallback: false }
    }
  }
  if (isUtf8(sample, complete)) return { _tag: "Text", codec: utf8, bomLength: 0, fallback: false }
  const evidence = utf8Evidence(sample)
  if (evidence.valid > 0 && evidence.valid >= evidence.invalid) {
    return { _tag: "Text", codec: utf8, bomLength: 0, fallback: true }
  }
  const legacy = legacyCodec(sample, complete)
  return legacy !== undefined
    ? { _tag: "Text", codec: legacy, bomLength: 0, fallback: false }
    : { _tag: "Text", codec: utf8, bomLength: 0, fallback: true }
}

/**
 * The last detection `detectOnce` made and the sample it judged (a sample's bytes are never
 * changed once read), held weakly: it keeps no file's bytes alive, and one entry needs no table
 * (a table keyed by samples keeps the room of the most samples ever alive at once).
 */
let lastJudged:
  | { readonly sample: WeakRef<Uint8Array>; readonly complete: boolean; readonly detection: Detection }
  | undefined

/**
 * `detect`, judged once per sample: a file's first bytes are judged for the facts every source is
 * chosen by, and again by the text source when they are all it has to judge by; the second asks
 * the same question of the same bytes and gets the first answer. Only the last sample is
 * remembered: reads that interleave between the two judge again, and get the same answer.
 */
export const detectOnce = (sample: Uint8Array, complete: boolean): Detection => {
  const known = lastJudged
  if (known !== undefined && known.complete === complete && known.sample.deref() === sample) return known.detection
  const detection = detect(sample, complete)
  lastJudged = { sample: new WeakRef(sample), complete, detection }
  return detection
}

/**
 * The detection for a file whose encoding the caller named (`encoding` parameter): that codec,
 * after a byte-order mark of the same encoding when the file has one.
 */
export const detectionFor = (name: string, sample: Uint8Array): Detection => {
  const codec = codecFor(name) ?? utf8
  const bom = boms.find(([bytes, bomCodec]) =>
    bomCodec.encoding === codec.encoding && sample.length >= bytes.length &&
    bytes.every((byte, i) => sample[i] === byte)
  )
  return { _tag: "Text", codec, bomLength: bom === undefined ? 0 : bom[0].length, fallback: false }
}

/** How far past an all-ASCII sample to look for the first byte that tells its encoding. */
export const LOOKAHEAD_BYTES = 64 * 1024

/**
 * The first byte that tells ASCII-compatible encodings apart — one of 0x80 or more, an escape
 * (ISO-2022), a `~{` (HZ) — or -1. A NUL says the bytes are binary, which is told already.
 */
export const firstTelling = (bytes: Uint8Array): number => {
  // All ASCII (one native pass): only ESC, NUL or `~{` can tell, each found by a native search.
  if (isAscii(bytes)) {
    const view = asBuffer(bytes)
    const found = [view.indexOf(0x1b), view.indexOf(0), view.indexOf("~{")].filter((at) => at !== -1)
    return found.length === 0 ? -1 : Math.min(...found)
  }
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!
    if (b >= 0x80 || b === 0x1b || b === 0 || (b === 0x7e && bytes[i + 1] === 0x7b)) return i
  }
  return -1
}

/** Text with a byte-order mark decoded by it (UTF-16 LE/BE), else as UTF-8 (a UTF-8 mark dropped). */
export const decodeText = (bytes: Uint8Array): string => {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder("utf-16le").decode(bytes.subarray(2))
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder("utf-16be").decode(bytes.subarray(2))
  // TextDecoder drops a UTF-8 byte-order mark itself.
  return new TextDecoder("utf-8").decode(bytes)
}
