/**
 * Real faults on the Node filesystem: descriptors exhausted in a child process, entries removed
 * from a large directory while it is listed, a sub-directory made unreadable during a tree view,
 * and a read-only SQLite ledger.
 *
 * Tests may run as root, where `chmod` denies nothing: the chmod cases then run in a child
 * process with privileges dropped (uid/gid 65534) when this process may do so, and the fault
 * layer's EACCES covers the same path in-process either way.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as FileSystem from "@effect/platform/FileSystem"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as nodePath from "node:path"
import * as FaultFileSystem from "../src/FaultFileSystem.js"
import * as FileTime from "../src/FileTime.js"
import * as Lsp from "../src/Lsp.js"
import * as Permission from "../src/Permission.js"
import * as Read from "../src/Read.js"
import * as SqliteFileTime from "../src/SqliteFileTime.js"
import * as Workspace from "../src/Workspace.js"
import { fieldsOf, tempDir, withWarnings } from "./support/index.js"

const Database = createRequire(createRequire(import.meta.url).resolve("@effect/sql-sqlite-node/package.json"))(
  "better-sqlite3"
) as new(path: string, options?: { readonly readonly?: boolean }) => {
  prepare(sql: string): { get(): unknown }
  exec(sql: string): void
  close(): void
}

const repo = process.cwd()
const isRoot = process.getuid?.() === 0
const NOBODY = 65534

/**
 * May this process start a child as another user (root with CAP_SETUID), and can that user load
 * the repository's packages? Not when the clone sits in a private directory (`mktemp -d`, mode 700).
 */
const canDropPrivileges = isRoot &&
  spawnSync(process.execPath, [
      "-e",
      `try { require("node:fs").accessSync(${
        JSON.stringify(`${repo}/node_modules/effect/package.json`)
      }) } catch { process.exit(1) }
    process.exit(process.getuid() === 65534 ? 0 : 1)`
    ], { uid: NOBODY, gid: NOBODY }).status === 0

/** A temp directory another user may work in (the child that dropped privileges). */
const sharedTempDir = (prefix: string) => {
  const dir = tempDir(prefix)
  fs.chmodSync(dir, 0o777)
  return dir
}

/**
 * Run an ES module (source text) with node in the repository (so `./dist/…` and packages
 * resolve), as `uid` when given; its last stdout line is JSON.
 */
const runModule = (source: string, args: ReadonlyArray<string>, options: { readonly uid?: number } = {}) =>
  Effect.async<{ readonly result: any; readonly stderr: string }, Error>((resume) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", source, ...args], {
      cwd: repo,
      stdio: ["ignore", "pipe", "pipe"],
      ...(options.uid === undefined ? {} : { uid: options.uid, gid: options.uid })
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => (stdout += chunk))
    child.stderr.on("data", (chunk) => (stderr += chunk))
    child.on("error", (error) => resume(Effect.fail(error)))
    child.on("close", (code) => {
      const last = stdout.trim().split("\n").pop() ?? ""
      try {
        resume(Effect.succeed({ result: JSON.parse(last), stderr }))
      } catch {
        resume(Effect.fail(new Error(`child exited ${code}\nstdout:\n${stdout}\nstderr:\n${stderr.slice(0, 4000)}`)))
      }
    })
    return Effect.sync(() => child.kill())
  })

const servicesAt = (root: string) =>
  Layer.mergeAll(
    Workspace.layer({ directory: root, sessionId: "node-faults" }),
    Permission.layerAllowAll,
    Lsp.layerNoop,
    FileTime.layerMemory
  ).pipe(Layer.provideMerge(NodeContext.layer))

/** `read` over the Node filesystem at `root`, through the fault plan. */
const readWithFaults = (root: string, plan: FaultFileSystem.Plan, params: Read.ReadParams) =>
  Effect.gen(function*() {
    const faults = yield* FaultFileSystem.make(plan)
    const exit = yield* Effect.exit(
      Read.read(params).pipe(Effect.provideService(FileSystem.FileSystem, faults.fileSystem))
    )
    return { exit, stats: yield* faults.stats }
  }).pipe(Effect.provide(servicesAt(root)))

