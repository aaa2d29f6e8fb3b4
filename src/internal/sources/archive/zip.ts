/**
 * ZIP through yauzl: the central directory is read by random access (the end of the file,
 * then the directory itself through a small block cache), and a member is inflated from its
 * own byte range. The archive is never read whole.
 */
import { Readable } from "node:stream"
import * as yauzl from "yauzl"
import { type ByteSource, Collector, type Content, crc32, type ScanResult } from "./content.js"
import { ArchiveFailure, type ArchiveLimits, EntryTable, messages, type RawEntry, SourceFailure } from "./model.js"

/** Bytes read at once for metadata (the central directory) and for member data. */
const BLOCK_BYTES = 64 * 1024

class SourceReader extends yauzl.RandomAccessReader {
  private block: Uint8Array = new Uint8Array(0)
  private blockStart = 0

  constructor(private readonly source: ByteSource) {
    super()
  }

  override _readStreamForRange(start: number, end: number): Readable {
    const source = this.source
    let position = start
    return new Readable({
      highWaterMark: BLOCK_BYTES,
      read() {
        if (position >= end) {
          this.push(null)
          return
        }
        source.readAt(position, Math.min(BLOCK_BYTES, end - position)).then((bytes) => {
          if (bytes.length === 0) {
            this.destroy(new Error("unexpected EOF"))
            return
          }
          position += bytes.length
          this.push(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length))
        }, (error: unknown) => this.destroy(error as Error))
      }
    })
  }

  /** Metadata reads are small and sequential: serve them from one cached block. */
  override read(
    buffer: Buffer,
    offset: number,
    length: number,
    position: number,
    callback: (err: Error | null) => void
  ): void {
    const cached = position >= this.blockStart && position + length <= this.blockStart + this.block.length
    const ready = cached
      ? Promise.resolve()
      : this.source.readAt(position, Math.max(length, Math.min(BLOCK_BYTES, this.source.size - position))).then(
        (bytes) => {
          this.block = bytes
          this.blockStart = position
        }
      )
    ready.then(() => {
      const from = position - this.blockStart
      const available = Math.max(0, Math.min(length, this.block.length - from))
      buffer.set(this.block.subarray(from, from + available), offset)
      callback(available < length ? new Error("unexpected EOF") : null)
    }, (error: unknown) => callback(error as Error))
  }
}

const openZip = (reader: SourceReader, size: number) =>
  new Promise<yauzl.ZipFile>((resolve, reject) => {
    yauzl.fromRandomAccessReader(
      reader,
      size,
      // Names are decoded and checked here (yauzl would fail the whole archive on one `../x`);
      // sizes are checked while inflating, with our own limits.
      { lazyEntries: true, autoClose: false, decodeStrings: false, validateEntrySizes: false },
      (error, zip) => (error === null ? resolve(zip) : reject(error))
    )
  })

const S_IFMT = 0o170000
const S_IFDIR = 0o040000
const S_IFLNK = 0o120000
const S_IFREG = 0o100000

const specialModes: Record<number, string> = {
  0o010000: "FIFO",
  0o020000: "character device",
  0o060000: "block device",
  0o140000: "socket"
}

/** "Version made by" hosts whose archivers store names as the filesystem's bytes: Unix, OS X. */
const UTF8_HOSTS = new Set([3, 19])
const strictUtf8 = new TextDecoder("utf-8", { fatal: true })

/**
 * Info-ZIP's Unicode path field, else UTF-8 when flagged, else CP437; `\` (Windows zips) becomes
 * `/`. An unflagged name from a Unix or macOS archiver (Archive Utility, ditto, zip without its
 * Unicode option) is the bytes its filesystem held, UTF-8 there: read as UTF-8 when it decodes as
 * UTF-8, as unzip and Go read it.
 */
