/**
 * Session memory on SQL stores (SQLite, PostgreSQL): `layerSession`'s contract, the same answers
 * as `layerSession` for any sequence of operations, two replicas sharing one conversation, a store
 * that cannot be reached, and idle conversations dropped.
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FastCheck from "effect/FastCheck"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import * as TestClock from "effect/TestClock"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import * as FileTime from "../src/FileTime.js"
import * as Read from "../src/Read.js"
import * as SessionMemory from "../src/SessionMemory.js"
import * as SqlFileTime from "../src/SqlFileTime.js"
import * as SqlSessionMemory from "../src/SqlSessionMemory.js"
import { sessionMemoryContract } from "./contracts/SessionMemory.js"
import { fieldsOf, nodeLayer, tempDir, writeTree } from "./support/index.js"
import { describePg, freshPgDatabase, onFreshPgDatabase, pgClient, pgUrl } from "./support/pg.js"

const dir = tempDir("effect-read-sql-memory-")
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))
let files = 0
const freshFile = () => nodePath.join(dir, `store-${++files}.db`)

const sqliteClient = (filename: string) => SqliteClient.layer({ filename })

/** A memory on a new SQLite file. */
const onSqlite = (options?: SqlSessionMemory.Options) =>
  Layer.unwrapEffect(
    Effect.sync(() => SqlSessionMemory.layerClient(options).pipe(Layer.provide(sqliteClient(freshFile()))))
  )

/** A memory on a new PostgreSQL database. */
const onPg = (options?: SqlSessionMemory.Options) =>
  onFreshPgDatabase((url) => SqlSessionMemory.layerClient(options).pipe(Layer.provide(pgClient(url))))

sessionMemoryContract("SqlSessionMemory on SQLite", onSqlite)
describePg("PostgreSQL", () => {
  sessionMemoryContract("SqlSessionMemory on PostgreSQL", onPg)
})

// ---------------------------------------------------------------------------------------------
// The same answers as layerSession, for any sequence of operations (small bounds, so that every
// eviction path runs).

const bounds: SessionMemory.Options = {
  maxFiles: 3,
  maxReadsPerFile: 3,
  maxSnapshotFiles: 2,
  maxVersionsPerFile: 2,
  maxSnapshotBytes: 700
}

type Op =
  | {
    readonly _tag: "remember"
    readonly path: number
    readonly hash: number
    readonly start: number
    readonly end: number
    readonly utf8: boolean
  }
  | {
    readonly _tag: "keep"
    readonly path: number
    readonly read: number
    readonly hash: number
    readonly utf8: boolean
    readonly hashes: boolean
    readonly lines: ReadonlyArray<readonly [number, string]>
  }
  | { readonly _tag: "compacted" }
  | { readonly _tag: "forget"; readonly path: number }
  | { readonly _tag: "mark" }
  | { readonly _tag: "rewound"; readonly mark: number }
  | { readonly _tag: "advance"; readonly generation: number }

const op: FastCheck.Arbitrary<Op> = FastCheck.oneof(
  {
    weight: 5,
    arbitrary: FastCheck.record({
      _tag: FastCheck.constant("remember" as const),
      path: FastCheck.nat(4),
      hash: FastCheck.nat(2),
      start: FastCheck.integer({ min: 1, max: 5 }),
      end: FastCheck.integer({ min: 5, max: 9 }),
      utf8: FastCheck.boolean()
    })
  },
  {
    weight: 5,
    arbitrary: FastCheck.record({
      _tag: FastCheck.constant("keep" as const),
      path: FastCheck.nat(4),
      read: FastCheck.nat(),
      hash: FastCheck.nat(2),
      utf8: FastCheck.boolean(),
      hashes: FastCheck.boolean(),
      lines: FastCheck.array(
        FastCheck.tuple(FastCheck.integer({ min: 1, max: 6 }), FastCheck.string({ maxLength: 12 })),
        { maxLength: 5 }
      )
    })
  },
  { weight: 1, arbitrary: FastCheck.constant({ _tag: "compacted" as const }) },
  { weight: 1, arbitrary: FastCheck.record({ _tag: FastCheck.constant("forget" as const), path: FastCheck.nat(4) }) },
  { weight: 2, arbitrary: FastCheck.constant({ _tag: "mark" as const }) },
  { weight: 1, arbitrary: FastCheck.record({ _tag: FastCheck.constant("rewound" as const), mark: FastCheck.nat() }) },
  {
    weight: 1,
    arbitrary: FastCheck.record({ _tag: FastCheck.constant("advance" as const), generation: FastCheck.nat(3) })
  }
)

