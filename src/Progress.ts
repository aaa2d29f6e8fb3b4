/**
 * Progress of reads that take a while. A loop that may run for seconds (reading up to a deep
 * page of a huge file, scanning an archive, walking the project for a mistyped path) reports
 * how far it got; the front door decides who sees it: the MCP server sends
 * `notifications/progress` to a client that asked with a `progressToken`, the CLI draws a
 * status line on stderr when stderr is a terminal. By default nobody sees anything and a
 * report costs one function call.
 *
 * It is a `Context.Reference` with a no-op default, so loops report unconditionally and only
 * a front door provides a real one:
 *
 * ```ts
 * Read.read(params).pipe(Effect.provideService(Progress.Progress, Progress.throttled(show)))
 * ```
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Layer from "effect/Layer"

/** How far one task got. */
export interface Update {
  /** What is being done, for a person: `Reading /p/big.log`. */
  readonly task: string
  readonly done: number
  /** Undefined when the end is not known in advance (a walk of the project). */
  readonly total?: number | undefined
  readonly unit: "bytes" | "entries"
}

export interface ProgressShape {
  /** Synchronous and cheap: loops call it for every chunk or entry; throttling is the sink's. */
  readonly report: (update: Update) => void
}

/** Reports go nowhere. */
export const noop: ProgressShape = { report: () => {} }

export class Progress extends Context.Reference<Progress>()("effect-read/Progress", {
  defaultValue: (): ProgressShape => noop
}) {}

/** Reports go nowhere, as a layer (the default, stated). */
export const layerNoop: Layer.Layer<Progress> = Layer.succeed(Progress, noop)

export interface ThrottleOptions {
  /** Nothing is passed on before this much time since `throttled` was called (default 1 s): quick reads stay silent. */
  readonly after?: Duration.DurationInput | undefined
  /** At most one update per this interval (default 250 ms). */
  readonly every?: Duration.DurationInput | undefined
  /** The clock, in milliseconds (tests). */
  readonly now?: (() => number) | undefined
}

/**
 * A reporter that passes updates to `sink` once the work has run for `after`, then at most one
 * per `every`. Make one per read: `after` counts from its creation.
 */
export const throttled = (sink: (update: Update) => void, options: ThrottleOptions = {}): ProgressShape => {
  const now = options.now ?? Date.now
  const after = Duration.toMillis(options.after ?? Duration.seconds(1))
  const every = Duration.toMillis(options.every ?? Duration.millis(250))
  const start = now()
  let last = Number.NEGATIVE_INFINITY
  return {
    report: (update) => {
      const time = now()
      if (time - start < after || time - last < every) return
      last = time
      sink(update)
    }
  }
}

const units = ["bytes", "KiB", "MiB", "GiB", "TiB", "PiB"] as const

/** `1.5 GiB`; whole bytes below 1 KiB. */
const formatBytes = (bytes: number): string => {
  let value = bytes
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  return unit === 0 ? `${bytes} bytes` : `${value.toFixed(1)} ${units[unit]}`
}

const amount = (value: number, unit: Update["unit"]): string =>
  unit === "bytes" ? formatBytes(value) : `${value.toLocaleString("en-US")} entries`

/** One line for a person: `Reading /p/big.log: 1.2 GiB of 4.0 GiB (30%)`, `Searching …: 12,000 entries`. */
export const describe = (update: Update): string => {
  const done = amount(update.done, update.unit)
  if (update.total === undefined || update.total <= 0) return `${update.task}: ${done}`
  const percent = Math.min(100, Math.floor((update.done / update.total) * 100))
  const total = update.unit === "bytes" ? formatBytes(update.total) : update.total.toLocaleString("en-US")
  return `${update.task}: ${update.unit === "bytes" ? done : update.done.toLocaleString("en-US")} of ${total}${
    update.unit === "entries" ? " entries" : ""
  } (${percent}%)`
}

/** Where a status line is drawn: a terminal stream (its width, when known). */
export interface Terminal {
  readonly write: (text: string) => unknown
  readonly columns?: number | undefined
}

/**
 * `update` as a status line redrawn in place: carriage return, the text (its start cut when
 * wider than the terminal, so the numbers stay), erase to the end of the line.
 */
export const statusLine = (update: Update, columns?: number): string => {
  const text = `effect-read: ${describe(update)}`
  // A terminal of unknown size (0 under `script` without a real one) is taken as 80 wide.
  const width = Math.max(20, (columns !== undefined && columns > 0 ? columns : 80) - 1)
  return `\r${text.length > width ? `…${text.slice(text.length - width + 1)}` : text}\x1b[K`
}

/**
 * Progress as a status line on `terminal` (the CLI's stderr when it is a TTY), throttled as
 * `throttled`; `clear` erases the line if anything was drawn, before the result is printed.
 */
export const terminal = (output: Terminal, options?: ThrottleOptions): {
  readonly progress: ProgressShape
  readonly clear: () => void
} => {
  let drawn = false
  return {
    progress: throttled((update) => {
      drawn = true
      output.write(statusLine(update, output.columns))
    }, options),
    clear: () => {
      if (!drawn) return
      drawn = false
      output.write("\r\x1b[K")
    }
  }
}
