/**
 * The bounds on what a long-lived host keeps per conversation: `SessionMemory.layerSession`'s
 * `maxSessions`, the memory ledger's forked subagents, `Instructions`' shown files per session.
 * A dropped conversation must never be given a stub for content its model no longer has: its next
 * read is in full, also when it comes back, when its parent was dropped, and when a mark or a
 * generation from before the drop is used after it.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Layer from "effect/Layer"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import * as FileTime from "../src/FileTime.js"
import * as Instructions from "../src/Instructions.js"
import { makeEverSeen } from "../src/internal/core/everSeen.js"
import * as Read from "../src/Read.js"
import * as SessionMemory from "../src/SessionMemory.js"
import * as Workspace from "../src/Workspace.js"
import { editableFiles, fieldsOf, nodeLayer, tempDir, writeTree } from "./support/index.js"

const root = tempDir()
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

const withMemory = (options: SessionMemory.Options) =>
<A, E>(
  effect: Effect.Effect<A, E, Read.EffectRequirements | SessionMemory.SessionMemory>
) => effect.pipe(Effect.provide(Layer.merge(nodeLayer(root), SessionMemory.layerSession(options))))

const as = (sessionId: string) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(
    Workspace.Workspace,
    (workspace) => Effect.provideService(effect, Workspace.Workspace, { ...workspace, sessionId })
  )

const numbered = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n") + "\n"
let fileCount = 0
const fresh = (content: string) => {
  const path = nodePath.join(root, `bounds-${++fileCount}.txt`)
  fs.writeFileSync(path, content)
  return path
}

// -----------------------------------------------------------------------------------------------
// SessionMemory: at most maxSessions conversations, and nothing a dropped one held is a stub.

const SESSIONS = ["s0", "s1", "s2", "s3"] as const
type Op =
  | {
    readonly _tag: "read"
    readonly s: number
    readonly file: number
    readonly start: number
    readonly length: number
    readonly stale: boolean
  }
  | { readonly _tag: "edit"; readonly file: number; readonly line: number }
  | { readonly _tag: "raise"; readonly s: number }
  | { readonly _tag: "compacted"; readonly s: number }
  | { readonly _tag: "mark"; readonly s: number }
  | { readonly _tag: "rewound"; readonly s: number; readonly mark: number }
  | { readonly _tag: "fork"; readonly parent: number; readonly child: number }

const session = FastCheck.nat(SESSIONS.length - 1)
const opArb: FastCheck.Arbitrary<Op> = FastCheck.oneof(
  {
    weight: 8,
    arbitrary: FastCheck.record({
      _tag: FastCheck.constant("read" as const),
      s: session,
      file: FastCheck.nat(1),
      start: FastCheck.integer({ min: 1, max: 6 }),
      length: FastCheck.integer({ min: 1, max: 6 }),
      stale: FastCheck.boolean()
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
  { weight: 1, arbitrary: FastCheck.record({ _tag: FastCheck.constant("raise" as const), s: session }) },
  { weight: 1, arbitrary: FastCheck.record({ _tag: FastCheck.constant("compacted" as const), s: session }) },
  { weight: 1, arbitrary: FastCheck.record({ _tag: FastCheck.constant("mark" as const), s: session }) },
  {
    weight: 1,
    arbitrary: FastCheck.record({ _tag: FastCheck.constant("rewound" as const), s: session, mark: FastCheck.nat(7) })
  },
  {
    weight: 1,
    arbitrary: FastCheck.record({ _tag: FastCheck.constant("fork" as const), parent: session, child: session })
  }
)

/** The memory as documented: per session its generation, last seq and held lines; Map order is LRU. */
interface Held {
  generation: number
  seq: number
  /** Per file: `version:line` → the seq of the read that showed it (one version per file: the latest read's). */
  files: Array<Map<string, number>>
}

let runs = 0

