/**
 * The runtime the session benches read through: a workspace at `directory`, every read allowed,
 * no language server, the in-process ledger and (unless `memory` is false) session memory.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as FileTime from "../dist/FileTime.js"
import * as Lsp from "../dist/Lsp.js"
import * as Permission from "../dist/Permission.js"
import * as SessionMemory from "../dist/SessionMemory.js"
import * as Workspace from "../dist/Workspace.js"

export const sessionRuntime = (directory, sessionId, { memory = true } = {}) =>
  ManagedRuntime.make(
    Layer.mergeAll(
      Workspace.layer({ directory, sessionId }),
      Permission.layerAllowAll,
      Lsp.layerNoop,
      FileTime.layerMemory,
      memory ? SessionMemory.layerSession() : Layer.empty
    ).pipe(Layer.provideMerge(NodeContext.layer))
  )
