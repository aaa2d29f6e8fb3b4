/**
 * Archives through `read`: `.zip`, `.tar`, `.tar.gz`/`.tgz` listings and members, selectors,
 * paging, and every refusal (unsafe paths, encryption, corruption, bombs, size caps, binary).
 * Fixtures are generated here: ZIPs by test/zipFixtures.ts, tars by tar-stream's pack (or
 * header by header, test/tarFixtures.ts), tgz by gzipping those.
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as FileSystem from "@effect/platform/FileSystem"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/TestClock"
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import * as zlib from "node:zlib"
import * as tarStream from "tar-stream"
import * as FileTime from "../src/FileTime.js"
import { resolveTarget } from "../src/internal/read/access.js"
import { ARCHIVE_LIMITS, readArchive, readArchiveWith } from "../src/internal/sources/archive.js"
import * as Lsp from "../src/Lsp.js"
import * as Permission from "../src/Permission.js"
import { read, type ReadParams, readUnknown } from "../src/Read.js"
import * as Workspace from "../src/Workspace.js"
import { fieldsOf, memoryLayer, nodeLayer, readCappedListing, tempDir, writeTree } from "./support/index.js"
import { member as tarMember, tarOf } from "./support/tarFixtures.js"
import { zip } from "./support/zipFixtures.js"

// -----------------------------------------------------------------------------
// Fixture writers
// -----------------------------------------------------------------------------

interface TarMember {
  readonly name: string
  readonly data?: string | Uint8Array
  readonly type?: "file" | "directory" | "symlink"
  readonly linkname?: string
}

const tar = async (members: ReadonlyArray<TarMember>): Promise<Buffer> => {
  const pack = tarStream.pack()
  const chunks: Array<Buffer> = []
  const done = (async () => {
    for await (const chunk of pack) chunks.push(chunk as Buffer)
  })()
  for (const member of members) {
    const data = typeof member.data === "string" ? Buffer.from(member.data, "utf8") : Buffer.from(member.data ?? [])
    const type = member.type ?? "file"
    await new Promise<void>((resolve, reject) => {
      pack.entry(
        {
          name: member.name,
          type,
          size: type === "file" ? data.length : 0,
          mtime: new Date("2025-01-01T00:00:00Z"),
          ...(member.linkname === undefined ? {} : { linkname: member.linkname })
        },
        type === "file" ? data : undefined as unknown as Uint8Array,
        (error) => (error ? reject(error) : resolve())
      )
    })
  }
  pack.finalize()
  await done
  return Buffer.concat(chunks)
}

const lines = (n: number, label = "line") => Array.from({ length: n }, (_, i) => `${label} ${i + 1}`)
const textOf = (n: number, label = "line") => lines(n, label).join("\n") + "\n"

const PKG = [
  { name: "pkg/README.md", data: "# Archive README\nLine 2\nLine 3\n" },
  { name: "pkg/src/index.ts", data: "export const answer = 42\n" },
  { name: "pkg/src/util.ts", data: textOf(30, "util") },
  { name: "top.txt", data: "top level\n" },
  { name: "Alpha.md", data: "alpha\n" }
]

// -----------------------------------------------------------------------------
// Harness
// -----------------------------------------------------------------------------

const roots: Array<string> = []
afterAll(() => {
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true })
})

const project = (files: Readonly<Record<string, string | Uint8Array>>): string => {
  const root = tempDir("effect-read-archive-")
  roots.push(root)
  writeTree(root, files)
  return root
}

const readIn = (root: string, params: unknown) => readUnknown(params).pipe(Effect.provide(nodeLayer(root)))
const failIn = (root: string, params: ReadParams | unknown) => Effect.flip(readIn(root, params))
const readPath = (root: string, filePath: string) => readIn(root, { filePath })
const failPath = (root: string, filePath: string) => failIn(root, { filePath })

const filePage = (path: string, shown: ReadonlyArray<string>, footer: string) =>
  `<path>${path}</path>\n<type>file</type>\n<content>\n${shown.map((l) => `${l}\n`).join("")}\n${footer}\n</content>`

const archivePage = (path: string, entries: ReadonlyArray<string>, footer: ReadonlyArray<string>) =>
  `<path>${path}</path>\n<type>archive</type>\n<entries>\n${entries.map((e) => `${e}\n`).join("")}\n${
    footer.join("\n")
  }\n</entries>`

const numbered = (shown: ReadonlyArray<string>, first = 1) => shown.map((l, i) => `${first + i}: ${l}`)

/** Random bytes that are surely binary: random data lacks a NUL in its first 4 KB 1% of the time. */
const binaryBytes = (size: number) => Buffer.concat([Buffer.from([0]), crypto.randomBytes(size - 1)])

const expectArchiveError = (error: { readonly _tag: string; readonly message: string }, reason: RegExp | string) => {
  expect(error._tag).toBe("ArchiveError")
  if (typeof reason === "string") expect(error.message).toBe(reason)
  else expect(error.message).toMatch(reason)
}

/** `readArchive` (or a variant with other limits) called directly, as `read` dispatches to it. */
const direct = (
  root: string,
  archive: string,
  inner: string,
  params: { offset?: number; limit?: number } = {},
  run = readArchive
) =>
  Effect.gen(function*() {
    const fsys = yield* FileSystem.FileSystem
    const target = yield* resolveTarget(archive)
    const info = yield* fsys.stat(target.absolute)
    return yield* run({ target, info, inner, params })
  }).pipe(Effect.provide(nodeLayer(root)))

/** The Node filesystem, counting the bytes read through opened files. */
const countingLayer = (root: string, counter: { bytes: number }) => {
  const counting = Layer.effect(
    FileSystem.FileSystem,
    Effect.map(FileSystem.FileSystem, (inner): FileSystem.FileSystem => ({
      ...inner,
      open: (path, options) =>
        Effect.map(inner.open(path, options), (file) =>
          new Proxy(file, {
            get(target, property, receiver) {
              if (property === "read") {
                return (buffer: Uint8Array) =>
                  Effect.tap(target.read(buffer), (n) => Effect.sync(() => (counter.bytes += Number(n))))
              }
              const value = Reflect.get(target, property, receiver)
              return typeof value === "function" ? value.bind(target) : value
            }
          }))
    }))
  ).pipe(Layer.provide(NodeFileSystem.layer))
  const platform = Layer.merge(counting, NodePath.layer)
  return Layer.mergeAll(
    Workspace.layer({ directory: root, worktree: root, sessionId: "test" }),
    Permission.layerAllowAll,
    Lsp.layerRecording,
    FileTime.layerMemory
  ).pipe(Layer.provideMerge(platform))
}

/** The Node filesystem, where reads of `name` stall forever after `reads` reads of one descriptor. */
const stallingLayer = (root: string, name: string, reads: number, stalled: Deferred.Deferred<void>) => {
  const stalling = Layer.effect(
    FileSystem.FileSystem,
    Effect.map(FileSystem.FileSystem, (inner): FileSystem.FileSystem => ({
      ...inner,
      open: (path, options) =>
        Effect.map(inner.open(path, options), (file) => {
          let count = 0
          return new Proxy(file, {
            get(target, property, receiver) {
              if (property === "read" && path.endsWith(name)) {
                return (buffer: Uint8Array) =>
                  ++count > reads
                    ? Effect.zipRight(Deferred.succeed(stalled, undefined), Effect.never)
                    : target.read(buffer)
              }
              const value = Reflect.get(target, property, receiver)
              return typeof value === "function" ? value.bind(target) : value
            }
          })
        })
    }))
  ).pipe(Layer.provide(NodeFileSystem.layer))
  return Layer.mergeAll(
    Workspace.layer({ directory: root, worktree: root, sessionId: "test" }),
    Permission.layerAllowAll,
    Lsp.layerRecording,
    FileTime.layerMemory
  ).pipe(Layer.provideMerge(Layer.merge(stalling, NodePath.layer)))
}

// -----------------------------------------------------------------------------
// Tests
// -----------------------------------------------------------------------------