/** What a memory shows of one path, with seqs told by their order among the reads remembered. */
const observe = (memory: SessionMemory.SessionMemoryShape, seqs: ReadonlyArray<number>) =>
  Effect.forEach([0, 1, 2, 3, 4], (path) =>
    Effect.gen(function*() {
      const held = yield* memory.held("s", `/p${path}`)
      const shown = yield* memory.lastShown("s", `/p${path}`)
      return {
        held: held.map((seen) => ({ ...seen, seq: seqs.indexOf(seen.seq) })),
        shown: shown === undefined ? undefined : {
          hash: shown.hash,
          encoding: shown.encoding,
          hashes: shown.hashes === undefined ? undefined : [...shown.hashes],
          lines: [...shown.lines].sort(([a], [b]) => a - b)
        }
      }
    }))

/** Run the operations on a memory; what it shows after each one. */
const play = (memory: SessionMemory.SessionMemoryShape, ops: ReadonlyArray<Op>) =>
  Effect.gen(function*() {
    const seqs: Array<number> = []
    const marks: Array<number> = []
    const kept = new Set<number>()
    const trace: Array<unknown> = []
    for (const step of ops) {
      switch (step._tag) {
        case "remember": {
          seqs.push(
            yield* memory.remember("s", `/p${step.path}`, {
              start: step.start,
              end: step.end,
              hash: `h${step.hash}`,
              encoding: step.utf8 ? "utf-8" : undefined
            })
          )
          break
        }
        case "keep": {
          // As `read` keeps: once per read, with that read's seq (not always the newest: reads overlap).
          const seq = seqs[step.read % Math.max(1, seqs.length)]
          if (seq === undefined || kept.has(seq)) break
          kept.add(seq)
          yield* memory.keep("s", `/p${step.path}`, seq, {
            hash: `h${step.hash}`,
            encoding: step.utf8 ? "utf-8" : undefined,
            hashes: step.hashes ? Float64Array.from(step.lines, ([line]) => line * 1.5) : undefined,
            lines: step.lines
          })
          break
        }
        case "compacted":
          yield* memory.compacted("s")
          break
        case "forget":
          yield* memory.forget("s", `/p${step.path}`)
          break
        case "mark":
          marks.push(yield* memory.mark("s"))
          break
        case "rewound":
          yield* memory.rewound("s", marks.length === 0 ? 0 : marks[step.mark % marks.length]!)
          break
        case "advance":
          trace.push(yield* memory.advance("s", step.generation))
          break
      }
      trace.push(yield* observe(memory, seqs))
    }
    return trace
  })

const sameAsLayerSession = (client: () => Layer.Layer<SqlClient.SqlClient, unknown>, numRuns: number) =>
  it.effect.prop(
    "the same answers as layerSession after every operation",
    [FastCheck.array(op, { minLength: 1, maxLength: 40 })],
    ([ops]) =>
      Effect.gen(function*() {
        const expected = yield* play(SessionMemory.make(bounds), ops)
        const actual = yield* Effect.flatMap(SqlSessionMemory.migrate, () => SqlSessionMemory.make(bounds)).pipe(
          Effect.flatMap((memory) => play(memory, ops)),
          Effect.provide(client())
        )
        expect(actual).toEqual(expected)
      }),
    { fastCheck: { numRuns } }
  )

