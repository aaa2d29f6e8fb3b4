/**
 * What scripts/bundle.mjs changes in the bundled command line for start-up, checked against what
 * it replaces: Effect's `Utils` probe (the frames' names instead of a formatted stack), the
 * built-ins loaded at their first use, and the command line's ledger that records nothing.
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import * as vm from "node:vm"
import { effectUtilsProbe, lazyBuiltins, lazyBuiltinSource } from "../scripts/bundle.mjs"
import * as FileTime from "../src/FileTime.js"
import { runProcess, tempDir } from "./support/index.js"

const require = createRequire(import.meta.url)

/** `isNotOptimizedAway` as a statement computes it, with Effect's `standard` call wrapper. */
const probe = (statement: string): unknown =>
  vm.runInThisContext(`(() => {
    const standard = { effect_internal_function: (body) => { return body() } };
    ${statement}
    return isNotOptimizedAway;
  })()`)

describe("the bundle", () => {
  describe("Effect's Utils probe", () => {
    it("replaces Effect's own text, once, and the bundle holds no formatted-stack probe", () => {
      const utils = fs.readFileSync(require.resolve("effect/Utils").replace(/[\\/]cjs[\\/]/, "/esm/"), "utf8")
      expect(utils.split(effectUtilsProbe.original).length).toBe(2)
      const bundled = fs.readFileSync("dist/bin-main.cjs", "latin1")
      expect(bundled).not.toContain(".stack)?.includes(\"effect_internal_function\")")
      expect(bundled).toContain("getFunctionName()===\"effect_internal_function\"")
    })

    it("answers as Effect's does, and leaves Error.prepareStackTrace as it found it", () => {
      expect(probe(effectUtilsProbe.replacement)).toBe(probe(effectUtilsProbe.original))
      expect(probe(effectUtilsProbe.replacement)).toBe(true)
      const mine = (error: Error) => `mine: ${error.message}`
      const before = Error.prepareStackTrace
      Error.prepareStackTrace = mine
      try {
        expect(probe(effectUtilsProbe.replacement)).toBe(true)
        expect(Error.prepareStackTrace).toBe(mine)
      } finally {
        Error.prepareStackTrace = before
      }
    })
  })

  it("a lazy built-in loads at the first use of any export, and is the real one's exports", async () => {
    const dir = tempDir()
    for (const name of lazyBuiltins) {
      const stand = path.join(dir, `${name.replace("/", "-")}.cjs`)
      fs.writeFileSync(stand, lazyBuiltinSource(name))
      const script = `
        const loaded = () => process.moduleLoadList.includes(${JSON.stringify(`NativeModule ${name}`)})
        const before = loaded()
        const lazy = require(${JSON.stringify(stand)})
        const keys = Object.keys(lazy)
        const required = loaded()
        void lazy[keys[0]]
        const used = loaded()
        const real = require(${JSON.stringify(`node:${name}`)})
        const same = Object.keys(real).filter((key) => key !== "default").every((key) => lazy[key] === real[key])
        console.log(JSON.stringify({ before, required, used, same }))`
      // A script file: \`node -e\` loads node:crypto itself.
      const file = path.join(dir, `probe-${name.replace("/", "-")}.cjs`)
      fs.writeFileSync(file, script)
      const { code, stdout } = await runProcess(process.execPath, [file])
      expect(code).toBe(0)
      expect([name, JSON.parse(stdout)]).toEqual([name, {
        before: false,
        required: false,
        used: true,
        same: true
      }])
    }
  })

  it("a hash made through the lazy node:crypto is the eager one's", async () => {
    const stand = path.join(tempDir(), "crypto.cjs")
    fs.writeFileSync(stand, lazyBuiltinSource("crypto"))
    const script = `
      const lazy = require(${JSON.stringify(stand)})
      const bytes = Buffer.from("line one\\nline two\\n")
      console.log(lazy.createHash("sha256").update(bytes).digest("hex"))`
    const { stdout } = await runProcess(process.execPath, ["-e", script])
    expect(stdout.trim()).toBe(
      (require("node:crypto") as typeof import("node:crypto")).createHash("sha256").update("line one\nline two\n")
        .digest("hex")
    )
  })

  it.effect("FileTime.noop (the command line's ledger) records nothing: every file stays unread", () =>
    Effect.gen(function*() {
      const ledger = yield* FileTime.FileTime
      yield* ledger.read("s", "/p/a.txt", { start: 1, end: 2, whole: true, size: 4, mtime: 1 }, {
        path: "/p/a.txt",
        size: 4,
        mtime: 1,
        bytes: new Uint8Array([97, 10, 98, 10])
      })
      expect(yield* ledger.get("s", "/p/a.txt")).toEqual(Option.none())
      expect(yield* ledger.coverage("s", "/p/a.txt")).toEqual(FileTime.emptyCoverage)
      expect(yield* ledger.covers("s", "/p/a.txt", 1, 1)).toBe(false)
      const refused = yield* Effect.flip(ledger.assert("s", "/p/a.txt"))
      expect(refused).toBeInstanceOf(FileTime.FileNotRead)
      expect(refused.path).toBe("/p/a.txt")
      expect(yield* ledger.fork!("s", "t")).toBe(false)
    }).pipe(Effect.provide(Layer.merge(FileTime.layerNoop, NodeFileSystem.layer))))
})
