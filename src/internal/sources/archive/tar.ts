/**
 * tar, tar.gz and plain gzip, read block by block by our own parser: one pass over the archive (gunzipped
 * as it streams), entries indexed as they pass. Plain tar skips member data by position, so a
 * listing reads the headers only. The last copy of a repeated path wins, as extraction leaves
 * it, so a member is searched for to the end of the archive.
 *
 * Header kinds, as GNU tar, POSIX pax and CPython's tarfile write and read them: ustar, GNU
 * and V7 headers (unsigned or signed checksums, octal or base-256 numbers, UTF-8 or Latin-1
 * names), GNU long names and links (`L`/`K`), pax extended headers (`x`, Solaris `X`, global
 * `g`, several in a row merged), GNU sparse files (old `S` headers with extension blocks, pax
 * 0.0, 0.1 and 1.0), directories (whatever their size field says, no data follows), links,
 * devices and fifos (described, never opened). Every step consumes input or ends the pass.
 */
import { Readable } from "node:stream"
import * as zlib from "node:zlib"
import { type ByteSource, Collector, type Content, type ScanResult, type Streamed } from "./content.js"
import { BLOCK, checksumMatches, field, isGzip, isTarHeader, latin1, numeric } from "./headers.js"
import { ArchiveFailure, type ArchiveLimits, EntryTable, messages, type RawEntry, SourceFailure } from "./model.js"

export { isGzip, isTarHeader, numeric } from "./headers.js"

/** Bytes read from the archive file at once. */
export const TAR_CHUNK_BYTES = 64 * 1024

/** Largest extended header (pax, GNU long name or link, sparse map) accepted. */
export const MAX_META_BYTES = 1024 * 1024

/** Most data segments a sparse map may list. */
const MAX_SPARSE_SEGMENTS = 100_000

// -----------------------------------------------------------------------------
// Input: the tar stream, from the file directly or through gunzip
// -----------------------------------------------------------------------------

interface TarInput {
  /** Up to `length` bytes (fewer only where the data ends). */
  read(length: number): Promise<Uint8Array>
  /** `length` bytes in pieces, as they come (fewer in all only where the data ends). */
  pieces(length: number): AsyncGenerator<Uint8Array>
  /** Skip `length` bytes; how many there were. */
  skip(length: number): Promise<number>
  /** The next `length` bytes (fewer where the data ends), left to be read again. */
  peek(length: number): Promise<Uint8Array>
  /** Compressed bytes consumed so far (gzip only). */
  readonly compressed: number | undefined
  /** Bytes of the (inflated) stream consumed so far. */
  readonly position: number
}

const joined = (chunks: ReadonlyArray<Uint8Array>, total: number): Uint8Array =>
  chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total)

/**
 * `pieces` and `read` over `take`, which gives up to `length` of the next bytes (an empty array
 * where the data ends).
 */
const reading = (take: (length: number) => Promise<Uint8Array>) => {
  async function* pieces(length: number) {
    let left = length
    while (left > 0) {
      const piece = await take(left)
      if (piece.length === 0) return
      left -= piece.length
      yield piece
    }
  }
  const read = async (length: number): Promise<Uint8Array> => {
    const chunks: Array<Uint8Array> = []
    let total = 0
    for await (const piece of pieces(length)) {
      chunks.push(piece)
      total += piece.length
    }
    return joined(chunks, total)
  }
  return { pieces, read }
}

/** An uncompressed tar: random access, so skipped data is never read. */
const plainInput = (source: ByteSource): TarInput => {
  let position = 0
  let window: Uint8Array = new Uint8Array(0)
  let windowStart = 0
  const take = async (length: number): Promise<Uint8Array> => {
    const from = position - windowStart
    if (from < 0 || from >= window.length) {
      if (position >= source.size) return new Uint8Array(0)
      window = await source.readAt(position, Math.min(TAR_CHUNK_BYTES, source.size - position))
      windowStart = position
      if (window.length === 0) return window
    }
    const start = position - windowStart
    const piece = window.subarray(start, Math.min(window.length, start + length))
    position += piece.length
    return piece
  }
  const { pieces, read } = reading(take)
  return {
    read,
    pieces,
    skip: async (length) => {
      const skipped = Math.max(0, Math.min(length, source.size - position))
      position += skipped
      return skipped
    },
    peek: async (length) => {
      const at = position
      const bytes = await read(length)
      position = at
      return bytes
    },
    compressed: undefined,
    get position() {
      return position
    }
  }
}

