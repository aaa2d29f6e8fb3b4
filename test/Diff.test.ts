/**
 * The pure line diff behind "changed since your last read": Myers' shortest edit script (bounded),
 * unified hunks that apply, and the split into changes within and outside the lines shown.
 */
import { describe, expect, it } from "@effect/vitest"
import * as FastCheck from "effect/FastCheck"
import * as Diff from "../src/internal/core/diff.js"

const bounds = { maxEdits: 10_000, maxWork: 10_000_000 }
const limits: Diff.ChangeLimits = { ...bounds, maxDiffLines: 1_000, maxDiffChars: 1_000_000, context: 3 }

const blocksOf = (a: ReadonlyArray<string>, b: ReadonlyArray<string>, options = bounds) =>
  Diff.diffBlocks(a.length, b.length, (i, j) => a[i] === b[j], options)

const hunksOf = (a: ReadonlyArray<string>, b: ReadonlyArray<string>) =>
  Diff.unifiedHunks(blocksOf(a, b)!, a.length, (i) => a[i]!, (j) => b[j]!, { context: 3 })

const lcs = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): number => {
  const row = new Array<number>(b.length + 1).fill(0)
  for (let i = 1; i <= a.length; i++) {
    let diagonal = 0
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!
      row[j] = a[i - 1] === b[j - 1] ? diagonal + 1 : Math.max(row[j]!, row[j - 1]!)
      diagonal = above
    }
  }
  return row[b.length]!
}

/** `lines` with line `i` (0-based) replaced. */
const withLine = (lines: ReadonlyArray<string>, i: number, text: string) =>
  lines.map((line, j) => j === i ? text : line)

const seenOf = (lines: ReadonlyArray<string>, shown: (line: number) => boolean = () => true): Diff.SeenVersion => ({
  hashes: lines.map(Diff.hashLine),
  lines: new Map(lines.flatMap((text, i) => shown(i + 1) ? [[i + 1, text] as const] : []))
})
const nowOf = (lines: ReadonlyArray<string>): Diff.NowVersion => ({ lines, hashes: lines.map(Diff.hashLine) })

/** Lines from a small alphabet (so old and new share many), and an edited copy. */
const edited = FastCheck.array(FastCheck.constantFrom("a", "b", "c", "d", "e", "}"), { maxLength: 60 }).chain((old) =>
  FastCheck.array(
    FastCheck.record({
      at: FastCheck.nat(),
      remove: FastCheck.nat({ max: 3 }),
      insert: FastCheck.array(FastCheck.constantFrom("a", "x", "y", "}"), { maxLength: 3 })
    }),
    { maxLength: 5 }
  ).map((edits) => {
    const next = [...old]
    for (const edit of edits) {
      next.splice(next.length === 0 ? 0 : edit.at % (next.length + 1), edit.remove, ...edit.insert)
    }
    return [old, next] as const
  })
)

