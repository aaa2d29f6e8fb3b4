/**
 * An MCP SDK `Transport` for newline-delimited JSON-RPC on a pair of streams (stdin/stdout).
 *
 * The SDK's own `StdioServerTransport` hands every line to `JSON.parse` and the SDK's schemas
 * and only logs what fails: a client that sends a malformed line gets no answer, and a line
 * over 10 MB closes the connection. This one answers every line that deserves an answer
 * (`-32700`, `-32600`, and whatever `check` says) and passes only well-formed messages on.
 *
 * Request ids are renumbered on the way in (1, 2, 3, …) and restored on the way out: the SDK
 * ignores a `notifications/cancelled` whose `requestId` is falsy, so a request with id `0` or
 * `""` could not be cancelled otherwise, and a cancellation for a request not in flight is
 * dropped here rather than risk naming another request.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import * as Duration from "effect/Duration"
import type { Readable, Writable } from "node:stream"
import type { EarlyInput } from "./earlyInitialize.js"
import {
  classify,
  type ErrorResponse,
  type Id,
  LineBuffer,
  MAX_MESSAGE_BYTES,
  type Request,
  stringifyLine,
  tooLong
} from "./jsonRpc.js"

export interface StdioTransportOptions {
  /** Where messages arrive (default `process.stdin`). */
  readonly input?: Readable | undefined
  /** Where answers go (default `process.stdout`); nothing else is written to it. */
  readonly output?: Writable | undefined
  /** Longest message taken (default 1 MiB). */
  readonly maxMessageBytes?: number | undefined
  /** A request's last check before dispatch: an error to answer instead, or undefined to dispatch it. */
  readonly check?: ((request: Request) => ErrorResponse | undefined) | undefined
  /**
   * After the input ends, how long requests in flight may take to be answered before they are
   * interrupted and the transport closes (default 5 s): a client that closed stdin wants the
   * server gone, but `printf '…' | effect-read mcp` wants its answers.
   */
  readonly endGrace?: Duration.DurationInput | undefined
  /** Told about lines that were dropped without an answer (malformed notifications and responses). */
  readonly onIgnored?: ((reason: string) => void) | undefined
  /**
   * What was read from `input` before the transport started (`earlyInitialize.listen`; the input
   * is left paused): taken as if it arrived now. When its first line, an `initialize`, was
   * already answered, the server's answer to it is not sent again.
   */
  readonly early?: EarlyInput | undefined
  /** Told the method of each request once its answer is written. */
  readonly onAnswered?: ((method: string) => void) | undefined
}

const isId = (value: unknown): value is string | number => typeof value === "string" || typeof value === "number"

const key = (id: string | number): string => `${typeof id}:${id}`

export class StdioTransport implements Transport {
  onclose?: (() => void) | undefined
  onerror?: ((error: Error) => void) | undefined
  onmessage?: ((message: JSONRPCMessage) => void) | undefined

  private readonly input: Readable
  private readonly output: Writable
  private readonly lines: LineBuffer
  private readonly maxMessageBytes: number
  private started = false
  private closed = false
  /** The input ended: close once every request in flight is answered. */
  private ended = false
  private graceTimer: ReturnType<typeof setTimeout> | undefined
  private lastId = 0
  /** Requests dispatched and not yet answered (nor cancelled): our id → the client's. */
  private readonly inFlight = new Map<number, Id>()
  /** The same, the other way: the client's id (`typeof:id`) → ours. */
  private readonly ours = new Map<string, number>()
  /** The method of each request in flight, by our id. */
  private readonly methods = new Map<number, string>()
  /** The line already sent in answer to the first request (`early`), until the server's own answer comes. */
  private earlyAnswer: string | undefined
  /** Our id of that request, once it is dispatched. */
  private answeredEarly: number | undefined

  constructor(private readonly options: StdioTransportOptions = {}) {
    this.input = options.input ?? process.stdin
    this.output = options.output ?? process.stdout
    this.maxMessageBytes = options.maxMessageBytes ?? MAX_MESSAGE_BYTES
    this.lines = new LineBuffer(this.maxMessageBytes)
  }

  private readonly onData = (chunk: Uint8Array | string): void => {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk
    for (const line of this.lines.push(bytes)) this.receive(line)
  }

  private readonly onEnd = (): void => {
    for (const line of this.lines.end()) this.receive(line)
    // `printf '…' | effect-read mcp` gets its answers before the server exits.
    this.ended = true
    if (this.inFlight.size === 0) return void this.close()
    this.graceTimer = setTimeout(
      () => void this.close(),
      Duration.toMillis(this.options.endGrace ?? Duration.seconds(5))
    )
  }

  private readonly onInputError = (error: Error): void => {
    this.onerror?.(error)
    void this.close()
  }

