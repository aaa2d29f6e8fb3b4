/**
 * The MCP server (`McpServer` re-exports it): what the bin's `mcp` loads. `McpServer.ts` adds the
 * default tool definitions as values made when it loads; the server itself makes them at the first
 * `tools/list` (`defaultDefinitions`).
 */
import * as Tool from "@effect/ai/Tool"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode as McpErrorCode,
  InitializeRequestSchema,
  ListToolsRequestSchema,
  McpError,
  PingRequestSchema,
  type ServerNotification,
  type Tool as McpTool
} from "@modelcontextprotocol/sdk/types.js"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Runtime from "effect/Runtime"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import { randomUUID } from "node:crypto"
import { pathToFileURL } from "node:url"
import * as FileIndex from "../../FileIndex.js"
import * as FileTime from "../../FileTime.js"
import { Description, HostMedia, PageLimits } from "../../Limits.js"
import { attaches, ModelInput, type ModelInputShape } from "../../ModelInput.js"
import * as ModelResult from "../../ModelResult.js"
import * as Permission from "../../Permission.js"
import * as Progress from "../../Progress.js"
import type * as Read from "../../Read.js"
import { ReadParams } from "../../Read.js"
import { describePermission, InvalidParams, PermissionDenied, type ReadError } from "../../ReadError.js"
import * as ReadMany from "../../ReadMany.js"
import type { Attachment } from "../../ReadResult.js"
import * as ReadTool from "../../ReadTool.js"
import * as SessionMemory from "../../SessionMemory.js"
import { Workspace } from "../../Workspace.js"
import { version } from "../doors/packageJson.js"
import { schemaWithCaps } from "../read/params.js"
import { warmFileIndex } from "../read/recovery.js"
import { serverCapabilities } from "./earlyInitialize.js"
import { ErrorCode, type ErrorResponse, errorResponse, type Request } from "./jsonRpc.js"
import { outputSchema, withoutAttachments } from "./outputSchema.js"
import { StdioTransport, type StdioTransportOptions } from "./stdioTransport.js"

export { StdioTransport, type StdioTransportOptions } from "./stdioTransport.js"

type ContentBlock = CallToolResult["content"][number]

/** Where a PDF (or other non-image) attachment is: the file read, or the web page's URL. */
const locationOf = (result: Read.ReadResult | ReadMany.ReadManyResult, index: number): string | undefined => {
  const metadata = "metadata" in result
    ? result.metadata
    : result.files.find((file) => file.attachmentIndexes?.includes(index))?.metadata
  if (metadata === undefined) return undefined
  return ("url" in metadata ? metadata.url : undefined) ?? pathToFileURL(metadata.path).href
}

/**
 * How each attachment reaches the model over MCP: an image as an `image` block (the one media
 * block every host passes on), anything else as a `resource_link` naming the file. A PDF reaches
 * here only when its text could not be had (the server asks for PDFs' text: `HostMedia`); its
 * bytes are never embedded, since hosts that do not take a PDF blob turn it into JSON text.
 */
const deliveryOf = (attachment: Attachment): ModelResult.Delivery =>
  attachment.mime.startsWith("image/") ? "image-content" : "resource-link"

const attachmentContent = (result: Read.ReadResult | ReadMany.ReadManyResult): Array<ContentBlock> =>
  (result.attachments ?? []).flatMap((attachment, index): Array<ContentBlock> => {
    if (deliveryOf(attachment) === "image-content") {
      const data = ModelResult.base64Of(attachment)
      return data === undefined ? [] : [{ type: "image", data, mimeType: attachment.mime }]
    }
    const uri = locationOf(result, index)
    if (uri === undefined) return []
    return [{
      type: "resource_link",
      uri,
      name: decodeURIComponent(uri.slice(uri.lastIndexOf("/") + 1)) || uri,
      mimeType: attachment.mime
    }]
  })