// == descriptors exhausted

/**
 * 1,000 concurrent reads in one runtime. Node's ESM loader itself needs more than 64
 * descriptors to load Effect, so the child lowers its own limit (prlimit) once loaded, then
 * reads; the open-files semaphore admits 128 reads at once, more than the limit allows.
 */
const EXHAUSTION = `
import * as NodeContext from "@effect/platform-node/NodeContext"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import { Effect, Layer } from "effect"
import { FileTime, Lsp, Permission, Read, Workspace } from "./dist/index.js"
const [root, limit, count] = process.argv.slice(1)
const n = Number(count)
const layer = Layer.mergeAll(
  Workspace.layer({ directory: root, sessionId: "s" }),
  Permission.layerAllowAll,
  Lsp.layerNoop,
  FileTime.layerMemory
).pipe(Layer.provideMerge(NodeContext.layer))
const lower = () => {
  try {
    execFileSync("prlimit", ["--pid", String(process.pid), "--nofile=" + limit + ":" + limit])
  } catch {
    execFileSync("python3", ["-c", "import resource, sys; resource.prlimit(int(sys.argv[1]), resource.RLIMIT_NOFILE, (int(sys.argv[2]), int(sys.argv[2])))", String(process.pid), limit])
  }
}
const softLimit = () => Number(/Max open files\\s+(\\d+)/.exec(fs.readFileSync("/proc/self/limits", "utf8"))[1])
const descriptors = () => fs.readdirSync("/proc/self/fd").length
const program = Effect.gen(function*() {
  yield* Read.read({ filePath: "sub" })
  yield* Read.read({ filePath: "f0.txt" })
  lower()
  const before = descriptors()
  const results = yield* Effect.forEach(
    Array.from({ length: n }, (_, i) => i),
    (i) => Effect.either(Read.read({ filePath: i % 100 === 0 ? "sub" : "f" + i + ".txt" })),
    { concurrency: "unbounded" }
  )
  const failures = results.flatMap((r) => r._tag === "Left" ? [r.left.message] : [])
  const ledger = yield* FileTime.FileTime
  let stamped = 0
  for (let i = 0; i < n; i++) {
    if (i % 100 !== 0 && (yield* ledger.get("s", root + "/f" + i + ".txt"))._tag === "Some") stamped++
  }
  const wrong = results.filter((r, i) => r._tag === "Right" && i % 100 !== 0 && !r.right.output.includes("1: line " + i + "\\n"))
  return { ok: n - failures.length, failures: [...new Set(failures)].slice(0, 5), stamped, wrong: wrong.length, limit: softLimit(), before, after: descriptors() }
})
Effect.runPromise(program.pipe(Effect.provide(layer))).then((r) => console.log(JSON.stringify(r)))
`

describe("descriptors exhausted", () => {
  it.live(
    "1,000 concurrent reads in a process limited to 64 descriptors queue, and none fails",
    () =>
      Effect.gen(function*() {
        const root = tempDir("effect-read-emfile-")
        for (let i = 0; i < 1000; i++) fs.writeFileSync(nodePath.join(root, `f${i}.txt`), `line ${i}\nmore\n`)
        fs.mkdirSync(nodePath.join(root, "sub"))
        for (const name of ["a", "b", "c"]) fs.writeFileSync(nodePath.join(root, "sub", name), name)
        const { result } = yield* runModule(EXHAUSTION, [root, "64", "1000"])
        expect(result.limit).toBe(64)
        expect(result.failures).toEqual([])
        expect(result).toMatchObject({ ok: 1000, wrong: 0, stamped: 990 })
        // Every descriptor the reads took was given back.
        expect(result.after).toBe(result.before)
      }),
    300_000
  )

  it.live("an EMFILE from the filesystem is waited out, not reported", () =>
    Effect.gen(function*() {
      const root = tempDir("effect-read-emfile-fault-")
      fs.writeFileSync(nodePath.join(root, "a.txt"), "one\ntwo\n")
      fs.mkdirSync(nodePath.join(root, "d"))
      const file = yield* readWithFaults(root, [
        FaultFileSystem.Fail.make({ operation: "open", nth: 1, times: 3, code: "EMFILE" })
      ], { filePath: "a.txt" })
      expect(file.exit._tag === "Success" && file.exit.value.output).toContain("1: one\n2: two")
      expect(file.stats.fired).toHaveLength(3)
      const listing = yield* readWithFaults(root, [
        FaultFileSystem.Fail.make({ operation: "readDirectory", nth: 1, times: 2, code: "ENFILE" })
      ], { filePath: "." })
      expect(listing.exit._tag === "Success" && listing.exit.value.output).toContain("a.txt\nd/\n")
    }))
})