describe("zip listings", () => {
  it.effect("lists the root: directories with /, files with sizes, case-insensitive order", () =>
    Effect.gen(function*() {
      const root = project({ "a.zip": zip(PKG) })
      const result = yield* readPath(root, "a.zip")
      expect(result.output).toBe(
        archivePage(`${root}/a.zip`, ["Alpha.md (6 bytes)", "pkg/", "top.txt (10 bytes)"], ["(3 entries)"])
      )
      expect(result.title).toBe("a.zip")
      expect(result.metadata).toMatchObject({
        kind: "archive",
        path: `${root}/a.zip`,
        truncated: false,
        totalLines: 3,
        startLine: 1,
        endLine: 3
      })
      expect(result.metadata.preview).toBe("Alpha.md (6 bytes)\npkg/\ntop.txt (10 bytes)")
    }))

  it.effect("lists a nested directory synthesized from member paths, with or without a trailing /", () =>
    Effect.gen(function*() {
      const root = project({ "a.zip": zip(PKG) })
      const withSlash = yield* readPath(root, "a.zip:pkg/src/")
      expect(withSlash.output).toBe(
        archivePage(`${root}/a.zip:pkg/src/`, ["index.ts (25 bytes)", "util.ts (231 bytes)"], ["(2 entries)"])
      )
      expect(withSlash.title).toBe("a.zip:pkg/src/")
      const withoutSlash = yield* readPath(root, "a.zip:pkg/src")
      expect(withoutSlash.output).toBe(withSlash.output)
      const pkg = yield* readPath(root, "a.zip:pkg")
      expect(pkg.output).toBe(archivePage(`${root}/a.zip:pkg/`, ["README.md (31 bytes)", "src/"], ["(2 entries)"]))
    }))

  it.effect("explicit directory entries are listed once", () =>
    Effect.gen(function*() {
      const root = project({
        "d.zip": zip([{ name: "docs/" }, { name: "docs/a.txt", data: "a\n" }, { name: "empty/" }])
      })
      const result = yield* readPath(root, "d.zip")
      expect(result.output).toBe(archivePage(`${root}/d.zip`, ["docs/", "empty/"], ["(2 entries)"]))
      const empty = yield* readPath(root, "d.zip:empty/")
      expect(empty.output).toBe(archivePage(`${root}/d.zip:empty/`, [], ["(0 entries)"]))
    }))

  it.effect("pages a listing with offset/limit like directory listings", () =>
    Effect.gen(function*() {
      const names = Array.from({ length: 5 }, (_, i) => ({ name: `f${i + 1}.txt`, data: "x" }))
      const root = project({ "many.zip": zip(names) })
      const first = yield* readIn(root, { filePath: "many.zip", limit: 2 })
      expect(first.output).toBe(
        archivePage(`${root}/many.zip`, ["f1.txt (1 bytes)", "f2.txt (1 bytes)"], [
          "(Showing 2 of 5 entries. Use 'offset' parameter to read beyond entry 3)"
        ])
      )
      expect(first.metadata).toMatchObject({ truncated: true, nextOffset: 3, totalLines: 5 })
      const rest = yield* readIn(root, { filePath: "many.zip", offset: 4 })
      expect(rest.output).toBe(
        archivePage(`${root}/many.zip`, ["f4.txt (1 bytes)", "f5.txt (1 bytes)"], ["(5 entries)"])
      )
      const beyond = yield* failIn(root, { filePath: "many.zip", offset: 9 })
      expect(beyond._tag).toBe("OffsetOutOfRange")
      expect(beyond.message).toBe("Offset 9 is out of range for this directory (5 entries)")
    }))

  // torch's wheel lists 7,048 headers in torch/include/ATen/ops/: its first page was 89 KB.
  it.effect("a listing page stops at 50 KB of output; the pages that follow list every entry once", () =>
    Effect.gen(function*() {
      const names = Array.from(
        { length: 1500 },
        (_, i) => `${String(i).padStart(4, "0")}_${"native_function_op".repeat(3)}.h`
      )
      const root = project({ "ops.whl": zip(names.map((name) => ({ name: `include/ops/${name}`, data: "x" }))) })
      const { first, listed, shown } = yield* readCappedListing(
        (offset) => readIn(root, { filePath: "ops.whl:include/ops/", offset }),
        1500,
        (line) => line.endsWith(".h (1 bytes)")
      )
      expect(shown).toBeGreaterThan(500)
      expect(first.output).toBe(
        archivePage(`${root}/ops.whl:include/ops/`, names.slice(0, shown).map((name) => `${name} (1 bytes)`), [
          `(Output capped at 50 KB. Showing ${shown} of 1500 entries. Use 'offset' parameter to read beyond entry ${
            shown + 1
          })`
        ])
      )
      expect(listed).toEqual(names.map((name) => `${name} (1 bytes)`))
    }))

  it.effect("a selector after the archive applies to the root listing", () =>
    Effect.gen(function*() {
      const names = Array.from({ length: 5 }, (_, i) => ({ name: `f${i + 1}.txt`, data: "x" }))
      const root = project({ "many.zip": zip(names) })
      const from = yield* readPath(root, "many.zip:4")
      expect(from.output).toBe(
        archivePage(`${root}/many.zip`, ["f4.txt (1 bytes)", "f5.txt (1 bytes)"], ["(5 entries)"])
      )
      const window = yield* readPath(root, "many.zip:2-3")
      expect(window.output).toBe(
        archivePage(`${root}/many.zip`, ["f2.txt (1 bytes)", "f3.txt (1 bytes)"], [
          "(Showing 2 of 5 entries. Use 'offset' parameter to read beyond entry 4)"
        ])
      )
      const raw = yield* readPath(root, "many.zip:raw")
      expect(fieldsOf(raw).totalLines).toBe(5)
      const multi = yield* failPath(root, "many.zip:1-2,4-5")
      expect(multi._tag).toBe("InvalidSelector")
      expect(multi.message).toBe("Multi-range line selectors are not supported for archive directory listings.")
      const zero = yield* failPath(root, "many.zip:0")
      expect(zero.message).toBe("Line selector 0 is invalid; lines are 1-indexed. Use :1.")
    }))

  it.effect("an empty archive lists no entries", () =>
    Effect.gen(function*() {
      const root = project({ "empty.zip": zip([]), "empty.tar": yield* Effect.promise(() => tar([])) })
      const z = yield* readPath(root, "empty.zip")
      expect(z.output).toBe(archivePage(`${root}/empty.zip`, [], ["(Empty archive)", "(0 entries)"]))
      expect(z.metadata).toMatchObject({ kind: "archive", totalLines: 0, truncated: false })
      const t = yield* readPath(root, "empty.tar")
      expect(t.output).toBe(archivePage(`${root}/empty.tar`, [], ["(Empty archive)", "(0 entries)"]))
    }))
})