describe("SqlSessionMemory on SQLite: the same answers as layerSession", () => {
  sameAsLayerSession(() => sqliteClient(freshFile()), 60)
})
describePg("SqlSessionMemory on PostgreSQL: the same answers as layerSession", () => {
  sameAsLayerSession(() => onFreshPgDatabase(pgClient), 15)
})

// ---------------------------------------------------------------------------------------------
// Two replicas, one conversation: two independent clients on one store, as two processes have.

const project = tempDir("effect-read-replicas-")
afterAll(() => fs.rmSync(project, { recursive: true, force: true }))
const numbered = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n") + "\n"

/** A replica: read's services with the ledger and session memory on the client's store. */
const replica = (client: Layer.Layer<SqlClient.SqlClient, unknown>) =>
  Layer.mergeAll(
    nodeLayer(project, { sessionId: "conversation-1" }),
    SqlFileTime.layerClient,
    SqlSessionMemory.layerClient()
  )
    .pipe(Layer.provide(client), Layer.provide(NodeFileSystem.layer))

/** Build a replica in a scope of its own: its services, and how to run a read on it. */
const start = (client: Layer.Layer<SqlClient.SqlClient, unknown>) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const context = yield* Layer.buildWithScope(replica(client), scope)
    const run = <A, E>(effect: Effect.Effect<A, E, Read.EffectRequirements | SessionMemory.SessionMemory>) =>
      Effect.provide(effect, context)
    return { run, close: Scope.close(scope, Exit.void), memory: Context.get(context, SessionMemory.SessionMemory) }
  })

const twoReplicas = (
  clients: () => Effect.Effect<
    readonly [Layer.Layer<SqlClient.SqlClient, unknown>, Layer.Layer<SqlClient.SqlClient, unknown>]
  >
) =>
  it.effect("a conversation moves between replicas: stubs, guards, notices and signals hold on both", () =>
    Effect.gen(function*() {
      const [clientA, clientB] = yield* clients()
      const name = `a-${++files}.txt`
      writeTree(project, { [name]: numbered(12), [`b-${files}.txt`]: numbered(3) })
      const path = nodePath.join(project, name)
      const other = nodePath.join(project, `b-${files}.txt`)
      const a = yield* start(clientA)
      const b = yield* start(clientB)
      const read = (filePath: string) => Read.read({ filePath })
      expect((yield* a.run(read(path))).output).toContain("1: line 1")
      // Read on A: a stub on B, and B's Edit guard accepts the file.
      const onB = yield* b.run(read(path))
      expect(fieldsOf(onB).unchanged).toBe(true)
      expect(onB.output).toContain("File unchanged since your last read (lines 1-12)")
      yield* b.run(Effect.flatMap(FileTime.FileTime, (ledger) => ledger.assert("conversation-1", path)))
      expect(yield* b.run(Effect.flatMap(FileTime.FileTime, (ledger) => ledger.covers("conversation-1", path, 3, 9))))
        .toBe(true)
      // Written: B's guard refuses, B's read tells the change with the diff; A then holds the new version.
      fs.writeFileSync(path, numbered(12).replace("line 5\n", "line five\n"))
      const guard = yield* b.run(
        Effect.flatMap(FileTime.FileTime, (ledger) => Effect.flip(ledger.assert("conversation-1", path)))
      )
      expect(guard._tag).toBe("FileChangedSinceRead")
      const changed = yield* b.run(read(path))
      expect(changed.metadata.changed).toMatchObject({ diff: true, removed: 1, added: 1 })
      expect(changed.output).toContain("-line 5\n+line five")
      expect(fieldsOf(yield* a.run(read(path))).unchanged).toBe(true)
      // Another conversation on B: full content.
      const elsewhere = yield* b.run(
        read(path).pipe(Effect.provide(nodeLayer(project, { sessionId: "conversation-2" })))
      )
      expect(fieldsOf(elsewhere).unchanged).toBeUndefined()
      // Compaction told to A: B gives full content.
      yield* a.memory.compacted("conversation-1")
      expect(fieldsOf(yield* b.run(read(path))).unchanged).toBeUndefined()
      // A mark on B, a read on A, a rewind to the mark told to B: A shows the file in full again.
      const mark = yield* b.memory.mark("conversation-1")
      yield* a.run(read(other))
      expect(fieldsOf(yield* b.run(read(other))).unchanged).toBe(true)
      yield* b.memory.rewound("conversation-1", mark)
      expect(fieldsOf(yield* a.run(read(other))).unchanged).toBeUndefined()
      // A generation raised on B is honoured on A.
      yield* b.run(SessionMemory.atGeneration("conversation-1", 7)(read(other)))
      expect(fieldsOf(yield* a.run(SessionMemory.atGeneration("conversation-1", 7)(read(other)))).unchanged).toBe(true)
      expect(fieldsOf(yield* a.run(SessionMemory.atGeneration("conversation-1", 6)(read(other)))).unchanged)
        .toBeUndefined()
      yield* a.close
      yield* b.close
    }))