const entryName = (entry: yauzl.Entry): string => {
  const name = yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileNameRaw, entry.extraFields, false)
  const raw = entry.fileNameRaw
  if (
    (entry.generalPurposeBitFlag & 0x800) !== 0 || !UTF8_HOSTS.has(entry.versionMadeBy >> 8) ||
    entry.extraFields.some((field) => field.id === 0x7075) || raw.every((byte) => byte < 0x80)
  ) return name
  try {
    return strictUtf8.decode(raw).replace(/\\/g, "/")
  } catch {
    return name
  }
}

const rawEntry = (entry: yauzl.Entry): RawEntry => {
  const name = entryName(entry)
  // Unix "version made by" (3) keeps the mode in the high half of the external attributes.
  const mode = entry.versionMadeBy >> 8 === 3 ? (entry.externalFileAttributes >>> 16) & S_IFMT : 0
  const kind = name.endsWith("/") || mode === S_IFDIR
    ? "directory"
    : mode === S_IFLNK
    ? "link"
    : mode === 0 || mode === S_IFREG
    ? "file"
    : "special"
  let mtime: number | undefined
  try {
    mtime = entry.getLastModDate().getTime()
  } catch {
    mtime = undefined
  }
  return {
    name,
    kind,
    size: entry.uncompressedSize,
    compressedSize: entry.compressedSize,
    ...(mtime !== undefined && Number.isFinite(mtime) ? { mtime } : {}),
    ...(kind === "special" ? { special: specialModes[mode] ?? "special file" } : {}),
    ...(entry.isEncrypted() ? { encrypted: true } : {})
  }
}

/** yauzl's and zlib's messages, in words the model can act on. */
const describe = (error: unknown, member: string | undefined): Error => {
  if (error instanceof ArchiveFailure || error instanceof SourceFailure) return error
  const message = error instanceof Error ? error.message : String(error)
  const about = member === undefined ? "" : ` ('${member}')`
  const fail = (reason: string) => new ArchiveFailure(reason, member)
  if (/End of central directory record signature not found/i.test(message)) {
    return fail("Invalid ZIP archive: missing end of central directory (not a ZIP file, or truncated)")
  }
  if (/multi-disk/i.test(message)) return fail("Multi-disk ZIP archives are not supported")
  if (/strong encryption/i.test(message)) return fail("Encrypted ZIP entries are not supported (strong encryption)")
  if (/unexpected EOF|overflows file bounds/i.test(message)) {
    return fail(`Invalid ZIP archive: truncated — data${about} lies past the end of the file`)
  }
  if (/central directory file header signature|zip64/i.test(message)) {
    return fail(`Invalid ZIP archive: corrupt central directory (${message})`)
  }
  if (/local file header signature/i.test(message)) return fail(`Invalid ZIP archive: corrupt local header${about}`)
  if (/Invalid comment length/i.test(message)) {
    return fail("Invalid ZIP archive: corrupt end of central directory (extra bytes after it, or a damaged comment)")
  }
  const code = (error as { readonly code?: unknown }).code
  if (typeof code === "string" && code.startsWith("Z_")) {
    return fail(`Invalid ZIP archive: cannot inflate${about}: ${message}`)
  }
  return fail(`Invalid ZIP archive: ${message}`)
}

