/**
 * The read ledger: what each session read, so a later Edit/Write can `assert` the file did not
 * change since. Compares size, mtime and a content hash: an mtime-only change is not a change.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import type { PlatformError } from "@effect/platform/Error"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as HashMap from "effect/HashMap"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import { createHash } from "node:crypto"
import { patientFileSystem } from "./internal/descriptors.js"

export interface ReadStamp {
  readonly path: string
  /** When the read happened, epoch milliseconds. */
  readonly readAt: number
  readonly size: number
  /** Modification time, epoch milliseconds, when the filesystem reports one. */
  readonly mtime: number | undefined
  /** SHA-256 of the content (hex), or undefined when the file was over the hashing cap. */
  readonly hash: string | undefined
}

export class FileNotRead extends Schema.TaggedError<FileNotRead>()("FileNotRead", {
  path: Schema.String
}) {
  override get message(): string {
    return `You must read ${this.path} before changing it. Use the read tool first.`
  }
}

export class FileChanged extends Schema.TaggedError<FileChanged>()("FileChanged", {
  path: Schema.String,
  readAt: Schema.Number
}) {
  override get message(): string {
    return `${this.path} has changed since it was last read at ${
      new Date(this.readAt).toISOString()
    }. Read it again before changing it.`
  }
}

export interface FileTimeShape {
  /** Record that `sessionId` read `path` now (stat + content hash). Never fails. */
  readonly read: (sessionId: string, path: string) => Effect.Effect<void>
  readonly get: (sessionId: string, path: string) => Effect.Effect<Option.Option<ReadStamp>>
  /** Fails unless the file is unchanged since this session last read it. */
  readonly assert: (sessionId: string, path: string) => Effect.Effect<void, FileNotRead | FileChanged>
}

export class FileTime extends Context.Tag("effect-read/FileTime")<FileTime, FileTimeShape>() {}

/**
 * Files larger than this (16 MiB) are not hashed: `read` records a stamp on every read, and
 * hashing a multi-gigabyte log each time would cost far more than the read itself (which pages
 * a few KB). Such files are compared by size and mtime only, conservatively (see `compare`).
 */
export const maxHashBytes = 16 * 1024 * 1024

/** A whole file as a read just read it, and the version (size, mtime) it was then. */
export interface ReadBytes {
  readonly path: string
  readonly size: number
  readonly mtime: number | undefined
  readonly bytes: Uint8Array
}

/**
 * The bytes the read in this fiber just read whole (small files), so that the stamp recorded
 * after it hashes them instead of opening and reading the file again. Taken by `takeReadBytes`;
 * `stamp` uses them only while the file still has their size and mtime.
 */
export const lastReadBytes: FiberRef.FiberRef<ReadBytes | undefined> = FiberRef.unsafeMake<ReadBytes | undefined>(
  undefined
)

/** The bytes of `path` the last read in this fiber left (then none are left). */
export const takeReadBytes = (path: string): Effect.Effect<ReadBytes | undefined> =>
  Effect.map(FiberRef.getAndSet(lastReadBytes, undefined), (known) => known?.path === path ? known : undefined)

/**
 * Stamp `path` now: stat it and, for a regular file of at most `maxHashBytes`, hash its content
 * with SHA-256, streamed in chunks so memory stays bounded. Exactly the stat'd size is hashed,
 * so `size` and `hash` describe the same bytes even if the file is growing.
 */
const HASH_CHUNK_BYTES = 256 * 1024

