/**
 * The Node shortcuts: one native `realpath` call answers as the service's `realPath` does, on a
 * real temp directory full of links; any filesystem that is not Node's own goes the service's way.
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
import { isNodeFileSystem, opensKernelDescriptors, realPathOf } from "../src/internal/io/nodeFileSystem.js"
import * as MemoryFileSystem from "../src/MemoryFileSystem.js"
import { tempDir } from "./support.js"

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
    [fc.array(fc.constantFrom("a", "b", "c", "toC", "absB", "viaLink.txt", "chain.txt", "..", "loop1", "fileLink", "file.txt"), { maxLength: 6 })],
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
