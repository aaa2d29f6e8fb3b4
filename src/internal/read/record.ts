/**
 * The last step of a file read: what it showed is recorded in the ledger (`FileTime`, handed the
 * bytes read at open so it need not read the file again), and the language server warms up.
 *
 * What a read records of what it showed — the ledger's coverage, the session's memory — may have
 * to wait for its caller: `read_many` cuts a file's block to its share of the output
 * budget after the read, and only the lines it kept were shown. Inside `deferring`, reads queue
 * their recording instead of running it; the caller runs the queue with the last line it kept.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import { FileTime, type ReadBytes, type Shown } from "../../FileTime.js"
import { Lsp, noop } from "../../Lsp.js"
import type { ReadResult } from "../../ReadResult.js"
import * as Secrets from "../../Secrets.js"
import { Workspace } from "../../Workspace.js"
import { clipRanges } from "../core/ranges.js"
import type { Target } from "./access.js"
import { Programmatic } from "./audience.js"

/** A queued recording: run with the last line the caller kept (`undefined`: all that was read). */
export type Recording = (lastShown: number | undefined) => Effect.Effect<void>

const pending: FiberRef.FiberRef<Array<Recording> | undefined> = FiberRef.unsafeMake<Array<Recording> | undefined>(
  undefined
)

/** Run `record` now, or queue it (with the services it needs) when the caller defers recording. */
export const recordOrDefer = <R>(record: (lastShown: number | undefined) => Effect.Effect<void, never, R>) =>
  Effect.flatMap(
    FiberRef.get(pending),
    (queue) =>
      queue === undefined ? record(undefined) : Effect.map(Effect.context<R>(), (context) => {
        queue.push((lastShown) => Effect.provide(record(lastShown), context))
      })
  )

/** Run `self` with its recordings queued; they are returned to run once the caller knows what it kept. */
export const deferring = <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.suspend(() => {
    const queue: Array<Recording> = []
    return Effect.map(Effect.locally(self, pending, queue), (value) => [value, queue] as const)
  })

/** The lines a text read showed, for the ledger's coverage (not a part of a long line). */
const shownOf = (result: ReadResult): Shown | undefined => {
  const m = result.metadata
  if (m.kind !== "text" || m.startLine === undefined || m.endLine === undefined || m.column !== undefined) {
    return undefined
  }
  return {
    start: m.startLine,
    end: m.endLine,
    whole: m.startLine === 1 && !m.truncated && m.ranges === undefined,
    size: m.size,
    mtime: m.mtime,
    ranges: m.ranges
  }
}

/** What was shown, less the lines whose secrets were masked (the model saw placeholders there, not the lines). */
const withoutLines = (shown: Shown | undefined, masked: ReadonlyArray<number> | undefined): Shown | undefined => {
  if (shown === undefined || masked === undefined || masked.length === 0) return shown
  const ranges: Array<{ start: number; end: number }> = []
  for (const range of shown.ranges ?? [{ start: shown.start, end: shown.end }]) {
    let start = range.start
    for (const line of masked) {
      if (line < start || line > range.end) continue
      if (line > start) ranges.push({ start, end: line - 1 })
      start = line + 1
    }
    if (start <= range.end) ranges.push({ start, end: range.end })
  }
  if (ranges.length === 0) return undefined
  return {
    ...shown,
    start: ranges[0]!.start,
    end: ranges[ranges.length - 1]!.end,
    whole: false,
    ranges: ranges.length > 1 ? ranges : undefined
  }
}

/** What was shown when a caller kept lines up to `lastShown` only. */
const clipShown = (shown: Shown | undefined, lastShown: number | undefined): Shown | undefined => {
  if (shown === undefined || lastShown === undefined || lastShown >= shown.end) return shown
  if (lastShown < shown.start) return undefined
  const ranges = shown.ranges === undefined ? undefined : clipRanges(shown.ranges, lastShown)
  return { ...shown, end: lastShown, whole: false, ranges }
}

/** The session read this file (for edit guards); the language server warms up for later edits. */
const recordRead = (absolute: string, shown: Shown | undefined, bytes: ReadBytes | undefined) =>
  Effect.flatMap(Effect.context<Workspace | FileTime | Lsp>(), (context) => {
    const lsp = Context.get(context, Lsp)
    // Never let the language server fail or delay the read. No server to warm: no fiber to fork.
    const touch = lsp === noop ? Effect.void : lsp.touchFile(absolute).pipe(
      Effect.timeout("30 seconds"),
      Effect.catchAllCause((cause) => Effect.logDebug("Lsp.touchFile failed", cause)),
      Effect.forkDaemon
    )
    // The model was not shown a programmatic read: it covers nothing for an Edit guard.
    if (Context.get(context, Programmatic)) return touch
    const recorded = Context.get(context, FileTime).read(
      Context.get(context, Workspace).sessionId,
      absolute,
      shown,
      bytes
    )
    return lsp === noop ? recorded : Effect.zipRight(recorded, touch)
  })

/**
 * Record a file read: what the model was shown of it (less the lines whose secrets were masked:
 * `read` masks its result last, and a masked line was not shown), with the bytes read at open.
 * Now, or when the caller runs its deferred recordings (`deferring`).
 */
export const recordFileRead = (target: Target, result: ReadResult, bytes: ReadBytes | undefined) =>
  Effect.flatMap(Secrets.maskedLines(result, target.real), (masked) =>
    // read_many may keep fewer lines than were read: it records what it kept.
    recordOrDefer((lastShown) =>
      recordRead(target.absolute, clipShown(withoutLines(shownOf(result), masked), lastShown), bytes)
    ))
