/**
 * `effect-read mcp` answers `initialize` before the MCP SDK and the server are loaded (start-up):
 * a client's first message is `initialize`, and loading the SDK (its zod schemas), the read
 * tool and its services is most of what a start would otherwise make it wait for.
 *
 * The bin listens on stdin once its command line has been checked (a usage error must not follow
 * a successful `initialize`); when the first line is a well-formed `initialize` request, the
 * answer the SDK's `Server` would give is written at once. Every byte read is then handed to
 * `StdioTransport` as if it had just arrived, so the SDK still receives the same `initialize`
 * (its state — the client's capabilities that elicitation asks about, the client's info — is
 * the same) and its answer, the same bytes, is dropped. Anything else (a malformed line, a batch,
 * another method first, params the SDK's schema may refuse, a line not yet complete) is left to
 * the SDK untouched.
 *
 * No SDK and no Effect here: importing either is the cost this saves. What the SDK would answer
 * is written out (`supportedProtocolVersions`, the shape of `Server`'s `_oninitialize`), and
 * test/McpEarlyInitialize.test.ts compares both against the SDK installed.
 */
import type { Readable, Writable } from "node:stream"
import { classify, LineBuffer, MAX_MESSAGE_BYTES, type Request, stringifyLine } from "./jsonRpc.js"

/** The SDK's `LATEST_PROTOCOL_VERSION`: what a client asking for a version it does not know gets. */
export const latestProtocolVersion = "2025-11-25"

/** The SDK's `SUPPORTED_PROTOCOL_VERSIONS`: a client asking for one of these gets it. */
export const supportedProtocolVersions: ReadonlyArray<string> = [
  latestProtocolVersion,
  "2025-06-18",
  "2025-03-26",
  "2024-11-05",
  "2024-10-07"
]

/** What this server offers (`Server`'s `capabilities` option): tools. */
export const serverCapabilities = { tools: {} }

export interface ServerInfo {
  readonly name: string
  readonly version: string
}

type Json = Record<string, unknown>

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value)

/** Anything zod's object checks take (`AssertObjectSchema`: an object, arrays too). */
const isAnyObject = (value: unknown): boolean => typeof value === "object" && value !== null

/** Absent, or present and passing `check` (zod's `.optional()` refuses `null`). */
const optional = (record: Json, key: string, check: (value: unknown) => boolean): boolean =>
  !Object.hasOwn(record, key) || check(record[key])

const isString = (value: unknown): boolean => typeof value === "string"

const isBoolean = (value: unknown): boolean => typeof value === "boolean"

/** Every value of an object passes `check` (zod's `record(string, …)`). */
const recordOf = (check: (value: unknown) => boolean) => (value: unknown): boolean =>
  isObject(value) && Object.keys(value).every((key) => check(value[key]))

/**
 * An object whose listed keys, when present, pass their checks, and that has the `required` ones;
 * other keys are the client's (zod's objects drop them).
 */
const objectWith = (
  checks: Readonly<Record<string, (value: unknown) => boolean>>,
  required: ReadonlyArray<string> = []
) =>
(value: unknown): boolean =>
  isObject(value) && required.every((key) => Object.hasOwn(value, key)) &&
  Object.entries(checks).every(([key, check]) => optional(value, key, check))

const icon = objectWith({
  src: isString,
  mimeType: isString,
  sizes: (value) => Array.isArray(value) && value.every(isString),
  theme: (value) => value === "light" || value === "dark"
}, ["src"])

const implementation = objectWith({
  name: isString,
  title: isString,
  version: isString,
  websiteUrl: isString,
  description: isString,
  icons: (value) => Array.isArray(value) && value.every(icon)
}, ["name", "version"])

const capabilities = objectWith({
  experimental: recordOf(isAnyObject),
  sampling: objectWith({ context: isAnyObject, tools: isAnyObject }),
  elicitation: objectWith({ form: objectWith({ applyDefaults: isBoolean }), url: isAnyObject }),
  roots: objectWith({ listChanged: isBoolean }),
  tasks: objectWith({
    list: isAnyObject,
    cancel: isAnyObject,
    requests: objectWith({
      sampling: objectWith({ createMessage: isAnyObject }),
      elicitation: objectWith({ create: isAnyObject })
    })
  }),
  extensions: recordOf(isAnyObject)
})

const meta = objectWith({
  progressToken: (value) => typeof value === "string" || (typeof value === "number" && Number.isSafeInteger(value)),
  "io.modelcontextprotocol/related-task": objectWith({ taskId: isString }, ["taskId"])
})

const initializeParams = objectWith({
  _meta: meta,
  protocolVersion: isString,
  capabilities,
  clientInfo: implementation
}, ["protocolVersion", "capabilities", "clientInfo"])

