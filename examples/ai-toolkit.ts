/**
 * The @effect/ai example of docs/mcp-and-hosts.md, type-checked in CI: an agent turn that may call `read`, with
 * Read added by one `Layer.provide`, and a second turn that carries what the reads attached
 * (images, PDFs) as file parts after the tool results. The model layer comes from a provider
 * package (`@effect/ai-openai`, `@effect/ai-anthropic`, …), so it is left as a requirement here.
 */
import type * as AiError from "@effect/ai/AiError"
import * as LanguageModel from "@effect/ai/LanguageModel"
import * as Prompt from "@effect/ai/Prompt"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { FileTime, Lsp, Permission, Workspace } from "../src/index.js"
import * as ReadTool from "../src/ReadTool.js"

const SessionLive = Layer.mergeAll(
  Workspace.layer({ directory: process.cwd(), sessionId: "session-1" }),
  Permission.layerDefault(),
  Lsp.layerNoop,
  FileTime.layerMemory
).pipe(Layer.provideMerge(NodeContext.layer))

const turn = Effect.gen(function*() {
  const prompt = Prompt.make("What is in logo.png, and what does src/Read.ts export?")
  const first = yield* LanguageModel.generateText({ prompt, toolkit: ReadTool.toolkit })
  for (const part of first.toolResults) {
    // A failed read is a typed result the model sees (with its message), not a failed turn.
    yield* part.isFailure ? Console.log(`read failed: ${part.result.message}`) : Console.log(part.result.title)
  }
  // The images and PDFs the reads attached, as file parts of a user message after the tool results.
  const attachments = ReadTool.attachmentMessage(first.toolResults)
  const history = Prompt.merge(prompt, Prompt.fromResponseParts(first.content))
  return yield* LanguageModel.generateText({
    prompt: attachments === undefined ? history : Prompt.merge(history, Prompt.fromMessages([attachments])),
    toolkit: ReadTool.toolkit
  })
})

export const program = turn.pipe(Effect.provide(ReadTool.layer.pipe(Layer.provide(SessionLive))))

// What is left to provide is the model alone.
export const needsOnlyTheModel: Effect.Effect<unknown, AiError.AiError, LanguageModel.LanguageModel> = program
