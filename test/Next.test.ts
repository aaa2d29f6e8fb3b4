/**
 * Continuations that survive: every result a read cut carries `metadata.next`, the whole call
 * that continues it (a path that carried a selector rebuilt), and the host's one-line header
 * names the range shown and that call before the content. Properties: following `next` from the
 * first page shows every line (entry, match, row) exactly once and ends with no `next`.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { createRequire } from "node:module"
import * as nodePath from "node:path"
import { outputSchema } from "../src/internal/mcp/outputSchema.js"
import * as Limits from "../src/Limits.js"
import * as ModelResult from "../src/ModelResult.js"
import { read } from "../src/Read.js"
import type { ReadParams } from "../src/Read.js"
import type { ReadResult } from "../src/ReadResult.js"
import { fieldsOf, memoryLayer, nodeLayer, projectDirs } from "./support/index.js"
import { zip } from "./support/zipFixtures.js"

const project = projectDirs()

/** The numbers of the `N: text` rows of an output (a search's context rows `N- text` left out). */
const numbered = (output: string): Array<number> => [...output.matchAll(/^(\d+): /gm)].map((match) => Number(match[1]))

/** Every page from `first` on, by `metadata.next` (at most `max`: a loop fails the test instead of hanging). */
const follow = (first: ReadParams, layer: ReturnType<typeof memoryLayer> | ReturnType<typeof nodeLayer>, max = 500) =>
  Effect.gen(function*() {
    const pages: Array<ReadResult> = []
    let params: ReadParams | undefined = first
    while (params !== undefined) {
      const page: ReadResult = yield* read(params).pipe(Effect.provide(layer))
      pages.push(page)
      params = fieldsOf(page).next
      if (pages.length > max) throw new Error(`more than ${max} pages from ${JSON.stringify(first)}`)
    }
    return pages
  })

/** Lines of text: short ones, long ones (to reach the 50 KB cap), blank ones. */
const textLines = FastCheck.array(
  FastCheck.oneof(
    FastCheck.string({ maxLength: 30 }).map((text) => text.replace(/[\r\n\u2028\u2029\u0085]/g, " ")),
    FastCheck.integer({ min: 1000, max: 1900 }).map((length) => "x".repeat(length)),
    FastCheck.constant("")
  ),
  { minLength: 1, maxLength: 400 }
)

