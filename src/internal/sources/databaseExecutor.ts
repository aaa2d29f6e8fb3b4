/**
 * Statements that read rows run in a process of their own (`workers/sqlite-query.mjs`), bounded
 * in time by `QueryLimits` and in bytes by the caps below, so that one runaway query (an
 * unbounded recursive CTE, a cross join in a `where`, a view that never ends) neither blocks this
 * process's event loop nor takes its heap.
 *
 * Why a process: better-sqlite3 has no interrupt and this SQLite is built without a progress
 * handler, so a statement inside `sqlite3_step` cannot be stopped from JavaScript. A worker
 * thread cannot be stopped either: `terminate()` waits for it to return to JavaScript, and
 * process exit then waits for it too. A process is killed (SIGKILL) when its statements outrun
 * the budget. Idle processes are kept for the next read (`QueryLimits`: at most 2, for 30 s), so
 * most reads pay no start-up; they never keep this process alive, and leave with it.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { type ChildProcess, fork } from "node:child_process"
import { tmpdir } from "node:os"
import { fileURLToPath } from "node:url"
import { QueryLimits, type QueryLimitsShape } from "../../Limits.js"
import { BUSY_TIMEOUT_MS, CONNECTION_PRAGMAS, driverPath, type Source } from "./database/driver.js"
import { type Fetch, type Fetched, MAX_FETCH_BYTES } from "./database/reader.js"

export { QueryLimits, type QueryLimitsShape } from "../../Limits.js"

/** A statement could not run or was stopped; `message` is what the model reads. */
export class ExecutionFailure {
  readonly _tag = "ExecutionFailure"
  constructor(readonly message: string) {}
}

const WORKER = new URL("../../../workers/sqlite-query.mjs", import.meta.url)
/** Query processes running at once; further reads wait for one. */
const MAX_RUNNING = 4
const IDLE_PROCESSES = 2
const IDLE_TIMEOUT = Duration.seconds(30)
/** Bound on a process's start-up (not part of the budget): never wait on it for ever. */
const START_TIMEOUT = Duration.seconds(30)
/** The process's own watchdog fires this long after the budget, for when we are gone. */
const WATCHDOG_GRACE_MS = 5_000
/** A query process's JavaScript heap: values are cut before they reach it. */
const PROCESS_HEAP_MB = 256

const running = Effect.unsafeMakeSemaphore(MAX_RUNNING)
const idle: Array<{ readonly child: ChildProcess; readonly timer: NodeJS.Timeout }> = []
let jobs = 0

const kill = (child: ChildProcess): void => {
  if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
}

/** Whether this process may exit: an idle query process must not hold it. */
const hold = (child: ChildProcess, held: boolean): void => {
  const channel = child.channel as { ref(): void; unref(): void } | null | undefined
  if (held) {
    child.ref()
    channel?.ref()
  } else {
    child.unref()
    channel?.unref()
  }
}

const ended = (code: number | null, signal: NodeJS.Signals | null): string =>
  signal !== null ? `killed by ${signal}` : `exit code ${code}`

const start = Effect.async<ChildProcess, ExecutionFailure>((resume) => {
  const child = fork(fileURLToPath(WORKER), [driverPath()], {
    execArgv: [`--max-old-space-size=${PROCESS_HEAP_MB}`],
    serialization: "advanced",
    stdio: ["ignore", "ignore", "ignore", "ipc"],
    // Anything the process might leave (a core file) goes nowhere near the project.
    cwd: tmpdir()
  })
  const done = () => {
    child.off("message", onMessage)
    child.off("exit", onExit)
    child.off("error", onError)
  }
  const onMessage = (message: unknown) => {
    if (message !== "ready") return
    done()
    resume(Effect.succeed(child))
  }
  const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
    done()
    resume(Effect.fail(new ExecutionFailure(`SQLite query process could not start (${ended(code, signal)})`)))
  }
  const onError = (error: Error) => {
    done()
    kill(child)
    resume(Effect.fail(new ExecutionFailure(`SQLite query process could not start: ${error.message}`)))
  }
  child.on("message", onMessage)
  child.on("exit", onExit)
  child.on("error", onError)
  return Effect.sync(() => {
    done()
    kill(child)
  })
}).pipe(
  Effect.timeoutFail({
    duration: START_TIMEOUT,
    onTimeout: () => new ExecutionFailure("SQLite query process did not start within 30 seconds")
  })
)

