/**
 * Directory trees (`view: "tree"` or the `:tree` selector) over real temp directories, with
 * mtimes set by `fs.utimesSync` and "now" fixed by `TestClock`, so ages are exact.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/TestClock"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { compactBytes, relativeAge } from "../src/internal/core/tree.js"
import * as Permission from "../src/Permission.js"
import { readUnknown } from "../src/Read.js"
import { fieldsOf, type LayerOptions, nodeLayer, tempDir, writeTree } from "./support/index.js"

const roots: Array<string> = []
afterAll(() => {
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true })
})

/** "Now" for every test: ages are relative to it. */
const NOW = Date.UTC(2025, 0, 15, 12, 0, 0)
const SECOND = 1000
const MINUTE = 60 * SECOND
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

const project = (files: Readonly<Record<string, string | Uint8Array>> = {}): string => {
  const root = tempDir("effect-read-tree-")
  roots.push(root)
  writeTree(root, files)
  return root
}

/** Set the mtime of `relative` (a file or directory) to `age` ms before NOW. */
const age = (root: string, relative: string, ms: number): void => {
  const when = new Date(NOW - ms)
  fs.utimesSync(nodePath.join(root, relative), when, when)
}

const readIn = (root: string, params: unknown, options: LayerOptions = {}) =>
  Effect.zipRight(TestClock.setTime(NOW), readUnknown(params).pipe(Effect.provide(nodeLayer(root, options))))

const failIn = (root: string, params: unknown, options: LayerOptions = {}) => Effect.flip(readIn(root, params, options))

const treePage = (path: string, lines: ReadonlyArray<string>, ...footers: ReadonlyArray<string>): string =>
  `<path>${path}</path>\n<type>directory</type>\n<entries>\n${lines.map((l) => `${l}\n`).join("")}\n${
    footers.join("\n")
  }\n</entries>`

/** The small project of the exact-output tests. */
const smallProject = () => {
  const root = project({
    "src/index.ts": "x".repeat(1536),
    "src/util.ts": "y".repeat(120),
    "README.md": "r".repeat(2048),
    "package.json": "p".repeat(512)
  })
  age(root, "src/index.ts", 2 * MINUTE)
  age(root, "src/util.ts", 3 * HOUR)
  age(root, "src", 2 * MINUTE)
  age(root, "README.md", 2 * DAY)
  age(root, "package.json", 40 * DAY)
  return root
}

const SMALL_TREE = [
  ".",
  "  - src/                    2m ago",
  "    - index.ts    1.5KiB    2m ago",
  "    - util.ts     120B      3h ago",
  "  - README.md     2.0KiB    2d ago",
  "  - package.json  512B      1mo ago"
]

/** The label of a tree line (what comes before the size/age columns). */
const labelOf = (line: string): string => line.split(/ {2,}(?=\S)/).slice(0, 1).join("").trimEnd()
const labels = (output: string): Array<string> =>
  output.split("\n<entries>\n")[1]!.split("\n\n")[0]!.split("\n").map((line) =>
    line.startsWith("  ") ? `${line.match(/^ */)![0]}${labelOf(line.trimStart())}` : labelOf(line)
  )

