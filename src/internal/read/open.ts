/**
 * Opening a checked file for a read, and vouching for what was read: the descriptor must hold the
 * file that was checked (`openCheckedAt`), and every byte must come from the version that was
 * opened (`confirmUnchanged`). Small files are read whole at open, and files that report size 0
 * (`/proc`, `/sys`, some FUSE files) are read to their end, up to a cap: a read of either pages a
 * snapshot in memory, and the ledger stamps it from those bytes (`Opened.whole`).
 */
import { SystemError } from "@effect/platform/Error"
import type { File } from "@effect/platform/FileSystem"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { ReadBytes } from "../../FileTime.js"
import { FileChanged, formatBytes, ReadFailed } from "../../ReadError.js"
import { SAMPLE_BYTES } from "../core/binary.js"
import { readHead } from "../io/bytes.js"
import {
  opensKernelDescriptors,
  readSmallChecked,
  realPathOf,
  type Recheck,
  type Snapshot
} from "../io/nodeFileSystem.js"
import * as Permits from "../io/permits.js"
import { fromPlatformError } from "../io/platformError.js"
import { CONTENT_SNIFF_BYTES, realPathOfNearest, type Target, textOf } from "./access.js"

const sameIdentity = (a: FileSystem.File.Info, b: FileSystem.File.Info): boolean =>
  a.dev === b.dev && Option.getOrUndefined(a.ino) === Option.getOrUndefined(b.ino)

/**
 * Open a checked target and confirm the descriptor holds the file that was checked: where the
 * kernel names what a descriptor holds (`/proc/self/fd`, Linux), that name must be the checked
 * real path; elsewhere (other systems, an in-memory filesystem) the descriptor's device and
 * inode must be those of the checked real path. A link swapped in between the check and the
 * open is caught either way and fails closed with `FileChanged`. Also returns the descriptor's
 * `stat` at open: the version every byte of the read must come from.
 */
export const openCheckedAt = Effect.fn("Read.openChecked", { captureStackTrace: false })(function*(target: Target) {
  const fs = yield* FileSystem.FileSystem
  const failed = (error: Parameters<typeof fromPlatformError>[1]) => fromPlatformError(target.absolute, error)
  const file = yield* fs.open(target.absolute, { flag: "r" }).pipe(Effect.mapError(failed))
  const checked = target.real
  const info = yield* file.stat.pipe(Effect.mapError(failed))
  if (checked === undefined) return { file, info }
  const named = yield* fs.readLink(`/proc/self/fd/${file.fd}`).pipe(Effect.option)
  const swapped = () =>
    new FileChanged({
      path: target.absolute,
      detail: "it was replaced between the permission check and opening it"
    })
  // A descriptor number of another filesystem layer (in-memory) names some other file here:
  // the kernel's name counts only when that file is the one the descriptor holds (Node's own
  // descriptors are the kernel's).
  const kernelName = Option.isSome(named) && (opensKernelDescriptors(fs) || (yield* fs.stat(named.value).pipe(
      Effect.map((found) => sameIdentity(found, info)),
      Effect.orElseSucceed(() => false)
    )))
    ? named.value
    : undefined
  if (kernelName !== undefined) {
    if (kernelName !== checked) return yield* swapped()
    return { file, info }
  }
  // The checked path must still be real (no link swapped in on the way) and hold that file.
  const real = Option.getOrUndefined(yield* realPathOf(fs, checked))
  const now = yield* fs.stat(checked).pipe(Effect.orElseSucceed(() => undefined))
  if (real !== checked || now === undefined || !sameIdentity(now, info)) return yield* swapped()
  return { file, info }
})

/** `openCheckedAt`, for callers that need only the descriptor. */
export const openChecked = (target: Target) => Effect.map(openCheckedAt(target), ({ file }) => file)

/**
 * After listing a checked directory: its real path must still be the one checked, or a link
 * was swapped in and the names listed may be another directory's.
 */
export const confirmDirectory = Effect.fn("Read.confirmDirectory")(function*(target: Target) {
  if (target.real === undefined) return
  const now = yield* realPathOfNearest(target.absolute)
  if (now !== target.real) {
    return yield* new FileChanged({
      path: target.absolute,
      detail: "it was replaced by a link while it was being listed"
    })
  }
})

