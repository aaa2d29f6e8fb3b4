/**
 * Session memory: held lines of an unchanged file are a stub, and never wrongly.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import * as Read from "../src/Read.js"
import * as ReadMany from "../src/ReadMany.js"
import * as SessionMemory from "../src/SessionMemory.js"
import * as Workspace from "../src/Workspace.js"
import { nodeLayer, tempDir, writeTree } from "./support.js"

const root = tempDir()
const numbered = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n") + "\n"
writeTree(root, {
  "a.txt": numbered(10),
  "AGENTS.md": "Be nice.\n",
  "sub/CLAUDE.md": "Be brief.\n",
  ".claude/skills/x/SKILL.md": "A skill.\n",
  "b.txt": numbered(5)
})
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

const abs = (name: string) => nodePath.join(root, name)

/** One session with a remembering memory, shared by every read in `effect`. */
const session = <A, E>(effect: Effect.Effect<A, E, Read.EffectRequirements | SessionMemory.SessionMemory>) =>
  effect.pipe(Effect.provide(Layer.merge(nodeLayer(root), SessionMemory.layerSession())))

const memory = SessionMemory.SessionMemory

const stub = (name: string, start: number, end: number) =>
  `<path>${abs(name)}</path>\n<type>file</type>\nFile unchanged since your last read (lines ${start}-${end}). Its content is still above in this conversation.`

