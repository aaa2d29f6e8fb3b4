/**
 * The read ledger: what each session read, so a later Edit/Write can `assert` the file did not
 * change since. Compares size, mtime and a content hash: an mtime-only change is not a change.
 */
import type { PlatformError } from "@effect/platform/Error"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { createHash } from "node:crypto"
import { makeEverSeen } from "./internal/core/everSeen.js"
import { mergeRanges } from "./internal/core/ranges.js"
import { patientFileSystem } from "./internal/io/descriptors.js"
import { withLeanSpan } from "./internal/io/spans.js"
import { FileTimeLimits } from "./Limits.js"

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

/**
 * The file changed since this session last read it (its tag is its own: a read that finds its file
 * changing under it fails with `ReadError.FileChanged`, a different error).
 */
export class FileChangedSinceRead extends Schema.TaggedError<FileChangedSinceRead>()("FileChangedSinceRead", {
  path: Schema.String,
  readAt: Schema.Number
}) {
  override get message(): string {
    return `${this.path} has changed since it was last read at ${
      new Date(this.readAt).toISOString()
    }. Read it again before changing it.`
  }
}

/** @deprecated Renamed `FileChangedSinceRead`, with that tag (it was `"FileChanged"`, the tag of `ReadError.FileChanged`). */
export const FileChanged = FileChangedSinceRead
/** @deprecated Renamed `FileChangedSinceRead`. */
export type FileChanged = FileChangedSinceRead

/** What a read showed of a text file: lines `start`-`end` of the version of `size` bytes and `mtime`. */
export interface Shown {
  readonly start: number
  readonly end: number
  /** Every line of the file was shown (`start` 1, nothing after `end`). */
  readonly whole: boolean
  readonly size: number
  /**
   * As the `FileSystem` service reports it (`info.mtime`, epoch milliseconds), which is what the
   * stamp holds: on Node a `Date`, which rounds `mtimeMs` to the nearest millisecond, so
   * `Math.trunc(stat.mtimeMs)` is another version half the time and records nothing.
   */
  readonly mtime: number | undefined
  /** A read of several ranges: the ranges shown (`start`-`end` spans them; the lines between were not shown). */
  readonly ranges?: ReadonlyArray<{ readonly start: number; readonly end: number }> | undefined
}

/** Lines `start`-`end` shown to the session at the content with SHA-256 `hash`. */
export interface Range {
  readonly start: number
  readonly end: number
  readonly hash: string
}

/** What a session was shown of a file: ranges merged per content hash, and where it saw it whole. */
export interface Coverage {
  readonly ranges: ReadonlyArray<Range>
  /** The content hashes at which the whole file was shown. */
  readonly wholeAt: ReadonlyArray<string>
}

export const emptyCoverage: Coverage = { ranges: [], wholeAt: [] }

export interface FileTimeShape {
  /**
   * Record that `sessionId` read `path` now (stat + content hash), and with `shown` the lines it
   * was shown (kept only when the stamp is of the version shown: same size and mtime). `bytes`
   * are the whole file as the read just read it (small files): hash them instead of reading the
   * file again, while the file still has their size and mtime (`stamp` does). Never fails.
   */
  readonly read: (sessionId: string, path: string, shown?: Shown, bytes?: ReadBytes) => Effect.Effect<void>
  readonly get: (sessionId: string, path: string) => Effect.Effect<Option.Option<ReadStamp>>
  /** Fails unless the file is unchanged since this session last read it. */
  readonly assert: (sessionId: string, path: string) => Effect.Effect<void, FileNotRead | FileChangedSinceRead>
  /** The line ranges this session was shown of `path`, merged per content hash. */
  readonly coverage: (sessionId: string, path: string) => Effect.Effect<Coverage>
  /**
   * For an Edit guard: were lines `start`-`end` of `path` shown to this session at the file's
   * current content (or the whole file)? False when unread, changed since, or those lines not shown.
   */
  readonly covers: (sessionId: string, path: string, start: number, end: number) => Effect.Effect<boolean>
  /**
   * Start `child` (a subagent's session) with what `parent` read: the parent's stamps and coverage
   * as they are now, copied once — at the first fork of `child` — for every file `child` has not
   * read itself. Later reads of either session stay its own: the parent's reads after the fork
   * reach no child, and a child's reads never reach the parent. Succeeds with `true` when it
   * copied now, `false` when `child` was forked before (or is `parent`). Optional: a host's own
   * ledger without it gives a child nothing (its Edit guard then asks it to read first). A ledger
   * that bounds what it remembers may answer `false` for a child it cannot tell from one forked
   * before (`layerMemory`, rarely, past `maxFiles` subagents): the child then inherits nothing —
   * never a copy at a second fork.
   */
  readonly fork?: ((parent: string, child: string) => Effect.Effect<boolean>) | undefined
}

