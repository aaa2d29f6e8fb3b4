/**
 * The workspace file index behind path recovery, over real temp directories and real git
 * repositories: git's list in a git work tree (ignored files left out, deleted ones never
 * offered), the walk elsewhere or when git fails, the entry budget, and a kept index that
 * follows files added and removed.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as FileIndex from "../src/FileIndex.js"
import { warmFileIndex } from "../src/internal/read/recovery.js"
import { RecoveryLimits } from "../src/Limits.js"
import { read } from "../src/Read.js"
import { nodeLayer, tempDir, writeTree } from "./support/index.js"

const roots: Array<string> = []
afterAll(() => {
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true })
})

const project = (files: Readonly<Record<string, string>>): string => {
  const root = tempDir("effect-read-index-")
  roots.push(root)
  writeTree(root, files)
  return root
}

const git = (root: string, ...args: ReadonlyArray<string>) =>
  execFileSync("git", ["-c", "init.defaultBranch=main", ...args], { cwd: root, stdio: "pipe" })

/** A real git repository holding `files`, all added to the index (nothing committed). */
const repository = (files: Readonly<Record<string, string>>): string => {
  const root = project(files)
  git(root, "init", "-q")
  git(root, "add", "-A")
  return root
}

const LIMITS = { timeout: "30 seconds", maxEntries: 50_000 } as const

/** Every entry a scan visits, sorted, and whether it was complete and where it came from. */
const scanAll = (index: FileIndex.FileIndexShape, root: string, limits: FileIndex.ScanLimits = LIMITS) =>
  Effect.gen(function*() {
    const seen = new Set<string>()
    const scanned = yield* index.scan(root, limits, (entry) => seen.add(entry.relative))
    return { ...scanned, entries: [...seen].sort() }
  }).pipe(Effect.provide(nodeLayer(root)))

/** The suggestions of a `FileNotFound`, the title of a read, or the tag of any other failure. */
const outcome = (root: string, filePath: string, index?: Layer.Layer<FileIndex.FileIndex>) =>
  read({ filePath }).pipe(
    Effect.provide(index === undefined ? nodeLayer(root) : Layer.merge(nodeLayer(root), index)),
    Effect.match({
      onFailure: (error) => error._tag === "FileNotFound" ? { suggestions: error.suggestions } : { failed: error._tag },
      onSuccess: (result) => ({ read: result.title })
    })
  )

/** A tree with ignored and pruned paths, and what a scan lists of it (with `UNTRACKED` added). */
const RULED_TREE = {
  ".gitignore": "dist/\n*.log\n",
  "src/app.ts": "",
  "src/lib/util.ts": "",
  "dist/app.js": "",
  "debug.log": "",
  "node_modules/pkg/index.js": ""
}
const UNTRACKED = { "notes/todo.md": "" }
const RULED_LISTING = [".gitignore", "notes", "notes/todo.md", "src", "src/app.ts", "src/lib", "src/lib/util.ts"]

describe("FileIndex.perCall", () => {
  it.effect("in a git work tree: git's list, with directories, ignored and pruned paths left out", () =>
    Effect.gen(function*() {
      const root = repository(RULED_TREE)
      // Untracked but not ignored: listed too.
      writeTree(root, UNTRACKED)
      const scanned = yield* scanAll(FileIndex.perCall, root)
      expect(scanned.source).toBe("git")
      expect(scanned.complete).toBe(true)
      expect(scanned.entries).toEqual(RULED_LISTING)
    }))

  it.effect("outside git: the walk, with the same rules", () =>
    Effect.gen(function*() {
      const root = project({ ...RULED_TREE, ...UNTRACKED })
      const scanned = yield* scanAll(FileIndex.perCall, root)
      expect(scanned.source).toBe("walk")
      expect(scanned.complete).toBe(true)
      expect(scanned.entries).toEqual(RULED_LISTING)
    }))

  it.effect("when git fails (a broken .git), the walk answers instead", () =>
    Effect.gen(function*() {
      const root = project({ ".git": "gitdir: /nonexistent\n", "src/app.ts": "" })
      const scanned = yield* scanAll(FileIndex.perCall, root)
      expect(scanned.source).toBe("walk")
      expect(scanned.entries).toEqual(["src", "src/app.ts"])
    }))

  it.effect("a git tree larger than the budget: listing stops there, incomplete", () =>
    Effect.gen(function*() {
      const files: Record<string, string> = {}
      for (let i = 0; i < 300; i++) files[`d${i % 10}/f${i}.txt`] = ""
      const root = repository(files)
      const scanned = yield* scanAll(FileIndex.perCall, root, { timeout: "30 seconds", maxEntries: 50 })
      expect(scanned.source).toBe("git")
      expect(scanned.complete).toBe(false)
      // 50 files and the directories on their way.
      expect(scanned.entries.filter((e) => e.endsWith(".txt")).length).toBe(50)
    }))

  it.effect("a tree larger than the budget without git: the walk stops within it, incomplete", () =>
    Effect.gen(function*() {
      const files: Record<string, string> = {}
      for (let i = 0; i < 300; i++) files[`d${i % 10}/f${i}.txt`] = ""
      const root = project(files)
      const scanned = yield* scanAll(FileIndex.perCall, root, { timeout: "30 seconds", maxEntries: 100 })
      expect(scanned.source).toBe("walk")
      expect(scanned.complete).toBe(false)
      expect(scanned.entries.length).toBeLessThanOrEqual(100)
      expect(scanned.entries.length).toBeGreaterThan(0)
    }))
})

