/**
 * A WAL database's committed state as bytes, built without SQLite: the main file's pages with
 * the committed frames of its `-wal` file laid over them. Pure.
 *
 * Why: SQLite opens a WAL database through its `-shm` index, which it creates (with the `-wal`)
 * when they are missing and leaves behind when a read-only connection cannot checkpoint; with a
 * live writer a reader also writes its read marks into that `-shm`. Opening a private copy of
 * the pages touches nothing beside the file. (`immutable=1` would avoid the side files but
 * ignores committed frames in the `-wal`; better-sqlite3 is built without URI filenames anyway.)
 *
 * Frames are taken as SQLite's own recovery takes them (the WAL format of sqlite.org's
 * fileformat2): from the start, while their salts match the header and their running checksum
 * holds; only up to the last commit frame. So a transaction still being written, and frames of
 * an older generation after a checkpoint restarted the log, are left out.
 */

export const WAL_HEADER_BYTES = 32
const FRAME_HEADER_BYTES = 24
const WAL_VERSION = 3007000

/** The main file says the database is in WAL mode (file format read/write versions 2). */
export const isWalHeader = (header: Uint8Array): boolean => header[18] === 2 || header[19] === 2

/** Whether this machine reads a `Uint32Array` little-endian. */
const NATIVE_LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1

/**
 * SQLite's WAL checksum over `length` bytes at `offset` (a multiple of 8, 4-aligned), continuing
 * from `sums`. `words` reads the log as native 32-bit words when that is the log's byte order
 * (SQLite writes its machine's order, so almost always): about ten times faster than `DataView`.
 */
const checksum = (
  view: DataView,
  words: Uint32Array | undefined,
  offset: number,
  length: number,
  sums: readonly [number, number],
  littleEndian: boolean
): [number, number] => {
  let [s0, s1] = sums
  if (words !== undefined) {
    for (let i = offset >>> 2, end = (offset + length) >>> 2; i < end; i += 2) {
      s0 = (s0 + words[i]! + s1) >>> 0
      s1 = (s1 + words[i + 1]! + s0) >>> 0
    }
    return [s0, s1]
  }
  for (let i = offset; i < offset + length; i += 8) {
    s0 = (s0 + view.getUint32(i, littleEndian) + s1) >>> 0
    s1 = (s1 + view.getUint32(i + 4, littleEndian) + s0) >>> 0
  }
  return [s0, s1]
}

export interface CommittedFrames {
  readonly pageSize: number
  /** Database size in pages after the last commit. */
  readonly pages: number
  /** Page number → offset in the log of its newest committed content. */
  readonly frames: ReadonlyMap<number, number>
}

/** The committed frames of a `-wal` file; `undefined` when it holds no valid commit. */
export const committedFrames = (wal: Uint8Array): CommittedFrames | undefined => {
  if (wal.byteLength < WAL_HEADER_BYTES) return undefined
  const view = new DataView(wal.buffer, wal.byteOffset, wal.byteLength)
  const magic = view.getUint32(0)
  if (magic !== 0x377f0682 && magic !== 0x377f0683) return undefined
  // The low bit of the magic number says whether checksums read the words big-endian.
  const littleEndian = magic === 0x377f0682
  const pageSize = view.getUint32(8)
  if (view.getUint32(4) !== WAL_VERSION || pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0) {
    return undefined
  }
  const words = littleEndian === NATIVE_LITTLE_ENDIAN && wal.byteOffset % 4 === 0
    ? new Uint32Array(wal.buffer, wal.byteOffset, wal.byteLength >>> 2)
    : undefined
  let sums = checksum(view, words, 0, 24, [0, 0], littleEndian)
  if (sums[0] !== view.getUint32(24) || sums[1] !== view.getUint32(28)) return undefined
  const salt1 = view.getUint32(16)
  const salt2 = view.getUint32(20)

  const frames = new Map<number, number>()
  const pending = new Map<number, number>()
  let pages = 0
  const frameBytes = FRAME_HEADER_BYTES + pageSize
  for (let at = WAL_HEADER_BYTES; at + frameBytes <= wal.byteLength; at += frameBytes) {
    const page = view.getUint32(at)
    if (page === 0 || view.getUint32(at + 8) !== salt1 || view.getUint32(at + 12) !== salt2) break
    sums = checksum(view, words, at, 8, sums, littleEndian)
    sums = checksum(view, words, at + FRAME_HEADER_BYTES, pageSize, sums, littleEndian)
    if (sums[0] !== view.getUint32(at + 16) || sums[1] !== view.getUint32(at + 20)) break
    pending.set(page, at + FRAME_HEADER_BYTES)
    const commit = view.getUint32(at + 4)
    if (commit !== 0) {
      for (const [p, offset] of pending) frames.set(p, offset)
      pending.clear()
      pages = commit
    }
  }
  return pages === 0 ? undefined : { pageSize, pages, frames }
}

/**
 * The database as of the last commit in `wal` (when given): a new buffer, marked as a
 * rollback-journal database so it opens from memory.
 */
export const committedImage = (main: Uint8Array, wal: Uint8Array | undefined): Uint8Array => {
  const committed = wal === undefined ? undefined : committedFrames(wal)
  const size = committed === undefined ? main.byteLength : committed.pages * committed.pageSize
  const image = new Uint8Array(size)
  image.set(main.subarray(0, Math.min(size, main.byteLength)))
  if (committed !== undefined && wal !== undefined) {
    for (const [page, offset] of committed.frames) {
      if (page <= committed.pages) {
        image.set(wal.subarray(offset, offset + committed.pageSize), (page - 1) * committed.pageSize)
      }
    }
  }
  if (image.byteLength > 19 && isWalHeader(image)) {
    image[18] = 1
    image[19] = 1
  }
  return image
}

/** The header of a `-wal` file: it changes when a checkpoint restarts or truncates the log. */
export const walHeader = (wal: Uint8Array | undefined): string =>
  wal === undefined ? "" : Buffer.from(wal.subarray(0, WAL_HEADER_BYTES)).toString("hex")
