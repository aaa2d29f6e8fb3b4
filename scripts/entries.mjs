/**
 * The entry points that need an optional peer, as package.json's `exports` name them: each
 * `dist/entries/<Module>.js` loads `dist/<Module>.js` through `loadWithPeers`
 * (src/internal/doors/peers.ts), so a host without the peer reads which package to install. Their
 * types stay `dist/<Module>.d.ts`. The names each entry re-exports are the module's own, listed
 * here from the built module (every peer is installed where the package is built).
 * Run after tsc (`npm run build` does).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const dist = path.join(root, "dist")

/** Module → the optional peers it imports (directly or through the modules it imports). */
export const guarded = {
  ReadTool: ["@effect/ai"],
  McpServer: ["@effect/ai", "@modelcontextprotocol/sdk"],
  MemoryFileSystem: ["memfs"],
  SqliteFileTime: ["@effect/sql", "@effect/sql-sqlite-node"],
  SqlFileTime: ["@effect/sql"],
  SqlSessionMemory: ["@effect/sql"]
}

fs.mkdirSync(path.join(dist, "entries"), { recursive: true })
for (const [name, peers] of Object.entries(guarded)) {
  const names = Object.keys(await import(pathToFileURL(path.join(dist, `${name}.js`)).href)).sort()
  const exported = names.filter((key) => key !== "default")
  fs.writeFileSync(
    path.join(dist, "entries", `${name}.js`),
    `// effect-read/${name}: written by scripts/entries.mjs. Without ${
      peers.join(" or ")
    }, importing it says what to install.
import { loadWithPeers } from "../internal/doors/peers.js"
const module = await loadWithPeers(${JSON.stringify(`effect-read/${name}`)}, ${
      JSON.stringify(peers)
    }, () => import("../${name}.js"))
export const { ${exported.join(", ")} } = module
`
  )
}