describe("SessionMemory.layerSession: maxSessions", () => {
  it.effect.prop(
    "over any interleaving of sessions, reads, edits, compactions, marks, rewinds and forks: a stub exactly when the memory's documented model holds the lines, never for lines its context lacks, and never more than maxSessions sessions",
    [FastCheck.integer({ min: 1, max: 3 }), FastCheck.array(opArb, { minLength: 1, maxLength: 30 })],
    ([maxSessions, ops]) =>
      withMemory({ maxSessions })(Effect.gen(function*() {
        const run = ++runs
        const ids = SESSIONS.map((s) => `${s}-${run}`)
        const paths = [0, 1].map((file) => nodePath.join(root, `prop-${run}-${file}.txt`))
        const { version, write } = editableFiles(paths)
        const memory = yield* SessionMemory.SessionMemory

        // The host: each conversation's generation, and its model's context per generation (a
        // request at an older one raced the compaction: judged by, and shown in, that one's context).
        const generation = SESSIONS.map(() => 0)
        const context = SESSIONS.map(() => new Map<number, Array<Map<string, number>>>())
        const contextAt = (s: number, g: number) => {
          let files = context[s]!.get(g)
          if (files === undefined) context[s]!.set(g, files = [new Map(), new Map()])
          return files
        }
        let time = 0
        const marks = SESSIONS.map(() => [] as Array<{ readonly value: number; readonly time: number }>)

        // The memory's model.
        const held = new Map<number, Held>()
        let lastSeq = 0
        const touch = (s: number) => {
          const state = held.get(s)
          if (state !== undefined) {
            held.delete(s)
            held.set(s, state)
          }
          return state
        }
        const create = (s: number) => {
          const state = touch(s) ?? { generation: 0, seq: 0, files: [new Map(), new Map()] }
          held.set(s, state)
          if (held.size > maxSessions) {
            held.delete(held.keys().next().value!)
          }
          return state
        }
        const holds = (lines: Map<string, number>, file: number, start: number, end: number) => {
          for (let line = start; line <= end; line++) if (!lines.has(`${version[file]}:${line}`)) return false
          return true
        }

        for (const step of ops) {
          time++
          switch (step._tag) {
            case "edit":
              write(step.file, step.line)
              break
            case "raise":
              generation[step.s]!++
              break
            case "compacted":
              yield* memory.compacted(ids[step.s]!)
              context[step.s]!.clear()
              held.get(step.s)?.files.forEach((lines) => lines.clear())
              break
            case "mark": {
              const value = yield* memory.mark(ids[step.s]!)
              expect(value).toBe(touch(step.s)?.seq ?? 0)
              marks[step.s]!.push({ value, time })
              break
            }
            case "rewound": {
              const mark = marks[step.s]![step.mark % Math.max(1, marks[step.s]!.length)] ?? { value: 0, time: 0 }
              yield* memory.rewound(ids[step.s]!, mark.value)
              for (const files of context[step.s]!.values()) {
                for (const lines of files) for (const [line, at] of lines) if (at > mark.time) lines.delete(line)
              }
              for (const lines of held.get(step.s)?.files ?? []) {
                for (const [line, seq] of lines) if (seq > mark.value) lines.delete(line)
              }
              break
            }
            case "fork":
              // A subagent: its ledger inherits, its session memory does not (its own reads only).
              yield* FileTime.fork(ids[step.parent]!, ids[step.child]!)
              break
            case "read": {
              const g = step.stale && generation[step.s]! > 0 ? generation[step.s]! - 1 : generation[step.s]!
              const end = Math.min(6, step.start + step.length - 1)
              const result = yield* Read.read({ filePath: `${paths[step.file]}:${step.start}-${end}` }).pipe(
                SessionMemory.atGeneration(ids[step.s]!, g),
                as(ids[step.s]!)
              )
              const stub = fieldsOf(result).unchanged === true
              // The memory's model: advance, then held, then remember.
              const state = create(step.s)
              let expected = false
              let recorded = false
              if (g >= state.generation) {
                if (g > state.generation) {
                  state.generation = g
                  state.files.forEach((lines) => lines.clear())
                }
                expected = holds(state.files[step.file]!, step.file, step.start, end)
                recorded = !expected
              }
              expect(stub).toBe(expected)
              // Never a stub for lines the context the request was made in does not hold.
              if (stub) expect(holds(contextAt(step.s, g)[step.file]!, step.file, step.start, end)).toBe(true)
              else expect(result.output).toContain(`${step.start}: file ${step.file}`)
              const seq = recorded ? ++lastSeq : 0
              if (recorded) {
                state.seq = seq
                const lines = state.files[step.file]!
                for (const key of [...lines.keys()]) if (!key.startsWith(`${version[step.file]}:`)) lines.delete(key)
                for (let line = step.start; line <= end; line++) {
                  const key = `${version[step.file]}:${line}`
                  if (!lines.has(key)) lines.set(key, seq)
                }
              }
              if (!stub) {
                const lines = contextAt(step.s, g)[step.file]!
                // The first time a line was shown is when it entered the context (a rewind past a later showing keeps it).
                for (let line = step.start; line <= end; line++) {
                  const key = `${version[step.file]}:${line}`
                  if (!lines.has(key)) lines.set(key, time)
                }
              }
              break
            }
          }
        }
        // At the end: the sessions holding anything are within the bound (the model's, held exactly).
        let holding = 0
        for (const id of ids) {
          const any = [...(yield* memory.held(id, paths[0]!)), ...(yield* memory.held(id, paths[1]!))]
          if (any.length > 0) holding++
        }
        expect(holding).toBeLessThanOrEqual(maxSessions)
        expect(holding).toBeLessThanOrEqual(held.size)
      })),
    { fastCheck: { numRuns: 60 } }
  )

  it.effect("the least recently used conversation is dropped past maxSessions; back, it reads in full", () =>
    withMemory({ maxSessions: 2 })(Effect.gen(function*() {
      const path = fresh(numbered(5))
      const read = (sessionId: string) => Read.read({ filePath: path }).pipe(as(sessionId))
      yield* read("a")
      yield* read("b")
      // a is used again, so b is the one read longest ago when c comes.
      expect(fieldsOf(yield* read("a")).unchanged).toBe(true)
      yield* read("c")
      expect(fieldsOf(yield* read("a")).unchanged).toBe(true)
      expect(fieldsOf(yield* read("c")).unchanged).toBe(true)
      const back = yield* read("b")
      expect(fieldsOf(back).unchanged).toBeUndefined()
      expect(back.output).toContain("1: line 1")
      // Held again after its full read (and a, the least recent now, dropped for it).
      expect(fieldsOf(yield* read("b")).unchanged).toBe(true)
      expect(fieldsOf(yield* read("a")).unchanged).toBeUndefined()
    })))

  it.effect("a mark given before the drop is below every read after it: the rewind keeps none of them", () =>
    withMemory({ maxSessions: 1 })(Effect.gen(function*() {
      const memory = yield* SessionMemory.SessionMemory
      const path = fresh(numbered(5))
      const read = (sessionId: string) => Read.read({ filePath: path }).pipe(as(sessionId))
      yield* read("a")
      yield* read("a")
      const mark = yield* memory.mark("a")
      expect(mark).toBeGreaterThan(0)
      yield* read("b") // drops a
      yield* read("a") // back: in full, held again
      expect(fieldsOf(yield* read("a")).unchanged).toBe(true)
      // The user undoes the turn that read it after the mark: gone from the context, so not held.
      yield* memory.rewound("a", mark)
      expect(fieldsOf(yield* read("a")).unchanged).toBeUndefined()
    })))

  it.effect("a generation from before the drop: the newer one still drops what an older request recorded", () =>
    withMemory({ maxSessions: 1 })(Effect.gen(function*() {
      const path = fresh(numbered(5))
      const read = (sessionId: string, generation: number) =>
        Read.read({ filePath: path }).pipe(SessionMemory.atGeneration(sessionId, generation), as(sessionId))
      yield* read("a", 2)
      expect(fieldsOf(yield* read("a", 2)).unchanged).toBe(true)
      yield* read("b", 0) // drops a, and with it a's generation
      // A request of a's that raced its compaction to 2 arrives now: served in full (and recorded:
      // the memory cannot tell it from a new conversation's first request) ...
      expect(fieldsOf(yield* read("a", 1)).unchanged).toBeUndefined()
      // ... but a request at the conversation's generation never gets a stub from it.
      expect(fieldsOf(yield* read("a", 2)).unchanged).toBeUndefined()
      expect(fieldsOf(yield* read("a", 2)).unchanged).toBe(true)
      // And from then on the older one runs without memory again.
      expect(fieldsOf(yield* read("a", 1)).unchanged).toBeUndefined()
    })))

  it.effect("dropped between a request's generation check and its record: held at the request's generation", () =>
    withMemory({ maxSessions: 1 })(Effect.gen(function*() {
      const memory = yield* SessionMemory.SessionMemory
      const path = fresh(numbered(5))
      expect(yield* memory.advance("a", 3)).toBe(true)
      expect(yield* memory.advance("b", 0)).toBe(true) // another conversation's request drops a meanwhile
      const seen = { start: 1, end: 5, hash: "h", encoding: undefined }
      expect(yield* memory.remember("a", path, seen).pipe(Effect.provideService(SessionMemory.Generation, 3)))
        .toBeGreaterThan(0)
      // Its next request, at 3, finds it held; one that raced the compaction to 3 runs without memory.
      expect(yield* memory.advance("a", 3)).toBe(true)
      expect(yield* memory.held("a", path)).toHaveLength(1)
      expect(yield* memory.advance("a", 2)).toBe(false)
    })))

  it.effect("a subagent whose parent was dropped: its own reads only, never a stub from the parent's", () =>
    withMemory({ maxSessions: 2 })(Effect.gen(function*() {
      const path = fresh(numbered(5))
      const read = (sessionId: string) => Read.read({ filePath: path }).pipe(as(sessionId))
      yield* read("parent")
      expect(yield* FileTime.fork("parent", "parent/agent-1")).toBe(true)
      yield* read("other")
      yield* read("third") // drops parent
      const child = yield* read("parent/agent-1")
      expect(fieldsOf(child).unchanged).toBeUndefined()
      expect(child.output).toContain("1: line 1")
      // Its Edit guard still sees what the parent read before the fork (the ledger is apart).
      const ledger = yield* FileTime.FileTime
      expect(yield* ledger.covers("parent/agent-1", path, 1, 5)).toBe(true)
      expect(fieldsOf(yield* read("parent")).unchanged).toBeUndefined()
    })))
})