describe("zip members", () => {
  it.effect("reads a member with line numbers, title and metadata", () =>
    Effect.gen(function*() {
      const root = project({ "a.zip": zip(PKG) })
      const result = yield* readPath(root, "a.zip:pkg/README.md")
      expect(result.output).toBe(
        filePage(
          `${root}/a.zip:pkg/README.md`,
          numbered(["# Archive README", "Line 2", "Line 3"]),
          "(End of file - total 3 lines)"
        )
      )
      expect(result.title).toBe("a.zip:pkg/README.md")
      expect(result.metadata).toMatchObject({
        kind: "archive",
        path: `${root}/a.zip:pkg/README.md`,
        size: 31,
        totalLines: 3,
        encoding: "utf-8",
        finalNewline: true,
        truncated: false
      })
    }))

  it.effect("line selectors: :10-20, :N+K, :raw and :2-4:raw", () =>
    Effect.gen(function*() {
      const root = project({ "a.zip": zip(PKG) })
      const range = yield* readPath(root, "a.zip:pkg/src/util.ts:10-20")
      expect(range.output).toBe(
        filePage(
          `${root}/a.zip:pkg/src/util.ts`,
          numbered(lines(30, "util").slice(9, 20), 10),
          "(Showing lines 10-20 of 30. Use offset=21 to continue.)"
        )
      )
      expect(range.metadata).toMatchObject({ startLine: 10, endLine: 20, nextOffset: 21, truncated: true })
      const plus = yield* readPath(root, "a.zip:pkg/src/util.ts:28+5")
      expect(plus.output).toBe(
        filePage(
          `${root}/a.zip:pkg/src/util.ts`,
          numbered(["util 28", "util 29", "util 30"], 28),
          "(End of file - total 30 lines)"
        )
      )
      const raw = yield* readPath(root, "a.zip:pkg/README.md:raw")
      expect(raw.output).toBe(
        filePage(
          `${root}/a.zip:pkg/README.md`,
          ["# Archive README", "Line 2", "Line 3"],
          "(End of file - total 3 lines)"
        )
      )
      const rawRange = yield* readPath(root, "a.zip:pkg/src/util.ts:2-4:raw")
      expect(rawRange.output).toBe(
        filePage(
          `${root}/a.zip:pkg/src/util.ts`,
          ["util 2", "util 3", "util 4"],
          "(Showing lines 2-4 of 30. Use offset=5 to continue.)"
        )
      )
      const multi = yield* readPath(root, "a.zip:pkg/src/util.ts:1-2,29-30")
      expect(multi.output).toContain("1: util 1\n2: util 2\n…\n29: util 29\n30: util 30\n")
    }))

  it.effect("a member pages like a file: default limit, then offset/limit parameters", () =>
    Effect.gen(function*() {
      const root = project({ "big.zip": zip([{ name: "long.txt", data: textOf(2500) }]) })
      const first = yield* readPath(root, "big.zip:long.txt")
      expect(first.output.endsWith("(Showing lines 1-2000 of 2500. Use offset=2001 to continue.)\n</content>")).toBe(
        true
      )
      expect(first.metadata).toMatchObject({ nextOffset: 2001, truncated: true, totalLines: 2500 })
      // Explicit parameters, as `read` hands them to the archive source.
      const page = yield* direct(root, "big.zip", "long.txt", { offset: 2001, limit: 3 })
      expect(page.output).toBe(
        filePage(
          `${root}/big.zip:long.txt`,
          numbered(["line 2001", "line 2002", "line 2003"], 2001),
          "(Showing lines 2001-2003 of 2500. Use offset=2004 to continue.)"
        )
      )
      const last = yield* direct(root, "big.zip", "long.txt", { offset: 2499 })
      expect(last.output).toBe(
        filePage(
          `${root}/big.zip:long.txt`,
          numbered(["line 2499", "line 2500"], 2499),
          "(End of file - total 2500 lines)"
        )
      )
      const beyond = yield* Effect.flip(direct(root, "big.zip", "long.txt", { offset: 2600 }))
      expect(beyond._tag).toBe("OffsetOutOfRange")
      const both = yield* Effect.flip(direct(root, "big.zip", "long.txt:5", { offset: 2 }))
      expect(both._tag).toBe("InvalidParams")
    }))

  it.effect("a line selector past the end of a member is out of range", () =>
    Effect.gen(function*() {
      const root = project({ "a.zip": zip(PKG) })
      const error = yield* failPath(root, "a.zip:top.txt:50")
      expect(error._tag).toBe("OffsetOutOfRange")
      expect(error.message).toBe("Offset 50 is out of range for this file (1 line)")
    }))

  it.effect("a real member named like a selector wins (zip and tar)", () =>
    Effect.gen(function*() {
      const members = [{ name: "raw", data: "I am the raw member\n" }, { name: "2", data: "two\n" }, {
        name: "z.txt",
        data: "z\n"
      }]
      const root = project({ "s.zip": zip(members), "s.tar": yield* Effect.promise(() => tar(members)) })
      for (const archive of ["s.zip", "s.tar"]) {
        const raw = yield* readPath(root, `${archive}:raw`)
        expect(raw.output).toBe(
          filePage(`${root}/${archive}:raw`, ["1: I am the raw member"], "(End of file - total 1 lines)")
        )
        const two = yield* readPath(root, `${archive}:2`)
        expect(two.output).toBe(filePage(`${root}/${archive}:2`, ["1: two"], "(End of file - total 1 lines)"))
        const three = yield* readPath(root, `${archive}:3`)
        expect(three.output).toBe(archivePage(`${root}/${archive}`, ["z.txt (2 bytes)"], ["(3 entries)"]))
      }
    }))

  it.effect("a member whose name ends like a selector is read whole, not as a range", () =>
    Effect.gen(function*() {
      const root = project({
        "n.zip": zip([{ name: "notes:2", data: "a\nb\nc\n" }, { name: "notes", data: "x\ny\n" }])
      })
      const literal = yield* readPath(root, "n.zip:notes:2")
      expect(literal.output).toBe(
        filePage(`${root}/n.zip:notes:2`, numbered(["a", "b", "c"]), "(End of file - total 3 lines)")
      )
    }))

  it.effect("a missing member names up to 3 similar members", () =>
    Effect.gen(function*() {
      const root = project({ "a.zip": zip(PKG) })
      const error = yield* failPath(root, "a.zip:pkg/src/index.js")
      expectArchiveError(
        error,
        `Path 'pkg/src/index.js' not found inside archive ${root}/a.zip\n\nDid you mean one of these?\n${root}/a.zip:pkg/src/index.ts`
      )
      expect(error).toMatchObject({ path: `${root}/a.zip`, member: "pkg/src/index.js" })
      const byName = yield* failPath(root, "a.zip:util.ts")
      expect(byName.message).toContain(`${root}/a.zip:pkg/src/util.ts`)
      const nothing = yield* failPath(root, "a.zip:qqqqqq.bin")
      expect(nothing.message).toBe(`Path 'qqqqqq.bin' not found inside archive ${root}/a.zip`)
      const nested = yield* failPath(root, "a.zip:pkg/src/index.ts/more")
      expect(nested._tag).toBe("ArchiveError")
    }))

  // virtualenv's wheel embeds pip's: 'virtualenv-….whl:…/pip-26.0.1-py3-none-any.whl:pip/__init__.py' was
  // "not found" and suggested the inner wheel, whose read is a binary notice.
  it.effect("a path into an archive inside the archive says archives inside archives are not read", () =>
    Effect.gen(function*() {
      const inner = zip([{ name: "pip/__init__.py", data: "__version__ = '26.0.1'\n" }])
      const root = project({
        "outer.whl": zip([{ name: "embed/pip.whl", data: inner, method: 0 }, { name: "embed/notes.txt", data: "x\n" }])
      })
      const reason = (rest: string) =>
        `Archive member 'embed/pip.whl' is itself an archive; archives inside archives are not read, so '${rest}' inside it cannot be reached. Read ${root}/outer.whl:embed/pip.whl for what it is.`
      for (
        const [path, rest] of [["pip/__init__.py", "pip/__init__.py"], ["pip/__init__.py:1-5", "pip/__init__.py"], [
          "pip/",
          "pip"
        ]] as const
      ) {
        const error = yield* failPath(root, `outer.whl:embed/pip.whl:${path}`)
        expect(error._tag).toBe("ArchiveError")
        expect(error.message).toBe(reason(rest))
      }
      // A member that is not an archive keeps the not-found answer.
      expect((yield* failPath(root, "outer.whl:embed/notes.txt:more")).message).toContain(
        "Path 'embed/notes.txt:more' not found inside archive"
      )
    }))

  it.effect("a binary member is BinaryFile, word for word as the same bytes in a file of their own", () =>
    Effect.gen(function*() {
      // An ELF header and zeros.
      const binary = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]), Buffer.alloc(1252)])
      const root = project({ "b.zip": zip([{ name: "x.bin", data: binary }]), "x.bin": binary })
      const error = yield* failPath(root, "b.zip:x.bin")
      expect(error._tag).toBe("BinaryFile")
      expect(error).toMatchObject({ path: `${root}/b.zip:x.bin`, size: 1260 })
      const alone = yield* failPath(root, "x.bin")
      expect(error.message).toBe(alone.message.replace(`${root}/x.bin`, `${root}/b.zip:x.bin`))
      expect(error.message).toMatch(
        /^Cannot read binary file: .*\/b\.zip:x\.bin \(application\/x-elf \(\.elf\), 1\.2 KiB\)$/
      )
    }))

  it.effect("UTF-16 members are decoded like files", () =>
    Effect.gen(function*() {
      const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("héllo\nwörld\n", "utf16le")])
      const root = project({ "u.zip": zip([{ name: "u.txt", data: utf16 }]) })
      const result = yield* readPath(root, "u.zip:u.txt")
      expect(result.output).toBe(
        filePage(`${root}/u.zip:u.txt`, numbered(["héllo", "wörld"]), "(End of file - total 2 lines)")
      )
      expect(result.metadata).toMatchObject({ encoding: "utf-16le", bom: true })
    }))
})

