/**
 * Shortcuts taken where the `FileSystem` in context does what `@effect/platform-node`'s does
 * (made patient or not): its descriptors are the kernel's, and Node's native calls answer as it
 * would in fewer thread-pool round trips. An operation replaced by another filesystem (in
 * memory, fault-injecting, counting) goes the service's way.
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { close, constants, fstat, open, read, readdir, readlink, realpath, stat, type Stats } from "node:fs"
import { unwrapPatient } from "./descriptors.js"

let node: FileSystem.FileSystem | undefined

/**
 * Whether `fs`'s `operation` is Node's own: the layer's operations are module functions, the
 * same in every layer built, so a patient wrapper or a spread copy that kept it is recognised,
 * and one that replaced it (to count, inject faults, or stand in memory) is not.
 */
const isNodes = (fs: FileSystem.FileSystem, operation: "open" | "readDirectory" | "realPath"): boolean => {
  node ??= Effect.runSync(Effect.provide(FileSystem.FileSystem, NodeFileSystem.layer))
  return unwrapPatient(fs)[operation] === node[operation]
}

/** Whether `fs` lists directories as Node does (so Node's own directory walk may stand in for it). */
export const isNodeFileSystem = (fs: FileSystem.FileSystem): boolean => isNodes(fs, "readDirectory")

/** Whether the descriptors `fs` opens are the kernel's (so `/proc/self/fd` names what they hold). */
export const opensKernelDescriptors = (fs: FileSystem.FileSystem): boolean => isNodes(fs, "open")

// Windows' native real path (`GetFinalPathNameByHandle`) resolves subst drives and mapped shares
// to their targets, where the JavaScript one keeps them, and is not tested here: there, the
// service's way.
const nativeAgrees = process.platform !== "win32"

const nativeRealPath = (path: string): Effect.Effect<Option.Option<string>> =>
  Effect.async((resume) => {
    try {
      realpath.native(path, (error, resolved) => resume(Effect.succeed(error ? Option.none() : Option.some(resolved))))
    } catch {
      // Node refuses some paths before any system call (a NUL byte, from an archive member's
      // name): no such path, as the service's way says of it.
      resume(Effect.succeed(Option.none()))
    }
  })

/**
 * The real path of an absolute, normalised `path`, or none when it cannot be resolved. On Node's
 * filesystem one `realpath(3)` call: the service's `realPath` is Node's JavaScript `realpath`,
 * which `lstat`s every component of the path in turn (five round trips for `/a/b/c/d/e`).
 */
export const realPathOf = (fs: FileSystem.FileSystem, path: string): Effect.Effect<Option.Option<string>> =>
  isNodes(fs, "realPath") && nativeAgrees ? nativeRealPath(path) : Effect.option(fs.realPath(path))

/** `stat` as the platform's Node layer reports it (`@effect/platform-node`'s own conversion). */
export const fileInfoOf = (stats: Stats): FileSystem.File.Info => ({
  type: stats.isFile()
    ? "File"
    : stats.isDirectory()
    ? "Directory"
    : stats.isSymbolicLink()
    ? "SymbolicLink"
    : stats.isBlockDevice()
    ? "BlockDevice"
    : stats.isCharacterDevice()
    ? "CharacterDevice"
    : stats.isFIFO()
    ? "FIFO"
    : stats.isSocket()
    ? "Socket"
    : "Unknown",
  mtime: Option.fromNullable(stats.mtime),
  atime: Option.fromNullable(stats.atime),
  birthtime: Option.fromNullable(stats.birthtime),
  dev: stats.dev,
  rdev: Option.fromNullable(stats.rdev),
  ino: Option.fromNullable(stats.ino),
  mode: stats.mode,
  nlink: Option.fromNullable(stats.nlink),
  uid: Option.fromNullable(stats.uid),
  gid: Option.fromNullable(stats.gid),
  size: FileSystem.Size(stats.size),
  blksize: Option.map(Option.fromNullable(stats.blksize), FileSystem.Size),
  blocks: Option.fromNullable(stats.blocks)
})

/** What the descriptor and the path said when looked at again, after the bytes were read. */
export interface Recheck {
  /** The descriptor's `stat` now (undefined when it failed). */
  readonly after: FileSystem.File.Info | undefined
  /** The last bytes of the opened size, read again (undefined when they could not be). */
  readonly tail: Uint8Array | undefined
  /** The path's `stat` now (undefined when it failed: removed, or unreadable). */
  readonly atPath: FileSystem.File.Info | undefined
}

/** A small file read whole at open, on Node's own filesystem (`readSmallChecked`). */
export interface Snapshot {
  /** The descriptor's `stat` at open: the version the bytes are of. */
  readonly info: FileSystem.File.Info
  /** Exactly `info.size` bytes, from the start. */
  readonly bytes: Uint8Array
  /**
   * The descriptor and the path looked at again (started as soon as the bytes were read; the
   * descriptor is closed after it): `undefined` when they did not answer within `timeoutMillis`.
   */
  readonly recheck: Effect.Effect<Recheck | undefined>
}