describe("FileIndex: a name filter", () => {
  const files = {
    "a/index.ts": "",
    "b/index.ts": "",
    "b/deep/index.ts": "",
    "b/deep/other.ts": "",
    "c/Index.TS": ""
  }
  /** What a scan with a filter visits, and how often each name was asked about. */
  const filtered = (index: FileIndex.FileIndexShape, root: string) =>
    Effect.gen(function*() {
      const asked = new Map<string, number>()
      const seen: Array<string> = []
      const scanned = yield* index.scan(root, LIMITS, (entry) => seen.push(entry.relative), (name, folded) => {
        asked.set(name, (asked.get(name) ?? 0) + 1)
        // `folded` is the name folded and lower-cased, computed by the index.
        return folded === "index.ts" || name === "deep"
      })
      return { source: scanned.source, seen: [...new Set(seen)].sort(), asked }
    }).pipe(Effect.provide(nodeLayer(root)))
  const expected = ["a/index.ts", "b/deep", "b/deep/index.ts", "b/index.ts", "c/Index.TS"]

  it.effect("git, the walk and a kept index visit only the entries whose name it accepts", () =>
    Effect.gen(function*() {
      const inGit = yield* filtered(FileIndex.perCall, repository(files))
      expect(inGit.source).toBe("git")
      expect(inGit.seen).toEqual(expected)
      const walked = yield* filtered(FileIndex.perCall, project(files))
      expect(walked.source).toBe("walk")
      expect(walked.seen).toEqual(expected)
      const kept = FileIndex.makeCached({ revalidateAfter: "1 hour" })
      const root = repository(files)
      yield* filtered(kept, root)
      expect((yield* filtered(kept, root)).seen).toEqual(expected)
    }))

  it.effect("given a query, a kept index asks only of the names like it; git and the walk ask of every name", () =>
    Effect.gen(function*() {
      const tree = { ...files, "b/indexes.ts": "", "b/idnex.ts": "", "b/unrelated.md": "", "c/index.json": "" }
      const query = {
        like: ["index.ts"],
        // What it accepts resembles `index.ts`, as a query promises: a typo, another extension.
        accepts: (_name: string, folded: string) => ["index.ts", "index.json", "idnex.ts"].includes(folded)
      }
      const queried = (index: FileIndex.FileIndexShape, root: string) =>
        Effect.gen(function*() {
          const asked = new Set<string>()
          const seen = new Set<string>()
          yield* index.scan(root, LIMITS, (entry) => seen.add(entry.relative), {
            ...query,
            accepts: (name, folded) => (asked.add(name), query.accepts(name, folded))
          })
          return { seen: [...seen].sort(), asked }
        }).pipe(Effect.provide(nodeLayer(root)))
      const wanted = ["a/index.ts", "b/deep/index.ts", "b/idnex.ts", "b/index.ts", "c/Index.TS", "c/index.json"]
      const walked = yield* queried(FileIndex.perCall, project(tree))
      expect(walked.seen).toEqual(wanted)
      expect(walked.asked.has("unrelated.md")).toBe(true)
      const kept = FileIndex.makeCached({ revalidateAfter: "1 hour" })
      const root = repository(tree)
      const first = yield* queried(kept, root)
      expect(first.seen).toEqual(wanted)
      // Looked up: the names of other lengths and letters (`unrelated.md`, `a`, `deep`) are never asked about.
      expect(first.asked.has("unrelated.md")).toBe(false)
      expect(first.asked.has("deep")).toBe(false)
      expect(first.asked.has("idnex.ts")).toBe(true)
    }))

  it.effect("each distinct name is asked about once per scan, however many entries bear it", () =>
    Effect.gen(function*() {
      for (
        const [index, root] of [
          [FileIndex.perCall, repository(files)],
          [FileIndex.perCall, project(files)],
          [FileIndex.makeCached({ revalidateAfter: "1 hour" }), project(files)]
        ] as const
      ) {
        const { asked } = yield* filtered(index, root)
        expect(asked.get("index.ts")).toBe(1)
        expect([...asked.values()].every((n) => n === 1)).toBe(true)
      }
    }))
})