/**
 * The first `size` bytes of an open file, from its start (callers cap the size first): the bytes
 * it had when opened; fewer means it shrank (`endedEarly`), appended ones are not read.
 */
export const readAllFrom = (file: FileSystem.File, target: Target, size: number) =>
  Effect.gen(function*() {
    const failed = (error: Parameters<typeof fromPlatformError>[1]) => fromPlatformError(target.absolute, error)
    yield* file.seek(0, "start")
    const chunks: Array<Uint8Array> = []
    let total = 0
    while (total < size) {
      const chunk = yield* file.readAlloc(Math.min(256 * 1024, size - total)).pipe(Effect.mapError(failed))
      if (Option.isNone(chunk) || chunk.value.length === 0) {
        yield* endedEarly(file, target, size)
        break
      }
      chunks.push(chunk.value)
      total += chunk.value.length
    }
    const bytes = new Uint8Array(total)
    let at = 0
    for (const chunk of chunks) {
      bytes.set(chunk, at)
      at += chunk.length
    }
    return bytes
  })

/** The whole of a checked file (callers cap its size first), read from the checked descriptor. */
export const readChecked = (target: Target) =>
  Effect.scoped(Effect.gen(function*() {
    const { file, info: before } = yield* openCheckedAt(target)
    const size = Number(before.size)
    const tail = yield* tailOf(file, size)
    return yield* confirmUnchanged(file, target, before, readAllFrom(file, target, size), {
      before: tail,
      again: tailOf(file, size)
    })
  }))

/** How many of the opened version's last bytes `confirmUnchanged` compares. */
export const TAIL_BYTES = 4096

/**
 * The last bytes of the first `size` bytes of a file (undefined if they cannot be read): an
 * append leaves them as they were, a rewrite almost never does. Moves the file's position.
 */
export const tailOf = (file: FileSystem.File, size: number): Effect.Effect<Uint8Array | undefined> =>
  Effect.gen(function*() {
    if (size === 0) return undefined
    const length = Math.min(TAIL_BYTES, size)
    yield* file.seek(size - length, "start")
    return yield* readHead(file, length)
  }).pipe(Effect.orElseSucceed(() => undefined))

/**
 * The file ended before the size it had when it was opened: it shrank under the read
 * (`FileChanged`), unless it still reports that size, as `/sys` files (always 4096) and some
 * FUSE files do: then its end is where the bytes end.
 */
export const endedEarly = (file: FileSystem.File, target: Target, size: number) =>
  Effect.flatMap(file.stat.pipe(Effect.option), (now) =>
    Option.isSome(now) && Number(now.value.size) >= size
      ? Effect.void
      : Effect.fail(
        new FileChanged({
          path: target.absolute,
          detail: `it shrank while it was being read (${formatBytes(size)} → ${
            Option.match(now, { onNone: () => "less", onSome: (info) => formatBytes(Number(info.size)) })
          })`
        })
      ))

/**
 * What changed in an open file between its `stat` at open (`before`) and after its read
 * (`after`, undefined when that `stat` failed), told by sizes, mtimes and its old last bytes
 * (`tailBefore` at open, `tailNow` read again; `tailed`: the caller compares them): a shrink, a
 * rewrite in place, a growth that may not be an append. Undefined when none of them shows.
 */
export const versionChange = (
  before: FileSystem.File.Info,
  after: FileSystem.File.Info | undefined,
  tailBefore: Uint8Array | undefined,
  tailNow: Uint8Array | undefined,
  tailed: boolean
): string | undefined => {
  // Its old end changed: a rewrite (also told when the descriptor's stat fails).
  const rewritten = tailBefore !== undefined && tailNow !== undefined && Buffer.compare(tailBefore, tailNow) !== 0
  if (after === undefined) return rewritten ? "it was rewritten while it was being read" : undefined
  const size = Number(before.size)
  const sizeNow = Number(after.size)
  if (sizeNow < size) return `it shrank while it was being read (${formatBytes(size)} → ${formatBytes(sizeNow)})`
  const mtime = Option.getOrUndefined(Option.map(before.mtime, (date) => date.getTime()))
  const mtimeNow = Option.getOrUndefined(Option.map(after.mtime, (date) => date.getTime()))
  if (sizeNow === size && mtime !== mtimeNow) return "it was rewritten while it was being read"
  // A rewrite that grew the file, or one within the same mtime tick: the old end changed.
  // It grew, and its old end could not be read at open or again now: an append cannot be told
  // from a rewrite that grew it.
  if (sizeNow > size && size > 0 && tailed && (tailBefore === undefined || tailNow === undefined)) {
    return `it grew while it was being read (${formatBytes(size)} → ${formatBytes(sizeNow)})`
  }
  if (rewritten) {
    return sizeNow > size
      ? `it was rewritten while it was being read (${formatBytes(size)} → ${formatBytes(sizeNow)})`
      : "it was rewritten while it was being read"
  }
  return undefined
}