/**
 * A small regular file opened, confirmed and read whole in as few round trips as Node allows:
 * `open`; then at once the descriptor's `fstat`, the kernel's name for it (`/proc/self/fd`) and
 * its bytes; then at once, while the caller works on the bytes, its `fstat` again, its last
 * `tailBytes` again and the path's `stat`, and `close`. One runtime step per batch, no fiber.
 *
 * `undefined` whenever anything is not as expected — an error, no kernel name, a name other than
 * `real` (a link swapped in), not a regular file, empty, larger than `maxBytes`, fewer bytes than
 * its size — with the descriptor closed: the caller then takes the general path, which
 * tells each of those cases apart (and waits for a descriptor at EMFILE).
 */
export const readSmallChecked = (
  absolute: string,
  real: string,
  options: {
    readonly maxBytes: number
    /** The size a `stat` just saw: the buffer holds that and one byte more (a file grown past it goes the general way). */
    readonly expected?: number
    readonly tailBytes: number
    readonly timeoutMillis: number
  }
): Effect.Effect<Snapshot | undefined> =>
  Effect.async<Snapshot | undefined>((resume) => {
    let cancelled = false
    open(absolute, constants.O_RDONLY, (openError, fd) => {
      if (openError !== null) return resume(Effect.succeed(undefined))
      const buffer = Buffer.allocUnsafe(Math.min(options.expected ?? options.maxBytes, options.maxBytes) + 1)
      let left = 3
      let stats: Stats | undefined
      let name: string | undefined
      let count = -1
      const settled = () => {
        if (--left > 0) return
        const size = stats?.size ?? -1
        const fits = stats !== undefined && stats.isFile() && name === real && size > 0 && size <= options.maxBytes &&
          size < buffer.length && count >= size
        if (cancelled || !fits) {
          close(fd, () => {})
          return resume(Effect.succeed(undefined))
        }
        const info = fileInfoOf(stats!)
        // Appended after the open: not this version's bytes.
        const bytes = new Uint8Array(buffer.buffer, buffer.byteOffset, size)
        const tailLength = Math.min(options.tailBytes, size)
        const rechecked = new Promise<Recheck | undefined>((done) => {
          let pending = 3
          let after: FileSystem.File.Info | undefined
          let tail: Uint8Array | undefined
          let atPath: FileSystem.File.Info | undefined
          const timer = setTimeout(() => done(undefined), options.timeoutMillis)
          const one = () => {
            if (--pending > 0) return
            clearTimeout(timer)
            close(fd, () => done({ after, tail, atPath }))
          }
          fstat(fd, (error, now) => {
            if (error === null) after = fileInfoOf(now)
            one()
          })
          const again = Buffer.allocUnsafe(tailLength)
          read(fd, again, 0, tailLength, size - tailLength, (error, n) => {
            if (error === null && n === tailLength) tail = again
            one()
          })
          stat(absolute, (error, now) => {
            if (error === null) atPath = fileInfoOf(now)
            one()
          })
        })
        resume(Effect.succeed({ info, bytes, recheck: Effect.promise(() => rechecked) }))
      }
      fstat(fd, (error, found) => {
        if (error === null) stats = found
        settled()
      })
      readlink(`/proc/self/fd/${fd}`, (error, link) => {
        if (error === null) name = link
        settled()
      })
      read(fd, buffer, 0, buffer.length, 0, (error, n) => {
        if (error === null) count = n
        settled()
      })
    })
    // Interrupted before the bytes were handed over: the descriptor is closed when its calls end.
    return Effect.sync(() => {
      cancelled = true
    })
  })

/** A directory's entries as `listKinds` gives them: names, and what each entry says it is. */
export interface Kinds {
  readonly names: ReadonlyArray<string>
  /** Per name: `1` a directory, `0` anything else but a link, `2` a link (what it leads to needs a `stat`). */
  readonly kinds: Uint8Array
}

/**
 * A directory's names, each with what its entry says it is (`d_type`; Node `lstat`s an entry the
 * filesystem leaves untyped). One call, no `stat` per entry. `undefined` on any error: the caller
 * lists it the service's way, which reports the error (and waits for a descriptor at EMFILE).
 */
export const listKinds = (path: string): Effect.Effect<Kinds | undefined> =>
  Effect.async((resume) => {
    readdir(path, { withFileTypes: true }, (error, entries) => {
      if (error !== null) return resume(Effect.succeed(undefined))
      const names = new Array<string>(entries.length)
      const kinds = new Uint8Array(entries.length)
      for (let i = 0; i < entries.length; i++) {
        const entry = entries[i]!
        names[i] = entry.name
        kinds[i] = entry.isSymbolicLink() ? 2 : entry.isDirectory() ? 1 : 0
      }
      resume(Effect.succeed({ names, kinds }))
    })
  })