async function* chunksOf(source: ByteSource, counter: { fed: number }) {
  let position = 0
  while (position < source.size) {
    const bytes = await source.readAt(position, Math.min(TAR_CHUNK_BYTES, source.size - position))
    if (bytes.length === 0) return
    position += bytes.length
    counter.fed += bytes.length
    yield Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length)
  }
}

/** A gzip stream, inflated as it is consumed; it may inflate to `maxInflatedBytes` at most. */
const gzipInput = (source: ByteSource, limits: ArchiveLimits, resources: Array<{ destroy(): void }>) => {
  const counter = { fed: 0 }
  const input = Readable.from(chunksOf(source, counter), { objectMode: false })
  const gunzip = zlib.createGunzip()
  input.on("error", (error) => gunzip.destroy(error))
  input.pipe(gunzip)
  resources.push(input, gunzip)
  const iterator = (gunzip as AsyncIterable<Buffer>)[Symbol.asyncIterator]()
  let inflated = 0
  let current: Uint8Array = new Uint8Array(0)
  let done = false
  const take = async (length: number): Promise<Uint8Array> => {
    while (current.length === 0 && !done) {
      const next = await iterator.next()
      if (next.done === true) {
        done = true
        break
      }
      inflated += next.value.length
      if (inflated > limits.maxInflatedBytes) throw new ArchiveFailure(messages.streamBomb(limits))
      current = next.value
    }
    const piece = current.subarray(0, Math.min(length, current.length))
    current = current.subarray(piece.length)
    return piece
  }
  const { pieces, read } = reading(take)
  const tarInput: TarInput = {
    read,
    pieces,
    skip: async (length) => {
      let skipped = 0
      for await (const piece of pieces(length)) skipped += piece.length
      return skipped
    },
    peek: async (length) => {
      const bytes = await read(length)
      current = current.length === 0 ? bytes : Buffer.concat([bytes, current])
      return bytes
    },
    get compressed() {
      return counter.fed
    },
    get position() {
      return inflated - current.length
    }
  }
  return tarInput
}

// -----------------------------------------------------------------------------
// Headers
// -----------------------------------------------------------------------------

const utf8 = new TextDecoder("utf-8", { fatal: true })

/** Names are UTF-8 when they decode as UTF-8, else Latin-1 (old tars wrote the local 8-bit code page). */
export const decodeName = (bytes: Uint8Array): string => {
  try {
    return utf8.decode(bytes)
  } catch {
    return latin1.decode(bytes)
  }
}

type Magic = "ustar" | "gnu" | "v7"

interface Header {
  readonly block: Uint8Array
  readonly type: string
  readonly name: string
  readonly size: number
  readonly mtime: number
  readonly linkname: string
  readonly devmajor: number
  readonly devminor: number
  readonly magic: Magic
}

const magicOf = (block: Uint8Array): Magic => {
  const text = latin1.decode(block.subarray(257, 265))
  return text.startsWith("ustar\0") ? "ustar" : text === "ustar  \0" ? "gnu" : "v7"
}

/** A header block whose checksum holds; undefined when it is not one. */
const parseHeader = (block: Uint8Array): Header | undefined => {
  if (!checksumMatches(block)) return undefined
  const magic = magicOf(block)
  const name = field(block, 0, 100)
  // POSIX ustar splits long names into prefix + name; GNU headers keep other fields there.
  const prefix = magic === "ustar" ? field(block, 345, 155) : new Uint8Array(0)
  const type = block[156] === 0 ? "\0" : String.fromCharCode(block[156]!)
  return {
    block,
    type,
    name: prefix.length > 0 ? `${decodeName(prefix)}/${decodeName(name)}` : decodeName(name),
    size: numeric(block, 124, 12),
    mtime: numeric(block, 136, 12),
    linkname: decodeName(field(block, 157, 100)),
    devmajor: magic === "v7" ? 0 : numeric(block, 329, 8),
    devminor: magic === "v7" ? 0 : numeric(block, 337, 8),
    magic
  }
}

