/**
 * Descriptor exhaustion is a wait, not a failure: a process at its open-files limit (EMFILE), or
 * a system at its own (ENFILE), frees descriptors as other reads finish. Every operation of a
 * read that takes a descriptor (open, listing a directory, reading a whole file) waits for one,
 * as graceful-fs does for Node: a failed attempt queues, and each descriptor this process frees
 * through a patient filesystem wakes the oldest waiter to try again (a slow poll covers
 * descriptors freed elsewhere). Waiting lasts as long as descriptors keep being freed: only when
 * none was freed for `PATIENCE` (they are held elsewhere, or leaked) does the EMFILE/ENFILE stand.
 */
import type { PlatformError } from "@effect/platform/Error"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"

/** How long an operation waits without any descriptor being freed before its EMFILE/ENFILE stands. */
export const PATIENCE = Duration.seconds(30)
/**
 * A waiter also wakes now and then to look for descriptors freed by others (10 ms, doubling to
 * 1 s: a thousand waiters must not spin), and one waiter at most every 50 ms does look.
 */
const FIRST_POLL_MILLIS = 10
const MAX_POLL_MILLIS = 1000
const POLL_GAP_MILLIS = 50

export const isExhausted = (error: PlatformError): boolean =>
  error._tag === "SystemError" && /\bE[MN]FILE\b/.test(error.description ?? "")

// Process-wide, as the descriptor table is.
const waiters: Array<() => void> = []
let freedCount = 0
let lastFreedAt = 0
let lastPollAt = 0

/** A descriptor was freed: wake the oldest waiter. */
const freed = Effect.sync(() => {
  freedCount++
  lastFreedAt = Date.now()
  waiters.shift()?.()
})

/** Until a descriptor is freed (interruptible: leaves the queue). */
const descriptorFreed = Effect.async<void>((resume) => {
  const wake = () => resume(Effect.void)
  waiters.push(wake)
  return Effect.sync(() => {
    const at = waiters.indexOf(wake)
    if (at >= 0) waiters.splice(at, 1)
  })
})

/**
 * Real time, not the `Clock`: descriptors are freed in the real world, and a test on a
 * `TestClock` that meets an EMFILE (a fault layer's) must still get its answer.
 */
const sleep = (millis: number) =>
  Effect.async<void>((resume) => {
    const timer = setTimeout(() => resume(Effect.void), millis)
    return Effect.sync(() => clearTimeout(timer))
  })

/** `self`, tried again each time a descriptor frees while it fails for want of one. */
export const patiently = <A, R>(self: Effect.Effect<A, PlatformError, R>): Effect.Effect<A, PlatformError, R> =>
  Effect.gen(function*() {
    const start = Date.now()
    const idle = (now: number) => now - Math.max(start, lastFreedAt) >= Duration.toMillis(PATIENCE)
    let poll = FIRST_POLL_MILLIS
    for (;;) {
      const seen = freedCount
      const attempt = yield* Effect.either(self)
      if (attempt._tag === "Right") return attempt.right
      if (!isExhausted(attempt.left) || idle(Date.now())) return yield* attempt.left
      // Freed while we tried: try again at once rather than wait for the next one.
      if (freedCount !== seen) continue
      for (;;) {
        const woken = yield* Effect.raceFirst(
          Effect.as(descriptorFreed, true),
          Effect.as(sleep(poll), false)
        )
        if (woken) break
        poll = Math.min(poll * 2, MAX_POLL_MILLIS)
        // Descriptors freed by others wake nobody: one waiter at a time looks, not all of them.
        const now = Date.now()
        if (idle(now) || now - lastPollAt >= POLL_GAP_MILLIS) {
          lastPollAt = now
          break
        }
      }
    }
  })

/** An operation that holds a descriptor only while it runs: its end frees one. */
const transient = <A, R>(self: Effect.Effect<A, PlatformError, R>) => Effect.ensuring(patiently(self), freed)

const patient = new WeakMap<FileSystem.FileSystem, FileSystem.FileSystem>()

/** `fs` with its descriptor-taking operations made patient (one wrapper per filesystem). */
export const patientFileSystem = (fs: FileSystem.FileSystem): FileSystem.FileSystem => {
  const known = patient.get(fs)
  if (known !== undefined) return known
  const wrapped = FileSystem.make({
    ...fs,
    open: (path, options) =>
      Effect.gen(function*() {
        let opened = false
        // Added before the open, so it runs after the file is closed.
        yield* Effect.addFinalizer(() => opened ? freed : Effect.void)
        const file = yield* patiently(fs.open(path, options))
        opened = true
        return file
      }),
    readDirectory: (path, options) => transient(fs.readDirectory(path, options)),
    readFile: (path) => transient(fs.readFile(path))
  })
  patient.set(fs, wrapped)
  originals.set(wrapped, fs)
  return wrapped
}

const originals = new WeakMap<FileSystem.FileSystem, FileSystem.FileSystem>()

/** The filesystem a patient one wraps (`fs` itself when it wraps none). */
export const unwrapPatient = (fs: FileSystem.FileSystem): FileSystem.FileSystem => originals.get(fs) ?? fs

/** `context` with its `FileSystem` made patient (it must hold one). */
export const withPatientFileSystem = (context: Context.Context<never>): Context.Context<never> =>
  Context.add(context, FileSystem.FileSystem, patientFileSystem(Context.unsafeGet(context, FileSystem.FileSystem)))
