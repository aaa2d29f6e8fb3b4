/**
 * The README's @effect/ai example, type-checked in CI: an agent turn that may call `read`, with
 * Read added by one `Layer.provide`. The model layer comes from a provider package
 * (`@effect/ai-openai`, `@effect/ai-anthropic`, …), so it is left as a requirement here.
 */
import type * as AiError from "@effect/ai/AiError"
import * as LanguageModel from "@effect/ai/LanguageModel"
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

const turn = LanguageModel.generateText({
  prompt: "What does src/Read.ts export?",
  toolkit: ReadTool.toolkit
}).pipe(
  Effect.flatMap((response) =>
    Effect.forEach(response.toolResults, (part) =>
      // A failed read is a typed result the model sees (with its message), not a failed turn.
      part.isFailure ? Console.log(`read failed: ${part.result.message}`) : Console.log(part.result.title))
  )
)

export const program: Effect.Effect<void, AiError.AiError, LanguageModel.LanguageModel> = turn.pipe(
  Effect.provide(ReadTool.layer.pipe(Layer.provide(SessionLive)))
)