describe("tree: exact output", () => {
  it.effect("depth 2, newest first, sizes and ages, aligned columns", () =>
    Effect.gen(function*() {
      const root = smallProject()
      const result = yield* readIn(root, { filePath: ".", view: "tree" })
      expect(result.output).toBe(treePage(root, SMALL_TREE, "(Tree, depth 2: 5 entries)"))
      expect(result.title).toBe(".")
      expect(result.metadata).toMatchObject({
        kind: "directory",
        view: "tree",
        path: root,
        truncated: false,
        startLine: 1,
        endLine: 6,
        totalLines: 6,
        preview: SMALL_TREE.join("\n")
      })
      expect(fieldsOf(result).nextOffset).toBeUndefined()
    }))

  it.effect("the :tree selector is the same as view \"tree\"", () =>
    Effect.gen(function*() {
      const root = smallProject()
      const viaSelector = yield* readIn(root, { filePath: `${root}:tree` })
      expect(viaSelector.output).toBe(treePage(root, SMALL_TREE, "(Tree, depth 2: 5 entries)"))
      const sub = yield* readIn(root, { filePath: "src:tree" })
      expect(sub.output).toBe(
        treePage(
          `${root}/src`,
          [".", "  - index.ts  1.5KiB    2m ago", "  - util.ts   120B      3h ago"],
          "(Tree, depth 2: 2 entries)"
        )
      )
    }))

  it.effect("the flat listing stays the default; view \"list\" is the same", () =>
    Effect.gen(function*() {
      const root = smallProject()
      const flat =
        `<path>${root}</path>\n<type>directory</type>\n<entries>\npackage.json\nREADME.md\nsrc/\n\n(3 entries)\n</entries>`
      expect((yield* readIn(root, { filePath: "." })).output).toBe(flat)
      const list = yield* readIn(root, { filePath: ".", view: "list" })
      expect(list.output).toBe(flat)
      expect(fieldsOf(list).view).toBeUndefined()
    }))

  it.effect("paged by offset/limit over the tree's lines", () =>
    Effect.gen(function*() {
      const root = smallProject()
      const first = yield* readIn(root, { filePath: ".", view: "tree", limit: 2 })
      expect(first.output).toBe(
        treePage(
          root,
          SMALL_TREE.slice(0, 2),
          "(Tree, depth 2: 5 entries)",
          "(Showing lines 1-2 of 6. Use offset=3 to continue.)"
        )
      )
      expect(first.metadata).toMatchObject({ truncated: true, startLine: 1, endLine: 2, nextOffset: 3, totalLines: 6 })
      const rest = yield* readIn(root, { filePath: ".", view: "tree", offset: 3 })
      expect(rest.output).toBe(treePage(root, SMALL_TREE.slice(2), "(Tree, depth 2: 5 entries)"))
      const past = yield* failIn(root, { filePath: ".", view: "tree", offset: 7 })
      expect(past._tag).toBe("OffsetOutOfRange")
    }))

  it.effect("an empty directory", () =>
    Effect.gen(function*() {
      const root = project()
      fs.mkdirSync(`${root}/empty`)
      const result = yield* readIn(root, { filePath: "empty", view: "tree" })
      expect(result.output).toBe(treePage(`${root}/empty`, ["."], "(empty directory)"))
    }))

  it.effect("deeper levels are not shown", () =>
    Effect.gen(function*() {
      const root = project({ "a/b/c/d.txt": "d" })
      const result = yield* readIn(root, { filePath: ".", view: "tree" })
      expect(labels(result.output)).toEqual([".", "  - a/", "    - b/"])
    }))
})

