/**
 * The "real parts" example of docs/api.md, type-checked in CI: a session whose read ledger survives
 * restarts (SQLite) and whose reads warm a real language server, then asks it for diagnostics.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Permission, Read, Workspace } from "../src/index.js"
import * as LanguageServer from "../src/LanguageServer.js"
import * as SqliteFileTime from "../src/SqliteFileTime.js"

const SessionLive = Layer.mergeAll(
  Permission.layerAllowAll,
  // The ledger lives in one SQLite file (WAL); reopening it after a restart keeps every session's reads.
  SqliteFileTime.layer({ filename: ".effect-read.db" }),
  // typescript-language-server from node_modules/.bin or PATH, started on the first .ts/.js read.
  LanguageServer.layer({ servers: [LanguageServer.typescript], startupTimeout: "20 seconds" })
).pipe(
  Layer.provideMerge(Workspace.layer({ directory: process.cwd(), sessionId: "session-1" })),
  Layer.provideMerge(NodeContext.layer)
)

const program = Effect.gen(function*() {
  const result = yield* Read.read({ filePath: "src/Read.ts", limit: 5 })
  yield* Console.log(result.output)
  // Diagnostics arrive when the server has checked the file: wait for them, bounded.
  const diagnostics = yield* LanguageServer.awaitDiagnostics(result.metadata.path, { timeout: "15 seconds" })
  for (const d of diagnostics) {
    yield* Console.log(`${d.severity} ${d.line}:${d.column} ${d.message}`)
  }
})

program.pipe(Effect.provide(SessionLive), NodeRuntime.runMain)