describe("two replicas on one SQLite file", () => {
  twoReplicas(() =>
    Effect.sync(() => {
      const filename = freshFile()
      return [sqliteClient(filename), sqliteClient(filename)] as const
    })
  )
})
describePg("two replicas on one PostgreSQL database", () => {
  twoReplicas(() => Effect.map(Effect.promise(freshPgDatabase), (url) => [pgClient(url), pgClient(url)] as const))
})

// ---------------------------------------------------------------------------------------------
// A store that cannot be reached: reads give full content, signals fail loudly.

const storeDown = (
  setup: () => Effect.Effect<{
    readonly client: Layer.Layer<SqlClient.SqlClient, unknown>
    readonly down: Effect.Effect<void, unknown>
    /** Back up, when the test can bring it back. */
    readonly up: Effect.Effect<void, unknown> | undefined
  }>
) =>
  it.effect("a store that cannot be reached: full content (never a stub), signals fail with SessionMemoryError", () =>
    Effect.gen(function*() {
      const { client, down, up } = yield* setup()
      const name = `down-${++files}.txt`
      writeTree(project, { [name]: numbered(5) })
      const path = nodePath.join(project, name)
      const r = yield* start(client)
      yield* r.run(Read.read({ filePath: path }))
      expect(fieldsOf(yield* r.run(Read.read({ filePath: path }))).unchanged).toBe(true)
      yield* down
      const whileDown = yield* r.run(Read.read({ filePath: path }))
      expect(fieldsOf(whileDown).unchanged).toBeUndefined()
      expect(whileDown.output).toContain("1: line 1")
      for (
        const signal of [
          r.memory.compacted("conversation-1"),
          r.memory.rewound("conversation-1", 0),
          r.memory.forget("conversation-1", path),
          Effect.asVoid(r.memory.mark("conversation-1")),
          Effect.asVoid(r.memory.advance("conversation-1", 9))
        ]
      ) {
        const error = yield* Effect.flip(signal)
        expect(error).toBeInstanceOf(SessionMemory.SessionMemoryError)
        expect(error.message).toContain("Session memory could not record")
      }
      // A request at a generation the store cannot check runs without memory.
      const unchecked = yield* r.run(SessionMemory.atGeneration("conversation-1", 1)(Read.read({ filePath: path })))
      expect(fieldsOf(unchecked).unchanged).toBeUndefined()
      if (up !== undefined) {
        yield* up
        expect(fieldsOf(yield* r.run(Read.read({ filePath: path }))).unchanged).toBe(true)
        yield* r.memory.compacted("conversation-1")
        expect(fieldsOf(yield* r.run(Read.read({ filePath: path }))).unchanged).toBeUndefined()
      }
      yield* r.close
    }))

