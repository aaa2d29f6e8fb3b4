/**
 * The pure core imports nothing from Effect: an edition on another Effect major is built on the
 * same core. The core is every module in the pure folders below — `src/internal/core/`, the HTML
 * converter in `src/internal/html/`, and each source's own folder (`src/internal/sources/<name>/`,
 * the pure parts beside its adapter `sources/<name>.ts`); each may import only Node's built-ins,
 * non-Effect packages and other core modules, so the whole closure stays Effect-free.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import picomatch from "picomatch"

const SRC = nodePath.resolve(import.meta.dirname, "../src")

const modules = (directory: string): Array<string> =>
  fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = nodePath.join(directory, entry.name)
    return entry.isDirectory() ? modules(full) : entry.name.endsWith(".ts") ? [full] : []
  })

const INTERNAL = nodePath.join(SRC, "internal")

/** The pure folders, as globs under `src/internal/`. */
const PURE = ["core/**", "html/**", "sources/*/**"]

const relative = (file: string) => nodePath.relative(INTERNAL, file).split(nodePath.sep).join("/")

/** Every module specifier in a module's text: static, type-only, re-exports, dynamic, require. */
const specifiersOf = (text: string): Array<string> => {
  const code = text.split("\n").filter((line) => !/^\s*(\*|\/\/|\/\*)/.test(line)).join("\n")
  return [
    ...code.matchAll(/\bfrom\s+["']([^"']+)["']/g),
    ...code.matchAll(/^\s*import\s+["']([^"']+)["']/gm),
    ...code.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g),
    ...code.matchAll(/\brequire\(\s*["']([^"']+)["']\s*\)/g)
  ].map((match) => match[1]!)
}

const isEffect = (specifier: string) =>
  specifier === "effect" || specifier.startsWith("effect/") || specifier.startsWith("@effect/")

/** What is wrong with one core module: Effect imports, or relative imports leaving the core. */
const violations = (file: string, text: string, core: ReadonlySet<string>): Array<string> =>
  specifiersOf(text).flatMap((specifier) => {
    if (isEffect(specifier)) return [`imports ${specifier}`]
    if (!specifier.startsWith(".")) return []
    const target = nodePath.resolve(nodePath.dirname(file), specifier.replace(/\.js$/, ".ts"))
    return core.has(target) ? [] : [`imports ${nodePath.relative(SRC, target)}, which is not in the core`]
  })

const core = new Set(modules(INTERNAL).filter((file) => picomatch.isMatch(relative(file), PURE)))

describe("the pure core", () => {
  it("each pure folder exists and holds modules", () => {
    for (const glob of PURE) {
      expect([...core].filter((file) => picomatch.isMatch(relative(file), glob)), glob).not.toEqual([])
    }
    expect(modules(nodePath.join(INTERNAL, "core")).length).toBeGreaterThan(5)
    // Every source's own folder is pure: its Effect code lives in the adapter beside it.
    expect([...core].some((file) => relative(file).startsWith("sources/archive/"))).toBe(true)
  })

  it("imports nothing from effect or @effect/*, directly or through another module", () => {
    const found = [...core].flatMap((file) =>
      violations(file, fs.readFileSync(file, "utf8"), core).map((problem) =>
        `${nodePath.relative(SRC, file)} ${problem}`
      )
    )
    expect(found).toEqual([])
  })

  it("the check sees every kind of import", () => {
    const file = nodePath.join(SRC, "internal/core/x.ts")
    const cases = [
      `import * as Effect from "effect/Effect"`,
      `import type { PlatformError } from "@effect/platform/Error"`,
      `export { pipe } from "effect"`,
      `import "effect/Schema"`,
      `const m = await import("@effect/platform")`,
      `const m = require("effect")`,
      `import { x } from "../file.js"`
    ]
    for (const text of cases) expect(violations(file, text, core), text).toHaveLength(1)
    expect(
      violations(file, `import { x } from "./lines.js"\nimport * as zlib from "node:zlib"\n// import "effect"`, core)
    )
      .toEqual([])
  })
})
