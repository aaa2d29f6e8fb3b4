/**
 * `@effect/ai` hosts with the official providers (`@effect/ai-openai`, `@effect/ai-anthropic`):
 * a scripted model behind each provider's real request encoding and response decoding (an
 * `HttpClient` that records every request body and answers with a canned provider response),
 * so what is checked is exactly what each provider would send over the network.
 *
 * Turn 1: the model calls `read`; the toolkit runs it. Turn 2: the history (with the tool
 * result) and `ReadTool.attachmentMessage` go back to the provider; its request body is checked.
 */
import * as AnthropicClient from "@effect/ai-anthropic/AnthropicClient"
import * as AnthropicLanguageModel from "@effect/ai-anthropic/AnthropicLanguageModel"
import * as OpenAiClient from "@effect/ai-openai/OpenAiClient"
import * as OpenAiLanguageModel from "@effect/ai-openai/OpenAiLanguageModel"
import * as LanguageModel from "@effect/ai/LanguageModel"
import * as Prompt from "@effect/ai/Prompt"
import type * as Toolkit from "@effect/ai/Toolkit"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as fs from "node:fs"
import * as ReadTool from "../src/ReadTool.js"
import { nodeLayer, tempDir, writeTree } from "./support/index.js"
import { strictViolations } from "./support/jsonSchemaRules.js"
import { HOST_PDF, HOST_SOURCE, PNG } from "./support/media.js"

const root = tempDir()
const source = HOST_SOURCE
const PDF = HOST_PDF
writeTree(root, { "src/app.ts": source, "pixel.png": PNG, "report.pdf": PDF })
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

const base64Probe = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64").slice(0, 40)

type Body = Record<string, any>

/** An `HttpClient` answering each request with the next of `answers`, recording the request bodies. */
const scriptedHttp = (answers: Array<unknown>, bodies: Array<Body>) =>
  Layer.succeed(
    HttpClient.HttpClient,
    HttpClient.make((request) =>
      Effect.sync(() => {
        bodies.push(JSON.parse(new TextDecoder().decode((request.body as { readonly body: Uint8Array }).body)))
        const answer = answers.shift()
        return HttpClientResponse.fromWeb(
          request,
          new Response(JSON.stringify(answer), { status: 200, headers: { "content-type": "application/json" } })
        )
      })
    )
  )

interface Provider {
  readonly name: string
  readonly toolkit: Toolkit.Toolkit<any>
  readonly model: (http: Layer.Layer<HttpClient.HttpClient>) => Layer.Layer<LanguageModel.LanguageModel>
  /** The provider's response calling `name` with `params`, and its plain text answer. */
  readonly callingTool: (name: string, params: unknown) => unknown
  readonly answering: (text: string) => unknown
  /** From a request body: the text of the tool results, and the media parts after them. */
  readonly toolOutputs: (body: Body) => Array<string>
  readonly media: (body: Body) => Array<{ readonly kind: "image" | "pdf"; readonly base64: string }>
  /** The tools offered in a request body: name → parameters schema. */
  readonly tools: (body: Body) => Record<string, unknown>
}

const usage = {
  input_tokens: 1,
  output_tokens: 1,
  total_tokens: 2,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens_details: { reasoning_tokens: 0 }
}
const openAiResponse = (output: Array<unknown>) => ({
  id: "resp_1",
  object: "response",
  created_at: 0,
  model: "gpt-4o",
  status: "completed",
  error: null,
  incomplete_details: null,
  instructions: null,
  metadata: null,
  parallel_tool_calls: true,
  temperature: null,
  top_p: null,
  tool_choice: "auto",
  tools: [],
  output,
  usage
})

