/**
 * The `conflicts` view (`:conflicts`, `view: "conflicts"`): unresolved git merge-conflict
 * regions, from the pure scanner to `read` over real files, archive members and wrong targets.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import { findConflicts, markerOf } from "../src/internal/core/conflicts.js"
import { read } from "../src/Read.js"
import type { ReadResult } from "../src/ReadResult.js"
import { fieldsOf, memoryLayer, nodeLayer, tempDir, writeTree } from "./support/index.js"
import { zip } from "./support/zipFixtures.js"

const roots: Array<string> = []
afterAll(() => {
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true })
})
const project = (files: Readonly<Record<string, string | Uint8Array>>): string => {
  const root = tempDir("effect-read-conflicts-")
  roots.push(root)
  writeTree(root, files)
  return root
}

const lines = (text: string) => text.split("\n")

const TWO_WAY = `keep
<<<<<<< HEAD
const a = 1
=======
const a = 2
>>>>>>> feature/x
tail`

const DIFF3 = `<<<<<<< ours
x = 1
||||||| merged common ancestors
x = 0
=======
x = 2
>>>>>>> theirs`

describe("findConflicts", () => {
  it("a two-way region: its lines, labels and separator", () => {
    expect(findConflicts(lines(TWO_WAY))).toEqual([{
      start: 2,
      end: 6,
      size: 7,
      labels: { ours: "HEAD", base: undefined, theirs: "feature/x" },
      baseMarker: undefined,
      separator: 4,
      depth: 0,
      malformed: undefined
    }])
  })

  it("a diff3 region names its base", () => {
    const [region] = findConflicts(lines(DIFF3))
    expect(region).toMatchObject({
      start: 1,
      end: 7,
      baseMarker: 3,
      separator: 5,
      labels: { ours: "ours", base: "merged common ancestors", theirs: "theirs" }
    })
  })

  it("markers are at least 7 characters at the start of a line; `=======` takes no label", () => {
    expect(markerOf("<<<<<<< HEAD")).toEqual({ char: "<", size: 7, label: "HEAD" })
    expect(markerOf("<<<<<<<")).toEqual({ char: "<", size: 7, label: undefined })
    expect(markerOf(">>>>>>>>> x\r")).toEqual({ char: ">", size: 9, label: "x" })
    expect(markerOf("<<<<<< six")).toBeUndefined()
    expect(markerOf(" <<<<<<< indented")).toBeUndefined()
    expect(markerOf("<<<<<<<HEAD")).toBeUndefined()
    expect(markerOf("======= not a separator")).toBeUndefined()
    expect(markerOf("=======")).toEqual({ char: "=", size: 7, label: undefined })
  })

  it("a setext underline or a quote outside a region is text", () => {
    expect(findConflicts(["Title", "=======", "", ">>>>>>> quoted", "|||||||"])).toEqual([])
  })

  it("longer markers (conflict-marker-size, a recursive merge) hold nested regions of shorter ones", () => {
    const text = [
      "<<<<<<<<< HEAD",
      "outer ours",
      "<<<<<<< Temporary merge branch 1",
      "inner ours",
      "=======",
      "inner theirs",
      ">>>>>>> Temporary merge branch 2",
      "=========",
      "outer theirs",
      ">>>>>>>>> main"
    ]
    const regions = findConflicts(text)
    expect(regions.map((r) => [r.start, r.end, r.size, r.depth, r.separator, r.malformed])).toEqual([
      [1, 10, 9, 0, 8, undefined],
      [3, 7, 7, 1, 5, undefined]
    ])
  })

  it("malformed regions are reported as such: no separator, no closer, a new opener before the closer", () => {
    expect(findConflicts(["<<<<<<< a", "x", ">>>>>>> b"])[0]!.malformed).toBe("no ======= between ours and theirs")
    expect(findConflicts(["<<<<<<< a", "x", "=======", "y"])[0]).toMatchObject({
      start: 1,
      end: 4,
      malformed: "no closing >>>>>>> before the end of the text"
    })
    const twice = findConflicts(["<<<<<<< a", "=======", "y", "<<<<<<< c", "=======", ">>>>>>> d"])
    expect(twice.map((r) => [r.start, r.end, r.malformed])).toEqual([
      [1, 3, "no closing >>>>>>> before line 4"],
      [4, 6, undefined]
    ])
  })
})

describe("the conflicts view through read", () => {
  it.effect(":conflicts shows each region with numbered lines and labels, and counts them", () =>
    Effect.gen(function*() {
      const root = project({ "app.ts": `${TWO_WAY}\n\n${DIFF3}\n` })
      const result = yield* read({ filePath: "app.ts:conflicts" }).pipe(Effect.provide(nodeLayer(root)))
      expect(result.output).toBe([
        `<path>${root}/app.ts</path>`,
        "<type>file</type>",
        "<content>",
        "Conflict 1 of 2: lines 2-6; 2-way; ours HEAD, theirs feature/x",
        "2: <<<<<<< HEAD",
        "3: const a = 1",
        "4: =======",
        "5: const a = 2",
        "6: >>>>>>> feature/x",
        "",
        "Conflict 2 of 2: lines 9-15; 3-way (diff3); ours ours, base merged common ancestors, theirs theirs",
        "9: <<<<<<< ours",
        "10: x = 1",
        "11: ||||||| merged common ancestors",
        "12: x = 0",
        "13: =======",
        "14: x = 2",
        "15: >>>>>>> theirs",
        "",
        "(2 unresolved merge-conflict regions in 15 lines, at lines 2-6, 9-15.)",
        "</content>"
      ].join("\n"))
      expect(result.metadata).toMatchObject({
        kind: "text",
        conflicts: { regions: 2, malformed: 0 },
        ranges: [{ start: 2, end: 6 }, { start: 9, end: 15 }],
        totalLines: 15
      })
      const byView = yield* read({ filePath: "app.ts", view: "conflicts" }).pipe(Effect.provide(nodeLayer(root)))
      expect(byView.output).toBe(result.output)
    }))

  it.effect("a file with none says so; markers in a Markdown code fence are reported, as git sees them", () =>
    Effect.gen(function*() {
      const files = {
        "/project/clean.md": "Title\n=======\n\ntext\n",
        "/project/doc.md": "# Merging\n\n```\n<<<<<<< HEAD\nmine\n=======\nyours\n>>>>>>> branch\n```\n"
      }
      const clean = yield* read({ filePath: "clean.md:conflicts" }).pipe(Effect.provide(memoryLayer(files)))
      expect(clean.output).toBe(
        "<path>/project/clean.md</path>\n<type>file</type>\n<content>\n(No unresolved merge conflicts: no <<<<<<< marker at the start of any of the 4 lines.)\n</content>"
      )
      expect(clean.metadata).toMatchObject({ conflicts: { regions: 0, malformed: 0 }, totalLines: 4 })
      const doc = yield* read({ filePath: "doc.md:conflicts" }).pipe(Effect.provide(memoryLayer(files)))
      expect(doc.output).toContain("Conflict 1 of 1: lines 4-8; 2-way; ours HEAD, theirs branch\n4: <<<<<<< HEAD\n")
    }))

  it.effect("a nested region gets its own heading inside the outer one's lines; a malformed one says why", () =>
    Effect.gen(function*() {
      const files = {
        "/project/n.txt":
          "<<<<<<<<< HEAD\na\n<<<<<<< t1\nb\n=======\nc\n>>>>>>> t2\n=========\nd\n>>>>>>>>> main\n<<<<<<< x\nlost\n"
      }
      const result = yield* read({ filePath: "n.txt:conflicts" }).pipe(Effect.provide(memoryLayer(files)))
      expect(result.output).toContain("Conflict 1 of 3: lines 1-10; 2-way; ours HEAD, theirs main\n1: <<<<<<<<< HEAD\n")
      expect(result.output).toContain(
        "10: >>>>>>>>> main\n\nConflict 2 of 3: lines 3-7; 2-way; ours t1, theirs t2; nested 1 deep\n\n"
      )
      expect(result.output).toContain(
        "Conflict 3 of 3: lines 11-12; 2-way; ours x; malformed: no closing >>>>>>> before the end of the text\n11: <<<<<<< x\n12: lost\n"
      )
      expect(result.output).toContain(
        "(3 unresolved merge-conflict regions in 12 lines, at lines 1-10, 11-12; 1 malformed.)"
      )
    }))

  it.effect("an archive member's conflicts; wrong targets are clear errors", () =>
    Effect.gen(function*() {
      const root = project({ "a.zip": zip([{ name: "src/m.ts", data: `${TWO_WAY}\n` }]), "dir/x.txt": "x" })
      const member = yield* read({ filePath: "a.zip:src/m.ts:conflicts" }).pipe(Effect.provide(nodeLayer(root)))
      expect(member.output).toContain(
        "Conflict 1 of 1: lines 2-6; 2-way; ours HEAD, theirs feature/x\n2: <<<<<<< HEAD\n"
      )
      const onDirectory = yield* Effect.flip(
        read({ filePath: "dir", view: "conflicts" }).pipe(Effect.provide(nodeLayer(root)))
      )
      expect(onDirectory.message).toBe(
        `Invalid parameters: view "conflicts" shows a file's text; ${root}/dir is a directory (its views: list, tree)`
      )
      const treeOfFile = yield* Effect.flip(
        read({ filePath: "dir/x.txt", view: "tree" }).pipe(Effect.provide(nodeLayer(root)))
      )
      expect(treeOfFile._tag).toBe("InvalidParams")
      expect(treeOfFile.message).toContain(`view "tree" lists a directory; ${root}/dir/x.txt is a file`)
      const selectorOnDirectory = yield* Effect.flip(
        read({ filePath: "dir:conflicts" }).pipe(Effect.provide(nodeLayer(root)))
      )
      expect(selectorOnDirectory._tag).toBe("InvalidSelector")
      const withRange = yield* Effect.flip(
        read({ filePath: "dir/x.txt:1-2:conflicts" }).pipe(Effect.provide(nodeLayer(root)))
      )
      // A range with the view is one selector the parser refuses, not a file named x.txt:1-2.
      expect(withRange._tag).toBe("InvalidSelector")
      expect(withRange.message).toContain(":conflicts shows the whole file; it takes no line range.")
    }))
})

/** `count` two-way regions of one line a side, with a kept line between them. */
const manyRegions = (count: number, side = (i: number) => `a${i}`) =>
  Array.from({ length: count }, (_, i) => `k${i}\n<<<<<<< HEAD\n${side(i)}\n=======\nb${i}\n>>>>>>> other\n`).join("")

