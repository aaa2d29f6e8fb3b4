/**
 * Text encodings: decide from a file's first bytes whether it is text and in which encoding,
 * and decode lines of it. Byte-order marks first, then UTF-16 by its zero-byte pattern, then
 * strict UTF-8, then a statistical detector (chardet) for legacy encodings decoded by iconv-lite.
 */
import chardet from "chardet"
import iconv from "iconv-lite"
import { binarySignature, isBinarySample } from "./binary.js"

export interface Decoded {
  readonly text: string
  /** Some bytes were invalid in the encoding and became U+FFFD. */
  readonly replaced: boolean
}

export interface StreamDecoder {
  readonly write: (bytes: Uint8Array) => string
  readonly end: () => string
}

export interface Codec {
  /** The name reported to callers (WHATWG-style, lower case): `utf-8`, `utf-16le`, `shift_jis`, … */
  readonly encoding: string
  /** Bytes per code unit: line terminators are whole units (`\n` is `0A 00` in UTF-16LE). */
  readonly unit: 1 | 2 | 4
  readonly bigEndian: boolean
  /** Decode the bytes of one line (complete, or cut at a byte cap). */
  readonly decode: (bytes: Uint8Array) => Decoded
  /** A decoder that carries partial characters across calls, for skipping into long lines. */
  readonly stream: () => StreamDecoder
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
const iconvCodec = (encoding: string, unit: 1 | 2 | 4 = 1, bigEndian = false): Codec => ({
  encoding,
  unit,
  bigEndian,
  decode: (bytes) => {
    const text = iconv.decode(asBuffer(bytes), encoding, { stripBOM: false })
    return { text, replaced: text.includes("\ufffd") }
  },
  stream: () => {
    const decoder = iconv.getDecoder(encoding, { stripBOM: false })
    return { write: (bytes) => decoder.write(asBuffer(bytes)), end: () => decoder.end() ?? "" }
  }
})

export const utf8: Codec = nativeCodec("utf-8", 1)
const utf16le: Codec = nativeCodec("utf-16le", 2)
const utf16be: Codec = iconvCodec("utf-16be", 2, true)
const utf32le: Codec = iconvCodec("utf-32le", 4, false)
const utf32be: Codec = iconvCodec("utf-32be", 4, true)

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
  return isUtf16Text(sample, bigEndian, strong, complete) ? (bigEndian ? utf16be : utf16le) : undefined
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

/** Valid UTF-8, allowing a character cut by the end of the sample when more follows. */
const isUtf8 = (sample: Uint8Array, complete: boolean): boolean => {
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

/** chardet's names mapped to the iconv-lite codec we decode with (supersets where safer). */
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
    const need = b < 0x80 ? 0 : b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2 : b >= 0xf0 && b <= 0xf4 ? 3 : -1
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

const legacyCodec = (sample: Uint8Array): Codec | undefined => {
  for (const match of chardet.analyse(sample)) {
    if (match.confidence < MIN_CONFIDENCE) return undefined
    const name = legacyNames[match.name]
    if (name !== undefined && iconv.encodingExists(name)) return iconvCodec(name)
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
  const wide = utf16ByZeros(sample, complete)
  if (wide !== undefined) return { _tag: "Text", codec: wide, bomLength: 0, fallback: false }
  if (isBinarySample(sample)) return { _tag: "Binary" }
  if (isUtf8(sample, complete)) return { _tag: "Text", codec: utf8, bomLength: 0, fallback: false }
  const evidence = utf8Evidence(sample)
  if (evidence.valid > 0 && evidence.valid >= evidence.invalid) {
    return { _tag: "Text", codec: utf8, bomLength: 0, fallback: true }
  }
  const legacy = legacyCodec(sample)
  return legacy !== undefined
    ? { _tag: "Text", codec: legacy, bomLength: 0, fallback: false }
    : { _tag: "Text", codec: utf8, bomLength: 0, fallback: true }
}