const openAi: Provider = {
  name: "@effect/ai-openai (Responses API, strict tools)",
  toolkit: ReadTool.toolkitFor("openai-strict"),
  model: (http) =>
    OpenAiLanguageModel.layer({ model: "gpt-4o" }).pipe(
      Layer.provide(OpenAiClient.layer({ apiKey: Redacted.make("test") })),
      Layer.provide(http)
    ),
  callingTool: (name, params) =>
    openAiResponse([{
      type: "function_call",
      id: "fc_1",
      call_id: "call_1",
      name,
      arguments: JSON.stringify(params),
      status: "completed"
    }]),
  answering: (text) =>
    openAiResponse([{
      type: "message",
      id: "msg_1",
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text, annotations: [] }]
    }]),
  toolOutputs: (body) =>
    body.input.filter((item: Body) => item.type === "function_call_output").map((item: Body) => item.output),
  media: (body) =>
    body.input.flatMap((item: Body) => item.role === "user" ? item.content : []).flatMap((part: Body) =>
      part.type === "input_image"
        ? [{ kind: "image" as const, base64: String(part.image_url).replace(/^data:[^,]*,/, "") }]
        : part.type === "input_file"
        ? [{ kind: "pdf" as const, base64: String(part.file_data).replace(/^data:[^,]*,/, "") }]
        : []
    ),
  tools: (body) =>
    Object.fromEntries((body.tools ?? []).map((tool: Body) => [tool.name, { ...tool.parameters, strict: tool.strict }]))
}

const anthropicResponse = (content: Array<unknown>, stop: string) => ({
  id: "msg_1",
  type: "message",
  role: "assistant",
  model: "claude-sonnet-4-5",
  content,
  stop_reason: stop,
  stop_sequence: null,
  usage: { input_tokens: 1, output_tokens: 1 }
})

const anthropic: Provider = {
  name: "@effect/ai-anthropic (Messages API)",
  toolkit: ReadTool.toolkit,
  model: (http) =>
    AnthropicLanguageModel.layer({ model: "claude-sonnet-4-5" }).pipe(
      Layer.provide(AnthropicClient.layer({ apiKey: Redacted.make("test") })),
      Layer.provide(http)
    ),
  callingTool: (name, params) =>
    anthropicResponse([{ type: "tool_use", id: "toolu_1", name, input: params }], "tool_use"),
  answering: (text) => anthropicResponse([{ type: "text", text }], "end_turn"),
  toolOutputs: (body) =>
    body.messages.flatMap((message: Body) => Array.isArray(message.content) ? message.content : [])
      .filter((part: Body) => part.type === "tool_result")
      .map((part: Body) => typeof part.content === "string" ? part.content : JSON.stringify(part.content)),
  media: (body) =>
    body.messages.flatMap((message: Body) => Array.isArray(message.content) ? message.content : []).flatMap((
      part: Body
    ) =>
      part.type === "image"
        ? [{ kind: "image" as const, base64: part.source.data }]
        : part.type === "document"
        ? [{ kind: "pdf" as const, base64: part.source.data }]
        : []
    ),
  tools: (body) => Object.fromEntries((body.tools ?? []).map((tool: Body) => [tool.name, tool.input_schema]))
}

/** Two turns: the model calls `name` with `params`; the tool result and attachments go back. */
const twoTurns = (provider: Provider, name: string, params: unknown) =>
  Effect.gen(function*() {
    const bodies: Array<Body> = []
    const model = provider.model(scriptedHttp([provider.callingTool(name, params), provider.answering("done")], bodies))
    const prompt = Prompt.make("Read it for me")
    const first = yield* LanguageModel.generateText({ prompt, toolkit: provider.toolkit }).pipe(Effect.provide(model))
    const attachments = ReadTool.attachmentMessage(first.toolResults)
    const history = Prompt.merge(prompt, Prompt.fromResponseParts(first.content))
    const next = attachments === undefined ? history : Prompt.merge(history, Prompt.fromMessages([attachments]))
    yield* LanguageModel.generateText({ prompt: next, toolkit: provider.toolkit }).pipe(Effect.provide(model))
    return { first, request: bodies[0]!, followUp: bodies[1]! }
  }).pipe(Effect.provide(ReadTool.layer.pipe(Layer.provide(nodeLayer(root)))))

