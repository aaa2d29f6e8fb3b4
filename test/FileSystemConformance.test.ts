/**
 * One suite, two layers: every case runs against `MemoryFileSystem.layer(fixture)` and against
 * `NodeFileSystem.layer` over the same fixture written to a fresh temp directory, so the
 * in-memory layer cannot drift from the real one. Each case gets a fresh fixture.
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import type * as PlatformError from "@effect/platform/Error"
import * as FileSystem from "@effect/platform/FileSystem"
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Context, Deferred, Effect, Exit, FastCheck, Fiber, Layer, Option, Stream } from "effect"
import type * as Scope from "effect/Scope"
import * as NFS from "node:fs"
import * as OS from "node:os"
import * as NodePath from "node:path"
import * as MemoryFileSystem from "../src/MemoryFileSystem.js"

/** The absolute directory the fixture lives in (differs per layer). */
class Root extends Context.Tag("test/Root")<Root, string>() {}

type Fixture = Readonly<Record<string, MemoryFileSystem.Entry>>

const HELLO = "hello\nworld\n"
const UTF8 = "héllo ✓ 😀\n"
const BINARY = Uint8Array.from({ length: 256 }, (_, i) => i)

const standardFixture = (root: string): Fixture => ({
  [`${root}/hello.txt`]: HELLO,
  [`${root}/utf8.txt`]: UTF8,
  [`${root}/empty.txt`]: "",
  [`${root}/bin.dat`]: BINARY,
  [`${root}/src/app.ts`]: "export const a = 1\n",
  [`${root}/src/lib/util.ts`]: "export const util = 2\n",
  [`${root}/emptydir`]: MemoryFileSystem.directory,
  [`${root}/link-file`]: MemoryFileSystem.symlink("hello.txt"),
  [`${root}/link-abs`]: MemoryFileSystem.symlink(`${root}/src/app.ts`),
  [`${root}/link-dir`]: MemoryFileSystem.symlink("src"),
  [`${root}/dangling`]: MemoryFileSystem.symlink("nowhere"),
  [`${root}/loop-a`]: MemoryFileSystem.symlink("loop-b"),
  [`${root}/loop-b`]: MemoryFileSystem.symlink("loop-a")
})

const writeFixture = (fixture: Fixture) => {
  for (const [path, entry] of Object.entries(fixture)) {
    NFS.mkdirSync(NodePath.dirname(path), { recursive: true })
    if (typeof entry === "string" || entry instanceof Uint8Array) NFS.writeFileSync(path, entry)
    else if (entry._tag === "Directory") NFS.mkdirSync(path, { recursive: true })
    else NFS.symlinkSync(entry.target, path)
  }
}

interface Target {
  readonly name: string
  readonly layer: (fixture: (root: string) => Fixture) => Layer.Layer<FileSystem.FileSystem | Root>
}

const targets: ReadonlyArray<Target> = [
  {
    name: "MemoryFileSystem",
    layer: (fixture) => Layer.merge(Layer.succeed(Root, "/project"), MemoryFileSystem.layer(fixture("/project")))
  },
  {
    name: "NodeFileSystem",
    layer: (fixture) =>
      Layer.merge(
        Layer.scoped(
          Root,
          Effect.acquireRelease(
            Effect.sync(() => {
              // realpath: the OS temp dir may itself sit behind a symlink (macOS /var).
              const root = NFS.realpathSync(NFS.mkdtempSync(NodePath.join(OS.tmpdir(), "fs-conformance-")))
              writeFixture(fixture(root))
              return root
            }),
            (root) => Effect.sync(() => NFS.rmSync(root, { recursive: true, force: true }))
          )
        ),
        NodeFileSystem.layer
      )
  }
]

// == helpers

type Case = Effect.Effect<void, PlatformError.PlatformError, FileSystem.FileSystem | Root | Scope.Scope>

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes)
const bytesOf = (s: string) => new TextEncoder().encode(s)

const concat = (chunks: Iterable<Uint8Array>) => {
  const all = Array.from(chunks)
  const out = new Uint8Array(all.reduce((n, c) => n + c.length, 0))
  let offset = 0
  for (const c of all) {
    out.set(c, offset)
    offset += c.length
  }
  return out
}

