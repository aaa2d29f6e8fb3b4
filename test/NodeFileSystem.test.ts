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
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as fc from "fast-check"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import * as FileTime from "../src/FileTime.js"
import { patientFileSystem } from "../src/internal/io/descriptors.js"
import {
  isNodeFileSystem,
  opensKernelDescriptors,
  readSmallChecked,
  realPathOf,
  type Recheck
} from "../src/internal/io/nodeFileSystem.js"
import { LeanRead } from "../src/internal/read/lean.js"
import { useSnapshot } from "../src/internal/read/open.js"
import * as MemoryFileSystem from "../src/MemoryFileSystem.js"
import * as Permission from "../src/Permission.js"
import * as Read from "../src/Read.js"
import { BinaryFile } from "../src/ReadError.js"
import * as Sources from "../src/Sources.js"
import * as Workspace from "../src/Workspace.js"
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

  /** What a read answered, and what the ledger then held of the file (less the time of the read). */
  const outcome = (params: Read.ReadParams) =>
    Effect.gen(function*() {
      const answer = yield* Effect.either(Read.read(params))
      const fileTime = yield* FileTime.FileTime
      const workspace = yield* Workspace.Workspace
      const stamp = yield* fileTime.get(workspace.sessionId, nodePath.resolve(dir, params.filePath))
      return { answer, ledger: Option.map(stamp, ({ readAt: _, ...rest }) => rest) }
    })

  /**
   * The same read the straight way (`internal/read/lean.ts`, on by default), the general way on
   * Node's filesystem (its small-file short way included), and the general way on a copy of it
   * whose `open` is replaced (no shortcut at all).
   */
  const threeWays = (params: Read.ReadParams, permission: Layer.Layer<Permission.Permission>) =>
    Effect.gen(function*() {
      const layer = nodeLayer(dir, { permission })
      const lean = yield* outcome(params).pipe(Effect.provide(layer))
      const node = yield* outcome(params).pipe(Effect.provide(Layer.merge(layer, Layer.succeed(LeanRead, false))))
      const general = yield* Effect.flatMap(FileSystem.FileSystem, (node) =>
        outcome(params).pipe(
          Effect.provideService(FileSystem.FileSystem, { ...node, open: (path, options) => node.open(path, options) })
        )).pipe(Effect.provide(layer))
      return { lean, node, general }
    })

  const contents = fc.oneof(
    fc.array(fc.constantFrom("alpha", "β", "", "\t x", "😀", "line\r", "a".repeat(300)), { maxLength: 60 }).map((
      lines
    ) => Buffer.from(lines.join(fc.sample(fc.constantFrom("\n", "\r\n"), 1)[0]!))),
    fc.uint8Array({ maxLength: 2000 }).map((bytes) => Buffer.from(bytes)),
    fc.integer({ min: 65_000, max: 70_000 }).map((size) => Buffer.from("x\n".repeat(size / 2)))
  )

  /** What the path names: a file of those bytes, a link to one, a directory, or nothing. */
  const shapes = fc.constantFrom("file", "file", "file", "link", "directory", "missing", "outside")
  /** How it is asked for: lines (the straight way's), or with what only the general way reads. */
  const requests = fc.oneof(
    fc.constant({}),
    fc.record({ offset: fc.integer({ min: -5, max: 30 }), limit: fc.integer({ min: 1, max: 10 }) }),
    fc.constantFrom({ encoding: "latin1" }, { lineFormat: "hashline" as const }, { selector: ":2-3" })
  )
  const outsideDir = tempDir("effect-read-short-outside-")
  afterAll(() => fs.rmSync(outsideDir, { recursive: true, force: true }))

  it.effect.prop(
    "the straight way answers as the general way does: the same page, footer, metadata, error and ledger",
    [contents, shapes, requests, fc.constantFrom<Array<Permission.Action>>("allow", "deny", "ask")],
    ([bytes, shape, request, rule]) =>
      Effect.gen(function*() {
        const name = `f${n++}`
        const file = nodePath.join(dir, `${name}.txt`)
        if (shape === "file" || shape === "link") fs.writeFileSync(file, bytes)
        if (shape === "link") fs.symlinkSync(file, nodePath.join(dir, `${name}.link.txt`))
        if (shape === "directory") fs.mkdirSync(file)
        if (shape === "outside") {
          fs.writeFileSync(nodePath.join(outsideDir, `${name}.txt`), bytes)
        }
        const written = shape === "link"
          ? `${name}.link.txt`
          : shape === "outside"
          ? nodePath.join(outsideDir, `${name}.txt`)
          : `${name}.txt`
        const { selector, ...rest } = request as { readonly selector?: string }
        const params = { filePath: `${written}${selector ?? ""}`, ...rest } as Read.ReadParams
        // Files of this name: allowed, denied by rule, or asked about (nobody answers: refused).
        const permission = Permission.layerRules([
          { permission: "*", pattern: "*", action: "allow" as const },
          ...(rule === "allow" ? [] : [{ permission: "read", pattern: `*${name}*`, action: rule }])
        ])
        const { general, lean, node } = yield* threeWays(params, permission)
        for (const other of [node, general]) {
          expect(lean.answer._tag).toBe(other.answer._tag)
          if (lean.answer._tag === "Right" && other.answer._tag === "Right") {
            expect(lean.answer.right.output).toBe(other.answer.right.output)
            expect(lean.answer.right.metadata).toEqual(other.answer.right.metadata)
          } else if (lean.answer._tag === "Left" && other.answer._tag === "Left") {
            expect(lean.answer.left).toEqual(other.answer.left)
          }
          expect(lean.ledger).toEqual(other.ledger)
        }
      }),
    { fastCheck: { numRuns: 80 } }
  )

  it.effect("a file no file source claims: the same typed refusal both ways, never a defect", () =>
    Effect.gen(function*() {
      fs.writeFileSync(nodePath.join(dir, "unclaimed.txt"), "plain text\n")
      // Only Markdown is claimed: the straight way takes the file, and no source reads it.
      const registry = Sources.layer([Sources.fileSource({
        name: "markdown-only",
        claims: ({ extension }) => extension === ".md",
        read: () => Effect.dieMessage("not reached")
      })])
      const { general, lean, node } = yield* threeWays(
        { filePath: "unclaimed.txt" },
        Layer.merge(Permission.layerAllowAll, registry)
      )
      for (const way of [lean, node, general]) {
        expect(way.answer._tag).toBe("Left")
        if (way.answer._tag === "Left") expect(way.answer.left).toBeInstanceOf(BinaryFile)
      }
      expect(lean.answer).toEqual(node.answer)
      expect(lean.answer).toEqual(general.answer)
    }))

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
      const inPlace = { tail, inPlace: true, atPath: undefined }
      expect(yield* check({ after: same, ...inPlace })).toBe("read: one\ntwo\n")
      expect(yield* check({ ...inPlace, after: { ...same, size: FileSystem.Size(3) } })).toBe(
        "FileChanged: it shrank while it was being read (8 bytes → 3 bytes)"
      )
      expect(yield* check({ ...inPlace, after: { ...same, mtime } })).toBe(
        "FileChanged: it was rewritten while it was being read"
      )
      expect(yield* check({ ...inPlace, after: same, tail: new TextEncoder().encode("one\nTWO\n") })).toBe(
        "FileChanged: it was rewritten while it was being read"
      )
      // The descriptor holds another file than the `stat` before the open saw.
      expect(yield* check({ ...inPlace, after: other })).toBe("FileChanged: it was replaced while it was being read")
      // The descriptor is not (or no longer) the file at the checked real path.
      const moved = { after: same, tail, inPlace: false }
      expect(yield* check({ ...moved, atPath: other })).toBe("FileChanged: it was replaced while it was being read")
      expect(yield* check({ ...moved, atPath: undefined })).toBe("FileChanged: it was removed while it was being read")
      expect(yield* check({ ...moved, atPath: same })).toBe(
        "FileChanged: it was replaced between the permission check and opening it"
      )
      expect(yield* check(undefined)).toBe("FileChanged: it stopped answering while it was checked for changes")
    }))

  it.effect("reads only a small regular file of the size its stat said; the check names what the descriptor holds", () =>
    Effect.gen(function*() {
      const file = nodePath.join(dir, "real.txt")
      fs.writeFileSync(file, "real\n")
      const large = nodePath.join(dir, "large.txt")
      fs.writeFileSync(large, "y".repeat(70_000))
      const node = yield* FileSystem.FileSystem.pipe(Effect.provide(NodeFileSystem.layer))
      const options = { maxBytes: 64 * 1024, tailBytes: 4096, timeoutMillis: 5000 }
      const info = yield* node.stat(file)
      // Not a small regular file, or not there: nothing read.
      expect(yield* readSmallChecked(dir, dir, yield* node.stat(dir), options)).toBeUndefined()
      expect(yield* readSmallChecked(large, large, yield* node.stat(large), options)).toBeUndefined()
      const missing = nodePath.join(dir, "missing.txt")
      expect(yield* readSmallChecked(missing, missing, info, options)).toBeUndefined()
      // Grown since its stat: not that version's bytes.
      const grown = nodePath.join(dir, "grown.txt")
      fs.writeFileSync(grown, "one\n")
      const before = yield* node.stat(grown)
      fs.appendFileSync(grown, "two\n")
      expect(yield* readSmallChecked(grown, grown, before, options)).toBeUndefined()

      const snapshot = yield* readSmallChecked(file, file, info, options)
      expect(new TextDecoder().decode(snapshot!.bytes)).toBe("real\n")
      const recheck = yield* snapshot!.recheck
      expect(recheck?.inPlace).toBe(true)
      expect(recheck?.after?.size).toBe(FileSystem.Size(5))
      expect(new TextDecoder().decode(recheck!.tail)).toBe("real\n")
      // The checked real path is not what the descriptor holds (a link swapped in before the open).
      const elsewhere = yield* readSmallChecked(file, nodePath.join(dir, "elsewhere.txt"), info, options)
      expect((yield* elsewhere!.recheck)?.inPlace).toBe(false)
    }))
})
