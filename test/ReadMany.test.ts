/**
 * `read_many`: several files per call, each with its own checks and block, one shared budget.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import * as Permission from "../src/Permission.js"
import * as Read from "../src/Read.js"
import * as ReadMany from "../src/ReadMany.js"
import { fieldsOf, nodeLayer, tempDir, writeTree } from "./support/index.js"

const root = tempDir()
const lines = (n: number, width = 60) =>
  Array.from({ length: n }, (_, i) => `line ${i + 1} ${"x".repeat(width)}`).join("\n") + "\n"
writeTree(root, {
  "src/a.ts": "export const a = 1\n",
  "src/b.ts": "export const b = 2\n",
  "src/nested/c.ts": "export const c = 3\n",
  "src/ignored.ts": "ignored\n",
  ".gitignore": "src/ignored.ts\n",
  "node_modules/x/index.ts": "nope\n",
  "secret/key.txt": "hunter2\n",
  "image.bin": new Uint8Array([0, 1, 2, 3, 0, 0, 0, 255, 254, 0, 7, 0, 0, 0, 9]),
  "big1.txt": lines(2000),
  "big2.txt": lines(2000),
  "small.txt": "tiny\n",
  "many.py": Array.from(
    { length: 600 },
    (_, i) => `def step${i + 1}(value):\n    following = value + ${i}\n    return following * 2\n`
  ).join("\n"),
  "dir/one.txt": "1\n",
  "dir/two.txt": "2\n"
})
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

const denySecret = Permission.layerRules([
  { permission: "*", pattern: "*", action: "allow" },
  { permission: "read", pattern: "secret/*", action: "deny" }
])

const run = <A, E>(effect: Effect.Effect<A, E, Read.EffectRequirements>) =>
  effect.pipe(Effect.provide(nodeLayer(root, { permission: denySecret })))

describe("ReadMany.readMany", () => {
  it.effect("a denied, a missing and a binary member among good ones: each in place, the others read", () =>
    run(Effect.gen(function*() {
      const result = yield* ReadMany.readMany({
        files: [
          { filePath: "src/a.ts" },
          { filePath: "secret/key.txt" },
          { filePath: "src/missing-file.ts" },
          { filePath: "image.bin" },
          { filePath: "src/b.ts" }
        ]
      })
      expect(result.files.map((file) => file.error?._tag ?? "ok")).toEqual([
        "ok",
        "PermissionDenied",
        "FileNotFound",
        "BinaryFile",
        "ok"
      ])
      // Order preserved, each block in read's own format, the errors' messages in place.
      const a = yield* Read.read({ filePath: "src/a.ts" })
      const b = yield* Read.read({ filePath: "src/b.ts" })
      const blocks = result.output.split("\n\n<path>")
      expect(result.output.startsWith(a.output)).toBe(true)
      expect(result.output.endsWith(b.output)).toBe(true)
      expect(blocks).toHaveLength(5)
      for (const file of result.files.slice(1, 4)) {
        expect(result.output).toContain(file.error!.message)
      }
      expect(result.output.indexOf("secret/key.txt")).toBeLessThan(result.output.indexOf("missing-file"))
      expect(result.output).not.toContain("hunter2")
      expect(result.output).not.toContain("read_many shares")
    })))

  it.effect("the budget is split fairly: small files whole, big ones cut, each with a continuation", () =>
    run(Effect.gen(function*() {
      const result = yield* ReadMany.readMany({
        files: [{ filePath: "big1.txt" }, { filePath: "small.txt" }, { filePath: "big2.txt" }]
      })
      const bytes = Buffer.byteLength(result.output)
      expect(bytes).toBeLessThanOrEqual(50 * 1024)
      const small = yield* Read.read({ filePath: "small.txt" })
      expect(result.output).toContain(small.output)
      const [big1, , big2] = result.files
      expect(big1!.continueWith).toBeDefined()
      expect(big2!.continueWith).toBeDefined()
      // Fair: the two big files get about the same number of lines.
      const shown = (path: string) => {
        const block = result.output.split("<path>").find((b) => b.startsWith(nodePath.join(root, path)))!
        return block.split("\n").filter((line) => /^\d+: /.test(line)).length
      }
      expect(Math.abs(shown("big1.txt") - shown("big2.txt"))).toBeLessThanOrEqual(1)
      expect(shown("big1.txt")).toBeGreaterThan(100)
      // The continuation reads on from the first line not shown, up to where a lone read would end.
      const next = big1!.continueWith!
      // (A lone read of big1.txt ends at its own 50 KB cap, so the continuation needs no limit.)
      expect(next).toEqual({ filePath: nodePath.join(root, "big1.txt"), offset: shown("big1.txt") + 1 })
      // The file's metadata.next is that continuation, not the one after the page its read made.
      expect(fieldsOf({ metadata: big1!.metadata! }).next).toEqual(next)
      const continued = yield* Read.read(next)
      expect(fieldsOf(continued).startLine).toBe(shown("big1.txt") + 1)
      // The closing line names both cut files and how to continue each.
      const closing = result.output.split("\n").at(-1)!
      expect(closing).toMatch(/^\(read_many shares 50 KB of output between its files\. Cut: big1\.txt \(read filePath=/)
      expect(closing).toContain(`offset=${next.offset})`)
      expect(closing).toContain("big2.txt (read filePath=")
      expect(closing).not.toContain("small.txt")
    })))

  it.effect("a cut range continues up to the range's end, not past it", () =>
    run(Effect.gen(function*() {
      const result = yield* ReadMany.readMany({
        files: [{ filePath: "big1.txt:101-400" }, { filePath: "big2.txt", offset: 1, limit: 300 }]
      }).pipe(
        Effect.provideService(ReadMany.ReadManyLimits, {
          ...ReadMany.ReadManyLimits.defaultValue(),
          maxBytes: 20 * 1024
        })
      )
      expect(Buffer.byteLength(result.output)).toBeLessThanOrEqual(20 * 1024)
      const [first, second] = result.files
      const offset1 = first!.continueWith!.offset!
      expect(offset1).toBeGreaterThan(101)
      expect(first!.continueWith).toEqual({
        filePath: nodePath.join(root, "big1.txt"),
        offset: offset1,
        limit: 400 - offset1 + 1
      })
      const offset2 = second!.continueWith!.offset!
      expect(second!.continueWith).toEqual({
        filePath: nodePath.join(root, "big2.txt"),
        offset: offset2,
        limit: 300 - offset2 + 1
      })
      // The block shows exactly the lines before the continuation.
      expect(result.output).toContain(`\n${offset1 - 1}: line ${offset1 - 1} `)
      expect(result.output).not.toContain(`\n${offset1}: line ${offset1} `)
    })))

  it.effect("a cut read asked in an encoding or line format continues in it", () =>
    run(Effect.gen(function*() {
      const result = yield* ReadMany.readMany({
        files: [
          { filePath: "big1.txt", encoding: "windows-1252" },
          { filePath: "big2.txt", lineFormat: "hashline" }
        ]
      }).pipe(
        Effect.provideService(ReadMany.ReadManyLimits, {
          ...ReadMany.ReadManyLimits.defaultValue(),
          maxBytes: 20 * 1024
        })
      )
      const [first, second] = result.files
      expect(first!.continueWith).toMatchObject({ filePath: nodePath.join(root, "big1.txt"), encoding: "windows-1252" })
      expect(second!.continueWith).toMatchObject({ filePath: nodePath.join(root, "big2.txt"), lineFormat: "hashline" })
      expect(result.output.split("\n").at(-1)).toContain(`encoding="windows-1252")`)
      expect(result.output.split("\n").at(-1)).toContain(`lineFormat="hashline")`)
      // The continuation is a read: it shows the next lines the same way.
      const continued = yield* Read.read(second!.continueWith!)
      expect(fieldsOf(continued).lineFormat).toBe("hashline")
      expect(fieldsOf(continued).startLine).toBe(second!.continueWith!.offset)
    })))

  it.effect("a cut view continues as the same view, not as the file's lines", () =>
    run(Effect.gen(function*() {
      const result = yield* ReadMany.readMany({
        files: [{ filePath: "many.py", view: "outline" }, { filePath: "many.py:summary" }]
      }).pipe(
        Effect.provideService(ReadMany.ReadManyLimits, {
          ...ReadMany.ReadManyLimits.defaultValue(),
          maxBytes: 8 * 1024
        })
      )
      const [outline, summary] = result.files
      expect(fieldsOf(outline!)?.structure?.view).toBe("outline")
      expect(outline!.continueWith).toEqual({ filePath: "many.py", view: "outline" })
      expect(summary!.continueWith).toEqual({ filePath: "many.py:summary" })
      expect(result.output.split("\n").at(-1)).toContain(`many.py (read filePath="many.py" view="outline")`)
      const continued = yield* Read.read(outline!.continueWith!)
      expect(fieldsOf(continued).structure?.view).toBe("outline")
    })))

  it.effect("fairShares: what a small file leaves goes to the others", () =>
    Effect.sync(() => {
      expect(ReadMany.fairShares([10, 1000, 1000], 1000)).toEqual([10, 495, 495])
      expect(ReadMany.fairShares([10, 20], 1000)).toEqual([10, 20])
      expect(ReadMany.fairShares([600, 100, 600], 1000)).toEqual([450, 100, 450])
    }))

  it.effect("a glob: path order, .gitignore and node_modules left out, after the named files", () =>
    run(Effect.gen(function*() {
      const result = yield* ReadMany.readMany({ files: [{ filePath: "small.txt" }], glob: "src/**/*.ts" })
      expect(result.files.map((file) => file.filePath)).toEqual([
        "small.txt",
        "src/a.ts",
        "src/b.ts",
        "src/nested/c.ts"
      ])
    })))

  it.effect("a glob matching more than the cap shows the first files and says so", () =>
    Effect.gen(function*() {
      const result = yield* ReadMany.readMany({ glob: "**/*.ts" }).pipe(
        Effect.provideService(ReadMany.ReadManyLimits, { ...ReadMany.ReadManyLimits.defaultValue(), maxFiles: 2 })
      )
      expect(result.files.map((file) => file.filePath)).toEqual(["src/a.ts", "src/b.ts"])
      expect(result.output).toContain("(The glob matched more than 2 files")
    }).pipe(run))

  it.effect("bad calls are InvalidParams: too many files, nothing to read, a glob leaving the project", () =>
    run(Effect.gen(function*() {
      const tooMany = yield* Effect.either(
        ReadMany.readMany({ files: Array.from({ length: 21 }, () => ({ filePath: "small.txt" })) })
      )
      expect(Either.getLeft(tooMany).pipe((e) => e._tag === "Some" ? e.value.message : "")).toContain(
        "at most 20 files per call (got 21)"
      )
      const none = yield* Effect.either(ReadMany.readMany({}))
      expect(Either.isLeft(none) && none.left._tag).toBe("InvalidParams")
      const nothing = yield* Effect.either(ReadMany.readMany({ glob: "*.nothing" }))
      expect(Either.isLeft(nothing) && nothing.left.message).toContain("matched no files")
      const outside = yield* Effect.either(ReadMany.readMany({ glob: "../**/*.ts" }))
      expect(Either.isLeft(outside) && outside.left.message).toContain("leads outside the project")
      const badMember = yield* Effect.either(ReadMany.readMany({ files: [{ filePath: "a", offset: 1.5 }] }))
      expect(Either.isLeft(badMember) && badMember.left.message).toContain("files.0.offset")
    })))

  it.effect("a glob names nothing in a directory the session may not read: denied by a rule, or linked out of the project", () =>
    Effect.gen(function*() {
      const outside = tempDir()
      writeTree(outside, { "hidden-name.txt": "outside\n" })
      const project = tempDir()
      writeTree(project, { "private/hidden-too.txt": "private\n", "open/seen.txt": "seen\n" })
      fs.symlinkSync(outside, nodePath.join(project, "link-out"))
      const rules = Permission.layerRules([
        ...Permission.defaultRules,
        { permission: "read", pattern: "private", action: "deny" },
        { permission: "read", pattern: "private/*", action: "deny" }
      ])
      const inProject = <A, E>(effect: Effect.Effect<A, E, Read.EffectRequirements>) =>
        Effect.either(effect.pipe(Effect.provide(nodeLayer(project, { permission: rules }))))
      const everything = yield* inProject(ReadMany.readMany({ glob: "**/*" }))
      expect(Either.isRight(everything) && everything.right.output).toContain("seen\n")
      expect(Either.isRight(everything) && everything.right.output).toContain(
        "(The glob: 1 directory the session may not read was not searched.)"
      )
      const denied = yield* inProject(ReadMany.readMany({ glob: "private/**" }))
      expect(Either.isLeft(denied) && denied.left.message).toBe(
        "Invalid parameters: the glob \"private/**\" matched no files (1 directory the session may not read was not searched)"
      )
      const linked = yield* inProject(ReadMany.readMany({ glob: "link-out/**" }))
      expect(Either.isLeft(linked) && linked.left.message).toContain("leads outside the project")
      for (const answer of [everything, denied, linked]) {
        expect(JSON.stringify(answer)).not.toMatch(/hidden-name|hidden-too/)
      }
      // A session allowed outside lists it, as reading the directory would.
      const allowed = yield* Effect.either(
        ReadMany.readMany({ glob: "link-out/**" }).pipe(Effect.provide(nodeLayer(project)))
      )
      expect(Either.isRight(allowed) && allowed.right.output).toContain("1: outside")
      fs.rmSync(outside, { recursive: true, force: true })
      fs.rmSync(project, { recursive: true, force: true })
    }))

  it.effect("a directory is listed in its block; selectors work per file", () =>
    run(Effect.gen(function*() {
      const result = yield* ReadMany.readMany({ files: [{ filePath: "dir" }, { filePath: "big1.txt:3-4" }] })
      expect(result.output).toContain("<entries>\none.txt\ntwo.txt")
      expect(result.files[1]!.metadata).toMatchObject({ startLine: 3, endLine: 4 })
    })))

  it.effect("files outside the project: each asks its own permission", () =>
    Effect.gen(function*() {
      const outside = tempDir()
      writeTree(outside, { "o.txt": "outside\n" })
      const result = yield* ReadMany.readMany({
        files: [{ filePath: nodePath.join(outside, "o.txt") }, { filePath: "small.txt" }]
      }).pipe(
        Effect.provide(nodeLayer(root, {
          permission: Permission.layerRules([
            { permission: "*", pattern: "*", action: "allow" },
            { permission: "external_directory", pattern: "*", action: "deny" }
          ])
        }))
      )
      fs.rmSync(outside, { recursive: true, force: true })
      expect(result.files[0]!.error?._tag).toBe("PermissionDenied")
      expect(result.files[1]!.metadata?.kind).toBe("text")
    }))
})
