/**
 * The shape of `src/`: no module imports itself back through others (static, type-only or
 * dynamic imports alike), and one module decides which source reads a path.
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
})