describe("tar and tar.gz", () => {
  it.effect("lists and reads tar, tar.gz and tgz the same way", () =>
    Effect.gen(function*() {
      const tarBytes = yield* Effect.promise(() => tar(PKG))
      const root = project({ "p.tar": tarBytes, "p.tar.gz": zlib.gzipSync(tarBytes), "p.tgz": zlib.gzipSync(tarBytes) })
      for (const archive of ["p.tar", "p.tar.gz", "p.tgz"]) {
        const listing = yield* readPath(root, archive)
        expect(listing.output).toBe(
          archivePage(`${root}/${archive}`, ["Alpha.md (6 bytes)", "pkg/", "top.txt (10 bytes)"], ["(3 entries)"])
        )
        const src = yield* readPath(root, `${archive}:pkg/src/`)
        expect(src.output).toBe(
          archivePage(`${root}/${archive}:pkg/src/`, ["index.ts (25 bytes)", "util.ts (231 bytes)"], ["(2 entries)"])
        )
        const readme = yield* readPath(root, `${archive}:pkg/README.md:L1-L2`)
        expect(readme.output).toBe(
          filePage(
            `${root}/${archive}:pkg/README.md`,
            numbered(["# Archive README", "Line 2"]),
            "(Showing lines 1-2 of 3. Use offset=3 to continue.)"
          )
        )
        expect(readme.title).toBe(`${archive}:pkg/README.md`)
        const missing = yield* failPath(root, `${archive}:pkg/readme.md`)
        expect(missing.message).toContain(`${root}/${archive}:pkg/README.md`)
      }
    }))

  it.effect("symbolic links are listed with their target and not followed", () =>
    Effect.gen(function*() {
      const root = project({
        "l.tar": yield* Effect.promise(() =>
          tar([{ name: "real.txt", data: "real\n" }, { name: "link.txt", type: "symlink", linkname: "real.txt" }])
        )
      })
      const listing = yield* readPath(root, "l.tar")
      expect(listing.output).toBe(
        archivePage(`${root}/l.tar`, ["link.txt -> real.txt", "real.txt (5 bytes)"], ["(2 entries)"])
      )
      const error = yield* failPath(root, "l.tar:link.txt")
      expectArchiveError(
        error,
        `Archive member 'link.txt' is a symbolic link to 'real.txt'; links inside archives are not followed. Read ${root}/l.tar:real.txt instead.`
      )
    }))

  it.effect("a repeated member name: the later copy wins, in the listing and when read (tar extraction semantics)", () =>
    Effect.gen(function*() {
      const members = [
        { name: "notes.txt", data: "old version\n" },
        { name: "other.txt", data: "other\n" },
        { name: "notes.txt", data: "new version\nsecond line\n" },
        { name: "gone.txt", data: "a file at first\n" },
        { name: "gone.txt", type: "symlink" as const, linkname: "other.txt" }
      ]
      const tarBytes = yield* Effect.promise(() => tar(members))
      const root = project({
        "dup.tar": tarBytes,
        "dup.tgz": zlib.gzipSync(tarBytes),
        "dup.zip": zip(members.slice(0, 3))
      })
      const notice =
        "(2 entries repeat earlier paths; the last copy of each is listed and read, as extracting the archive would leave it.)"
      for (const archive of ["dup.tar", "dup.tgz"]) {
        const listing = yield* readPath(root, archive)
        expect(listing.output).toBe(
          archivePage(`${root}/${archive}`, ["gone.txt -> other.txt", "notes.txt (24 bytes)", "other.txt (6 bytes)"], [
            notice,
            "(3 entries)"
          ])
        )
        const notes = yield* readPath(root, `${archive}:notes.txt`)
        expect(notes.output).toBe(
          filePage(
            `${root}/${archive}:notes.txt`,
            ["1: new version", "2: second line"],
            "(End of file - total 2 lines)"
          )
        )
        expectArchiveError(
          yield* failPath(root, `${archive}:gone.txt`),
          /^Archive member 'gone\.txt' is a symbolic link to 'other\.txt'/
        )
      }
      const zipListing = yield* readPath(root, "dup.zip")
      expect(zipListing.output).toContain("notes.txt (24 bytes)\nother.txt (6 bytes)\n")
      expect((yield* readPath(root, "dup.zip:notes.txt")).output).toContain("1: new version\n2: second line\n")
    }))

  it.live("a directory entry with a size field (no data follows it) neither hangs nor shifts later members", () =>
    Effect.gen(function*() {
      // As CPython's testtar.tar `ustar/dirtype-with-size`: type 5, size 255, the next header right after it.
      const bytes = tarOf(
        tarMember({ name: "before.txt", data: "before\n" }),
        tarMember({ name: "dir-with-size/", type: "5", size: 255 }),
        tarMember({ name: "after.txt", data: "after\n" })
      )
      const root = project({ "d.tar": bytes, "d.tgz": zlib.gzipSync(bytes) })
      for (const archive of ["d.tar", "d.tgz"]) {
        const listing = yield* readPath(root, archive).pipe(Effect.timeout("20 seconds"))
        expect(listing.output).toBe(
          archivePage(`${root}/${archive}`, ["after.txt (6 bytes)", "before.txt (7 bytes)", "dir-with-size/"], [
            "(3 entries)"
          ])
        )
        const after = yield* readPath(root, `${archive}:after.txt`).pipe(Effect.timeout("20 seconds"))
        expect(after.output).toBe(
          filePage(`${root}/${archive}:after.txt`, ["1: after"], "(End of file - total 1 lines)")
        )
      }
    }))

  it.effect("a truncated tar.gz is a typed error", () =>
    Effect.gen(function*() {
      const big = crypto.randomBytes(200_000)
      const gz = zlib.gzipSync(
        yield* Effect.promise(() => tar([{ name: "a.txt", data: "a\n" }, { name: "r.bin", data: big }]))
      )
      const root = project({ "cut.tar.gz": gz.subarray(0, Math.floor(gz.length / 2)) })
      const error = yield* failPath(root, "cut.tar.gz")
      expectArchiveError(error, /^Invalid tar\.gz archive: the compressed data is truncated/)
      // A member before the cut is still read, and the answer says a later copy could not be looked for.
      const early = yield* readPath(root, "cut.tar.gz:a.txt")
      expect(early.output).toMatch(
        /^\(The archive is damaged after this member, so a later copy of it could not be looked for: Invalid tar\.gz archive: the compressed data is truncated .*\)\n<path>/
      )
      expect(early.output).toContain("<content>\n1: a\n")
    }))

  it.effect("a truncated or corrupt tar is a typed error", () =>
    Effect.gen(function*() {
      const bytes = yield* Effect.promise(() => tar([{ name: "a.txt", data: "x".repeat(5000) }]))
      const garbage = Buffer.from("this is not a tar archive at all\n".repeat(40))
      const root = project({ "cut.tar": bytes.subarray(0, 2048), "bad.tar": garbage, "bad.tgz": garbage })
      expectArchiveError(yield* failPath(root, "cut.tar"), /^Invalid tar archive: truncated/)
      // Text named like an archive reads as text; asking inside it says why it is not an archive.
      expect((yield* readPath(root, "bad.tar")).metadata.kind).toBe("text")
      expectArchiveError(
        yield* failPath(root, "bad.tar:a.txt"),
        "Invalid tar archive: the data does not start with a tar header (not a tar archive, or corrupt)"
      )
      expectArchiveError(
        yield* failPath(root, "bad.tgz:a.txt"),
        /^Invalid tar archive: the data does not start with a tar header/
      )
    }))

  it.effect("a compressed member over the ratio cap is refused while it inflates", () =>
    Effect.gen(function*() {
      const text = Buffer.alloc(20 * 1024 * 1024, 0x61)
      const gz = zlib.gzipSync(
        yield* Effect.promise(() => tar([{ name: "bomb.txt", data: text }, { name: "ok.txt", data: "ok\n" }]))
      )
      const root = project({ "bomb.tgz": gz })
      const error = yield* failPath(root, "bomb.tgz:bomb.txt")
      expectArchiveError(error, /^Archive member 'bomb\.txt' looks like a decompression bomb: .* over the 100:1 ratio/)
      expect(error).toMatchObject({ member: "bomb.txt" })
      // Listing only counts the stream: fine below the total cap.
      const listing = yield* readPath(root, "bomb.tgz")
      expect(listing.output).toContain("bomb.txt (20.0 MiB)")
    }))

  it.effect("a compressed tar that inflates past the total cap is refused", () =>
    Effect.gen(function*() {
      const gz = zlib.gzipSync(
        yield* Effect.promise(() => tar([{ name: "z.bin", data: Buffer.alloc(3 * 1024 * 1024) }]))
      )
      const root = project({ "big.tar.gz": gz })
      const small = readArchiveWith({ ...ARCHIVE_LIMITS, maxInflatedBytes: 1024 * 1024 })
      const error = yield* Effect.flip(direct(root, "big.tar.gz", "", {}, small))
      expectArchiveError(
        error,
        "Archive inflates to more than 1.0 MiB while streaming; refused as a possible decompression bomb"
      )
    }))

  it.effect("a tar member over the size cap is streamed: it reads page by page, and the member after it too", () =>
    Effect.gen(function*() {
      const root = project({
        "s.tar": yield* Effect.promise(() =>
          tar([{ name: "big.txt", data: textOf(400) }, { name: "after.txt", data: "after\n" }])
        )
      })
      const small = readArchiveWith({ ...ARCHIVE_LIMITS, maxMemberBytes: 1024 })
      const page = yield* direct(root, "s.tar", "big.txt", { offset: 300, limit: 2 }, small)
      expect(page.output).toContain(
        "300: line 300\n301: line 301\n\n(Showing lines 300-301 of at least 302; the total is not known without inflating all of the 3.4 KiB member (a negative offset reads its end). Use offset=302 to continue.)"
      )
      const fine = yield* direct(root, "s.tar", "after.txt", {}, small)
      expect(fine.output).toContain("1: after")
    }))
})

