import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as FileSystem from "@effect/platform/FileSystem"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Layer from "effect/Layer"
import { execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import * as FileTime from "../src/FileTime.js"
import * as Public from "../src/index.js"
import * as LanguageServer from "../src/LanguageServer.js"
import * as Lsp from "../src/Lsp.js"
import * as Permission from "../src/Permission.js"
import { read } from "../src/Read.js"
import * as ReadError from "../src/ReadError.js"
import * as Secrets from "../src/Secrets.js"
import * as SqlFileTime from "../src/SqlFileTime.js"
import * as SqlSessionMemory from "../src/SqlSessionMemory.js"
import * as Workspace from "../src/Workspace.js"
import { fileTimeContract } from "./contracts/FileTime.js"

const root = fs.mkdtempSync(nodePath.join(os.tmpdir(), "effect-read-filetime-"))
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

fileTimeContract("layerMemory over the Node filesystem", {
  layer: FileTime.layerMemory.pipe(Layer.provideMerge(NodeFileSystem.layer)),
  root: () => root
})

const stampOf = (fields: Partial<FileTime.ReadStamp>): FileTime.ReadStamp => ({
  path: "/p",
  readAt: 1,
  size: 10,
  mtime: 1000,
  hash: "h1",
  ...fields
})

describe("FileTime.compare", () => {
  const { compare } = FileTime

  it("same size and hash is unchanged, whatever the mtime", () => {
    expect(compare(stampOf({}), stampOf({ readAt: 99 }))).toBe("unchanged")
    expect(compare(stampOf({}), stampOf({ mtime: 2000 }))).toBe("unchanged")
    expect(compare(stampOf({ mtime: undefined }), stampOf({ mtime: 2000 }))).toBe("unchanged")
  })

  it("a different size is a change", () => {
    expect(compare(stampOf({}), stampOf({ size: 11 }))).toBe("changed")
    expect(compare(stampOf({ hash: undefined }), stampOf({ size: 11, hash: undefined }))).toBe("changed")
  })

  it("a different hash is a change, even with the same size and mtime", () => {
    expect(compare(stampOf({}), stampOf({ hash: "h2" }))).toBe("changed")
  })

  it("over the cap (no hash): same mtime is unchanged, another mtime is a change", () => {
    const big = stampOf({ size: FileTime.maxHashBytes + 1, hash: undefined })
    expect(compare(big, { ...big, readAt: 5 })).toBe("unchanged")
    expect(compare(big, { ...big, mtime: 2000 })).toBe("changed")
    expect(compare(big, { ...big, mtime: undefined })).toBe("changed")
    expect(compare({ ...big, mtime: undefined }, { ...big, mtime: undefined })).toBe("changed")
  })

  it("one side hashed, the other not: decided by mtime", () => {
    expect(compare(stampOf({}), stampOf({ hash: undefined }))).toBe("unchanged")
    expect(compare(stampOf({ hash: undefined }), stampOf({ mtime: 2000 }))).toBe("changed")
  })

  const stamp = FastCheck.record({
    path: FastCheck.string(),
    readAt: FastCheck.nat(),
    size: FastCheck.nat(),
    mtime: FastCheck.option(FastCheck.nat(), { nil: undefined }),
    hash: FastCheck.option(FastCheck.constantFrom("a", "b", "c"), { nil: undefined })
  })

  it.prop("a stamp with a hash or an mtime is unchanged against itself", { s: stamp }, ({ s }) => {
    expect(compare(s, { ...s, readAt: s.readAt + 1 })).toBe(
      s.hash !== undefined || s.mtime !== undefined ? "unchanged" : "changed"
    )
  })

  it.prop("a size change is always a change", { a: stamp, b: stamp }, ({ a, b }) => {
    if (a.size !== b.size) expect(compare(a, b)).toBe("changed")
  })
})

describe("FileTime.stamp", () => {
  it.effect("hashes the content in chunks (larger than one stream chunk)", () =>
    Effect.gen(function*() {
      const path = nodePath.join(root, "chunked.bin")
      const content = Buffer.alloc(300 * 1024, "xyz")
      fs.writeFileSync(path, content)
      const stamp = yield* FileTime.stamp(path)
      expect(stamp.size).toBe(content.length)
      expect(stamp.hash).toBe(createHash("sha256").update(content).digest("hex"))
    }).pipe(Effect.provide(NodeFileSystem.layer)))

  it.effect("an empty file has the hash of no bytes", () =>
    Effect.gen(function*() {
      const path = nodePath.join(root, "empty.txt")
      fs.writeFileSync(path, "")
      const stamp = yield* FileTime.stamp(path)
      expect(stamp.hash).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }).pipe(Effect.provide(NodeFileSystem.layer)))

  it.effect("a directory is stamped without a hash", () =>
    Effect.gen(function*() {
      const stamp = yield* FileTime.stamp(root)
      expect(stamp.hash).toBeUndefined()
      expect(stamp.mtime).toBeTypeOf("number")
    }).pipe(Effect.provide(NodeFileSystem.layer)))

  it.effect("a missing file fails with a PlatformError", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(FileTime.stamp(nodePath.join(root, "nope")))
      expect(error._tag).toBe("SystemError")
    }).pipe(Effect.provide(NodeFileSystem.layer)))

  it("maxHashBytes is 16 MiB", () => {
    expect(FileTime.maxHashBytes).toBe(16 * 1024 * 1024)
  })
})

