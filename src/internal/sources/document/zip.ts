/**
 * Zip containers of office documents and books (.docx .xlsx .pptx .odt .epub), read from bytes
 * already in memory with yauzl. Declared sizes are checked against the caps before anything is
 * inflated, and yauzl refuses an entry that inflates past its declared size, so a lying header
 * cannot turn a small file into gigabytes.
 */
import * as yauzl from "yauzl"
import { decodeText } from "../../core/encoding.js"
import { formatBytes } from "../../core/format.js"
import { Unconvertible } from "./failure.js"
import { MAX_UNPACKED_BYTES, MAX_ZIP_ENTRIES } from "./limits.js"

/** OLE compound documents: encrypted OOXML and the legacy binary Office formats. */
const CFB_MAGIC = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]

export interface Zip {
  /** Entry names (files only), in archive order. */
  readonly names: ReadonlyArray<string>
  readonly has: (name: string) => boolean
  /** The inflated bytes of an entry; fails on a missing or encrypted entry. */
  readonly read: (name: string) => Promise<Buffer>
  /** The entry as text (UTF-8, or UTF-16 with a byte-order mark). */
  readonly text: (name: string) => Promise<string>
  /** Inflate every entry once, discarding the bytes: proves the sizes before another library reads them. */
  readonly verify: () => Promise<void>
  readonly close: () => void
}

const isCfb = (bytes: Uint8Array): boolean => CFB_MAGIC.every((byte, i) => bytes[i] === byte)

const fromBuffer = (bytes: Buffer) =>
  new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.fromBuffer(
      bytes,
      { lazyEntries: true, autoClose: false, decodeStrings: true, validateEntrySizes: true, strictFileNames: false },
      (error, zipfile) => (error ? reject(error) : resolve(zipfile))
    )
  )

const entriesOf = (zipfile: yauzl.ZipFile, format: string) =>
  new Promise<Array<yauzl.Entry>>((resolve, reject) => {
    const entries: Array<yauzl.Entry> = []
    zipfile.on("entry", (entry: yauzl.Entry) => {
      if (entries.length >= MAX_ZIP_ENTRIES) {
        reject(new Unconvertible(`the ${format} archive has more than ${MAX_ZIP_ENTRIES} entries`))
        zipfile.close()
        return
      }
      entries.push(entry)
      zipfile.readEntry()
    })
    zipfile.on("end", () => resolve(entries))
    zipfile.on("error", reject)
    zipfile.readEntry()
  })

const inflate = (zipfile: yauzl.ZipFile, entry: yauzl.Entry, keep: boolean) =>
  new Promise<Buffer>((resolve, reject) => {
    zipfile.openReadStream(entry, (error, stream) => {
      if (error) return reject(error)
      const chunks: Array<Buffer> = []
      stream.on("data", (chunk: Buffer) => {
        if (keep) chunks.push(chunk)
      })
      stream.on("end", () => resolve(Buffer.concat(chunks)))
      stream.on("error", reject)
    })
  })

/** Open `bytes` as the zip container of a `format` document (e.g. "docx"). */
export const openZip = async (bytes: Buffer, format: string): Promise<Zip> => {
  if (isCfb(bytes)) {
    throw new Unconvertible(
      `the file is an OLE compound document, not a ${format} (zip) package: either a password-protected (encrypted) Office file, which cannot be converted, or a legacy binary format such as .doc, .xls or .ppt`
    )
  }
  let zipfile: yauzl.ZipFile
  try {
    zipfile = await fromBuffer(bytes)
  } catch (error) {
    throw new Unconvertible(
      `not a valid ${format} file: it is not a readable zip archive (${
        error instanceof Error ? error.message : String(error)
      })`
    )
  }
  let entries: Array<yauzl.Entry>
  try {
    entries = await entriesOf(zipfile, format)
  } catch (error) {
    zipfile.close()
    throw error instanceof Unconvertible
      ? error
      : new Unconvertible(
        `not a valid ${format} file: corrupt zip archive (${error instanceof Error ? error.message : String(error)})`
      )
  }
  const files = entries.filter((entry) => !entry.fileName.endsWith("/"))
  const unpacked = files.reduce((sum, entry) => sum + entry.uncompressedSize, 0)
  if (unpacked > MAX_UNPACKED_BYTES) {
    zipfile.close()
    throw new Unconvertible(
      `the ${format} package would unpack to ${formatBytes(unpacked)}, over the ${
        formatBytes(MAX_UNPACKED_BYTES)
      } limit for conversion`
    )
  }
  const byName = new Map(files.map((entry) => [entry.fileName, entry] as const))
  const entryOf = (name: string) => {
    const entry = byName.get(name)
    if (entry === undefined) throw new Unconvertible(`not a valid ${format} file: the package has no ${name}`)
    if (entry.isEncrypted()) {
      throw new Unconvertible(`the ${format} package is encrypted (${name}); it cannot be converted`)
    }
    return entry
  }
  const read = async (name: string) => {
    const entry = entryOf(name)
    try {
      return await inflate(zipfile, entry, true)
    } catch (error) {
      throw new Unconvertible(
        `corrupt ${format} package: cannot inflate ${name} (${error instanceof Error ? error.message : String(error)})`
      )
    }
  }
  return {
    names: files.map((entry) => entry.fileName),
    has: (name) => byName.has(name),
    read,
    text: async (name) => decodeText(await read(name)),
    verify: async () => {
      for (const entry of files) {
        entryOf(entry.fileName)
        try {
          await inflate(zipfile, entry, false)
        } catch (error) {
          throw new Unconvertible(
            `corrupt ${format} package: cannot inflate ${entry.fileName} (${
              error instanceof Error ? error.message : String(error)
            })`
          )
        }
      }
    },
    close: () => zipfile.close()
  }
}

/** Resolve a package-relative `target` (`../media/a.png`, `/ppt/slides/slide1.xml`) against the part `from`. */
export const resolvePart = (from: string, target: string): string => {
  if (target.startsWith("/")) return target.slice(1)
  const parts = from.split("/").slice(0, -1)
  for (const segment of target.split("/")) {
    if (segment === "..") parts.pop()
    else if (segment !== "." && segment !== "") parts.push(segment)
  }
  return parts.join("/")
}