/** Whether the path still leads to the open file (`now`, its `stat` after the read): `atPath` is the path's `stat`. */
export const placeChange = (now: FileSystem.File.Info, atPath: FileSystem.File.Info | undefined): string | undefined =>
  atPath === undefined
    ? "it was removed while it was being read"
    : !sameIdentity(atPath, now)
    ? "it was replaced while it was being read"
    : undefined

/**
 * Run `use`, then confirm the open file is still the version it was (`before`, its `stat` at
 * open): not shrunk, not rewritten in place (same size, new mtime; or its last bytes changed),
 * and still the file at its path (not replaced by a rename). A change fails with `FileChanged`
 * whatever `use` returned, so no answer mixes two versions or claims an end it did not reach.
 * Growth that left the old bytes in place is an append: the read is an honest snapshot of the
 * bytes that were there when it was opened; `tail` (the last bytes at open, see `tailOf`, and
 * how to read them again) tells it from a rewrite that grew the file or kept its mtime.
 */
export const confirmUnchanged = <A, E, R>(
  file: FileSystem.File,
  target: Target,
  before: FileSystem.File.Info,
  use: Effect.Effect<A, E, R>,
  tail?: {
    readonly before: Uint8Array | undefined
    readonly again: Effect.Effect<Uint8Array | undefined, never, R>
  }
): Effect.Effect<A, E | FileChanged, R | FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const result = yield* Effect.either(use)
    const checking = Effect.gen(function*() {
      const after = yield* file.stat.pipe(Effect.option)
      const tailNow = tail?.before === undefined ? undefined : yield* tail.again
      const changed = versionChange(before, Option.getOrUndefined(after), tail?.before, tailNow, tail !== undefined)
      if (changed !== undefined || Option.isNone(after)) return changed
      return placeChange(after.value, Option.getOrUndefined(yield* fs.stat(target.absolute).pipe(Effect.option)))
    })
    // A file that stops answering (a hung mount) must not hang the read after its answer.
    const checked = yield* Effect.timeoutOption(checking, CONFIRM_TIMEOUT)
    if (Option.isNone(checked)) {
      // A failure stands as it is; a success cannot be vouched for.
      if (result._tag === "Left") return yield* result
      return yield* new FileChanged({
        path: target.absolute,
        detail: "it stopped answering while it was checked for changes"
      })
    }
    const detail = checked.value
    if (detail !== undefined) return yield* new FileChanged({ path: target.absolute, detail })
    return yield* result
  })

/** How long `confirmUnchanged` waits for the file to answer its checks. */
const CONFIRM_TIMEOUT_MILLIS = 5000
const CONFIRM_TIMEOUT = Duration.millis(CONFIRM_TIMEOUT_MILLIS)

/**
 * Run `use`, which reads `target` its own way (SQLite opens it by path), holding the file open
 * meanwhile: the answer is `FileChanged` when the file opened is not the version `info`
 * describes (it changed since it was looked at), or when it changes before `use` is done.
 */
export const whileUnchanged = <A, E, R>(target: Target, info: FileSystem.File.Info, use: Effect.Effect<A, E, R>) =>
  Effect.scoped(Effect.gen(function*() {
    const { file, info: opened } = yield* openCheckedAt(target)
    const time = (i: FileSystem.File.Info) => Option.getOrUndefined(Option.map(i.mtime, (date) => date.getTime()))
    if (!sameIdentity(info, opened) || Number(info.size) !== Number(opened.size) || time(info) !== time(opened)) {
      const [was, is] = [Number(info.size), Number(opened.size)]
      return yield* new FileChanged({
        path: target.absolute,
        detail: `it changed while it was being read${was === is ? "" : ` (${formatBytes(was)} → ${formatBytes(is)})`}`
      })
    }
    const size = Number(opened.size)
    return yield* confirmUnchanged(file, target, opened, use, {
      before: yield* tailOf(file, size),
      again: tailOf(file, size)
    })
  }))