/**
 * A successful read. `content`: the output as text (what the model reads), then each attachment
 * as an image block or a resource link. `structuredContent`: the result as a model sees it
 * (`ModelResult`: the same output, metadata without the preview, attachments referenced, no
 * bytes), valid against the tool's `outputSchema`. The text block is the output itself, not the
 * structured content serialized: hosts that show `content` and hosts that show
 * `structuredContent` (Codex) give the model the same text, and the one that shows the text
 * alone shows it as lines, not as a JSON string.
 */
export const successResult = (result: Read.ReadResult | ReadMany.ReadManyResult): CallToolResult => ({
  isError: false,
  content: [{ type: "text", text: result.output }, ...attachmentContent(result)],
  structuredContent: ("metadata" in result
    ? ModelResult.fromReadResult(result, deliveryOf)
    : ModelResult.fromReadManyResult(result, deliveryOf)) as unknown as Record<string, unknown>
})

/**
 * A failed read: `isError`, the error's `message` as text, and `{ _tag, …fields, message }`
 * (`ReadTool.Failure`'s wire form) as structured content.
 */
export const failureResult = (error: ReadError): CallToolResult => ({
  isError: true,
  content: [{ type: "text", text: error.message }],
  structuredContent: ParseResult.encodeUnknownSync(ReadTool.Failure)(error) as Record<string, unknown>
})

/** What @effect/ai's toolkit returns for a `read` or `read_many` call, as an MCP result. */
const toCallToolResult = (
  handled: Tool.HandlerResult<typeof ReadTool.tool> | Tool.HandlerResult<typeof ReadTool.manyTool>
): CallToolResult =>
  handled.isFailure
    ? failureResult(handled.result as ReadError)
    : successResult(handled.result as Read.ReadResult | ReadMany.ReadManyResult)

/** Anything else the toolkit fails with is a defect of ours: logged, and answered as an internal error. */
const fromHandleError = (error: unknown): Effect.Effect<CallToolResult> =>
  Effect.logError("effect-read: the read tool failed unexpectedly", error).pipe(
    Effect.as<CallToolResult>({
      isError: true,
      content: [{ type: "text", text: `Internal error: ${error instanceof Error ? error.message : String(error)}` }]
    })
  )

/**
 * Arguments a tool does not take (`offest`, `limt`, `globs`), in any request of `read_many`'s
 * `files` too, all named at once: the model must not believe they were used. Answered as
 * `Read.read` answers them: an `InvalidParams` naming each, in its words (`read` rejects them
 * too, but names only the first problem it meets).
 */
const unexpectedArguments = (
  parameters: Schema.Schema<any, any>,
  args: unknown
): CallToolResult | undefined => {
  const decoded = Schema.decodeUnknownEither(parameters, {
    onExcessProperty: "error",
    errors: "all"
  })(args)
  if (Either.isRight(decoded)) return undefined
  const unexpected = ParseResult.ArrayFormatter.formatErrorSync(decoded.left).filter((issue) =>
    issue._tag === "Unexpected"
  )
  if (unexpected.length === 0) return undefined
  const reason = unexpected.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ")
  return failureResult(new InvalidParams({ reason }))
}

const definitionOf = (
  tool: typeof ReadTool.tool | typeof ReadTool.manyTool,
  outputSchema: McpTool["outputSchema"],
  caps: { readonly lines: number; readonly lineLength: number } = PageLimits.defaultValue(),
  short = false
): McpTool => ({
  name: tool.name,
  title: Context.unsafeGet(tool.annotations, Tool.Title),
  description: tool.description,
  inputSchema: schemaWithCaps(ReadTool.inputSchema(tool.name), caps, short) as McpTool["inputSchema"],
  outputSchema,
  annotations: {
    title: Context.unsafeGet(tool.annotations, Tool.Title),
    readOnlyHint: Context.get(tool.annotations, Tool.Readonly),
    destructiveHint: Context.get(tool.annotations, Tool.Destructive),
    idempotentHint: Context.get(tool.annotations, Tool.Idempotent),
    openWorldHint: Context.get(tool.annotations, Tool.OpenWorld)
  }
})

let definitions: readonly [McpTool, McpTool] | undefined

