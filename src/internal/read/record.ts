/**
 * What a read records of what it showed — the ledger's coverage (`FileTime`), the session's memory
 * — may have to wait for its caller: `read_many` cuts a file's block to its share of the output
 * budget after the read, and only the lines it kept were shown. Inside `deferring`, reads queue
 * their recording instead of running it; the caller runs the queue with the last line it kept.
 */
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"

/** A queued recording: run with the last line the caller kept (`undefined`: all that was read). */
export type Recording = (lastShown: number | undefined) => Effect.Effect<void>

const pending: FiberRef.FiberRef<Array<Recording> | undefined> = FiberRef.unsafeMake<Array<Recording> | undefined>(
  undefined
)

/** Run `record` now, or queue it (with the services it needs) when the caller defers recording. */
export const recordOrDefer = <R>(record: (lastShown: number | undefined) => Effect.Effect<void, never, R>) =>
  Effect.gen(function*() {
    const queue = yield* FiberRef.get(pending)
    if (queue === undefined) return yield* record(undefined)
    const context = yield* Effect.context<R>()
    queue.push((lastShown) => Effect.provide(record(lastShown), context))
  })

/** Run `self` with its recordings queued; they are returned to run once the caller knows what it kept. */
export const deferring = <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.suspend(() => {
    const queue: Array<Recording> = []
    return Effect.map(Effect.locally(self, pending, queue), (value) => [value, queue] as const)
  })

/** Lines `start`-`end` (inclusive ranges) kept up to `lastShown`; ranges past it dropped. */
export const clipRanges = <T extends { readonly start: number; readonly end: number }>(
  ranges: ReadonlyArray<T>,
  lastShown: number | undefined
): Array<T> =>
  lastShown === undefined
    ? [...ranges]
    : ranges.filter((range) => range.start <= lastShown).map((range) => ({ ...range, end: Math.min(range.end, lastShown) }))
