/**
 * ZIP archives written field by field (deflateRaw + CRC-32), with the variants real archivers
 * produce: CP437 or UTF-8 names, Info-ZIP Unicode path fields, data descriptors, ZIP64 records,
 * Unix modes, and bytes prepended to the archive (self-extractors).
 */
import * as zlib from "node:zlib"

const crcTable = (() => {
  const table = new Int32Array(256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    table[n] = c
  }
  return table
})()

export const crc32 = (bytes: Uint8Array): number => {
  let c = -1
  for (let i = 0; i < bytes.length; i++) c = crcTable[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8)
  return (c ^ -1) >>> 0
}

export interface ZipMember {
  readonly name: string
  readonly data?: string | Uint8Array
  /** 0 stored, 8 deflate (default), anything else is written as given with stored bytes. */
  readonly method?: number
  /** General-purpose flags (bit 0: encrypted). */
  readonly flags?: number
  /** Set the UTF-8 flag (bit 11); default true. Without it readers decode the name as CP437. */
  readonly utf8?: boolean
  /** The name's bytes as stored, instead of `name` in UTF-8. */
  readonly rawName?: Uint8Array
  /** Extra fields written in both headers. */
  readonly extra?: Uint8Array
  /** Uncompressed size written in the headers instead of the real one. */
  readonly declaredSize?: number
  /** Unix mode kept in the external attributes (e.g. 0o120777 for a symlink). */
  readonly mode?: number
  /** The "version made by" host: 3 Unix (default), 0 MS-DOS/FAT, 11 NTFS, 19 OS X. */
  readonly host?: number
  /** Sizes and CRC in a descriptor after the data (bit 3), zeros in the local header. */
  readonly dataDescriptor?: boolean
  /** Sizes and offset in a ZIP64 extra field, 0xffffffff in the headers. */
  readonly zip64?: boolean
}

export interface ZipOptions {
  /** Bytes before the archive; offsets still count from the archive's own start (`cat stub a.zip`). */
  readonly prefix?: Uint8Array
  /** Write a ZIP64 end of central directory record and locator, 0xffff/0xffffffff in the end record. */
  readonly zip64End?: boolean
}

/** Info-ZIP Unicode Path extra field (0x7075): the UTF-8 name, bound to the stored name by its CRC. */
export const unicodePathExtra = (storedName: Uint8Array, name: string): Buffer => {
  const utf8 = Buffer.from(name, "utf8")
  const field = Buffer.alloc(4 + 5 + utf8.length)
  field.writeUInt16LE(0x7075, 0)
  field.writeUInt16LE(5 + utf8.length, 2)
  field.writeUInt8(1, 4)
  field.writeUInt32LE(crc32(storedName), 5)
  utf8.copy(field, 9)
  return field
}

const zip64Extra = (size: number, compressed: number, offset: number | undefined): Buffer => {
  const field = Buffer.alloc(4 + 16 + (offset === undefined ? 0 : 8))
  field.writeUInt16LE(0x0001, 0)
  field.writeUInt16LE(field.length - 4, 2)
  field.writeBigUInt64LE(BigInt(size), 4)
  field.writeBigUInt64LE(BigInt(compressed), 12)
  if (offset !== undefined) field.writeBigUInt64LE(BigInt(offset), 20)
  return field
}