/** The most a file that reports size 0 is read to: it has no size to page by. */
export const MAX_UNSIZED_BYTES = 8 * 1024 * 1024

/** What a file that reports size 0 holds: nothing, its bytes, or a refusal past the cap. */
export const readUnsized = (file: FileSystem.File, target: Target) =>
  Effect.gen(function*() {
    const bytes = yield* readHead(file, MAX_UNSIZED_BYTES + 1).pipe(
      Effect.mapError((e) => fromPlatformError(target.absolute, e))
    )
    if (bytes.length > MAX_UNSIZED_BYTES) {
      return yield* new ReadFailed({
        path: target.absolute,
        reason: `it reports a size of 0 bytes but holds more than ${
          formatBytes(MAX_UNSIZED_BYTES)
        }, too much to read without a size to page by`,
        code: "EFBIG"
      })
    }
    return bytes.length === 0 ? undefined : bytes.slice()
  })

/** Files up to this size are read whole, once, when they are opened (see `readWhole`). */
export const SMALL_FILE_BYTES = 64 * 1024

/**
 * The first `size` bytes of a small file, from its current position, so that its sample, the
 * look past an ASCII start, its page and its last byte come from memory instead of one read call
 * each. Fewer bytes only when its end came early and it still reports that size (`endedEarly`).
 */
export const readWhole = (file: FileSystem.File, target: Target, size: number) =>
  Effect.gen(function*() {
    const bytes = yield* readHead(file, size).pipe(Effect.mapError((e) => fromPlatformError(target.absolute, e)))
    if (bytes.length < size) yield* endedEarly(file, target, size)
    return bytes
  })

/**
 * Where a snapshot `File` keeps its bytes: on the object itself, not in a table keyed by it (such
 * a table keeps for good the room its busiest moment needed: thousands of entries).
 */
const SnapshotBytes: unique symbol = Symbol("effect-read/SnapshotBytes")

interface SnapshotFile extends FileSystem.File {
  readonly [SnapshotBytes]?: Uint8Array
}

/**
 * The bytes a snapshot `File` (`snapshotFile`) reads from, for a reader that can take them in
 * place instead of copying them out a read at a time; undefined for any other file.
 */
export const snapshotBytes = (file: FileSystem.File): Uint8Array | undefined => (file as SnapshotFile)[SnapshotBytes]

/** A read-only `File` over bytes already read: the snapshot of a small file, or of one that reports size 0. */
export const snapshotFile = (bytes: Uint8Array, info: File.Info): FileSystem.File => {
  let position = 0
  const readOnly = (method: string) =>
    Effect.fail(
      new SystemError({ reason: "BadResource", module: "FileSystem", method, description: "a read-only snapshot" })
    )
  const read = (buffer: Uint8Array) =>
    Effect.sync(() => {
      const n = Math.max(0, Math.min(buffer.length, bytes.length - position))
      buffer.set(bytes.subarray(position, position + n))
      position += n
      return FileSystem.Size(n)
    })
  const file: SnapshotFile = {
    [FileSystem.FileTypeId]: FileSystem.FileTypeId,
    fd: FileSystem.FileDescriptor(-1),
    stat: Effect.succeed({ ...info, size: FileSystem.Size(bytes.length) }),
    seek: (offset, from) =>
      Effect.sync(() => {
        position = from === "start" ? Number(offset) : position + Number(offset)
      }),
    sync: Effect.void,
    read,
    readAlloc: (size) =>
      Effect.sync(() => {
        const n = Math.max(0, Math.min(Number(size), bytes.length - position))
        position += n
        return n === 0 ? Option.none() : Option.some(bytes.slice(position - n, position))
      }),
    truncate: () => readOnly("truncate"),
    write: () => readOnly("write"),
    writeAll: () => readOnly("writeAll")
  }
  // Not enumerable: a wrapper made by spreading the file (to change how it reads) is not a snapshot.
  return Object.defineProperty(file, SnapshotBytes, { value: bytes })
}