/**
 * The default definitions of `read` and `read_many` (`McpServer.toolDefinition` and
 * `manyToolDefinition`), made at their first use: their JSON Schemas would cost a server's
 * start-up time it need not spend before it answers `initialize`.
 */
export const defaultDefinitions = (): readonly [McpTool, McpTool] =>
  definitions ??= [
    definitionOf(ReadTool.tool, outputSchema(ModelResult.ModelReadResult)),
    definitionOf(ReadTool.manyTool, outputSchema(ModelResult.ModelReadManyResult))
  ]

/**
 * The tool definitions for a model that takes `input`: the description says what it gets of
 * images and PDFs, and for a model that takes text alone the output schemas have no attachments.
 */
export const toolDefinitionsFor = (input: ModelInputShape): readonly [McpTool, McpTool] => {
  const [read, many] = defaultDefinitions()
  if (input.images && input.pdfs) return [read, many]
  const tools = ReadTool.toolkitFor("standard", input).tools
  const schema = attaches(input) ? (s: McpTool["outputSchema"]) => s : withoutAttachments
  return [
    definitionOf(tools.read, schema(read.outputSchema)),
    definitionOf(tools.read_many, schema(many.outputSchema))
  ]
}

/**
 * The tool definitions as the services in force describe them: `Read.description` (the
 * registry, the installed packages, the caps, `ModelInput`, full or short form), `read_many`'s
 * bounds, and the caps in the parameters' descriptions; output schemas without attachments for
 * a model that takes text alone. The server lists these.
 */
export const toolDefinitionsWith: Effect.Effect<readonly [McpTool, McpTool]> = Effect.gen(function*() {
  const input = yield* ModelInput
  const caps = yield* PageLimits
  const short = (yield* Description).form === "short"
  const tools = (yield* ReadTool.toolkitWith("standard")).tools
  const schema = attaches(input) ? (s: McpTool["outputSchema"]) => s : withoutAttachments
  const [read, many] = defaultDefinitions()
  return [
    definitionOf(tools.read, schema(read.outputSchema), caps, short),
    definitionOf(tools.read_many, schema(many.outputSchema), caps, short)
  ] as const
})

/** A JSON-RPC error with the code and message to answer (the SDK answers `code` and `message` as they are). */
class RpcError extends Error {
  constructor(readonly code: number, message: string) {
    super(message)
  }
}

/** The params schemas of the methods this server answers: the schemas their handlers are registered with. */
const paramsSchemas: Readonly<Record<string, { readonly safeParse: (value: unknown) => ParseOutcome }>> = {
  initialize: InitializeRequestSchema,
  ping: PingRequestSchema,
  "tools/list": ListToolsRequestSchema,
  "tools/call": CallToolRequestSchema
}

type ParseOutcome =
  | { readonly success: true }
  | {
    readonly success: false
    readonly error: {
      readonly issues: ReadonlyArray<{ readonly path: ReadonlyArray<PropertyKey>; readonly message: string }>
    }
  }

/**
 * The `_meta` key naming the conversation a `tools/call` belongs to: a string the host sets (the
 * model never sees or chooses it). Session memory and the read ledger are kept per conversation,
 * so any replica of a server on a shared store serves it.
 */
export const sessionMetaKey = "effect-read/session"

/**
 * The `_meta` key for the conversation's generation: a non-negative integer the host raises each
 * time it compacts the conversation. Everything held from an earlier generation is then not held,
 * with no other call; a request still carrying an older one is served without session memory.
 */
export const generationMetaKey = "effect-read/generation"

/**
 * The `_meta` key naming the conversation a subagent's conversation (`sessionMetaKey`) was forked
 * from: its parent's id, which the host sets on every call of the subagent. At the first call
 * naming it, the subagent's ledger starts with what the parent read until then (its Edit guard sees
 * it: `FileTime.fork`); its session memory starts empty, so it is never given a stub for what only
 * the parent was shown, and what it reads never makes one of the parent's reads a stub.
 */
export const parentMetaKey = "effect-read/parent"

/** Longest conversation id accepted (an id, not a payload). */
export const maxSessionIdLength = 512

