/**
 * The README's API example, type-checked in CI. Run: `npx tsc -p tsconfig.build.json && node …`
 * or read it as the shape of an agent server's wiring.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { FileTime, Lsp, Permission, Read, Workspace } from "../src/index.js"

// One session's services: swap any layer for your own (a UI asker, a real LSP, a SQLite ledger).
const SessionLive = Layer.mergeAll(
  Workspace.layer({ directory: process.cwd(), sessionId: "session-1" }),
  Permission.layerDefault({
    asker: (request) => Console.log(`asked: ${request.patterns}`).pipe(Effect.as("once" as const))
  }),
  Lsp.layerNoop,
  FileTime.layerMemory
).pipe(Layer.provideMerge(NodeContext.layer))

const program = Read.read({ filePath: "README.md", limit: 20 }).pipe(
  Effect.flatMap((result) => Console.log(result.output)),
  // Every failure is typed; its message is what the model should read.
  Effect.catchTags({
    FileNotFound: (error) => Console.error(error.message, error.suggestions),
    PermissionDenied: (error) => Console.error(error.message)
  }),
  Effect.catchAll((error) => Console.error(`${error._tag}: ${error.message}`))
)

program.pipe(Effect.provide(SessionLive), NodeRuntime.runMain)