describe("the conflicts view is paged over regions", () => {
  const headings = (output: string) => [...output.matchAll(/^Conflict (\d+) of (\d+):/gm)].map((m) => Number(m[1]))

  it.effect("many regions: a page of whole regions up to the byte cap, and the offset to continue", () =>
    Effect.gen(function*() {
      const layer = memoryLayer({ "/project/many.ts": manyRegions(3000) })
      const first = yield* read({ filePath: "many.ts:conflicts" }).pipe(Effect.provide(layer))
      const shown = headings(first.output)
      const last = shown.length
      expect(last).toBeGreaterThan(100)
      expect(last).toBeLessThan(3000)
      expect(shown).toEqual(Array.from({ length: last }, (_, i) => i + 1))
      expect(Buffer.byteLength(first.output)).toBeLessThanOrEqual(50 * 1024)
      expect(first.output).toContain(
        `\n${
          6 * last
        }: >>>>>>> other\n\n(Output capped at 50 KB. Showing conflict regions 1-${last} of 3000. Use offset=${
          last + 1
        } to continue.)\n</content>`
      )
      expect(first.metadata).toMatchObject({
        truncated: true,
        nextOffset: last + 1,
        conflicts: { regions: 3000, malformed: 0 }
      })
      // The footer's offset works with the selector and with the view, and counts regions.
      const next = yield* read({ filePath: "many.ts:conflicts", offset: last + 1 }).pipe(Effect.provide(layer))
      expect(next.output).toContain(`<content>\nConflict ${last + 1} of 3000: lines ${6 * last + 2}-${6 * last + 6}; `)
      expect(
        (yield* read({ filePath: "many.ts", view: "conflicts", offset: last + 1 }).pipe(Effect.provide(layer))).output
      )
        .toBe(next.output)
      const limited = yield* read({ filePath: "many.ts", view: "conflicts", offset: 2999, limit: 1 }).pipe(
        Effect.provide(layer)
      )
      expect(headings(limited.output)).toEqual([2999])
      expect(limited.output).toContain("\n(Showing conflict regions 2999-2999 of 3000. Use offset=3000 to continue.)\n")
      const end = yield* read({ filePath: "many.ts", view: "conflicts", offset: 3000 }).pipe(Effect.provide(layer))
      expect(end.output).toContain("(3000 unresolved merge-conflict regions in 18000 lines, at lines 2-6, 8-12,")
      expect(end.metadata.truncated).toBe(false)
      expect(fieldsOf(end).nextOffset).toBeUndefined()
      const past = yield* Effect.flip(
        read({ filePath: "many.ts", view: "conflicts", offset: 3001 }).pipe(Effect.provide(layer))
      )
      expect(past.message).toContain(
        "offset 3001 is past the last conflict region (3000); the conflicts view's offset and limit count regions"
      )
    }))

  it.effect("a region longer than a page is shown to the cap, with the range of the rest", () =>
    Effect.gen(function*() {
      const long = Array.from({ length: 6000 }, (_, i) => `line ${i}`).join("\n")
      const layer = memoryLayer({ "/project/big.ts": manyRegions(3, (i) => i === 1 ? long : `a${i}`) })
      const first = yield* read({ filePath: "big.ts:conflicts" }).pipe(Effect.provide(layer))
      // Region 2 does not fit after region 1: the page ends before it.
      expect(headings(first.output)).toEqual([1])
      expect(first.output).toContain(
        "(Output capped at 50 KB. Showing conflict regions 1-1 of 3. Use offset=2 to continue.)"
      )
      const second = yield* read({ filePath: "big.ts", view: "conflicts", offset: 2 }).pipe(Effect.provide(layer))
      expect(headings(second.output)).toEqual([2])
      const cut =
        /\n(\d+): line \d+\n\n\(Output capped at 50 KB\. Showing conflict regions 2-2 of 3; conflict 2 is longer than a page: read the rest of it with \/project\/big\.ts:(\d+)-6011\. Use offset=3 to continue\.\)/
          .exec(second.output)
      expect(cut).not.toBeNull()
      expect(Number(cut![2])).toBe(Number(cut![1]) + 1)
    }))

  it.effect.prop("following the footer's offset shows every region once, in order", [
    FastCheck.integer({ min: 1, max: 40 }),
    FastCheck.integer({ min: 1, max: 9 })
  ], ([count, limit]) =>
    Effect.gen(function*() {
      const layer = memoryLayer({ "/project/m.txt": manyRegions(count) })
      const seen: Array<number> = []
      let offset: number | undefined = 1
      while (offset !== undefined) {
        const page: ReadResult = yield* read({ filePath: "m.txt", view: "conflicts", offset, limit }).pipe(
          Effect.provide(layer)
        )
        seen.push(...headings(page.output))
        offset = fieldsOf(page).nextOffset
      }
      expect(seen).toEqual(Array.from({ length: count }, (_, i) => i + 1))
    }), { fastCheck: { numRuns: 25 } })
})