describe("SessionMemory", () => {
  it.effect("the default remembers nothing: a re-read returns the content, exactly as before", () =>
    Effect.gen(function*() {
      const first = yield* Read.read({ filePath: "a.txt" })
      const second = yield* Read.read({ filePath: "a.txt" })
      expect(second).toEqual(first)
      expect(second.metadata.unchanged).toBeUndefined()
    }).pipe(Effect.provide(nodeLayer(root))))

  it.effect("a re-read of held lines of an unchanged file is the stub, with metadata.unchanged", () =>
    session(Effect.gen(function*() {
      const first = yield* Read.read({ filePath: "a.txt" })
      expect(first.output).toContain("1: line 1")
      const second = yield* Read.read({ filePath: "a.txt" })
      expect(second.output).toBe(stub("a.txt", 1, 10))
      expect(second.metadata).toMatchObject({ unchanged: true, startLine: 1, endLine: 10, kind: "text" })
      // A narrower range inside what is held is a stub too.
      const part = yield* Read.read({ filePath: "a.txt:3-4" })
      expect(part.output).toBe(`${stub("a.txt", 3, 4)} Use offset=5 to read on.`)
    })))

  it.effect("a stub is never given for a wider range than held; held pieces merge", () =>
    session(Effect.gen(function*() {
      yield* Read.read({ filePath: "a.txt:1-3" })
      const wider = yield* Read.read({ filePath: "a.txt:1-5" })
      expect(wider.metadata.unchanged).toBeUndefined()
      expect(wider.output).toContain("5: line 5")
      yield* Read.read({ filePath: "a.txt:6-10" })
      // 1-5 and 6-10 together hold the whole file.
      expect((yield* Read.read({ filePath: "a.txt" })).output).toBe(stub("a.txt", 1, 10))
      const gap = yield* Read.read({ filePath: "b.txt:1-2" })
      expect(gap.metadata.unchanged).toBeUndefined()
      yield* Read.read({ filePath: "b.txt:4-5" })
      // Line 3 was never shown: not a stub.
      expect((yield* Read.read({ filePath: "b.txt" })).metadata.unchanged).toBeUndefined()
    })))

  it.effect("a changed file is read again in full, then held at its new content", () =>
    session(Effect.gen(function*() {
      const path = abs("changing.txt")
      fs.writeFileSync(path, "one\ntwo\n")
      yield* Read.read({ filePath: path })
      fs.writeFileSync(path, "one\nTWO\n")
      const changed = yield* Read.read({ filePath: path })
      expect(changed.output).toContain("2: TWO")
      expect((yield* Read.read({ filePath: path })).metadata.unchanged).toBe(true)
      // Same size, content changed back behind a restored mtime: the hash tells.
      const before = fs.statSync(path)
      fs.writeFileSync(path, "one\ntwo\n")
      fs.utimesSync(path, before.atime, before.mtime)
      expect((yield* Read.read({ filePath: path })).output).toContain("2: two")
    })))

  it.effect("a read of several ranges holds those ranges, not the lines between them", () =>
    session(Effect.gen(function*() {
      yield* Read.read({ filePath: "b.txt:1-2,4-5" })
      expect((yield* Read.read({ filePath: "b.txt:3+1" })).output).toContain("3: line 3")
      expect((yield* Read.read({ filePath: "b.txt:4-5" })).metadata.unchanged).toBe(true)
    })))

  it.effect("compaction resets every stub; forget resets one file", () =>
    session(Effect.gen(function*() {
      const { sessionId } = yield* Workspace.Workspace
      yield* Read.read({ filePath: "a.txt" })
      yield* Read.read({ filePath: "b.txt" })
      yield* (yield* memory).compacted(sessionId)
      expect((yield* Read.read({ filePath: "a.txt" })).metadata.unchanged).toBeUndefined()
      expect((yield* Read.read({ filePath: "a.txt" })).metadata.unchanged).toBe(true)
      yield* Read.read({ filePath: "b.txt" })
      yield* (yield* memory).forget(sessionId, abs("a.txt"))
      expect((yield* Read.read({ filePath: "a.txt" })).metadata.unchanged).toBeUndefined()
      expect((yield* Read.read({ filePath: "b.txt" })).metadata.unchanged).toBe(true)
    })))

  it.effect("a rewind forgets the reads after its mark and keeps those before", () =>
    session(Effect.gen(function*() {
      const { sessionId } = yield* Workspace.Workspace
      const mem = yield* memory
      yield* Read.read({ filePath: "b.txt" })
      const mark = yield* mem.mark(sessionId)
      yield* Read.read({ filePath: "a.txt" })
      yield* mem.rewound(sessionId, mark)
      expect((yield* Read.read({ filePath: "a.txt" })).metadata.unchanged).toBeUndefined()
      expect((yield* Read.read({ filePath: "b.txt" })).metadata.unchanged).toBe(true)
      // Rewinding to before the first read forgets everything.
      yield* mem.rewound(sessionId, 0)
      expect((yield* Read.read({ filePath: "b.txt" })).metadata.unchanged).toBeUndefined()
    })))

  it.effect("instruction files are never stubbed", () =>
    session(Effect.gen(function*() {
      for (const name of ["AGENTS.md", "sub/CLAUDE.md", ".claude/skills/x/SKILL.md"]) {
        const first = yield* Read.read({ filePath: name })
        const again = yield* Read.read({ filePath: name })
        expect(again.output).toBe(first.output)
        expect(again.metadata.unchanged).toBeUndefined()
      }
    })))

  it.effect("never across sessions, never with column", () =>
    session(Effect.gen(function*() {
      yield* Read.read({ filePath: "a.txt" })
      const other = yield* Read.read({ filePath: "a.txt" }).pipe(
        Effect.provide(Workspace.layer({ directory: root, sessionId: "other" }))
      )
      expect(other.metadata.unchanged).toBeUndefined()
      expect((yield* Read.read({ filePath: "a.txt", offset: 2, column: 1 })).metadata.unchanged).toBeUndefined()
    })))

  it.effect("read_many stubs the members held and reads the others", () =>
    session(Effect.gen(function*() {
      yield* Read.read({ filePath: "a.txt" })
      const many = yield* ReadMany.readMany({ files: [{ filePath: "a.txt" }, { filePath: "b.txt" }] })
      expect(many.files.map((file) => file.metadata?.unchanged ?? false)).toEqual([true, false])
      expect(many.output).toContain(stub("a.txt", 1, 10))
      expect(many.output).toContain("5: line 5")
    })))

  it("mergeRanges and covered", () => {
    expect(SessionMemory.mergeRanges([{ start: 5, end: 9 }, { start: 1, end: 4 }, { start: 12, end: 12 }])).toEqual([
      { start: 1, end: 9 },
      { start: 12, end: 12 }
    ])
    expect(SessionMemory.covered([{ start: 1, end: 4 }, { start: 5, end: 9 }], 2, 9)).toBe(true)
    expect(SessionMemory.covered([{ start: 1, end: 4 }, { start: 6, end: 9 }], 2, 9)).toBe(false)
  })
})
