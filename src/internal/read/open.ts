/**
 * Regular files that report size 0 may hold bytes all the same (`/proc`, `/sys`, some FUSE
 * files): they are read to their end, up to a cap, and read from that snapshot.
 */
import { SystemError } from "@effect/platform/Error"
import type { File } from "@effect/platform/FileSystem"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { formatBytes, ReadFailed } from "../../ReadError.js"
import { endedEarly, type Target } from "./access.js"
import { readHead } from "../io/bytes.js"
import { fromPlatformError } from "../io/platformError.js"

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
  return {
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
}
