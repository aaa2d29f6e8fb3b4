/**
 * Trust: nothing is read that a rule forbids, whatever links, races or recoveries stand between
 * the path as written and the file; and the answers match the newest opencode where it is exact.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import * as MemoryFileSystem from "../src/MemoryFileSystem.js"
import * as Permission from "../src/Permission.js"
import { read, readUnknown } from "../src/Read.js"
import { fieldsOf, type LayerOptions, memoryLayer, nodeLayer, tempDir, ustar, writeTree } from "./support/index.js"

const roots: Array<string> = []
afterAll(() => {
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true })
})

const project = (files: Readonly<Record<string, string | Uint8Array>> = {}): string => {
  const root = tempDir("effect-read-trust-")
  roots.push(root)
  writeTree(root, files)
  return root
}

const readIn = (root: string, params: unknown, options: LayerOptions = {}) =>
  readUnknown(params).pipe(Effect.provide(nodeLayer(root, options)))

const rules = (extra: ReadonlyArray<Permission.Rule>, asker?: Permission.Asker) =>
  Permission.layerRules([...Permission.defaultRules, ...extra], asker === undefined ? {} : { asker })

/** A permission layer that records every request it is asked, and allows it. */
const recordingPermission = () => {
  const asked: Array<Permission.PermissionRequest> = []
  const layer = Layer.succeed(Permission.Permission, {
    ask: (request) => Effect.sync(() => void asked.push(request)),
    check: () => Effect.succeed("allow" as const)
  })
  return { asked, layer }
}

const denyEnv: ReadonlyArray<Permission.Rule> = [{ permission: "read", pattern: "*.env", action: "deny" }]

describe("read rules are decided on the real path too", () => {
  it.effect("a link to a denied .env is denied, on disk and in memory", () =>
    Effect.gen(function*() {
      const root = project({ ".env": "TOKEN=secret\n" })
      fs.symlinkSync(".env", nodePath.join(root, "notes.txt"))
      const error = yield* Effect.flip(readIn(root, { filePath: "notes.txt" }, { permission: rules(denyEnv) }))
      expect(error._tag).toBe("PermissionDenied")
      expect(error.message).not.toContain("secret")
      expect(error).toMatchObject({ permission: "read", patterns: [".env"], reason: "rule" })

      const memory = yield* Effect.flip(
        read({ filePath: "notes.txt" }).pipe(
          Effect.provide(memoryLayer({
            "/project/.env": "TOKEN=secret\n",
            "/project/notes.txt": MemoryFileSystem.symlink(".env")
          }, { permission: rules(denyEnv) }))
        )
      )
      expect(memory._tag).toBe("PermissionDenied")
    }))

  it.effect("an ask rule on the target asks, naming both the link and the target", () =>
    Effect.gen(function*() {
      const root = project({ "config/.env": "TOKEN=secret\n" })
      fs.symlinkSync("config/.env", nodePath.join(root, "settings"))
      const asked: Array<Permission.PermissionRequest> = []
      const asker: Permission.Asker = (request) => Effect.sync(() => (asked.push(request), "reject" as const))
      const error = yield* Effect.flip(readIn(root, { filePath: "settings" }, { permission: rules([], asker) }))
      expect(error).toMatchObject({ _tag: "PermissionDenied", reason: "rejected" })
      expect(asked.map((request) => request.patterns)).toEqual([["settings", "config/.env"]])
    }))

  it.effect("the link itself denied, the target allowed: still denied (deny wins)", () =>
    Effect.gen(function*() {
      const root = project({ "plain.txt": "fine\n" })
      fs.symlinkSync("plain.txt", nodePath.join(root, "alias.env"))
      const error = yield* Effect.flip(readIn(root, { filePath: "alias.env" }, { permission: rules(denyEnv) }))
      expect(error).toMatchObject({ _tag: "PermissionDenied", patterns: ["alias.env"] })
      // Without the rule the link reads its target.
      const allowed = yield* readIn(root, { filePath: "alias.env" })
      expect(allowed.output).toContain("1: fine")
    }))

  it.effect("an archive path whose outer file links to a denied archive is denied", () =>
    Effect.gen(function*() {
      const root = project({ "private/archive.tar": ustar([{ name: "inside.txt", content: "classified\n" }]) })
      fs.symlinkSync("private/archive.tar", nodePath.join(root, "public.tar"))
      const denyPrivate = rules([{ permission: "read", pattern: "private/*", action: "deny" }])
      const member = yield* Effect.flip(
        readIn(root, { filePath: "public.tar:inside.txt" }, { permission: denyPrivate })
      )
      expect(member).toMatchObject({ _tag: "PermissionDenied", patterns: ["private/archive.tar"] })
      const listing = yield* Effect.flip(readIn(root, { filePath: "public.tar" }, { permission: denyPrivate }))
      expect(listing._tag).toBe("PermissionDenied")
      // The same archive reads when nothing forbids it.
      const open = yield* readIn(root, { filePath: "public.tar:inside.txt" })
      expect(open.output).toContain("1: classified")
    }))

  it.effect("suffix recovery never lands on a link to a denied file, nor names it", () =>
    Effect.gen(function*() {
      const root = project({ ".env": "TOKEN=secret\n", "a/deep/readme.md": "# a\n" })
      fs.symlinkSync("../../.env", nodePath.join(root, "a/deep/app.conf"))
      const error = yield* Effect.flip(readIn(root, { filePath: "deep/app.conf" }, { permission: rules(denyEnv) }))
      expect(error).toMatchObject({ _tag: "FileNotFound", path: `${root}/deep/app.conf`, suggestions: [] })
      // Allowed, the same miss is recovered through the link.
      const recovered = yield* readIn(root, { filePath: "deep/app.conf" })
      expect(recovered.output).toContain("TOKEN=secret")
    }))
})