describe("SqlSessionMemory on SQLite, the store broken", () => {
  // A SQLite file cannot go away under an open connection; its tables renamed away fail every
  // statement. (Not brought back: the client caches a statement that failed to prepare.)
  const tables = [
    "effect_read_sessions",
    "effect_read_held",
    "effect_read_versions",
    "effect_read_lines",
    "effect_read_files"
  ]
  storeDown(() =>
    Effect.sync(() => {
      const filename = freshFile()
      const down = Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        for (const table of tables) yield* sql.unsafe(`ALTER TABLE ${table} RENAME TO away_${table}`)
      }).pipe(Effect.provide(sqliteClient(filename)))
      return { client: sqliteClient(filename), down, up: undefined }
    })
  )
})

describePg("SqlSessionMemory on PostgreSQL, the server unreachable", () => {
  storeDown(() =>
    Effect.gen(function*() {
      const url = yield* Effect.promise(freshPgDatabase)
      const name = new URL(url).pathname.slice(1)
      const admin = (statement: string) =>
        Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(statement)).pipe(Effect.provide(pgClient(pgUrl!)))
      return {
        client: pgClient(url),
        // No new connection, and the open ones ended: what a server that went away looks like to the pool.
        down: Effect.zipRight(
          admin(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS false`),
          admin(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}'`)
        ),
        up: Effect.asVoid(admin(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS true`))
      }
    })
  )
})

// ---------------------------------------------------------------------------------------------
// Idle conversations are dropped.

const seen = { start: 1, end: 3, hash: "h", encoding: undefined }

const pruneDrops = (client: () => Layer.Layer<SqlClient.SqlClient, unknown>) =>
  it.effect("prune drops conversations idle past the timeout, and a returning one gets marks above its old ones", () =>
    Effect.gen(function*() {
      const memory = yield* SqlSessionMemory.make()
      const oldSeq = yield* memory.remember("idle", "/f", seen)
      yield* TestClock.adjust("50 minutes")
      yield* memory.remember("active", "/f", seen)
      yield* TestClock.adjust("20 minutes")
      expect(yield* SqlSessionMemory.prune("1 hour")).toBe(1)
      expect(yield* memory.held("idle", "/f")).toEqual([])
      expect(yield* memory.mark("idle")).toBe(0)
      expect(yield* memory.held("active", "/f")).toHaveLength(1)
      // Back after the drop: nothing held, and its reads come after any mark it was given before.
      expect(yield* memory.remember("idle", "/f", seen)).toBeGreaterThan(oldSeq)
      const sql = yield* SqlClient.SqlClient
      const left = yield* sql<{ n: number }>`SELECT COUNT(*) AS n FROM effect_read_held WHERE session_id = 'idle'`
      expect(Number(left[0]!.n)).toBe(1)
    }).pipe(Effect.provide(Layer.effectDiscard(SqlSessionMemory.migrate).pipe(Layer.provideMerge(client())))))

describePg("SqlSessionMemory on PostgreSQL: idle conversations", () => {
  pruneDrops(() => onFreshPgDatabase(pgClient))
})

describe("SqlSessionMemory on SQLite: idle conversations", () => {
  pruneDrops(() => sqliteClient(freshFile()))

  it.effect("the layer drops them on its schedule", () =>
    Effect.gen(function*() {
      const memory = yield* SessionMemory.SessionMemory
      yield* memory.remember("idle", "/f", seen)
      yield* TestClock.adjust("50 minutes")
      yield* memory.remember("active", "/f", seen)
      // At 60 minutes nothing is over an hour idle; at 70 the first conversation is.
      yield* TestClock.adjust("20 minutes")
      const deadline = Date.now() + 30_000
      while ((yield* memory.held("idle", "/f")).length > 0 && Date.now() < deadline) {
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 20)))
      }
      expect(yield* memory.held("idle", "/f")).toEqual([])
      expect(yield* memory.held("active", "/f")).toHaveLength(1)
    }).pipe(
      Effect.provide(
        SqlSessionMemory.layerClient({ idleTimeout: "1 hour", pruneEvery: "10 minutes" }).pipe(
          Layer.provide(sqliteClient(freshFile()))
        )
      )
    ))
})