describe("tree: caps and pruning", () => {
  it.effect("a sub-directory over 12 entries: the 11 newest, '… N more', then the oldest", () =>
    Effect.gen(function*() {
      const files: Record<string, string> = {}
      for (let i = 1; i <= 15; i++) files[`many/f${String(i).padStart(2, "0")}.txt`] = "x"
      const root = project(files)
      for (let i = 1; i <= 15; i++) age(root, `many/f${String(i).padStart(2, "0")}.txt`, i * MINUTE)
      age(root, "many", 30 * SECOND)
      const result = yield* readIn(root, { filePath: ".", view: "tree" })
      const lines = result.output.split("\n<entries>\n")[1]!.split("\n\n")[0]!.split("\n")
      expect(lines).toEqual([
        ".",
        `${"  - many/".padEnd(15)}${" ".repeat(10)}just now`,
        ...Array.from(
          { length: 11 },
          (_, k) => `    - f${String(k + 1).padStart(2, "0")}.txt  1B        ${k + 1}m ago`
        ),
        "    - … 3 more",
        "    - f15.txt  1B        15m ago"
      ])
      expect(result.output).toContain("(Tree, depth 2: 13 entries; 3 more in capped directories)")
      expect(result.metadata.truncated).toBe(true)
    }))

  it.effect("the directory read itself is never capped", () =>
    Effect.gen(function*() {
      const files: Record<string, string> = {}
      for (let i = 1; i <= 15; i++) files[`f${String(i).padStart(2, "0")}.txt`] = "x"
      const root = project(files)
      for (let i = 1; i <= 15; i++) age(root, `f${String(i).padStart(2, "0")}.txt`, i * MINUTE)
      const result = yield* readIn(root, { filePath: ".", view: "tree" })
      expect(labels(result.output)).toEqual([
        ".",
        ...Array.from({ length: 15 }, (_, k) => `  - f${String(k + 1).padStart(2, "0")}.txt`)
      ])
      expect(result.output).toContain("(Tree, depth 2: 15 entries)")
    }))

  it.effect("node_modules, .git, build output and .DS_Store are pruned, at any level", () =>
    Effect.gen(function*() {
      const root = project({
        "node_modules/x/index.js": "",
        ".git/HEAD": "ref: refs/heads/main\n",
        "dist/out.js": "",
        "build/out.o": "",
        "coverage/lcov.info": "",
        ".DS_Store": "",
        "src/a.ts": "",
        "src/node_modules/y.js": "",
        ".env.example": ""
      })
      const result = yield* readIn(root, { filePath: ".", view: "tree" })
      expect(new Set(labels(result.output))).toEqual(new Set([".", "  - src/", "    - a.ts", "  - .env.example"]))
      expect(result.output).toContain(
        "(Tree, depth 2: 3 entries; pruned: .DS_Store, .git/, build/, coverage/, dist/, node_modules/)"
      )
      expect(result.output).not.toContain("index.js")
    }))

  it.effect(".gitignore is honoured: root and nested files, and the root's when reading a sub-directory", () =>
    Effect.gen(function*() {
      const root = project({
        ".gitignore": "*.log\nsecret/\n",
        "app.log": "",
        "secret/key.txt": "",
        "src/.gitignore": "gen.ts\n",
        "src/gen.ts": "",
        "src/keep.ts": "",
        "src/debug.log": ""
      })
      const whole = yield* readIn(root, { filePath: ".", view: "tree" })
      expect(new Set(labels(whole.output))).toEqual(
        new Set([".", "  - .gitignore", "  - src/", "    - .gitignore", "    - keep.ts"])
      )
      expect(whole.output).toContain("(Tree, depth 2: 4 entries; 4 gitignored)")
      const sub = yield* readIn(root, { filePath: "src", view: "tree" })
      expect(new Set(labels(sub.output))).toEqual(new Set([".", "  - .gitignore", "  - keep.ts"]))
      expect(sub.output).toContain("(Tree, depth 2: 2 entries; 2 gitignored)")
      // The flat listing shows every name.
      const flat = yield* readIn(root, { filePath: "src" })
      expect(flat.output).toContain("debug.log\ngen.ts\nkeep.ts\n")
    }))

  it.effect("a directory that is itself gitignored shows its entries when read by name", () =>
    Effect.gen(function*() {
      const root = project({ ".gitignore": "out/\n", "out/bundle.js": "", "out/maps/bundle.js.map": "", "...": "" })
      const result = yield* readIn(root, { filePath: "out", view: "tree" })
      expect(new Set(labels(result.output))).toEqual(
        new Set([".", "  - bundle.js", "  - maps/", "    - bundle.js.map"])
      )
      // A name `ignore` cannot express is simply never ignored.
      const whole = yield* readIn(root, { filePath: ".", view: "tree" })
      expect(new Set(labels(whole.output))).toEqual(new Set([".", "  - .gitignore", "  - ..."]))
    }))

  it.effect("a symlinked directory is shown but not entered", () =>
    Effect.gen(function*() {
      const outside = project({ "inner.txt": "" })
      const root = project({ "real/file.txt": "" })
      fs.symlinkSync(outside, `${root}/linked`)
      const result = yield* readIn(root, { filePath: ".", view: "tree" })
      expect(new Set(labels(result.output))).toEqual(new Set([".", "  - linked/", "  - real/", "    - file.txt"]))
    }))

  it.effect("a sub-directory the session may not read is shown without its entries", () =>
    Effect.gen(function*() {
      const root = project({ "private/key.txt": "", "public/readme.md": "" })
      const rules: ReadonlyArray<Permission.Rule> = [
        { permission: "read", pattern: "*", action: "allow" },
        { permission: "read", pattern: "private", action: "deny" }
      ]
      const result = yield* readIn(root, { filePath: ".", view: "tree" }, { permission: Permission.layerRules(rules) })
      expect(new Set(labels(result.output))).toEqual(new Set([".", "  - private/", "  - public/", "    - readme.md"]))
      expect(result.output).toContain("(Tree, depth 2: 3 entries; 1 directory not listed (permission))")
    }))
})