// == short reads

describe("short reads", () => {
  it.effect("a database whose header arrives in pieces is still a database", () =>
    Effect.gen(function*() {
      const root = tempDir("effect-read-short-")
      const db = new Database(nodePath.join(root, "app.db"))
      db.exec("CREATE TABLE notes (body TEXT)")
      db.close()
      // Every read returns at most 5 bytes: the 16-byte header check and the 100-byte header read.
      const plan = [FaultFileSystem.ShortRead.make({ nth: 1, bytes: 5, times: 1000 })]
      for (const filePath of ["app.db", "app.db:notes"]) {
        const { exit, stats } = yield* readWithFaults(root, plan, { filePath })
        if (exit._tag === "Failure") return expect.fail(`${filePath}: ${String(exit.cause)}`)
        expect(exit.value.metadata.kind).toBe("database")
        expect(exit.value.output).toContain("notes")
        expect(stats.fired.length).toBeGreaterThan(3)
      }
    }))
})

// == entries removed during a listing

describe("entries removed during a large listing", () => {
  const bigDirectory = (files = 3000) => {
    const root = tempDir("effect-read-vanish-")
    const big = nodePath.join(root, "big")
    fs.mkdirSync(big)
    for (let i = 0; i < files; i++) fs.writeFileSync(nodePath.join(big, `file-${String(i).padStart(4, "0")}.txt`), "x")
    for (let i = 0; i < 20; i++) {
      fs.mkdirSync(nodePath.join(big, `dir-${i}`))
      fs.writeFileSync(nodePath.join(big, `dir-${i}`, "inner.txt"), "y")
    }
    return { root, big }
  }

  it.effect("the listing is the directory when it was read; removed directories lose their /", () =>
    Effect.gen(function*() {
      const { big, root } = bigDirectory()
      const gone = [
        "dir-3",
        "dir-7",
        ...Array.from({ length: 500 }, (_, i) => `file-${String(i * 6).padStart(4, "0")}.txt`)
      ]
      const { exit, stats } = yield* readWithFaults(
        root,
        [FaultFileSystem.Vanish.make({ nth: 1, count: 0, names: gone, path: big })],
        { filePath: "big", limit: 5000 }
      )
      expect(stats.fired).toHaveLength(1)
      // Really removed from the disk while the read went on.
      expect(fs.existsSync(nodePath.join(big, "dir-3"))).toBe(false)
      expect(fs.readdirSync(big)).toHaveLength(3020 - gone.length)
      if (exit._tag === "Failure") return expect.fail(String(exit.cause))
      const lines = exit.value.output.split("<entries>\n")[1]!.split("\n\n")[0]!.split("\n")
      expect(lines).toHaveLength(3020)
      expect(lines).toContain("dir-3")
      expect(lines).toContain("dir-4/")
      expect(exit.value.output).toContain("(3020 entries)")
    }))

  it.effect("a tree names a sub-directory removed before it was listed, and counts it as not listed", () =>
    Effect.gen(function*() {
      const { big, root } = bigDirectory(30)
      // Removed after its stat said "directory", before its listing: the listing finds nothing.
      const { exit } = yield* readWithFaults(
        root,
        [FaultFileSystem.Fail.make({
          operation: "readDirectory",
          nth: 1,
          code: "ENOENT",
          path: nodePath.join(big, "dir-5")
        })],
        { filePath: "big", view: "tree" }
      )
      if (exit._tag === "Failure") return expect.fail(String(exit.cause))
      expect(exit.value.output).toMatch(/\n {2}- dir-5\/ .*\n {2}- /)
      expect(exit.value.output).toContain("1 directory not listed (unreadable)")
    }))

  it.effect("a tree of a directory whose entries vanish as it is listed names them as they were", () =>
    Effect.gen(function*() {
      const { big, root } = bigDirectory(30)
      const { exit } = yield* readWithFaults(
        root,
        [FaultFileSystem.Vanish.make({ nth: 1, count: 0, names: ["dir-5", "file-0003.txt"], path: big })],
        { filePath: "big", view: "tree" }
      )
      if (exit._tag === "Failure") return expect.fail(String(exit.cause))
      // Gone before their stat: named, with nothing known about them (no size, no age, no /).
      expect(exit.value.output).toMatch(/\n {2}- dir-5\n/)
      expect(exit.value.output).toMatch(/\n {2}- file-0003\.txt\n/)
      expect(exit.value.output).toContain("- dir-6/")
    }))

  it.live("listings stay whole while another process removes the files", () =>
    Effect.gen(function*() {
      const { big, root } = bigDirectory()
      const names = new Set(fs.readdirSync(big))
      // Another process deletes every file, one at a time, while this one lists.
      const deleter = spawn(process.execPath, [
        "-e",
        `const fs = require("fs"), path = require("path"); const dir = process.argv[1];
         const names = fs.readdirSync(dir).filter((n) => n.startsWith("file-"));
         let i = 0; const step = () => { for (let k = 0; k < 5 && i < names.length; k++, i++) fs.unlinkSync(path.join(dir, names[i])); if (i < names.length) setTimeout(step, 2) }; step()`,
        big
      ])
      const finished = new Promise<void>((resolve) => deleter.on("close", () => resolve()))
      let done = false
      void finished.then(() => (done = true))
      let listings = 0
      while (!done || listings < 3) {
        const result = yield* Read.read({ filePath: "big", limit: 5000 }).pipe(Effect.provide(servicesAt(root)))
        const lines = result.output.split("<entries>\n")[1]!.split("\n\n")[0]!.split("\n").filter((l) => l !== "")
        for (const line of lines) expect(names.has(line.replace(/\/$/, "")), line).toBe(true)
        expect(result.output).toContain(`(${lines.length} entries)`)
        expect(fieldsOf(result).totalLines).toBe(lines.length)
        listings++
      }
      yield* Effect.promise(() => finished)
      expect(fs.readdirSync(big)).toHaveLength(20)
    }), 120_000)
})

