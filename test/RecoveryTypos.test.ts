/**
 * Typo-tolerant suggestions for a missing path (in the file name and in a directory on the
 * way), over real temp directories, and the pure ranking behind them.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fc from "fast-check"
import * as fs from "node:fs"
import {
  editDistance,
  foldKey,
  maxEdits,
  namesLike,
  nameTable,
  nearEntries,
  resemblance,
  resemblanceTo,
  suggestEntries
} from "../src/internal/core/suggest.js"
import * as Permission from "../src/Permission.js"
import { read } from "../src/Read.js"
import { type LayerOptions, nodeLayer, tempDir, writeTree } from "./support/index.js"

const roots: Array<string> = []
afterAll(() => {
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true })
})

const project = (files: Readonly<Record<string, string>>): string => {
  const root = tempDir("effect-read-typos-")
  roots.push(root)
  writeTree(root, files)
  return root
}

const failIn = (root: string, filePath: string, options: LayerOptions = {}) =>
  Effect.flip(read({ filePath }).pipe(Effect.provide(nodeLayer(root, options))))

/** The suggestions of a `FileNotFound`, or the tag of any other failure. */
const suggestionsFor = (root: string, filePath: string, options: LayerOptions = {}) =>
  Effect.map(failIn(root, filePath, options), (error) => error._tag === "FileNotFound" ? error.suggestions : error._tag)

/** The small project of the issue. */
const SMALL = {
  "src/utils.ts": "export {}\n",
  "src/config.json": "{}\n",
  "src/UserService.ts": "export {}\n",
  "src/README.md": "# x\n",
  "test/app.test.ts": "\n"
}

describe("recovery: typos in the file name", () => {
  for (
    const [typed, meant, kind] of [
      ["src/util.ts", "src/utils.ts", "a deletion"],
      ["src/confg.json", "src/config.json", "a deletion"],
      ["src/UserServise.ts", "src/UserService.ts", "a substitution"],
      ["src/READNE.md", "src/README.md", "a substitution"],
      ["src/utlis.ts", "src/utils.ts", "a transposition"],
      ["src/utilss.ts", "src/utils.ts", "an insertion"],
      ["src/userservice.TS", "src/UserService.ts", "case"]
    ] as const
  ) {
    it.effect(`${typed} (${kind}) suggests ${meant}, in today's message format`, () =>
      Effect.gen(function*() {
        const root = project(SMALL)
        const error = yield* failIn(root, typed)
        expect(error._tag).toBe("FileNotFound")
        expect(error.message).toBe(`File not found: ${root}/${typed}\n\nDid you mean one of these?\n${root}/${meant}`)
      }))
  }

  it.effect("best first, at most three: fewer edits before more", () =>
    Effect.gen(function*() {
      const root = project({
        "lib/tokenizers.ts": "",
        "lib/tokeniser.ts": "",
        "lib/tokenizer.ts": "",
        "lib/tokenize.ts": "",
        "lib/tokens.ts": ""
      })
      expect(yield* suggestionsFor(root, "lib/tokenizr.ts")).toEqual([
        `${root}/lib/tokenize.ts`,
        `${root}/lib/tokenizer.ts`,
        `${root}/lib/tokeniser.ts`
      ])
    }))

  it.effect("a near name elsewhere in the workspace is offered after the same directory's", () =>
    Effect.gen(function*() {
      const root = project({ "packages/core/handler.ts": "", "docs/index.md": "" })
      expect(yield* suggestionsFor(root, "docs/handlr.ts")).toEqual([`${root}/packages/core/handler.ts`])
    }))

  it.effect("the same name in another directory is offered when the directories were wrong", () =>
    Effect.gen(function*() {
      const root = project({ "packages/core/src/server.ts": "", "docs/index.md": "" })
      expect(yield* suggestionsFor(root, "lib/server.ts")).toEqual([`${root}/packages/core/src/server.ts`])
    }))
})