/** One pax record per `len key=value\n`, repeated keys kept in order (GNU sparse 0.0 repeats some). */
export const parsePax = (bytes: Uint8Array): Array<readonly [string, string]> | undefined => {
  const records: Array<readonly [string, string]> = []
  let position = 0
  while (position < bytes.length) {
    // Trailing NUL padding ends the records.
    if (bytes[position] === 0) break
    let space = position
    while (space < bytes.length && space - position < 20 && bytes[space] !== 0x20) space++
    const digits = latin1.decode(bytes.subarray(position, space))
    if (bytes[space] !== 0x20 || !/^[0-9]+$/.test(digits)) return undefined
    const length = parseInt(digits, 10)
    // A zero or short length would never advance (CPython's recursion.tar); past the end is cut.
    if (length <= space - position + 1 || position + length > bytes.length || bytes[position + length - 1] !== 0x0a) {
      return undefined
    }
    const record = bytes.subarray(space + 1, position + length - 1)
    const equals = record.indexOf(0x3d)
    if (equals <= 0) return undefined
    records.push([latin1.decode(record.subarray(0, equals)), decodeName(record.subarray(equals + 1))])
    position += length
  }
  return records
}

interface Segment {
  readonly offset: number
  readonly length: number
}

interface Sparse {
  readonly realSize: number
  /** Data segments in file order; the stored data is their concatenation. */
  readonly map: ReadonlyArray<Segment> | "in-data"
}

/** Pairs of numbers as sparse segments, checked: in order, inside the file, not too many. */
const segmentsOf = (numbers: ReadonlyArray<number>, realSize: number): Array<Segment> | undefined => {
  if (numbers.length % 2 !== 0 || numbers.length / 2 > MAX_SPARSE_SEGMENTS) return undefined
  const segments: Array<Segment> = []
  let end = 0
  for (let i = 0; i < numbers.length; i += 2) {
    const offset = numbers[i]!
    const length = numbers[i + 1]!
    if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || offset < end || offset + length > realSize) {
      return undefined
    }
    segments.push({ offset, length })
    end = offset + length
  }
  return segments
}

const decimal = (text: string | undefined): number =>
  text !== undefined && /^[0-9]+$/.test(text) ? Number(text) : Number.NaN

const corrupt = (kind: string, what: string) =>
  new ArchiveFailure(`Invalid ${kind} ${kind === "gzip" ? "file" : "archive"}: ${what}`)

// -----------------------------------------------------------------------------
// The scan
// -----------------------------------------------------------------------------

const specialKind = (type: string, header: Header): string | undefined => {
  const device = (name: string) =>
    Number.isNaN(header.devmajor) || Number.isNaN(header.devminor)
      ? name
      : `${name} ${header.devmajor},${header.devminor}`
  switch (type) {
    case "3":
      return device("character device")
    case "4":
      return device("block device")
    case "6":
      return "FIFO"
    case "M":
      return "continuation of a file from the previous volume"
    default:
      return undefined
  }
}

/** pax keys that hold a path. */
const NAME_KEYS = new Set(["path", "linkpath", "GNU.sparse.name"])

/** Types whose data follows their header; links, devices, fifos and directories carry none. */
const carriesData = (type: string): boolean => !["1", "2", "3", "4", "5", "6"].includes(type)

const describe = (error: unknown, kind: string): Error => {
  if (error instanceof ArchiveFailure || error instanceof SourceFailure) return error
  const message = error instanceof Error ? error.message : String(error)
  const code = (error as { readonly code?: unknown }).code
  if (typeof code === "string" && code.startsWith("Z_")) {
    return corrupt(
      kind,
      code === "Z_BUF_ERROR" || /unexpected end/i.test(message)
        ? `the compressed data is truncated (${message})`
        : `corrupt compressed data (${message})`
    )
  }
  return corrupt(kind, message)
}

/** What reading a wanted member came to: its content, or the failure that stops it being shown. */
type Outcome =
  | { readonly _tag: "Found"; readonly entry: RawEntry; readonly content: Content }
  | { readonly _tag: "Failed"; readonly failure: ArchiveFailure }

/** A fresh pass over an archive's tar stream (the file's bytes, or them inflated). */
type Reopen = (resources: Array<{ destroy(): void }>) => TarInput

