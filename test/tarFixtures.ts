/**
 * tar archives written header by header, for the member kinds and quirks real archivers
 * produce (and tar-stream's pack cannot): directory entries with a size, devices, fifos,
 * hard links, V7 and signed-checksum headers, GNU and PAX long names, sparse maps.
 */

export type TarFormat = "ustar" | "gnu" | "v7"

export interface TarHeader {
  readonly name: string
  /** One character: "0" file, "1" hard link, "2" symlink, "3" char device, "5" directory, … ("\0" is V7's file). */
  readonly type?: string
  /** The size field; the data written after the header is `data` (padded), whatever this says. */
  readonly size?: number
  readonly data?: string | Uint8Array
  readonly linkname?: string
  readonly mode?: number
  readonly mtime?: number
  readonly devmajor?: number
  readonly devminor?: number
  readonly format?: TarFormat
  /** ustar `prefix` field (joined to `name` with `/`). */
  readonly prefix?: string
  /** Raw bytes written into the header after the fields: [offset, bytes]. */
  readonly raw?: ReadonlyArray<readonly [number, Uint8Array]>
  /** The checksum as old tars wrote it: bytes summed as signed chars. */
  readonly signedChecksum?: boolean
  /** Encode `name`/`linkname` as Latin-1 bytes instead of UTF-8. */
  readonly latin1?: boolean
}

const octal = (value: number, width: number) => value.toString(8).padStart(width - 1, "0") + "\0"

/** One 512-byte header block. */
export const header = (h: TarHeader): Buffer => {
  const block = Buffer.alloc(512)
  const encoding = h.latin1 === true ? "latin1" : "utf8"
  const dataLength = typeof h.data === "string" ? Buffer.byteLength(h.data) : h.data?.length ?? 0
  Buffer.from(h.name, encoding).copy(block, 0, 0, 100)
  block.write(octal(h.mode ?? 0o644, 8), 100, "latin1")
  block.write(octal(0, 8), 108, "latin1")
  block.write(octal(0, 8), 116, "latin1")
  block.write(octal(h.size ?? dataLength, 12), 124, "latin1")
  block.write(octal(h.mtime ?? 1735689600, 12), 136, "latin1")
  block.write(h.type ?? "0", 156, "latin1")
  if (h.linkname !== undefined) Buffer.from(h.linkname, encoding).copy(block, 157, 0, 100)
  const format = h.format ?? "ustar"
  if (format === "ustar") block.write("ustar\x0000", 257, "latin1")
  if (format === "gnu") block.write("ustar  \0", 257, "latin1")
  if (format !== "v7") {
    block.write("user", 265, "latin1")
    block.write("group", 297, "latin1")
    block.write(octal(h.devmajor ?? 0, 8), 329, "latin1")
    block.write(octal(h.devminor ?? 0, 8), 337, "latin1")
  }
  if (h.prefix !== undefined) Buffer.from(h.prefix, encoding).copy(block, 345, 0, 155)
  for (const [offset, bytes] of h.raw ?? []) Buffer.from(bytes).copy(block, offset)
  block.fill(0x20, 148, 156)
  let sum = 0
  for (const byte of block) sum += h.signedChecksum === true && byte > 127 ? byte - 256 : byte
  block.write(octal(sum, 7) + " ", 148, "latin1")
  return block
}

const padded = (data: Uint8Array): Buffer => {
  const rest = data.length % 512
  return Buffer.concat([Buffer.from(data), Buffer.alloc(rest === 0 ? 0 : 512 - rest)])
}

/** A header and its data (padded to 512). */
export const member = (h: TarHeader): Buffer => {
  const data = typeof h.data === "string" ? Buffer.from(h.data, "utf8") : Buffer.from(h.data ?? [])
  return Buffer.concat([header(h), padded(data)])
}

/** PAX records: `len key=value\n`, `len` counting itself. */
export const paxRecords = (records: Readonly<Record<string, string>>): Buffer => {
  let text = ""
  for (const [key, value] of Object.entries(records)) {
    const body = ` ${key}=${value}\n`
    let length = Buffer.byteLength(body) + 1
    while (String(length).length + Buffer.byteLength(body) !== length) length++
    text += `${length}${body}`
  }
  return Buffer.from(text, "utf8")
}

/** Members followed by the two zero blocks that end an archive. */
export const tarOf = (...parts: ReadonlyArray<Uint8Array>): Buffer => Buffer.concat([...parts, Buffer.alloc(1024)])