const extract = (
  zip: yauzl.ZipFile,
  entry: yauzl.Entry,
  path: string,
  limits: ArchiveLimits,
  signal: AbortSignal
): Promise<Content> => {
  const declared = entry.uncompressedSize
  const compressed = entry.compressedSize
  if (entry.isEncrypted()) return Promise.reject(new ArchiveFailure(messages.encrypted(path), path))
  if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8) {
    return Promise.reject(new ArchiveFailure(messages.method(path, entry.compressionMethod), path))
  }
  if (declared > limits.maxMemberBytes) {
    return Promise.reject(new ArchiveFailure(messages.tooLarge(path, declared, limits), path))
  }
  const ratioExceeded = declared > limits.ratioMinBytes && declared > limits.maxRatio * Math.max(compressed, 1)
  if (entry.compressionMethod === 8 && ratioExceeded) {
    return Promise.reject(new ArchiveFailure(messages.bomb(path, compressed, declared, limits, false), path))
  }
  return new Promise<Content>((resolve, reject) => {
    zip.openReadStream(entry, (error, stream) => {
      if (error !== null) return reject(describe(error, path))
      const collector = new Collector({
        member: path,
        declaredSize: declared,
        limits,
        compressed: () => (entry.compressionMethod === 8 ? compressed : undefined)
      })
      let settled = false
      const settle = (outcome: () => void) => {
        if (settled) return
        settled = true
        signal.removeEventListener("abort", onAbort)
        outcome()
      }
      const onAbort = () =>
        settle(() => {
          stream.destroy()
          reject(new ArchiveFailure("Interrupted", path))
        })
      signal.addEventListener("abort", onAbort)
      stream.on("data", (chunk: Buffer) => {
        if (settled) return
        try {
          if (collector.size + chunk.length > declared) {
            throw new ArchiveFailure(
              collector.size + chunk.length > limits.maxMemberBytes
                ? messages.inflatesTooLarge(path, declared, limits)
                : `Invalid ZIP archive: '${path}' inflates past its declared size (${declared} bytes)`,
              path
            )
          }
          if (collector.push(chunk) === "binary") {
            settle(() => {
              stream.destroy()
              resolve(collector.binary())
            })
          }
        } catch (failure) {
          settle(() => {
            stream.destroy()
            reject(describe(failure, path))
          })
        }
      })
      stream.on("error", (failure) => settle(() => reject(describe(failure, path))))
      stream.on("end", () =>
        settle(() => {
          if (collector.size !== declared) {
            return reject(
              new ArchiveFailure(
                `Invalid ZIP archive: '${path}' is ${collector.size} bytes, ` +
                  `not the ${declared} it declares (truncated or corrupt)`,
                path
              )
            )
          }
          if (crc32(collector.bytes()) !== entry.crc32 >>> 0) {
            const reason = `Invalid ZIP archive: CRC mismatch in '${path}' (the data is corrupt)`
            return reject(new ArchiveFailure(reason, path))
          }
          resolve(collector.end())
        }))
    })
  })
}

/** Longest symbolic link target read from a link entry's data. */
const MAX_LINK_TARGET = 4096

/**
 * Where the ZIP data lies in the file: `start`, after whatever was prepended to it (a
 * self-extractor's stub, a script) when its offsets count from its own start, as `cat stub a.zip`
 * leaves them; `end`, after the end record and its comment, before whatever was appended to it
 * (unzip, Go and Python read such files; yauzl wants the comment to end the file). The end
 * record's offset of the central directory is compared with where the directory really lies (just
 * before the end record, or before the ZIP64 end record and its locator); a signature whose
 * directory is not there (in a comment, in appended bytes) is passed over.
 */
const zipBounds = async (source: ByteSource): Promise<{ readonly start: number; readonly end: number }> => {
  const tailLength = Math.min(source.size, 22 + 0xffff + 20 + 56 + TRAILING_BYTES)
  const tailStart = source.size - tailLength
  const tail = Buffer.from(await source.readAt(tailStart, tailLength))
  /** A central directory header starts at `position` in the file. */
  const directoryAt = async (position: number): Promise<boolean> => {
    if (!Number.isSafeInteger(position) || position < 0 || position + 4 > source.size) return false
    const at = position - tailStart
    const bytes = at >= 0 && at + 4 <= tail.length
      ? tail.subarray(at, at + 4)
      : Buffer.from(await source.readAt(position, 4))
    return bytes.length === 4 && bytes.readUInt32LE(0) === 0x02014b50
  }
  let appended: { readonly start: number; readonly end: number } | undefined
  for (let i = tail.length - 22; i >= 0; i--) {
    if (tail.readUInt32LE(i) !== 0x06054b50) continue
    const end = i + 22 + tail.readUInt16LE(i + 20)
    if (end > tail.length) continue
    const locator = i - 20
    const record = locator - 56
    let shift: number
    let offset: number
    let entries: number
    if (locator >= 0 && tail.readUInt32LE(locator) === 0x07064b50) {
      if (record < 0 || tail.readUInt32LE(record) !== 0x06064b50) continue
      shift = tailStart + record - Number(tail.readBigUInt64LE(locator + 8))
      offset = Number(tail.readBigUInt64LE(record + 48))
      entries = Number(tail.readBigUInt64LE(record + 32))
    } else {
      shift = tailStart + i - tail.readUInt32LE(i + 12) - tail.readUInt32LE(i + 16)
      offset = tail.readUInt32LE(i + 16)
      entries = tail.readUInt16LE(i + 10)
    }
    let start = shift > 0 && Number.isSafeInteger(shift) ? shift : 0
    let found = entries === 0 || await directoryAt(start + offset)
    // A wrong directory size looks like a prefix; the directory where the offset says is the
    // truth then (Go's test-baddirsz.zip, which unzip and Go read).
    if (!found && start > 0 && await directoryAt(offset)) {
      start = 0
      found = true
    }
    // The first record from the end whose comment ends the file is taken as it stands (yauzl
    // checks the rest); one followed by other bytes only when its directory is really there.
    if (end === tail.length) return { start, end: tailStart + end }
    if (found) appended ??= { start, end: tailStart + end }
  }
  return appended ?? { start: 0, end: source.size }
}

