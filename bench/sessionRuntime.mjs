/**
 * The runtime the session benches read through: a workspace at `directory`, every read allowed,
 * no language server, the in-process ledger and (unless `memory` is false) session memory.
 */
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as FileTime from "../dist/FileTime.js"
import * as Lsp from "../dist/Lsp.js"
import * as Permission from "../dist/Permission.js"
import * as SessionMemory from "../dist/SessionMemory.js"
import * as Workspace from "../dist/Workspace.js"
import { readServices } from "./readServices.mjs"

export const sessionRuntime = (directory, sessionId, { memory = true } = {}) =>
  ManagedRuntime.make(
    readServices(
      { FileTime, Lsp, Permission, Workspace },
      directory,
      sessionId,
      memory ? SessionMemory.layerSession() : Layer.empty
    )
  )