describe("diff", () => {
  it("a small change: one hunk with three lines of context", () => {
    const old = ["1", "2", "3", "4", "5", "6", "7", "8", "9"]
    const now = ["1", "2", "3", "4", "five", "5b", "6", "7", "8", "9"]
    expect(hunksOf(old, now)).toEqual(["@@ -2,7 +2,8 @@", " 2", " 3", " 4", "-5", "+five", "+5b", " 6", " 7", " 8"])
    expect(hunksOf([], ["x"])).toEqual(["@@ -0,0 +1 @@", "+x"])
    expect(hunksOf(["x", "y"], ["y"])).toEqual(["@@ -1,2 +1 @@", "-x", " y"])
  })

  it.prop(
    "applying the hunks to the old lines gives the new; the script is a shortest one",
    [edited],
    ([[old, now]]) => {
      const blocks = blocksOf(old, now)!
      expect(Diff.applyHunks(old, hunksOf(old, now))).toEqual(now)
      const edits = blocks.reduce((sum, b) => sum + (b.oldEnd - b.oldStart) + (b.newEnd - b.newStart), 0)
      expect(edits).toBe(old.length + now.length - 2 * lcs(old, now))
    }
  )

  it("the bounds give up instead of working on: too many edits, too much work", () => {
    const old = Array.from({ length: 200 }, (_, i) => `old ${i}`)
    const now = Array.from({ length: 200 }, (_, i) => `new ${i}`)
    expect(blocksOf(old, now, { maxEdits: 399, maxWork: 1e9 })).toBeUndefined()
    expect(blocksOf(old, now, { maxEdits: 400, maxWork: 1e9 })).toHaveLength(1)
    const scattered = old.map((line, i) => i % 2 === 0 ? line : `changed ${i}`)
    expect(blocksOf(old, scattered, { maxEdits: 1e6, maxWork: 1_000 })).toBeUndefined()
    // A common head and tail cost nothing against the bounds.
    const long = Array.from({ length: 100_000 }, (_, i) => `line ${i}`)
    const one = withLine(long, 50_000, "changed")
    expect(blocksOf(long, one, { maxEdits: 2, maxWork: 10 })).toEqual([
      { oldStart: 50_000, oldEnd: 50_001, newStart: 50_000, newEnd: 50_001 }
    ])
  })

  it.prop(
    "changeSince with the whole file shown: the hunks turn what was shown into the file now",
    [edited],
    ([[old, now]]) => {
      const change = Diff.changeSince(seenOf(old), nowOf(now), limits)
      if (old.join("\n") === now.join("\n")) expect(change._tag).toBe("NoLineChanged")
      else {
        expect(change).toMatchObject({ _tag: "Lines", outsideRemoved: 0, outsideAdded: 0 })
        if (change._tag === "Lines") expect(Diff.applyHunks(old, change.hunks!)).toEqual(now)
      }
    }
  )

  it.prop(
    "changeSince with some lines shown: hunks touch only shown lines; with no change elsewhere they give the new text there",
    [edited, FastCheck.nat({ max: 60 }), FastCheck.nat({ max: 30 })],
    ([[old, now], from, span]) => {
      const shown = (line: number) => line > from && line <= from + span
      const change = Diff.changeSince(seenOf(old, shown), nowOf(now), limits)
      if (change._tag !== "Lines" || change.hunks === undefined) return
      const hidden = "\u0000not shown"
      const masked = old.map((text, i) => shown(i + 1) ? text : hidden)
      // A hunk that read a line not shown would not apply to the masked text.
      const applied = Diff.applyHunks(masked, change.hunks)
      if (change.outsideRemoved + change.outsideAdded === 0) {
        expect(applied).toHaveLength(now.length)
        applied.forEach((text, j) => text !== hidden && expect(text).toBe(now[j]))
      }
    },
    { fastCheck: { numRuns: 2_000 } }
  )

  it("a hunk's context stops at a change left out (its line numbers stay those of the file now)", () => {
    // Lines 1-6 removed (1 not shown, so the removal is outside); "}" inserted between 7 and 8.
    const old = ["b", "d", "c", "b", "e", "e", "a", "e", "b"]
    const now = ["a", "}", "e", "b"]
    const change = Diff.changeSince(seenOf(old, (line) => line >= 2 && line <= 8), nowOf(now), limits)
    expect(change).toMatchObject({ _tag: "Lines", added: 1, outsideRemoved: 6 })
    if (change._tag === "Lines") expect(change.hunks).toEqual(["@@ -7,2 +1,3 @@", " a", "+}", " e"])
  })

  it("a change outside the shown lines is counted, not shown; an insertion at a shown range's edge is outside", () => {
    const old = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`)
    const shown = (line: number) => line >= 5 && line <= 10
    expect(Diff.changeSince(seenOf(old, shown), nowOf(withLine(old, 14, "changed")), limits)).toEqual({
      _tag: "Lines",
      removed: 0,
      added: 0,
      outsideRemoved: 1,
      outsideAdded: 1,
      hunks: undefined
    })
    const after10 = [...old.slice(0, 10), "new", ...old.slice(10)]
    expect(Diff.changeSince(seenOf(old, shown), nowOf(after10), limits)).toMatchObject({ added: 0, outsideAdded: 1 })
    // A change reaching past the shown lines is not shown in part.
    const across = old.map((text, i) => i >= 8 && i <= 12 ? `${text}!` : text)
    expect(Diff.changeSince(seenOf(old, shown), nowOf(across), limits)).toMatchObject({
      removed: 0,
      outsideRemoved: 5,
      outsideAdded: 5
    })
    // Inside and outside together: the hunk shows the inside one.
    const both = withLine(withLine(old, 6, "seven"), 17, "eighteen")
    const change = Diff.changeSince(seenOf(old, shown), nowOf(both), limits)
    expect(change).toMatchObject({ removed: 1, added: 1, outsideRemoved: 1, outsideAdded: 1 })
    expect(change._tag === "Lines" && change.hunks).toEqual([
      "@@ -5,6 +5,6 @@",
      " line 5",
      " line 6",
      "-line 7",
      "+seven",
      " line 8",
      " line 9",
      " line 10"
    ])
    expect(Diff.changeNotice("/p", change)[0]).toBe(
      "(Changed since your last read: 1 line removed, 1 added in the lines you were shown; 1 line removed, 1 added elsewhere. The diff against what you were shown:)"
    )
  })

  it("a large change is counts only; a huge one is 'too different'; a collision of hashes shows no hunks", () => {
    const old = Array.from({ length: 100 }, (_, i) => `line ${i + 1}`)
    const rewritten = old.map((text, i) => i % 3 === 0 ? text.toUpperCase() : text)
    const large = Diff.changeSince(seenOf(old), nowOf(rewritten), { ...limits, maxDiffLines: 40 })
    expect(large).toMatchObject({ _tag: "Lines", removed: 34, added: 34, hunks: undefined })
    expect(Diff.changeNotice("/p", large)).toEqual([
      "(Changed since your last read: 34 lines removed, 34 added in the lines you were shown; too many to show as a diff.)"
    ])
    const huge = Diff.changeSince(seenOf(old), nowOf(rewritten), { ...limits, maxEdits: 10 })
    expect(huge).toEqual({ _tag: "TooDifferent", oldLines: 100, newLines: 100 })
    // Two different lines with one hash: counted, but hunks from the shown text would not apply.
    const seen = seenOf(old)
    const forged = nowOf(withLine(withLine(old, 50, "changed"), 2, "forged"))
    const collided = { ...forged, hashes: Array.from(forged.hashes).map((hash, j) => j === 2 ? seen.hashes[2]! : hash) }
    expect(Diff.changeSince(seen, collided, limits)).toMatchObject({ removed: 1, added: 1, hunks: undefined })
  })

  it("splitLines splits as the pager counts; hashLine tells lines apart", () => {
    expect(Diff.splitLines("a\r\nb\rc\nd\n")).toEqual(["a", "b", "c", "d"])
    expect(Diff.splitLines("a\n\n")).toEqual(["a", ""])
    expect(Diff.splitLines("")).toEqual([])
    expect(Diff.hashLine("a")).not.toBe(Diff.hashLine("b"))
    expect(Number.isSafeInteger(Diff.hashLine("x".repeat(1000)))).toBe(true)
  })
})