describe("zip under other names", () => {
  it.effect(".jar, .war, .apk, .vsix, .whl and .nupkg list and read as ZIP archives", () =>
    Effect.gen(function*() {
      const manifest = "Manifest-Version: 1.0\nMain-Class: app.Main\n"
      const archive = zip([{ name: "META-INF/MANIFEST.MF", data: manifest }, {
        name: "app/Main.class",
        data: binaryBytes(600)
      }])
      const names = ["a.jar", "a.war", "a.apk", "a.vsix", "a.whl", "a.nupkg"]
      const root = project(Object.fromEntries(names.map((name) => [`lib/${name}`, archive])))
      for (const name of names) {
        const listing = yield* readPath(root, `lib/${name}`)
        expect(listing.output).toBe(archivePage(`${root}/lib/${name}`, ["app/", "META-INF/"], ["(2 entries)"]))
        const member = yield* readPath(root, `lib/${name}:META-INF/MANIFEST.MF`)
        expect(member.output).toBe(
          filePage(
            `${root}/lib/${name}:META-INF/MANIFEST.MF`,
            numbered(["Manifest-Version: 1.0", "Main-Class: app.Main"]),
            "(End of file - total 2 lines)"
          )
        )
        const line = yield* readPath(root, `lib/${name}:META-INF/MANIFEST.MF:2`)
        expect(line.output).toContain("2: Main-Class: app.Main\n")
      }
    }))
})

/** gzip with the original name in its header (FNAME), as `gzip file` writes it. */
const gzipNamed = (data: string | Uint8Array, name: string): Buffer => {
  const plain = zlib.gzipSync(data)
  const header = Buffer.from(plain.subarray(0, 10))
  header[3] = 0x08
  return Buffer.concat([header, Buffer.from(`${name}\0`, "latin1"), plain.subarray(10)])
}

describe("plain gzip", () => {
  it.effect("a .gz reads as its one decompressed file: numbering, paging, selectors", () =>
    Effect.gen(function*() {
      const root = project({
        "logs/app.log.gz": zlib.gzipSync(textOf(2500)),
        "named.gz": gzipNamed("inside\n", "original.txt")
      })
      const first = yield* readPath(root, "logs/app.log.gz")
      expect(
        first.output.startsWith(
          `<path>${root}/logs/app.log.gz</path>\n<type>file</type>\n<content>\n1: line 1\n2: line 2\n`
        )
      )
        .toBe(true)
      expect(first.output.endsWith("(Showing lines 1-2000 of 2500. Use offset=2001 to continue.)\n</content>")).toBe(
        true
      )
      expect(first.title).toBe("logs/app.log.gz")
      expect(first.metadata).toMatchObject({ kind: "archive", totalLines: 2500, nextOffset: 2001, truncated: true })
      const page = yield* readIn(root, { filePath: "logs/app.log.gz", offset: 2499, limit: 5 })
      expect(page.output).toContain(
        "<content>\n2499: line 2499\n2500: line 2500\n\n(End of file - total 2500 lines)\n</content>"
      )
      const range = yield* readPath(root, "logs/app.log.gz:10-11")
      expect(range.output).toContain(
        "<content>\n10: line 10\n11: line 11\n\n(Showing lines 10-11 of 2500. Use offset=12 to continue.)"
      )
      // The file inside by its name: from the gzip header, else the .gz's name without .gz.
      expect((yield* readPath(root, "logs/app.log.gz:app.log:3")).output).toContain("<content>\n3: line 3\n")
      expect((yield* readPath(root, "named.gz:original.txt")).output).toContain("<content>\n1: inside\n")
      expectArchiveError(
        yield* failPath(root, "named.gz:other.txt"),
        `Path 'other.txt' not found inside ${root}/named.gz: a gzip file holds one file ('original.txt'); read ${root}/named.gz for its content, or ${root}/named.gz:1-50 for lines`
      )
    }))

  it.effect("the archive caps apply: size, ratio and binary content", () =>
    Effect.gen(function*() {
      const root = project({
        "bomb.gz": zlib.gzipSync(Buffer.alloc(8 * 1024 * 1024, 0x61)),
        "big.gz": zlib.gzipSync(crypto.randomBytes(300 * 1024).toString("hex")),
        "blob.gz": zlib.gzipSync(binaryBytes(100_000))
      })
      expectArchiveError(
        yield* failPath(root, "bomb.gz"),
        /^Archive member 'bomb' looks like a decompression bomb: [\d.]+ KiB compressed inflates to more than [\d.]+ MiB, over the 100:1 ratio/
      )
      // Past the size cap a text member is streamed rather than refused (see "streamed members").
      const small = readArchiveWith({ ...ARCHIVE_LIMITS, maxMemberBytes: 256 * 1024 })
      const streamed = yield* direct(root, "big.gz", "", {}, small)
      expect(streamed.output).toContain(
        "... (line truncated to 2000 chars; use offset=1 column=2001 to read more of it)\n\n(End of file - total 1 lines)"
      )
      const blob = yield* failPath(root, "blob.gz")
      expect(blob._tag).toBe("BinaryFile")
      expect(blob.message).toMatch(
        new RegExp(
          `^Cannot read binary file: ${root}/blob\\.gz \\(it compresses 'blob', unrecognised binary data starting with 00 `
        )
      )
    }))

  it.effect("a .gz holding a tar lists like .tar.gz; text named .gz reads as text; damage is a typed error", () =>
    Effect.gen(function*() {
      const tarBytes = yield* Effect.promise(() => tar(PKG))
      const gz = zlib.gzipSync(textOf(5000))
      const root = project({
        "bundle.gz": zlib.gzipSync(tarBytes),
        "notes.gz": "plain notes\n",
        "junk.gz": binaryBytes(2000),
        "cut.gz": gz.subarray(0, gz.length - 40),
        "empty.gz": ""
      })
      expect((yield* readPath(root, "bundle.gz")).output).toBe(
        archivePage(`${root}/bundle.gz`, ["Alpha.md (6 bytes)", "pkg/", "top.txt (10 bytes)"], ["(3 entries)"])
      )
      expect((yield* readPath(root, "bundle.gz:pkg/src/index.ts")).output).toContain("1: export const answer = 42\n")
      expect((yield* readPath(root, "notes.gz")).output).toContain("<content>\n1: plain notes\n")
      expectArchiveError(
        yield* failPath(root, "notes.gz:1"),
        `Not a gzip file: ${root}/notes.gz has a .gz name but holds text`
      )
      expectArchiveError(
        yield* failPath(root, "junk.gz"),
        `Not a gzip file: ${root}/junk.gz has a .gz name but does not start with gzip's signature`
      )
      expectArchiveError(yield* failPath(root, "cut.gz"), /^Invalid gzip file: the compressed data is truncated/)
      expectArchiveError(yield* failPath(root, "empty.gz"), "Invalid gzip file: the file is empty (0 bytes)")
    }))
})