// == a sub-directory made unreadable during a tree view

/** A tree of `root` in which `sub` is made unreadable right after the top level was listed. */
const UNREADABLE = `
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as FileSystem from "@effect/platform/FileSystem"
import * as fs from "node:fs"
import { Effect, Layer } from "effect"
import { FileTime, Lsp, Permission, Read, Workspace } from "./dist/index.js"
const [root] = process.argv.slice(1)
const layer = Layer.mergeAll(
  Workspace.layer({ directory: root, sessionId: "s" }),
  Permission.layerAllowAll,
  Lsp.layerNoop,
  FileTime.layerMemory
).pipe(Layer.provideMerge(NodeContext.layer))
const program = Effect.gen(function*() {
  const node = yield* FileSystem.FileSystem
  let denies = false
  const chmodding = FileSystem.make({
    ...node,
    readDirectory: (path, options) => node.readDirectory(path, options).pipe(Effect.tap(() => {
      if (path !== root + "/project") return
      fs.chmodSync(root + "/project/secret", 0o000)
      try { fs.readdirSync(root + "/project/secret") } catch { denies = true }
    }))
  })
  const result = yield* Read.read({ filePath: "project", view: "tree" }).pipe(Effect.provideService(FileSystem.FileSystem, chmodding))
  fs.chmodSync(root + "/project/secret", 0o755)
  return { uid: process.getuid(), denies, output: result.output }
})
Effect.runPromise(program.pipe(Effect.provide(layer))).then((r) => console.log(JSON.stringify(r)))
`