/** At most this many merged ranges are kept per session and file (the newest hashes win). */
export const maxRanges = 256

/** Ranges per hash, merged (inclusive; adjacent ranges join); the hashes in the order they first appear. */
export const mergeCoverage = (ranges: ReadonlyArray<Range>): Array<Range> =>
  [...new Set(ranges.map((range) => range.hash))].flatMap((hash) =>
    // A literal, not `{ ...range, hash }`: Node 20's optimised code gives each object made by a spread
    // plus a key its own hidden class (~200 bytes more for every range a ledger keeps).
    mergeRanges(ranges.filter((range) => range.hash === hash)).map((range) => ({
      start: range.start,
      end: range.end,
      hash
    }))
  )

/** Add what a read showed (stamped as `stamped`) to a coverage; unchanged when the stamp is of another version. */
export const addShown = (coverage: Coverage, stamped: ReadStamp, shown: Shown | undefined): Coverage => {
  if (shown === undefined || stamped.hash === undefined) return coverage
  if (stamped.size !== shown.size || stamped.mtime !== shown.mtime) return coverage
  const hash = stamped.hash
  // The newest hash last, so the oldest ranges are dropped first.
  const others = coverage.ranges.filter((range) => range.hash !== hash)
  const mine = coverage.ranges.filter((range) => range.hash === hash)
  return {
    ranges: mergeCoverage([
      ...others,
      ...mine,
      ...(shown.ranges ?? [shown]).map((range) => ({ start: range.start, end: range.end, hash }))
    ]).slice(-maxRanges),
    wholeAt: shown.whole ? [...coverage.wholeAt.filter((h) => h !== hash), hash].slice(-16) : coverage.wholeAt
  }
}

/** Does `coverage` hold lines `start`-`end` at content `hash`? */
export const coversAt = (coverage: Coverage, hash: string | undefined, start: number, end: number): boolean =>
  hash !== undefined &&
  (coverage.wholeAt.includes(hash) ||
    coverage.ranges.some((range) => range.hash === hash && range.start <= start && end <= range.end))

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
  /**
   * The read confirmed, after reading these bytes, that the file at `path` was still this
   * version (the same file, size and mtime): `stamp` takes them without a `stat` of its own.
   */
  readonly confirmed?: boolean
}

/** The read confirmed these are the bytes of the file at `path` as it still was (see `ReadBytes.confirmed`). */
const isConfirmed = (path: string, known: ReadBytes | undefined): boolean =>
  known?.confirmed === true && known.path === path && known.bytes.length === known.size

/** The stamp of bytes a read just confirmed, taken at `readAt`: no second look at the file. */
const confirmedStamp = (path: string, known: ReadBytes, readAt: number): ReadStamp => ({
  path,
  readAt,
  size: known.size,
  mtime: known.mtime,
  hash: known.size <= maxHashBytes ? createHash("sha256").update(known.bytes).digest("hex") : undefined
})

/** Bytes hashed per read call when a stamp reads the file. */
const HASH_CHUNK_BYTES = 256 * 1024

/**
 * Stamp `path` now: stat it and, for a regular file of at most `maxHashBytes`, hash its content
 * with SHA-256, streamed in chunks so memory stays bounded. Exactly the stat'd size is hashed,
 * so `size` and `hash` describe the same bytes even if the file is growing. `known`: the bytes a
 * read just read whole, hashed instead while the file still has their size and mtime.
 */
