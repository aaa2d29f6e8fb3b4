/**
 * Binary detection: a list of extensions that are never text, and a content sample test.
 */

/**
 * Extensions that name binary formats. Content decides (a `.dat` holding text is read); the
 * list only names what a refused file probably is.
 */
export const binaryExtensions: ReadonlySet<string> = new Set([
  // archives and compressed data
  ".zip",
  ".tar",
  ".gz",
  ".tgz",
  ".bz2",
  ".xz",
  ".zst",
  ".7z",
  ".rar",
  ".lz4",
  ".lzma",
  ".cab",
  ".iso",
  ".dmg",
  // executables, libraries, object files
  ".exe",
  ".dll",
  ".so",
  ".dylib",
  ".a",
  ".lib",
  ".o",
  ".obj",
  ".ko",
  ".elf",
  ".bin",
  ".out",
  ".msi",
  ".apk",
  // bytecode and runtimes
  ".class",
  ".jar",
  ".war",
  ".ear",
  ".pyc",
  ".pyo",
  ".wasm",
  ".dex",
  ".beam",
  ".node",
  // office documents (zip or OLE containers)
  ".doc",
  ".docx",
  ".xls",
  ".xlsx",
  ".ppt",
  ".pptx",
  ".odt",
  ".ods",
  ".odp",
  ".epub",
  // data stores
  ".sqlite",
  ".sqlite3",
  ".db",
  ".db3",
  ".mdb",
  ".dat",
  ".pkl",
  ".npy",
  ".npz",
  ".parquet",
  ".avro",
  ".h5",
  // media that is not attached as an image
  ".mp3",
  ".mp4",
  ".m4a",
  ".wav",
  ".flac",
  ".ogg",
  ".avi",
  ".mov",
  ".mkv",
  ".webm",
  ".ico",
  ".bmp",
  ".tif",
  ".tiff",
  ".psd",
  ".ttf",
  ".otf",
  ".woff",
  ".woff2",
  ".eot"
])

/**
 * Formats recognised by their first bytes that could otherwise pass for text (their header has
 * no NUL byte), with what to tell the model about them.
 */
const signatures: ReadonlyArray<readonly [ReadonlyArray<number>, string]> = [
  [
    [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1],
    "an OLE2 compound file: a legacy Office document (.doc, .xls, .ppt), an installer (.msi) or an Outlook message (.msg); convert it to .docx, .xlsx or .pptx (e.g. soffice --headless --convert-to docx) to read its text"
  ]
]

/** What a sample's first bytes say it is, when they are a binary format's signature. */
export const binarySignature = (sample: Uint8Array): string | undefined =>
  signatures.find(([magic]) => sample.length >= magic.length && magic.every((byte, i) => sample[i] === byte))?.[1]

/** Bytes sampled from the start of a file to judge whether it is text. */
export const SAMPLE_BYTES = 4096

/** Share of control bytes above which a sample is binary. */
const CONTROL_RATIO = 0.3

/**
 * Whether the sample looks binary: a binary signature, any NUL byte, or more than 30% control bytes other than
 * tab, newline, vertical tab, form feed, carriage return and escape. Bytes >= 0x80 count as
 * text, so UTF-8 with CJK or emoji never trips it.
 */
export const isBinarySample = (sample: Uint8Array): boolean => {
  if (sample.length === 0) return false
  if (binarySignature(sample) !== undefined) return true
  let control = 0
  for (let i = 0; i < sample.length; i++) {
    const b = sample[i]!
    if (b === 0) return true
    if (b < 32 && !(b >= 9 && b <= 13) && b !== 27) control++
    else if (b === 127) control++
  }
  return control / sample.length > CONTROL_RATIO
}

/** At least this many bytes of text before the first NUL make bytes "text, then binary" in a refusal. */
export const TEXT_BEFORE_NUL = 512

/**
 * Where bytes that start as text meet their first NUL byte: its offset, when at least
 * `TEXT_BEFORE_NUL` bytes come before it that are text by themselves; else undefined. (A source
 * file that embeds binary data in a string, a log with a binary record: the refusal says so.)
 */
export const textUntilNul = (bytes: Uint8Array): number | undefined => {
  const at = bytes.indexOf(0)
  return at >= TEXT_BEFORE_NUL && !isBinarySample(bytes.subarray(0, at)) ? at : undefined
}

/**
 * What binary bytes look like, for the refusal: a known signature, the format sniffed from them
 * (`sniffed`, from the file-type package), text up to a NUL byte (`nulAt`, the offset of a first
 * NUL after `TEXT_BEFORE_NUL` bytes of text; by default found in `head`, followed by
 * `options.readAsText` when given), or the first bytes in hex, with the extension when it names a
 * binary format.
 */
export const describeBinary = (
  sniffed: { readonly mime: string; readonly ext: string } | undefined,
  head: Uint8Array,
  extension: string,
  options: { readonly nulAt?: number | undefined; readonly readAsText?: string | undefined } = {}
): string => {
  const signature = binarySignature(head)
  if (signature !== undefined) return signature
  if (sniffed !== undefined) return `${sniffed.mime} (.${sniffed.ext})`
  const nulAt = options.nulAt ?? textUntilNul(head)
  if (nulAt !== undefined) {
    return `text for its first ${nulAt.toLocaleString("en-US")} bytes, then a NUL byte${
      options.readAsText === undefined ? "" : `; ${options.readAsText}`
    }`
  }
  const magic = Array.from(head.subarray(0, 8), (byte) => byte.toString(16).padStart(2, "0")).join(" ")
  return `${
    binaryExtensions.has(extension) ? `${extension} file, ` : ""
  }unrecognised binary data starting with ${magic}`
}
