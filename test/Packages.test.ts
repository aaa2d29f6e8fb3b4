/**
 * The two packages of this repository stay in step: `effect-read-full` (packages/effect-read-full)
 * is effect-read with every optional peer as a dependency and the same `effect-read` bin. What it
 * installs and runs is checked for real by the consumer test (`.ci/consumer.mjs`); these checks
 * catch the drift a change to one package.json would cause before that.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { version as cliVersion } from "../src/Cli.js"

const ROOT = nodePath.resolve(import.meta.dirname, "..")
const FULL = nodePath.join(ROOT, "packages", "effect-read-full")

interface PackageJson {
  readonly name: string
  readonly version: string
  readonly engines: Record<string, string>
  readonly bin: Record<string, string>
  readonly exports: Record<string, unknown>
  readonly files: ReadonlyArray<string>
  readonly dependencies: Record<string, string>
  readonly peerDependencies: Record<string, string>
  readonly peerDependenciesMeta: Record<string, { readonly optional?: boolean }>
  readonly devDependencies: Record<string, string>
}

const readJson = (path: string): PackageJson => JSON.parse(fs.readFileSync(path, "utf8"))
const library = readJson(nodePath.join(ROOT, "package.json"))
const full = readJson(nodePath.join(FULL, "package.json"))

describe("effect-read-full", () => {
  it("depends on every peer of the library, optional or not, with the library's range", () => {
    const { "effect-read": self, ...others } = full.dependencies
    expect(others).toEqual(library.peerDependencies)
    expect(self).toBe(library.version)
  })

  it("has the library's version and engines", () => {
    expect(full.version).toBe(library.version)
    expect(full.engines).toEqual(library.engines)
  })

  it("carries the effect-read bin, which runs the library's bin", () => {
    expect(Object.keys(full.bin)).toEqual(["effect-read"])
    expect(full.files).toContain(full.bin["effect-read"])
    const bin = fs.readFileSync(nodePath.join(FULL, full.bin["effect-read"]!), "utf8")
    expect(bin.startsWith("#!/usr/bin/env node\n")).toBe(true)
    // CommonJS, as the library's own bin: Node starts it without its ES module loader.
    expect(full.bin["effect-read"]).toMatch(/\.cjs$/)
    expect(bin).toContain(`require("effect-read/bin")`)
    expect(library.exports["./bin"]).toBe(`./${library.bin["effect-read"]}`)
  })
})

describe("effect-read-grammars", () => {
  const grammars = readJson(nodePath.join(ROOT, "packages", "effect-read-grammars", "package.json"))

  it("is an optional peer at its own version, which effect-read-full depends on and our tests install as a workspace", () => {
    expect(library.peerDependencies["effect-read-grammars"]).toBe(grammars.version)
    expect(library.peerDependenciesMeta["effect-read-grammars"]?.optional).toBe(true)
    expect(full.dependencies["effect-read-grammars"]).toBe(grammars.version)
    expect((library as unknown as { workspaces: ReadonlyArray<string> }).workspaces).toEqual([
      "packages/effect-read-grammars"
    ])
    expect(grammars.engines).toEqual(library.engines)
  })

  it("pins web-tree-sitter exactly (the grammars' ABI is checked against that runtime)", () => {
    expect(grammars.dependencies["web-tree-sitter"]).toMatch(/^\d+\.\d+\.\d+$/)
  })
})

describe("the library's package.json", () => {
  it("every peer is also a dev dependency at the same range, for our own tests", () => {
    for (const [name, range] of Object.entries(library.peerDependencies)) {
      expect([name, library.devDependencies[name]]).toEqual([name, range])
    }
  })

  it("only effect and @effect/platform(-node) are required peers", () => {
    const required = Object.keys(library.peerDependencies).filter((name) =>
      library.peerDependenciesMeta[name]?.optional !== true
    )
    expect(required.sort()).toEqual(["@effect/platform", "@effect/platform-node", "effect"])
  })

  it("the CLI reports the package's version", () => {
    expect(cliVersion).toBe(library.version)
  })
})
