/**
 * A file that changes while it is read: the answer is the version that was opened, the new
 * version (read once more), or `FileChanged` — never an empty page called "End of file", never
 * `undefined` in the text, never a page that mixes two versions.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import * as Permission from "../src/Permission.js"
import { read, readUnknown } from "../src/Read.js"
import { memoryLayer, nodeLayer, tempDir, ustar, writeTree } from "./support/index.js"

const roots: Array<string> = []
afterAll(() => {
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true })
})

const project = (files: Readonly<Record<string, string | Uint8Array>> = {}): string => {
  const root = tempDir("effect-read-changes-")
  roots.push(root)
  writeTree(root, files)
  return root
}

type Change = (fs: FileSystem.FileSystem, path: string) => Effect.Effect<void, unknown>

/**
 * `read` over a FileSystem that applies `change` to a file right after the first `read` call
 * on a descriptor of it returns, for the first `times` descriptors opened on it.
 */
const readChanging = (params: unknown, change: Change, times: number) =>
  Effect.flatMap(FileSystem.FileSystem, (original) => {
    let left = times
    const wrapped: FileSystem.FileSystem = {
      ...original,
      open: (path, options) =>
        Effect.map(original.open(path, options), (file): FileSystem.File => {
          let armed = left-- > 0
          const fire = () => {
            if (!armed) return Effect.void
            armed = false
            return Effect.orDie(change(original, path))
          }
          return {
            ...file,
            fd: file.fd,
            stat: file.stat,
            seek: (offset, from) => file.seek(offset, from),
            read: (buffer) => Effect.tap(file.read(buffer), fire),
            readAlloc: (size) => Effect.tap(file.readAlloc(size), fire)
          }
        })
    }
    return readUnknown(params).pipe(Effect.provideService(FileSystem.FileSystem, wrapped))
  })

const truncate: Change = (fs, path) => fs.truncate(path, 0)
/** Each time to half its size: a file that keeps shrinking (rotation in progress). */
const halve: Change = (fs, path) => Effect.flatMap(fs.stat(path), (info) => fs.truncate(path, info.size / BigInt(2)))
const append: Change = (fs, path) =>
  Effect.scoped(
    Effect.flatMap(fs.open(path, { flag: "a" }), (file) => file.writeAll(new TextEncoder().encode("appended\n")))
  )
const replaceByRename: Change = (fs, path) =>
  fs.writeFileString(`${path}.new`, "the new version\n").pipe(Effect.zipRight(fs.rename(`${path}.new`, path)))

const LINES = 200_000
const bigLog = Array.from({ length: LINES }, (_, i) => `log line ${i + 1}`).join("\n") + "\n"

const honest = (output: string) => {
  expect(output).not.toMatch(/undefined|NaN/)
}

