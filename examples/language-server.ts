/**
 * The language-server example of docs/api.md, type-checked in CI: the layers it shows, and a read
 * followed by the diagnostics the server published for the file.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { FileTime, Permission, Read, Workspace } from "../src/index.js"
import * as LanguageServer from "../src/LanguageServer.js"

// Instead of Lsp.layerNoop (needs Workspace and FileSystem, which read needs anyway):
const TypeScriptLive = LanguageServer.layer() // typescript-language-server --stdio for .ts .tsx .mts .cts .js .jsx .mjs .cjs
const ServersLive = LanguageServer.layer({
  servers: [
    LanguageServer.typescript,
    { id: "python", command: "pyright-langserver", args: ["--stdio"], extensions: { ".py": "python" } }
  ],
  rootDir: "/path/to/project", // default: Workspace.worktree
  startupTimeout: "30 seconds", // spawn + initialize; then the server is marked Failed
  requestTimeout: "5 seconds", // one didOpen/didChange write
  shutdownTimeout: "3 seconds", // shutdown, then exit; then SIGKILL
  maxFileBytes: 4 * 1024 * 1024 // larger files are not sent
})

export const program = Effect.gen(function*() {
  const result = yield* Read.read({ filePath: "src/app.ts" })
  // After a read, the diagnostics the server published for that file:
  const diagnostics = yield* LanguageServer.awaitDiagnostics(result.metadata.path, { timeout: "10 seconds" })
  yield* Console.log(diagnostics)
})

const session = (ServerLive: typeof TypeScriptLive) =>
  Layer.mergeAll(Permission.layerAllowAll, FileTime.layerMemory, ServerLive).pipe(
    Layer.provideMerge(Workspace.layer({ directory: process.cwd() })),
    Layer.provideMerge(NodeContext.layer)
  )

export const withTypeScript = program.pipe(Effect.provide(session(TypeScriptLive)))
export const withPython = program.pipe(Effect.provide(session(ServersLive)))