/** A ZIP archive: local headers and data, the central directory, the end record(s). */
export const zip = (members: ReadonlyArray<ZipMember>, options: ZipOptions = {}): Buffer => {
  const locals: Array<Buffer> = []
  const centrals: Array<Buffer> = []
  let offset = 0
  for (const member of members) {
    const name = Buffer.from(member.rawName ?? Buffer.from(member.name, "utf8"))
    const data = typeof member.data === "string" ? Buffer.from(member.data, "utf8") : Buffer.from(member.data ?? [])
    const method = member.method ?? (member.name.endsWith("/") ? 0 : 8)
    const stored = method === 8 ? zlib.deflateRawSync(data) : data
    const flags = (member.flags ?? 0) | (member.utf8 === false ? 0 : 0x800) | (member.dataDescriptor ? 0x8 : 0)
    const crc = crc32(data)
    const size = member.declaredSize ?? data.length
    const wide = member.zip64 === true
    const localExtra = Buffer.concat([
      Buffer.from(member.extra ?? []),
      wide ? zip64Extra(size, stored.length, undefined) : Buffer.alloc(0)
    ])
    const centralExtra = Buffer.concat([
      Buffer.from(member.extra ?? []),
      wide ? zip64Extra(size, stored.length, offset) : Buffer.alloc(0)
    ])
    const version = wide ? 45 : 20
    const local = Buffer.alloc(30)
    local.writeUInt32LE(0x04034b50, 0)
    local.writeUInt16LE(version, 4)
    local.writeUInt16LE(flags, 6)
    local.writeUInt16LE(method, 8)
    local.writeUInt16LE(0, 10)
    local.writeUInt16LE(0x5a21, 12) // 2025-01-01
    local.writeUInt32LE(member.dataDescriptor ? 0 : crc, 14)
    local.writeUInt32LE(wide ? 0xffffffff : member.dataDescriptor ? 0 : stored.length, 18)
    local.writeUInt32LE(wide ? 0xffffffff : member.dataDescriptor ? 0 : size, 22)
    local.writeUInt16LE(name.length, 26)
    local.writeUInt16LE(localExtra.length, 28)
    const descriptor = Buffer.alloc(member.dataDescriptor ? 16 : 0)
    if (member.dataDescriptor) {
      descriptor.writeUInt32LE(0x08074b50, 0)
      descriptor.writeUInt32LE(crc, 4)
      descriptor.writeUInt32LE(stored.length, 8)
      descriptor.writeUInt32LE(size, 12)
    }
    const central = Buffer.alloc(46)
    central.writeUInt32LE(0x02014b50, 0)
    central.writeUInt16LE(((member.host ?? 3) << 8) | 30, 4)
    central.writeUInt16LE(version, 6)
    central.writeUInt16LE(flags, 8)
    central.writeUInt16LE(method, 10)
    central.writeUInt16LE(0, 12)
    central.writeUInt16LE(0x5a21, 14)
    central.writeUInt32LE(crc, 16)
    central.writeUInt32LE(wide ? 0xffffffff : stored.length, 20)
    central.writeUInt32LE(wide ? 0xffffffff : size, 24)
    central.writeUInt16LE(name.length, 28)
    central.writeUInt16LE(centralExtra.length, 30)
    central.writeUInt32LE(((member.mode ?? (member.name.endsWith("/") ? 0o040755 : 0o100644)) << 16) >>> 0, 38)
    central.writeUInt32LE(wide ? 0xffffffff : offset, 42)
    locals.push(local, name, localExtra, stored, descriptor)
    centrals.push(central, name, centralExtra)
    offset += local.length + name.length + localExtra.length + stored.length + descriptor.length
  }
  const directory = Buffer.concat(centrals)
  const ends: Array<Buffer> = []
  if (options.zip64End === true) {
    const record = Buffer.alloc(56)
    record.writeUInt32LE(0x06064b50, 0)
    record.writeBigUInt64LE(44n, 4)
    record.writeUInt16LE((3 << 8) | 45, 12)
    record.writeUInt16LE(45, 14)
    record.writeBigUInt64LE(BigInt(members.length), 24)
    record.writeBigUInt64LE(BigInt(members.length), 32)
    record.writeBigUInt64LE(BigInt(directory.length), 40)
    record.writeBigUInt64LE(BigInt(offset), 48)
    const locator = Buffer.alloc(20)
    locator.writeUInt32LE(0x07064b50, 0)
    locator.writeBigUInt64LE(BigInt(offset + directory.length), 8)
    locator.writeUInt32LE(1, 16)
    ends.push(record, locator)
  }
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(options.zip64End === true ? 0xffff : members.length, 8)
  end.writeUInt16LE(options.zip64End === true ? 0xffff : members.length, 10)
  end.writeUInt32LE(options.zip64End === true ? 0xffffffff : directory.length, 12)
  end.writeUInt32LE(options.zip64End === true ? 0xffffffff : offset, 16)
  return Buffer.concat([Buffer.from(options.prefix ?? []), ...locals, directory, ...ends, end])
}