/** The conversation a request names in its `_meta`, as far as it names one. */
export interface Conversation {
  readonly sessionId: string | undefined
  readonly generation: number | undefined
  /** The conversation this one was forked from (a subagent's parent), when it names one. */
  readonly parent?: string | undefined
}

/** `params._meta`'s conversation keys, checked: the conversation, or what is wrong with them. */
export const conversationOf = (meta: unknown): Either.Either<Conversation, string> => {
  const record = typeof meta === "object" && meta !== null ? meta as Record<string, unknown> : {}
  const sessionId = record[sessionMetaKey]
  const generation = record[generationMetaKey]
  const parent = record[parentMetaKey]
  const badId = (id: unknown) =>
    id !== undefined && (typeof id !== "string" || id.length === 0 || id.length > maxSessionIdLength)
  if (badId(sessionId)) {
    return Either.left(
      `_meta["${sessionMetaKey}"]: expected a non-empty string of at most ${maxSessionIdLength} characters`
    )
  }
  if (badId(parent)) {
    return Either.left(
      `_meta["${parentMetaKey}"]: expected a non-empty string of at most ${maxSessionIdLength} characters`
    )
  }
  if (parent !== undefined && sessionId === undefined) {
    return Either.left(
      `_meta["${parentMetaKey}"] names a parent, so _meta["${sessionMetaKey}"] must name the forked conversation`
    )
  }
  if (parent !== undefined && parent === sessionId) {
    return Either.left(`_meta["${parentMetaKey}"] must name another conversation than _meta["${sessionMetaKey}"]`)
  }
  if (
    generation !== undefined && (typeof generation !== "number" || !Number.isSafeInteger(generation) || generation < 0)
  ) {
    return Either.left(`_meta["${generationMetaKey}"]: expected a non-negative integer`)
  }
  return Either.right({
    sessionId: sessionId as string | undefined,
    generation,
    ...(parent === undefined ? {} : { parent: parent as string })
  })
}

/**
 * Bad params of a method this server answers, as `-32602` with what is wrong where. The SDK
 * would validate them too, but answer `-32603` (internal error) with a dump of the issues.
 */
export const checkParams = (request: Request): ErrorResponse | undefined => {
  const schema = paramsSchemas[request.method]
  if (schema === undefined) return undefined
  const parsed = schema.safeParse(request)
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) =>
      issue.path.length === 0 ? issue.message : `${issue.path.map(String).join(".")}: ${issue.message}`
    )
    return errorResponse(
      request.id,
      ErrorCode.InvalidParams,
      `Invalid params for ${request.method}: ${issues.join("; ")}`
    )
  }
  if (request.method !== "tools/call") return undefined
  const conversation = conversationOf((request.params as { readonly _meta?: unknown } | undefined)?._meta)
  return Either.isLeft(conversation)
    ? errorResponse(request.id, ErrorCode.InvalidParams, `Invalid params for tools/call: ${conversation.left}`)
    : undefined
}

/** A transport on stdin/stdout (or the given streams) that answers bad params with `checkParams`. */
export const stdioTransport = (options: StdioTransportOptions = {}): StdioTransport =>
  new StdioTransport({ check: checkParams, ...options })

interface RequestExtra {
  readonly _meta?: { readonly progressToken?: string | number | undefined } | undefined
  readonly requestId: string | number
  readonly signal: AbortSignal
  readonly sendNotification: (notification: ServerNotification) => Promise<void>
}

/** How long a permission question waits for the person by default. */
export const DEFAULT_ASK_TIMEOUT = Duration.minutes(2)

/** The form a permission question shows: one choice, to remember the answer for the conversation. */
const askSchema = {
  type: "object",
  properties: {
    remember: {
      type: "boolean",
      title: "Allow for the rest of this conversation",
      description: "Also allow later reads of the same path in this conversation without asking again",
      default: false
    }
  }
} as const