describe("suggestions never name what a rule denies", () => {
  it.effect("a denied near name is not suggested; allowed, it is", () =>
    Effect.gen(function*() {
      const root = project({ "secrets.env": "KEY=1\n", "secrets.md": "# notes\n" })
      const denied = yield* Effect.flip(readIn(root, { filePath: "secrets.txt" }, { permission: rules(denyEnv) }))
      expect(denied._tag).toBe("FileNotFound")
      if (denied._tag !== "FileNotFound") return
      expect(denied.suggestions).toEqual([`${root}/secrets.md`])
      const allowed = yield* Effect.flip(readIn(root, { filePath: "secrets.txt" }))
      if (allowed._tag !== "FileNotFound") return expect.fail(allowed._tag)
      expect([...allowed.suggestions].sort()).toEqual([`${root}/secrets.env`, `${root}/secrets.md`])
    }))

  it.effect("Permission.check answers what ask would decide, asking nobody", () =>
    Effect.gen(function*() {
      let asked = 0
      const permission = yield* Permission.make([...Permission.defaultRules, ...denyEnv], {
        asker: () => Effect.sync(() => (asked++, "always" as const))
      })
      const request = (patterns: ReadonlyArray<string>) => ({
        permission: "read",
        patterns,
        always: ["*"],
        metadata: {}
      })
      expect(yield* permission.check(request(["a.ts"]))).toBe("allow")
      expect(yield* permission.check(request(["a.ts", "b.env"]))).toBe("deny")
      expect(yield* permission.check(request(["b.env.local"]))).toBe("ask")
      expect(asked).toBe(0)
      yield* permission.ask(request(["b.env.local"]))
      expect(asked).toBe(1)
      // Approved `always` for the session: no longer an ask.
      expect(yield* permission.check(request(["b.env.local"]))).toBe("allow")
    }))
})