describe("FileTime after a read", () => {
  const dir = fs.realpathSync(fs.mkdtempSync(nodePath.join(root, "after-read-")))
  const file = nodePath.join(dir, "notes.txt")
  const opens = { count: 0 }
  // The Node filesystem, counting the opens of `file`.
  const counting = Layer.effect(
    FileSystem.FileSystem,
    Effect.map(FileSystem.FileSystem, (fsys) => ({
      ...fsys,
      open: (path: string, options?: FileSystem.OpenFileOptions) => {
        if (path === file) opens.count++
        return fsys.open(path, options)
      }
    }))
  ).pipe(Layer.provide(NodeFileSystem.layer))
  const layer = Layer.mergeAll(
    Workspace.layer({ directory: dir, sessionId: "s" }),
    Permission.layerAllowAll,
    Lsp.layerNoop,
    FileTime.layerMemory
  ).pipe(Layer.provideMerge(Layer.merge(counting, NodePath.layer)))

  it.effect("stamps the bytes a small file's read read, without opening it again; edits between reads are still seen", () =>
    Effect.gen(function*() {
      const ledger = yield* FileTime.FileTime
      fs.writeFileSync(file, "alpha\nbeta\n")
      opens.count = 0
      yield* read({ filePath: "notes.txt" })
      expect(opens.count).toBe(1)
      const stamped = yield* ledger.get("s", file)
      expect(stamped._tag === "Some" && stamped.value.hash).toBe(
        createHash("sha256").update("alpha\nbeta\n").digest("hex")
      )
      yield* ledger.assert("s", file)

      // Same size, the mtime put back: only the content tells.
      const { mtime } = fs.statSync(file)
      fs.writeFileSync(file, "gamma\ndelta")
      fs.utimesSync(file, mtime, mtime)
      const changed = yield* Effect.flip(ledger.assert("s", file))
      expect(changed._tag).toBe("FileChangedSinceRead")

      yield* read({ filePath: "notes.txt" })
      yield* ledger.assert("s", file)
      expect((yield* ledger.get("s", file)).pipe((o) => o._tag === "Some" && o.value.hash)).toBe(
        createHash("sha256").update("gamma\ndelta").digest("hex")
      )
    }).pipe(Effect.provide(layer)))

  it.effect("a host's own ledger is handed what was shown and the bytes read, as arguments", () =>
    Effect.gen(function*() {
      const calls: Array<{ path: string; shown: FileTime.Shown | undefined; bytes: FileTime.ReadBytes | undefined }> =
        []
      const ledger = Layer.succeed(FileTime.FileTime, {
        read: (_sessionId, path, shown, bytes) => Effect.sync(() => void calls.push({ path, shown, bytes })),
        get: () => Effect.succeedNone,
        assert: () => Effect.void,
        coverage: () => Effect.succeed(FileTime.emptyCoverage),
        covers: () => Effect.succeed(false)
      })
      const hosted = Layer.mergeAll(
        Workspace.layer({ directory: dir, sessionId: "s" }),
        Permission.layerAllowAll,
        Lsp.layerNoop,
        ledger
      ).pipe(Layer.provideMerge(Layer.merge(NodeFileSystem.layer, NodePath.layer)))
      fs.writeFileSync(file, "alpha\nbeta\n")
      const big = nodePath.join(dir, "big.txt")
      fs.writeFileSync(big, "y\n".repeat(40_000))
      yield* Effect.provide(
        Effect.zip(read({ filePath: "notes.txt" }), read({ filePath: "big.txt", limit: 3 })),
        hosted
      )
      expect(calls.map((call) => call.path)).toEqual([file, big])
      const [small, large] = calls
      expect(small!.shown).toMatchObject({ start: 1, end: 2, whole: true, size: 11 })
      expect(Buffer.from(small!.bytes!.bytes).toString()).toBe("alpha\nbeta\n")
      expect(small!.bytes).toMatchObject({ path: file, size: 11, mtime: fs.statSync(file).mtime.getTime() })
      // Past the size read whole at open, the ledger reads the file itself.
      expect(large!.shown).toMatchObject({ start: 1, end: 3, whole: false })
      expect(large!.bytes).toBeUndefined()
    }))

  it.effect("bytes left by a read are not used once the file has another size or mtime", () =>
    Effect.gen(function*() {
      fs.writeFileSync(file, "one\n")
      const { mtime } = fs.statSync(file)
      const known = { path: file, size: 4, mtime: mtime.getTime(), bytes: Buffer.from("old\n") }
      // The file as the bytes say: they are hashed (a stamp of what the read showed).
      expect((yield* FileTime.stamp(file, known)).hash).toBe(createHash("sha256").update("old\n").digest("hex"))
      // Another mtime: the file is read.
      fs.utimesSync(file, new Date(mtime.getTime() + 5000), new Date(mtime.getTime() + 5000))
      expect((yield* FileTime.stamp(file, known)).hash).toBe(createHash("sha256").update("one\n").digest("hex"))
    }).pipe(Effect.provide(NodeFileSystem.layer)))
})

