/**
 * The Node shortcuts: one native `realpath` call answers as the service's `realPath` does, on a
 * real temp directory full of links; any filesystem that is not Node's own goes the service's way.
 * A small file read the short way answers as the general way does, and is vouched for by the
 * same checks.
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as FileSystem from "@effect/platform/FileSystem"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as fc from "fast-check"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { patientFileSystem } from "../src/internal/io/descriptors.js"
import {
  isNodeFileSystem,
  opensKernelDescriptors,
  readSmallChecked,
  realPathOf,
  type Recheck
} from "../src/internal/io/nodeFileSystem.js"
import { useSnapshot } from "../src/internal/read/open.js"
import * as MemoryFileSystem from "../src/MemoryFileSystem.js"
import * as Read from "../src/Read.js"
import { nodeLayer, tempDir } from "./support/index.js"

const root = tempDir("effect-read-realpath-")
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

// A maze: directories, links to files and to directories, relative and absolute, chained,
// dangling, looping, and a link through which a file is taken for a directory.
const at = (p: string) => nodePath.join(root, p)
fs.mkdirSync(at("a/b/c"), { recursive: true })
fs.writeFileSync(at("a/b/c/file.txt"), "x")
fs.writeFileSync(at("top.txt"), "y")
fs.symlinkSync("b/c", at("a/toC"))
fs.symlinkSync(at("a/b"), at("absB"))
fs.symlinkSync("../toC/file.txt", at("a/b/viaLink.txt"))
fs.symlinkSync("viaLink.txt", at("a/b/chain.txt"))
fs.symlinkSync("missing", at("dangling"))
fs.symlinkSync("loop2", at("loop1"))
fs.symlinkSync("loop1", at("loop2"))
fs.symlinkSync("top.txt", at("fileLink"))

const names = [
  "",
  "a",
  "a/b/c/file.txt",
  "a/toC",
  "a/toC/file.txt",
  "absB/c/file.txt",
  "absB/viaLink.txt",
  "a/b/chain.txt",
  "a/b/../toC",
  "dangling",
  "loop1",
  "loop2/x",
  "fileLink",
  "fileLink/x",
  "top.txt/x",
  "nothing/here",
  "absB/../top.txt"
]

const both = (fileSystem: FileSystem.FileSystem, path: string) =>
  Effect.all([realPathOf(fileSystem, path), Effect.option(fileSystem.realPath(path))])

describe("Node filesystem shortcuts", () => {
  it.effect("recognise each of Node's own operations, patient or copied, and not one replaced", () =>
    Effect.gen(function*() {
      const node = yield* FileSystem.FileSystem.pipe(Effect.provide(NodeFileSystem.layer))
      const memory = yield* FileSystem.FileSystem.pipe(Effect.provide(MemoryFileSystem.layer({})))
      for (const own of [node, patientFileSystem(node), { ...node }]) {
        expect(isNodeFileSystem(own)).toBe(true)
        expect(opensKernelDescriptors(own)).toBe(true)
      }
      expect(isNodeFileSystem(memory)).toBe(false)
      expect(opensKernelDescriptors(memory)).toBe(false)
      expect(opensKernelDescriptors(patientFileSystem(memory))).toBe(false)
      const countingOpens: FileSystem.FileSystem = { ...node, open: (path, options) => node.open(path, options) }
      expect(opensKernelDescriptors(countingOpens)).toBe(false)
      expect(isNodeFileSystem(countingOpens)).toBe(true)
    }))

  it.effect("resolve every path of a maze of links as the service's realPath does", () =>
    Effect.gen(function*() {
      const node = yield* FileSystem.FileSystem.pipe(Effect.provide(NodeFileSystem.layer))
      for (const name of names) {
        const path = nodePath.resolve(root, name)
        const [native, service] = yield* both(node, path)
        expect([name, native]).toEqual([name, service])
      }
      // The maze has answers of both kinds.
      expect(Option.getOrThrow(yield* realPathOf(node, at("absB/viaLink.txt")))).toBe(at("a/b/c/file.txt"))
      expect(Option.isNone(yield* realPathOf(node, at("loop1")))).toBe(true)
      // A path Node refuses before any system call (a NUL byte: an archive member's name) has
      // no real path, never a defect; the service's way says the same.
      const nul = at("a.zip/\u0000\u0000r/deflated.txt")
      expect(yield* both(node, nul)).toEqual([Option.none(), Option.none()])
    }))

  it.effect.prop(
    "agree with the service on any walk through the maze",
    [fc.array(
      fc.constantFrom("a", "b", "c", "toC", "absB", "viaLink.txt", "chain.txt", "..", "loop1", "fileLink", "file.txt"),
      { maxLength: 6 }
    )],
    ([steps]) =>
      Effect.gen(function*() {
        const node = yield* FileSystem.FileSystem.pipe(Effect.provide(NodeFileSystem.layer))
        const [native, service] = yield* both(node, nodePath.resolve(root, ...steps))
        expect(native).toEqual(service)
      })
  )

  it.effect("leave any other filesystem to its own realPath", () =>
    Effect.gen(function*() {
      const node = yield* FileSystem.FileSystem.pipe(Effect.provide(NodeFileSystem.layer))
      const asked: Array<string> = []
      const wrapped: FileSystem.FileSystem = {
        ...node,
        realPath: (path) => {
          asked.push(path)
          return Effect.succeed(`${path}!`)
        }
      }
      expect(Option.getOrThrow(yield* realPathOf(wrapped, at("top.txt")))).toBe(`${at("top.txt")}!`)
      expect(asked).toEqual([at("top.txt")])
    }))
})

describe("a small file read the short way (open, then fstat + /proc name + bytes, then the check)", () => {
  const dir = tempDir("effect-read-short-")
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))
  let n = 0

  /** The same read through Node's own filesystem (short way) and through a copy whose `open` is replaced (general way). */
  const bothWays = (params: Read.ReadParams) =>
    Effect.gen(function*() {
      const short = yield* Effect.either(Read.read(params)).pipe(Effect.provide(nodeLayer(dir)))
      const general = yield* Effect.either(
        Effect.flatMap(FileSystem.FileSystem, (node) =>
          Read.read(params).pipe(
            Effect.provideService(FileSystem.FileSystem, { ...node, open: (path, options) => node.open(path, options) })
          ))
      ).pipe(Effect.provide(nodeLayer(dir)))
      return { short, general }
    })

  const contents = fc.oneof(
    fc.array(fc.constantFrom("alpha", "β", "", "\t x", "😀", "line\r", "a".repeat(300)), { maxLength: 60 }).map((
      lines
    ) => Buffer.from(lines.join(fc.sample(fc.constantFrom("\n", "\r\n"), 1)[0]!))),
    fc.uint8Array({ maxLength: 2000 }).map((bytes) => Buffer.from(bytes)),
    fc.integer({ min: 65_000, max: 70_000 }).map((size) => Buffer.from("x\n".repeat(size / 2)))
  )

  it.effect.prop(
    "answers as the general way does: the same page, footer, metadata or error",
    [
      contents,
      fc.option(fc.record({ offset: fc.integer({ min: -5, max: 30 }), limit: fc.integer({ min: 1, max: 10 }) }), {
        nil: undefined
      })
    ],
    ([bytes, range]) =>
      Effect.gen(function*() {
        const name = `f${n++}.txt`
        fs.writeFileSync(nodePath.join(dir, name), bytes)
        const { general, short } = yield* bothWays({ filePath: name, ...range })
        expect(short._tag).toBe(general._tag)
        if (short._tag === "Right" && general._tag === "Right") {
          expect(short.right.output).toBe(general.right.output)
          expect(short.right.metadata).toEqual(general.right.metadata)
        } else if (short._tag === "Left" && general._tag === "Left") {
          expect(short.left).toEqual(general.left)
        }
      }),
    { fastCheck: { numRuns: 60 } }
  )

  /** `useSnapshot` over the bytes of `file` as `info` says they were, given what the check after them found. */
  const snapshot = (file: string, info: FileSystem.File.Info, recheck: Recheck | undefined) =>
    Effect.either(
      useSnapshot(
        { absolute: file, relative: nodePath.basename(file), real: file },
        { info, bytes: new Uint8Array(fs.readFileSync(file)), recheck: Effect.succeed(recheck) },
        (opened) => Effect.succeed(new TextDecoder().decode(opened.bytes!.bytes))
      )
    )

  it.effect("vouches for the bytes only when the check after them finds the same file, size and mtime", () =>
    Effect.gen(function*() {
      const file = nodePath.join(dir, "checked.txt")
      fs.writeFileSync(file, "one\ntwo\n")
      const node = yield* FileSystem.FileSystem.pipe(Effect.provide(NodeFileSystem.layer))
      const same = yield* node.stat(file)
      const other = { ...same, ino: Option.some(Number(Option.getOrElse(same.ino, () => 0)) + 1) }
      const mtime = Option.some(new Date(Option.getOrThrow(same.mtime).getTime() + 5000))
      const check = (recheck: Recheck | undefined) =>
        Effect.map(snapshot(file, same, recheck), (result) =>
          result._tag === "Left"
            ? `${result.left._tag}: ${"detail" in result.left ? result.left.detail : ""}`
            : `read: ${result.right}`)
      const tail = new TextEncoder().encode("one\ntwo\n")
      expect(yield* check({ after: same, tail, atPath: same })).toBe("read: one\ntwo\n")
      expect(yield* check({ after: { ...same, size: FileSystem.Size(3) }, tail, atPath: same })).toBe(
        "FileChanged: it shrank while it was being read (8 bytes → 3 bytes)"
      )
      expect(yield* check({ after: { ...same, mtime }, tail, atPath: same })).toBe(
        "FileChanged: it was rewritten while it was being read"
      )
      expect(yield* check({ after: same, tail: new TextEncoder().encode("one\nTWO\n"), atPath: same })).toBe(
        "FileChanged: it was rewritten while it was being read"
      )
      expect(yield* check({ after: same, tail, atPath: other })).toBe(
        "FileChanged: it was replaced while it was being read"
      )
      expect(yield* check({ after: same, tail, atPath: undefined })).toBe(
        "FileChanged: it was removed while it was being read"
      )
      expect(yield* check(undefined)).toBe("FileChanged: it stopped answering while it was checked for changes")
    }))

  it.effect("leaves a link swapped in before the open, a directory and a large file to the general way", () =>
    Effect.gen(function*() {
      const file = nodePath.join(dir, "real.txt")
      fs.writeFileSync(file, "real\n")
      fs.writeFileSync(nodePath.join(dir, "large.txt"), "y".repeat(70_000))
      const options = { maxBytes: 64 * 1024, tailBytes: 4096, timeoutMillis: 5000 }
      // The checked real path is not what the descriptor holds: no snapshot.
      expect(yield* readSmallChecked(file, nodePath.join(dir, "elsewhere.txt"), options)).toBeUndefined()
      expect(yield* readSmallChecked(dir, dir, options)).toBeUndefined()
      expect(yield* readSmallChecked(nodePath.join(dir, "large.txt"), nodePath.join(dir, "large.txt"), options))
        .toBeUndefined()
      expect(yield* readSmallChecked(nodePath.join(dir, "missing.txt"), nodePath.join(dir, "missing.txt"), options))
        .toBeUndefined()
      const snapshot = yield* readSmallChecked(file, file, options)
      expect(new TextDecoder().decode(snapshot!.bytes)).toBe("real\n")
      const recheck = yield* snapshot!.recheck
      expect(recheck?.atPath?.size).toBe(FileSystem.Size(5))
      expect(new TextDecoder().decode(recheck!.tail)).toBe("real\n")
    }))
})
