/**
 * The Read tool over MCP, served by the official MCP TypeScript SDK's `Server` with our own
 * stdio transport.
 *
 * Why the SDK and not `@effect/ai`'s `McpServer`: the SDK's protocol layer already echoes
 * string and integer ids, answers unknown methods with `-32601`, runs requests concurrently,
 * interrupts a handler on `notifications/cancelled` (and sends nothing for it), and hands the
 * handler the request's `progressToken`. `@effect/ai` 0.37 turns ids into `BigInt`s, answers
 * with `@effect/rpc`'s internal exits, and gives a tool handler only its arguments, so progress
 * could not be reported at all. What the SDK's stdio transport lacks (answers to unparsable and
 * invalid lines, a bounded line buffer) is `StdioTransport`'s job, and bad params of the
 * methods we serve are answered `-32602` before the SDK would call them internal errors.
 *
 * The tool definitions are the toolkit's: name, description and annotations from `ReadTool.tool`
 * and `ReadTool.manyTool`, input schemas `ReadTool.inputSchema` (standard dialect), output schemas
 * for `structuredContent` (`ModelResult`, or a failure); calls go through the toolkit's handler
 * (`Read.read` decodes the arguments), and results are shaped here: the output as text, images as
 * image blocks, PDFs read as text (`HostMedia`), no attachment bytes in `structuredContent`.
 */
import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js"
import { defaultDefinitions } from "./internal/mcp/server.js"

export {
  askMessage,
  checkParams,
  type Conversation,
  conversationOf,
  DEFAULT_ASK_TIMEOUT,
  elicitationPrompt,
  failureResult,
  generationMetaKey,
  make,
  maxSessionIdLength,
  type Options,
  parentMetaKey,
  runStdio,
  serve,
  sessionMetaKey,
  StdioTransport,
  stdioTransport,
  type StdioTransportOptions,
  successResult,
  toolDefinitionsFor,
  toolDefinitionsWith
} from "./internal/mcp/server.js"

/** The MCP tool definition: name, description, inlined input and output schemas, behaviour hints. */
export const toolDefinition: McpTool = defaultDefinitions()[0]

/** The `read_many` tool definition (`output` is every file's block). */
export const manyToolDefinition: McpTool = defaultDefinitions()[1]
