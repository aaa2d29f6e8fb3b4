/**
 * The flat listing stats only what its order and its page need, and lists exactly what stat-ing
 * every entry listed: the same pages at every offset, on Node and on MemoryFileSystem, with
 * names whose place moves with their `/` (`a` / `a.txt` / `a/`, `Foo` / `foo`), links to
 * directories and dangling links. On Node the entries' own types stand in for stats (only links
 * are stat-ed), and the page is picked out of the order without sorting every name.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { renderDirectory } from "../src/internal/core/render.js"
import { firstInOrder } from "../src/internal/core/select.js"
import { compareNames } from "../src/internal/core/suggest.js"
import * as MemoryFileSystem from "../src/MemoryFileSystem.js"
import * as Read from "../src/Read.js"
import { fieldsOf, memoryLayer, nodeLayer, readCappedListing, tempDir } from "./support/index.js"

/** The listing as it was before: stat every entry (following links), add `/`, sort. */
const reference = (isDirectory: (name: string) => boolean, names: ReadonlyArray<string>): Array<string> =>
  names.map((name) => isDirectory(name) ? `${name}/` : name).sort(compareNames)

const expectedPage = (dir: string, all: ReadonlyArray<string>, offset: number, limit: number) =>
  renderDirectory(dir, { shown: all.slice(offset - 1, offset - 1 + limit), offset, total: all.length, maxBytes: 51200 })

/** Every page of `dir` at `limit`, and a few pages at odd offsets, against the reference. */
const comparePages = (dir: string, all: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    for (const limit of [1, 3, 7, 2000]) {
      for (let offset = 1; offset <= all.length; offset += limit) {
        const result = yield* Read.read({ filePath: dir, offset, limit })
        expect(result.output).toBe(expectedPage(dir, all, offset, limit))
      }
    }
    for (const offset of [2, 5, all.length - 1, all.length].filter((o) => o >= 1 && o <= all.length)) {
      const result = yield* Read.read({ filePath: dir, offset, limit: 4 })
      expect(result.output).toBe(expectedPage(dir, all, offset, 4))
    }
  })

/** Names whose order depends on which of them are directories, and plain ones around them. */
const tricky = {
  files: ["a", "a.txt", "a-b", "A", "a b", "Foo", "foo.txt", "lnk.md", "dang.x", "Z.txt", "z!", "é", "E"],
  dirs: ["foo", "foo-bar", "z", "b", "B.d", "a.b", "dir"],
  // name -> target; `lnk` and `up` lead to directories, `dang` nowhere, `file-link` to a file.
  links: { lnk: "foo", "lnk-": "z", up: "..", dang: "missing", "file-link": "a.txt", "a.txt-": "a-b" }
}
const plain = Array.from({ length: 40 }, (_, i) => `f${String(i).padStart(3, "0")}`)
const plainDirs = Array.from({ length: 15 }, (_, i) => `d${String(i).padStart(3, "0")}`)

