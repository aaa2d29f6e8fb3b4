/**
 * The fault layer itself, over the Node filesystem (a real temp directory) and MemoryFileSystem:
 * each fault does what it says, errors look like Node's, counters count, generated plans shrink.
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import type { PlatformError } from "@effect/platform/Error"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import * as FaultFileSystem from "../src/FaultFileSystem.js"
import * as MemoryFileSystem from "../src/MemoryFileSystem.js"
import { tempDir } from "./support/index.js"

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes)

/** A directory holding `files` on each filesystem, and the layer over it. */
const backends = [
  {
    name: "Node",
    setup: (files: Record<string, string>) => {
      const root = tempDir("effect-read-faultfs-")
      for (const [name, content] of Object.entries(files)) fs.writeFileSync(nodePath.join(root, name), content)
      return { root, layer: Layer.merge(NodeFileSystem.layer, NodePath.layer) }
    }
  },
  {
    name: "Memory",
    setup: (files: Record<string, string>) => {
      const root = "/work"
      const entries = Object.fromEntries(Object.entries(files).map(([name, content]) => [`${root}/${name}`, content]))
      return {
        root,
        layer: Layer.merge(MemoryFileSystem.layer({ [root]: MemoryFileSystem.directory, ...entries }), Path.layer)
      }
    }
  }
] as const

/** Run `body` with the faulty filesystem over `files` on one backend. */
const withFaults = <A, E>(
  backend: typeof backends[number],
  files: Record<string, string>,
  plan: FaultFileSystem.Plan | ((root: string) => FaultFileSystem.Plan),
  body: (
    root: string,
    faulty: FileSystem.FileSystem,
    faults: FaultFileSystem.FaultFileSystem
  ) => Effect.Effect<A, E, FileSystem.FileSystem>
) => {
  const { layer, root } = backend.setup(files)
  return Effect.gen(function*() {
    const faults = yield* FaultFileSystem.make(typeof plan === "function" ? plan(root) : plan)
    return yield* body(root, faults.fileSystem, faults)
  }).pipe(Effect.provide(layer))
}

const readAll = (file: FileSystem.File) =>
  Effect.gen(function*() {
    const chunks: Array<Uint8Array> = []
    for (;;) {
      const chunk = yield* file.readAlloc(4)
      if (Option.isNone(chunk)) break
      chunks.push(chunk.value)
    }
    return text(Buffer.concat(chunks))
  })

describe("FaultFileSystem errors are Node's", () => {
  // Node can produce ENOENT for anyone: the injected error must be indistinguishable from it.
  for (
    const [operation, call] of [
      ["stat", (fs: FileSystem.FileSystem, p: string) => fs.stat(p)],
      ["open", (fs: FileSystem.FileSystem, p: string) => Effect.scoped(fs.open(p))],
      ["readDirectory", (fs: FileSystem.FileSystem, p: string) => fs.readDirectory(p)],
      ["readLink", (fs: FileSystem.FileSystem, p: string) => fs.readLink(p)],
      ["access", (fs: FileSystem.FileSystem, p: string) => fs.access(p)]
    ] as const
  ) {
    it.effect(`ENOENT from ${operation} matches the Node layer's`, () =>
      Effect.gen(function*() {
        const node = yield* FileSystem.FileSystem
        const missing = nodePath.join(tempDir(), "missing")
        const real = (yield* Effect.flip(call(node, missing) as Effect.Effect<unknown, PlatformError>)) as PlatformError
        const injected = FaultFileSystem.systemError("ENOENT", operation, missing)
        expect(real._tag).toBe("SystemError")
        if (real._tag !== "SystemError") return
        expect({
          reason: injected.reason,
          method: injected.method,
          description: injected.description,
          pathOrDescriptor: injected.pathOrDescriptor
        }).toEqual({
          reason: real.reason,
          method: real.method,
          description: real.description,
          pathOrDescriptor: real.pathOrDescriptor
        })
      }).pipe(Effect.provide(NodeFileSystem.layer)))
  }

  it("maps errno codes to the reasons the Node layer uses", () => {
    expect(FaultFileSystem.systemError("EACCES", "open", "/x").reason).toBe("PermissionDenied")
    expect(FaultFileSystem.systemError("EBUSY", "open", "/x").reason).toBe("Busy")
    expect(FaultFileSystem.systemError("ENOTDIR", "stat", "/x").reason).toBe("BadResource")
    expect(FaultFileSystem.systemError("EIO", "read", 7).description).toBe("EIO: i/o error, read")
    expect(FaultFileSystem.systemError("EMFILE", "open", "/x").description).toBe(
      "EMFILE: too many open files, open '/x'"
    )
    expect(FaultFileSystem.systemError("ENOSPC", "write", 3).reason).toBe("Unknown")
  })
})