describe("the read pattern outside the worktree is relative (../x/y)", () => {
  it.effect("asks ../outside/notes.txt, and rules match it", () =>
    Effect.gen(function*() {
      const parent = project({ "work/a.txt": "a\n", "outside/notes.txt": "n\n", "outside/.env": "S=1\n" })
      const root = nodePath.join(parent, "work")
      const recorder = recordingPermission()
      yield* readIn(root, { filePath: "../outside/notes.txt" }, { permission: recorder.layer })
      const readAsks = recorder.asked.filter((request) => request.permission === "read")
      expect(readAsks.map((request) => request.patterns)).toEqual([["../outside/notes.txt"]])
      // Inside the worktree the pattern is unchanged.
      yield* readIn(root, { filePath: `${root}/a.txt` }, { permission: recorder.layer })
      expect(recorder.asked.filter((request) => request.permission === "read").at(-1)?.patterns).toEqual(["a.txt"])

      const allowExternal = { permission: "external_directory", pattern: "*", action: "allow" } as const
      const envDenied = yield* Effect.flip(
        readIn(root, { filePath: "../outside/.env" }, { permission: rules([allowExternal, ...denyEnv]) })
      )
      expect(envDenied).toMatchObject({ _tag: "PermissionDenied", patterns: ["../outside/.env"] })
      const dirDenied = yield* Effect.flip(
        readIn(root, { filePath: "../outside/notes.txt" }, {
          permission: rules([allowExternal, { permission: "read", pattern: "../outside/*", action: "deny" }])
        })
      )
      expect(dirDenied._tag).toBe("PermissionDenied")
      const fine = yield* readIn(root, { filePath: "../outside/notes.txt" }, { permission: rules([allowExternal]) })
      expect(fine.output).toContain("1: n")
    }))

  it("globs match leading dot segments", () => {
    expect(Permission.matches("*.env", "../x/.env")).toBe(true)
    expect(Permission.matches("../x/*", "../x/a/b")).toBe(true)
    expect(Permission.matches("../../*", "../a")).toBe(false)
    expect(Permission.matches("src/*", "../src/a")).toBe(false)
    expect(Permission.evaluate(Permission.defaultRules, "read", "../other/.env")).toBe("ask")
    expect(Permission.evaluate(Permission.defaultRules, "read", "../other/.env.example")).toBe("allow")
  })
})