describe("recovery in a git work tree", () => {
  it.effect("a unique suffix match from git's list is read with its note; an ignored twin does not count", () =>
    Effect.gen(function*() {
      const root = repository({ ".gitignore": "out/\n", "out/lib/conf.json": "{}", "src/lib/conf.json": "{}\n" })
      expect(yield* outcome(root, "lib/conf.json")).toEqual({ read: "src/lib/conf.json" })
      expect(yield* outcome(root, "lib/conf.jsn")).toEqual({ suggestions: [`${root}/src/lib/conf.json`] })
    }))

  it.effect("typos are suggested from git's list: a tracked name, an untracked one, a mistyped directory", () =>
    Effect.gen(function*() {
      const root = repository({ "packages/core/handler.ts": "", "src/utils.ts": "", "docs/index.md": "" })
      writeTree(root, { "packages/web/routes.ts": "" })
      expect(yield* outcome(root, "docs/handlr.ts")).toEqual({ suggestions: [`${root}/packages/core/handler.ts`] })
      expect(yield* outcome(root, "docs/rotues.ts")).toEqual({ suggestions: [`${root}/packages/web/routes.ts`] })
      expect(yield* outcome(root, "scr/utils.ts")).toEqual({ suggestions: [`${root}/src/utils.ts`] })
      expect(yield* outcome(root, "docs/zebra.ts")).toEqual({ suggestions: [] })
    }))

  it.effect("a directory is matched by suffix too (git lists files only)", () =>
    Effect.gen(function*() {
      const root = repository({ "packages/core/src/index.ts": "" })
      expect(yield* outcome(root, "core/src")).toEqual({ read: "packages/core/src" })
    }))

  it.effect("a file deleted from the work tree but still in git's index is never offered", () =>
    Effect.gen(function*() {
      const root = repository({ "a/nested/gone.txt": "", "b/nested/gone.txt": "" })
      fs.rmSync(`${root}/a/nested/gone.txt`)
      // Git still lists both; only the one on disk is there, so it is the unique match.
      expect(yield* outcome(root, "nested/gone.txt")).toEqual({ read: "b/nested/gone.txt" })
    }))

  it.effect("the budget applies to git's list: past it, nothing is resolved, what was found is suggested", () =>
    Effect.gen(function*() {
      const files: Record<string, string> = { "a/unique.txt": "x\n" }
      for (let i = 0; i < 20; i++) files[`b/file-${i}.txt`] = ""
      const root = repository(files)
      const bounded = yield* outcome(root, "unique.txt").pipe(
        Effect.provideService(RecoveryLimits, { timeout: "1 minute", maxEntries: 10 })
      )
      expect(bounded).toEqual({ suggestions: [`${root}/a/unique.txt`] })
      expect(yield* outcome(root, "unique.txt")).toEqual({ read: "a/unique.txt" })
    }))
})

/**
 * Every directory of `root` (and git's index) stamped a minute ago. A kept list trusts an mtime
 * only when it is older than the listing by more than the racy margin: tests that check a list
 * is kept set their tree's mtimes in the past first. Settled twice at the same time, the
 * worktree's mtime is the same: what a test adds then goes unnoticed by the stamp.
 */
const A_MINUTE_AGO = new Date(Date.now() - 60_000)
const settle = (root: string, past: Date = A_MINUTE_AGO) => {
  const visit = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory() && entry.name !== ".git") visit(`${dir}/${entry.name}`)
    }
    fs.utimesSync(dir, past, past)
  }
  visit(root)
  if (fs.existsSync(`${root}/.git/index`)) fs.utimesSync(`${root}/.git/index`, past, past)
}

