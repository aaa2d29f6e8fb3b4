/**
 * The services the benches read through, as an agent server builds them: a workspace at
 * `directory`, every read allowed, no language server, the in-process ledger, over Node's own
 * layers; `extra` adds more (session memory). The library's modules are handed in, so each bench
 * decides when they load and from which build (`readModules`).
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Layer from "effect/Layer"

/**
 * The modules a read needs from a build (`dist`: a URL ending in `/`, by default this checkout's):
 * not `index.js`, which also loads the MCP server and the SQLite ledger.
 */
export const readModules = async (dist = new URL("../dist/", import.meta.url).href) => {
  const [FileTime, Lsp, Permission, Read, Workspace] = await Promise.all(
    ["FileTime", "Lsp", "Permission", "Read", "Workspace"].map((name) => import(`${dist}${name}.js`))
  )
  return { FileTime, Lsp, Permission, Read, Workspace }
}

/** The full tool's services for `directory` and `sessionId`, from `modules` (`readModules`'s). */
export const readServices = ({ FileTime, Lsp, Permission, Workspace }, directory, sessionId, extra = Layer.empty) =>
  Layer.mergeAll(
    Workspace.layer({ directory, sessionId }),
    Permission.layerAllowAll,
    Lsp.layerNoop,
    FileTime.layerMemory,
    extra
  ).pipe(Layer.provideMerge(NodeContext.layer))