describe("check-then-open race", () => {
  it.effect("a link swapped in between the check and the open never leaks (500 reads)", () =>
    Effect.gen(function*() {
      const parent = project({ "work/safe.txt": "SAFE\n", "outside/secret.txt": "SECRET\n" })
      const root = nodePath.join(parent, "work")
      const target = nodePath.join(root, "target.txt")
      fs.writeFileSync(target, "SAFE\n")
      // Another process swaps target.txt between a plain file and a link out of the worktree,
      // each swap one atomic rename, as fast as it can.
      const swapper = spawn(process.execPath, [
        "-e",
        `const fs = require("node:fs");
         const [target, secret] = process.argv.slice(1);
         const link = target + ".link", file = target + ".file";
         for (let i = 0; ; i++) {
           try { fs.rmSync(link, { force: true }); fs.symlinkSync(secret, link); fs.renameSync(link, target); } catch {}
           try { fs.writeFileSync(file, "SAFE\\n"); fs.renameSync(file, target); } catch {}
         }`,
        target,
        nodePath.join(parent, "outside/secret.txt")
      ], { stdio: "ignore" })
      const outcomes = new Map<string, number>()
      const count = (key: string) => outcomes.set(key, (outcomes.get(key) ?? 0) + 1)
      try {
        for (let i = 0; i < 500; i++) {
          const result = yield* Effect.either(readIn(root, { filePath: "target.txt" }, { permission: rules([]) }))
          if (result._tag === "Right") {
            expect(result.right.output).not.toContain("SECRET")
            count("read")
          } else {
            expect(result.left.message).not.toContain("SECRET")
            count(result.left._tag)
          }
        }
      } finally {
        swapper.kill("SIGKILL")
      }
      // Only clean reads, refusals of the link, and caught swaps: never the secret.
      expect([...outcomes.keys()].every((key) => ["read", "PermissionDenied", "FileChanged"].includes(key))).toBe(true)
    }), { timeout: 120_000 })

  it.effect("what was opened is compared with what was checked: a swap after the check fails closed", () =>
    Effect.gen(function*() {
      // In memory: the file is replaced by a link out of the worktree right after the check's
      // last realPath call, before the open.
      const files = {
        "/project/target.txt": "SAFE\n",
        "/outside/secret.txt": "SECRET\n"
      }
      const error = yield* Effect.flip(
        Effect.flatMap(FileSystem.FileSystem, (memory) => {
          let swapped = false
          const swapping: FileSystem.FileSystem = {
            ...memory,
            open: (path, options) =>
              Effect.suspend(() => {
                if (!swapped && path === "/project/target.txt") {
                  swapped = true
                  return memory.remove(path).pipe(
                    Effect.zipRight(memory.symlink("/outside/secret.txt", path)),
                    Effect.zipRight(memory.open(path, options))
                  )
                }
                return memory.open(path, options)
              })
          }
          return read({ filePath: "target.txt" }).pipe(Effect.provideService(FileSystem.FileSystem, swapping))
        }).pipe(Effect.provide(memoryLayer(files, { permission: rules([]) })))
      )
      expect(error).toMatchObject({ _tag: "FileChanged", path: "/project/target.txt" })
      expect(error.message).toBe(
        "Cannot read /project/target.txt: it was replaced between the permission check and opening it. Read it again."
      )
    }))

  it.effect("on Node's filesystem, the kernel's name for the opened descriptor must be the checked path", () =>
    Effect.gen(function*() {
      // The `read` ask is the check's last step: the file becomes a link out of the worktree
      // while the session is being asked, and Node's own open follows it.
      const root = project({ "target.txt": "SAFE\n" })
      const outside = project({ "secret.txt": "SECRET\n" })
      const target = nodePath.join(root, "target.txt")
      const swapping = Layer.succeed(Permission.Permission, {
        ask: (request) =>
          Effect.sync(() => {
            if (request.permission === "read" && fs.lstatSync(target).isFile()) {
              fs.rmSync(target)
              fs.symlinkSync(nodePath.join(outside, "secret.txt"), target)
            }
          }),
        check: () => Effect.succeed("allow" as const)
      })
      const error = yield* Effect.flip(readIn(root, { filePath: "target.txt" }, { permission: swapping }))
      expect(error).toMatchObject({ _tag: "FileChanged", path: target })
      expect(error.message).not.toContain("SECRET")
      // The link was in place when opened: the read would have shown the secret.
      expect(fs.readFileSync(target, "utf8")).toBe("SECRET\n")
    }))
})