describe("streamed members (past the member size cap)", () => {
  // 8 KB cap: the 3,000-line text (27 KB) is streamed page by page, as a 300 MB log is under the 64 MB cap.
  const capped = readArchiveWith({ ...ARCHIVE_LIMITS, maxMemberBytes: 8 * 1024 })
  const text = textOf(3000)
  const streamedRoot = Effect.promise(async () =>
    project({
      "app.log.gz": zlib.gzipSync(text),
      "logs.tar.gz": zlib.gzipSync(
        await tar([{ name: "app.log", data: text }, { name: "after.txt", data: "after\n" }])
      ),
      "utf16.log.gz": zlib.gzipSync(
        Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(textOf(2000, "ligne é"), "utf16le")])
      )
    })
  )
  const content = (output: string) => output.slice(output.indexOf("<content>\n") + 10, output.lastIndexOf("\n\n("))

  it.effect("a plain .gz: the first page, a deep page and the tail, with the footer saying the total is not known", () =>
    Effect.gen(function*() {
      const root = yield* streamedRoot
      const first = yield* direct(root, "app.log.gz", "", { limit: 3 }, capped)
      expect(first.output).toBe(filePage(
        `${root}/app.log.gz`,
        numbered(["line 1", "line 2", "line 3"]),
        `(Showing lines 1-3 of at least 4; the total is not known without inflating all of the ${
          (fs.statSync(`${root}/app.log.gz`).size / 1024).toFixed(1)
        } KiB gzip file (a negative offset reads its end). Use offset=4 to continue.)`
      ))
      expect(first.metadata).toMatchObject({ kind: "archive", truncated: true, totalLinesAtLeast: 4, nextOffset: 4 })
      expect(first.metadata).not.toHaveProperty("totalLines")
      const deep = yield* direct(root, "app.log.gz", "", { offset: 2500, limit: 2 }, capped)
      expect(content(deep.output)).toBe("2500: line 2500\n2501: line 2501")
      const tail = yield* direct(root, "app.log.gz", "", { offset: -2 }, capped)
      expect(tail.output).toContain("2999: line 2999\n3000: line 3000\n\n(Showing the last 2 lines: 2999-3000 of 3000.")
      expect(tail.metadata).toMatchObject({ totalLines: 3000 })
      const end = yield* direct(root, "app.log.gz", "", { offset: 2999 }, capped)
      expect(end.output).toContain("3000: line 3000\n\n(End of file - total 3000 lines)")
    }))

  it.effect("a .tar.gz member: streamed from where its data starts; the scan goes on past it", () =>
    Effect.gen(function*() {
      const root = yield* streamedRoot
      const page = yield* direct(root, "logs.tar.gz", "app.log", { offset: 1000, limit: 1 }, capped)
      expect(content(page.output)).toBe("1000: line 1000")
      expect(page.output).toContain(
        `the total is not known without inflating all of the ${(Buffer.byteLength(text) / 1024).toFixed(1)} KiB member`
      )
      const tail = yield* direct(root, "logs.tar.gz", "app.log", { offset: -1 }, capped)
      expect(content(tail.output)).toBe("3000: line 3000")
      expect(content((yield* direct(root, "logs.tar.gz", "after.txt", {}, capped)).output)).toBe("1: after")
    }))

  it.effect("UTF-16 with a BOM streams in its encoding", () =>
    Effect.gen(function*() {
      const root = yield* streamedRoot
      const page = yield* direct(root, "utf16.log.gz", "", { offset: 1999, limit: 1 }, capped)
      expect(content(page.output)).toBe("1999: ligne é 1999")
      expect(page.metadata).toMatchObject({ encoding: "utf-16le", bom: true })
    }))

  it.effect("views that need the whole text are refused with how to read it instead", () =>
    Effect.gen(function*() {
      const root = yield* streamedRoot
      const error = yield* Effect.flip(direct(root, "app.log.gz", "", { view: "outline" } as any, capped))
      expect(error._tag).toBe("InvalidParams")
      expect(error.message).toContain(
        "inflates to more than 8.0 KiB, so it is read page by page: view \"outline\" needs it whole"
      )
    }))

  // Within the output cap: near it, a tail in memory keeps the last lines by an estimate of their
  // size, a streamed one pages forward from the first and stops at the cap exactly.
  it.effect.prop("any page or tail within the output cap shows the lines the whole member in memory shows", [
    FastCheck.integer({ min: -1500, max: 3100 }),
    FastCheck.option(FastCheck.integer({ min: 1, max: 1500 }), { nil: undefined })
  ], ([offset, limit]) =>
    Effect.gen(function*() {
      const root = yield* streamedRoot
      const params = { offset, ...(limit === undefined ? {} : { limit }) }
      const [streamed, whole] = yield* Effect.all([
        Effect.either(direct(root, "app.log.gz", "", params, capped)),
        Effect.either(direct(root, "app.log.gz", "", params))
      ])
      expect(streamed._tag).toBe(whole._tag)
      if (streamed._tag === "Left" || whole._tag === "Left") {
        // Offsets past the end: the streamed read cannot know the total up front either.
        expect(streamed._tag === "Left" ? streamed.left._tag : "").toBe(whole._tag === "Left" ? whole.left._tag : "")
        return
      }
      expect(content(streamed.right.output)).toBe(content(whole.right.output))
      // A page that reached the end, or a tail, knows the total; it is the same.
      if (fieldsOf(streamed.right).totalLines !== undefined) expect(streamed.right.output).toBe(whole.right.output)
    }), { fastCheck: { numRuns: 40 } })
})

