/**
 * Reading a few bytes whole. A `read` may return fewer bytes than asked before the end of a
 * file (network and FUSE filesystems do; `FaultFileSystem.ShortRead` does): a header read once
 * could be taken for a file that is not what it is.
 */
import type { PlatformError } from "@effect/platform/Error"
import type * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"

/** Up to `length` bytes from the file's current position: fewer only at its end. */
export const readHead = (file: FileSystem.File, length: number): Effect.Effect<Uint8Array, PlatformError> =>
  Effect.gen(function*() {
    const bytes = new Uint8Array(length)
    let filled = 0
    while (filled < length) {
      const n = Number(yield* file.read(bytes.subarray(filled)))
      if (n === 0) break
      filled += n
    }
    return bytes.subarray(0, filled)
  })

/** Fill `buffer` from the file's current position; fewer bytes only at end of file. */
export const readFully = (file: FileSystem.File, buffer: Uint8Array): Effect.Effect<number, PlatformError> =>
  Effect.gen(function*() {
    let filled = 0
    while (filled < buffer.length) {
      const n = Number(yield* file.read(buffer.subarray(filled)))
      if (n === 0) break
      filled += n
    }
    return filled
  })