describe("error tags", () => {
  /** A module's error classes (a `Schema.TaggedError` class has its tag as `_tag`), once each. */
  const errorsOf = (...modules: ReadonlyArray<object>) => [
    ...new Set(
      modules.flatMap((module) =>
        Object.values(module).filter((value): value is { readonly _tag: string } =>
          typeof value === "function" && typeof (value as { readonly _tag?: unknown })._tag === "string"
        )
      )
    )
  ]

  it("are unique across the errors a host meets: one catchTag catches one shape", () => {
    const tags = errorsOf(...Object.values(Public), LanguageServer, Secrets, SqlFileTime, SqlSessionMemory).map((
      error
    ) => error._tag)
    expect(tags).toEqual(
      expect.arrayContaining(["FileChanged", "FileChangedSinceRead", "FileNotRead", "SessionMemoryError"])
    )
    expect(tags.filter((tag, i) => tags.indexOf(tag) !== i)).toEqual([])
  })

  it.effect("catchTag(\"FileChanged\") catches the read's error, not the ledger's", () =>
    Effect.gen(function*() {
      const ledger = new FileTime.FileChangedSinceRead({ path: "/p", readAt: 1 })
      const caught = yield* Effect.fail(ledger).pipe(
        Effect.catchTag("FileChangedSinceRead", () => Effect.succeed("ledger"))
      )
      expect(caught).toBe("ledger")
      const read = new ReadError.FileChanged({ path: "/p", detail: "it shrank" })
      expect(read._tag).not.toBe(ledger._tag)
      expect(FileTime.FileChanged).toBe(FileTime.FileChangedSinceRead)
    }))
})

