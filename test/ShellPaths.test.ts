/**
 * A path spelled as a shell would: `dir/a\ b:1-2` reads lines 1-2 of `dir/a b` when no file is
 * named `a\ b` literally; a literal name wins when it is there.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as nodePath from "node:path"
import { localMeanings, shellUnescape } from "../src/internal/core/resolve.js"
import { read } from "../src/Read.js"
import { nodeLayer, projectDirs } from "./support/index.js"

const project = projectDirs()
const readIn = (root: string, filePath: string) => read({ filePath }).pipe(Effect.provide(nodeLayer(root)))

describe("shell-escaped paths", () => {
  it("unescapes a backslash before anything but a letter or digit", () => {
    expect(shellUnescape("dir/a\\ b\\(1\\).txt")).toBe("dir/a b(1).txt")
    expect(shellUnescape("C\\new\\5")).toBe("C\\new\\5")
    const meanings = localMeanings("dir/a\\ b:1-2", { containers: [], home: "/home/u" })
    expect(meanings.at(-1)).toEqual({ _tag: "Selected", path: "dir/a b", selector: "1-2" })
  })

  it.effect("dir/a\\ b:1-2 reads lines 1-2 of dir/a b; a\\ b alone reads it whole", () =>
    Effect.gen(function*() {
      const root = project({ "dir/a b": "one\ntwo\nthree\n" })
      const ranged = yield* readIn(root, "dir/a\\ b:1-2")
      expect(ranged.output).toContain(`<path>${nodePath.join(root, "dir/a b")}</path>`)
      expect(ranged.output).toContain("1: one\n2: two\n")
      expect(ranged.output).not.toContain("3: three")
      const whole = yield* readIn(root, "dir/a\\ b")
      expect(whole.output).toContain("3: three")
    }))

  it.effect("a file literally named with the backslash wins, with or without a selector", () =>
    Effect.gen(function*() {
      const root = project({ "dir/a b": "spaced\n", "dir/a\\ b": "literal\nsecond\n" })
      expect((yield* readIn(root, "dir/a\\ b")).output).toContain("1: literal")
      expect((yield* readIn(root, "dir/a\\ b:2")).output).toContain("2: second")
    }))

  it.effect("neither there: not found, named as a shell would read it", () =>
    Effect.gen(function*() {
      const root = project({ "dir/other": "x\n" })
      const error = yield* Effect.flip(readIn(root, "dir/no\\ such:1-2"))
      expect(error._tag).toBe("FileNotFound")
      expect(error.message).toContain(nodePath.join(root, "dir/no such"))
    }))
})
