/**
 * A counting semaphore that hands each released permit straight to the longest waiter (FIFO).
 *
 * Effect 3's `Semaphore` wakes every waiter on each release and lets them race for the permit,
 * so n waiters cost O(n²) wake-ups (1,000 concurrent reads over 128 permits: ~10 s). Here a
 * release resumes exactly one fiber, and waiters are served in arrival order, so none starves.
 */
import * as Effect from "effect/Effect"

interface Waiter {
  /** The permit was handed to this waiter: it now owns it, whether or not it has resumed. */
  served: boolean
  /** Interrupted while waiting: releases skip it. */
  cancelled: boolean
  wake: (() => void) | undefined
}

export interface Permits {
  /** Run `self` holding one permit; the permit is returned however `self` ends. */
  readonly withPermit: <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /**
   * Take a permit now if one is free (never ahead of a waiter), for a holder that is not a fiber
   * (a descriptor's callbacks): it must `unsafeRelease` it exactly once.
   */
  readonly unsafeTryAcquire: () => boolean
  /** Give back a permit taken with `unsafeTryAcquire`: to the longest waiter, else free. */
  readonly unsafeRelease: () => void
  /** Permits free right now (for tests and diagnostics). */
  readonly available: () => number
  /** Fibers waiting right now, interrupted ones excluded. */
  readonly waiting: () => number
}

export const unsafeMake = (permits: number): Permits => {
  let free = permits
  // A queue with a moving head: O(1) push and shift, compacted once half of it is spent.
  let queue: Array<Waiter | undefined> = []
  let head = 0
  let cancelled = 0

  const release = (): void => {
    while (head < queue.length) {
      const waiter = queue[head]!
      queue[head++] = undefined
      if (head > 1024 && head * 2 > queue.length) {
        queue = queue.slice(head)
        head = 0
      }
      if (waiter.cancelled) {
        cancelled--
        continue
      }
      waiter.served = true
      waiter.wake?.()
      return
    }
    free++
  }

  // Invariant: `free > 0` only when every queued waiter is cancelled, so taking a free permit
  // directly never jumps the queue.
  const acquire = (restore: <X, Y, Z>(effect: Effect.Effect<X, Y, Z>) => Effect.Effect<X, Y, Z>) =>
    Effect.suspend(() => {
      if (free > 0) {
        free--
        return Effect.void
      }
      const waiter: Waiter = { served: false, cancelled: false, wake: undefined }
      queue.push(waiter)
      return restore(Effect.async<void>((resume) => {
        if (waiter.served) return resume(Effect.void)
        waiter.wake = () => resume(Effect.void)
      })).pipe(
        // Interrupted while waiting: leave the queue; interrupted just after being served
        // (before resuming): the permit is ours, so pass it on.
        Effect.onInterrupt(() =>
          Effect.sync(() => {
            if (waiter.served) return release()
            waiter.cancelled = true
            cancelled++
          })
        )
      )
    })

  return {
    withPermit: (self) =>
      Effect.uninterruptibleMask((restore) =>
        Effect.zipRight(acquire(restore), Effect.ensuring(restore(self), Effect.sync(release)))
      ),
    unsafeTryAcquire: () => {
      if (free === 0) return false
      free--
      return true
    },
    unsafeRelease: release,
    available: () => free,
    waiting: () => queue.length - head - cancelled
  }
}