describe("FileTime.layerMemory's bound", () => {
  it.effect.prop(
    "remembers at most MemoryLimits.maxFiles files: the one read longest ago is forgotten first",
    [
      FastCheck.integer({ min: 1, max: 6 }),
      FastCheck.array(FastCheck.integer({ min: 0, max: 9 }), { minLength: 1, maxLength: 30 })
    ],
    ([maxFiles, reads]) =>
      Effect.gen(function*() {
        const ledger = yield* FileTime.FileTime
        const dir = fs.mkdtempSync(nodePath.join(root, "bound-"))
        const order: Array<number> = []
        for (const n of reads) {
          const file = nodePath.join(dir, `f${n}.txt`)
          if (!fs.existsSync(file)) fs.writeFileSync(file, `file ${n}\n`)
          yield* ledger.read("s", file, {
            start: 1,
            end: 1,
            whole: true,
            size: fs.statSync(file).size,
            mtime: fs.statSync(file).mtimeMs
          })
          const at = order.indexOf(n)
          if (at >= 0) order.splice(at, 1)
          order.push(n)
        }
        const kept = new Set(order.slice(-maxFiles))
        for (let n = 0; n <= 9; n++) {
          const remembered = (yield* ledger.get("s", nodePath.join(dir, `f${n}.txt`)))._tag === "Some"
          expect([n, remembered]).toEqual([n, kept.has(n)])
        }
        // A forgotten file is one the session has not read: an edit of it asks for a read first.
        const forgotten = order.slice(0, -maxFiles)[0]
        if (forgotten !== undefined) {
          const error = yield* Effect.flip(ledger.assert("s", nodePath.join(dir, `f${forgotten}.txt`)))
          expect(error._tag).toBe("FileNotRead")
        }
      }).pipe(
        Effect.provide(FileTime.layerMemory.pipe(Layer.provideMerge(NodeFileSystem.layer))),
        Effect.provideService(FileTime.MemoryLimits, { maxFiles })
      ),
    { fastCheck: { numRuns: 40 } }
  )

  it.effect("bytes a read confirmed are stamped as they are, without looking at the file again", () =>
    Effect.gen(function*() {
      const file = nodePath.join(root, "confirmed.txt")
      fs.writeFileSync(file, "now\n")
      const known = { path: file, size: 4, mtime: 1, bytes: Buffer.from("was\n"), confirmed: true }
      // The file has other bytes and mtime now: a confirmed read's bytes are still what was shown.
      const stamped = yield* FileTime.stamp(file, known)
      expect(stamped).toMatchObject({ size: 4, mtime: 1, hash: createHash("sha256").update("was\n").digest("hex") })
      // Unconfirmed, the same bytes are checked against the file (see the test above).
      expect((yield* FileTime.stamp(file, { ...known, confirmed: false })).hash).toBe(
        createHash("sha256").update("now\n").digest("hex")
      )
    }).pipe(Effect.provide(NodeFileSystem.layer)))
})

describe("FileTime.layerMemory keeps what addShown makes", () => {
  // The ledger keeps entries small (one hash string, the usual coverage as a number): what `get` and
  // `coverage` answer must still be the stamps and coverage the plain fold of `addShown` gives.
  const contents = ["a\n", "a\nb\n", "a\nb\nc\n"]
  // Any shape a host may hand over, not only what `read` sends: whole or not, from any line, with
  // or without ranges, of the version stamped or another; most often a whole read.
  const anyShown = FastCheck.record({
    whole: FastCheck.boolean(),
    start: FastCheck.integer({ min: 0, max: 3 }),
    extra: FastCheck.integer({ min: 0, max: 2 }),
    ranges: FastCheck.boolean(),
    otherVersion: FastCheck.boolean()
  })
  const shownArb = FastCheck.oneof(
    { arbitrary: anyShown, weight: 2 },
    {
      arbitrary: anyShown.map((shape) => ({ ...shape, whole: true, start: 1, ranges: false, otherVersion: false })),
      weight: 3
    },
    { arbitrary: FastCheck.constant(undefined), weight: 1 }
  )
  const op = FastCheck.oneof(
    FastCheck.record({
      kind: FastCheck.constant("read" as const),
      session: FastCheck.constantFrom("a", "b"),
      file: FastCheck.integer({ min: 0, max: 1 }),
      version: FastCheck.integer({ min: 0, max: 2 }),
      shown: shownArb
    }),
    FastCheck.record({
      kind: FastCheck.constant("fork" as const),
      parent: FastCheck.constantFrom("a", "b", "c"),
      child: FastCheck.constantFrom("a", "b", "c")
    })
  )
  const shownOf = (
    shape: typeof shownArb extends FastCheck.Arbitrary<infer S> ? S : never,
    size: number,
    lines: number
  ): FileTime.Shown | undefined =>
    shape === undefined ? undefined : {
      start: shape.start,
      end: Math.max(shape.start, lines) + shape.extra - 1,
      whole: shape.whole,
      size,
      mtime: shape.otherVersion ? 8 : 7,
      ...(shape.ranges ? { ranges: [{ start: 1, end: 1 }, { start: 3, end: 3 + shape.extra }] } : {})
    }

  it.effect.prop(
    "get and coverage answer as a plain map of stamps and addShown's coverage, through reads, versions and forks",
    [FastCheck.integer({ min: 1, max: 5 }), FastCheck.array(op, { minLength: 1, maxLength: 40 })],
    ([maxFiles, ops]) =>
      Effect.gen(function*() {
        const ledger = yield* FileTime.FileTime
        const model = new Map<string, { stamp: FileTime.ReadStamp; coverage: FileTime.Coverage }>()
        const forked = new Set<string>()
        const evict = () => {
          if (model.size > maxFiles) model.delete(model.keys().next().value!)
        }
        const files = [0, 1].map((n) => `/work/f${n}.ts`)
        for (const step of ops) {
          if (step.kind === "fork") {
            yield* FileTime.fork(step.parent, step.child)
            if (step.parent === step.child || forked.has(step.child)) continue
            forked.add(step.child)
            for (const [key, entry] of [...model]) {
              if (!key.startsWith(`${step.parent}\u0000`)) continue
              const own = `${step.child}\u0000${key.slice(step.parent.length + 1)}`
              if (model.has(own)) continue
              model.set(own, entry)
              evict()
            }
            continue
          }
          const path = files[step.file]!
          const bytes = Buffer.from(contents[step.version]!)
          const known = { path, size: bytes.length, mtime: 7, bytes, confirmed: true }
          const shown = shownOf(step.shown, bytes.length, step.version + 1)
          yield* ledger.read(step.session, path, shown, known)
          const key = `${step.session}\u0000${path}`
          const stamped = yield* FileTime.stamp(path, known)
          const before = model.get(key)
          model.delete(key)
          model.set(key, {
            stamp: stamped,
            coverage: FileTime.addShown(before?.coverage ?? FileTime.emptyCoverage, stamped, shown)
          })
          evict()
        }
        for (const session of ["a", "b", "c"]) {
          for (const path of files) {
            const expected = model.get(`${session}\u0000${path}`)
            const stamp = yield* ledger.get(session, path)
            expect(stamp._tag === "Some" ? stamp.value : undefined).toEqual(expected?.stamp)
            expect(yield* ledger.coverage(session, path)).toEqual(expected?.coverage ?? FileTime.emptyCoverage)
          }
        }
      }).pipe(
        Effect.provide(FileTime.layerMemory.pipe(Layer.provideMerge(NodeFileSystem.layer))),
        Effect.provideService(FileTime.MemoryLimits, { maxFiles })
      ),
    { fastCheck: { numRuns: 500 } }
  )
})