for (const backend of backends) {
  describe(`FaultFileSystem over ${backend.name}`, () => {
    it.effect("fails the nth matching call, `times` in a row, and only for its path", () =>
      withFaults(
        backend,
        { "a.txt": "a", "b.txt": "b" },
        (
          root
        ) => [FaultFileSystem.Fail.make({ operation: "stat", nth: 2, times: 2, code: "EIO", path: `${root}/a.txt` })],
        (root, faulty, faults) =>
          Effect.gen(function*() {
            const target = `${root}/a.txt`
            const outcomes: Array<string> = []
            for (const name of ["a.txt", "b.txt", "a.txt", "b.txt", "a.txt", "a.txt"]) {
              const exit = yield* Effect.either(faulty.stat(`${root}/${name}`))
              outcomes.push(
                exit._tag === "Right" ? "ok" : `${exit.left._tag === "SystemError" ? exit.left.description : "?"}`
              )
            }
            expect(outcomes).toEqual([
              "ok",
              "ok",
              `EIO: i/o error, stat '${target}'`,
              "ok",
              `EIO: i/o error, stat '${target}'`,
              "ok"
            ])
            expect((yield* faults.stats).calls.stat).toBe(6)
          })
      ))

    it.effect("short reads return fewer bytes and leave the position right", () =>
      withFaults(
        backend,
        { "a.txt": "0123456789" },
        [FaultFileSystem.ShortRead.make({ nth: 1, bytes: 3, times: 2 })],
        (root, faulty) =>
          Effect.scoped(Effect.gen(function*() {
            const file = yield* faulty.open(`${root}/a.txt`)
            const buffer = new Uint8Array(10)
            expect(Number(yield* file.read(buffer))).toBe(3)
            expect(text(buffer.subarray(0, 3))).toBe("012")
            const rest = yield* file.readAlloc(10)
            expect(Option.map(rest, text)).toEqual(Option.some("345"))
            expect(yield* readAll(file)).toBe("6789")
          }))
      ))

    it.effect("truncates the file after its nth read; the open descriptor sees it", () =>
      withFaults(
        backend,
        { "a.txt": "0123456789" },
        [FaultFileSystem.Truncate.make({ afterRead: 1, size: 6 })],
        (root, faulty, faults) =>
          Effect.scoped(Effect.gen(function*() {
            const file = yield* faulty.open(`${root}/a.txt`)
            const first = yield* file.readAlloc(4)
            expect(Option.map(first, text)).toEqual(Option.some("0123"))
            expect(yield* readAll(file)).toBe("45")
            expect(Number((yield* faulty.stat(`${root}/a.txt`)).size)).toBe(6)
            expect((yield* faults.stats).fired).toEqual([FaultFileSystem.Truncate.make({ afterRead: 1, size: 6 })])
          }))
      ))

    it.effect("a truncation never grows the file", () =>
      withFaults(
        backend,
        { "a.txt": "0123" },
        [FaultFileSystem.Truncate.make({ afterRead: 1, size: 100 })],
        (root, faulty) =>
          Effect.gen(function*() {
            yield* Effect.scoped(Effect.flatMap(faulty.open(`${root}/a.txt`), (file) => file.readAlloc(1)))
            expect(Number((yield* faulty.stat(`${root}/a.txt`)).size)).toBe(4)
          })
      ))

    it.effect("rewrites in place: same inode, the open descriptor reads the new bytes", () =>
      withFaults(
        backend,
        { "a.txt": "abc\nxyz\n" },
        [FaultFileSystem.Rewrite.make({ afterRead: 1 })],
        (root, faulty) =>
          Effect.scoped(Effect.gen(function*() {
            const before = yield* faulty.stat(`${root}/a.txt`)
            const file = yield* faulty.open(`${root}/a.txt`)
            yield* file.readAlloc(4)
            expect(yield* readAll(file)).toBe("yza\n")
            const after = yield* faulty.stat(`${root}/a.txt`)
            expect(after.ino).toEqual(before.ino)
            expect(text(yield* faulty.readFile(`${root}/a.txt`))).toBe("bcd\nyza\n")
          }))
      ))

    it.effect("replaces by rename: a new inode, the open descriptor keeps the old file", () =>
      withFaults(
        backend,
        { "a.txt": "abc\nxyz\n" },
        [FaultFileSystem.Replace.make({ afterRead: 1, content: "new\n" })],
        (root, faulty) =>
          Effect.scoped(Effect.gen(function*() {
            const before = yield* faulty.stat(`${root}/a.txt`)
            const file = yield* faulty.open(`${root}/a.txt`)
            yield* file.readAlloc(4)
            expect(yield* readAll(file)).toBe("xyz\n")
            const after = yield* faulty.stat(`${root}/a.txt`)
            expect(after.ino).not.toEqual(before.ino)
            expect(text(yield* faulty.readFile(`${root}/a.txt`))).toBe("new\n")
            expect(yield* faulty.readDirectory(root)).toEqual(["a.txt"])
          }))
      ))

    it.effect("appends after the nth read; the open descriptor reads on into the new bytes", () =>
      withFaults(
        backend,
        { "a.txt": "abc\n" },
        [FaultFileSystem.Append.make({ afterRead: 1, size: 4 })],
        (root, faulty) =>
          Effect.scoped(Effect.gen(function*() {
            const file = yield* faulty.open(`${root}/a.txt`)
            yield* file.readAlloc(2)
            expect(yield* readAll(file)).toBe("c\nbcd\n")
          }))
      ))

    it.effect("entries vanish and appear during a listing, after the names were read", () =>
      withFaults(
        backend,
        { "a.txt": "a", "b.txt": "b", "c.txt": "c" },
        [
          FaultFileSystem.Vanish.make({ nth: 1, count: 0, names: ["b.txt"] }),
          FaultFileSystem.Appear.make({ nth: 1, count: 2 })
        ],
        (root, faulty) =>
          Effect.gen(function*() {
            const listed = yield* faulty.readDirectory(root)
            expect([...listed].sort()).toEqual(["a.txt", "b.txt", "c.txt"])
            expect(yield* faulty.exists(`${root}/b.txt`)).toBe(false)
            expect([...(yield* faulty.readDirectory(root))].sort()).toEqual([
              "a.txt",
              "c.txt",
              "fault-appeared-1",
              "fault-appeared-2"
            ])
          })
      ))

    it.effect("counts opens and closes, and names the files still open", () =>
      withFaults(backend, { "a.txt": "a", "b.txt": "b" }, [], (root, faulty, faults) =>
        Effect.gen(function*() {
          yield* Effect.scoped(Effect.gen(function*() {
            const file = yield* faulty.open(`${root}/a.txt`)
            yield* faulty.open(`${root}/b.txt`)
            // The Node File keeps `fd` and `stat` on itself and its prototype: both reach through.
            expect(Number((yield* file.stat).size)).toBe(1)
            expect(typeof file.fd).toBe("number")
            const open = yield* faults.stats
            expect(open).toMatchObject({ opened: 2, closed: 0 })
            expect([...open.open].sort()).toEqual([`${root}/a.txt`, `${root}/b.txt`])
          }))
          // A failed open opens nothing and closes nothing.
          yield* Effect.scoped(faulty.open(`${root}/missing`)).pipe(Effect.ignore)
          expect(yield* faults.stats).toMatchObject({ opened: 2, closed: 2, open: [] })
        })))

    it.effect("derived operations go through the faults (readFileString, exists, stream)", () =>
      withFaults(
        backend,
        { "a.txt": "hello" },
        [
          FaultFileSystem.Fail.make({ operation: "readFile", nth: 1, code: "EACCES" }),
          FaultFileSystem.Fail.make({ operation: "access", nth: 1, code: "EIO" })
        ],
        (root, faulty) =>
          Effect.gen(function*() {
            const denied = yield* Effect.flip(faulty.readFileString(`${root}/a.txt`))
            expect(denied._tag === "SystemError" && denied.reason).toBe("PermissionDenied")
            expect(yield* Effect.either(faulty.exists(`${root}/a.txt`))).toMatchObject({ _tag: "Left" })
            expect(yield* faulty.readFileString(`${root}/a.txt`)).toBe("hello")
          })
      ))
  })
}