describe("tree: misuse", () => {
  it.effect(":tree on a file is InvalidSelector; an unknown view, or a directory view on a file, is InvalidParams", () =>
    Effect.gen(function*() {
      const root = project({ "a.txt": "x\n" })
      const selector = yield* failIn(root, { filePath: "a.txt:tree" })
      expect(selector).toMatchObject({ _tag: "InvalidSelector" })
      expect(selector.message).toBe(`The :tree selector shows a directory as a tree; ${root}/a.txt is a file.`)
      const view = yield* failIn(root, { filePath: ".", view: "graph" })
      expect(view._tag).toBe("InvalidParams")
      // A directory's view on a file says which views a file has.
      const file = yield* failIn(root, { filePath: "a.txt", view: "tree" })
      expect(file._tag).toBe("InvalidParams")
      expect(file.message).toContain(
        `view "tree" lists a directory; ${root}/a.txt is a file (its views: outline, summary, block, conflicts; or none)`
      )
    }))

  it.effect("a directory really named 'x:tree' is listed as written", () =>
    Effect.gen(function*() {
      const root = project({ "x:tree/inner.txt": "" })
      const result = yield* readIn(root, { filePath: "x:tree" })
      expect(result.output).toContain("<entries>\ninner.txt\n")
    }))
})

describe("tree: formatting", () => {
  it("relative ages", () => {
    expect(relativeAge(NOW, NOW)).toBe("just now")
    expect(relativeAge(NOW, NOW + HOUR)).toBe("just now")
    expect(relativeAge(NOW, NOW - 59 * SECOND)).toBe("just now")
    expect(relativeAge(NOW, NOW - MINUTE)).toBe("1m ago")
    expect(relativeAge(NOW, NOW - 59 * MINUTE)).toBe("59m ago")
    expect(relativeAge(NOW, NOW - HOUR)).toBe("1h ago")
    expect(relativeAge(NOW, NOW - 6 * DAY)).toBe("6d ago")
    expect(relativeAge(NOW, NOW - 7 * DAY)).toBe("1w ago")
    expect(relativeAge(NOW, NOW - 30 * DAY)).toBe("1mo ago")
    expect(relativeAge(NOW, NOW - 400 * DAY)).toBe("1y ago")
  })

  it("compact sizes", () => {
    expect(compactBytes(0)).toBe("0B")
    expect(compactBytes(1023)).toBe("1023B")
    expect(compactBytes(1536)).toBe("1.5KiB")
    expect(compactBytes(2 * 1024 * 1024)).toBe("2.0MiB")
    expect(compactBytes(3 * 1024 * 1024 * 1024)).toBe("3.0GiB")
  })
})