describe("FileTime.layerMemory's size", () => {
  // What one (session, file) pair costs a long-lived host, up to `maxFiles` (10,000) of them: a fresh
  // process with a forced GC reads 4,000 pairs twice into a ledger (the second round is how an agent
  // re-reads). It was ~920 bytes a pair on Node 20 (~750 on Node 24) with the stamp, its coverage's
  // objects, arrays and a hidden class per range; the entry kept small measures ~340 (~290 on Node 24).
  const source = `
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Effect from "effect/Effect"
import * as FileTime from "./dist/FileTime.js"
const measure = () => { globalThis.gc(); globalThis.gc(); const u = process.memoryUsage(); return u.heapUsed + u.external }
const bytes = Array.from({ length: 50 }, (_, i) => Buffer.from(\`export const v = \${i}\\n\`.repeat(100)))
const readAll = (ledger, session, count, round) => Effect.forEach(Array.from({ length: count }, (_, i) => i), (i) => {
  const path = ["/work", "project", "src", \`module\${i}.ts\`].join("/")
  const content = bytes[i % bytes.length]
  const known = { path, size: content.length, mtime: 1700000000000 + i, bytes: content, confirmed: true }
  return ledger.read(session, path, { start: 1, end: 100, whole: true, size: content.length, mtime: known.mtime }, known)
}, { discard: true })
const perPair = await Effect.runPromise(Effect.gen(function*() {
  const warm = yield* FileTime.make
  for (let round = 0; round < 5; round++) yield* readAll(warm, "warm", 200, round)
  const ledger = yield* FileTime.make
  const before = measure()
  for (let round = 0; round < 2; round++) {
    yield* readAll(ledger, "session-one", 2000, round)
    yield* readAll(ledger, "session-two", 2000, round)
  }
  const after = measure()
  if ((yield* ledger.get("session-two", "/work/project/src/module1999.ts"))._tag !== "Some") throw new Error("not kept")
  return (after - before) / 4000
}).pipe(Effect.provide(NodeContext.layer)))
console.log(JSON.stringify({ perPair }))
`
  it("keeps a (session, file) pair in under 500 bytes", () => {
    const out = execFileSync(process.execPath, ["--expose-gc", "--input-type=module", "-e", source], {
      cwd: nodePath.join(import.meta.dirname, ".."),
      encoding: "utf8"
    })
    const { perPair } = JSON.parse(out.trim().split("\n").at(-1)!)
    expect(perPair).toBeGreaterThan(0)
    expect(perPair).toBeLessThan(500)
  })
})