describe("generated plans", () => {
  it.prop(
    "are valid plans",
    [FaultFileSystem.arbitrary({ paths: ["/a", "/b"], maxFaults: 5 })],
    ([plan]) => {
      expect(Schema.is(FaultFileSystem.Plan)(plan)).toBe(true)
      expect(Schema.decodeUnknownSync(FaultFileSystem.Plan)(JSON.parse(FaultFileSystem.format(plan)))).toEqual(plan)
    },
    { fastCheck: { numRuns: 200 } }
  )

  it("shrink to a minimal plan", () => {
    // A property that breaks as soon as a plan holds a truncation (whatever else it holds).
    const result = fc.check(
      fc.property(
        FaultFileSystem.arbitrary({ maxFaults: 6, maxNth: 50 }),
        (plan) => !plan.some((f) => f._tag === "Truncate")
      ),
      { seed: 42, numRuns: 1000 }
    )
    expect(result.failed).toBe(true)
    expect(result.counterexample?.[0]).toEqual([FaultFileSystem.Truncate.make({ afterRead: 1, size: 0 })])
  })

  it("rewritten moves every letter one on and keeps the layout", () => {
    const bytes = FaultFileSystem.rewritten(new TextEncoder().encode("az AZ 09\n"), 12)
    expect(text(bytes)).toBe("ba BA 09\nba ")
    expect(text(FaultFileSystem.rewritten(new Uint8Array(0), 9))).toBe("sfxsjuufo")
  })
})