  private readonly onOutputError = (error: Error): void => {
    // The reader is gone (EPIPE): nobody can be answered any more.
    this.onerror?.(error)
    void this.close()
  }

  private receive(line: ReturnType<LineBuffer["push"]>[number]): void {
    if (this.closed) return
    if (line._tag === "TooLong") {
      return void this.write(tooLong(line.bytes, this.maxMessageBytes))
    }
    const text = line.text.charCodeAt(0) === 0xfeff ? line.text.slice(1) : line.text
    // Blank lines separate nothing and ask nothing.
    if (text.trim() === "") return
    const verdict = classify(text)
    switch (verdict._tag) {
      case "Reply":
        return void this.write(verdict.response)
      case "Ignore":
        return this.options.onIgnored?.(verdict.reason)
      case "Request": {
        const early = this.earlyAnswer !== undefined && this.lastId === 0
        const refused = this.options.check?.(verdict.message)
        if (refused !== undefined) {
          // Never twice: the early answer was sent only for what the check takes.
          if (early) return void this.onerror?.(new Error(`the check refused an initialize answered early`))
          return void this.write(refused)
        }
        const id = ++this.lastId
        if (early) this.answeredEarly = id
        this.inFlight.set(id, verdict.message.id)
        this.methods.set(id, verdict.message.method)
        this.ours.set(key(verdict.message.id), id)
        return this.dispatch({ ...verdict.message, id } as JSONRPCMessage)
      }
      case "Notification": {
        const { method, params } = verdict.message
        if (method !== "notifications/cancelled") return this.dispatch(verdict.message as JSONRPCMessage)
        const id = isId(params?.requestId) ? this.ours.get(key(params.requestId)) : undefined
        if (id === undefined) return this.options.onIgnored?.("a cancellation for no request in flight")
        // A cancelled request is never answered: stop waiting for it.
        this.forget(id)
        return this.dispatch({ ...verdict.message, params: { ...params, requestId: id } } as JSONRPCMessage)
      }
      case "Response":
        return this.dispatch(verdict.message as JSONRPCMessage)
    }
  }

  private dispatch(message: JSONRPCMessage): void {
    try {
      this.onmessage?.(message)
    } catch (error) {
      // A dispatcher bug must not stop the lines after this one.
      this.onerror?.(error instanceof Error ? error : new Error(String(error)))
    }
  }

  private write(message: unknown): Promise<void> {
    if (this.closed) return Promise.resolve()
    return new Promise<void>((resolve) => {
      if (this.output.write(`${stringifyLine(message)}\n`)) resolve()
      else this.output.once("drain", resolve)
    })
  }

  async start(): Promise<void> {
    if (this.started) throw new Error("StdioTransport already started")
    this.started = true
    this.input.on("data", this.onData)
    this.input.on("end", this.onEnd)
    this.input.on("error", this.onInputError)
    this.output.on("error", this.onOutputError)
    const early = this.options.early
    if (early === undefined) return
    this.earlyAnswer = early.answer
    for (const chunk of early.chunks) this.onData(chunk)
    if (early.error !== undefined) this.onInputError(early.error)
    else if (early.ended) this.onEnd()
    else this.input.resume()
  }

  private forget(id: number): Id | undefined {
    const theirs = this.inFlight.get(id)
    if (theirs === undefined) return undefined
    this.inFlight.delete(id)
    this.methods.delete(id)
    if (this.ours.get(key(theirs)) === id) this.ours.delete(key(theirs))
    return theirs
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!("id" in message && ("result" in message || "error" in message))) return this.write(message)
    // A response: to the client's id. None is due for a request that was cancelled.
    const method = typeof message.id === "number" ? this.methods.get(message.id) : undefined
    const theirs = typeof message.id === "number" ? this.forget(message.id) : undefined
    if (theirs === undefined) return
    if (message.id === this.answeredEarly) {
      // Answered before the server was loaded, with what the server answers (see earlyInitialize.ts).
      const answer = stringifyLine({ ...message, id: theirs })
      if (answer !== this.earlyAnswer) {
        this.onerror?.(
          new Error(`initialize was answered early with ${this.earlyAnswer}, the server answers ${answer}`)
        )
      }
      this.answeredEarly = undefined
      this.earlyAnswer = undefined
    } else {
      await this.write({ ...message, id: theirs })
    }
    if (method !== undefined) this.options.onAnswered?.(method)
    if (this.ended && this.inFlight.size === 0) await this.close()
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    clearTimeout(this.graceTimer)
    this.input.off("data", this.onData)
    this.input.off("end", this.onEnd)
    this.input.off("error", this.onInputError)
    this.output.off("error", this.onOutputError)
    // Let the process exit once nothing else holds it (stdin would keep it alive).
    this.input.pause()
    this.onclose?.()
  }
}