describe("a file truncated while it is read", () => {
  for (const [name, params] of [["first page", {}], ["deep page", { offset: 150_000, limit: 10 }]] as const) {
    it.effect(`${name}: shrinking on every open → FileChanged, saying what happened`, () =>
      Effect.gen(function*() {
        const root = project({ "app.log": bigLog })
        const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`
        const size = fs.statSync(nodePath.join(root, "app.log")).size
        const error = yield* Effect.flip(
          readChanging({ filePath: "app.log", ...params }, halve, Infinity).pipe(Effect.provide(nodeLayer(root)))
        )
        expect(error._tag).toBe("FileChanged")
        expect(error.message).toBe(
          `Cannot read ${root}/app.log: it shrank while it was being read (${mb(size)} → ${
            mb(Math.floor(size / 2))
          }). Read it again.`
        )
      }))

    it.effect(`${name}: truncated once → read once more, the new version told as it is`, () =>
      Effect.gen(function*() {
        const root = project({ "app.log": bigLog })
        const result = yield* Effect.either(
          readChanging({ filePath: "app.log", ...params }, truncate, 1).pipe(Effect.provide(nodeLayer(root)))
        )
        if (name === "first page") {
          if (result._tag === "Left") return expect.fail(result.left.message)
          honest(result.right.output)
          expect(result.right.output).toContain("(End of file - total 0 lines)")
          expect(result.right.metadata.size).toBe(0)
        } else {
          // The new version has no line 150,000.
          expect(result._tag === "Left" && result.left._tag).toBe("OffsetOutOfRange")
        }
      }))
  }

  it.effect("in memory too", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        readChanging({ filePath: "app.log", offset: 150_000, limit: 10 }, halve, Infinity).pipe(
          Effect.provide(memoryLayer({ "/project/app.log": bigLog }))
        )
      )
      expect(error._tag).toBe("FileChanged")
      honest(error.message)
    }))

  it.effect("an archive member: FileChanged, not a corrupt-archive error", () =>
    Effect.gen(function*() {
      const members = Array.from(
        { length: 40 },
        (_, i) => ({ name: `m${i}.txt`, content: `member ${i}\n`.repeat(2000) })
      )
      const root = project({ "bundle.tar": ustar(members) })
      // Unchanged, the member reads.
      const member = yield* read({ filePath: "bundle.tar:m39.txt", limit: 1 }).pipe(Effect.provide(nodeLayer(root)))
      expect(member.output).toContain("1: member 39")
      const error = yield* Effect.flip(
        readChanging({ filePath: "bundle.tar:m39.txt" }, halve, Infinity).pipe(Effect.provide(nodeLayer(root)))
      )
      expect(error._tag).toBe("FileChanged")
      expect(error.message).toContain("it shrank while it was being read")
    }))
})

describe("other changes", () => {
  it.effect("appended to while read: the version that was opened, with its own end", () =>
    Effect.gen(function*() {
      const root = project({ "grow.log": "one\ntwo\n" })
      const result = yield* readChanging({ filePath: "grow.log" }, append, Infinity).pipe(
        Effect.provide(nodeLayer(root))
      )
      expect(result.output).toContain("1: one\n2: two\n\n(End of file - total 2 lines)")
      expect(result.output).not.toContain("appended")
    }))

  it.effect("replaced by a rename while read: read once more, the new version whole", () =>
    Effect.gen(function*() {
      const root = project({ "config.txt": "the old version\n".repeat(5000) })
      const result = yield* readChanging({ filePath: "config.txt" }, replaceByRename, 1).pipe(
        Effect.provide(nodeLayer(root))
      )
      expect(result.output).toContain("1: the new version\n\n(End of file - total 1 lines)")
      expect(result.output).not.toContain("old version")
    }))

  it.effect("replaced on every read: FileChanged", () =>
    Effect.gen(function*() {
      const root = project({ "config.txt": "the old version\n".repeat(5000) })
      const error = yield* Effect.flip(
        readChanging({ filePath: "config.txt" }, replaceByRename, Infinity).pipe(Effect.provide(nodeLayer(root)))
      )
      expect(error.message).toBe(
        `Cannot read ${root}/config.txt: it was replaced while it was being read. Read it again.`
      )
    }))

  it.effect("a document shrinking under the conversion is FileChanged", () =>
    Effect.gen(function*() {
      const root = project({
        "notes.ipynb": JSON.stringify({
          cells: [{ cell_type: "markdown", source: ["# hi\n".repeat(5000)] }],
          metadata: {},
          nbformat: 4,
          nbformat_minor: 5
        })
      })
      const error = yield* Effect.flip(
        readChanging({ filePath: "notes.ipynb" }, halve, Infinity).pipe(Effect.provide(nodeLayer(root)))
      )
      expect(error._tag).toBe("FileChanged")
    }))

  it.effect("nothing is recorded in the ledger for a read that failed", () =>
    Effect.gen(function*() {
      const root = project({ "app.log": bigLog })
      const { FileTime } = yield* Effect.promise(() => import("../src/FileTime.js"))
      const recorded = yield* Effect.gen(function*() {
        // Emptied and stamped anew at every open: a later attempt that finds the file already
        // empty still sees it change (a truncation of an empty file can leave its mtime alone).
        let stamp = 0
        const emptyAndRestamp: Change = (fs, path) => {
          const when = new Date(1_000_000_000_000 + ++stamp * 1000)
          return Effect.zipRight(fs.truncate(path, 0), fs.utimes(path, when, when))
        }
        yield* Effect.flip(readChanging({ filePath: "app.log" }, emptyAndRestamp, Infinity))
        const ledger = yield* FileTime
        return yield* ledger.get("test", `${root}/app.log`)
      }).pipe(Effect.provide(nodeLayer(root)))
      expect(Option.isNone(recorded)).toBe(true)
    }))
})

describe("sizes that overstate the bytes (/sys reports 4096 for a short file)", () => {
  it.effect("a real /sys file reads to its end", () =>
    Effect.gen(function*() {
      const root = project()
      const result = yield* read({ filePath: "/sys/class/net/lo/address" }).pipe(
        Effect.provide(nodeLayer(root, { permission: Permission.layerAllowAll }))
      )
      expect(fs.statSync("/sys/class/net/lo/address").size).toBe(4096)
      expect(result.output).toContain("1: 00:00:00:00:00:00\n\n(End of file - total 1 lines)")
    }))

  it.effect("a file whose stat says more than it holds, on any filesystem: its bytes, not FileChanged", () =>
    Effect.gen(function*() {
      const root = project({ "short.txt": "one\ntwo\n", "page.ipynb": "not json\n" })
      const overstated = (info: FileSystem.File.Info): FileSystem.File.Info =>
        info.type === "File" ? { ...info, size: FileSystem.Size(Number(info.size) + 4000) } : info
      const readOverstated = (filePath: string) =>
        Effect.flatMap(
          FileSystem.FileSystem,
          (original) =>
            read({ filePath }).pipe(Effect.provideService(FileSystem.FileSystem, {
              ...original,
              stat: (path) => Effect.map(original.stat(path), overstated),
              open: (path, options) =>
                Effect.map(original.open(path, options), (file): FileSystem.File => ({
                  ...file,
                  fd: file.fd,
                  stat: Effect.map(file.stat, overstated),
                  seek: (offset, from) => file.seek(offset, from),
                  read: (buffer) => file.read(buffer),
                  readAlloc: (size) => file.readAlloc(size)
                }))
            }))
        ).pipe(Effect.provide(nodeLayer(root)))
      const text = yield* readOverstated("short.txt")
      expect(text.output).toContain("1: one\n2: two\n\n(End of file - total 2 lines)")
      const notebook = yield* readOverstated("page.ipynb")
      expect(notebook.output).toContain("1: not json")
    }))
})