describe("metadata.next", () => {
  it.effect.prop(
    "text: following next from the first page shows every line exactly once and ends with no next",
    [textLines, FastCheck.option(FastCheck.integer({ min: 1, max: 120 }), { nil: undefined })],
    ([lines, limit]) =>
      Effect.gen(function*() {
        const layer = memoryLayer({ "/project/f.txt": `${lines.join("\n")}\n` })
        const pages = yield* follow({ filePath: "f.txt", ...(limit === undefined ? {} : { limit }) }, layer)
        expect(pages.flatMap((page) => numbered(page.output))).toEqual(lines.map((_, i) => i + 1))
        for (const page of pages.slice(0, -1)) expect(fieldsOf(page).truncated).toBe(true)
        expect(fieldsOf(pages.at(-1)!).next).toBeUndefined()
      }),
    { fastCheck: { numRuns: 60 } }
  )

  it.effect.prop(
    "a path with ranges: next keeps what is left of them (as a selector), then reads on past the last",
    [
      FastCheck.integer({ min: 40, max: 200 }),
      FastCheck.uniqueArray(FastCheck.integer({ min: 1, max: 200 }), { minLength: 2, maxLength: 8 })
    ],
    ([total, cuts]) =>
      Effect.gen(function*() {
        // Lines of 1,500 characters: about 33 fit the 50 KB cap, so ranges are cut inside.
        const lines = Array.from({ length: total }, (_, i) => `${i + 1}`.padEnd(1500, "."))
        const layer = memoryLayer({ "/project/f.txt": `${lines.join("\n")}\n` })
        const points = [...new Set(cuts.map((cut) => Math.min(cut, total)))].sort((a, b) => a - b)
        const ranges: Array<readonly [number, number]> = []
        for (let i = 0; i + 1 < points.length; i += 2) ranges.push([points[i]!, points[i + 1]!])
        if (ranges.length < 2) return
        const selector = ranges.map(([a, b]) => `${a}-${b}`).join(",")
        const pages = yield* follow({ filePath: `f.txt:${selector}` }, layer)
        const asked = ranges.flatMap(([a, b]) => Array.from({ length: b - a + 1 }, (_, i) => a + i))
        const last = ranges.at(-1)![1]
        const after = Array.from({ length: total - last }, (_, i) => last + 1 + i)
        expect(pages.flatMap((page) => numbered(page.output))).toEqual([...asked, ...after])
        // A cut inside the ranges continues them by a selector on the same path, never by an offset alone.
        for (const page of pages) {
          const next = fieldsOf(page).next
          if (next !== undefined && numbered(page.output).at(-1)! < last && next.filePath !== "f.txt") {
            expect(next.filePath).toMatch(/^f\.txt:[\d,-]+$/)
            expect(next.offset).toBeUndefined()
          }
        }
      }),
    { fastCheck: { numRuns: 40 } }
  )

  it.effect("a tail cut by the byte cap: next reads the lines it asked for and did not show", () =>
    Effect.gen(function*() {
      const lines = Array.from({ length: 300 }, (_, i) => `${i + 1}`.padEnd(1500, "."))
      const layer = memoryLayer({ "/project/f.txt": `${lines.join("\n")}\n` })
      const tail = yield* read({ filePath: "f.txt:-100" }).pipe(Effect.provide(layer))
      const shown = numbered(tail.output)
      expect(shown.at(-1)).toBe(300)
      expect(shown[0]).toBeGreaterThan(201)
      expect(fieldsOf(tail).next).toEqual({ filePath: "f.txt", offset: 201, limit: shown[0]! - 201 })
      const whole = yield* read({ filePath: "f.txt", offset: -3 }).pipe(Effect.provide(layer))
      expect(fieldsOf(whole).next).toBeUndefined()
    }))

  it.effect.prop(
    "a directory, a search, an outline: each paged by next shows every entry, match or row once",
    [FastCheck.integer({ min: 1, max: 60 }), FastCheck.integer({ min: 1, max: 9 })],
    ([count, limit]) =>
      Effect.gen(function*() {
        const files: Record<string, string> = {}
        for (let i = 0; i < count; i++) files[`/project/d/f${String(i).padStart(3, "0")}.ts`] = "x\n"
        const source = Array.from({ length: count }, (_, i) => `function f${i}() {\n  return ${i}\n}\n`).join("")
        files["/project/m.ts"] = source
        const layer = memoryLayer(files)
        const entries = yield* follow({ filePath: "d", limit }, layer)
        expect(entries.flatMap((page) => [...page.output.matchAll(/^f(\d+)\.ts$/gm)].map((m) => Number(m[1])))).toEqual(
          Array.from({ length: count }, (_, i) => i)
        )
        // From the selector form: the expression, as asked, goes on in `search`.
        const matches = yield* follow({ filePath: "m.ts:/RETURN/i", limit, context: 0 }, layer)
        expect(matches.flatMap((page) => numbered(page.output))).toEqual(
          Array.from({ length: count }, (_, i) => 3 * i + 2)
        )
        expect(matches.slice(1).every((page) => fieldsOf(page).search?.pattern === "/RETURN/i")).toBe(true)
        const outline = yield* follow({ filePath: "m.ts:outline", limit }, layer)
        expect(outline.flatMap((page) => [...page.output.matchAll(/: function f(\d+)\(\)/g)].map((m) => Number(m[1]))))
          .toEqual(
            Array.from({ length: count }, (_, i) => i)
          )
      }),
    { fastCheck: { numRuns: 25 } }
  )

  it.effect("an outline that folds deeper levels: its last page's next asks one level more, until none is folded", () =>
    Effect.gen(function*() {
      const layer = nodeLayer(process.cwd())
      const typescript = "node_modules/typescript/lib/typescript.d.ts"
      const start = yield* read({ filePath: `${typescript}:18-3639:outline`, levels: 1 }).pipe(Effect.provide(layer))
      expect(fieldsOf(start).next).toEqual({ filePath: `${typescript}:18-3639:outline`, levels: 2 })
      const pages = yield* follow({ filePath: `${typescript}:3642-3647:outline`, levels: 1 }, layer)
      expect(pages.map((page) => fieldsOf(page).structure?.levels)).toEqual([1, 2])
      expect(fieldsOf(pages[1]!).structure).toMatchObject({ levels: 2, depth: 2, folded: 0 })
    }))

  it.effect("an archive member and a database table: next goes on through the container", () =>
    Effect.gen(function*() {
      const Database = createRequire(createRequire(import.meta.url).resolve("@effect/sql-sqlite-node/package.json"))(
        "better-sqlite3"
      ) as new(path: string) => { exec(sql: string): void; close(): void }
      const member = Array.from({ length: 95 }, (_, i) => `line ${i + 1}`).join("\n")
      const root = project({ "a.zip": zip([{ name: "dir/log.txt", data: `${member}\n` }]) })
      const db = new Database(nodePath.join(root, "app.db"))
      db.exec(`CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT); ${
        Array.from({ length: 47 }, (_, i) => `INSERT INTO t (v) VALUES ('v${i + 1}');`).join(" ")
      } CREATE TABLE u (id INTEGER); CREATE TABLE w (id INTEGER);`)
      db.close()
      const layer = nodeLayer(root)
      const lines = yield* follow({ filePath: "a.zip:dir/log.txt", limit: 10 }, layer)
      expect(lines.flatMap((page) =>
        numbered(page.output)
      )).toEqual(Array.from({ length: 95 }, (_, i) => i + 1))
      expect(fieldsOf(lines[0]!).next).toEqual({ filePath: "a.zip:dir/log.txt", offset: 11, limit: 10 })
      const rows = yield* follow({ filePath: "app.db:t?limit=10&offset=0" }, layer)
      expect(rows.flatMap((page) => [...page.output.matchAll(/\bv(\d+)\b/g)].map((m) => Number(m[1])))).toEqual(
        Array.from({ length: 47 }, (_, i) => i + 1)
      )
      expect(fieldsOf(rows[0]!).next).toEqual({ filePath: `${root}/app.db:t?limit=10&offset=10` })
      const tables = yield* follow({ filePath: "app.db", limit: 1 }, layer)
      expect(tables.map((page) => /^(\w+) \(/m.exec(page.output.split("<content>\n")[1]!)?.[1])).toEqual([
        "t",
        "u",
        "w"
      ])
    }))

  it.effect("a result shown whole has no next; a block shown as its summary goes on with its lines", () =>
    Effect.gen(function*() {
      const methods = Array.from(
        { length: 400 },
        (_, i) => `    def m${i}(self):\n        a = 1\n        b = 2\n        c = 3\n        return a + b + c\n`
      )
      const layer = memoryLayer({
        "/project/small.txt": "a\nb\n",
        "/project/big.py": `class Big:\n${methods.join("")}`
      })
      expect(fieldsOf(yield* read({ filePath: "small.txt" }).pipe(Effect.provide(layer))).next).toBeUndefined()
      const block = yield* read({ filePath: "big.py:3:block", levels: 2, encoding: "utf-8" }).pipe(
        Effect.provide(layer)
      )
      expect(fieldsOf(block).structure?.view).toBe("summary")
      expect(fieldsOf(block).next).toEqual({ filePath: "/project/big.py", offset: 1, limit: 2001, encoding: "utf-8" })
    }))

  it.effect("a model result carries next; the MCP outputSchema describes it, briefly", () =>
    Effect.gen(function*() {
      const layer = memoryLayer({ "/project/f.txt": "a\nb\nc\n" })
      const page = yield* read({ filePath: "f.txt:1-1" }).pipe(Effect.provide(layer))
      const model = ModelResult.fromReadResult(page, () => "image-content")
      const wire = Schema.encodeSync(ModelResult.ModelReadResult)(model)
      expect((wire.metadata as { readonly next?: unknown }).next).toEqual({ filePath: "f.txt", offset: 2 })
      const schema = JSON.stringify(outputSchema(ModelResult.ModelReadResult))
      expect(schema).toContain(
        "\"next\":{\"type\":\"object\",\"required\":[\"filePath\"],\"properties\":{\"filePath\":{\"type\":\"string\"}}}"
      )
    }))
})

describe("the host's one-line header (Limits.Notices)", () => {
  const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join("\n")
  const files = { "/project/f.txt": `${lines}\n`, "/project/d/a": "", "/project/d/b": "" }
  const withHeader = Layer.merge(memoryLayer(files), Limits.layer({ notices: { header: true } }))

  it.effect("off by default: the output starts with <path>", () =>
    Effect.gen(function*() {
      const page = yield* read({ filePath: "f.txt", limit: 5 }).pipe(Effect.provide(memoryLayer(files)))
      expect(page.output.startsWith("<path>/project/f.txt</path>")).toBe(true)
    }))

  it.effect("on: the range shown and the next call, before the content; a whole result says so", () =>
    Effect.gen(function*() {
      const page = yield* read({ filePath: "f.txt", limit: 5 }).pipe(Effect.provide(withHeader))
      const [first, second] = page.output.split("\n")
      expect(first).toBe("(Lines 1-5 of 30 shown. Next: read {\"filePath\":\"f.txt\",\"offset\":6,\"limit\":5})")
      expect(second).toBe("<path>/project/f.txt</path>")
      // The call in the header is the call in metadata.
      expect(JSON.parse(first!.slice(first!.indexOf("{"), -1))).toEqual(fieldsOf(page).next)
      const whole = yield* read({ filePath: "f.txt" }).pipe(Effect.provide(withHeader))
      expect(whole.output.split("\n")[0]).toBe("(Lines 1-30 of 30 shown: all of it.)")
      const entries = yield* read({ filePath: "d", limit: 1 }).pipe(Effect.provide(withHeader))
      expect(entries.output.split("\n")[0]).toBe(
        "(Entries 1-1 of 2 shown. Next: read {\"filePath\":\"d\",\"offset\":2,\"limit\":1})"
      )
      const search = yield* read({ filePath: "f.txt", search: "line 1", limit: 2 }).pipe(Effect.provide(withHeader))
      expect(search.output.split("\n")[0]).toBe(
        "(Matches 1-2 of 11 shown. Next: read {\"filePath\":\"f.txt\",\"offset\":3,\"limit\":2,\"search\":\"line 1\"})"
      )
      // A host that keeps only the head of a long output still has the way on.
      const head = page.output.slice(0, 120)
      expect(head).toContain("\"offset\":6")
    }))
})