export const stamp = Effect.fn("FileTime.stamp", { captureStackTrace: false })(
  function*(path: string, known?: ReadBytes) {
    if (isConfirmed(path, known)) return confirmedStamp(path, known!, yield* Clock.currentTimeMillis)
    const fs = yield* FileSystem.FileSystem
    const info = yield* fs.stat(path)
    const size = Number(info.size)
    const mtime = Option.getOrUndefined(Option.map(info.mtime, (date) => date.getTime()))
    const readAt = yield* Clock.currentTimeMillis
    let hash: string | undefined = undefined
    if (info.type === "File" && size <= maxHashBytes) {
      const hasher = createHash("sha256")
      if (
        known !== undefined && known.path === path && known.size === size && known.mtime === mtime &&
        known.bytes.length === size
      ) {
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
  }
) satisfies (path: string, known?: ReadBytes) => Effect.Effect<ReadStamp, PlatformError, FileSystem.FileSystem>

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

/** How many files the in-memory ledger remembers: `Limits.FileTimeLimits`, under the name it had here. */
export { FileTimeLimits as MemoryLimits } from "./Limits.js"

/**
 * What the in-memory ledger keeps of one (session, file) pair: its last stamp but the path (the
 * key holds it), and what the session was shown. A long-lived host keeps up to
 * `MemoryLimits.maxFiles` of these, so each is kept small: one copy of the hash, and the usual
 * coverage — the whole file, at the stamp's hash, and nothing of other versions — as the number of
 * its last line rather than objects and arrays (`coverageOf` gives the `Coverage` back).
 */
interface Entry {
  readonly readAt: number
  readonly size: number
  readonly mtime: number | undefined
  readonly hash: string | undefined
  readonly shown: Coverage | number
}

/** The stamp an entry keeps, with its path. */
const stampOf = (path: string, entry: Entry): ReadStamp => ({
  path,
  readAt: entry.readAt,
  size: entry.size,
  mtime: entry.mtime,
  hash: entry.hash
})

/** The coverage an entry keeps, as `addShown` made it. */
const coverageOf = (entry: Entry): Coverage =>
  typeof entry.shown === "number"
    ? { ranges: [{ start: 1, end: entry.shown, hash: entry.hash! }], wholeAt: [entry.hash!] }
    : entry.shown

/** `coverage` as an entry of content `hash` keeps it: a number for the whole file seen at that hash alone. */
const compactCoverage = (coverage: Coverage, hash: string | undefined): Coverage | number => {
  const [range] = coverage.ranges
  return coverage.ranges.length === 1 && coverage.wholeAt.length === 1 && range!.start === 1 &&
      range!.hash === hash && coverage.wholeAt[0] === hash
    ? range!.end
    : coverage
}

/** Lines `start`-`end` lie in 1-`lines`. */
const within = (range: { readonly start: number; readonly end: number }, lines: number): boolean =>
  range.start >= 1 && range.end <= lines

/**
 * The entry after a read stamped `stamped` and showed `shown`: what `addShown` gives, kept small.
 * The same content as before keeps the hash string already held; another whole read of it, the
 * entry's coverage as it is (no allocation on the common re-read).
 */
const entryAfter = (before: Entry | undefined, stamped: ReadStamp, shown: Shown | undefined): Entry => {
  const hash = before !== undefined && before.hash === stamped.hash ? before.hash : stamped.hash
  const lines = before !== undefined && before.hash === hash ? before.shown : undefined
  // Lines already held whole at this hash: `addShown` would give the same coverage.
  const again = typeof lines === "number" && shown !== undefined &&
    (shown.ranges === undefined ? within(shown, lines) : shown.ranges.every((range) => within(range, lines)))
  return {
    readAt: stamped.readAt,
    size: stamped.size,
    mtime: stamped.mtime,
    hash,
    shown: again ? lines : compactCoverage(
      addShown(
        before === undefined ? emptyCoverage : coverageOf(before),
        { path: stamped.path, readAt: stamped.readAt, size: stamped.size, mtime: stamped.mtime, hash },
        shown
      ),
      hash
    )
  }
}

/**
 * An in-memory ledger, keyed by (sessionId, path), living as long as the service. `path` is
 * used as given (`read` passes resolved absolute paths). It remembers at most
 * `MemoryLimits.maxFiles` (session, file) pairs: past that, the one read longest ago is forgotten
 * first, and an edit guard on it answers `FileNotRead` (read it again) — a long-lived server
 * that reads many files stays flat instead of growing by each file it ever read. Likewise the
 * last `maxFiles` forked subagents, and older ones in a 128 KiB filter (see `fork`).
 */
export const make: Effect.Effect<FileTimeShape, never, FileSystem.FileSystem> = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  const { maxFiles } = yield* FileTimeLimits
  // Map order is the order of reads: the first entry is the one read longest ago.
  const entries = new Map<string, Entry>()
  const keyOf = (sessionId: string, path: string) => `${sessionId}\u0000${path}`
  const stampNow = (path: string, known?: ReadBytes) =>
    Effect.provideService(stamp(path, known), FileSystem.FileSystem, fs)

  const record = (sessionId: string, path: string, shown: Shown | undefined, stamped: ReadStamp) => {
    const key = keyOf(sessionId, path)
    const before = entries.get(key)
    entries.delete(key)
    entries.set(key, entryAfter(before, stamped, shown))
    if (entries.size > maxFiles) entries.delete(entries.keys().next().value!)
  }
  // Bytes the read confirmed (most reads of small files) are stamped in one step, no `stat`.
  const read = (sessionId: string, path: string, shown?: Shown, bytes?: ReadBytes) =>
    withLeanSpan(
      isConfirmed(path, bytes)
        ? Effect.clockWith((clock) =>
          Effect.sync(() =>
            record(sessionId, path, shown, confirmedStamp(path, bytes!, clock.unsafeCurrentTimeMillis()))
          )
        )
        : stampNow(path, bytes).pipe(
          Effect.flatMap((stamped) => Effect.sync(() => record(sessionId, path, shown, stamped))),
          Effect.catchAll((error) =>
            Effect.logDebug("FileTime.read: could not stamp the file; nothing recorded").pipe(
              Effect.annotateLogs({ sessionId, path, error: error.message })
            )
          )
        ),
      "FileTime.read"
    )

  const get = Effect.fn("FileTime.get")(function*(sessionId: string, path: string) {
    const entry = entries.get(keyOf(sessionId, path))
    return entry === undefined ? Option.none() : Option.some(stampOf(path, entry))
  })

  const assert = Effect.fn("FileTime.assert")(function*(sessionId: string, path: string) {
    yield* assertUnchanged(path, yield* get(sessionId, path), stampNow(path))
  })

  const coverage = Effect.fn("FileTime.coverage")(function*(sessionId: string, path: string) {
    const entry = entries.get(keyOf(sessionId, path))
    return entry === undefined ? emptyCoverage : coverageOf(entry)
  })

  const covers = Effect.fn("FileTime.covers")(function*(sessionId: string, path: string, start: number, end: number) {
    const now = yield* Effect.option(stampNow(path))
    return coversAt(yield* coverage(sessionId, path), Option.getOrUndefined(now)?.hash, start, end)
  })

  // Subagents forked, the one forked (or forked again) longest ago first: at most `maxFiles`. One
  // dropped from it must never be forked again (the parent's later reads would reach it), so it is
  // kept in a fixed-size filter that may take a new child for a dropped one (the child then starts
  // with nothing read, as with a ledger without `fork`) but never the other way round.
  const forked = new Set<string>()
  const dropped = makeEverSeen()
  const fork = Effect.fn("FileTime.fork")(function*(parent: string, child: string) {
    if (parent === child) return false
    if (forked.has(child)) {
      forked.delete(child)
      forked.add(child)
      return false
    }
    if (dropped.mayHave(child)) return false
    forked.add(child)
    if (forked.size > maxFiles) {
      const oldest = forked.values().next().value!
      forked.delete(oldest)
      dropped.add(oldest)
    }
    // One synchronous step: no read is recorded halfway through the copy.
    yield* Effect.sync(() => {
      const prefix = keyOf(parent, "")
      for (const [key, entry] of [...entries]) {
        if (!key.startsWith(prefix)) continue
        const own = keyOf(child, key.slice(prefix.length))
        if (entries.has(own)) continue
        entries.set(own, entry)
        if (entries.size > maxFiles) entries.delete(entries.keys().next().value!)
      }
    })
    return true
  })

  return FileTime.of({ read, get, assert, coverage, covers, fork })
})