describe("directory listing pages", () => {
  it.effect("Node: every page is what stat-ing every entry gave", () => {
    const root = tempDir()
    const dir = nodePath.join(root, "list")
    fs.mkdirSync(dir)
    for (const name of [...tricky.files, ...plain]) fs.writeFileSync(nodePath.join(dir, name), "x")
    for (const name of [...tricky.dirs, ...plainDirs]) fs.mkdirSync(nodePath.join(dir, name))
    for (const [name, target] of Object.entries(tricky.links)) fs.symlinkSync(target, nodePath.join(dir, name))
    const names = fs.readdirSync(dir)
    const all = reference((name) => {
      try {
        return fs.statSync(nodePath.join(dir, name)).isDirectory()
      } catch {
        return false
      }
    }, names)
    // The cases that move: a directory `foo` after `foo.txt`, `Foo` and `foo` apart, links as directories.
    expect(all.indexOf("foo.txt")).toBeLessThan(all.indexOf("foo/"))
    expect(all).toContain("lnk/")
    expect(all).toContain("dang")
    return comparePages(dir, all).pipe(Effect.provide(nodeLayer(root)))
  })

  it.effect("MemoryFileSystem: every page is what stat-ing every entry gave", () => {
    const entries: Record<string, MemoryFileSystem.Entry> = {}
    for (const name of [...tricky.files, ...plain]) entries[`/project/list/${name}`] = "x"
    for (const name of [...tricky.dirs, ...plainDirs]) entries[`/project/list/${name}/.keep`] = ""
    for (const [name, target] of Object.entries(tricky.links)) {
      entries[`/project/list/${name}`] = MemoryFileSystem.symlink(target)
    }
    const directories = new Set([...tricky.dirs, ...plainDirs, "lnk", "lnk-", "up"])
    const names = [...tricky.files, ...plain, ...tricky.dirs, ...plainDirs, ...Object.keys(tricky.links)]
    return comparePages("/project/list", reference((name) => directories.has(name), names)).pipe(
      Effect.provide(memoryLayer(entries))
    )
  })

  it.effect.prop(
    "any names, any mix of files, directories and links: pages match the reference",
    [
      fc.uniqueArray(
        fc.tuple(
          fc.string({
            unit: fc.constantFrom("a", "A", "b", ".", "-", " ", "!", "_", "0", "ß"),
            minLength: 1,
            maxLength: 4
          }),
          fc.constantFrom("file", "dir", "link-dir", "dangling")
        ),
        { selector: ([name]) => name, maxLength: 40 }
      ).map((entries) => entries.filter(([name]) => name !== "." && name !== ".."))
    ],
    ([list]) => {
      const entries: Record<string, MemoryFileSystem.Entry> = { "/project/target/.keep": "" }
      for (const [name, kind] of list) {
        const at = `/project/list/${name}`
        if (kind === "file") entries[at] = "x"
        else if (kind === "dir") entries[`${at}/.keep`] = ""
        else entries[at] = MemoryFileSystem.symlink(kind === "link-dir" ? "../target" : "nowhere")
      }
      if (list.length === 0) entries["/project/list/.keep"] = ""
      const names = list.length === 0 ? [".keep"] : list.map(([name]) => name)
      const kinds = new Map(list.map(([name, kind]) => [name, kind]))
      const all = reference((name) => kinds.get(name) === "dir" || kinds.get(name) === "link-dir", names)
      return comparePages("/project/list", all).pipe(Effect.provide(memoryLayer(entries)))
    },
    { fastCheck: { numRuns: 60 } }
  )

  it.effect.prop(
    "Node, any names, any mix of files, directories and links: pages match the reference",
    [
      fc.uniqueArray(
        fc.tuple(
          fc.string({
            unit: fc.constantFrom("a", "A", "b", ".", "-", " ", "!", "_", "0", "ß"),
            minLength: 1,
            maxLength: 4
          }),
          fc.constantFrom("file", "dir", "link-dir", "link-file", "dangling")
        ),
        { selector: ([name]) => name, maxLength: 40 }
      ).map((entries) => entries.filter(([name]) => name !== "." && name !== ".."))
    ],
    ([list]) => {
      const root = tempDir()
      const dir = nodePath.join(root, "list")
      fs.mkdirSync(dir)
      fs.mkdirSync(nodePath.join(root, "target"))
      fs.writeFileSync(nodePath.join(root, "file"), "x")
      for (const [name, kind] of list) {
        const at = nodePath.join(dir, name)
        if (kind === "file") fs.writeFileSync(at, "x")
        else if (kind === "dir") fs.mkdirSync(at)
        else fs.symlinkSync(kind === "link-dir" ? "../target" : kind === "link-file" ? "../file" : "nowhere", at)
      }
      const kinds = new Map(list.map(([name, kind]) => [name, kind]))
      const all = reference(
        (name) => kinds.get(name) === "dir" || kinds.get(name) === "link-dir",
        list.map(([name]) => name)
      )
      return comparePages(dir, all).pipe(
        Effect.provide(nodeLayer(root)),
        Effect.ensuring(Effect.sync(() => fs.rmSync(root, { recursive: true, force: true })))
      )
    },
    { fastCheck: { numRuns: 30 } }
  )

  it.prop(
    "firstInOrder: the first items of the order, as a whole sort would give them",
    [fc.uniqueArray(fc.string({ maxLength: 5 }), { maxLength: 300 }), fc.nat({ max: 320 })],
    ([items, count]) => {
      const order = (a: string, b: string) => a < b ? -1 : a > b ? 1 : 0
      expect(firstInOrder(items, count, order)).toEqual([...items].sort(order).slice(0, count))
    },
    { fastCheck: { numRuns: 300 } }
  )

  // /usr/share/man/man1 (17,864 entries): its first 2,000 names made a 90 KB page.
  it.effect("a page stops at 50 KB of output; the pages that follow list every entry once", () => {
    const entries: Record<string, MemoryFileSystem.Entry> = {}
    const names = Array.from(
      { length: 1500 },
      (_, i) => `${String(i).padStart(4, "0")}-${"long-manual-page-name".repeat(3)}.1.gz`
    )
    for (const name of names) entries[`/project/man/${name}`] = ""
    return Effect.gen(function*() {
      const { first, listed, shown } = yield* readCappedListing(
        (offset) => Read.read({ filePath: "/project/man", offset }),
        1500,
        (line) => line.endsWith(".1.gz")
      )
      expect(shown).toBeGreaterThan(500)
      expect(first.output).toBe(
        renderDirectory("/project/man", {
          shown: names.slice(0, shown),
          offset: 1,
          total: 1500,
          capped: true,
          maxBytes: 51200
        })
      )
      expect(first.output).toContain(
        `\n\n(Output capped at 50 KB. Showing ${shown} of 1500 entries. Use 'offset' parameter to read beyond entry ${
          shown + 1
        })\n</entries>`
      )
      expect(listed).toEqual(names)
    }).pipe(Effect.provide(memoryLayer(entries)))
  })

  it.effect("a page of a large directory stats its own entries, not the directory's", () => {
    const entries: Record<string, MemoryFileSystem.Entry> = {}
    for (let i = 0; i < 3000; i++) entries[`/project/big/n${String(i).padStart(5, "0")}.txt`] = ""
    for (let i = 0; i < 100; i++) entries[`/project/big/m${String(i).padStart(3, "0")}/.keep`] = ""
    const stats = { count: 0 }
    return Effect.gen(function*() {
      const original = yield* FileSystem.FileSystem
      const counting: FileSystem.FileSystem = {
        ...original,
        stat: (path) => Effect.zipRight(Effect.sync(() => void stats.count++), original.stat(path))
      }
      const result = yield* Read.read({ filePath: "/project/big", offset: 90, limit: 20 }).pipe(
        Effect.provideService(FileSystem.FileSystem, counting)
      )
      expect(result.output).toContain("m099/\nn00000.txt\n")
      expect(fieldsOf(result).totalLines).toBe(3100)
      // The 20 shown, plus the few stats of resolving the path itself.
      expect(stats.count).toBeLessThan(40)
    }).pipe(Effect.provide(memoryLayer(entries)))
  })
})