describe("recovery: typos in a directory on the way", () => {
  it.effect("scr/utils.ts suggests src/utils.ts (not read: a guess is not a match)", () =>
    Effect.gen(function*() {
      const root = project(SMALL)
      const error = yield* failIn(root, "scr/utils.ts")
      expect(error.message).toBe(
        `File not found: ${root}/scr/utils.ts\n\nDid you mean one of these?\n${root}/src/utils.ts`
      )
    }))

  for (
    const [typed, kind] of [
      ["componets/Button.tsx", "a deletion"],
      ["componentss/Button.tsx", "an insertion"],
      ["componants/Button.tsx", "a substitution"],
      ["compnoents/Button.tsx", "a transposition"],
      ["COMPONENTS/Button.tsx", "case"]
    ] as const
  ) {
    it.effect(`${typed} (${kind} in a directory) suggests components/Button.tsx`, () =>
      Effect.gen(function*() {
        const root = project({ "components/Button.tsx": "", "containers/App.tsx": "" })
        expect(yield* suggestionsFor(root, typed)).toEqual([`${root}/components/Button.tsx`])
      }))
  }

  it.effect("two levels, one at a time, and a typo in the name too", () =>
    Effect.gen(function*() {
      const root = project({ "packages/server/routes.ts": "", "packages/client/app.ts": "" })
      expect(yield* suggestionsFor(root, "pakages/sever/routes.ts")).toEqual([`${root}/packages/server/routes.ts`])
      expect(yield* suggestionsFor(root, "pakages/server/route.ts")).toEqual([`${root}/packages/server/routes.ts`])
    }))

  it.effect("a case variant of a directory, and several near directories best first", () =>
    Effect.gen(function*() {
      const root = project({ "Docs/guide.md": "", "lib1/x.ts": "", "lib2/x.ts": "" })
      expect(yield* suggestionsFor(root, "docs/guide.md")).toEqual([`${root}/Docs/guide.md`])
      expect(yield* suggestionsFor(root, "lib/x.ts")).toEqual([`${root}/lib1/x.ts`, `${root}/lib2/x.ts`])
    }))
})

describe("recovery: nothing unrelated, nothing hidden", () => {
  it.effect("unrelated and too-short names get no suggestion", () =>
    Effect.gen(function*() {
      const root = project({ ...SMALL, "b.ts": "", "ab.ts": "" })
      for (const missing of ["src/zebra.ts", "a.ts", "ac.ts", "xyz/qqq.ts", "src/settings.yaml"]) {
        expect(yield* suggestionsFor(root, missing), missing).toEqual([])
      }
    }))

  it.effect("a name a deny rule hides is never suggested, as a typo or through a mistyped directory", () =>
    Effect.gen(function*() {
      const root = project({ "src/secrets.ts": "TOKEN\n", "srv/secrets.ts": "TOKEN\n", "src/utils.ts": "" })
      const rules: ReadonlyArray<Permission.Rule> = [
        { permission: "read", pattern: "*", action: "allow" },
        { permission: "read", pattern: "src/secrets.ts", action: "deny" },
        { permission: "read", pattern: "srv/secrets.ts", action: "deny" }
      ]
      const options = { permission: Permission.layerRules(rules) }
      for (const missing of ["src/secret.ts", "scr/secrets.ts", "secrets.ts", "lib/secrets.ts"]) {
        expect(yield* suggestionsFor(root, missing, options), missing).toEqual([])
      }
      // Control: without the rule, they are offered.
      expect(yield* suggestionsFor(root, "src/secret.ts")).toEqual([`${root}/src/secrets.ts`, `${root}/srv/secrets.ts`])
      expect(yield* suggestionsFor(root, "scr/secrets.ts")).toEqual([
        `${root}/src/secrets.ts`,
        `${root}/srv/secrets.ts`
      ])
    }))
})

