/**
 * The SessionMemory contract: every remembering layer (`layerSession` in this process,
 * `SqlSessionMemory` on SQLite and PostgreSQL) must pass these. Held lines of an unchanged file
 * are a stub, and never wrongly; changes since the last read are told, with a diff.
 *
 * `makeLayer(options)` builds a fresh, empty memory each time it is provided (a new store for the
 * SQL layers): the cases all use the session "test".
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Layer from "effect/Layer"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import * as FileTime from "../../src/FileTime.js"
import * as Read from "../../src/Read.js"
import * as ReadMany from "../../src/ReadMany.js"
import * as SessionMemory from "../../src/SessionMemory.js"
import * as Workspace from "../../src/Workspace.js"
import { editableFiles, fieldsOf, nodeLayer, tempDir, writeTree } from "../support/index.js"
import { PNG } from "../support/media.js"

/** Rewrite a file, line `n` (1-based) replaced by `text`. */
export const replaceLine = (path: string, n: number, text: string) => {
  const lines = fs.readFileSync(path, "utf8").split("\n")
  lines[n - 1] = text
  fs.writeFileSync(path, lines.join("\n"))
}

export const sessionMemoryContract = (
  name: string,
  makeLayer: (options?: SessionMemory.Options) => Layer.Layer<SessionMemory.SessionMemory, unknown>
) => {
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
  const session = <A, E>(
    effect: Effect.Effect<A, E, Read.EffectRequirements | SessionMemory.SessionMemory>,
    options?: SessionMemory.Options
  ) => effect.pipe(Effect.provide(Layer.merge(nodeLayer(root), makeLayer(options))))

  const memory = SessionMemory.SessionMemory

  const stub = (name: string, start: number, end: number) =>
    `<path>${
      abs(name)
    }</path>\n<type>file</type>\nFile unchanged since your last read (lines ${start}-${end}). Its content is still above in this conversation.`

  describe(`SessionMemory contract: ${name}`, () => {
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
        expect(fieldsOf(wider).unchanged).toBeUndefined()
        expect(wider.output).toContain("5: line 5")
        yield* Read.read({ filePath: "a.txt:6-10" })
        // 1-5 and 6-10 together hold the whole file.
        expect((yield* Read.read({ filePath: "a.txt" })).output).toBe(stub("a.txt", 1, 10))
        const gap = yield* Read.read({ filePath: "b.txt:1-2" })
        expect(fieldsOf(gap).unchanged).toBeUndefined()
        yield* Read.read({ filePath: "b.txt:4-5" })
        // Line 3 was never shown: not a stub.
        expect(fieldsOf(yield* Read.read({ filePath: "b.txt" })).unchanged).toBeUndefined()
      })))

    it.effect("a changed file is read again in full, then held at its new content", () =>
      session(Effect.gen(function*() {
        const path = abs("changing.txt")
        fs.writeFileSync(path, "one\ntwo\n")
        yield* Read.read({ filePath: path })
        fs.writeFileSync(path, "one\nTWO\n")
        const changed = yield* Read.read({ filePath: path })
        expect(changed.output).toContain("2: TWO")
        expect(fieldsOf(yield* Read.read({ filePath: path })).unchanged).toBe(true)
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
        expect(fieldsOf(yield* Read.read({ filePath: "b.txt:4-5" })).unchanged).toBe(true)
      })))

    it.effect("compaction resets every stub; forget resets one file", () =>
      session(Effect.gen(function*() {
        const { sessionId } = yield* Workspace.Workspace
        yield* Read.read({ filePath: "a.txt" })
        yield* Read.read({ filePath: "b.txt" })
        yield* (yield* memory).compacted(sessionId)
        expect(fieldsOf(yield* Read.read({ filePath: "a.txt" })).unchanged).toBeUndefined()
        expect(fieldsOf(yield* Read.read({ filePath: "a.txt" })).unchanged).toBe(true)
        yield* Read.read({ filePath: "b.txt" })
        yield* (yield* memory).forget(sessionId, abs("a.txt"))
        expect(fieldsOf(yield* Read.read({ filePath: "a.txt" })).unchanged).toBeUndefined()
        expect(fieldsOf(yield* Read.read({ filePath: "b.txt" })).unchanged).toBe(true)
      })))

    it.effect("a rewind forgets the reads after its mark and keeps those before", () =>
      session(Effect.gen(function*() {
        const { sessionId } = yield* Workspace.Workspace
        const mem = yield* memory
        yield* Read.read({ filePath: "b.txt" })
        const mark = yield* mem.mark(sessionId)
        yield* Read.read({ filePath: "a.txt" })
        yield* mem.rewound(sessionId, mark)
        expect(fieldsOf(yield* Read.read({ filePath: "a.txt" })).unchanged).toBeUndefined()
        expect(fieldsOf(yield* Read.read({ filePath: "b.txt" })).unchanged).toBe(true)
        // Rewinding to before the first read forgets everything.
        yield* mem.rewound(sessionId, 0)
        expect(fieldsOf(yield* Read.read({ filePath: "b.txt" })).unchanged).toBeUndefined()
      })))

    it.effect("the generation: a raised one drops everything held; an older request runs without memory", () =>
      session(Effect.gen(function*() {
        const at = (generation: number) => SessionMemory.atGeneration("test", generation)
        yield* at(3)(Read.read({ filePath: "a.txt" }))
        expect(fieldsOf(yield* at(3)(Read.read({ filePath: "a.txt" }))).unchanged).toBe(true)
        // Raised (the host compacted): shown in full, then held at the new generation.
        expect(fieldsOf(yield* at(4)(Read.read({ filePath: "a.txt" }))).unchanged).toBeUndefined()
        expect(fieldsOf(yield* at(4)(Read.read({ filePath: "a.txt" }))).unchanged).toBe(true)
        // From before the compaction: never a stub, and nothing it reads is remembered.
        expect(fieldsOf(yield* at(3)(Read.read({ filePath: "a.txt" }))).unchanged).toBeUndefined()
        yield* at(3)(Read.read({ filePath: "b.txt" }))
        expect(fieldsOf(yield* at(4)(Read.read({ filePath: "b.txt" }))).unchanged).toBeUndefined()
        // A request without a generation is served as before.
        expect(fieldsOf(yield* Read.read({ filePath: "a.txt" })).unchanged).toBe(true)
        const mem = yield* memory
        expect(yield* mem.advance("test", 4)).toBe(true)
        expect(yield* mem.advance("test", 2)).toBe(false)
        expect(yield* mem.advance("other", 0)).toBe(true)
      })))

    it.effect("a read that raced a compaction brings nothing back", () =>
      session(Effect.gen(function*() {
        const mem = yield* memory
        yield* mem.advance("test", 1)
        const seen = { start: 1, end: 10, hash: "h", encoding: undefined }
        expect(yield* mem.remember("test", abs("a.txt"), seen)).toBeGreaterThan(0)
        // Another replica raised the generation while this request (generation 1) was reading.
        yield* mem.advance("test", 2)
        const late = mem.remember("test", abs("a.txt"), seen).pipe(Effect.provideService(SessionMemory.Generation, 1))
        expect(yield* late).toBe(0)
        yield* mem.keep("test", abs("a.txt"), 1, {
          hash: "h",
          encoding: undefined,
          hashes: undefined,
          lines: [[1, "x"]]
        }).pipe(
          Effect.provideService(SessionMemory.Generation, 1)
        )
        expect(yield* mem.held("test", abs("a.txt"))).toEqual([])
        expect(yield* mem.lastShown("test", abs("a.txt"))).toBeUndefined()
        // At the current generation it is remembered.
        const current = mem.remember("test", abs("a.txt"), seen).pipe(
          Effect.provideService(SessionMemory.Generation, 2)
        )
        expect(yield* current).toBeGreaterThan(0)
        expect((yield* mem.held("test", abs("a.txt"))).map(({ end, start }) => [start, end])).toEqual([[1, 10]])
      })))

    it.effect("marks grow with every read, and a mark before any read is below all of them", () =>
      session(Effect.gen(function*() {
        const mem = yield* memory
        const before = yield* mem.mark("test")
        yield* Read.read({ filePath: "a.txt" })
        const first = yield* mem.mark("test")
        yield* Read.read({ filePath: "b.txt" })
        const second = yield* mem.mark("test")
        expect(first).toBeGreaterThan(before)
        expect(second).toBeGreaterThan(first)
        expect((yield* mem.held("test", abs("b.txt")))[0]!.seq).toBe(second)
      })))

    it.effect("instruction files are never stubbed", () =>
      session(Effect.gen(function*() {
        for (const name of ["AGENTS.md", "sub/CLAUDE.md", ".claude/skills/x/SKILL.md"]) {
          const first = yield* Read.read({ filePath: name })
          const again = yield* Read.read({ filePath: name })
          expect(again.output).toBe(first.output)
          expect(fieldsOf(again).unchanged).toBeUndefined()
        }
      })))

    it.effect("never across sessions, never with column", () =>
      session(Effect.gen(function*() {
        yield* Read.read({ filePath: "a.txt" })
        const other = yield* Read.read({ filePath: "a.txt" }).pipe(
          Effect.provide(Workspace.layer({ directory: root, sessionId: "other" }))
        )
        expect(fieldsOf(other).unchanged).toBeUndefined()
        expect(fieldsOf(yield* Read.read({ filePath: "a.txt", offset: 2, column: 1 })).unchanged).toBeUndefined()
      })))

    it.effect("read_many stubs the members held and reads the others", () =>
      session(Effect.gen(function*() {
        yield* Read.read({ filePath: "a.txt" })
        const many = yield* ReadMany.readMany({ files: [{ filePath: "a.txt" }, { filePath: "b.txt" }] })
        expect(many.files.map((file) => fieldsOf(file)?.unchanged ?? false)).toEqual([true, false])
        expect(many.output).toContain(stub("a.txt", 1, 10))
        expect(many.output).toContain("5: line 5")
      })))

    it.effect("read_many: a block cut to its share holds and covers only the lines it kept", () =>
      session(Effect.gen(function*() {
        const path = abs("long.txt")
        fs.writeFileSync(path, numbered(400))
        const many = yield* ReadMany.readMany({ files: [{ filePath: "long.txt" }, { filePath: "b.txt" }] }).pipe(
          Effect.provideService(ReadMany.ReadManyLimits, {
            maxFiles: 20,
            maxBytes: 2_000,
            concurrency: 2,
            globMaxEntries: 10_000,
            maxAttachmentBytes: 1_000_000
          })
        )
        const kept = many.files[0]!.continueWith!.offset! - 1
        expect(kept).toBeGreaterThan(10)
        expect(kept).toBeLessThan(400)
        expect(many.output).toContain(`${kept}: line ${kept}`)
        expect(many.output).not.toContain(`${kept + 1}: line ${kept + 1}`)
        const ft = yield* FileTime.FileTime
        expect(yield* ft.covers("test", path, 1, kept)).toBe(true)
        expect(yield* ft.covers("test", path, kept + 1, kept + 1)).toBe(false)
        // The lines the budget cut were never shown: read in full, not stubbed.
        const beyond = yield* Read.read({ filePath: `long.txt:${kept + 1}-${kept + 5}` })
        expect(fieldsOf(beyond).unchanged).toBeUndefined()
        expect(beyond.output).toContain(`${kept + 1}: line ${kept + 1}`)
        expect(fieldsOf(yield* Read.read({ filePath: `long.txt:1-${kept}` })).unchanged).toBe(true)
        // The uncut member is held whole.
        expect(fieldsOf(yield* Read.read({ filePath: "b.txt" })).unchanged).toBe(true)
      })))
  })

  let fileCount = 0
  /** A fresh file under root with `content`; its absolute path. */
  const fresh = (content: string) => {
    const path = abs(`changed-${++fileCount}.txt`)
    fs.writeFileSync(path, content)
    return path
  }
  const envelope = (path: string) => `<path>${path}</path>`

  describe(`SessionMemory contract, changed since your last read: ${name}`, () => {
    it.effect("a small change: the read leads with a one-line notice and the diff against what was shown", () =>
      session(Effect.gen(function*() {
        const path = fresh(numbered(10))
        const before = yield* Read.read({ filePath: path })
        replaceLine(path, 5, "line five")
        const after = yield* Read.read({ filePath: path })
        expect(after.output).toBe([
          "(Changed since your last read: 1 line removed, 1 added in the lines you were shown. The diff against what you were shown:)",
          `--- ${path} (your last read)`,
          `+++ ${path} (now)`,
          "@@ -2,7 +2,7 @@",
          " line 2",
          " line 3",
          " line 4",
          "-line 5",
          "+line five",
          " line 6",
          " line 7",
          " line 8",
          before.output.replace("5: line 5", "5: line five")
        ].join("\n"))
        expect(after.metadata.changed).toEqual({ diff: true, removed: 1, added: 1, outsideRemoved: 0, outsideAdded: 0 })
        // Unchanged since: the stub, no notice; read in full again (forgotten): no notice either.
        expect((yield* Read.read({ filePath: path })).metadata).toMatchObject({ unchanged: true })
        yield* (yield* memory).forget("test", path)
        const again = yield* Read.read({ filePath: path })
        expect(again.output.startsWith(envelope(path))).toBe(true)
        expect(again.metadata.changed).toBeUndefined()
      })))

    it.effect("a large change: the notice with counts, no diff", () =>
      session(
        Effect.gen(function*() {
          const path = fresh(numbered(100))
          yield* Read.read({ filePath: path })
          fs.writeFileSync(path, numbered(100).replace(/line (\d*[05])\n/g, "LINE $1\n"))
          const after = yield* Read.read({ filePath: path })
          expect(after.output.split("\n")[0]).toBe(
            "(Changed since your last read: 20 lines removed, 20 added in the lines you were shown; too many to show as a diff.)"
          )
          expect(after.output.split("\n")[1]).toBe(envelope(path))
          expect(after.metadata.changed).toEqual({
            diff: false,
            removed: 20,
            added: 20,
            outsideRemoved: 0,
            outsideAdded: 0
          })
        }),
        { maxDiffLines: 30 }
      ))

    it.effect("a change outside the lines shown is told, not shown; a change within a range shown is diffed there", () =>
      session(Effect.gen(function*() {
        const path = fresh(numbered(40))
        yield* Read.read({ filePath: `${path}:10-20` })
        replaceLine(path, 30, "line thirty")
        const outside = yield* Read.read({ filePath: `${path}:10-20` })
        expect(outside.output.split("\n")[0]).toBe(
          "(Changed since your last read: 1 line removed, 1 added outside the lines you were shown, which are unchanged.)"
        )
        expect(outside.metadata.changed).toMatchObject({ diff: false, removed: 0, outsideRemoved: 1 })
        // Held at the new content now; a change in line 12 is diffed within 10-20 only.
        replaceLine(path, 12, "line twelve")
        const inside = yield* Read.read({ filePath: path })
        expect(inside.output.split("\n").slice(0, 12)).toEqual([
          "(Changed since your last read: 1 line removed, 1 added in the lines you were shown. The diff against what you were shown:)",
          `--- ${path} (your last read)`,
          `+++ ${path} (now)`,
          "@@ -10,6 +10,6 @@",
          " line 10",
          " line 11",
          "-line 12",
          "+line twelve",
          " line 13",
          " line 14",
          " line 15",
          envelope(path)
        ])
      })))

    it.effect("an insertion above the lines shown moves them: told as outside, the lines unchanged", () =>
      session(Effect.gen(function*() {
        const path = fresh(numbered(20))
        yield* Read.read({ filePath: `${path}:10-15` })
        fs.writeFileSync(path, "new first line\n" + numbered(20))
        const after = yield* Read.read({ filePath: `${path}:11-16` })
        expect(after.output.split("\n")[0]).toBe(
          "(Changed since your last read: 0 lines removed, 1 added outside the lines you were shown, which are unchanged.)"
        )
      })))

    it.effect("after a compaction, a forget or a rewind past the read: no notice; a rewind diffs against what is left", () =>
      session(Effect.gen(function*() {
        const mem = yield* memory
        const path = fresh(numbered(10))
        yield* Read.read({ filePath: path })
        yield* mem.compacted("test")
        replaceLine(path, 3, "line three")
        expect((yield* Read.read({ filePath: path })).metadata.changed).toBeUndefined()
        // Seen "line three"; a mark; then a change read after the mark; rewound to the mark.
        const mark = yield* mem.mark("test")
        replaceLine(path, 4, "line four")
        expect((yield* Read.read({ filePath: path })).metadata.changed).toMatchObject({ diff: true, removed: 1 })
        yield* mem.rewound("test", mark)
        const rewound = yield* Read.read({ filePath: path })
        // The diff is against the version before the mark: line 4 changed, line 3 was seen changed already.
        expect(rewound.output).toContain("-line 4\n+line four")
        expect(rewound.output).not.toContain("-line 3")
        yield* mem.rewound("test", 0)
        replaceLine(path, 5, "line five")
        expect((yield* Read.read({ filePath: path })).metadata.changed).toBeUndefined()
      })))

    it.effect("bounds: the oldest files and versions are dropped first, and the bytes per session are capped", () =>
      Effect.gen(function*() {
        const a = fresh(numbered(10))
        const b = fresh(numbered(10))
        const c = fresh(numbered(10))
        yield* session(
          Effect.gen(function*() {
            for (const path of [a, b, c]) yield* Read.read({ filePath: path })
            for (const path of [a, b, c]) replaceLine(path, 1, "changed")
            expect((yield* Read.read({ filePath: c })).metadata.changed).toMatchObject({ diff: true })
            // Two files kept: a (the oldest) was dropped.
            expect((yield* Read.read({ filePath: a })).metadata.changed).toBeUndefined()
          }),
          { maxSnapshotFiles: 2 }
        )
        // A byte budget of about one small file: only the newest read is kept.
        const d = fresh(numbered(10))
        const e = fresh(numbered(10))
        yield* session(
          Effect.gen(function*() {
            yield* Read.read({ filePath: d })
            yield* Read.read({ filePath: e })
            replaceLine(d, 1, "changed")
            replaceLine(e, 1, "changed")
            expect((yield* Read.read({ filePath: e })).metadata.changed).toMatchObject({ diff: true })
            expect((yield* Read.read({ filePath: d })).metadata.changed).toBeUndefined()
          }),
          { maxSnapshotBytes: 1_000 }
        )
        // One version per file: after a rewind past the newest, the older one is gone too.
        const f = fresh(numbered(10))
        yield* session(
          Effect.gen(function*() {
            const mem = yield* memory
            yield* Read.read({ filePath: f })
            const mark = yield* mem.mark("test")
            replaceLine(f, 1, "changed")
            yield* Read.read({ filePath: f })
            yield* mem.rewound("test", mark)
            replaceLine(f, 2, "changed too")
            expect((yield* Read.read({ filePath: f })).metadata.changed).toBeUndefined()
          }),
          { maxVersionsPerFile: 1 }
        )
      }))

    it.effect("a file over the snapshot cap: the notice without a diff; one that became an image: notice only", () =>
      session(
        Effect.gen(function*() {
          const path = fresh(numbered(200))
          yield* Read.read({ filePath: path })
          replaceLine(path, 1, "changed")
          const after = yield* Read.read({ filePath: path })
          expect(after.output.split("\n")[0]).toBe(
            "(Changed since your last read; it is too large to compare (over 0 MiB).)"
          )
          expect(after.metadata.changed).toEqual({ diff: false })
          const image = fresh("just text\n")
          yield* Read.read({ filePath: image })
          fs.writeFileSync(image, PNG)
          const now = yield* Read.read({ filePath: image })
          expect(now.metadata.kind).toBe("image")
          expect(now.output.split("\n")[0]).toBe("(Changed since your last read; it is no longer text (now image).)")
        }),
        { maxSnapshotFileBytes: 1_000 }
      ))

    it.effect("read_many: a changed member leads its block with the notice", () =>
      session(Effect.gen(function*() {
        const path = fresh(numbered(5))
        yield* Read.read({ filePath: path })
        replaceLine(path, 2, "line two")
        const many = yield* ReadMany.readMany({ files: [{ filePath: path }, { filePath: "b.txt" }] })
        expect(many.output).toContain("-line 2\n+line two")
        expect(many.files[0]!.metadata?.changed).toMatchObject({ diff: true })
      })))
  })

  // ---------------------------------------------------------------------------------------------
  // Subagents: a child forked from its parent, and programmatic reads.

  type Reader = "parent" | "child"
  type ForkOp =
    | {
      readonly _tag: "read"
      readonly reader: Reader
      readonly file: number
      readonly start: number
      readonly length: number
    }
    | { readonly _tag: "edit"; readonly file: number; readonly line: number }
    | { readonly _tag: "programmatic"; readonly file: number }

  const forkOp: FastCheck.Arbitrary<ForkOp> = FastCheck.oneof(
    {
      weight: 6,
      arbitrary: FastCheck.record({
        _tag: FastCheck.constant("read" as const),
        reader: FastCheck.constantFrom<Reader>("parent", "child"),
        file: FastCheck.nat(1),
        start: FastCheck.integer({ min: 1, max: 6 }),
        length: FastCheck.integer({ min: 1, max: 6 })
      })
    },
    {
      weight: 1,
      arbitrary: FastCheck.record({
        _tag: FastCheck.constant("edit" as const),
        file: FastCheck.nat(1),
        line: FastCheck.integer({ min: 1, max: 6 })
      })
    },
    {
      weight: 1,
      arbitrary: FastCheck.record({ _tag: FastCheck.constant("programmatic" as const), file: FastCheck.nat(1) })
    }
  )

  let runs = 0

  describe(`SessionMemory contract, subagents: ${name}`, () => {
    it.effect.prop(
      "parent and child interleaved: a stub exactly when the reader's own context holds the lines; the child's Edit guard sees the parent's reads before the fork",
      [FastCheck.array(forkOp, { minLength: 1, maxLength: 24 }), FastCheck.nat(24)],
      ([ops, forkAt]) =>
        session(Effect.gen(function*() {
          const run = ++runs
          const ids: Record<Reader, string> = { parent: `parent-${run}`, child: `child-${run}` }
          const paths = [0, 1].map((file) => abs(`fork-${run}-${file}.txt`))
          const { version, write } = editableFiles(paths)
          // The model: what each reader was shown (in its context and in its ledger), line by line, per version.
          const context: Record<Reader, Array<Set<string>>> = {
            parent: [new Set(), new Set()],
            child: [new Set(), new Set()]
          }
          const ledger: Record<Reader, Array<Set<string>>> = {
            parent: [new Set(), new Set()],
            child: [new Set(), new Set()]
          }
          const holds = (lines: Set<string>, file: number, start: number, end: number) => {
            for (let line = start; line <= end; line++) if (!lines.has(`${version[file]}:${line}`)) return false
            return true
          }
          const ft = yield* FileTime.FileTime
          const workspace = yield* Workspace.Workspace
          const as = (reader: Reader) =>
            Effect.provideService(Workspace.Workspace, { ...workspace, sessionId: ids[reader] })
          let forked = false
          const fork = Effect.gen(function*() {
            forked = true
            expect(yield* FileTime.fork(ids.parent, ids.child)).toBe(true)
            ledger.child = ledger.parent.map((lines) => new Set(lines))
          })
          for (const [index, step] of ops.entries()) {
            // The host forks at the child's first call, or at `forkAt`.
            if (!forked && (index === forkAt || (step._tag === "read" && step.reader === "child"))) yield* fork
            switch (step._tag) {
              case "edit":
                write(step.file, step.line)
                break
              case "programmatic": {
                // The host reads for itself: full content, and nobody's context or ledger changes.
                const own = yield* Read.programmatic(Read.read({ filePath: paths[step.file]! })).pipe(as("parent"))
                expect(fieldsOf(own).unchanged).toBeUndefined()
                expect(own.output).toContain("1: file")
                break
              }
              case "read": {
                const end = Math.min(6, step.start + step.length - 1)
                const held = holds(context[step.reader][step.file]!, step.file, step.start, end)
                const result = yield* Read.read({ filePath: `${paths[step.file]}:${step.start}-${end}` }).pipe(
                  as(step.reader)
                )
                expect(fieldsOf(result).unchanged === true).toBe(held)
                if (!held) {
                  expect(result.output).toContain(`${step.start}: file ${step.file}`)
                  for (let line = step.start; line <= end; line++) {
                    context[step.reader][step.file]!.add(`${version[step.file]}:${line}`)
                    ledger[step.reader][step.file]!.add(`${version[step.file]}:${line}`)
                  }
                }
                break
              }
            }
            // The Edit guard of each reader: covered exactly where its ledger holds the lines at the content now.
            for (const reader of forked ? (["parent", "child"] as const) : (["parent"] as const)) {
              for (const file of [0, 1]) {
                for (const [start, end] of [[1, 1], [1, 6], [3, 4], [6, 6]] as const) {
                  expect(yield* ft.covers(ids[reader], paths[file]!, start, end)).toBe(
                    holds(ledger[reader][file]!, file, start, end)
                  )
                }
              }
            }
          }
        })),
      { fastCheck: { numRuns: 12 } }
    )

    it.effect("a programmatic read neither seeds nor consumes stubs, and covers nothing for an Edit guard", () =>
      session(Effect.gen(function*() {
        const path = fresh(numbered(4))
        const ft = yield* FileTime.FileTime
        const own = yield* Read.programmatic(Read.read({ filePath: path }))
        expect(own.output).toContain("1: line 1")
        expect(yield* ft.covers("test", path, 1, 4)).toBe(false)
        // Not a stub after it: the model was never shown the file.
        const first = yield* Read.read({ filePath: path })
        expect(fieldsOf(first).unchanged).toBeUndefined()
        expect(first.output).toContain("1: line 1")
        // A held file is still read in full by the host.
        const again = yield* Read.programmatic(Read.read({ filePath: path }))
        expect(fieldsOf(again).unchanged).toBeUndefined()
        expect(again.output).toContain("4: line 4")
        expect(fieldsOf(yield* Read.read({ filePath: path })).unchanged).toBe(true)
        // Nor do programmatic reads of read_many members.
        const other = fresh(numbered(3))
        yield* Read.programmatic(ReadMany.readMany({ files: [{ filePath: other }] }))
        expect(fieldsOf(yield* Read.read({ filePath: other })).unchanged).toBeUndefined()
      })))
  })
}
