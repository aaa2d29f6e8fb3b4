/**
 * JSON-RPC 2.0 over newline-delimited stdio, before any MCP logic: one message per line, each
 * parsed and checked here so that a malformed line is answered (`-32700`, `-32600`) and never
 * reaches, or stops, the dispatcher. Pure: bytes in, lines and verdicts out.
 */

export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603
} as const

/** Longest message taken (a read request is a few hundred bytes); longer lines are skipped unbuffered. */
export const MAX_MESSAGE_BYTES = 1024 * 1024

/** Deepest nesting taken: nothing this server reads nests past a handful of levels. */
export const MAX_DEPTH = 64

/** Longest echo of a parser's complaint. */
const MAX_DETAIL = 200

export type Id = string | number

export interface ErrorResponse {
  readonly jsonrpc: "2.0"
  readonly id: Id | null
  readonly error: { readonly code: number; readonly message: string }
}

export const errorResponse = (id: Id | null, code: number, message: string): ErrorResponse => ({
  jsonrpc: "2.0",
  id,
  error: { code, message }
})

type Params = Readonly<Record<string, unknown>>

export interface Request {
  readonly jsonrpc: "2.0"
  readonly id: Id
  readonly method: string
  readonly params?: Params
}

export interface Notification {
  readonly jsonrpc: "2.0"
  readonly method: string
  readonly params?: Params
}

export interface Response {
  readonly jsonrpc: "2.0"
  readonly id: Id
  readonly result?: unknown
  readonly error?: unknown
}

/** What to do with one line. */
export type Verdict =
  | { readonly _tag: "Request"; readonly message: Request }
  | { readonly _tag: "Notification"; readonly message: Notification }
  | { readonly _tag: "Response"; readonly message: Response }
  /** Answer this error and dispatch nothing. */
  | { readonly _tag: "Reply"; readonly response: ErrorResponse }
  /** Neither answered nor dispatched: a malformed notification or response (JSON-RPC answers neither). */
  | { readonly _tag: "Ignore"; readonly reason: string }

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** An id this server can echo exactly: a string, or an integer that survives a JSON round trip. */
const validId = (value: unknown): value is Id =>
  typeof value === "string" || (typeof value === "number" && Number.isSafeInteger(value))

const idOf = (message: Record<string, unknown>): Id | null => (validId(message.id) ? message.id : null)

/** Deeper than `limit`? Iterative: a hostile line may nest a million levels. */
export const deeperThan = (value: unknown, limit: number): boolean => {
  const stack: Array<readonly [unknown, number]> = [[value, 1]]
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!
    if (typeof current !== "object" || current === null) continue
    if (depth > limit) return true
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (typeof child === "object" && child !== null) stack.push([child, depth + 1])
    }
  }
  return false
}

const reply = (id: Id | null, code: number, message: string): Verdict => ({
  _tag: "Reply",
  response: errorResponse(id, code, message)
})

const invalid = (id: Id | null, why: string): Verdict => reply(id, ErrorCode.InvalidRequest, `Invalid Request: ${why}`)

/**
 * Judge one line. Lenient where nothing is ambiguous (a missing `"jsonrpc"` is taken as 2.0,
 * unknown top-level members are dropped), strict where an answer would be wrong otherwise.
 */
export const classify = (line: string): Verdict => {
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error)
    return reply(
      null,
      ErrorCode.ParseError,
      `Parse error: ${detail.length > MAX_DETAIL ? `${detail.slice(0, MAX_DETAIL)}…` : detail}`
    )
  }
  if (Array.isArray(value)) {
    return invalid(null, "batches (JSON arrays) are not supported; send one message per line")
  }
  if (!isRecord(value)) return invalid(null, "a message must be a JSON object")
  const id = idOf(value)
  if (deeperThan(value, MAX_DEPTH)) return invalid(id, `the message nests deeper than ${MAX_DEPTH} levels`)
  if ("jsonrpc" in value && value.jsonrpc !== "2.0") return invalid(id, `"jsonrpc" must be "2.0"`)
  const hasId = "id" in value && value.id !== undefined

  if (!("method" in value)) {
    if (hasId && ("result" in value || "error" in value)) {
      // A response: this server sends no requests, but a response is never answered.
      if (!validId(value.id)) return { _tag: "Ignore", reason: "a response with an invalid id" }
      const message: Response = "error" in value
        ? { jsonrpc: "2.0", id: value.id, error: value.error }
        : { jsonrpc: "2.0", id: value.id, result: value.result }
      return { _tag: "Response", message }
    }
    return invalid(id, `no "method" (a request needs "method" and "id", a notification "method")`)
  }
  if (typeof value.method !== "string") {
    return invalid(id, `"method" must be a string`)
  }
  const method = value.method
  const params = value.params

  if (!hasId) {
    if (params !== undefined && !isRecord(params)) {
      return { _tag: "Ignore", reason: `notification ${method} with params that are not an object` }
    }
    return {
      _tag: "Notification",
      message: params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params }
    }
  }
  if (!validId(value.id)) {
    return invalid(
      null,
      value.id === null
        ? `"id" must not be null (MCP requests have a string or integer id; leave "id" out for a notification)`
        : `"id" must be a string or an integer (at most 2^53 - 1, to be echoed exactly)`
    )
  }
  if (params !== undefined && !isRecord(params)) {
    return Array.isArray(params)
      ? reply(
        value.id,
        ErrorCode.InvalidParams,
        `Invalid params: MCP params are an object of named values, not an array`
      )
      : invalid(value.id, `"params" must be an object`)
  }
  return {
    _tag: "Request",
    message: params === undefined
      ? { jsonrpc: "2.0", id: value.id, method }
      : { jsonrpc: "2.0", id: value.id, method, params }
  }
}