/** The question put to the person: what the model asks to read, where, and why a rule asks. */
export const askMessage = (request: Permission.PermissionRequest): string => {
  const path = request.metadata["filePath"] ?? request.metadata["filepath"]
  const where = typeof path === "string" && !request.patterns.includes(path) ? ` (${path})` : ""
  return `The model's read needs your approval: ${describePermission(request.permission, request.patterns)}${where}. ` +
    `It is asked because ${Permission.whyAsked(request)}. Allow it?`
}

/**
 * The person behind the MCP client, asked through `elicitation/create` when the client declared
 * the capability: accept reads (and with `remember` is kept for the conversation), decline or
 * cancel refuses, no answer within `timeout` is denied as unanswered; a client without the
 * capability is denied as unavailable, with `hint` saying how the user can allow it.
 */
export const elicitationPrompt = (
  server: Server,
  extra: RequestExtra,
  options: {
    readonly timeout: Duration.DurationInput
    readonly hint?: ((request: Permission.PermissionRequest) => string) | undefined
  }
): Permission.Asker =>
(request) => {
  if (server.getClientCapabilities()?.elicitation?.form === undefined) {
    return Permission.unavailable(
      "the MCP client does not support elicitation, so the server cannot ask the user",
      options.hint
    )(request)
  }
  const timeout = Duration.decode(options.timeout)
  return Effect.tryPromise({
    try: (signal) =>
      server.elicitInput(
        { mode: "form", message: askMessage(request), requestedSchema: askSchema },
        { relatedRequestId: extra.requestId, timeout: Duration.toMillis(timeout), signal }
      ),
    catch: (error) => error
  }).pipe(
    Effect.map((result): Permission.Answer =>
      result.action !== "accept" ? "reject" : result.content?.["remember"] === true ? "always" : "once"
    ),
    Effect.catchAll((error) =>
      Effect.fail(
        new PermissionDenied({
          permission: request.permission,
          patterns: [...request.patterns],
          ...(error instanceof McpError && error.code === McpErrorCode.RequestTimeout
            ? { reason: "unanswered" as const, detail: `within ${Duration.format(timeout)}` }
            : {
              reason: "unavailable" as const,
              detail: `asking through the MCP client failed: ${error instanceof Error ? error.message : String(error)}`
            })
        })
      )
    )
  )
}

/**
 * `notifications/progress` for one request, when it carried a `progressToken`. MCP wants
 * `progress` to grow with every notification: when a read moves to another task, the new
 * task's counts go on from where the last one left off (the message says which task it is).
 */
const progressFor = (extra: RequestExtra, options: Progress.ThrottleOptions | undefined): Progress.ProgressShape => {
  const token = extra._meta?.progressToken
  if (token === undefined) return Progress.noop
  let task: string | undefined
  let base = 0
  let sent = 0
  return Progress.throttled((update) => {
    if (update.task !== task) {
      task = update.task
      base = sent
    }
    const progress = base + update.done
    // A cancelled request's token is forgotten by the client: no more progress for it.
    if (progress <= sent || extra.signal.aborted) return
    sent = progress
    extra.sendNotification({
      method: "notifications/progress",
      params: {
        progressToken: token,
        progress,
        // A total only when it is one: known, and not already passed (a file that grew).
        ...(update.total === undefined || update.total <= 0 || update.total < update.done
          ? {}
          : { total: base + update.total }),
        message: Progress.describe(update)
      }
    }).catch(() => {})
  }, options)
}

export interface Options {
  readonly name?: string | undefined
  readonly version?: string | undefined
  /**
   * The conversation of a request whose `_meta` names none. Default: an id made at random for
   * this server, so that clients of different servers never share a conversation by accident.
   */
  readonly sessionId?: string | undefined
  /** When progress starts and how often it is sent (default: after 1 s, every 250 ms). */
  readonly progress?: Progress.ThrottleOptions | undefined
  /** How long a permission question waits for the person (default `DEFAULT_ASK_TIMEOUT`, 2 minutes). */
  readonly askTimeout?: Duration.DurationInput | undefined
  /** How the user can allow what nobody could be asked about, appended to the denial. */
  readonly permissionHint?: ((request: Permission.PermissionRequest) => string) | undefined
  /**
   * What the model takes besides text (default: the `ModelInput` in context, images and PDFs):
   * the tools' descriptions and schemas, and every read, follow it (`--text-only`).
   */
  readonly modelInput?: ModelInputShape | undefined
}