describe.each([openAi, anthropic])("$name", (provider) => {
  it.effect("offers read and read_many with schemas the provider takes", () =>
    Effect.gen(function*() {
      const { request } = yield* twoTurns(provider, "read", { filePath: "src/app.ts" })
      const tools = provider.tools(request)
      expect(Object.keys(tools).sort()).toEqual(["read", "read_many"])
      const schemas = JSON.stringify(tools)
      expect(schemas).not.toContain("\"title\"")
      expect(schemas).not.toContain("$ref")
      if (provider === openAi) {
        for (const name of ["read", "read_many"]) {
          const { strict, ...schema } = tools[name] as Body
          expect(strict).toBe(true)
          expect(strictViolations(schema)).toEqual([])
        }
      } else {
        expect(tools.read).toEqual(ReadTool.inputSchema("read"))
        expect(tools.read_many).toEqual(ReadTool.inputSchema("read_many"))
      }
    }))

  it.effect("a text read reaches the model as its text, at most 1.2 times its size", () =>
    Effect.gen(function*() {
      const { first, followUp } = yield* twoTurns(provider, "read", { filePath: "src/app.ts" })
      const output = (first.toolResults[0]!.result as { output: string }).output
      const [sent] = provider.toolOutputs(followUp)
      expect(JSON.parse(sent!).output).toBe(output)
      expect(sent!.length / output.length).toBeLessThanOrEqual(1.2)
      expect(provider.media(followUp)).toEqual([])
    }))

  it.effect.each(
    [
      ["an image", "pixel.png", "image", PNG],
      ["a PDF", "report.pdf", "pdf", PDF]
    ] as const
  )(
    "%s: the tool result references it, the bytes go as the provider's media part",
    ([, file, kind, bytes]) =>
      Effect.gen(function*() {
        const { followUp } = yield* twoTurns(provider, "read", { filePath: file })
        const [sent] = provider.toolOutputs(followUp)
        expect(sent).not.toContain(base64Probe(bytes))
        expect(sent).not.toContain("base64")
        expect(JSON.parse(sent!).attachments).toEqual([{
          index: 0,
          mime: kind === "pdf" ? "application/pdf" : "image/png",
          size: bytes.length,
          delivery: "prompt-file-part"
        }])
        expect(provider.media(followUp)).toEqual([{ kind, base64: Buffer.from(bytes).toString("base64") }])
      })
  )

  it.effect("read_many with an image and a text file: one media part, no bytes in the tool result", () =>
    Effect.gen(function*() {
      const { followUp } = yield* twoTurns(provider, "read_many", {
        files: [{ filePath: "pixel.png" }, { filePath: "src/app.ts" }]
      })
      const [sent] = provider.toolOutputs(followUp)
      expect(sent).not.toContain(base64Probe(PNG))
      expect(JSON.parse(sent!).files[0].attachmentIndexes).toEqual([0])
      expect(provider.media(followUp)).toEqual([{ kind: "image", base64: PNG.toString("base64") }])
    }))

  it.effect("a malformed argument is a failure the model reads in the next request, not an error that ends the turn", () =>
    Effect.gen(function*() {
      const { first, followUp } = yield* twoTurns(provider, "read", { filePath: "src/app.ts", limit: "three" })
      expect(first.toolResults[0]!.isFailure).toBe(true)
      const [sent] = provider.toolOutputs(followUp)
      expect(JSON.parse(sent!)).toMatchObject({
        _tag: "InvalidParams",
        message: "Invalid parameters: limit: Expected number, actual \"three\""
      })
    }))
})

describe("OpenAI strict arguments", () => {
  it.effect("a strict model's nulls for the parameters it leaves out are read as not given", () =>
    Effect.gen(function*() {
      const params = {
        filePath: "src/app.ts",
        offset: null,
        column: null,
        limit: "3",
        encoding: null,
        lineFormat: null,
        view: null,
        levels: null,
        context: null
      }
      const { first } = yield* twoTurns(openAi, "read", params)
      expect(first.toolResults[0]!.isFailure).toBe(false)
      expect((first.toolResults[0]!.result as { output: string }).output).toContain("(Showing lines 1-3 of 120.")
    }))
})