/**
 * A request the SDK's `InitializeRequestSchema` surely takes (and so `checkParams` too): the
 * checks are the schema's, for every field it names (where the schema takes more than one form,
 * as an elicitation capability, only the plain one).
 */
export const wellFormedInitialize = (request: Request): boolean =>
  request.method === "initialize" && initializeParams(request.params)

/**
 * The line the SDK's `Server` (as `McpServer.make` builds it: no instructions) answers a
 * well-formed `initialize` with, on our transport: the requested protocol version when it is
 * supported, else the latest; the server's capabilities and info.
 */
export const initializeAnswer = (request: Request, serverInfo: ServerInfo): string => {
  const requested = (request.params as Json).protocolVersion as string
  return stringifyLine({
    result: {
      protocolVersion: supportedProtocolVersions.includes(requested) ? requested : latestProtocolVersion,
      capabilities: serverCapabilities,
      serverInfo
    },
    jsonrpc: "2.0",
    id: request.id
  })
}

/**
 * A command line whose checks cannot fail, so that the bin may answer `initialize` before it loads
 * the command line at all: `mcp` alone, or `mcp --cwd DIR` where DIR is a directory (the one check
 * `--cwd` gets). Any other is answered once the command has checked its options.
 */
export const checksCannotFail = (
  words: ReadonlyArray<string>,
  isDirectory: (path: string) => boolean
): boolean =>
  words[0] === "mcp" && (
    words.length === 1 ||
    (words.length === 3 && words[1] === "--cwd" && /^[^-]/.test(words[2]!) && words[2] !== "mcp" &&
      words[2] !== "many" && isDirectory(words[2]!))
  )

/** Where the bin leaves the listener it started, for the `mcp` command to take over. */
export const listenerKey = Symbol.for("effect-read/early-initialize")

/** What `listen` gives: when the first line has been judged, and all that was read. */
export type Listener = ReturnType<typeof listen>

/** What was read before the transport started, for `StdioTransport` to take over. */
export interface EarlyInput {
  /** Every chunk read from the input, in order (none was dispatched). */
  readonly chunks: ReadonlyArray<Uint8Array>
  /** The input ended meanwhile. */
  readonly ended: boolean
  /** The input failed meanwhile. */
  readonly error: Error | undefined
  /** The line already written in answer to the first line (an `initialize`), when one was. */
  readonly answer: string | undefined
}

/**
 * Listen on `input` and answer a first line that is a well-formed `initialize` on `output`.
 * `settled` resolves once the first line was judged or the event loop has turned twice (what the
 * input already held has then arrived); the input is paused once the first line is judged, so
 * at most that line (up to `maxMessageBytes`) and the rest of its chunk are held; `takeOver` stops
 * listening (the input stays paused) and hands over all that was read.
 */
export const listen = (options: {
  readonly serverInfo: ServerInfo
  readonly input?: Readable | undefined
  readonly output?: Writable | undefined
  readonly maxMessageBytes?: number | undefined
}): { readonly settled: Promise<void>; readonly takeOver: () => EarlyInput } => {
  const input = options.input ?? process.stdin
  const output = options.output ?? process.stdout
  const lines = new LineBuffer(options.maxMessageBytes ?? MAX_MESSAGE_BYTES)
  const chunks: Array<Uint8Array> = []
  let judged = false
  let ended = false
  let error: Error | undefined
  let answer: string | undefined
  let settle: () => void = () => {}
  const settled = new Promise<void>((resolve) => {
    settle = resolve
    // Two turns of the event loop: the first starts reading, the second delivers what is waiting.
    setImmediate(() => setImmediate(resolve))
  })
  const judge = (line: ReturnType<LineBuffer["push"]>[number]) => {
    judged = true
    // What follows waits in the pipe until the transport takes over: a client streaming while the
    // server loads is held back by the pipe, not buffered here.
    input.pause()
    settle()
    if (line._tag !== "Line") return
    const text = line.text.charCodeAt(0) === 0xfeff ? line.text.slice(1) : line.text
    const verdict = classify(text)
    if (verdict._tag !== "Request" || !wellFormedInitialize(verdict.message)) return
    answer = initializeAnswer(verdict.message, options.serverInfo)
    output.write(`${answer}\n`)
  }
  const onData = (chunk: Uint8Array | string) => {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk
    chunks.push(bytes)
    if (judged) return
    const first = lines.push(bytes)[0]
    if (first !== undefined) judge(first)
  }
  const onEnd = () => {
    ended = true
    settle()
  }
  const onError = (cause: Error) => {
    error = cause
    settle()
  }
  input.on("data", onData)
  input.on("end", onEnd)
  input.on("error", onError)
  return {
    settled,
    takeOver: () => {
      input.pause()
      input.off("data", onData)
      input.off("end", onEnd)
      input.off("error", onError)
      return { chunks, ended, error, answer }
    }
  }
}