/** Node's filesystem through the service (not recognised as Node's: the walk goes through it), directories listed counted. */
const countingListings = (root: string) => {
  const counted = { listings: 0 }
  const layer = Layer.effect(
    FileSystem.FileSystem,
    Effect.map(FileSystem.FileSystem, (fs): FileSystem.FileSystem => ({
      ...fs,
      readDirectory: (path, options) => {
        counted.listings++
        return fs.readDirectory(path, options)
      }
    }))
  ).pipe(Layer.provide(nodeLayer(root)))
  return { counted, layer: Layer.merge(nodeLayer(root), layer) }
}

describe("FileIndex.layerCached", () => {
  it.effect("keeps the list: a later scan lists nothing again while nothing it watches moved", () =>
    Effect.gen(function*() {
      const root = repository({ "src/utils.ts": "", "src/app.ts": "" })
      settle(root)
      const index = FileIndex.makeCached({ revalidateAfter: "1 hour" })
      const first = yield* scanAll(index, root)
      expect(first.source).toBe("cache")
      // Untracked, below the top: neither the worktree's mtime nor git's index moved.
      writeTree(root, { "src/new.ts": "" })
      expect((yield* scanAll(index, root)).entries).toEqual(first.entries)
      // A read through the kept index: the list is the kept one, the files checked on disk.
      const kept = Layer.succeed(FileIndex.FileIndex, index)
      expect(yield* outcome(root, "lib/utils.ts", kept)).toEqual({ suggestions: [`${root}/src/utils.ts`] })
    }))

  it.effect("git: files added to git's index and files removed are followed at once", () =>
    Effect.gen(function*() {
      const root = repository({ "src/app.ts": "" })
      settle(root)
      const index = FileIndex.makeCached({ revalidateAfter: "1 hour" })
      expect((yield* scanAll(index, root)).entries).toEqual(["src", "src/app.ts"])
      writeTree(root, { "lib/deep/handler.ts": "" })
      git(root, "add", "-A")
      expect((yield* scanAll(index, root)).entries).toContain("lib/deep/handler.ts")
      // Through a read, with one index kept across reads.
      const kept = Layer.succeed(FileIndex.FileIndex, index)
      expect(yield* outcome(root, "deep/handler.ts", kept)).toEqual({ read: "lib/deep/handler.ts" })
      fs.rmSync(`${root}/lib/deep/handler.ts`)
      expect(yield* outcome(root, "deep/handler.ts", kept)).toEqual({ suggestions: [] })
    }))

  it.effect("without git: a file added at the top is followed at once; deeper, after invalidate", () =>
    Effect.gen(function*() {
      const root = project({ "src/app.ts": "" })
      settle(root)
      const index = FileIndex.makeCached({ revalidateAfter: "1 hour" })
      expect((yield* scanAll(index, root)).entries).toEqual(["src", "src/app.ts"])
      // The worktree's own mtime moved: listed again. (Timestamps are coarse: a file added in the
      // clock tick of the listing may leave it as it was, so the test moves it for sure.)
      writeTree(root, { "README.md": "" })
      settle(root, new Date(A_MINUTE_AGO.getTime() - 60_000))
      expect((yield* scanAll(index, root)).entries).toContain("README.md")
      // Deeper down only the directory's mtime moved: the kept list holds until invalidated (or
      // checked in the background past revalidateAfter).
      writeTree(root, { "src/routes.ts": "" })
      expect((yield* scanAll(index, root)).entries).not.toContain("src/routes.ts")
      yield* index.invalidate(root)
      expect((yield* scanAll(index, root)).entries).toContain("src/routes.ts")
    }))

  it.effect("a file added in the clock tick of the listing is found by the next scan (a racy stamp proves nothing)", () =>
    Effect.gen(function*() {
      const root = project({ "src/app.ts": "" })
      settle(root)
      // The worktree changed just now: its mtime is within the racy margin of the listing.
      const now = new Date()
      fs.utimesSync(root, now, now)
      const index = FileIndex.makeCached({ revalidateAfter: "1 hour" })
      expect((yield* scanAll(index, root)).entries).toEqual(["src", "src/app.ts"])
      // A file added in the same tick: the worktree's mtime stays the one the listing stamped.
      writeTree(root, { "README.md": "" })
      fs.utimesSync(root, now, now)
      expect((yield* scanAll(index, root)).entries).toContain("README.md")
      // The same in a directory below: only the kept directories' mtimes could tell, and they
      // were within the margin too.
      writeTree(root, { "src/routes.ts": "" })
      fs.utimesSync(`${root}/src`, now, now)
      expect((yield* scanAll(index, root)).entries).toContain("src/routes.ts")
      // Once the tree is older than the margin, the list is kept again.
      settle(root)
      yield* scanAll(index, root)
      writeTree(root, { "src/later.ts": "" })
      settle(root)
      expect((yield* scanAll(index, root)).entries).not.toContain("src/later.ts")
    }))

  it.effect("git: an index written in the clock tick of the listing is read again by the next scan", () =>
    Effect.gen(function*() {
      const root = repository({ "src/app.ts": "" })
      settle(root)
      const now = new Date()
      fs.utimesSync(`${root}/.git/index`, now, now)
      const index = FileIndex.makeCached({ revalidateAfter: "1 hour" })
      expect((yield* scanAll(index, root)).entries).toEqual(["src", "src/app.ts"])
      // A path added to git's index in the same tick, the index's size the same: a rename.
      fs.renameSync(`${root}/src/app.ts`, `${root}/src/api.ts`)
      git(root, "add", "-A")
      fs.utimesSync(`${root}/.git/index`, now, now)
      settle(root)
      fs.utimesSync(`${root}/.git/index`, now, now)
      expect((yield* scanAll(index, root)).entries).toEqual(["src", "src/api.ts"])
    }))

  it.effect("warmFileIndex lists the workspace ahead: the first miss after it lists nothing", () =>
    Effect.gen(function*() {
      const root = project({ "src/utils.ts": "", "docs/guide.md": "" })
      settle(root)
      const { counted, layer } = countingListings(root)
      const index = Layer.succeed(FileIndex.FileIndex, FileIndex.makeCached({ revalidateAfter: "1 hour" }))
      yield* warmFileIndex.pipe(Effect.provide(Layer.merge(layer, index)))
      const listed = counted.listings
      expect(listed).toBe(3)
      const missed = yield* read({ filePath: "lib/utils.ts" }).pipe(
        Effect.provide(Layer.merge(layer, index)),
        Effect.flip
      )
      expect(missed._tag === "FileNotFound" && missed.suggestions).toEqual([`${root}/src/utils.ts`])
      // Recovery listed the directory on the missing path's way (the worktree), not the workspace.
      expect(counted.listings).toBe(listed + 1)
      // The default index keeps nothing: nothing to warm.
      yield* warmFileIndex.pipe(Effect.provide(layer))
      expect(counted.listings).toBe(listed + 1)
    }))

  it.effect("past revalidateAfter, the directories' mtimes are compared in the background: listed again only when one moved", () =>
    Effect.gen(function*() {
      const root = project({ "src/app.ts": "", "docs/guide.md": "" })
      settle(root)
      const { counted, layer } = countingListings(root)
      const index = FileIndex.makeCached({ revalidateAfter: 0 })
      const scan = Effect.gen(function*() {
        const seen = new Set<string>()
        yield* index.scan(root, LIMITS, (entry) => seen.add(entry.relative))
        return seen
      }).pipe(Effect.provide(layer))
      /** Scans until `done` holds (each past revalidateAfter: a check runs in the background); a deadline only to catch a hang. */
      const scanUntil = (done: (seen: Set<string>) => boolean) =>
        Effect.gen(function*() {
          for (let i = 0; i < 1000; i++) {
            const seen = yield* scan
            if (done(seen)) return seen
            yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 10)))
          }
          return yield* scan
        })
      yield* scan
      const listed = counted.listings
      expect(listed).toBe(3)
      // Nothing moved: checked several times over, never listed again.
      for (let i = 0; i < 5; i++) {
        yield* scan
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 10)))
      }
      expect(counted.listings).toBe(listed)
      // A file created deep down moves its directory's mtime: a check finds it, the list is made again.
      writeTree(root, { "src/routes.ts": "" })
      const seen = yield* scanUntil((seen) => seen.has("src/routes.ts"))
      expect(seen.has("src/routes.ts")).toBe(true)
      expect(counted.listings).toBeGreaterThan(listed)
    }))
})