/**
 * The bytes of a fresh pass from `start` (of the tar stream, or of the inflated gzip), `size` of
 * them (all when undefined): a member too large to hold, streamed again for each page.
 */
const streamAt = (reopen: Reopen, start: number, size: number | undefined) =>
  async function*(): AsyncGenerator<Uint8Array> {
    const resources: Array<{ destroy(): void }> = []
    try {
      const input = reopen(resources)
      if ((await input.skip(start)) < start) {
        throw new ArchiveFailure("the archive ended early: it changed while it was read")
      }
      for await (const piece of input.pieces(size ?? Number.MAX_SAFE_INTEGER)) yield piece
    } finally {
      for (const resource of resources) resource.destroy()
    }
  }

/**
 * Read the archive once: index every entry and read the last copy of each wanted path that is a
 * regular file. When the archive is damaged after a wanted member was read, the member is
 * returned with `damaged` saying why a later copy could not be looked for.
 */
export const scanTar = async (
  source: ByteSource,
  gzip: boolean,
  wanted: ReadonlyArray<string>,
  limits: ArchiveLimits,
  signal: AbortSignal
): Promise<ScanResult> => {
  const resources: Array<{ destroy(): void }> = []
  const reopen: Reopen = (held) => gzip ? gzipInput(source, limits, held) : plainInput(source)
  try {
    return await scanInput(reopen(resources), reopen, gzip ? "tar.gz" : "tar", wanted, limits, signal)
  } finally {
    for (const resource of resources) resource.destroy()
  }
}

/**
 * A `.gz` file: a compressed tar is scanned as one; anything else is a single compressed file,
 * inflated whole within the member caps and returned as `single`, or, past the size cap,
 * returned to be streamed page by page.
 */
export const scanGzip = async (
  source: ByteSource,
  name: string,
  wanted: ReadonlyArray<string>,
  limits: ArchiveLimits,
  signal: AbortSignal
): Promise<ScanResult> => {
  const resources: Array<{ destroy(): void }> = []
  const reopen: Reopen = (held) => gzipInput(source, limits, held)
  try {
    const input = reopen(resources)
    const head = await input.peek(BLOCK).catch((error: unknown) => {
      throw describe(error, "gzip")
    })
    if (isTarHeader(head)) return await scanInput(input, reopen, "tar.gz", wanted, limits, signal)
    const collector = new Collector({
      member: name,
      declaredSize: undefined,
      limits,
      compressed: () => input.compressed! + TAR_CHUNK_BYTES,
      streamable: true
    })
    try {
      for await (const piece of input.pieces(Number.MAX_SAFE_INTEGER)) {
        if (signal.aborted) throw new ArchiveFailure("Interrupted")
        const next = collector.push(piece)
        if (next === "binary") {
          const content: Content = collector.binary()
          return { table: new EntryTable(0), complete: true, single: { name, size: collector.size, content } }
        }
        if (next === "over") {
          const content: Streamed = {
            _tag: "Stream",
            detection: collector.detection,
            size: undefined,
            open: streamAt(reopen, 0, undefined)
          }
          return { table: new EntryTable(0), complete: true, single: { name, size: source.size, content } }
        }
      }
    } catch (error) {
      throw describe(error, "gzip")
    }
    return {
      table: new EntryTable(0),
      complete: true,
      single: { name, size: collector.size, content: collector.end() }
    }
  } finally {
    for (const resource of resources) resource.destroy()
  }
}

