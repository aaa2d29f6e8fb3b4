/**
 * Path recovery over real temp directories: a unique suffix match in the workspace is read with
 * a note; ambiguous, ignored, pruned, denied and out-of-bounds matches are not.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/TestClock"
import * as fs from "node:fs"
import { RecoveryLimits } from "../src/Limits.js"
import * as Permission from "../src/Permission.js"
import { read, readUnknown } from "../src/Read.js"
import { type LayerOptions, nodeLayer, tempDir, writeTree } from "./support/index.js"
import { PNG } from "./support/media.js"

const roots: Array<string> = []
afterAll(() => {
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true })
})

const project = (files: Readonly<Record<string, string | Uint8Array>> = {}): string => {
  const root = tempDir("effect-read-recovery-")
  roots.push(root)
  writeTree(root, files)
  return root
}

const readIn = (root: string, params: unknown, options: LayerOptions = {}) =>
  readUnknown(params).pipe(Effect.provide(nodeLayer(root, options)))

const failIn = (root: string, params: unknown, options: LayerOptions = {}) => Effect.flip(readIn(root, params, options))

const note = (from: string, to: string) => `[Path '${from}' not found; resolved to '${to}' via suffix match]`

const filePage = (path: string, lines: ReadonlyArray<string>, footer: string): string =>
  `<path>${path}</path>\n<type>file</type>\n<content>\n${
    lines.map((line) => `${line}\n`).join("")
  }\n${footer}\n</content>`

describe("recovery: unique suffix match", () => {
  it.effect("nested/unique.txt finds a/nested/unique.txt, with a first line saying so", () =>
    Effect.gen(function*() {
      const root = project({ "a/nested/unique.txt": "one\ntwo\n", "b/other.txt": "" })
      const result = yield* readIn(root, { filePath: "nested/unique.txt" })
      expect(result.output).toBe(
        `${note("nested/unique.txt", "a/nested/unique.txt")}\n` +
          filePage(`${root}/a/nested/unique.txt`, ["1: one", "2: two"], "(End of file - total 2 lines)")
      )
      expect(result.title).toBe("a/nested/unique.txt")
      expect(result.metadata.path).toBe(`${root}/a/nested/unique.txt`)
    }))

  it.effect("a bare name anywhere in the workspace, and a selector on the recovered path", () =>
    Effect.gen(function*() {
      const root = project({ "deep/er/still/target.ts": "a\nb\nc\n" })
      const result = yield* readIn(root, { filePath: "target.ts:2" })
      expect(result.output).toBe(
        `${note("target.ts", "deep/er/still/target.ts")}\n` +
          filePage(`${root}/deep/er/still/target.ts`, ["2: b", "3: c"], "(End of file - total 3 lines)")
      )
    }))

  it.effect("an absolute path inside the worktree is matched by its path below the worktree", () =>
    Effect.gen(function*() {
      const root = project({ "pkg/lib/nested/unique.txt": "x\n" })
      const result = yield* readIn(root, { filePath: `${root}/nested/unique.txt` })
      expect(result.output.split("\n")[0]).toBe(note(`${root}/nested/unique.txt`, "pkg/lib/nested/unique.txt"))
      expect(result.metadata.path).toBe(`${root}/pkg/lib/nested/unique.txt`)
    }))

  it.effect("relative to a working directory below the worktree, the whole worktree is searched", () =>
    Effect.gen(function*() {
      const root = project({ "other/nested/unique.txt": "x\n", "work/.keep": "" })
      const result = yield* readIn(root, { filePath: "nested/unique.txt" }, { directory: `${root}/work` })
      expect(result.title).toBe("other/nested/unique.txt")
    }))

  it.effect("a directory can be the match: its listing carries the note", () =>
    Effect.gen(function*() {
      const root = project({ "packages/core/src/index.ts": "", "packages/core/src/util.ts": "" })
      const result = yield* readIn(root, { filePath: "core/src" })
      expect(result.output).toBe(
        `${note("core/src", "packages/core/src")}\n<path>${root}/packages/core/src</path>\n<type>directory</type>\n` +
          `<entries>\nindex.ts\nutil.ts\n\n(2 entries)\n</entries>`
      )
    }))

  it.effect("an image found by suffix: the note comes before the media line", () =>
    Effect.gen(function*() {
      const root = project({ "assets/icons/pixel.png": PNG })
      const result = yield* readIn(root, { filePath: "icons/pixel.png" })
      expect(result.output).toBe(`${note("icons/pixel.png", "assets/icons/pixel.png")}\nImage read successfully`)
      expect(result.attachments).toHaveLength(1)
    }))

  it.effect("look-alike names still recover silently (no note), before any suffix search", () =>
    Effect.gen(function*() {
      const root = project({ "caf\u00e9.txt": "x\n", "sub/cafe\u0301.txt": "y\n" })
      const result = yield* readIn(root, { filePath: "cafe\u0301.txt" })
      expect(result.metadata.path).toBe(`${root}/caf\u00e9.txt`)
      expect(result.output.startsWith("<path>")).toBe(true)
    }))

  it.effect("a look-alike suffix is matched when nothing matches exactly", () =>
    Effect.gen(function*() {
      const root = project({ "docs/it\u2019s/notes.md": "x\n" })
      const result = yield* readIn(root, { filePath: "it's/notes.md" })
      expect(result.title).toBe("docs/it\u2019s/notes.md")
    }))
})

describe("recovery: no unique match", () => {
  it.effect("two matches are ambiguous: FileNotFound suggesting both, shallower first", () =>
    Effect.gen(function*() {
      const root = project({ "b/nested/dup.txt": "", "a/x/nested/dup.txt": "", "c/nested/dup.txt": "" })
      const error = yield* failIn(root, { filePath: "nested/dup.txt" })
      expect(error._tag).toBe("FileNotFound")
      expect(error.message).toBe(
        `File not found: ${root}/nested/dup.txt\n\nDid you mean one of these?\n` +
          `${root}/b/nested/dup.txt\n${root}/c/nested/dup.txt\n${root}/a/x/nested/dup.txt`
      )
    }))

  it.effect("matches under a .gitignored directory or file are not found (root and nested .gitignore)", () =>
    Effect.gen(function*() {
      const root = project({
        ".gitignore": "generated/\n*.tmp\n",
        "generated/nested/only.txt": "",
        "src/cache.tmp": "",
        "pkg/.gitignore": "*.log\n!keep.log\n",
        "pkg/sub/debug.log": "",
        "pkg/sub/keep.log": "kept\n"
      })
      for (const missing of ["nested/only.txt", "cache.tmp", "sub/debug.log"]) {
        const error = yield* failIn(root, { filePath: missing })
        expect(error).toMatchObject({ _tag: "FileNotFound", suggestions: [] })
      }
      // A negated pattern re-includes a file.
      const kept = yield* readIn(root, { filePath: "sub/keep.log" })
      expect(kept.title).toBe("pkg/sub/keep.log")
    }))

  it.effect("an ignored twin does not make a match ambiguous", () =>
    Effect.gen(function*() {
      const root = project({ ".gitignore": "out/\n", "out/lib/conf.json": "{}", "src/lib/conf.json": "{}\n" })
      const result = yield* readIn(root, { filePath: "lib/conf.json" })
      expect(result.title).toBe("src/lib/conf.json")
    }))

  it.effect("node_modules and .git are pruned even without a .gitignore", () =>
    Effect.gen(function*() {
      const root = project({ "node_modules/pkg/index.js": "", ".git/refs/heads/main": "", "src/app.js": "" })
      const fromModules = yield* failIn(root, { filePath: "pkg/index.js" })
      expect(fromModules).toMatchObject({ _tag: "FileNotFound", suggestions: [] })
      const fromGit = yield* failIn(root, { filePath: "heads/main" })
      expect(fromGit).toMatchObject({ _tag: "FileNotFound", suggestions: [] })
    }))

  it.effect("a symlinked directory is not entered", () =>
    Effect.gen(function*() {
      const outside = project({ "nested/secret.txt": "outside\n" })
      const root = project({ "src/.keep": "" })
      fs.symlinkSync(outside, `${root}/linked`)
      const error = yield* failIn(root, { filePath: "nested/secret.txt" })
      expect(error).toMatchObject({ _tag: "FileNotFound", suggestions: [] })
    }))

  it.effect("a path outside the worktree is not searched for in it", () =>
    Effect.gen(function*() {
      const root = project({ "nested/unique.txt": "" })
      const outside = project()
      const error = yield* failIn(root, { filePath: `${outside}/nested/unique.txt` })
      expect(error).toMatchObject({ _tag: "FileNotFound", suggestions: [] })
    }))

  it.effect("suggestions: the same directory first, then workspace entries by base name", () =>
    Effect.gen(function*() {
      const root = project({
        "docs/guide.txt": "",
        "site/guide.mdx": "",
        "other/Guide.md": "",
        "zzz/unrelated.md": ""
      })
      const error = yield* failIn(root, { filePath: "docs/guide.md" })
      expect(error).toMatchObject({
        _tag: "FileNotFound",
        suggestions: [`${root}/docs/guide.txt`, `${root}/other/Guide.md`, `${root}/site/guide.mdx`]
      })
    }))

  it.effect("a file the path names before a colon is suggested first (a member of a document, not a selector)", () =>
    Effect.gen(function*() {
      const root = project({ "docs/report.docx": "x", "notes.txt": "a\n", "lib/document.xml": "" })
      // Seen on a real .docx: the suggestions were only other files named like the member.
      const member = yield* failIn(root, { filePath: "docs/report.docx:word/document.xml" })
      expect(member).toMatchObject({ _tag: "FileNotFound" })
      expect("suggestions" in member && member.suggestions[0]).toBe(`${root}/docs/report.docx`)
      const notSelector = yield* failIn(root, { filePath: "notes.txt:foo/bar" })
      expect(notSelector).toMatchObject({ _tag: "FileNotFound", suggestions: [`${root}/notes.txt`] })
      // A directory before the colon is not a file to suggest.
      const directory = yield* failIn(root, { filePath: "docs:foo/bar" })
      expect(directory).toMatchObject({ _tag: "FileNotFound", suggestions: [] })
    }))

  it.effect("short names are not suggested for merely containing the missing one", () =>
    Effect.gen(function*() {
      const root = project({ "src/data.ts": "", "lib/metadata.ts": "" })
      const error = yield* failIn(root, { filePath: "a.ts" })
      expect(error).toMatchObject({ _tag: "FileNotFound", suggestions: [] })
    }))
})

describe("recovery: permissions", () => {
  it.effect("a denied match is neither resolved to nor named: not found, nothing shown", () =>
    Effect.gen(function*() {
      const root = project({ "app/config/prod.txt": "TOKEN=secret\n" })
      const rules: ReadonlyArray<Permission.Rule> = [
        { permission: "read", pattern: "*", action: "allow" },
        { permission: "read", pattern: "app/config/prod.txt", action: "deny" }
      ]
      const error = yield* failIn(root, { filePath: "config/prod.txt" }, { permission: Permission.layerRules(rules) })
      expect(error).toMatchObject({ _tag: "FileNotFound", suggestions: [] })
      expect(JSON.stringify(error)).not.toContain("TOKEN")
      expect(JSON.stringify(error)).not.toContain("app/config")
    }))

  it.effect("a denied file before a colon is not named", () =>
    Effect.gen(function*() {
      const root = project({ "keys/secret.txt": "TOKEN=secret\n", "keys/public.txt": "" })
      const rules: ReadonlyArray<Permission.Rule> = [
        { permission: "read", pattern: "*", action: "allow" },
        { permission: "read", pattern: "keys/secret.txt", action: "deny" }
      ]
      const error = yield* failIn(root, { filePath: "keys/secret.txt:foo/bar" }, {
        permission: Permission.layerRules(rules)
      })
      expect(error._tag).toBe("FileNotFound")
      expect("suggestions" in error && error.suggestions).not.toContain(`${root}/keys/secret.txt`)
      // Control: allowed, it is named.
      const allowed = yield* failIn(root, { filePath: "keys/secret.txt:foo/bar" })
      expect(allowed).toMatchObject({ _tag: "FileNotFound", suggestions: [`${root}/keys/secret.txt`] })
    }))

  it.effect("the written path is asked about first, as for any read", () =>
    Effect.gen(function*() {
      const root = project({ "app/config/prod.env": "TOKEN=secret\n" })
      const error = yield* failIn(root, { filePath: "config/prod.env" }, {
        permission: Permission.layerRules(Permission.defaultRules)
      })
      expect(error).toMatchObject({ _tag: "PermissionDenied", permission: "read", patterns: ["config/prod.env"] })
    }))

  it.effect("a directory the session may not read is not searched, and nothing in it is suggested", () =>
    Effect.gen(function*() {
      const root = project({ "private/nested/unique.txt": "hidden\n", "public/readme.md": "" })
      const rules: ReadonlyArray<Permission.Rule> = [
        { permission: "read", pattern: "*", action: "allow" },
        { permission: "read", pattern: "private", action: "deny" }
      ]
      const error = yield* failIn(root, { filePath: "nested/unique.txt" }, { permission: Permission.layerRules(rules) })
      expect(error).toMatchObject({ _tag: "FileNotFound", suggestions: [] })
      // Control: allowed, it is found.
      const found = yield* readIn(root, { filePath: "nested/unique.txt" })
      expect(found.title).toBe("private/nested/unique.txt")
    }))

  it.effect("a directory linked out of the workspace is not listed for suggestions unless the session may read there", () =>
    Effect.gen(function*() {
      const outside = project({ "topsecret-notes.txt": "secret\n", "secret.db": "x" })
      const root = project({ "lib/app.ts": "" })
      fs.symlinkSync(outside, `${root}/link-dir`)
      fs.symlinkSync(outside, `${root}/link-outdir`)
      const external = { permission: Permission.layerRules(Permission.defaultRules) }
      // The link itself is denied (the read would leave the workspace), and so is what it lists.
      const direct = yield* failIn(root, { filePath: "link-dir/topsecret-notes.txt" }, external)
      expect(direct).toMatchObject({ _tag: "PermissionDenied", permission: "external_directory" })
      for (const filePath of ["lnk-dir/topsecret-notes.txt", "nk-outdir/sec", "link-dir/topsecret-note.txt"]) {
        const error = yield* failIn(root, { filePath }, external)
        if (filePath.startsWith("link-dir/")) {
          // Named inside the link: the read itself is asked about, and refused.
          expect(error).toMatchObject({ _tag: "PermissionDenied", permission: "external_directory" })
        } else {
          expect([error._tag, "suggestions" in error ? error.suggestions : undefined]).toEqual(["FileNotFound", []])
        }
      }
      // A session that may read outside is shown the names, as it would be shown the listing.
      const allowed = yield* failIn(root, { filePath: "lnk-dir/topsecret-notes.txt" })
      expect(allowed).toMatchObject({ _tag: "FileNotFound", suggestions: [`${root}/link-dir/topsecret-notes.txt`] })
    }))

  it.effect("each directory is asked about at most once per recovery", () =>
    Effect.gen(function*() {
      const root = project({ "ask/nested/one.txt": "", "ask/two.txt": "" })
      const requests: Array<Permission.PermissionRequest> = []
      const asker: Permission.Asker = (request) => Effect.sync(() => (requests.push(request), "reject" as const))
      const rules: ReadonlyArray<Permission.Rule> = [
        { permission: "read", pattern: "*", action: "allow" },
        { permission: "read", pattern: "ask", action: "ask" }
      ]
      const error = yield* failIn(root, { filePath: "ask/missing.txt" }, {
        permission: Permission.layerRules(rules, { asker })
      })
      expect(error).toMatchObject({ _tag: "FileNotFound", suggestions: [] })
      expect(requests.map((r) => r.patterns)).toEqual([["ask"]])
    }))
})

describe("recovery: bounds", () => {
  it.effect("a walk stopped by the entry limit resolves nothing; what it found is suggested", () =>
    Effect.gen(function*() {
      const files: Record<string, string> = { "a/unique.txt": "x\n" }
      for (let i = 0; i < 20; i++) files[`b/file-${i}.txt`] = ""
      const root = project(files)
      const error = yield* failIn(root, { filePath: "unique.txt" }).pipe(
        Effect.provideService(RecoveryLimits, { timeout: "1 minute", maxEntries: 10 })
      )
      expect(error).toMatchObject({ _tag: "FileNotFound", suggestions: [`${root}/a/unique.txt`] })
      // Within the default limits it is resolved.
      const result = yield* readIn(root, { filePath: "unique.txt" })
      expect(result.title).toBe("a/unique.txt")
    }))

  it.effect("a walk stopped by the time limit resolves nothing (a directory that never answers)", () =>
    Effect.gen(function*() {
      const root = project({ "a/unique.txt": "x\n", "slow/inner.txt": "" })
      let listedA = false
      const stalled = Effect.flatMap(
        FileSystem.FileSystem,
        (original) =>
          Effect.flip(read({ filePath: "unique.txt" })).pipe(
            Effect.provideService(FileSystem.FileSystem, {
              ...original,
              readDirectory: (path, options) =>
                path === `${root}/slow` ? Effect.never : original.readDirectory(path, options),
              stat: (path) =>
                Effect.tap(original.stat(path), () => {
                  if (path === `${root}/a/unique.txt`) listedA = true
                })
            })
          )
      ).pipe(Effect.provide(nodeLayer(root)))
      const fiber = yield* Effect.fork(stalled)
      // Wait (in real time) until the walk sleeps on its deadline and has listed a/ (the real
      // filesystem answers in its own time), then move the clock past the deadline.
      while ((yield* TestClock.sleeps()).length === 0 || !listedA) {
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 5)))
      }
      yield* TestClock.adjust("3 seconds")
      const error = yield* Fiber.join(fiber)
      expect(error).toMatchObject({ _tag: "FileNotFound", suggestions: [`${root}/a/unique.txt`] })
    }))
})
