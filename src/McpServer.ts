/**
 * The Read tool over MCP, on `@effect/ai`'s `McpServer`.
 *
 * The tool is registered with `McpServer.addTool` rather than `McpServer.toolkit`: the toolkit
 * registration answers every call with `JSON.stringify` of the encoded result, while an agent
 * should read `output` as text, images as MCP image content, and a failure's `message`. Calls
 * still go through the `ReadTool` toolkit's handler (decode → handler → encode).
 */
import * as AiError from "@effect/ai/AiError"
import * as McpSchema from "@effect/ai/McpSchema"
import * as AiMcpServer from "@effect/ai/McpServer"
import * as Tool from "@effect/ai/Tool"
import * as NodeSink from "@effect/platform-node/NodeSink"
import * as NodeStream from "@effect/platform-node/NodeStream"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as ParseResult from "effect/ParseResult"
import { readFileSync } from "node:fs"
import { pathToFileURL } from "node:url"
import type * as Read from "./Read.js"
import type { ReadError } from "./ReadError.js"
import * as ReadTool from "./ReadTool.js"

type ContentBlock = typeof McpSchema.ContentBlock.Type

const packageVersion: string = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).version

/** `data:<mime>;base64,<data>` → the bytes; `undefined` for any other URL. */
const dataUrlBytes = (url: string): Uint8Array | undefined => {
  const match = /^data:[^;,]*;base64,/.exec(url)
  return match === null ? undefined : new Uint8Array(Buffer.from(url.slice(match[0].length), "base64"))
}

/**
 * Attachments as MCP content: images as `image` blocks (base64 data + MIME type), anything
 * else (PDFs) as an embedded `resource` blob named by the file's URL.
 */
const attachmentContent = (result: Read.ReadResult): Array<ContentBlock> =>
  (result.attachments ?? []).flatMap((attachment): Array<ContentBlock> => {
    const data = dataUrlBytes(attachment.url)
    if (data === undefined) return []
    return attachment.mime.startsWith("image/")
      ? [{ type: "image", data, mimeType: attachment.mime }]
      : [{
        type: "resource",
        resource: { uri: pathToFileURL(result.metadata.path).href, mimeType: attachment.mime, blob: data }
      }]
  })

/**
 * A successful read: `output` as text (what the model reads), attachments as image/resource
 * content, and the encoded `ReadResult` as structured content.
 */
export const successResult = (result: Read.ReadResult, encoded: unknown): McpSchema.CallToolResult =>
  new McpSchema.CallToolResult({
    isError: false,
    content: [{ type: "text", text: result.output }, ...attachmentContent(result)],
    structuredContent: encoded
  })

/**
 * A failed read: `isError`, the error's `message` as text, and `{ _tag, …fields, message }`
 * (`ReadTool.Failure`'s wire form) as structured content.
 */
export const failureResult = (error: ReadError): McpSchema.CallToolResult =>
  new McpSchema.CallToolResult({
    isError: true,
    content: [{ type: "text", text: error.message }],
    structuredContent: ParseResult.encodeUnknownSync(ReadTool.Failure)(error)
  })

/** What @effect/ai's toolkit returns for a `read` call, as an MCP result. */
const toCallToolResult = (handled: Tool.HandlerResult<typeof ReadTool.tool>): McpSchema.CallToolResult =>
  handled.isFailure
    ? failureResult(handled.result as ReadError)
    : successResult(handled.result as Read.ReadResult, handled.encodedResult)

/**
 * The toolkit rejects malformed arguments before the handler runs (an `AiError`, though its
 * signature only names the tool's failure type); answer them the way `read` would, with an
 * `InvalidParams` the model can correct, not with a protocol error.
 */
const fromHandleError = (error: unknown): Effect.Effect<McpSchema.CallToolResult> =>
  AiError.isAiError(error) && error._tag === "MalformedOutput" && ParseResult.isParseError(error.cause)
    ? Effect.succeed(failureResult(ReadTool.invalidParams(error.cause)))
    : Effect.logError("effect-read: the read tool failed unexpectedly", error).pipe(
      Effect.as(
        new McpSchema.CallToolResult({
          isError: true,
          content: [{ type: "text", text: `Internal error: ${error instanceof Error ? error.message : String(error)}` }]
        })
      )
    )

/** The MCP tool definition: name, description, inlined input schema and behaviour hints. */
export const mcpTool: McpSchema.Tool = new McpSchema.Tool({
  name: ReadTool.tool.name,
  title: Context.unsafeGet(ReadTool.tool.annotations, Tool.Title),
  description: ReadTool.tool.description,
  inputSchema: ReadTool.jsonSchema,
  annotations: new McpSchema.ToolAnnotations({
    title: Context.unsafeGet(ReadTool.tool.annotations, Tool.Title),
    readOnlyHint: Context.get(ReadTool.tool.annotations, Tool.Readonly),
    destructiveHint: Context.get(ReadTool.tool.annotations, Tool.Destructive),
    idempotentHint: Context.get(ReadTool.tool.annotations, Tool.Idempotent),
    openWorldHint: Context.get(ReadTool.tool.annotations, Tool.OpenWorld)
  })
})

/** Register `read` with the running `McpServer`; calls run `ReadTool`'s handler. */
export const register: Effect.Effect<void, never, AiMcpServer.McpServer | Tool.Handler<"read">> = Effect.gen(
  function*() {
    const server = yield* AiMcpServer.McpServer
    const toolkit = yield* ReadTool.toolkit
    yield* server.addTool({
      tool: mcpTool,
      handle: (payload) =>
        toolkit.handle("read", payload).pipe(
          Effect.map(toCallToolResult),
          Effect.catchAll(fromHandleError),
          Effect.withSpan("McpServer.read")
        )
    })
  }
)

/**
 * `read` on an MCP server: provide an `@effect/ai` server layer (`McpServer.layerStdio`,
 * `layerHttp`, …) and `ReadTool.layer` with the session's services.
 */
export const layer: Layer.Layer<never, never, Tool.Handler<"read">> = Layer.effectDiscard(register).pipe(
  // The same memoized layer that `McpServer.layerStdio`/`layerHttp` build on.
  Layer.provide(AiMcpServer.McpServer.layer)
)

/**
 * A complete stdio server for `read`: JSON-RPC on stdin/stdout and logs on stderr, so stdout
 * carries nothing but protocol. It needs `read`'s services (workspace, permissions, …).
 */
export const layerStdio = (options: {
  readonly name?: string | undefined
  readonly version?: string | undefined
} = {}): Layer.Layer<never, never, Read.EffectRequirements> =>
  layer.pipe(
    Layer.provide(ReadTool.layer),
    Layer.provide(AiMcpServer.layerStdio({
      name: options.name ?? "effect-read",
      version: options.version ?? packageVersion,
      stdin: NodeStream.stdin,
      stdout: NodeSink.stdout
    })),
    Layer.provide(Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger)))
  )