/** One line of input: its text, or the fact that it was longer than the limit (and skipped). */
export type Line =
  | { readonly _tag: "Line"; readonly text: string }
  | { readonly _tag: "TooLong"; readonly bytes: number }

/**
 * Splits a byte stream into lines (`\n`, an optional `\r` before it dropped). A line over
 * `maxBytes` is not buffered: its bytes are counted and dropped until its end, so memory stays
 * bounded whatever arrives.
 */
export class LineBuffer {
  private parts: Array<Uint8Array> = []
  private size = 0
  private skipping = false

  constructor(private readonly maxBytes: number = MAX_MESSAGE_BYTES) {}

  push(chunk: Uint8Array): Array<Line> {
    const lines: Array<Line> = []
    let start = 0
    while (start <= chunk.length) {
      const newline = chunk.indexOf(10, start)
      const end = newline === -1 ? chunk.length : newline
      this.take(chunk.subarray(start, end))
      if (newline === -1) break
      lines.push(this.finish())
      start = newline + 1
    }
    return lines
  }

  /** The end of input: an unterminated last line counts. */
  end(): Array<Line> {
    return this.size > 0 || this.skipping ? [this.finish()] : []
  }

  private take(bytes: Uint8Array): void {
    if (bytes.length === 0) return
    this.size += bytes.length
    if (this.skipping) return
    if (this.size > this.maxBytes) {
      this.skipping = true
      this.parts = []
      return
    }
    // A copy: the caller may reuse its chunk.
    this.parts.push(Uint8Array.prototype.slice.call(bytes))
  }

  private finish(): Line {
    const line: Line = this.skipping
      ? { _tag: "TooLong", bytes: this.size }
      : { _tag: "Line", text: Buffer.concat(this.parts, this.size).toString("utf8").replace(/\r$/, "") }
    this.parts = []
    this.size = 0
    this.skipping = false
    return line
  }
}

/** The answer to a line that was too long to read. */
export const tooLong = (bytes: number, limit: number = MAX_MESSAGE_BYTES): ErrorResponse =>
  errorResponse(
    null,
    ErrorCode.InvalidRequest,
    `Invalid Request: the message is ${bytes} bytes, over the limit of ${limit} bytes per message; it was skipped`
  )

/** Strings at least this long are written into a JSON line as they are when they need no escaping. */
export const RAW_STRING_CHARS = 64 * 1024

/** Printable ASCII but `"` and `\\`: JSON holds it as it is. */
const NEEDS_NO_ESCAPE = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/

/**
 * `JSON.stringify(message)`, faster when it holds long strings that need no escaping (the base64
 * of an attachment, twice in a read's answer: V8 spends ~8 ns a character on each, five times
 * what encoding the base64 took): those are put in as they are. Same text as `JSON.stringify`.
 */
export const stringifyLine = (message: unknown, rawChars: number = RAW_STRING_CHARS): string => {
  const raw: Array<string> = []
  // NUL is escaped in JSON text, and the nonce is new each time: no other string reads like it.
  const marker = `\u0000raw-${Math.random().toString(36).slice(2)}-`
  const text = JSON.stringify(message, (_key, value: unknown) => {
    if (typeof value === "string" && value.length >= rawChars && NEEDS_NO_ESCAPE.test(value)) {
      raw.push(value)
      return `${marker}${raw.length - 1}`
    }
    return value
  })
  if (raw.length === 0 || text === undefined) return text
  const escaped = JSON.stringify(marker).slice(1, -1).replace(/[\\^$.*+?()[\]{}|]/g, "\\$&")
  const parts = text.split(new RegExp(`"${escaped}(\\d+)"`))
  let out = parts[0]!
  for (let i = 1; i < parts.length; i += 2) out += `"${raw[Number(parts[i])]}"${parts[i + 1]}`
  return out
}