const acquire = Effect.suspend(() => {
  for (let next = idle.pop(); next !== undefined; next = idle.pop()) {
    clearTimeout(next.timer)
    if (next.child.connected && next.child.exitCode === null && next.child.signalCode === null) {
      return Effect.succeed(next.child)
    }
  }
  return start
})

/** Keep a process that answered for the next read, within the limits; end it otherwise. */
const release = (child: ChildProcess, reusable: boolean, limits: QueryLimitsShape): void => {
  const keep = Math.max(0, Math.floor(limits.idleProcesses ?? IDLE_PROCESSES))
  // A smaller limit than an earlier read's ends the oldest idle processes.
  while (idle.length > keep) {
    const oldest = idle.shift()!
    clearTimeout(oldest.timer)
    kill(oldest.child)
  }
  if (!reusable || idle.length >= keep || !child.connected) return kill(child)
  hold(child, false)
  const timer = setTimeout(() => {
    const at = idle.findIndex((entry) => entry.child === child)
    if (at >= 0) idle.splice(at, 1)
    kill(child)
  }, Duration.toMillis(Duration.decode(limits.idleTimeout ?? IDLE_TIMEOUT)))
  timer.unref()
  idle.push({ child, timer })
}

interface Reply {
  readonly id: number
  readonly results?: ReadonlyArray<Fetched>
  readonly error?: { readonly message: string }
}

const send = (child: ChildProcess, job: Record<string, unknown>, onReply: () => void) =>
  Effect.async<ReadonlyArray<Fetched>, ExecutionFailure>((resume) => {
    const id = ++jobs
    const done = () => {
      child.off("message", onMessage)
      child.off("exit", onExit)
    }
    const onMessage = (message: Reply) => {
      if (message?.id !== id) return
      done()
      onReply()
      resume(
        message.error === undefined
          ? Effect.succeed(message.results ?? [])
          : Effect.fail(new ExecutionFailure(`SQLite query failed: ${message.error.message}`))
      )
    }
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      done()
      resume(Effect.fail(
        new ExecutionFailure(
          `SQLite query failed: the process running it ended unexpectedly (${
            ended(code, signal)
          }); select fewer or smaller values`
        )
      ))
    }
    child.on("message", onMessage)
    child.on("exit", onExit)
    hold(child, true)
    child.send({ ...job, id }, (error) => {
      if (error === null) return
      done()
      resume(Effect.fail(new ExecutionFailure(`SQLite query failed: cannot reach its process: ${error.message}`)))
    })
    return Effect.sync(done)
  })

/**
 * Run `fetches` in order on one read-only connection to `source`, in a query process, within
 * the `QueryLimits` budget (start-up excluded). Values longer than `maxChars` characters come
 * back cut; each statement's rows stop at `MAX_FETCH_BYTES` of values.
 */
export const execute = Effect.fn("Read.database.execute")(function*(
  source: Source,
  fetches: ReadonlyArray<Fetch>,
  maxChars: number
) {
  const limits = yield* QueryLimits
  const budget = Duration.decode(limits.timeout)
  const job = {
    source,
    pragmas: CONNECTION_PRAGMAS,
    busyTimeout: BUSY_TIMEOUT_MS,
    watchdogMs: Duration.toMillis(budget) + WATCHDOG_GRACE_MS,
    maxBytes: MAX_FETCH_BYTES,
    maxChars,
    fetches
  }
  return yield* running.withPermits(1)(Effect.acquireUseRelease(
    Effect.map(acquire, (child) => ({ child, answered: false })),
    (state) =>
      send(state.child, job, () => (state.answered = true)).pipe(
        Effect.timeoutFail({
          duration: budget,
          onTimeout: () =>
            new ExecutionFailure(
              `SQLite query was stopped: it ran past its ${
                Duration.format(budget)
              } time budget. Make it cheaper (a narrower WHERE, a LIMIT inside a recursive CTE) and run it again`
            )
        })
      ),
    (state) => Effect.sync(() => release(state.child, state.answered, limits))
  ))
})
