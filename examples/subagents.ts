/**
 * The "subagents and programmatic reads" example of docs/session-memory.md, type-checked in CI: a
 * host that starts a subagent forks the parent's ledger for it (the child's Edit guard sees what
 * the parent read; it is given no stub for what only the parent was shown), and reads files for
 * itself without touching anyone's memory or ledger.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { FileTime, Lsp, Permission, Read, SessionMemory, Workspace } from "../src/index.js"

const HostLive = Layer.mergeAll(
  Workspace.layer({ directory: process.cwd(), sessionId: "conv-1" }),
  Permission.layerAllowAll,
  Lsp.layerNoop,
  FileTime.layerMemory,
  SessionMemory.layerSession()
).pipe(Layer.provideMerge(NodeContext.layer))

const program = Effect.gen(function*() {
  const workspace = yield* Workspace.Workspace
  yield* Read.read({ filePath: "README.md", limit: 20 }) // the parent's own read
  yield* FileTime.fork("conv-1", "conv-1/agent-2")
  const forChild = Effect.provideService(Workspace.Workspace, { ...workspace, sessionId: "conv-1/agent-2" })
  const result = yield* forChild(Read.read({ filePath: "README.md", limit: 20 })) // the child's own read: in full
  const preview = yield* Read.programmatic(Read.read({ filePath: "package.json" })) // the host's own read
  const ledger = yield* FileTime.FileTime
  yield* Console.log(
    result.output,
    preview.metadata.kind === "text" ? preview.metadata.totalLines : undefined,
    yield* ledger.covers("conv-1/agent-2", "README.md", 1, 20)
  )
})

program.pipe(Effect.provide(HostLive), NodeRuntime.runMain)