/** Fails unless `effect` fails with a `SystemError`; returns it with the root made portable. */
const systemError = <A>(effect: Effect.Effect<A, PlatformError.PlatformError, FileSystem.FileSystem | Root>) =>
  Effect.gen(function*() {
    const root = yield* Root
    const error = yield* Effect.matchEffect(effect, {
      onFailure: Effect.succeed,
      onSuccess: (value) => Effect.dieMessage(`expected a failure, got ${String(value)}`)
    })
    if (error._tag !== "SystemError") return yield* Effect.dieMessage(`expected a SystemError, got ${error._tag}`)
    return {
      reason: error.reason,
      method: error.method,
      message: error.message.replaceAll(root, "<root>")
    }
  })

const withFs = <A, E, R>(f: (fs: FileSystem.FileSystem, root: string) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(Effect.all([FileSystem.FileSystem, Root]), ([fs, root]) => f(fs, root))

// == cases

const cases: Record<string, Case> = {
  "stat: file, multibyte file, binary, empty file": withFs((fs, root) =>
    Effect.gen(function*() {
      const hello = yield* fs.stat(`${root}/hello.txt`)
      expect(hello.type).toBe("File")
      expect(hello.size).toBe(12n)
      expect(Option.isSome(hello.mtime)).toBe(true)
      expect(Option.isSome(hello.ino)).toBe(true)
      expect(typeof hello.dev).toBe("number")
      expect(hello.mode & 0o170000).toBe(0o100000)
      expect((yield* fs.stat(`${root}/utf8.txt`)).size).toBe(BigInt(Buffer.byteLength(UTF8)))
      expect((yield* fs.stat(`${root}/utf8.txt`)).size).toBe(16n)
      expect((yield* fs.stat(`${root}/bin.dat`)).size).toBe(256n)
      expect((yield* fs.stat(`${root}/empty.txt`)).size).toBe(0n)
    })
  ),
  "stat: directory": withFs((fs, root) =>
    Effect.gen(function*() {
      const info = yield* fs.stat(`${root}/src`)
      expect(info.type).toBe("Directory")
      expect(info.mode & 0o170000).toBe(0o040000)
      expect((yield* fs.stat(`${root}/emptydir`)).type).toBe("Directory")
      expect((yield* fs.stat(`${root}/src/`)).type).toBe("Directory")
    })
  ),
  "stat follows symlinks to files and directories": withFs((fs, root) =>
    Effect.gen(function*() {
      const file = yield* fs.stat(`${root}/link-file`)
      expect(file.type).toBe("File")
      expect(file.size).toBe(12n)
      expect((yield* fs.stat(`${root}/link-abs`)).size).toBe(19n)
      expect((yield* fs.stat(`${root}/link-dir`)).type).toBe("Directory")
      expect((yield* fs.stat(`${root}/link-dir/lib/util.ts`)).type).toBe("File")
    })
  ),
  "stat of a dangling symlink is NotFound": withFs((fs, root) =>
    Effect.gen(function*() {
      expect(yield* systemError(fs.stat(`${root}/dangling`))).toEqual({
        reason: "NotFound",
        method: "stat",
        message:
          "NotFound: FileSystem.stat (<root>/dangling): ENOENT: no such file or directory, stat '<root>/dangling'"
      })
    })
  ),
  "stat of a symlink loop is BadResource (ELOOP)": withFs((fs, root) =>
    Effect.gen(function*() {
      const error = yield* systemError(fs.stat(`${root}/loop-a`))
      expect(error.reason).toBe("BadResource")
      expect(error.message).toContain("ELOOP")
    })
  ),
  "realPath resolves a symlinked file and a symlinked parent directory": withFs((fs, root) =>
    Effect.gen(function*() {
      expect(yield* fs.realPath(`${root}/link-file`)).toBe(`${root}/hello.txt`)
      expect(yield* fs.realPath(`${root}/link-abs`)).toBe(`${root}/src/app.ts`)
      expect(yield* fs.realPath(`${root}/link-dir/lib/util.ts`)).toBe(`${root}/src/lib/util.ts`)
      expect(yield* fs.realPath(`${root}/src/lib/../app.ts`)).toBe(`${root}/src/app.ts`)
      expect(yield* fs.realPath(`${root}/link-dir/..`)).toBe(root)
    })
  ),
  "realPath of a dangling symlink or missing path is NotFound": withFs((fs, root) =>
    Effect.gen(function*() {
      expect((yield* systemError(fs.realPath(`${root}/dangling`))).reason).toBe("NotFound")
      expect((yield* systemError(fs.realPath(`${root}/missing`))).reason).toBe("NotFound")
      expect((yield* systemError(fs.realPath(`${root}/hello.txt/x`))).reason).toBe("BadResource")
    })
  ),
  "readLink returns the stored target; a non-link fails": withFs((fs, root) =>
    Effect.gen(function*() {
      expect(yield* fs.readLink(`${root}/link-file`)).toBe("hello.txt")
      expect(yield* fs.readLink(`${root}/link-abs`)).toBe(`${root}/src/app.ts`)
      expect(yield* fs.readLink(`${root}/dangling`)).toBe("nowhere")
      expect(yield* systemError(fs.readLink(`${root}/hello.txt`))).toEqual({
        reason: "Unknown",
        method: "readLink",
        message:
          "Unknown: FileSystem.readLink (<root>/hello.txt): EINVAL: invalid argument, readlink '<root>/hello.txt'"
      })
      expect((yield* systemError(fs.readLink(`${root}/missing`))).reason).toBe("NotFound")
    })
  ),
  "readDirectory lists names, through symlinks too": withFs((fs, root) =>
    Effect.gen(function*() {
      expect((yield* fs.readDirectory(root)).sort()).toEqual([
        "bin.dat",
        "dangling",
        "empty.txt",
        "emptydir",
        "hello.txt",
        "link-abs",
        "link-dir",
        "link-file",
        "loop-a",
        "loop-b",
        "src",
        "utf8.txt"
      ])
      expect((yield* fs.readDirectory(`${root}/link-dir`)).sort()).toEqual(["app.ts", "lib"])
      expect(yield* fs.readDirectory(`${root}/emptydir`)).toEqual([])
    })
  ),
  "readDirectory recursive descends into symlinked directories": withFs((fs, root) =>
    Effect.gen(function*() {
      expect((yield* fs.readDirectory(`${root}/src`, { recursive: true })).sort()).toEqual([
        "app.ts",
        "lib",
        "lib/util.ts"
      ])
      const all = (yield* fs.readDirectory(root, { recursive: true })).sort()
      expect(all).toContain("link-dir/lib/util.ts")
      expect(all).toContain("src/lib/util.ts")
      expect(all.length).toBe(18)
    })
  ),
  "readDirectory of a file or missing path fails": withFs((fs, root) =>
    Effect.gen(function*() {
      expect(yield* systemError(fs.readDirectory(`${root}/hello.txt`))).toEqual({
        reason: "BadResource",
        method: "readDirectory",
        message:
          "BadResource: FileSystem.readDirectory (<root>/hello.txt): ENOTDIR: not a directory, scandir '<root>/hello.txt'"
      })
      expect((yield* systemError(fs.readDirectory(`${root}/missing`))).reason).toBe("NotFound")
    })
  ),
  "a missing path is NotFound everywhere": withFs((fs, root) =>
    Effect.gen(function*() {
      const missing = `${root}/missing.txt`
      expect(yield* systemError(fs.readFile(missing))).toEqual({
        reason: "NotFound",
        method: "readFile",
        message:
          "NotFound: FileSystem.readFile (<root>/missing.txt): ENOENT: no such file or directory, open '<root>/missing.txt'"
      })
      for (
        const effect of [
          fs.stat(missing),
          fs.access(missing),
          fs.readFileString(missing),
          Effect.scoped(fs.open(missing)),
          Stream.runDrain(fs.stream(missing)),
          fs.utimes(missing, 1, 1),
          fs.chmod(missing, 0o644),
          fs.truncate(missing),
          fs.rename(missing, `${root}/other`),
          fs.copyFile(missing, `${root}/other`),
          fs.writeFileString(`${root}/no/such/dir.txt`, "x"),
          fs.makeDirectory(`${root}/no/such`)
        ]
      ) {
        expect((yield* systemError(effect)).reason).toBe("NotFound")
      }
    })
  ),
  "a path through a file, or a file with a trailing slash, is BadResource (ENOTDIR)": withFs((fs, root) =>
    Effect.gen(function*() {
      expect((yield* systemError(fs.stat(`${root}/hello.txt/x`))).reason).toBe("BadResource")
      expect((yield* systemError(fs.readFile(`${root}/hello.txt/x`))).reason).toBe("BadResource")
      expect((yield* systemError(fs.stat(`${root}/hello.txt/`))).reason).toBe("BadResource")
      expect((yield* systemError(fs.stat(`${root}/link-file/`))).reason).toBe("BadResource")
      expect((yield* systemError(fs.readFile(`${root}/hello.txt/`))).reason).toBe("BadResource")
      expect((yield* systemError(fs.exists(`${root}/hello.txt/x`))).reason).toBe("BadResource")
      // Node's realpath (a JS implementation) ignores a trailing slash after a file.
      expect(yield* fs.realPath(`${root}/link-file/`)).toBe(`${root}/hello.txt`)
    })
  ),
  "reading a directory as a file is BadResource (EISDIR)": withFs((fs, root) =>
    Effect.gen(function*() {
      expect(yield* systemError(fs.readFile(`${root}/src`))).toEqual({
        reason: "BadResource",
        method: "readFile",
        message: "BadResource: FileSystem.readFile (<root>/src): EISDIR: illegal operation on a directory, read"
      })
      expect((yield* systemError(fs.readFileString(`${root}/link-dir`))).reason).toBe("BadResource")
      expect((yield* systemError(Stream.runDrain(fs.stream(`${root}/src`)))).reason).toBe("BadResource")
      // Opening a directory read-only succeeds on Linux; reading from it does not.
      const dir = yield* fs.open(`${root}/src`)
      expect((yield* dir.stat).type).toBe("Directory")
      expect(yield* systemError(dir.readAlloc(10))).toMatchObject({ reason: "BadResource", method: "readAlloc" })
      expect((yield* systemError(Effect.scoped(fs.open(`${root}/src`, { flag: "r+" })))).reason).toBe("BadResource")
    })
  ),
  "readFile and readFileString return the bytes and text": withFs((fs, root) =>
    Effect.gen(function*() {
      expect(new Uint8Array(yield* fs.readFile(`${root}/bin.dat`))).toEqual(BINARY)
      expect(yield* fs.readFileString(`${root}/utf8.txt`)).toBe(UTF8)
      expect(yield* fs.readFileString(`${root}/link-file`)).toBe(HELLO)
      expect(yield* fs.readFileString(`${root}/empty.txt`)).toBe("")
    })
  ),
  "open: read in chunks, seek, readAlloc to EOF": withFs((fs, root) =>
    Effect.gen(function*() {
      const file = yield* fs.open(`${root}/hello.txt`)
      const buffer = new Uint8Array(5)
      expect(yield* file.read(buffer)).toBe(5n)
      expect(text(buffer)).toBe("hello")
      expect(yield* file.read(buffer)).toBe(5n)
      expect(text(buffer)).toBe("\nworl")
      expect(yield* file.read(buffer)).toBe(2n)
      expect(text(buffer.subarray(0, 2))).toBe("d\n")
      expect(yield* file.read(buffer)).toBe(0n)

      yield* file.seek(6, "start")
      expect(Option.map(yield* file.readAlloc(5), text)).toEqual(Option.some("world"))
      yield* file.seek(-5, "current")
      expect(Option.map(yield* file.readAlloc(5), text)).toEqual(Option.some("world"))
      const tail = yield* file.readAlloc(100)
      expect(Option.map(tail, (bytes) => bytes.length)).toEqual(Option.some(1))
      expect(yield* file.readAlloc(100)).toEqual(Option.none())
      yield* file.seek(100, "start")
      expect(yield* file.read(buffer)).toBe(0n)
      expect((yield* file.stat).size).toBe(12n)
    })
  ),
  "open: a read-only handle cannot write or truncate": withFs((fs, root) =>
    Effect.gen(function*() {
      const file = yield* fs.open(`${root}/hello.txt`)
      expect(yield* systemError(file.write(bytesOf("x")))).toMatchObject({ reason: "Unknown", method: "write" })
      expect(yield* systemError(file.truncate(1))).toMatchObject({ reason: "Unknown", method: "truncate" })
      const writeOnly = yield* fs.open(`${root}/hello.txt`, { flag: "a" })
      expect(yield* systemError(writeOnly.readAlloc(4))).toMatchObject({ reason: "Unknown", method: "readAlloc" })
      expect(yield* fs.readFileString(`${root}/hello.txt`)).toBe(HELLO)
    })
  ),
  "open: write, writeAll, seek, truncate, append": withFs((fs, root) =>
    Effect.gen(function*() {
      const path = `${root}/out.txt`
      const file = yield* fs.open(path, { flag: "w+" })
      yield* file.writeAll(bytesOf("abc"))
      expect(yield* file.write(bytesOf("de"))).toBe(2n)
      expect((yield* file.stat).size).toBe(5n)
      yield* file.seek(1, "start")
      expect(Option.map(yield* file.readAlloc(10), text)).toEqual(Option.some("bcde"))
      yield* file.truncate(2)
      expect((yield* file.stat).size).toBe(2n)
      yield* file.seek(1, "start")
      yield* file.writeAll(bytesOf("X"))
      expect(yield* fs.readFileString(path)).toBe("aX")

      const appender = yield* fs.open(path, { flag: "a" })
      yield* appender.writeAll(bytesOf("!"))
      yield* appender.writeAll(bytesOf("?"))
      expect(yield* fs.readFileString(path)).toBe("aX!?")
      expect((yield* systemError(Effect.scoped(fs.open(path, { flag: "wx" })))).reason).toBe("AlreadyExists")
    })
  ),
  "stream: chunks, offset and bytesToRead": withFs((fs, root) =>
    Effect.gen(function*() {
      const chunks = yield* Stream.runCollect(fs.stream(`${root}/hello.txt`, { chunkSize: 5 }))
      expect(Chunk.toReadonlyArray(Chunk.map(chunks, (c) => c.length))).toEqual([5, 5, 2])
      expect(text(concat(chunks))).toBe(HELLO)
      const window = yield* Stream.runCollect(fs.stream(`${root}/hello.txt`, { offset: 6, bytesToRead: 5 }))
      expect(text(concat(window))).toBe("world")
      expect(concat(yield* Stream.runCollect(fs.stream(`${root}/bin.dat`, { chunkSize: 7 })))).toEqual(BINARY)
      expect(Chunk.size(yield* Stream.runCollect(fs.stream(`${root}/empty.txt`)))).toBe(0)
    })
  ),
  "writeFileString then stat sees the new size and an mtime": withFs((fs, root) =>
    Effect.gen(function*() {
      const path = `${root}/hello.txt`
      yield* fs.writeFileString(path, "héllo")
      const info = yield* fs.stat(path)
      expect(info.size).toBe(6n)
      expect(Option.isSome(info.mtime)).toBe(true)
      expect(yield* fs.readFileString(path)).toBe("héllo")
      // Writing through a symlink writes its target.
      yield* fs.writeFile(`${root}/link-file`, bytesOf("via link"))
      expect(yield* fs.readFileString(path)).toBe("via link")
      yield* fs.writeFileString(`${root}/new.txt`, "new")
      expect((yield* fs.stat(`${root}/new.txt`)).type).toBe("File")
      expect((yield* systemError(fs.writeFileString(`${root}/new.txt`, "x", { flag: "wx" }))).reason).toBe(
        "AlreadyExists"
      )
      expect((yield* systemError(fs.writeFileString(`${root}/src`, "x"))).reason).toBe("BadResource")
    })
  ),
  "utimes sets mtime": withFs((fs, root) =>
    Effect.gen(function*() {
      const mtime = new Date("2020-02-02T02:02:02.000Z")
      yield* fs.utimes(`${root}/hello.txt`, new Date("2019-01-01T00:00:00.000Z"), mtime)
      expect(Option.map((yield* fs.stat(`${root}/hello.txt`)).mtime, (d) => d.getTime())).toEqual(
        Option.some(mtime.getTime())
      )
      // Numbers are seconds, as in Node.
      yield* fs.utimes(`${root}/hello.txt`, 1_600_000_000, 1_600_000_000)
      expect(Option.map((yield* fs.stat(`${root}/hello.txt`)).mtime, (d) => d.getTime())).toEqual(
        Option.some(1_600_000_000_000)
      )
    })
  ),
  "remove: files, links (not their targets), directories": withFs((fs, root) =>
    Effect.gen(function*() {
      yield* fs.remove(`${root}/hello.txt`)
      expect(yield* fs.exists(`${root}/hello.txt`)).toBe(false)
      yield* fs.remove(`${root}/dangling`)
      yield* fs.remove(`${root}/link-dir`, { recursive: true })
      expect(yield* fs.readDirectory(`${root}/src`)).toHaveLength(2)
      expect(yield* systemError(fs.remove(`${root}/src`))).toMatchObject({ reason: "Unknown", method: "remove" })
      yield* fs.remove(`${root}/src`, { recursive: true })
      expect(yield* fs.exists(`${root}/src`)).toBe(false)
      expect((yield* fs.readDirectory(root)).sort()).toEqual([
        "bin.dat",
        "empty.txt",
        "emptydir",
        "link-abs",
        "link-file",
        "loop-a",
        "loop-b",
        "utf8.txt"
      ])
      expect((yield* systemError(fs.remove(`${root}/missing`))).reason).toBe("NotFound")
      yield* fs.remove(`${root}/missing`, { force: true })
      expect((yield* systemError(fs.remove(`${root}/utf8.txt/x`, { force: true }))).reason).toBe("BadResource")
    })
  ),
  "rename: files and directories, and the refusals of rename(2)": withFs((fs, root) =>
    Effect.gen(function*() {
      yield* fs.rename(`${root}/hello.txt`, `${root}/renamed.txt`)
      expect(yield* fs.exists(`${root}/hello.txt`)).toBe(false)
      expect(yield* fs.readFileString(`${root}/renamed.txt`)).toBe(HELLO)
      yield* fs.rename(`${root}/renamed.txt`, `${root}/utf8.txt`)
      expect(yield* fs.readFileString(`${root}/utf8.txt`)).toBe(HELLO)
      yield* fs.rename(`${root}/src`, `${root}/emptydir`)
      expect((yield* fs.readDirectory(`${root}/emptydir`)).sort()).toEqual(["app.ts", "lib"])
      expect(yield* fs.realPath(`${root}/link-dir`).pipe(Effect.exit)).toSatisfy(Exit.isFailure)

      expect((yield* systemError(fs.rename(`${root}/utf8.txt`, `${root}/emptydir`))).reason).toBe("BadResource")
      expect((yield* systemError(fs.rename(`${root}/emptydir`, `${root}/utf8.txt`))).reason).toBe("BadResource")
      yield* fs.makeDirectory(`${root}/other`)
      expect(yield* systemError(fs.rename(`${root}/other`, `${root}/emptydir`))).toMatchObject({ reason: "Unknown" })
      expect(yield* systemError(fs.rename(`${root}/emptydir`, `${root}/emptydir/lib/inner`))).toMatchObject({
        reason: "Unknown"
      })
      expect((yield* fs.readDirectory(`${root}/emptydir/lib`)).sort()).toEqual(["util.ts"])
    })
  ),
  "makeDirectory: recursive, existing, over a file": withFs((fs, root) =>
    Effect.gen(function*() {
      yield* fs.makeDirectory(`${root}/a/b/c`, { recursive: true })
      expect((yield* fs.stat(`${root}/a/b/c`)).type).toBe("Directory")
      yield* fs.makeDirectory(`${root}/a/b/c`, { recursive: true })
      yield* fs.makeDirectory(`${root}/link-dir/new`, { recursive: true })
      expect(yield* fs.exists(`${root}/src/new`)).toBe(true)
      expect((yield* systemError(fs.makeDirectory(`${root}/a`))).reason).toBe("AlreadyExists")
      expect((yield* systemError(fs.makeDirectory(`${root}/hello.txt`, { recursive: true }))).reason).toBe(
        "AlreadyExists"
      )
      expect((yield* systemError(fs.makeDirectory(`${root}/hello.txt/x`, { recursive: true }))).reason).toBe(
        "BadResource"
      )
    })
  ),
  "exists and access": withFs((fs, root) =>
    Effect.gen(function*() {
      for (const name of ["hello.txt", "src", "link-file", "link-dir", "emptydir"]) {
        expect(yield* fs.exists(`${root}/${name}`)).toBe(true)
      }
      expect(yield* fs.exists(`${root}/missing`)).toBe(false)
      expect(yield* fs.exists(`${root}/dangling`)).toBe(false)
      yield* fs.access(`${root}/hello.txt`, { readable: true })
      expect((yield* systemError(fs.access(`${root}/dangling`))).reason).toBe("NotFound")
    })
  ),
  "copy copies a tree": withFs((fs, root) =>
    Effect.gen(function*() {
      yield* fs.copy(`${root}/src`, `${root}/src-copy`)
      expect((yield* fs.readDirectory(`${root}/src-copy`, { recursive: true })).sort()).toEqual([
        "app.ts",
        "lib",
        "lib/util.ts"
      ])
      expect(yield* fs.readFileString(`${root}/src-copy/lib/util.ts`)).toBe("export const util = 2\n")
    })
  ),
  "copyFile, symlink, chmod, truncate": withFs((fs, root) =>
    Effect.gen(function*() {
      yield* fs.copyFile(`${root}/hello.txt`, `${root}/copy.txt`)
      expect(yield* fs.readFileString(`${root}/copy.txt`)).toBe(HELLO)
      expect((yield* systemError(fs.copyFile(`${root}/src`, `${root}/copy-dir`))).reason).toBe("BadResource")

      yield* fs.symlink("copy.txt", `${root}/copy-link`)
      expect(yield* fs.readLink(`${root}/copy-link`)).toBe("copy.txt")
      expect(yield* fs.readFileString(`${root}/copy-link`)).toBe(HELLO)
      expect((yield* systemError(fs.symlink("x", `${root}/copy-link`))).reason).toBe("AlreadyExists")

      yield* fs.chmod(`${root}/copy.txt`, 0o600)
      expect((yield* fs.stat(`${root}/copy.txt`)).mode & 0o777).toBe(0o600)

      yield* fs.truncate(`${root}/copy.txt`, 3)
      expect(yield* fs.readFileString(`${root}/copy.txt`)).toBe("hel")
      yield* fs.truncate(`${root}/copy.txt`)
      expect((yield* fs.stat(`${root}/copy.txt`)).size).toBe(0n)
      expect((yield* systemError(fs.truncate(`${root}/src`))).reason).toBe("BadResource")
    })
  ),
  "makeTempDirectoryScoped and makeTempFileScoped clean up after their scope": withFs((fs, root) =>
    Effect.gen(function*() {
      const directory = yield* Effect.scoped(
        Effect.tap(
          fs.makeTempDirectoryScoped({ directory: root, prefix: "tmp-" }),
          (directory) =>
            Effect.gen(function*() {
              expect(directory.startsWith(`${root}/tmp-`)).toBe(true)
              const info = yield* fs.stat(directory)
              expect(info.type).toBe("Directory")
              expect(info.mode & 0o777).toBe(0o700)
              yield* fs.writeFileString(`${directory}/inside.txt`, "x")
            })
        )
      )
      expect(yield* fs.exists(directory)).toBe(false)

      const file = yield* Effect.scoped(
        Effect.tap(fs.makeTempFileScoped({ directory: root, suffix: ".txt" }), (file) =>
          Effect.gen(function*() {
            expect(file.endsWith(".txt")).toBe(true)
            expect((yield* fs.stat(file)).size).toBe(0n)
          }))
      )
      expect(yield* fs.exists(file)).toBe(false)
      expect(yield* fs.exists(NodePath.dirname(file))).toBe(false)
    })
  )
}

for (const target of targets) {
  describe(`FileSystem conformance: ${target.name}`, () => {
    for (const [name, test] of Object.entries(cases)) {
      it.scoped(name, () => Effect.provide(test, target.layer(standardFixture)))
    }

    it.scoped.prop(
      "open + chunked read reproduces arbitrary bytes",
      { bytes: FastCheck.uint8Array({ maxLength: 4096 }), chunkSize: FastCheck.integer({ min: 1, max: 600 }) },
      ({ bytes, chunkSize }) =>
        withFs((fs, root) =>
          Effect.gen(function*() {
            const file = yield* fs.open(`${root}/data.bin`)
            const chunks: Array<Uint8Array> = []
            while (true) {
              const buffer = new Uint8Array(chunkSize)
              const read = Number(yield* file.read(buffer))
              if (read === 0) break
              chunks.push(buffer.subarray(0, read))
            }
            expect(concat(chunks)).toEqual(bytes)
            const streamed = yield* Stream.runCollect(fs.stream(`${root}/data.bin`, { chunkSize }))
            expect(concat(streamed)).toEqual(bytes)
          })
        ).pipe(Effect.provide(target.layer((root) => ({ [`${root}/data.bin`]: bytes })))),
      { fastCheck: { numRuns: 50 } }
    )
  })
}

// == MemoryFileSystem only

describe("MemoryFileSystem", () => {
  it.effect("make builds a standalone FileSystem", () =>
    Effect.gen(function*() {
      const fs = yield* MemoryFileSystem.make({ "/a/b.txt": "b" })
      expect(yield* fs.readFileString("/a/b.txt")).toBe("b")
      expect(yield* fs.readDirectory("/")).toEqual(["a"])
      // Relative paths resolve against "/".
      expect(yield* fs.readFileString("a/b.txt")).toBe("b")
    }))

  it.scoped("makeTempDirectory defaults to os.tmpdir(), created on demand", () =>
    Effect.gen(function*() {
      const fs = yield* MemoryFileSystem.make({})
      const directory = yield* fs.makeTempDirectoryScoped()
      expect(NodePath.dirname(directory)).toBe(OS.tmpdir())
      expect((yield* fs.stat(directory)).type).toBe("Directory")
    }))

  it.effect("each layer has its own volume", () =>
    Effect.gen(function*() {
      const layer = MemoryFileSystem.layer({ "/x.txt": "x" })
      yield* Effect.provide(Effect.flatMap(FileSystem.FileSystem, (fs) => fs.remove("/x.txt")), layer)
      const exists = yield* Effect.provide(Effect.flatMap(FileSystem.FileSystem, (fs) => fs.exists("/x.txt")), layer)
      expect(exists).toBe(true)
    }))

  it.effect("a relative fixture path is a defect", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(MemoryFileSystem.make({ "relative.txt": "x" }))
      expect(Exit.isFailure(exit) && !Exit.isInterrupted(exit)).toBe(true)
    }))

  it.scoped("watch reports creations, updates and removals", () =>
    Effect.gen(function*() {
      const fs = yield* MemoryFileSystem.make({ "/w": MemoryFileSystem.directory })
      // memfs notifies synchronously: subscribe before writing.
      const started = yield* Deferred.make<void>()
      const events = yield* fs.watch("/w").pipe(
        Stream.onStart(Deferred.succeed(started, undefined)),
        Stream.take(3),
        Stream.runCollect,
        Effect.fork
      )
      yield* Deferred.await(started)
      yield* fs.writeFileString("/w/a.txt", "1")
      // Creation vs removal is decided when the event is processed, so let it be.
      yield* Effect.yieldNow()
      yield* fs.remove("/w/a.txt")
      expect(Chunk.toReadonlyArray(yield* Fiber.join(events))).toEqual([
        FileSystem.WatchEventCreate({ path: "a.txt" }),
        FileSystem.WatchEventUpdate({ path: "a.txt" }),
        FileSystem.WatchEventRemove({ path: "a.txt" })
      ])
      expect(yield* Effect.flip(Stream.runDrain(fs.watch("/missing")))).toMatchObject({
        _tag: "SystemError",
        reason: "NotFound"
      })
    }))
})