describe("files that report size 0", () => {
  it.effect("/proc/self/status reads as its lines, not as an empty file", () =>
    Effect.gen(function*() {
      const root = project()
      const allowExternal = rules([{ permission: "external_directory", pattern: "*", action: "allow" }])
      const result = yield* readIn(root, { filePath: "/proc/self/status" }, { permission: allowExternal })
      expect(fs.statSync("/proc/self/status").size).toBe(0)
      expect(result.output).toMatch(/\n1: Name:\t/)
      expect(fieldsOf(result).totalLines).toBeGreaterThan(5)
      expect(result.output).not.toContain("total 0 lines")
    }))

  /** `read` over a FileSystem whose stat says 0 bytes for every regular file, as /proc and /sys do. */
  const readSizeless = (root: string, params: unknown) =>
    Effect.flatMap(
      FileSystem.FileSystem,
      (original) =>
        readUnknown(params).pipe(Effect.provideService(FileSystem.FileSystem, {
          ...original,
          stat: (path) => Effect.map(original.stat(path), sizeless),
          open: (path, options) =>
            Effect.map(original.open(path, options), (file): FileSystem.File => ({
              ...file,
              fd: file.fd,
              stat: Effect.map(file.stat, sizeless),
              seek: (offset, from) => file.seek(offset, from),
              read: (buffer) => file.read(buffer),
              readAlloc: (size) => file.readAlloc(size)
            }))
        }))
    ).pipe(Effect.provide(nodeLayer(root)))
  const sizeless = (info: FileSystem.File.Info): FileSystem.File.Info =>
    info.type === "File" ? { ...info, size: FileSystem.Size(0) } : info

  it.effect("paging, numbering and the end are those of the bytes read", () =>
    Effect.gen(function*() {
      const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`)
      const root = project({ "unsized.txt": `${lines.join("\n")}\n`, "empty.txt": "" })
      const page = yield* readSizeless(root, { filePath: "unsized.txt", offset: 11, limit: 5 })
      expect(page.output).toContain("11: line 11\n12: line 12\n13: line 13\n14: line 14\n15: line 15\n\n")
      expect(page.output).toContain("(Showing lines 11-15 of 30. Use offset=16 to continue.)")
      expect(page.metadata.size).toBe(fs.statSync(nodePath.join(root, "unsized.txt")).size)
      const empty = yield* readSizeless(root, { filePath: "empty.txt" })
      expect(empty.output).toContain("(End of file - total 0 lines)")
    }))

  it.effect("past the cap it says so instead of showing part as the whole", () =>
    Effect.gen(function*() {
      const root = project({ "huge.log": "x".repeat(1023) + "\n" })
      const fd = fs.openSync(nodePath.join(root, "huge.log"), "a")
      const block = Buffer.from(`${"y".repeat(1023)}\n`.repeat(1024))
      for (let i = 0; i < 9; i++) fs.writeSync(fd, block)
      fs.closeSync(fd)
      const error = yield* Effect.flip(readSizeless(root, { filePath: "huge.log" }))
      expect(error._tag).toBe("ReadFailed")
      expect(error.message).toBe(
        `Cannot read ${root}/huge.log: it reports a size of 0 bytes but holds more than 8.0 MiB, too much to read without a size to page by`
      )
    }))
})

describe("opencode parity", () => {
  it.effect("directory footer names the offset that continues", () =>
    Effect.gen(function*() {
      const root = project({ "d/a": "", "d/b": "", "d/c": "" })
      const first = yield* readIn(root, { filePath: "d", limit: 1 })
      expect(first.output).toContain("(Showing 1 of 3 entries. Use 'offset' parameter to read beyond entry 2)")
      const second = yield* readIn(root, { filePath: "d", offset: 2, limit: 1 })
      expect(second.output).toContain("(Showing 1 of 3 entries. Use 'offset' parameter to read beyond entry 3)")
      expect(fieldsOf(second).nextOffset).toBe(3)
    }))
})

describe("paths as people write them", () => {
  it.effect("a leading ':' means the literal path: no selector, no archive member", () =>
    Effect.gen(function*() {
      const root = project({
        "notes.txt": "one\ntwo\nthree\n",
        "bundle.tar": ustar([{ name: "a.txt", content: "member\n" }])
      })
      const whole = yield* readIn(root, { filePath: ":./notes.txt" })
      expect(whole.output).toContain("(End of file - total 3 lines)")
      const absolute = yield* readIn(root, { filePath: `:${root}/notes.txt` })
      expect(absolute.metadata.path).toBe(`${root}/notes.txt`)
      const selector = yield* Effect.flip(readIn(root, { filePath: ":notes.txt:2" }))
      expect(selector).toMatchObject({ _tag: "FileNotFound", path: `${root}/notes.txt:2` })
      const member = yield* Effect.flip(readIn(root, { filePath: ":bundle.tar:a.txt" }))
      expect(member).toMatchObject({ _tag: "FileNotFound", path: `${root}/bundle.tar:a.txt` })
      // Without the colon, the same paths select.
      expect((yield* readIn(root, { filePath: "notes.txt:2" })).output).toContain("2: two\n3: three")
    }))

  it.effect("a shell-escaped space is recovered when the literal path does not exist", () =>
    Effect.gen(function*() {
      const root = project({ "my notes (1).txt": "hello\n", "back\\ slash.txt": "literal\n" })
      const escaped = yield* readIn(root, { filePath: "my\\ notes\\ \\(1\\).txt" })
      expect(escaped.metadata.path).toBe(`${root}/my notes (1).txt`)
      expect(escaped.output).toContain("1: hello")
      // A name that really holds the backslash is read as written.
      const literal = yield* readIn(root, { filePath: "back\\ slash.txt" })
      expect(literal.output).toContain("1: literal")
    }))
})
