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
import type { Permits } from "./permits.js"

let node: FileSystem.FileSystem | undefined

/**
 * Whether `fs`'s `operation` is Node's own: the layer's operations are module functions, the
 * same in every layer built, so a patient wrapper or a spread copy that kept it is recognised,
 * and one that replaced it (to count, inject faults, or stand in memory) is not.
 */
const isNodes = (fs: FileSystem.FileSystem, operation: "open" | "readDirectory" | "realPath" | "stat"): boolean => {
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

/**
 * `f`, to be called once, letting go of it when called. A callback handed to Node's `fs` is kept
 * with its finished request until the next full collection (the request's wrapper, its callback
 * set on it, counts as a root for young collections), and with it whatever the callback reaches:
 * were that the fiber, every read's whole result would be promoted by each young collection
 * (copied twice on the way) and found dead much later. The callbacks reach `f` only through this.
 */
const once = <A>(f: (value: A) => void): (value: A) => void => {
  let pending: ((value: A) => void) | undefined = f
  return (value) => {
    const call = pending
    pending = undefined
    call?.(value)
  }
}

/** The fiber's `resume` for Node's callbacks: succeeds once, then lets go of the fiber (see `once`). */
const resumeOnce = <A>(resume: (effect: Effect.Effect<A>) => void): (value: A) => void =>
  once((value: A) => resume(Effect.succeed(value)))

const nativeRealPath = (path: string): Effect.Effect<Option.Option<string>> =>
  Effect.async((resume) => {
    const done = resumeOnce(resume)
    try {
      realpath.native(path, (error, resolved) => done(error ? Option.none() : Option.some(resolved)))
    } catch {
      // Node refuses some paths before any system call (a NUL byte, from an archive member's
      // name): no such path, as the service's way says of it.
      done(Option.none())
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

/** What the descriptor said when looked at again, after the bytes were read. */
export interface Recheck {
  /** The descriptor's `stat` now (undefined when it failed). */
  readonly after: FileSystem.File.Info | undefined
  /** The last bytes of the read size, read again (undefined when they could not be). */
  readonly tail: Uint8Array | undefined
  /**
   * Whether the descriptor still holds the checked file at its real path: the kernel's name for
   * it (`/proc/self/fd`) is that path (a file renamed away, removed or replaced by a rename has
   * another name), or, where the kernel names none, the path is still real and leads to it.
   */
  readonly inPlace: boolean
  /** The path's `stat` now, when it was looked at (a path through a link, or not in place; undefined when it failed). */
  readonly atPath: FileSystem.File.Info | undefined
}

/** A small file read whole on Node's own filesystem (`readSmallChecked`). */
export interface Snapshot {
  /** The version the bytes are of: the path's `stat` just before the open. */
  readonly info: FileSystem.File.Info
  /** Exactly `info.size` bytes, from the start. */
  readonly bytes: Uint8Array
  /**
   * The descriptor looked at again (started as soon as the bytes were read; the descriptor is
   * closed after it, not waited for): `undefined` when it did not answer within `timeoutMillis`.
   */
  readonly recheck: Effect.Effect<Recheck | undefined>
}

const sameFile = (a: FileSystem.File.Info, b: FileSystem.File.Info): boolean =>
  a.dev === b.dev && Option.getOrUndefined(a.ino) === Option.getOrUndefined(b.ino)

/**
 * A small regular file, `before` its `stat` just now (after the access check on `real`), opened
 * and read whole in as few round trips as Node allows: `open`; its bytes (one more than `before`
 * says, to see growth); then at once, while the caller works on the bytes, the descriptor's
 * `fstat`, its last `tailBytes` again and the kernel's name for it (`/proc/self/fd`), and `close`
 * (not waited for). The name is looked at after the read, not at open: it vouches both that the
 * descriptor held the checked file (open-then-verify) and that the file was still there once its
 * bytes were read; the path is `stat`ed too only when it is not the real path or the name differs.
 * One runtime step per call, no fiber.
 *
 * `undefined` — nothing read, the descriptor closed — when `before` is not a small non-empty
 * regular file, the open fails, or the read fails or gives other than `before`'s size: the caller
 * then takes the general path, which tells each of those cases apart (and waits for a descriptor
 * at EMFILE). Whether the bytes are `before`'s version is the caller's to judge from the recheck.
 */
export const readSmallChecked = (
  absolute: string,
  real: string,
  before: FileSystem.File.Info,
  options: {
    readonly maxBytes: number
    readonly tailBytes: number
    readonly timeoutMillis: number
    /**
     * The open-files permits to hold one of while the descriptor is open (taken only if one is
     * free now, else `undefined`: the general path waits its turn), given back once it is closed.
     */
    readonly permits?: Permits
  }
): Effect.Effect<Snapshot | undefined> => {
  const size = Number(before.size)
  if (before.type !== "File" || size <= 0 || size > options.maxBytes) return Effect.succeed(undefined)
  const { permits } = options
  return Effect.async<Snapshot | undefined>((resume) => {
    const done = resumeOnce(resume)
    if (permits !== undefined && !permits.unsafeTryAcquire()) return done(undefined)
    const closing = (fd: number) => close(fd, () => permits?.unsafeRelease())
    let cancelled = false
    open(absolute, constants.O_RDONLY, (openError, fd) => {
      if (openError !== null) {
        permits?.unsafeRelease()
        return done(undefined)
      }
      // Let go of once read (the callbacks below outlive the read: see `once`).
      let buffer: Buffer | undefined = Buffer.allocUnsafe(size + 1)
      read(fd, buffer, 0, buffer.length, 0, (readError, count) => {
        const whole = buffer!
        buffer = undefined
        if (cancelled || readError !== null || count !== size) {
          closing(fd)
          return done(undefined)
        }
        const bytes = new Uint8Array(whole.buffer, whole.byteOffset, size)
        const tailLength = Math.min(options.tailBytes, size)
        const rechecked = new Promise<Recheck | undefined>((resolve) => {
          const answer = once(resolve)
          let pending = 3
          let after: FileSystem.File.Info | undefined
          let tail: Uint8Array | undefined
          let name: string | undefined
          const timer = setTimeout(() => answer(undefined), options.timeoutMillis)
          const finish = (inPlace: boolean, atPath: FileSystem.File.Info | undefined) => {
            clearTimeout(timer)
            closing(fd)
            answer({ after, tail, inPlace, atPath })
          }
          const one = () => {
            if (--pending > 0) return
            const named = name === real
            if (named && absolute === real) return finish(true, undefined)
            // Through a link, or the name differs: where the path leads now, and, with no name
            // from the kernel, whether the path is still real.
            let left = name === undefined ? 2 : 1
            let atPath: FileSystem.File.Info | undefined
            let stillReal = false
            const settle = () => {
              if (--left > 0) return
              const held = after !== undefined && atPath !== undefined && sameFile(after, atPath)
              finish(named || (name === undefined && stillReal && held), atPath)
            }
            stat(absolute, (error, now) => {
              if (error === null) atPath = fileInfoOf(now)
              settle()
            })
            if (name === undefined) {
              try {
                realpath.native(absolute, (error, resolved) => {
                  stillReal = error === null && resolved === real
                  settle()
                })
              } catch {
                settle()
              }
            }
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
          readlink(`/proc/self/fd/${fd}`, (error, link) => {
            if (error === null) name = link
            one()
          })
        })
        done({ info: before, bytes, recheck: Effect.promise(() => rechecked) })
      })
    })
    // Interrupted before the bytes were handed over: the descriptor is closed when its read ends.
    return Effect.sync(() => {
      cancelled = true
    })
  })
}

/** Where a path leads and what is there, asked at once: its real path and its `stat` (either undefined on failure). */
export interface Found {
  readonly real: string | undefined
  readonly info: FileSystem.File.Info | undefined
}

/** `realpath(3)` and `stat` of an absolute path, both at once: one runtime step, no fiber. */
export const findNative = (absolute: string): Effect.Effect<Found> =>
  Effect.async((resume) => {
    const done = resumeOnce(resume)
    let left = 2
    let real: string | undefined
    let info: FileSystem.File.Info | undefined
    const one = () => {
      if (--left === 0) done({ real, info })
    }
    try {
      realpath.native(absolute, (error, resolved) => {
        if (error === null) real = resolved
        one()
      })
    } catch {
      one()
    }
    try {
      stat(absolute, (error, found) => {
        if (error === null) info = fileInfoOf(found)
        one()
      })
    } catch {
      one()
    }
  })

/** Whether `fs` is Node's own for everything the lean read asks of it (`realPath`, `stat`, `open`). */
export const isNodeForLeanRead = (fs: FileSystem.FileSystem): boolean =>
  nativeAgrees && isNodes(fs, "open") && isNodes(fs, "realPath") && isNodes(fs, "stat")

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
    const done = resumeOnce(resume)
    readdir(path, { withFileTypes: true }, (error, entries) => {
      if (error !== null) return done(undefined)
      const names = new Array<string>(entries.length)
      const kinds = new Uint8Array(entries.length)
      for (let i = 0; i < entries.length; i++) {
        const entry = entries[i]!
        names[i] = entry.name
        kinds[i] = entry.isSymbolicLink() ? 2 : entry.isDirectory() ? 1 : 0
      }
      done({ names, kinds })
    })
  })