// -----------------------------------------------------------------------------------------------
// Memory held by many conversations: a fresh process with a forced GC (from dist/).

/** Bytes `SessionMemory.make({ maxSessions })` retains after `conversations` (bench/sessionsMemory.mjs). */
const retained = (maxSessions: number, conversations: number) =>
  Number(
    execFileSync(
      process.execPath,
      ["--expose-gc", "bench/sessionsMemory.mjs", String(maxSessions), String(conversations)],
      { cwd: nodePath.join(import.meta.dirname, ".."), encoding: "utf8" }
    ).trim().split("\n").at(-1)
  )

describe("SessionMemory.layerSession: memory held by many conversations", () => {
  it("stays flat past maxSessions: 2,000 conversations hold what 100 do", () => {
    // Each conversation reads 10 files of 100 lines (~40 KB kept).
    const few = retained(100, 100)
    const many = retained(100, 2_000)
    expect(few).toBeGreaterThan(1_000_000)
    expect(many).toBeLessThan(few * 1.5)
  })
})

// -----------------------------------------------------------------------------------------------
// FileTime.layerMemory: forked subagents.

describe("FileTime.layerMemory: forked subagents past maxFiles", () => {
  it.effect("a child dropped from the exact set is never forked again: the parent's later reads never reach it", () =>
    Effect.gen(function*() {
      const ledger = yield* FileTime.FileTime
      const before = fresh(numbered(3))
      const after = fresh(numbered(3))
      yield* Read.read({ filePath: before }).pipe(as("parent"))
      expect(yield* FileTime.fork("parent", "child-0")).toBe(true)
      // More subagents than the ledger remembers exactly: child-0 leaves the exact set.
      for (let i = 1; i <= 5; i++) expect(yield* FileTime.fork("parent", `child-${i}`)).toBe(true)
      yield* Read.read({ filePath: after }).pipe(as("parent"))
      // Its next call forks again: nothing copied (it would bring the parent's read of `after`).
      expect(yield* FileTime.fork("parent", "child-0")).toBe(false)
      expect(yield* ledger.covers("child-0", after, 1, 3)).toBe(false)
      // A recent one is known exactly, and a new one still inherits.
      expect(yield* FileTime.fork("parent", "child-5")).toBe(false)
      expect(yield* FileTime.fork("parent", "child-new")).toBe(true)
      expect(yield* ledger.covers("child-new", after, 1, 3)).toBe(true)
    }).pipe(
      Effect.provide(nodeLayer(root)),
      Effect.provideService(FileTime.MemoryLimits, { maxFiles: 3 })
    ))

  it("the filter of dropped ids never forgets one, and rarely takes a new one for one", () => {
    const seen = makeEverSeen()
    expect(seen.mayHave("a")).toBe(false)
    for (let i = 0; i < 10_000; i++) seen.add(`conversation-${i}/agent-${i % 7}`)
    for (let i = 0; i < 10_000; i++) expect(seen.mayHave(`conversation-${i}/agent-${i % 7}`)).toBe(true)
    let wrong = 0
    for (let i = 0; i < 100_000; i++) if (seen.mayHave(`other-${i}`)) wrong++
    // About 2 in 100,000 expected at 10,000 ids.
    expect(wrong).toBeLessThan(50)
  })

  const forkSource = (children: number) => `
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Effect from "effect/Effect"
import * as FileTime from "./dist/FileTime.js"
const measure = () => { globalThis.gc(); globalThis.gc(); const u = process.memoryUsage(); return u.heapUsed + u.external }
const grown = await Effect.runPromise(Effect.gen(function*() {
  const ledger = yield* FileTime.make
  const fork = (i) => ledger.fork("conversation-parent", "conversation-parent/subagent-" + i + "-" + "x".repeat(40))
  for (let i = 0; i < 2000; i++) yield* fork(i)
  const before = measure()
  for (let i = 2000; i < ${children}; i++) yield* fork(i)
  return measure() - before
}).pipe(Effect.provideService(FileTime.MemoryLimits, { maxFiles: 1000 }), Effect.provide(NodeContext.layer)))
console.log(JSON.stringify({ grown }))
`
  it("100,000 subagents forked: the ledger holds 1,000 ids and the 128 KiB filter, not 100,000 ids", () => {
    const out = execFileSync(process.execPath, ["--expose-gc", "--input-type=module", "-e", forkSource(100_000)], {
      cwd: nodePath.join(import.meta.dirname, ".."),
      encoding: "utf8"
    })
    const { grown } = JSON.parse(out.trim().split("\n").at(-1)!)
    // Unbounded: ~98,000 ids of ~70 characters, over 8 MB.
    expect(grown).toBeLessThan(1_000_000)
  })
})