/** Bytes after the end record (and its comment) that are still searched for it. */
const TRAILING_BYTES = 64 * 1024

/** A symbolic link's target: its entry's data, when short text. */
const linkTarget = async (
  zip: yauzl.ZipFile,
  entry: yauzl.Entry,
  path: string,
  limits: ArchiveLimits,
  signal: AbortSignal
): Promise<string | undefined> => {
  if (entry.uncompressedSize > MAX_LINK_TARGET) return undefined
  const content = await extract(zip, entry, path, { ...limits, maxMemberBytes: MAX_LINK_TARGET }, signal).catch(
    () => undefined
  )
  if (content?._tag !== "Text") return undefined
  const target = Buffer.from(content.bytes).toString("utf8")
  return target === "" || target.includes("\0") || target.includes("\n") ? undefined : target
}

/**
 * Index the central directory, then inflate the first of `wanted` that is a regular file
 * (whole paths, already normalised). A path listed twice means its last entry, as unzip leaves it.
 */
export const scanZip = async (
  whole: ByteSource,
  wanted: ReadonlyArray<string>,
  limits: ArchiveLimits,
  signal: AbortSignal,
  onEntry?: (done: number, total: number) => void
): Promise<ScanResult> => {
  let zip: yauzl.ZipFile
  try {
    const { end, start } = await zipBounds(whole)
    const source: ByteSource = start === 0 && end === whole.size
      ? whole
      : {
        size: end - start,
        readAt: (position, length) =>
          whole.readAt(position + start, Math.max(0, Math.min(length, end - start - position)))
      }
    zip = await openZip(new SourceReader(source), source.size)
  } catch (error) {
    throw describe(error, undefined)
  }
  try {
    const table = new EntryTable(limits.maxEntries)
    const candidates = new Map<string, { readonly raw: RawEntry; readonly entry: yauzl.Entry }>()
    try {
      let seen = 0
      for await (const entry of zip.eachEntry()) {
        if (signal.aborted) throw new ArchiveFailure("Interrupted")
        onEntry?.(++seen, zip.entryCount)
        const raw = rawEntry(entry)
        const path = table.add(raw)
        if (path !== undefined && wanted.includes(path)) candidates.set(path, { raw, entry })
      }
    } catch (error) {
      throw describe(error, undefined)
    }
    for (const path of wanted) {
      const candidate = candidates.get(path)
      if (candidate?.raw.kind === "link") {
        const target = await linkTarget(zip, candidate.entry, path, limits, signal)
        if (target !== undefined) table.amend(path, { linkTarget: target })
        continue
      }
      if (candidate === undefined || candidate.raw.kind !== "file") continue
      const content = await extract(zip, candidate.entry, path, limits, signal)
      return { table, complete: true, found: { path, entry: candidate.raw, content } }
    }
    return { table, complete: true }
  } finally {
    zip.close()
  }
}
