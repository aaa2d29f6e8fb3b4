/**
 * Nearby instructions over real temp directories: AGENTS.md / CLAUDE.md files above a read file
 * appended once per session as a `<system-reminder>`, listed in `metadata.loaded`; never for
 * external reads or denied files; again after compaction; capped.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import * as Instructions from "../src/Instructions.js"
import * as Permission from "../src/Permission.js"
import { read } from "../src/Read.js"
import * as ReadMany from "../src/ReadMany.js"
import * as SessionMemory from "../src/SessionMemory.js"
import { nodeLayer, projectDirs } from "./support/index.js"
import type { LayerOptions } from "./support/index.js"

const project = projectDirs()

const tree = {
  "AGENTS.md": "Root rules.\n",
  "sub/AGENTS.md": "Sub rules.\n",
  "sub/CLAUDE.md": "Not shown: AGENTS.md comes first in this directory.\n",
  "sub/deep/CLAUDE.md": "Deep rules.\n",
  "sub/deep/f.ts": "export const f = 1\n",
  "sub/deep/g.ts": "export const g = 2\n",
  "other/h.ts": "export const h = 3\n"
}

/** `read`'s layers with nearby instructions on; the instructions layer is built once per call of this. */
const layerIn = (root: string, options: LayerOptions & { readonly instructions?: Instructions.Options } = {}) =>
  Layer.merge(
    nodeLayer(root, options),
    Layer.succeed(Instructions.Instructions, Instructions.make(options.instructions))
  )

const reminderOf = (output: string): string | undefined => {
  const at = output.indexOf("\n\n<system-reminder>\n")
  return at === -1 ? undefined : output.slice(at + 2)
}