// -----------------------------------------------------------------------------------------------
// Instructions: the sessions shown instructions without a session memory.

describe("Instructions: at most maxSessions sessions remembered", () => {
  const project = tempDir()
  writeTree(project, { "AGENTS.md": "Root rules.\n", "src/a.ts": "export const a = 1\n" })
  afterAll(() => fs.rmSync(project, { recursive: true, force: true }))

  it.effect("a session dropped past maxSessions is shown the instructions again; a kept one is not", () =>
    Effect.gen(function*() {
      const settings = yield* Instructions.Instructions
      const read = (sessionId: string) => Read.read({ filePath: "src/a.ts" }).pipe(as(sessionId))
      const loaded = (sessionId: string) => Effect.map(read(sessionId), (result) => result.metadata.loaded)
      expect(yield* loaded("a")).toEqual([nodePath.join(project, "AGENTS.md")])
      expect(yield* loaded("b")).toEqual([nodePath.join(project, "AGENTS.md")])
      expect(yield* loaded("a")).toBeUndefined()
      expect(yield* loaded("c")).toEqual([nodePath.join(project, "AGENTS.md")]) // drops b
      expect(settings.shown.size).toBe(2)
      expect(yield* loaded("a")).toBeUndefined()
      expect(yield* loaded("b")).toEqual([nodePath.join(project, "AGENTS.md")])
      for (let i = 0; i < 50; i++) yield* read(`many-${i}`)
      expect(settings.shown.size).toBe(2)
    }).pipe(Effect.provide(Layer.merge(nodeLayer(project), Instructions.layer({ maxSessions: 2 })))))

  it.effect("with a session memory, nothing is kept per session here (the memory remembers what was shown)", () =>
    Effect.gen(function*() {
      const settings = yield* Instructions.Instructions
      for (let i = 0; i < 5; i++) yield* Read.read({ filePath: "src/a.ts" }).pipe(as(`with-memory-${i}`))
      expect(settings.shown.size).toBe(0)
    }).pipe(
      Effect.provide(
        Layer.mergeAll(nodeLayer(project), Instructions.layer({ maxSessions: 2 }), SessionMemory.layerSession())
      )
    ))
})