const scanInput = async (
  input: TarInput,
  reopen: Reopen,
  kind: string,
  wanted: ReadonlyArray<string>,
  limits: ArchiveLimits,
  signal: AbortSignal
): Promise<ScanResult> => {
  const table = new EntryTable(limits.maxEntries)
  const outcomes = new Map<string, Outcome>()
  let last: string | undefined

  const after = () => (last === undefined ? "" : ` after '${last}'`)
  const truncated = () =>
    corrupt(kind, `truncated${last === undefined ? "" : ` (the data ends in or after '${last}')`}`)
  const check = () => {
    if (signal.aborted) throw new ArchiveFailure("Interrupted")
  }
  const exactly = async (length: number) => {
    const bytes = await input.read(length)
    if (bytes.length < length) throw truncated()
    return bytes
  }
  const padding = (size: number) => (BLOCK - (size % BLOCK)) % BLOCK
  /** Skip `size` bytes of data and their padding. */
  const skipData = async (size: number) => {
    const total = size + padding(size)
    if ((await input.skip(total)) < total) throw truncated()
  }

  /**
   * Collect a member's stored bytes (sparse holes as zeros) with every cap; stop early when
   * binary. A plain member that inflates past the size cap is streamed instead (`Streamed`).
   */
  const collect = async (path: string, entry: RawEntry, size: number, sparse: Sparse | undefined): Promise<Outcome> => {
    const start = input.compressed
    const dataStart = input.position
    const collector = new Collector({
      member: path,
      declaredSize: entry.size,
      limits,
      // Holes are not compression; gunzip reads ahead, so one read of slack errs towards fewer false alarms.
      compressed: () =>
        start === undefined || sparse !== undefined ? undefined : input.compressed! - start + TAR_CHUNK_BYTES,
      streamable: sparse === undefined
    })
    let consumed = 0
    let stopped: "binary" | "over" | undefined
    const push = (piece: Uint8Array) => {
      if (stopped !== undefined) return
      const next = collector.push(piece)
      if (next !== "more") stopped = next
    }
    const zeros = (count: number) => {
      const block = new Uint8Array(Math.min(count, TAR_CHUNK_BYTES))
      for (let left = count; left > 0 && stopped === undefined; left -= block.length) {
        push(left >= block.length ? block : block.subarray(0, left))
      }
    }
    try {
      let map: ReadonlyArray<Segment> = [{ offset: 0, length: size }]
      if (sparse !== undefined) {
        if (sparse.map === "in-data") {
          const read = await sparseMapInData(sparse.realSize, size)
          consumed += read.bytes
          map = read.segments
        } else {
          map = sparse.map
        }
        if (map.reduce((sum, segment) => sum + segment.length, 0) > size - consumed) {
          throw corrupt(kind, `the sparse map of '${path}' lists more data than the member stores`)
        }
      }
      let written = 0
      for (const segment of map) {
        zeros(segment.offset - written)
        if (stopped !== undefined) break
        let got = 0
        for await (const piece of input.pieces(segment.length)) {
          consumed += piece.length
          got += piece.length
          push(piece)
          if (stopped !== undefined) break
          check()
        }
        if (stopped !== undefined) break
        if (got < segment.length) throw truncated()
        written = segment.offset + segment.length
      }
      if (stopped === undefined && sparse !== undefined) zeros(sparse.realSize - written)
    } catch (error) {
      // A cap hit by this member fails this copy only: a later copy may still be read.
      if (!(error instanceof ArchiveFailure) || error.member !== path) throw error
      await skipRest(size, consumed)
      return { _tag: "Failed", failure: error }
    }
    await skipRest(size, consumed)
    if (stopped === "over") {
      const content: Streamed = {
        _tag: "Stream",
        detection: collector.detection,
        size,
        open: streamAt(reopen, dataStart, size)
      }
      return { _tag: "Found", entry, content }
    }
    return { _tag: "Found", entry, content: stopped === "binary" ? collector.binary() : collector.end() }
  }

  /** After a member's data was read in part: skip what is left of it and its padding. */
  const skipRest = async (size: number, consumed: number) => {
    const left = size - consumed + padding(size)
    if (left < 0 || (await input.skip(left)) < left) throw truncated()
  }

  /** GNU sparse 1.0: the map opens the data, as decimal lines, padded to a block. */
  const sparseMapInData = async (realSize: number, size: number) => {
    const numbers: Array<number> = []
    let text = ""
    let bytes = 0
    let count: number | undefined
    while (count === undefined || numbers.length < count * 2) {
      if (bytes + BLOCK > Math.min(size, MAX_META_BYTES)) throw corrupt(kind, `corrupt sparse map${after()}`)
      text += latin1.decode(await exactly(BLOCK))
      bytes += BLOCK
      const lines = text.split("\n")
      text = lines.pop()!
      for (const line of lines) {
        const value = decimal(line)
        if (Number.isNaN(value)) throw corrupt(kind, `corrupt sparse map${after()}`)
        if (count === undefined) {
          if (value > MAX_SPARSE_SEGMENTS) throw corrupt(kind, `corrupt sparse map${after()}`)
          count = value
        } else if (numbers.length < count * 2) numbers.push(value)
      }
    }
    const segments = segmentsOf(numbers, realSize)
    if (segments === undefined) throw corrupt(kind, `corrupt sparse map${after()}`)
    return { segments, bytes }
  }

  /** Old GNU sparse headers: 4 segments in the header, 21 more per extension block. */
  const oldGnuSparse = async (header: Header): Promise<Sparse> => {
    const numbers: Array<number> = []
    const entries = (block: Uint8Array, offset: number, count: number) => {
      for (let i = 0; i < count; i++) {
        const at = offset + i * 24
        if (block[at] === 0) return
        numbers.push(numeric(block, at, 12), numeric(block, at + 12, 12))
      }
    }
    entries(header.block, 386, 4)
    let extended = header.block[482] !== 0
    while (extended) {
      check()
      if (numbers.length / 2 > MAX_SPARSE_SEGMENTS) throw corrupt(kind, `corrupt sparse map${after()}`)
      const block = await exactly(BLOCK)
      entries(block, 0, 21)
      extended = block[504] !== 0
    }
    const realSize = numeric(header.block, 483, 12)
    const map = segmentsOf(numbers, realSize)
    if (Number.isNaN(realSize) || map === undefined) throw corrupt(kind, `corrupt sparse map in '${header.name}'`)
    return { realSize, map }
  }

  try {
    let pax: Array<readonly [string, string]> = []
    let longName: string | undefined
    let longLink: string | undefined
    let metaBytes = 0
    for (;;) {
      check()
      const block = await input.read(BLOCK)
      // The end: two zero blocks, one (as GNU tar accepts), or the data simply ending.
      if (block.length === 0 || (block.length === BLOCK && block.every((byte) => byte === 0))) break
      if (block.length < BLOCK) throw truncated()
      const header = parseHeader(block)
      if (header === undefined) {
        throw corrupt(
          kind,
          last === undefined
            ? "the data does not start with a tar header (not a tar archive, or corrupt)"
            : `corrupt header after '${last}'`
        )
      }
      if (Number.isNaN(header.size)) throw corrupt(kind, `corrupt size field in the header of '${header.name}'`)

      // Extended headers describe the next entry.
      if (["L", "K", "x", "X", "g"].includes(header.type)) {
        metaBytes += header.size
        if (header.size > MAX_META_BYTES || metaBytes > MAX_META_BYTES) {
          throw corrupt(
            kind,
            `an extended header${after()} is ${header.size} bytes, over the ${MAX_META_BYTES} allowed`
          )
        }
        const data = await exactly(header.size)
        if ((await input.skip(padding(header.size))) < padding(header.size)) throw truncated()
        if (header.type === "L" || header.type === "K") {
          const value = decodeName(field(data, 0, data.length))
          if (header.type === "L") longName = value
          else longLink = value
        } else {
          const records = parsePax(data)
          if (records === undefined) throw corrupt(kind, `corrupt pax header${after()}`)
          // Global headers hold defaults (owner names, comments) that change nothing shown here.
          if (header.type !== "g") pax = [...pax, ...records]
        }
        continue
      }

      // Names end at a NUL, as GNU and BSD tar read them (Go's pax-nul-path.tar); other values
      // (extended attributes) may hold NULs.
      const values = new Map(
        pax.map(([key, value]) =>
          NAME_KEYS.has(key) && value.includes("\0")
            ? [key, value.slice(0, value.indexOf("\0"))] as const
            : [key, value] as const
        )
      )
      const sparseKeys = pax.some(([key]) => key.startsWith("GNU.sparse."))
      const name = values.get("GNU.sparse.name") ?? values.get("path") ?? longName ?? header.name
      const linkname = values.get("linkpath") ?? longLink ?? header.linkname
      let size = header.size
      if (values.has("size")) {
        size = decimal(values.get("size"))
        if (Number.isNaN(size)) throw corrupt(kind, `corrupt pax size for '${name}'`)
      }
      const paxMtime = Number(values.get("mtime"))
      const mtime = values.has("mtime") && Number.isFinite(paxMtime) ? paxMtime : header.mtime
      const paxEntries = pax
      pax = []
      longName = undefined
      longLink = undefined
      metaBytes = 0

      let sparse: Sparse | undefined
      if (header.type === "S") sparse = await oldGnuSparse(header)
      else if (sparseKeys && carriesData(header.type)) {
        const realSize = decimal(values.get("GNU.sparse.realsize") ?? values.get("GNU.sparse.size"))
        if (Number.isNaN(realSize)) throw corrupt(kind, `corrupt sparse header for '${name}'`)
        if (values.get("GNU.sparse.major") === "1") sparse = { realSize, map: "in-data" }
        else {
          const listed = values.get("GNU.sparse.map")
          const numbers = listed !== undefined
            ? (listed === "" ? [] : listed.split(",").map(decimal))
            : paxEntries.filter(([key]) => key === "GNU.sparse.offset" || key === "GNU.sparse.numbytes")
              .map(([, value]) => decimal(value))
          const map = segmentsOf(numbers, realSize)
          if (map === undefined) throw corrupt(kind, `corrupt sparse map for '${name}'`)
          sparse = { realSize, map }
        }
      }

      // V7 marks directories by a trailing slash on a regular-file header.
      const type = (header.type === "\0" || header.type === "0") && name.endsWith("/") ? "5" : header.type
      if (type === "V") {
        // A volume label names the tape, not a member.
        await skipData(size)
        continue
      }
      const special = specialKind(type, header)
      const entryKind = type === "5" || type === "D"
        ? "directory"
        : type === "1" || type === "2"
        ? "link"
        : special === undefined
        ? "file"
        : "special"
      const raw: RawEntry = {
        name,
        kind: entryKind,
        size: entryKind === "file" ? sparse?.realSize ?? size : 0,
        ...(Number.isFinite(mtime) ? { mtime: Math.round(mtime * 1000) } : {}),
        ...(entryKind === "link" ? { linkTarget: linkname, hardLink: type === "1" } : {}),
        ...(special === undefined ? {} : { special }),
        ...(sparse === undefined ? {} : { sparse: true })
      }
      const path = table.add(raw)
      last = name
      const dataSize = carriesData(type) ? size : 0
      if (path !== undefined && wanted.includes(path)) {
        if (entryKind !== "file") {
          outcomes.delete(path)
        } else if (raw.size > limits.maxMemberBytes && sparse !== undefined) {
          outcomes.set(path, {
            _tag: "Failed",
            failure: new ArchiveFailure(messages.tooLarge(path, raw.size, limits), path)
          })
        } else {
          outcomes.set(path, await collect(path, raw, dataSize, sparse))
          continue
        }
      }
      await skipData(dataSize)
    }
  } catch (error) {
    const failure = describe(error, kind)
    // A member already read stands when the rest cannot be: say so rather than lose it.
    const found = wanted.find((path) => outcomes.get(path)?._tag === "Found")
    if (!(failure instanceof ArchiveFailure) || found === undefined || failure.reason === "Interrupted") throw failure
    const outcome = outcomes.get(found) as Extract<Outcome, { _tag: "Found" }>
    return {
      table,
      complete: false,
      found: { path: found, entry: outcome.entry, content: outcome.content },
      damaged: failure.reason
    }
  }
  for (const path of wanted) {
    const outcome = outcomes.get(path)
    if (outcome === undefined) continue
    if (outcome._tag === "Failed") throw outcome.failure
    return { table, complete: true, found: { path, entry: outcome.entry, content: outcome.content } }
  }
  return { table, complete: true }
}

/** The original file name a gzip header may carry (FNAME, Latin-1), when the header holds it whole. */
export const gzipName = (head: Uint8Array): string | undefined => {
  if (!isGzip(head) || head.length < 10 || (head[3]! & 0x08) === 0) return undefined
  let at = 10
  if ((head[3]! & 0x04) !== 0) {
    if (head.length < 12) return undefined
    at += 2 + (head[10]! | (head[11]! << 8))
  }
  const end = head.indexOf(0, at)
  if (end === -1) return undefined
  const name = latin1.decode(head.subarray(at, end))
  // Only a base name: a header naming a path (or nothing) is not trusted as one.
  return name === "" || /[\\/]/.test(name) ? undefined : name
}
