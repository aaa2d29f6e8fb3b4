/**
 * The shape of `src/`: no module imports itself back through others (static, type-only or
 * dynamic imports alike), one module decides which source reads a path, and each folder of
 * `src/internal/` imports only the folders below it on the read path (`docs/layout.md`).
 */
import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as nodePath from "node:path"

const SRC = nodePath.resolve(import.meta.dirname, "../src")

const modules = (directory: string): Array<string> =>
  fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = nodePath.join(directory, entry.name)
    return entry.isDirectory() ? modules(full) : entry.name.endsWith(".ts") ? [full] : []
  })

/** Relative imports of a module (`from "./x.js"`, `import("./x.js")`, `export … from`), as files. */
const importsOf = (file: string): Array<string> => {
  // Comment lines may show imports as examples; they are not imports.
  const text = fs.readFileSync(file, "utf8").split("\n").filter((line) => !/^\s*(\*|\/\/|\/\*)/.test(line)).join("\n")
  const specifiers = [
    ...text.matchAll(/\bfrom\s+"(\.{1,2}\/[^"]+)"/g),
    ...text.matchAll(/\bimport\(\s*"(\.{1,2}\/[^"]+)"\s*\)/g)
  ].map((match) => match[1]!)
  return specifiers.map((specifier) => nodePath.resolve(nodePath.dirname(file), specifier.replace(/\.js$/, ".ts")))
}

/**
 * What each folder of `src/internal/` may import from `src/internal/` besides itself (a prefix,
 * or a pattern). Top-level modules (`ReadError`, `Workspace`, …) may be imported from anywhere
 * but the pure core, which `test/Core.test.ts` guards.
 */
const MAY_IMPORT: Record<string, ReadonlyArray<string | RegExp>> = {
  core: [/^internal\/sources\/[^/]+\//],
  html: [],
  io: [],
  store: ["core/", "io/"],
  structure: ["core/"],
  present: ["core/", "structure/", "sources/types.ts"],
  sources: [
    "core/",
    "html/",
    "io/",
    "present/",
    "structure/",
    "store/",
    "read/access.ts",
    "read/facts.ts",
    "read/open.ts",
    "read/params.ts"
  ],
  read: ["core/", "html/", "io/", "present/", "structure/", "store/", "sources/"],
  // The --store door opens a SQLite file as the store's layers do.
  // `mcp` runs the MCP server (internal/mcp/server.ts) without loading the eager definitions of McpServer.ts,
  // and answers a first `initialize` before loading it (internal/mcp/earlyInitialize.ts).
  doors: ["core/", "io/", "read/params.ts", "store/sql.ts", "mcp/server.ts", "mcp/earlyInitialize.ts"],
  // The MCP server (the door McpServer.ts re-exports) checks params and warms the file index.
  mcp: ["doors/", "read/params.ts", "read/recovery.ts"]
}

/** The front doors: they compose layers and translate; nothing below imports them. */
const DOORS = ["Cli.ts", "McpServer.ts", "ReadTool.ts", "Envelope.ts", "bin.ts"]

const graph = new Map(modules(SRC).map((file) => [file, importsOf(file)]))
const name = (file: string) => nodePath.relative(SRC, file)

/** One cycle through the graph, as module names, or undefined. */
const findCycle = (): ReadonlyArray<string> | undefined => {
  const state = new Map<string, "open" | "done">()
  const stack: Array<string> = []
  const visit = (file: string): ReadonlyArray<string> | undefined => {
    state.set(file, "open")
    stack.push(file)
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue
      if (state.get(next) === "open") return [...stack.slice(stack.indexOf(next)), next].map(name)
      if (state.get(next) === undefined) {
        const found = visit(next)
        if (found !== undefined) return found
      }
    }
    stack.pop()
    state.set(file, "done")
    return undefined
  }
  for (const file of graph.keys()) {
    if (state.get(file) === undefined) {
      const found = visit(file)
      if (found !== undefined) return found
    }
  }
  return undefined
}

describe("src/ structure", () => {
  it("every relative import names a module that exists", () => {
    const missing = [...graph].flatMap(([file, imports]) =>
      imports.filter((target) => !graph.has(target)).map((target) => `${name(file)} → ${name(target)}`)
    )
    expect(missing).toEqual([])
  })

  it("has no import circle", () => {
    expect(findCycle()).toBeUndefined()
  })

  it("one module asks the sources which reads a path; the sources never import it back", () => {
    const asking = [...graph.keys()].filter((file) => /\.claims\(/.test(fs.readFileSync(file, "utf8")))
    expect(asking.map(name)).toEqual(["internal/read/dispatch.ts"])
    const readers = [...graph.keys()].filter((file) => name(file).startsWith("internal/sources/"))
    for (const file of readers) {
      expect(graph.get(file)!.map(name), name(file)).not.toContain("Read.ts")
      expect(graph.get(file)!.map(name), name(file)).not.toContain("internal/read/dispatch.ts")
    }
  })

  it("each folder of internal/ imports only what lies below it on the read path", () => {
    const outside = [...graph].flatMap(([file, imports]) => {
      const from = name(file)
      const rule = Object.entries(MAY_IMPORT).find(([folder]) => from.startsWith(`internal/${folder}/`))
      if (rule === undefined) return []
      const [folder, allowed] = rule
      return imports.map(name).filter((to) =>
        to.startsWith("internal/") && !to.startsWith(`internal/${folder}/`) &&
        !allowed.some((prefix) => typeof prefix === "string" ? to.startsWith(`internal/${prefix}`) : prefix.test(to))
      ).map((to) => `${from} → ${to}`)
    })
    expect(outside).toEqual([])
  })

  it("every module of internal/ lives in one of the folders above", () => {
    const loose = [...graph.keys()].map(name).filter((file) =>
      file.startsWith("internal/") && !Object.keys(MAY_IMPORT).some((folder) => file.startsWith(`internal/${folder}/`))
    )
    expect(loose).toEqual([])
  })

  it("the front doors alone use the doors' helpers and the MCP wire; nothing inside imports a door", () => {
    const doorOnly = (to: string) => to.startsWith("internal/doors/") || to.startsWith("internal/mcp/")
    const misplaced = [...graph].flatMap(([file, imports]) =>
      imports.map(name).filter((to) =>
        (doorOnly(to) && !DOORS.includes(name(file)) && !doorOnly(name(file))) ||
        (DOORS.includes(to) && name(file).startsWith("internal/") && !doorOnly(name(file)))
      ).map((to) => `${name(file)} → ${to}`)
    )
    expect(misplaced).toEqual([])
  })
})