/** A small project under `root`, owned by `owner` when given (the child that dropped privileges). */
const treeProject = (root: string, owner?: number) => {
  const files = [["project/README.md", "r"], ["project/secret/key.txt", "k"], ["project/src/a.ts", "a"]] as const
  for (const [name, content] of files) {
    fs.mkdirSync(nodePath.dirname(nodePath.join(root, name)), { recursive: true })
    fs.writeFileSync(nodePath.join(root, name), content)
  }
  if (owner !== undefined) {
    for (const path of ["project", "project/secret", "project/src", ...files.map(([name]) => name)]) {
      fs.chownSync(nodePath.join(root, path), owner, owner)
    }
  }
}

describe("a sub-directory made unreadable during a tree view", () => {
  it.live(
    "chmod 000: the directory is named and counted as not listed, never shown empty",
    () =>
      Effect.gen(function*() {
        const root = sharedTempDir("effect-read-chmod-")
        // As root, chmod denies nothing: drop privileges in the child when possible, else the fault
        // layer's EACCES (below) is what exercises the path.
        const uid = isRoot && canDropPrivileges ? NOBODY : undefined
        treeProject(root, uid)
        const { result } = yield* runModule(UNREADABLE, [root], uid === undefined ? {} : { uid })
        if (result.denies) {
          expect(result.output).toContain("1 directory not listed (permission)")
          expect(result.output).not.toContain("key.txt")
        } else {
          // Only root without a way to drop privileges gets here: the directory was readable.
          expect(isRoot && !canDropPrivileges).toBe(true)
          expect(result.output).toContain("key.txt")
        }
        expect(result.output).toMatch(/\n {2}- secret\/ /)
        expect(result.output).toContain("- a.ts")
      }),
    120_000
  )

  it.effect("EACCES from the fault layer: the same answer on any machine", () =>
    Effect.gen(function*() {
      const root = tempDir("effect-read-eacces-")
      treeProject(root)
      const secret = nodePath.join(root, "project", "secret")
      const { exit } = yield* readWithFaults(root, [
        FaultFileSystem.Fail.make({ operation: "readDirectory", nth: 1, code: "EACCES", path: secret })
      ], { filePath: "project", view: "tree" })
      if (exit._tag === "Failure") return expect.fail(String(exit.cause))
      expect(exit.value.output).toMatch(/\n {2}- secret\/ /)
      expect(exit.value.output).not.toContain("key.txt")
      expect(exit.value.output).toContain("- a.ts")
      expect(exit.value.output).toContain("1 directory not listed (permission)")
    }))

  it.effect("an I/O error listing a sub-directory is counted apart", () =>
    Effect.gen(function*() {
      const root = tempDir("effect-read-eio-")
      treeProject(root)
      const { exit } = yield* readWithFaults(root, [
        FaultFileSystem.Fail.make({
          operation: "readDirectory",
          nth: 1,
          code: "EIO",
          path: nodePath.join(root, "project", "src")
        })
      ], { filePath: "project", view: "tree" })
      if (exit._tag === "Failure") return expect.fail(String(exit.cause))
      expect(exit.value.output).toContain("1 directory not listed (unreadable)")
      expect(exit.value.output).toContain("key.txt")
    }))
})

// == a read-only SQLite ledger

const READ_ONLY_LEDGER = `
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as fs from "node:fs"
import { Effect, Exit, Layer, Logger } from "effect"
import { Lsp, Permission, Read, Workspace, FileTime } from "./dist/index.js"
import * as SqliteFileTime from "./dist/SqliteFileTime.js"
const [dir] = process.argv.slice(1)
const db = dir + "/ledger.db"
const file = dir + "/notes.txt"
const warnings = []
const logger = Logger.make(({ logLevel, message }) => { if (logLevel._tag === "Warning") warnings.push(String(Array.isArray(message) ? message[0] : message)) })
const session = (body) => body.pipe(Effect.provide(Layer.mergeAll(
  Workspace.layer({ directory: dir, sessionId: "s" }), Permission.layerAllowAll, Lsp.layerNoop,
  SqliteFileTime.layer({ filename: db })
).pipe(Layer.provideMerge(NodeContext.layer))), Effect.provide(Logger.replace(Logger.defaultLogger, logger)))
const program = Effect.gen(function*() {
  // Created and migrated while writable, then made read-only, as an operator might.
  yield* session(Effect.flatMap(FileTime.FileTime, (ledger) => ledger.get("s", file)))
  fs.chmodSync(db, 0o444)
  let denied = false
  try { fs.accessSync(db, fs.constants.W_OK) } catch { denied = true }
  return yield* session(Effect.gen(function*() {
    const read = yield* Read.read({ filePath: "notes.txt" })
    const ledger = yield* FileTime.FileTime
    const stamped = (yield* ledger.get("s", file))._tag === "Some"
    const unchanged = Exit.isSuccess(yield* Effect.exit(ledger.assert("s", file)))
    fs.writeFileSync(file, "changed since\\n")
    const changed = yield* Effect.exit(ledger.assert("s", file))
    return { uid: process.getuid(), denied, output: read.output, stamped, unchanged, changed: Exit.isFailure(changed) ? String(changed.cause) : "passed", warnings }
  }))
})
Effect.runPromise(program).then((r) => console.log(JSON.stringify(r)))
`