export const stamp = Effect.fn("FileTime.stamp")(function*(path: string, known?: ReadBytes) {
  const fs = yield* FileSystem.FileSystem
  const info = yield* fs.stat(path)
  const size = Number(info.size)
  const mtime = Option.getOrUndefined(Option.map(info.mtime, (date) => date.getTime()))
  const readAt = yield* Clock.currentTimeMillis
  let hash: string | undefined = undefined
  if (info.type === "File" && size <= maxHashBytes) {
    const hasher = createHash("sha256")
    if (known !== undefined && known.size === size && known.mtime === mtime && known.bytes.length === size) {
      // The bytes the read showed, of the version the file still is: no second read.
      hasher.update(known.bytes)
    } else if (size > 0) {
      // A plain read loop over one buffer: `fs.stream` costs milliseconds even for tiny files.
      yield* Effect.scoped(Effect.gen(function*() {
        // A process at its open-files limit waits for a descriptor: the stamp must not be lost.
        const file = yield* patientFileSystem(fs).open(path, { flag: "r" })
        const buffer = new Uint8Array(Math.min(size, HASH_CHUNK_BYTES))
        let remaining = size
        while (remaining > 0) {
          const n = Number(yield* file.read(buffer.subarray(0, Math.min(buffer.length, remaining))))
          if (n === 0) break
          hasher.update(buffer.subarray(0, n))
          remaining -= n
        }
      }))
    }
    hash = hasher.digest("hex")
  }
  const result: ReadStamp = { path, readAt, size, mtime, hash }
  return result
}) satisfies (path: string, known?: ReadBytes) => Effect.Effect<ReadStamp, PlatformError, FileSystem.FileSystem>

/**
 * Did the file change between two stamps? `path` and `readAt` are ignored.
 *
 * - different size → changed;
 * - both hashes known → the hashes decide (an mtime-only change, e.g. `touch`, is not a change;
 *   new content behind an unchanged or restored mtime is);
 * - a hash missing (over `maxHashBytes`, or not a regular file) → unchanged only when both
 *   mtimes are known and equal: without the content, any other mtime is taken as a change.
 */
export const compare = (before: ReadStamp, now: ReadStamp): "unchanged" | "changed" => {
  if (before.size !== now.size) return "changed"
  if (before.hash !== undefined && now.hash !== undefined) {
    return before.hash === now.hash ? "unchanged" : "changed"
  }
  return before.mtime !== undefined && before.mtime === now.mtime ? "unchanged" : "changed"
}

/**
 * An in-memory ledger, keyed by (sessionId, path), living as long as the service. `path` is
 * used as given (`read` passes resolved absolute paths).
 */
export const make: Effect.Effect<FileTimeShape, never, FileSystem.FileSystem> = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  const ledger = yield* Ref.make(HashMap.empty<readonly [string, string], ReadStamp>())
  const stampNow = (path: string, known?: ReadBytes) => Effect.provideService(stamp(path, known), FileSystem.FileSystem, fs)

  const read = Effect.fn("FileTime.read")(function*(sessionId: string, path: string) {
    yield* stampNow(path, yield* takeReadBytes(path)).pipe(
      Effect.flatMap((stamped) => Ref.update(ledger, HashMap.set(Data.tuple(sessionId, path), stamped))),
      Effect.catchAll((error) =>
        Effect.logDebug("FileTime.read: could not stamp the file; nothing recorded").pipe(
          Effect.annotateLogs({ sessionId, path, error: error.message })
        )
      )
    )
  })

  const get = Effect.fn("FileTime.get")(function*(sessionId: string, path: string) {
    return HashMap.get(yield* Ref.get(ledger), Data.tuple(sessionId, path))
  })

  const assert = Effect.fn("FileTime.assert")(function*(sessionId: string, path: string) {
    yield* assertUnchanged(path, yield* get(sessionId, path), stampNow(path))
  })

  return FileTime.of({ read, get, assert })
})

/**
 * The check every ledger's `assert` makes: the file was read (`before`), and the file as it is
 * now (`now`, a fresh stamp) has not changed. A file that vanished or cannot be stamped changed.
 */
export const assertUnchanged = <E, R>(
  path: string,
  before: Option.Option<ReadStamp>,
  now: Effect.Effect<ReadStamp, E, R>
): Effect.Effect<void, FileNotRead | FileChanged, R> =>
  Effect.gen(function*() {
    if (Option.isNone(before)) return yield* new FileNotRead({ path })
    const changed = new FileChanged({ path, readAt: before.value.readAt })
    const stamped = yield* Effect.orElse(now, () => Effect.fail(changed))
    if (compare(before.value, stamped) === "changed") return yield* changed
  })

/** The in-memory ledger (`make`) as a layer: one ledger per layer build. */
export const layerMemory: Layer.Layer<FileTime, never, FileSystem.FileSystem> = Layer.effect(FileTime, make)
