/**
 * A host's own limits (docs/api.md#limits), type-checked in CI: one layer beside the session's.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { FileTime, Limits, Lsp, Permission, ReadMany, Workspace } from "../src/index.js"

const HostLimits = Limits.layer({
  image: { maxDimension: 1568 },
  web: { timeout: "10 seconds" },
  readMany: { maxFiles: 5 }
})

const SessionLive = Layer.mergeAll(
  Workspace.layer({ directory: process.cwd(), sessionId: "session-1" }),
  Permission.layerAllowAll,
  Lsp.layerNoop,
  FileTime.layerMemory,
  HostLimits
).pipe(Layer.provideMerge(NodeContext.layer))

const program = Effect.gen(function*() {
  const limits = yield* Limits.current
  yield* Console.log(`read_many takes ${limits.readMany.maxFiles} files, pages of ${limits.page.lines} lines`)
  const result = yield* ReadMany.readMany({
    files: [{ filePath: "package.json" }, { filePath: "README.md", limit: 10 }]
  })
  yield* Console.log(result.output)
})

program.pipe(Effect.provide(SessionLive), NodeRuntime.runMain)