describe("a read-only SQLite ledger", () => {
  it.effect("a connection that cannot write: the read returns its content, the stamp is kept in memory", () =>
    Effect.gen(function*() {
      const dir = tempDir("effect-read-ledger-ro-")
      const filename = nodePath.join(dir, "ledger.db")
      const file = nodePath.join(dir, "notes.txt")
      fs.writeFileSync(file, "hello\n")
      // Migrate with a writable connection, then reopen the file read-only.
      yield* Effect.scoped(Layer.build(SqliteFileTime.layer({ filename }).pipe(Layer.provide(NodeFileSystem.layer))))
      const readOnly = SqliteFileTime.layerClient.pipe(
        Layer.provide(SqliteClient.layer({ filename, readonly: true })),
        Layer.provideMerge(Layer.merge(NodeFileSystem.layer, NodePath.layer))
      )
      const services = Layer.mergeAll(
        Workspace.layer({ directory: dir, sessionId: "s" }),
        Permission.layerAllowAll,
        Lsp.layerNoop
      )
      const { value, warnings } = yield* withWarnings(
        Effect.gen(function*() {
          const result = yield* Read.read({ filePath: "notes.txt" })
          const ledger = yield* FileTime.FileTime
          const stamp = yield* ledger.get("s", file)
          yield* ledger.assert("s", file)
          fs.writeFileSync(file, "hello, changed\n")
          const changed = yield* Effect.flip(ledger.assert("s", file))
          return { output: result.output, stamp, changed }
        }).pipe(Effect.provide(Layer.merge(services, readOnly)))
      )
      expect(value.output).toContain("1: hello")
      expect(Option.isSome(value.stamp)).toBe(true)
      expect(value.changed._tag).toBe("FileChangedSinceRead")
      expect(warnings).toEqual(["FileTime.read: the SQLite ledger refused the write; the stamp is kept in memory only"])
      // Nothing reached the database.
      const db = new Database(filename, { readonly: true })
      expect(db.prepare("SELECT count(*) AS n FROM file_reads").get()).toEqual({ n: 0 })
      db.close()
    }))

  it.live(
    "the ledger file made read-only (chmod 444): reads still answer, edits are still checked",
    () =>
      Effect.gen(function*() {
        const dir = sharedTempDir("effect-read-ledger-chmod-")
        fs.writeFileSync(nodePath.join(dir, "notes.txt"), "hello\n")
        fs.chmodSync(nodePath.join(dir, "notes.txt"), 0o666)
        const uid = isRoot && canDropPrivileges ? NOBODY : undefined
        const { result } = yield* runModule(READ_ONLY_LEDGER, [dir], uid === undefined ? {} : { uid })
        expect(result.output).toContain("1: hello")
        expect(result).toMatchObject({ stamped: true, unchanged: true })
        expect(result.changed).toContain("FileChangedSinceRead")
        if (result.denied) {
          expect(result.warnings).toEqual([
            "FileTime.read: the SQLite ledger refused the write; the stamp is kept in memory only"
          ])
        } else {
          expect(isRoot && !canDropPrivileges).toBe(true)
        }
      }),
    120_000
  )
})
