/**
 * The typed API: `Read.read`, `ReadMany.readMany` and `Anchors.verify` take their parameters'
 * types, so a misspelled or mistyped call does not compile (each `@ts-expect-error` below is
 * checked by `tsc --noEmit`: a call that compiled would fail the type check). The same inputs,
 * as a model would send them, go through the decoding entries and fail with `InvalidParams`
 * naming what is wrong.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Anchors from "../src/Anchors.js"
import * as Read from "../src/Read.js"
import * as ReadMany from "../src/ReadMany.js"
import { nodeLayer, tempDir, writeTree } from "./support/index.js"

/** Never run: only compiled. */
const typed = () => {
  Read.read({ filePath: "a.ts" })
  Read.read({ filePath: "a.ts", offset: 10, limit: 5, view: "outline", encoding: "utf-8", lineFormat: "hashline" })
  // @ts-expect-error filepath is not a parameter (filePath is)
  Read.read({ filepath: "a.ts" })
  // @ts-expect-error offset is a number
  Read.read({ filePath: "a.ts", offset: "10" })
  // @ts-expect-error filePath is required
  Read.read({ offset: 10 })
  // @ts-expect-error view is one of list, tree, outline, summary, block, conflicts
  Read.read({ filePath: "a.ts", view: "bogus" })

  ReadMany.readMany({ files: [{ filePath: "a.ts", limit: 3 }], glob: "src/**/*.ts" })
  // @ts-expect-error filepath is not a parameter (filePath is)
  ReadMany.readMany({ files: [{ filepath: "a.ts" }] })
  // @ts-expect-error offset is a number
  ReadMany.readMany({ files: [{ filePath: "a.ts", offset: "10" }] })
  // @ts-expect-error filePath is required
  ReadMany.readMany({ files: [{ limit: 3 }] })
  // @ts-expect-error view is one of list, tree, outline, summary, block, conflicts
  ReadMany.readMany({ files: [{ filePath: "a.ts", view: "bogus" }] })
  // @ts-expect-error globs is not a parameter (glob is)
  ReadMany.readMany({ globs: "*.ts" })

  Anchors.verify({ filePath: "a.ts", tag: "1A2B", start: 3, lines: ["x"] })
  // @ts-expect-error filepath is not a parameter (filePath is)
  Anchors.verify({ filepath: "a.ts", tag: "1A2B", start: 3 })
  // @ts-expect-error start is a number
  Anchors.verify({ filePath: "a.ts", tag: "1A2B", start: "3" })
  // @ts-expect-error filePath is required
  Anchors.verify({ tag: "1A2B", start: 3 })
  // @ts-expect-error lines is an array of strings
  Anchors.verify({ filePath: "a.ts", tag: "1A2B", start: 3, lines: "x" })
}

describe("the typed API", () => {
  const root = tempDir()
  writeTree(root, { "a.ts": "export const a = 1\n" })
  const layer = nodeLayer(root)

  it.effect("a correct call reads; the calls that do not compile fail as model input with InvalidParams", () =>
    Effect.gen(function*() {
      expect(typeof typed).toBe("function")
      expect((yield* Read.read({ filePath: "a.ts" })).output).toContain("1: export const a = 1")
      const read = (input: unknown) => Effect.flip(Read.readUnknown(input))
      expect((yield* read({ filepath: "a.ts" })).message).toContain("filepath")
      expect((yield* read({ filePath: "a.ts", offset: "ten" })).message).toContain("offset")
      expect((yield* read({ offset: 10 })).message).toContain("filePath")
      expect((yield* read({ filePath: "a.ts", view: "bogus" })).message).toContain("view")
      const many = (input: unknown) => Effect.flip(ReadMany.readManyUnknown(input))
      expect((yield* many({ files: [{ filepath: "a.ts" }] })).message).toContain("filepath")
      expect((yield* many({ globs: "*.ts" })).message).toContain("globs")
      const verify = (input: unknown) => Effect.flip(Anchors.verifyUnknown(input))
      expect((yield* verify({ filepath: "a.ts", tag: "1A2B", start: 3 })).message).toContain("filepath")
      expect((yield* verify({ filePath: "a.ts", tag: "1A2B", start: 3, lines: "x" }))._tag).toBe("InvalidParams")
      // A typed call still checks what its type cannot say: a whole number, from 1.
      expect((yield* Effect.flip(Read.read({ filePath: "a.ts", limit: 0 })))._tag).toBe("InvalidParams")
    }).pipe(Effect.provide(layer)))
})
