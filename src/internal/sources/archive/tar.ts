/**
 * tar and tar.gz through tar-stream: one pass over the archive (gunzipped as it streams),
 * entries indexed as they pass, stopping as soon as the wanted member has been read. A
 * compressed stream may inflate to `maxInflatedBytes` at most.
 */
import { pipeline, Readable } from "node:stream"
import * as zlib from "node:zlib"
import * as tarStream from "tar-stream"
import { type ByteSource, Collector, type Content, type ScanResult } from "./content.js"
import { type ArchiveLimits, ArchiveFailure, EntryTable, messages, type RawEntry, SourceFailure } from "./model.js"

/** Bytes read from the archive file at once. */
export const TAR_CHUNK_BYTES = 64 * 1024

const specialKinds: Record<string, string> = {
  "character-device": "character device",
  "block-device": "block device",
  fifo: "named pipe (FIFO)"
}

const rawEntry = (header: tarStream.Header): RawEntry => {
  const type: string = header.type ?? "file"
  const kind = type === "file" || type === "contiguous-file"
    ? "file"
    : type === "directory"
    ? "directory"
    : type === "symlink" || type === "link"
    ? "link"
    : "special"
  const mtime = header.mtime instanceof Date ? header.mtime.getTime() : Number.NaN
  return {
    name: header.name,
    kind,
    size: kind === "file" ? header.size : 0,
    ...(Number.isFinite(mtime) ? { mtime } : {}),
    ...(kind === "link" && typeof header.linkname === "string" ? { linkTarget: header.linkname } : {}),
    ...(kind === "special" ? { special: specialKinds[type] ?? `${type} entry` } : {})
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

const describe = (error: unknown, gzip: boolean, last: string | undefined): Error => {
  if (error instanceof ArchiveFailure || error instanceof SourceFailure) return error
  const message = error instanceof Error ? error.message : String(error)
  const code = (error as { readonly code?: unknown }).code
  const kind = gzip ? "tar.gz" : "tar"
  if (typeof code === "string" && code.startsWith("Z_")) {
    return new ArchiveFailure(
      code === "Z_BUF_ERROR" || /unexpected end/i.test(message)
        ? `Invalid ${kind} archive: the compressed data is truncated (${message})`
        : `Invalid ${kind} archive: corrupt compressed data (${message})`
    )
  }
  if (/Invalid tar header|unknown format|Invalid header/i.test(message)) {
    return new ArchiveFailure(
      last === undefined
        ? `Invalid ${kind} archive: the data does not start with a tar header (not a tar archive, or corrupt)`
        : `Invalid ${kind} archive: corrupt header after '${last}'`
    )
  }
  if (/Unexpected end of data/i.test(message)) {
    return new ArchiveFailure(
      `Invalid ${kind} archive: truncated${last === undefined ? "" : ` (the data ends in or after '${last}')`}`
    )
  }
  return new ArchiveFailure(`Invalid ${kind} archive: ${message}`)
}

/**
 * Stream the archive once: index entries, and read the first entry whose path is in
 * `wanted` and is a regular file, then stop. Without a match the whole archive is indexed.
 */
export const scanTar = (
  source: ByteSource,
  gzip: boolean,
  wanted: ReadonlyArray<string>,
  limits: ArchiveLimits,
  signal: AbortSignal
): Promise<ScanResult> =>
  new Promise<ScanResult>((resolve, reject) => {
    const table = new EntryTable(limits.maxEntries)
    const counter = { fed: 0 }
    let inflated = 0
    let last: string | undefined
    let settled = false

    const input = Readable.from(chunksOf(source, counter), { objectMode: false })
    const bytes: Readable = gzip ? pipeline(input, zlib.createGunzip(), () => {}) : input
    // Old (v7) headers have no `ustar` magic; their checksum is still verified.
    const extract = tarStream.extract({ allowUnknownFormat: true } as Parameters<typeof tarStream.extract>[0])

    const settle = (outcome: () => void) => {
      if (settled) return
      settled = true
      signal.removeEventListener("abort", onAbort)
      bytes.destroy()
      input.destroy()
      extract.destroy()
      outcome()
    }
    const fail = (error: unknown) => settle(() => reject(describe(error, gzip, last)))
    const onAbort = () => fail(new ArchiveFailure("Interrupted"))
    signal.addEventListener("abort", onAbort)

    extract.on("entry", (header, stream, next) => {
      // Destroying the extractor (truncation, or after the member) errors its open entry.
      stream.on("error", () => {})
      const raw = rawEntry(header)
      const path = table.add(raw)
      last = raw.name
      // No data follows a directory header whatever its size field says (POSIX; CPython's
      // testtar.tar has one with size 255), and tar-stream's stream for such an entry waits for
      // those bytes forever: never wait on it.
      if (header.type === "directory") return next()
      if (path === undefined || raw.kind !== "file" || !wanted.includes(path)) {
        stream.on("end", () => next())
        stream.resume()
        return
      }
      if (raw.size > limits.maxMemberBytes) {
        return fail(new ArchiveFailure(messages.tooLarge(path, raw.size, limits), path))
      }
      const start = counter.fed
      const collector = new Collector({
        member: path,
        declaredSize: raw.size,
        limits,
        // What was fed to gunzip since the member began, plus one read of slack: gunzip
        // buffers ahead, so this errs towards more compressed bytes (fewer false alarms).
        compressed: () => (gzip ? counter.fed - start + TAR_CHUNK_BYTES : undefined)
      })
      const found = (content: Content) =>
        settle(() => resolve({ table, complete: false, found: { path, entry: raw, content } }))
      stream.on("data", (chunk: unknown) => {
        if (settled) return
        try {
          if (collector.push(chunk as Uint8Array) === "binary") found({ _tag: "Binary" })
        } catch (error) {
          fail(error)
        }
      })
      stream.on("end", () => {
        if (!settled) found(collector.end())
      })
    })
    extract.on("error", fail)
    extract.on("finish", () => settle(() => resolve({ table, complete: true })))

    const drained = () =>
      new Promise<void>((done) => {
        const finish = () => {
          extract.off("drain", finish)
          extract.off("close", finish)
          done()
        }
        extract.on("drain", finish)
        extract.on("close", finish)
      })

    const feed = async () => {
      for await (const chunk of bytes as AsyncIterable<Buffer>) {
        if (settled) return
        inflated += chunk.length
        if (gzip && inflated > limits.maxInflatedBytes) return fail(new ArchiveFailure(messages.streamBomb(limits)))
        if (!extract.write(chunk)) await drained()
      }
      if (!settled) extract.end(undefined)
    }
    feed().catch((error: unknown) => {
      if (!settled) fail(error)
    })
  })

/** gzip data starts with 1f 8b. */
export const isGzip = (head: Uint8Array): boolean => head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b