/**
 * Files open at once across all reads: a thousand concurrent reads must not exhaust descriptors.
 * FIFO hand-off, so waiting reads cost linear time (see io/permits.ts).
 */
export const openFiles = Permits.unsafeMake(128)

/** A file opened for a read, as the step after the open gets it. */
export interface Opened {
  /** What to read: the checked descriptor, or a snapshot of the bytes read at open. */
  readonly file: FileSystem.File
  /** The version that was opened (a snapshot's size is that of its bytes). */
  readonly info: File.Info
  /** Its first bytes, up to `SAMPLE_BYTES`. */
  readonly head: Uint8Array
  /** Its last bytes (up to `TAIL_BYTES`) as they were when it was opened, when they could be read. */
  readonly end: Uint8Array | undefined
  /** The whole file as read at open (a small file): the ledger stamps it from these bytes. */
  readonly bytes: ReadBytes | undefined
  /** It reports size 0 and was read to its end: its next read may hold other bytes. */
  readonly unsized: boolean
  /** The text of its first `CONTENT_SNIFF_BYTES`, for the content permissions (undefined for binary data). */
  readonly firstText: Effect.Effect<string | undefined>
}

/** How `readSmallChecked` reads a small file: whole, its last bytes again after, a bounded wait for that. */
export const SMALL_READ = {
  maxBytes: SMALL_FILE_BYTES,
  tailBytes: TAIL_BYTES,
  timeoutMillis: CONFIRM_TIMEOUT_MILLIS
} as const

/**
 * Open a checked target and run `use` on it: a small file is read whole, once, at open (its
 * sample, page and last bytes then come from memory), a file that reports size 0 is read to its
 * end, and either is read from that snapshot. Every byte `use` reads comes from the version that
 * was opened, or the answer is `FileChanged` (`confirmUnchanged`).
 */
export const openForRead = <A, E, R>(
  target: Target,
  use: (opened: Opened) => Effect.Effect<A, E, R>,
  /** What a `stat` of the path just reported (after the access check): a small file may take Node's short way. */
  found?: File.Info
) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    if (target.real !== undefined && found !== undefined && opensKernelDescriptors(fs)) {
      const snapshot = yield* readSmallChecked(target.absolute, target.real, found, SMALL_READ)
      if (snapshot !== undefined) return yield* useSnapshot(target, snapshot, use)
    }
    // What was opened, as it was when opened: the version every byte of this read must come from.
    const { file: opened, info: before } = yield* openCheckedAt(target)
    const size = Number(before.size)
    // Its last bytes, before any other: an append leaves them, a rewrite that grew the file does
    // not, and a rewrite while the file is read changes them under the read (its mtime may not
    // change within a millisecond). Taken from a small file's bytes instead, they were the
    // rewrite's when it came while those were read, and a mix of two versions passed the check.
    const tail = yield* tailOf(opened, size)
    yield* opened.seek(0, "start")
    // A small file is read whole, once; a read that fails or comes short is left to `readWhole`
    // below, which says why.
    const whole = size > 0 && size <= SMALL_FILE_BYTES
      ? yield* readHead(opened, size).pipe(
        Effect.map((bytes) => bytes.length === size ? bytes : undefined),
        Effect.orElseSucceed(() => undefined)
      )
      : undefined
    yield* opened.seek(0, "start")
    return yield* confirmUnchanged(
      opened,
      target,
      before,
      Effect.gen(function*() {
        const unsized = size === 0 ? yield* readUnsized(opened, target) : undefined
        const small = unsized === undefined && size <= SMALL_FILE_BYTES
          ? whole ?? (yield* readWhole(opened, target, size))
          : undefined
        const bytes = unsized ?? small
        // A snapshot of an unsized file is never indexed: its next read may hold other bytes.
        const file = bytes === undefined ? opened : snapshotFile(bytes, before)
        const info = bytes === undefined ? before : { ...before, size: FileSystem.Size(bytes.length) }
        const wanted = Math.min(SAMPLE_BYTES, Number(info.size))
        const head = yield* readHead(file, wanted).pipe(
          Effect.mapError((error) => fromPlatformError(target.absolute, error))
        )
        // Fewer first bytes than the size promised: it shrank, or it reports more than it holds.
        if (head.length < wanted) yield* endedEarly(file, target, Number(info.size))
        return yield* use({
          file,
          info,
          head,
          end: tail,
          bytes: small !== undefined && small.length === size
            ? {
              path: target.absolute,
              size: small.length,
              mtime: Option.getOrUndefined(Option.map(before.mtime, (date) => date.getTime())),
              bytes: small,
              // Handed to the ledger only once `confirmUnchanged` passed.
              confirmed: true
            }
            : undefined,
          unsized: unsized !== undefined,
          firstText: firstText(file, bytes, head, Number(info.size))
        })
      }),
      { before: tail, again: tailOf(opened, size) }
    )
  }).pipe(Effect.scoped, openFiles.withPermit)