/**
 * An SDK `Server` offering `read`, not yet connected (`serve` it on a transport); it is closed
 * with the scope. Calls run on the current runtime, concurrently, each interrupted when its
 * request is cancelled.
 *
 * Each call runs as its conversation: the `Workspace` it sees has the `sessionId` its `_meta`
 * names (`sessionMetaKey`; else `options.sessionId`, else this server's random id), which keys the
 * ledger, session memory and anything else kept per conversation; with `generationMetaKey` it
 * runs at that generation (`SessionMemory.atGeneration`); with `parentMetaKey` it is a subagent's
 * conversation, forked from its parent's at its first call (`FileTime.fork`).
 */
export const make = (
  options: Options = {}
): Effect.Effect<Server, never, Scope.Scope | Workspace | Tool.Handler<"read"> | Tool.Handler<"read_many">> =>
  Effect.gen(function*() {
    const toolkit = yield* ReadTool.toolkit
    const workspace = yield* Workspace
    const ownSession = options.sessionId ?? `mcp-${randomUUID()}`
    /** Run `self` as the conversation `_meta` names. */
    const ledger = yield* Effect.serviceOption(FileTime.FileTime)
    const asConversation = (conversation: Conversation) => <A, E, R>(self: Effect.Effect<A, E, R>) => {
      const sessionId = conversation.sessionId ?? ownSession
      const atGeneration = conversation.generation === undefined
        ? self
        : SessionMemory.atGeneration(sessionId, conversation.generation)(self)
      const parent = conversation.parent
      // A subagent's first call forks its parent's ledger (once: later calls find it forked).
      const forked = parent === undefined || Option.isNone(ledger)
        ? atGeneration
        : Effect.zipRight(
          FileTime.fork(parent, sessionId).pipe(Effect.provideService(FileTime.FileTime, ledger.value)),
          atGeneration
        )
      return Effect.provideService(forked, Workspace, { ...workspace, sessionId })
    }
    const runtime = yield* Effect.runtime<never>()
    const run = Runtime.runPromise(runtime)
    const server = new Server(
      { name: options.name ?? "effect-read", version: options.version ?? version },
      { capabilities: serverCapabilities }
    )
    const modelInput = options.modelInput ?? (yield* ModelInput)
    // Made at the first request that needs them, not before `initialize` is answered.
    let tools: Promise<readonly [McpTool, McpTool]> | undefined
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: [...await (tools ??= run(Effect.provideService(toolDefinitionsWith, ModelInput, modelInput)))]
    }))
    server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
      const { arguments: args, name } = request.params
      if (name !== ReadTool.tool.name && name !== ReadTool.manyTool.name) {
        throw new RpcError(
          ErrorCode.InvalidParams,
          `Tool '${name}' not found: this server has the tools read and read_many`
        )
      }
      const conversation = conversationOf(request.params._meta)
      if (Either.isLeft(conversation)) {
        throw new RpcError(ErrorCode.InvalidParams, `Invalid params for tools/call: ${conversation.left}`)
      }
      const rejected = unexpectedArguments(
        name === ReadTool.manyTool.name ? ReadMany.ReadManyParams : ReadParams,
        args ?? {}
      )
      if (rejected !== undefined) return rejected
      // Arguments reach the handler as they are: `read` decodes them, and anything malformed
      // is an `InvalidParams` result the model reads.
      const handled = name === ReadTool.manyTool.name
        ? toolkit.handle("read_many", args ?? {})
        : toolkit.handle("read", args ?? {})
      return run(
        (handled as Effect.Effect<
          Tool.HandlerResult<typeof ReadTool.tool> | Tool.HandlerResult<typeof ReadTool.manyTool>,
          unknown
        >).pipe(
          Effect.map(toCallToolResult),
          Effect.catchAll(fromHandleError),
          Effect.provideService(Progress.Progress, progressFor(extra, options.progress)),
          // An `ask` rule asks the person behind this client, about this request.
          Effect.provideService(
            Permission.Prompt,
            elicitationPrompt(server, extra, {
              timeout: options.askTimeout ?? DEFAULT_ASK_TIMEOUT,
              hint: options.permissionHint
            })
          ),
          // A PDF is read as its text: hosts pass text and images on, not PDF files.
          Effect.provideService(HostMedia, { pdf: "text" }),
          Effect.provideService(ModelInput, modelInput),
          asConversation(conversation.right),
          Effect.withSpan(name === ReadTool.manyTool.name ? "McpServer.readMany" : "McpServer.read")
        ),
        { signal: extra.signal }
      )
    })
    server.fallbackRequestHandler = (request) =>
      Promise.reject(
        new RpcError(
          ErrorCode.MethodNotFound,
          `Method not found: ${request.method} (this server answers initialize, ping, tools/list and tools/call)`
        )
      )
    // What the SDK reports here is a client's doing (a response to nothing, a malformed
    // notification); it was not answered, as JSON-RPC wants, and is only worth a debug line.
    server.onerror = (error) => Runtime.runFork(runtime)(Effect.logDebug(`effect-read: MCP: ${error.message}`))
    yield* Effect.addFinalizer(() => Effect.promise(() => server.close()))
    return server
  })

