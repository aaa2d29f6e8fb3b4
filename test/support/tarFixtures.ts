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

// -----------------------------------------------------------------------------
// Sparse files, in the four forms GNU tar writes
// -----------------------------------------------------------------------------

export interface SparseFile {
  readonly name: string
  /** Data segments, in order: where each starts in the file and its bytes. */
  readonly segments: ReadonlyArray<{ readonly offset: number; readonly data: Uint8Array }>
  readonly realSize: number
}

/** The file as extraction writes it: zeros where no segment is. */
export const sparseContent = (file: SparseFile): Buffer => {
  const whole = Buffer.alloc(file.realSize)
  for (const segment of file.segments) Buffer.from(segment.data).copy(whole, segment.offset)
  return whole
}

const stored = (file: SparseFile) => Buffer.concat(file.segments.map((segment) => Buffer.from(segment.data)))

const octalInto = (block: Buffer, offset: number, value: number, width: number) =>
  block.write(value.toString(8).padStart(width - 1, "0") + "\0", offset, "latin1")

/** Old GNU: type `S`, 4 segments in the header, 21 more per extension block. */
export const sparseOldGnu = (file: SparseFile): Buffer => {
  const data = stored(file)
  const entries = file.segments.map((segment) => [segment.offset, segment.data.length] as const)
  const block = header({ name: file.name, type: "S", size: data.length, format: "gnu" })
  const extensions: Array<Buffer> = []
  for (let i = 0; i < Math.min(4, entries.length); i++) {
    octalInto(block, 386 + i * 24, entries[i]![0], 12)
    octalInto(block, 386 + i * 24 + 12, entries[i]![1], 12)
  }
  octalInto(block, 483, file.realSize, 12)
  const rest = entries.slice(4)
  if (rest.length > 0) block[482] = 1
  for (let start = 0; start < rest.length; start += 21) {
    const extension = Buffer.alloc(512)
    rest.slice(start, start + 21).forEach(([offset, length], i) => {
      octalInto(extension, i * 24, offset, 12)
      octalInto(extension, i * 24 + 12, length, 12)
    })
    if (start + 21 < rest.length) extension[504] = 1
    extensions.push(extension)
  }
  // The checksum covers the sparse fields written after `header` summed it.
  const sum = rechecksum(block)
  return Buffer.concat([sum, ...extensions, padTo512(data)])
}

const rechecksum = (block: Buffer): Buffer => {
  block.fill(0x20, 148, 156)
  let sum = 0
  for (const byte of block) sum += byte
  block.write(sum.toString(8).padStart(6, "0") + "\0 ", 148, "latin1")
  return block
}

const padTo512 = (data: Uint8Array): Buffer => {
  const rest = data.length % 512
  return Buffer.concat([Buffer.from(data), Buffer.alloc(rest === 0 ? 0 : 512 - rest)])
}

const paxMember = (name: string, records: Readonly<Record<string, string>> | Buffer): Buffer => {
  const body = Buffer.isBuffer(records) ? records : paxRecords(records)
  return member({ name, type: "x", data: body })
}

/** pax 0.0: repeated GNU.sparse.offset / numbytes records. */
export const sparsePax00 = (file: SparseFile): Buffer => {
  let text = Buffer.concat([
    paxRecords({ "GNU.sparse.size": String(file.realSize), "GNU.sparse.numblocks": String(file.segments.length) })
  ])
  for (const segment of file.segments) {
    text = Buffer.concat([
      text,
      paxRecords({ "GNU.sparse.offset": String(segment.offset) }),
      paxRecords({ "GNU.sparse.numbytes": String(segment.data.length) })
    ])
  }
  return Buffer.concat([paxMember(`PaxHeaders/${file.name}`, text), member({ name: file.name, data: stored(file) })])
}

/** pax 0.1: one GNU.sparse.map record, the real name in GNU.sparse.name. */
export const sparsePax01 = (file: SparseFile): Buffer =>
  Buffer.concat([
    paxMember(`PaxHeaders/${file.name}`, {
      "GNU.sparse.size": String(file.realSize),
      "GNU.sparse.numblocks": String(file.segments.length),
      "GNU.sparse.name": file.name,
      "GNU.sparse.map": file.segments.map((segment) => `${segment.offset},${segment.data.length}`).join(",")
    }),
    member({ name: `GNUSparseFile.0/${file.name}`, data: stored(file) })
  ])

/** pax 1.0: the map opens the data as decimal lines, padded to a block. */
export const sparsePax10 = (file: SparseFile): Buffer => {
  const map = [String(file.segments.length), ...file.segments.flatMap((s) => [String(s.offset), String(s.data.length)])]
  const data = Buffer.concat([padTo512(Buffer.from(map.join("\n") + "\n", "latin1")), stored(file)])
  return Buffer.concat([
    paxMember(`PaxHeaders/${file.name}`, {
      "GNU.sparse.major": "1",
      "GNU.sparse.minor": "0",
      "GNU.sparse.name": file.name,
      "GNU.sparse.realsize": String(file.realSize)
    }),
    member({ name: `GNUSparseFile.0/${file.name}`, data })
  ])
}