/**
 * `use` on a small file read whole by Node's short way (`readSmallChecked`), with the same
 * guarantees as the general path: the descriptor held the checked file, and the file was still
 * the version the `stat` before the open saw (the same file, size and mtime, its last bytes
 * unchanged), still at its path, once its bytes were read (`versionChange`, `placeChange`); the
 * check runs while `use` works on the bytes.
 */
export const useSnapshot = <A, E, R>(
  target: Target,
  snapshot: Snapshot,
  use: (opened: Opened) => Effect.Effect<A, E, R>
) =>
  Effect.gen(function*() {
    const { bytes, info } = snapshot
    const size = bytes.length
    const file = snapshotFile(bytes, info)
    const head = bytes.subarray(0, Math.min(SAMPLE_BYTES, size))
    const end = bytes.subarray(size - Math.min(TAIL_BYTES, size))
    const result = yield* Effect.either(use({
      file,
      info,
      head,
      end,
      bytes: {
        path: target.absolute,
        size,
        mtime: Option.getOrUndefined(Option.map(info.mtime, (date) => date.getTime())),
        bytes,
        // Handed to the ledger only after the check below passed.
        confirmed: true
      },
      unsized: false,
      firstText: firstText(file, bytes, head, size)
    }))
    const recheck = yield* snapshot.recheck
    if (recheck === undefined) {
      // A failure stands as it is; a success cannot be vouched for.
      if (result._tag === "Left") return yield* result
      return yield* new FileChanged({
        path: target.absolute,
        detail: "it stopped answering while it was checked for changes"
      })
    }
    const detail = versionChange(info, recheck.after, end, recheck.tail, true) ?? snapshotPlace(target, info, recheck)
    if (detail !== undefined) return yield* new FileChanged({ path: target.absolute, detail })
    return yield* result
  })

/**
 * Whether a snapshot's descriptor held the checked file, the one its `stat` before the open (`info`)
 * saw, and the path still leads to it: what changed, or undefined.
 */
const snapshotPlace = (target: Target, info: File.Info, recheck: Recheck): string | undefined => {
  const { after, atPath } = recheck
  if (!recheck.inPlace) {
    // The descriptor is not the file at the checked real path: it went away or was replaced, or
    // another file was swapped in before the open (the path still leads to the descriptor's).
    if (atPath === undefined) return "it was removed while it was being read"
    return (after === undefined ? undefined : placeChange(after, atPath)) ??
      "it was replaced between the permission check and opening it"
  }
  if (after === undefined) return undefined
  if (!sameIdentity(info, after)) return "it was replaced while it was being read"
  // Through a link: the link may have been moved while the file was read.
  return target.absolute === target.real ? undefined : placeChange(after, atPath)
}

/** The text of a file's first `CONTENT_SNIFF_BYTES`: from the bytes in memory, else read (the position is put back). */
const firstText = (file: FileSystem.File, whole: Uint8Array | undefined, head: Uint8Array, size: number) =>
  Effect.gen(function*() {
    if (whole !== undefined || head.length >= size) return textOf((whole ?? head).subarray(0, CONTENT_SNIFF_BYTES))
    yield* file.seek(0, "start")
    const bytes = yield* readHead(file, Math.min(CONTENT_SNIFF_BYTES, size))
    yield* file.seek(head.length, "start")
    return textOf(bytes)
  }).pipe(Effect.orElseSucceed(() => undefined))
