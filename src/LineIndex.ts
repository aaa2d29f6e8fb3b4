/**
 * The line-offset index: for each file, the byte position of every K-th line start, so a page
 * at any depth starts reading near its first line instead of at byte 0.
 *
 * Entries are keyed by path and by what identifies the file's bytes (device, inode, size,
 * mtime, encoding): any change to the file makes a new key and the old checkpoints are dropped.
 * Memory is bounded: at most `maxFiles` files (least recently used first out) and
 * `maxCheckpoints` checkpoints per file (8 bytes each).
 *
 * It is a `Context.Reference`: `read` uses one process-wide index unless a layer provides
 * another (`layerMemory` for a private one, `layerNoop` to always scan).
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/** Where a scan may start: the count of lines before that point, and its byte position. */
export interface Checkpoint {
  readonly lines: number
  readonly position: number
}

export interface LineIndexShape {
  /** Lines between checkpoints (0: the index records nothing). */
  readonly every: number
  /** The latest checkpoint at or before the start of line `line` (1-based). */
  readonly lookup: (path: string, key: string, line: number) => Effect.Effect<Checkpoint>
  /** The file's total line count, when a scan reached its end. */
  readonly totalLines: (path: string, key: string) => Effect.Effect<number | undefined>
  /** Drop what is known of a file (a checkpoint turned out stale). */
  readonly forget: (path: string) => Effect.Effect<void>
  /** Add the checkpoints a scan found (as `[lines, position]`), and the total when it hit the end. */
  readonly record: (
    path: string,
    key: string,
    checkpoints: ReadonlyArray<readonly [number, number]>,
    totalLines: number | undefined
  ) => Effect.Effect<void>
}

export interface Options {
  readonly every?: number
  readonly maxFiles?: number
  readonly maxCheckpoints?: number
}

interface Entry {
  readonly key: string
  /** positions[j] is where line (j + 1) * every + 1 starts. */
  readonly positions: Array<number>
  totalLines: number | undefined
}

const origin: Checkpoint = { lines: 0, position: 0 }

/** A memory index. Synchronous inside: the Effects only sequence it with the read. */
export const makeMemory = (options: Options = {}): LineIndexShape => {
  const every = options.every ?? 1024
  const maxFiles = options.maxFiles ?? 64
  const maxCheckpoints = options.maxCheckpoints ?? 1 << 20
  const entries = new Map<string, Entry>()

  const entryOf = (path: string, key: string): Entry | undefined => {
    const entry = entries.get(path)
    if (entry === undefined) return undefined
    if (entry.key !== key) {
      entries.delete(path)
      return undefined
    }
    // Re-insert: Map order is the LRU order.
    entries.delete(path)
    entries.set(path, entry)
    return entry
  }

  return {
    every,
    lookup: (path, key, line) =>
      Effect.sync(() => {
        const entry = entryOf(path, key)
        if (entry === undefined || line <= every) return origin
        const j = Math.min(Math.floor((line - 1) / every), entry.positions.length) - 1
        return j < 0 ? origin : { lines: (j + 1) * every, position: entry.positions[j]! }
      }),
    totalLines: (path, key) => Effect.sync(() => entryOf(path, key)?.totalLines),
    forget: (path) => Effect.sync(() => void entries.delete(path)),
    record: (path, key, checkpoints, totalLines) =>
      Effect.sync(() => {
        let entry = entryOf(path, key)
        if (entry === undefined) {
          entry = { key, positions: [], totalLines: undefined }
          entries.set(path, entry)
          if (entries.size > maxFiles) entries.delete(entries.keys().next().value!)
        }
        for (const [lines, position] of checkpoints) {
          // Scans run forward from a known checkpoint, so new ones extend the prefix in order.
          if (lines === (entry.positions.length + 1) * every && entry.positions.length < maxCheckpoints) {
            entry.positions.push(position)
          }
        }
        if (totalLines !== undefined) entry.totalLines = totalLines
      })
  }
}

/** Records nothing: every read scans from the start of the file. */
export const noop: LineIndexShape = {
  every: 0,
  lookup: () => Effect.succeed(origin),
  totalLines: () => Effect.succeed(undefined),
  forget: () => Effect.void,
  record: () => Effect.void
}

export class LineIndex extends Context.Reference<LineIndex>()("effect-read/LineIndex", {
  defaultValue: (): LineIndexShape => makeMemory()
}) {}

/** A private index (tests, or one per agent session). */
export const layerMemory = (options?: Options): Layer.Layer<LineIndex> =>
  Layer.sync(LineIndex, () => makeMemory(options))

/** Records nothing, as a layer. */
export const layerNoop: Layer.Layer<LineIndex> = Layer.succeed(LineIndex, noop)