describe("unsafe paths", () => {
  it.effect("'..' and absolute paths in the request are refused", () =>
    Effect.gen(function*() {
      const root = project({ "a.zip": zip(PKG), "secret.txt": "secret\n" })
      expectArchiveError(
        yield* failPath(root, "a.zip:../secret.txt"),
        "Archive path cannot contain '..': '../secret.txt'. Paths inside an archive are relative to its root."
      )
      expectArchiveError(yield* failPath(root, "a.zip:pkg/../../secret.txt:1-2"), /^Archive path cannot contain '\.\.'/)
      // `read` normalises `a.zip:pkg/..` lexically before it reaches the archive; directly:
      expectArchiveError(yield* Effect.flip(direct(root, "a.zip", "pkg/..")), /^Archive path cannot contain '\.\.'/)
      expectArchiveError(yield* Effect.flip(direct(root, "a.zip", "..:2")), /^Archive path cannot contain '\.\.'/)
      expectArchiveError(
        yield* failPath(root, "a.zip:/etc/passwd"),
        `Archive path '/etc/passwd' is absolute; paths inside an archive are relative to its root (for example ${root}/a.zip:dir/file.txt)`
      )
    }))

  it.effect("entries with '..' or absolute paths are listed as refused and never resolved", () =>
    Effect.gen(function*() {
      const members = [
        { name: "../evil.txt", data: "evil\n" },
        { name: "/etc/passwd", data: "root:x:0:0\n" },
        { name: "ok/../../up.txt", data: "up\n" },
        { name: "good.txt", data: "good\n" }
      ]
      const root = project({ "e.zip": zip(members), "e.tar": yield* Effect.promise(() => tar(members)) })
      for (const archive of ["e.zip", "e.tar"]) {
        const listing = yield* readPath(root, archive)
        expect(listing.output).toBe(
          archivePage(`${root}/${archive}`, ["good.txt (5 bytes)"], [
            "(Refused 3 entries with unsafe paths; they are never read: '../evil.txt' (parent segment), '/etc/passwd' (absolute path), 'ok/../../up.txt' (parent segment).)",
            "(1 entry)"
          ])
        )
        const evil = yield* failPath(root, `${archive}:evil.txt`)
        expectArchiveError(evil, `Path 'evil.txt' not found inside archive ${root}/${archive}`)
        const passwd = yield* failPath(root, `${archive}:etc/passwd`)
        expect(passwd.message).toMatch(/^Path 'etc\/passwd' not found inside archive/)
      }
    }))
})

describe("zip refusals", () => {
  it.effect("an encrypted entry is listed as such and refused", () =>
    Effect.gen(function*() {
      const root = project({
        "enc.zip": zip([{ name: "secret.txt", data: "hidden\n", method: 0, flags: 1 }, {
          name: "plain.txt",
          data: "plain\n"
        }])
      })
      const listing = yield* readPath(root, "enc.zip")
      expect(listing.output).toBe(
        archivePage(`${root}/enc.zip`, ["plain.txt (6 bytes)", "secret.txt (7 bytes, encrypted)"], ["(2 entries)"])
      )
      const error = yield* failPath(root, "enc.zip:secret.txt")
      expectArchiveError(error, "Encrypted ZIP entries are not supported: 'secret.txt' is encrypted")
      expect(error).toMatchObject({ path: `${root}/enc.zip`, member: "secret.txt" })
      const plain = yield* readPath(root, "enc.zip:plain.txt")
      expect(plain.output).toContain("1: plain")
    }))

  it.effect("an unsupported compression method is refused by name", () =>
    Effect.gen(function*() {
      const root = project({ "m.zip": zip([{ name: "b.txt", data: "bzip\n", method: 12 }]) })
      expectArchiveError(
        yield* failPath(root, "m.zip:b.txt"),
        "Unsupported ZIP compression method: 12 (bzip2) for 'b.txt'; only stored (0) and deflate (8) entries can be read"
      )
    }))

  it.effect("corrupt archives: bad magic, truncation, damaged data", () =>
    Effect.gen(function*() {
      const good = zip(PKG)
      const damaged = zip([{ name: "s.txt", data: "stored text here\n", method: 0 }])
      damaged[30 + "s.txt".length + 2]! ^= 0xff
      const root = project({
        // Random bytes with a NUL: without one, 1% of draws would look like legacy-encoded text.
        "bad.zip": Buffer.concat([Buffer.from([0]), crypto.randomBytes(4095)]),
        "cut.zip": good.subarray(0, Math.floor(good.length / 2)),
        "damaged.zip": damaged,
        "empty.zip": ""
      })
      expectArchiveError(
        yield* failPath(root, "bad.zip"),
        "Invalid ZIP archive: missing end of central directory (not a ZIP file, or truncated)"
      )
      expectArchiveError(
        yield* failPath(root, "cut.zip:top.txt"),
        /^Invalid ZIP archive: missing end of central directory/
      )
      expectArchiveError(
        yield* failPath(root, "damaged.zip:s.txt"),
        "Invalid ZIP archive: CRC mismatch in 's.txt' (the data is corrupt)"
      )
      expectArchiveError(yield* failPath(root, "empty.zip"), "Invalid ZIP archive: the file is empty (0 bytes)")
    }))

  it.effect("a central directory pointing past the end of the file is truncation", () =>
    Effect.gen(function*() {
      const good = zip([{ name: "a.txt", data: crypto.randomBytes(5000), method: 0 }])
      // Cut the member's data but keep the central directory and end record.
      const directoryStart = good.readUInt32LE(good.length - 6)
      const cut = Buffer.concat([good.subarray(0, 1000), good.subarray(directoryStart)])
      cut.writeUInt32LE(1000, cut.length - 6)
      const root = project({ "t.zip": cut })
      expectArchiveError(yield* failPath(root, "t.zip:a.txt"), /^Invalid ZIP archive: truncated/)
    }))

  it.effect("a text file named .zip is read as text; asking for a member says it is not an archive", () =>
    Effect.gen(function*() {
      const root = project({ "notes.zip": "just some notes\nnot an archive\n" })
      const text = yield* readPath(root, "notes.zip")
      expect(text.output).toContain("<content>\n1: just some notes\n2: not an archive\n")
      expectArchiveError(
        yield* failPath(root, "notes.zip:x.txt"),
        `Not a ZIP archive: ${root}/notes.zip has a .zip name but holds text (no ZIP signature)`
      )
    }))

  it.effect("a decompression bomb (ratio over 100:1) is refused from its declared sizes", () =>
    Effect.gen(function*() {
      const root = project({
        "bomb.zip": zip([{ name: "zeros.txt", data: Buffer.alloc(8 * 1024 * 1024, 0x61) }, {
          name: "ok.txt",
          data: "ok\n"
        }])
      })
      const error = yield* failPath(root, "bomb.zip:zeros.txt")
      expectArchiveError(
        error,
        /^Archive member 'zeros\.txt' looks like a decompression bomb: [\d.]+ KiB compressed expands to 8\.0 MiB, over the 100:1 ratio allowed for members over 1\.0 MiB; refused$/
      )
      const listing = yield* readPath(root, "bomb.zip")
      expect(listing.output).toContain("zeros.txt (8.0 MiB)")
    }))

  it.effect("sizes are enforced while inflating when the headers lie", () =>
    Effect.gen(function*() {
      const root = project({
        "liar.zip": zip([{ name: "small.txt", data: Buffer.alloc(4 * 1024 * 1024, 0x61), declaredSize: 10 }])
      })
      expectArchiveError(
        yield* failPath(root, "liar.zip:small.txt"),
        /^Invalid ZIP archive: 'small\.txt' inflates past its declared size/
      )
      const capped = readArchiveWith({ ...ARCHIVE_LIMITS, maxMemberBytes: 1024 * 1024, maxRatio: 1_000_000 })
      const lying = project({
        "l.zip": zip([{ name: "big.txt", data: Buffer.alloc(3 * 1024 * 1024, 0x61), declaredSize: 1000 }])
      })
      const error = yield* Effect.flip(direct(lying, "l.zip", "big.txt", {}, capped))
      expectArchiveError(error, /^Invalid ZIP archive: 'big\.txt' inflates past its declared size/)
    }))

  it.effect("a member over the 64 MB cap is refused from its declared size", () =>
    Effect.gen(function*() {
      const root = project({ "huge.zip": zip([{ name: "huge.log", data: "tiny\n", declaredSize: 100 * 1024 * 1024 }]) })
      const error = yield* failPath(root, "huge.zip:huge.log")
      expectArchiveError(error, "Archive member 'huge.log' is too large to extract (100.0 MiB > 64.0 MiB limit)")
      const listing = yield* readPath(root, "huge.zip")
      expect(listing.output).toContain("huge.log (100.0 MiB)")
    }))
})