/**
 * Fork `parent`'s ledger for `child`, a subagent's session (see `FileTimeShape.fork`): the child's
 * Edit guard sees what the parent read until then. `false` when nothing was copied now (forked
 * before, `child` is `parent`, or a ledger without `fork`).
 */
export const fork = (parent: string, child: string): Effect.Effect<boolean, never, FileTime> =>
  Effect.flatMap(FileTime, (ledger) => ledger.fork === undefined ? Effect.succeed(false) : ledger.fork(parent, child))

/**
 * The check every ledger's `assert` makes: the file was read (`before`), and the file as it is
 * now (`now`, a fresh stamp) has not changed. A file that vanished or cannot be stamped changed.
 */
export const assertUnchanged = <E, R>(
  path: string,
  before: Option.Option<ReadStamp>,
  now: Effect.Effect<ReadStamp, E, R>
): Effect.Effect<void, FileNotRead | FileChangedSinceRead, R> =>
  Effect.gen(function*() {
    if (Option.isNone(before)) return yield* new FileNotRead({ path })
    const changed = new FileChangedSinceRead({ path, readAt: before.value.readAt })
    const stamped = yield* Effect.orElse(now, () => Effect.fail(changed))
    if (compare(before.value, stamped) === "changed") return yield* changed
  })

/** The in-memory ledger (`make`) as a layer: one ledger per layer build. */
export const layerMemory: Layer.Layer<FileTime, never, FileSystem.FileSystem> = Layer.effect(FileTime, make)

/**
 * A ledger that records nothing: every file is unread (`get` is none, `assert` fails with
 * `FileNotRead`, nothing is covered) and a read costs no stat and no hash. For a process with no
 * edit to guard: the one-shot command line (`effect-read <file>`, `effect-read many`).
 */
export const noop: FileTimeShape = {
  read: () => Effect.void,
  get: () => Effect.succeedNone,
  assert: (_, path) => Effect.fail(new FileNotRead({ path })),
  coverage: () => Effect.succeed(emptyCoverage),
  covers: () => Effect.succeed(false),
  fork: () => Effect.succeed(false)
}

/** `noop` as a layer. */
export const layerNoop: Layer.Layer<FileTime> = Layer.succeed(FileTime, noop)