/** Serve `server` on `transport` until the transport closes (stdin ends); interrupting closes it. */
export const serve = (server: Server, transport: Transport): Effect.Effect<void> =>
  Effect.async<void>((resume) => {
    server.onclose = () => resume(Effect.void)
    server.connect(transport).catch((error: unknown) => resume(Effect.die(error)))
    return Effect.promise(() => server.close())
  })

/**
 * The whole stdio server: JSON-RPC on stdin/stdout, logs on stderr (stdout carries nothing
 * but protocol). Ends when stdin closes and every request in flight is answered. It needs
 * `read`'s services (workspace, permissions, …). The server lives long: it keeps the
 * workspace's file index (`FileIndex.layerCached`), listed in the background once the client
 * has initialized, so a wrong path costs milliseconds.
 */
export const runStdio = (options: Options = {}): Effect.Effect<void, never, Read.EffectRequirements> =>
  runStdioWith(options, () => ({}))

/**
 * `runStdio` on the transport `transport` says, asked when serving starts: other streams, or
 * what `earlyInitialize.listen` read from stdin while the server loaded (`effect-read mcp`,
 * which may have answered `initialize` already).
 */
export const runStdioWith = (
  options: Options,
  transport: () => StdioTransportOptions
): Effect.Effect<void, never, Read.EffectRequirements> =>
  Effect.scoped(Effect.gen(function*() {
    const server = yield* make(options)
    const runtime = yield* Effect.runtime<never>()
    const stdio = stdioTransport({
      onIgnored: (reason) => Runtime.runFork(runtime)(Effect.logDebug(`effect-read: MCP: ignored ${reason}`)),
      ...transport()
    })
    // The workspace is listed once the client has initialized (its `initialized` notification
    // comes right after our answer), so that even the first wrong path finds the index made
    // without slowing the answer to `initialize`; a request does not wait for it unless it
    // needs the list.
    const initialized = yield* Deferred.make<void>()
    const previous = server.oninitialized
    server.oninitialized = () => {
      previous?.()
      Deferred.unsafeDone(initialized, Exit.void)
    }
    yield* Effect.forkScoped(Effect.zipRight(Deferred.await(initialized), warmFileIndex))
    yield* serve(server, stdio)
  })).pipe(
    Effect.provide(ReadTool.layer),
    Effect.provide(FileIndex.layerCached()),
    Effect.provide(logToStderr)
  )

/** Every logger (the default one, or the pretty one `NodeRuntime.runMain` installs) goes to stderr. */
const logToStderr = Layer.mergeAll(
  Logger.remove(Logger.defaultLogger),
  Logger.remove(Logger.prettyLoggerDefault),
  Logger.add(Logger.withConsoleError(Logger.logfmtLogger))
)