describe("nearby instructions", () => {
  it.effect("off by default: nothing appended", () =>
    Effect.gen(function*() {
      const root = project(tree)
      const result = yield* read({ filePath: "sub/deep/f.ts" }).pipe(Effect.provide(nodeLayer(root)))
      expect(reminderOf(result.output)).toBeUndefined()
      expect(result.metadata.loaded).toBeUndefined()
    }))

  it.effect("the files from the worktree root down to the file's directory, once per session", () =>
    Effect.gen(function*() {
      const root = project(tree)
      const plain = yield* read({ filePath: "sub/deep/f.ts" }).pipe(Effect.provide(nodeLayer(root)))
      const layer = layerIn(root)
      yield* Effect.gen(function*() {
        const first = yield* read({ filePath: "sub/deep/f.ts" })
        // The page is exactly the default one; the block follows it.
        expect(first.output).toBe(`${plain.output}\n\n<system-reminder>\n${
          [
            `Instructions from: ${root}/AGENTS.md`,
            "Root rules.",
            "",
            `Instructions from: ${root}/sub/AGENTS.md`,
            "Sub rules.",
            "",
            `Instructions from: ${root}/sub/deep/CLAUDE.md`,
            "Deep rules."
          ].join("\n")
        }\n</system-reminder>`)
        expect(first.metadata.loaded).toEqual([
          `${root}/AGENTS.md`,
          `${root}/sub/AGENTS.md`,
          `${root}/sub/deep/CLAUDE.md`
        ])
        const again = yield* read({ filePath: "sub/deep/f.ts" })
        expect(again.output).toBe(plain.output)
        expect(again.metadata.loaded).toBeUndefined()
        // A sibling shares every directory: nothing new.
        expect(reminderOf((yield* read({ filePath: "sub/deep/g.ts" })).output)).toBeUndefined()
        // Another session has been shown nothing.
        const other = yield* read({ filePath: "sub/deep/g.ts" }).pipe(
          Effect.provide(nodeLayer(root, { sessionId: "other" }))
        )
        expect(other.metadata.loaded).toHaveLength(3)
      }).pipe(Effect.provide(layer))
    }))

  it.effect("never for a read outside the worktree", () =>
    Effect.gen(function*() {
      const outside = project({ "AGENTS.md": "Outside rules.\n", "x.ts": "x\n" })
      const root = project(tree)
      fs.symlinkSync(nodePath.join(outside, "x.ts"), nodePath.join(root, "sub", "link.ts"))
      const layer = layerIn(root)
      const external = yield* read({ filePath: nodePath.join(outside, "x.ts") }).pipe(Effect.provide(layer))
      expect(reminderOf(external.output)).toBeUndefined()
      expect(external.metadata.loaded).toBeUndefined()
      // A link inside the worktree to a file outside it is an external read too.
      const linked = yield* read({ filePath: "sub/link.ts" }).pipe(Effect.provide(layer))
      expect(linked.metadata.loaded).toBeUndefined()
    }))

  it.effect("again after compaction, and after a rewind past the read that showed it", () =>
    Effect.gen(function*() {
      const root = project(tree)
      const memory = SessionMemory.make()
      const layer = Layer.merge(layerIn(root), Layer.succeed(SessionMemory.SessionMemory, memory))
      yield* Effect.gen(function*() {
        expect((yield* read({ filePath: "sub/deep/f.ts" })).metadata.loaded).toHaveLength(3)
        expect((yield* read({ filePath: "sub/deep/f.ts:1" })).metadata.loaded).toBeUndefined()
        yield* memory.compacted("test")
        expect((yield* read({ filePath: "sub/deep/f.ts:1" })).metadata.loaded).toEqual([
          `${root}/AGENTS.md`,
          `${root}/sub/AGENTS.md`,
          `${root}/sub/deep/CLAUDE.md`
        ])
        const mark = yield* memory.mark("test")
        expect((yield* read({ filePath: "other/h.ts" })).metadata.loaded).toBeUndefined()
        yield* memory.compacted("test")
        yield* read({ filePath: "other/h.ts" }) // shows the root's AGENTS.md after `mark`
        yield* memory.rewound("test", mark)
        expect((yield* read({ filePath: "other/h.ts" })).metadata.loaded).toEqual([`${root}/AGENTS.md`])
      }).pipe(Effect.provide(layer))
    }))

  it.effect("a changed instruction file is shown again", () =>
    Effect.gen(function*() {
      const root = project(tree)
      const layer = layerIn(root)
      yield* Effect.gen(function*() {
        yield* read({ filePath: "other/h.ts" })
        fs.writeFileSync(nodePath.join(root, "AGENTS.md"), "Root rules, revised.\n")
        const again = yield* read({ filePath: "other/h.ts" })
        expect(again.metadata.loaded).toEqual([`${root}/AGENTS.md`])
        expect(reminderOf(again.output)).toContain("Root rules, revised.")
      }).pipe(Effect.provide(layer))
    }))

  it.effect("a denied instruction file is never shown; one the rules would ask about neither (nobody is asked)", () =>
    Effect.gen(function*() {
      const root = project(tree)
      const asked: Array<string> = []
      const permission = Permission.layerRules([
        ...Permission.defaultRules,
        { permission: "read", pattern: "sub/AGENTS.md", action: "deny" },
        { permission: "read", pattern: "sub/deep/CLAUDE.md", action: "ask" }
      ], { asker: (request) => Effect.sync(() => asked.push(...request.patterns)).pipe(Effect.as("once" as const)) })
      const result = yield* read({ filePath: "sub/deep/f.ts" }).pipe(Effect.provide(layerIn(root, { permission })))
      expect(result.metadata.loaded).toEqual([`${root}/AGENTS.md`])
      expect(result.output).not.toContain("Sub rules.")
      expect(result.output).not.toContain("Deep rules.")
      expect(asked).toEqual([])
    }))

  it.effect("capped: a file at 8 KiB with a note, a read at 12 KiB; what did not fit comes with a later read", () =>
    Effect.gen(function*() {
      const line = "x".repeat(63) + "\n"
      const root = project({
        "AGENTS.md": line.repeat(320), // 20 KiB
        "a/AGENTS.md": line.repeat(64), // 4 KiB
        "a/b/AGENTS.md": line.repeat(64),
        "a/b/f.ts": "f\n",
        "a/b/g.ts": "g\n"
      })
      const layer = layerIn(root)
      yield* Effect.gen(function*() {
        const first = yield* read({ filePath: "a/b/f.ts" })
        expect(first.metadata.loaded).toEqual([`${root}/AGENTS.md`, `${root}/a/AGENTS.md`])
        const reminder = reminderOf(first.output)!
        expect(reminder).toContain(`(Cut at 8.0 KiB of 20.0 KiB: read ${root}/AGENTS.md for the rest.)`)
        expect(Buffer.byteLength(reminder)).toBeLessThan(12 * 1024 + 1024)
        const second = yield* read({ filePath: "a/b/g.ts" })
        expect(second.metadata.loaded).toEqual([`${root}/a/b/AGENTS.md`])
      }).pipe(Effect.provide(layer))
    }))

  it.effect("names and the number of directories are options; the file being read is not appended to itself", () =>
    Effect.gen(function*() {
      const root = project(tree)
      const claude = yield* read({ filePath: "sub/deep/f.ts" }).pipe(
        Effect.provide(layerIn(root, { instructions: { names: ["CLAUDE.md"] } }))
      )
      expect(claude.metadata.loaded).toEqual([`${root}/sub/CLAUDE.md`, `${root}/sub/deep/CLAUDE.md`])
      const near = yield* read({ filePath: "sub/deep/f.ts" }).pipe(
        Effect.provide(layerIn(root, { instructions: { maxDirectories: 2 } }))
      )
      expect(near.metadata.loaded).toEqual([`${root}/sub/AGENTS.md`, `${root}/sub/deep/CLAUDE.md`])
      const itself = yield* read({ filePath: "sub/AGENTS.md" }).pipe(Effect.provide(layerIn(root)))
      expect(itself.metadata.loaded).toEqual([`${root}/AGENTS.md`])
      const skipped = yield* read({ filePath: "sub/deep/f.ts" }).pipe(
        Effect.provide(layerIn(root, { instructions: { skip: [`${root}/AGENTS.md`] } }))
      )
      expect(skipped.metadata.loaded).toEqual([`${root}/sub/AGENTS.md`, `${root}/sub/deep/CLAUDE.md`])
    }))

  it.effect("read_many: files in one directory show its instructions once", () =>
    Effect.gen(function*() {
      const root = project(tree)
      const result = yield* ReadMany.readMany({ files: [{ filePath: "sub/deep/f.ts" }, { filePath: "sub/deep/g.ts" }] })
        .pipe(
          Effect.provide(layerIn(root))
        )
      expect(result.output.split("Instructions from: ").length - 1).toBe(3)
    }))

  it.effect("read_many: a block its budget cuts keeps its instructions whole", () =>
    Effect.gen(function*() {
      const root = project({ ...tree, "sub/deep/big.ts": "export const line = 1\n".repeat(2000) })
      const result = yield* ReadMany.readMany({ files: [{ filePath: "sub/deep/big.ts" }, { filePath: "other/h.ts" }] })
        .pipe(
          Effect.provideService(ReadMany.ReadManyLimits, { ...ReadMany.ReadManyLimits.defaultValue(), maxBytes: 4096 }),
          Effect.provide(layerIn(root))
        )
      expect(result.files[0]!.continueWith).toBeDefined()
      // The two are read in parallel: which of them shows the root's file is not fixed.
      expect(result.files[0]!.metadata!.loaded).toContain(`${root}/sub/deep/CLAUDE.md`)
      expect(result.output.split("Instructions from: ").length - 1).toBe(3)
      expect(result.output).toContain(`Instructions from: ${root}/sub/deep/CLAUDE.md\nDeep rules.\n</system-reminder>`)
    }))
})