describe("streaming", () => {
  it.effect("a small zip member is read without reading the archive whole", () =>
    Effect.gen(function*() {
      const root = project({
        "big.zip": zip([
          { name: "blob.bin", data: binaryBytes(4 * 1024 * 1024), method: 0 },
          { name: "small.txt", data: "small\n" }
        ])
      })
      const counter = { bytes: 0 }
      const result = yield* read({ filePath: "big.zip:small.txt" }).pipe(Effect.provide(countingLayer(root, counter)))
      expect(result.output).toContain("1: small")
      expect(counter.bytes).toBeGreaterThan(0)
      expect(counter.bytes).toBeLessThan(256 * 1024)
      // The listing itself (called as `read` does; `read` also hashes small files for FileTime).
      const listing = { bytes: 0 }
      yield* Effect.gen(function*() {
        const fsys = yield* FileSystem.FileSystem
        const target = yield* resolveTarget("big.zip")
        const info = yield* fsys.stat(target.absolute)
        return yield* readArchive({ target, info, inner: "", params: {} })
      }).pipe(Effect.provide(countingLayer(root, listing)))
      expect(listing.bytes).toBeLessThan(256 * 1024)
    }))

  it.effect("a tar member is read without the data of other members; a tar.gz is inflated once, to its end", () =>
    Effect.gen(function*() {
      const tarBytes = yield* Effect.promise(() =>
        tar([
          { name: "before.bin", data: binaryBytes(2 * 1024 * 1024) },
          { name: "first.txt", data: "first\n" },
          { name: "blob.bin", data: binaryBytes(4 * 1024 * 1024) }
        ])
      )
      const gz = zlib.gzipSync(tarBytes)
      const root = project({ "big.tar": tarBytes, "big.tgz": gz })
      const plain = { bytes: 0 }
      const member = yield* read({ filePath: "big.tar:first.txt" }).pipe(Effect.provide(countingLayer(root, plain)))
      expect(member.output).toContain("1: first")
      expect(plain.bytes).toBeLessThan(512 * 1024)
      const listing = { bytes: 0 }
      yield* read({ filePath: "big.tar:2" }).pipe(Effect.provide(countingLayer(root, listing)))
      expect(listing.bytes).toBeLessThan(512 * 1024)
      // A later copy of the member could follow anywhere: the compressed stream is read to its end, once.
      const compressed = { bytes: 0 }
      const fromGz = yield* read({ filePath: "big.tgz:first.txt" }).pipe(
        Effect.provide(countingLayer(root, compressed))
      )
      expect(fromGz.output).toContain("1: first")
      expect(compressed.bytes).toBeLessThanOrEqual(2 * gz.length)
    }))

  it.effect("a binary member stops inflating after its first bytes", () =>
    Effect.gen(function*() {
      const blob = binaryBytes(4 * 1024 * 1024)
      const binaryHead = blob.subarray(0, 8)
      const root = project({ "bin.zip": zip([{ name: "blob.bin", data: blob, method: 0 }]) })
      const counter = { bytes: 0 }
      const error = yield* Effect.flip(
        read({ filePath: "bin.zip:blob.bin" }).pipe(Effect.provide(countingLayer(root, counter)))
      )
      expect(error.message).toBe(
        `Cannot read binary file: ${root}/bin.zip:blob.bin (.bin file, unrecognised binary data starting with ${
          [...binaryHead].map((byte) => byte.toString(16).padStart(2, "0")).join(" ")
        }, 4.0 MiB)`
      )
      expect(counter.bytes).toBeLessThan(512 * 1024)
    }))

  it.effect("reading the same archive concurrently is safe", () =>
    Effect.gen(function*() {
      const root = project({ "a.zip": zip(PKG) })
      const results = yield* Effect.forEach(
        ["a.zip:pkg/README.md", "a.zip:top.txt", "a.zip:pkg/src/util.ts:5", "a.zip"],
        (filePath) => readPath(root, filePath),
        { concurrency: "unbounded" }
      )
      expect(results.map((r) => r.title)).toEqual([
        "a.zip:pkg/README.md",
        "a.zip:top.txt",
        "a.zip:pkg/src/util.ts",
        "a.zip"
      ])
    }))
})

describe("path details", () => {
  it.effect("archives in subdirectories, backslashes and ./ segments", () =>
    Effect.gen(function*() {
      const root = project({ "dist/out.zip": zip(PKG) })
      const result = yield* readPath(root, "dist/out.zip:pkg\\src\\index.ts")
      expect(result.output).toBe(
        filePage(
          `${root}/dist/out.zip:pkg/src/index.ts`,
          ["1: export const answer = 42"],
          "(End of file - total 1 lines)"
        )
      )
      expect(result.title).toBe("dist/out.zip:pkg/src/index.ts")
      const dotted = yield* readPath(root, "dist/out.zip:./pkg//README.md")
      expect(dotted.metadata.path).toBe(`${root}/dist/out.zip:pkg/README.md`)
      expect(nodePath.isAbsolute(dotted.metadata.path)).toBe(true)
    }))
})

describe("other layers and limits", () => {
  it.effect("reads archives through MemoryFileSystem like through Node", () =>
    Effect.gen(function*() {
      const tarBytes = yield* Effect.promise(() => tar(PKG))
      const layer = memoryLayer({ "/project/a.zip": zip(PKG), "/project/p.tgz": zlib.gzipSync(tarBytes) })
      const listing = yield* read({ filePath: "a.zip:pkg/src" }).pipe(Effect.provide(layer))
      expect(listing.output).toBe(
        archivePage("/project/a.zip:pkg/src/", ["index.ts (25 bytes)", "util.ts (231 bytes)"], ["(2 entries)"])
      )
      const member = yield* read({ filePath: "p.tgz:pkg/src/util.ts:30" }).pipe(Effect.provide(layer))
      expect(member.output).toBe(
        filePage("/project/p.tgz:pkg/src/util.ts", ["30: util 30"], "(End of file - total 30 lines)")
      )
    }))

  it.effect("a pass that outlives its budget ends in a typed error, even when a read never returns", () =>
    Effect.gen(function*() {
      // Larger than what the registry reads whole (64 KB), so the archive is read from the file.
      const big = [...PKG, { name: "filler.txt", data: "x".repeat(100_000) }]
      const root = project({
        "slow.tar": yield* Effect.promise(() => tar(big)),
        "slow.zip": zip(big.map((member) => ({ ...member, method: 0 })))
      })
      for (const archive of ["slow.tar", "slow.zip"]) {
        const stalled = yield* Deferred.make<void>()
        const fiber = yield* Effect.fork(
          // The registry's look (the last bytes, the first 4 KB) and the archive's first read go through.
          Effect.flip(
            read({ filePath: `${archive}:top.txt` }).pipe(Effect.provide(stallingLayer(root, archive, 3, stalled)))
          )
        )
        yield* Deferred.await(stalled)
        // The test clock moves only when told: past the 60 s budget, then past the grace for the stuck read.
        for (let i = 0; i < 100 && (yield* Fiber.poll(fiber))._tag === "None"; i++) {
          yield* TestClock.adjust("1 second")
          yield* Effect.yieldNow()
        }
        expectArchiveError(
          yield* Fiber.join(fiber),
          "Reading the archive took longer than 60 s and was stopped; it may be damaged, or too large to list or search in time"
        )
      }
    }))

  it.effect("an archive with more entries than the index cap is listed in part, and says so", () =>
    Effect.gen(function*() {
      const names = Array.from({ length: 6 }, (_, i) => ({ name: `f${i + 1}.txt`, data: "x" }))
      const root = project({ "many.zip": zip(names) })
      const small = readArchiveWith({ ...ARCHIVE_LIMITS, maxEntries: 4 })
      const listing = yield* direct(root, "many.zip", "", {}, small)
      expect(listing.output).toBe(
        archivePage(`${root}/many.zip`, [
          "f1.txt (1 bytes)",
          "f2.txt (1 bytes)",
          "f3.txt (1 bytes)",
          "f4.txt (1 bytes)"
        ], [
          "(Indexed the first 4 entries of the archive; 2 more are not listed.)",
          "(4 entries)"
        ])
      )
      // A member past the cap is still found by path.
      const late = yield* direct(root, "many.zip", "f6.txt", {}, small)
      expect(late.output).toContain("1: x")
    }))
})