describe("core/suggest.ts (pure)", () => {
  it("editDistance counts insertions, deletions, substitutions and transpositions", () => {
    expect(editDistance("src", "scr", 3)).toBe(1)
    expect(editDistance("util.ts", "utils.ts", 3)).toBe(1)
    expect(editDistance("readne.md", "readme.md", 3)).toBe(1)
    expect(editDistance("kitten", "sitting", 5)).toBe(3)
    expect(editDistance("abc", "abc", 0)).toBe(0)
    // Past the bound it stops and says max + 1.
    expect(editDistance("aaaaaaaa", "bbbbbbbb", 2)).toBe(3)
  })

  it.prop("editDistance is symmetric, zero only for equal strings, and bounded by the longer length", [
    fc.string({ maxLength: 12 }),
    fc.string({ maxLength: 12 })
  ], ([a, b]) => {
    const d = editDistance(a, b, 24)
    expect(editDistance(b, a, 24)).toBe(d)
    expect(d === 0).toBe(a === b)
    expect(d).toBeLessThanOrEqual(Math.max(a.length, b.length))
    // A bound below the distance is reported as bound + 1.
    if (d > 0) expect(editDistance(a, b, d - 1)).toBe(d)
  })

  it.prop("resemblanceTo offers every name a typo away (its letter-count filter never rejects one)", [
    fc.stringMatching(/^[abAB.c]{0,9}$/),
    fc.stringMatching(/^[abAB.c]{0,9}$/)
  ], ([a, b]) => {
    const max = maxEdits(a.toLowerCase())
    const edits = editDistance(a.toLowerCase(), b.toLowerCase(), max)
    const found = resemblanceTo(a)(b)
    if (a !== b && max > 0 && edits <= max) expect(found?.rank).toBeLessThanOrEqual(2)
  })

  it.prop("namesLike finds every name resemblanceTo accepts, or that folds alike, without asking of each", [
    fc.stringMatching(/^[abcAB.\u00e9_1-]{0,14}$/),
    fc.array(fc.stringMatching(/^[abcAB.\u00e9_1-]{1,14}$/), { maxLength: 40 })
  ], ([wanted, names]) => {
    const folded = names.map(foldKey)
    const found = namesLike(nameTable(folded), wanted)
    const resembles = resemblanceTo(wanted)
    const expected = names.flatMap((name, at) =>
      resembles(name, folded[at]) !== undefined || folded[at] === foldKey(wanted) ? [at] : []
    )
    expect(found.filter((at) => expected.includes(at))).toEqual(expected)
    // Each once, in order.
    expect([...found].sort((a, b) => a - b)).toEqual([...new Set(found)])
  }, { fastCheck: { numRuns: 2_000 } })

  it("namesLike narrows: a typo, another extension, containment in both directions, nothing unrelated", () => {
    const names = [
      "fiberRuntime.ts",
      "fiberRuntime.js",
      "runtime.ts",
      "core-effect.ts",
      "Schema.ts",
      "index.js",
      "fiberRuntimeExtra.ts"
    ]
    const table = nameTable(names.map(foldKey))
    expect(namesLike(table, "fibreRuntime.ts").map((at) => names[at])).toEqual([
      "fiberRuntime.ts",
      "fiberRuntime.js",
      "runtime.ts"
    ])
    expect(namesLike(table, "Runtime.ts").map((at) => names[at])).toEqual(["fiberRuntime.ts", "runtime.ts"])
    expect(namesLike(table, "xruntime.ts.bak").map((at) => names[at])).toContain("runtime.ts")
    expect(namesLike(table, "zzz.md")).toEqual([])
  })

  it("the threshold grows with the stem's length", () => {
    expect([maxEdits("a.ts"), maxEdits("ab.ts"), maxEdits("scr"), maxEdits("confg.json"), maxEdits("UserServise.ts")])
      .toEqual([0, 0, 1, 1, 2])
    expect(maxEdits("averyveryverylongname.ts")).toBe(3)
    expect(resemblance("a.ts", "b.ts")).toBeUndefined()
    expect(resemblance("util.ts", "utils.ts")).toEqual({ rank: 2, distance: 1 })
  })

  it("ranks: case or another extension, then typos, then containment", () => {
    expect(suggestEntries("guide.md", ["guide-long.md", "guide.mdx", "Guide.md", "guide.txt"]))
      .toEqual(["Guide.md", "guide.mdx", "guide.txt"])
    expect(suggestEntries("handlr.ts", ["handler-utils.ts", "handle.ts", "handler.ts", "xhandlr.ts.bak"]))
      .toEqual(["handle.ts", "handler.ts", "xhandlr.ts.bak"])
    expect(nearEntries("scr", ["src", "scripts", "sc", "SCR"])).toEqual(["SCR", "sc", "src"])
  })
})
