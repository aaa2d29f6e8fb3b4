/**
 * Hashline anchors: the `lineFormat: "hashline"` output (golden), where it is suppressed and says
 * so, and `Anchors.verify` for an Edit: valid, moved after lines are added above, stale after the
 * lines change — over real temp directories. The pure parts (tag, locate, diff) get properties.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Layer from "effect/Layer"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as nodePath from "node:path"
import * as Anchors from "../src/Anchors.js"
import {
  linesBetween,
  linesOf,
  locate,
  normalize,
  tagOf,
  unifiedDiff,
  xxHash32
} from "../src/internal/core/hashline.js"
import * as Permission from "../src/Permission.js"
import { read, readUnknown } from "../src/Read.js"
import type { ReadError } from "../src/ReadError.js"
import * as ReadMany from "../src/ReadMany.js"
import * as ReadTool from "../src/ReadTool.js"
import * as SessionMemory from "../src/SessionMemory.js"
import { fieldsOf, nodeLayer, projectDirs, ustar } from "./support/index.js"
import type { LayerOptions } from "./support/index.js"

const project = projectDirs()

/**
 * The layers of `read` with an anchor store of its own (so tests do not share the process-wide
 * one); the store is made here, so every provide of this layer sees the same one.
 */
const layerIn = (root: string, options: LayerOptions = {}) =>
  Layer.merge(nodeLayer(root, options), Layer.succeed(Anchors.AnchorStore, Anchors.makeAnchorStore()))

const numberedText = (count: number, trailing = "") =>
  Array.from({ length: count }, (_, i) => `line ${i + 1}`).join("\n") + trailing

const page = (path: string, lines: ReadonlyArray<string>, footer: string) =>
  `<path>${path}</path>\n<type>file</type>\n<content>\n${
    lines.map((line) => `${line}\n`).join("")
  }\n${footer}\n</content>`

describe("the tag", () => {
  it("is oh-my-pi's: low 16 bits of xxHash32 over the normalised whole text", () => {
    expect(tagOf("alpha\nbeta\n")).toBe("0063")
    expect(tagOf("Hello, world!\nLine 2\nLine 3")).toBe("4A4D")
    expect(tagOf(numberedText(50))).toBe("82D9")
    expect(tagOf(numberedText(10))).toBe("CE18")
    expect(tagOf(numberedText(20))).toBe("9702")
    expect(tagOf(numberedText(30))).toBe("71C6")
    expect(tagOf(numberedText(12, "\n"))).toBe("FBDA")
  })

  it("xxHash32 matches the reference vectors", () => {
    const bytes = (text: string) => new TextEncoder().encode(text)
    expect(xxHash32(bytes(""))).toBe(0x02cc5d05)
    expect(xxHash32(bytes("a"))).toBe(0x550d7456)
    expect(xxHash32(bytes("abc"))).toBe(0x32d153ff)
    expect(xxHash32(bytes("Nobody inspects the spammish repetition"))).toBe(0xe2293b2f)
  })

  it.prop(
    "line endings and trailing spaces or tabs do not change it; any other edit of a line changes the text it hashes",
    [
      FastCheck.array(FastCheck.string({ unit: FastCheck.constantFrom("a", "b", " ", "\t", "é", "x") }), {
        maxLength: 20
      }),
      FastCheck.constantFrom("\n", "\r\n", "\r")
    ],
    ([lines, eol]) => {
      const lf = lines.join("\n")
      const other = lines.map((line) => `${line} \t`).join(eol)
      expect(tagOf(other)).toBe(tagOf(lf))
      expect(normalize(other)).toBe(normalize(lf))
    }
  )

  const ragged = FastCheck.string({ unit: FastCheck.constantFrom("a", " ", "\t", "\n", "\r", "é"), maxLength: 80 })

  it.prop("normalize: CR and CRLF become LF, then trailing spaces and tabs go, in one pass", [ragged], ([text]) => {
    expect(normalize(text)).toBe(text.replace(/\r\n?/g, "\n").replace(/[ \t]+$/gm, ""))
  })

  it.prop("linesBetween gives the lines linesOf gives, without splitting the rest", [
    ragged,
    FastCheck.integer({ min: 1, max: 12 }),
    FastCheck.integer({ min: 0, max: 12 })
  ], ([text, from, count]) => {
    expect(linesBetween(normalize(text), from, from + count - 1)).toEqual(
      linesOf(text).slice(from - 1, from - 1 + count)
    )
  })
})

describe("lineFormat: hashline", () => {
  it.effect("a whole file: ¶PATH#TAG first, then N:text lines, opencode's footer", () =>
    Effect.gen(function*() {
      const root = project({ "numbered.txt": numberedText(50), "src/a.txt": "alpha\nbeta\n" })
      const result = yield* read({ filePath: "src/a.txt", lineFormat: "hashline" }).pipe(Effect.provide(layerIn(root)))
      expect(result.output).toBe(
        page(`${root}/src/a.txt`, ["¶src/a.txt#0063", "1:alpha", "2:beta"], "(End of file - total 2 lines)")
      )
      expect(result.metadata).toMatchObject({ lineFormat: "hashline", anchor: "¶src/a.txt#0063" })
      const ranges = yield* read({ filePath: "numbered.txt:3-5,20-22", lineFormat: "hashline" }).pipe(
        Effect.provide(layerIn(root))
      )
      expect(ranges.output).toBe(page(`${root}/numbered.txt`, [
        "¶numbered.txt#82D9",
        "3:line 3",
        "4:line 4",
        "5:line 5",
        "…",
        "20:line 20",
        "21:line 21",
        "22:line 22"
      ], "(Showing lines 3-5, 20-22 of 50.)"))
      // A page of a file still hashes the whole file.
      const paged = yield* read({ filePath: "numbered.txt", offset: 49, lineFormat: "hashline" }).pipe(
        Effect.provide(layerIn(root))
      )
      expect(paged.output).toBe(
        page(
          `${root}/numbered.txt`,
          ["¶numbered.txt#82D9", "49:line 49", "50:line 50"],
          "(End of file - total 50 lines)"
        )
      )
    }))

  it.effect("without lineFormat the output is exactly opencode's", () =>
    Effect.gen(function*() {
      const root = project({ "a.txt": "alpha\nbeta\n" })
      const result = yield* read({ filePath: "a.txt" }).pipe(Effect.provide(layerIn(root)))
      expect(result.output).toBe(page(`${root}/a.txt`, ["1: alpha", "2: beta"], "(End of file - total 2 lines)"))
      expect(fieldsOf(result).lineFormat).toBeUndefined()
      expect(fieldsOf(result).anchor).toBeUndefined()
    }))

  it.effect("the path is relative to the working directory, absolute outside it", () =>
    Effect.gen(function*() {
      const root = project({ "sub/in.txt": "x\n", "out.txt": "y\n" })
      const options = { directory: `${root}/sub`, worktree: root }
      const inside = yield* read({ filePath: "in.txt", lineFormat: "hashline" }).pipe(
        Effect.provide(layerIn(root, options))
      )
      expect(fieldsOf(inside).anchor).toBe(`¶in.txt#${tagOf("x\n")}`)
      const outside = yield* read({ filePath: "../out.txt", lineFormat: "hashline" }).pipe(
        Effect.provide(layerIn(root, options))
      )
      expect(fieldsOf(outside).anchor).toBe(`¶${root}/out.txt#${tagOf("y\n")}`)
    }))

  it.effect("CRLF files: lines shown as they are, the tag of the normalised text", () =>
    Effect.gen(function*() {
      const root = project({ "w.txt": "one  \r\ntwo\r\n" })
      const result = yield* read({ filePath: "w.txt", lineFormat: "hashline" }).pipe(Effect.provide(layerIn(root)))
      expect(result.output).toBe(
        page(`${root}/w.txt`, ["¶w.txt#" + tagOf("one\ntwo\n"), "1:one  ", "2:two"], "(End of file - total 2 lines)")
      )
    }))

  it.effect("a file over 4 MiB: lines numbered N:, no header, and it says why", () =>
    Effect.gen(function*() {
      const line = "x".repeat(99) + "\n"
      const root = project({ "big.log": line.repeat(Math.ceil((Anchors.HASHLINE_MAX_BYTES + 1) / line.length)) })
      const result = yield* read({ filePath: "big.log", limit: 2, lineFormat: "hashline" }).pipe(
        Effect.provide(layerIn(root))
      )
      expect(fieldsOf(result).anchor).toBeUndefined()
      expect(result.metadata.anchorOmitted).toBe("the file is over 4 MiB: its lines are numbered, with no ¶ anchor")
      expect(result.output.split("\n").slice(0, 6)).toEqual([
        "(No ¶ anchor: the file is over 4 MiB: its lines are numbered, with no ¶ anchor.)",
        `<path>${root}/big.log</path>`,
        "<type>file</type>",
        "<content>",
        `1:${"x".repeat(99)}`,
        `2:${"x".repeat(99)}`
      ])
    }))

  it.effect("a hashline read is never the unchanged stub (the stub carries no anchor)", () =>
    Effect.gen(function*() {
      const root = project({ "a.txt": "alpha\nbeta\n" })
      const layer = Layer.merge(layerIn(root), SessionMemory.layerSession())
      yield* Effect.gen(function*() {
        yield* read({ filePath: "a.txt" })
        const again = yield* read({ filePath: "a.txt", lineFormat: "hashline" })
        expect(fieldsOf(again).unchanged).toBeUndefined()
        expect(again.output).toContain("¶a.txt#0063\n1:alpha")
      }).pipe(Effect.provide(layer))
    }))

  it.effect("read_many passes it on to each file", () =>
    Effect.gen(function*() {
      const root = project({ "a.txt": "alpha\nbeta\n", "b.txt": "gamma\n" })
      const result = yield* ReadMany.readMany({
        files: [{ filePath: "a.txt", lineFormat: "hashline" }, { filePath: "b.txt" }]
      }).pipe(Effect.provide(layerIn(root)))
      expect(result.output).toContain("¶a.txt#0063\n1:alpha\n2:beta")
      expect(result.output).toContain("1: gamma")
    }))

  it.effect("an unknown lineFormat is InvalidParams", () =>
    Effect.gen(function*() {
      const root = project({ "a.txt": "a\n" })
      const error = yield* Effect.flip(
        readUnknown({ filePath: "a.txt", lineFormat: "numbers" }).pipe(Effect.provide(layerIn(root)))
      )
      expect(error._tag).toBe("InvalidParams")
      expect(error.message).toContain("lineFormat")
    }))
})

describe("hashline is suppressed where there is nothing to edit, and says so", () => {
  let server: Http.Server
  let port = 0
  beforeAll(async () => {
    server = Http.createServer((_, res) => {
      res.writeHead(200, { "content-type": "text/plain; charset=utf-8" })
      res.end("one\ntwo\n")
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    port = (server.address() as AddressInfo).port
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  const suppressed = (root: string, filePath: string) =>
    Effect.gen(function*() {
      const result = yield* read({ filePath, lineFormat: "hashline" }).pipe(Effect.provide(layerIn(root)))
      expect(fieldsOf(result).anchor).toBeUndefined()
      expect(fieldsOf(result).lineFormat).toBeUndefined()
      expect(result.output.split("\n").slice(1).join("\n")).not.toContain("¶")
      expect(result.output.split("\n")[0]).toBe(`(No ¶ anchor: ${result.metadata.anchorOmitted}.)`)
      return result
    })

  it.effect(":raw", () =>
    Effect.gen(function*() {
      const root = project({ "a.txt": "alpha\nbeta\n" })
      const result = yield* suppressed(root, "a.txt:raw")
      expect(result.metadata.anchorOmitted).toBe(":raw shows lines as they are: no line numbers, no anchor")
      expect(result.output).toContain("<content>\nalpha\nbeta\n")
    }))

  it.effect("an archive member", () =>
    Effect.gen(function*() {
      const root = project({ "pkg.tar": ustar([{ name: "README.md", content: "# Title\nbody\n" }]) })
      const result = yield* suppressed(root, "pkg.tar:README.md")
      expect(result.metadata.kind).toBe("archive")
      expect(result.metadata.anchorOmitted).toBe("archive members are read-only")
      expect(result.output).toContain("1: # Title")
    }))

  it.effect("a database", () =>
    Effect.gen(function*() {
      // A minimal SQLite file: an empty database is a 1-page header the source recognises.
      const root = project()
      const { createRequire } = yield* Effect.promise(() => import("node:module"))
      const require = createRequire(createRequire(import.meta.url).resolve("@effect/sql-sqlite-node/package.json"))
      const Database = require("better-sqlite3")
      const db = new Database(nodePath.join(root, "app.sqlite"))
      db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO t (name) VALUES ('x')")
      db.close()
      const result = yield* suppressed(root, "app.sqlite")
      expect(result.metadata.kind).toBe("database")
      expect(result.metadata.anchorOmitted).toBe("database output is not a file to edit")
    }))

  it.live("a web page", () =>
    Effect.gen(function*() {
      const root = project()
      const result = yield* suppressed(root, `http://127.0.0.1:${port}/text`)
      expect(result.metadata.kind).toBe("web")
      expect(result.metadata.anchorOmitted).toBe("a web page is not a file to edit")
      expect(result.output).toContain("1: one")
    }))

  it.effect("a directory", () =>
    Effect.gen(function*() {
      const root = project({ "d/a.txt": "a" })
      const result = yield* suppressed(root, "d")
      expect(result.metadata.anchorOmitted).toBe("a directory listing has no lines to edit")
    }))
})

describe("Anchors.verify", () => {
  const body = Array.from({ length: 12 }, (_, i) => `const v${i + 1} = ${i + 1}`)
  const text = body.join("\n") + "\n"

  /** Read with hashline, change the file, then verify lines the model chose. */
  const scenario = (
    change: (path: string) => void,
    check: (tag: string) => Effect.Effect<Anchors.Verdict, ReadError, Anchors.VerifyRequirements>
  ) =>
    Effect.gen(function*() {
      const root = project({ "src/m.ts": text })
      const layer = layerIn(root)
      const shown = yield* read({ filePath: "src/m.ts", lineFormat: "hashline" }).pipe(Effect.provide(layer))
      const tag = Anchors.parseHeader(fieldsOf(shown).anchor!)!.tag
      change(nodePath.join(root, "src/m.ts"))
      return yield* check(tag).pipe(Effect.provide(layer))
    })

  it.effect("valid while the file is unchanged", () =>
    scenario(() => {}, (tag) => Anchors.verify({ filePath: "src/m.ts", tag, start: 5, end: 6 })).pipe(
      Effect.map((verdict) => {
        expect(verdict).toMatchObject({
          _tag: "Valid",
          start: 5,
          end: 6,
          changed: false,
          header: `¶src/m.ts#${tagOf(text)}`
        })
      })
    ))

  it.effect("moved after lines are inserted above it", () =>
    scenario(
      (path) => fs.writeFileSync(path, `import a from "a"\nimport b from "b"\n\n${text}`),
      (tag) => Anchors.verify({ filePath: "src/m.ts", tag, start: 5, end: 6 })
    ).pipe(Effect.map((verdict) => {
      expect(verdict._tag).toBe("Moved")
      expect(verdict).toMatchObject({ from: { start: 5, end: 6 }, start: 8, end: 9 })
      expect(verdict.message).toContain("lines 5-6 of src/m.ts as you read them")
      expect(verdict.message).toContain("are now lines 8-9")
    })))

  it.effect("stale after its own line changes, with a diff against what was read", () =>
    scenario(
      (path) => fs.writeFileSync(path, text.replace("const v6 = 6", "const v6 = 60")),
      (tag) => Anchors.verify({ filePath: "src/m.ts", tag, start: 5, end: 6 })
    ).pipe(Effect.map((verdict) => {
      expect(verdict._tag).toBe("Stale")
      if (verdict._tag !== "Stale") return
      expect(verdict.reason).toBe("they changed since you read them")
      expect(verdict.current).toEqual([{ line: 5, text: "const v5 = 5" }, { line: 6, text: "const v6 = 60" }])
      expect(verdict.diff).toBe([
        `--- src/m.ts #${tagOf(text)} (as you read it)`,
        `+++ src/m.ts #${verdict.tag} (now)`,
        "@@ -5,2 +5,2 @@",
        " const v5 = 5",
        "-const v6 = 6",
        "+const v6 = 60"
      ].join("\n"))
      expect(verdict.message.split("\n")[0]).toBe(
        `Do not edit lines 5-6 of src/m.ts by their #${
          tagOf(text)
        } numbers: they changed since you read them. The file is now ${verdict.header}. Read it again.`
      )
    })))

  it.effect("valid (changed elsewhere) when only other lines changed", () =>
    scenario(
      (path) => fs.writeFileSync(path, text.replace("const v11 = 11", "const v11 = 0")),
      (tag) => Anchors.verify({ filePath: "src/m.ts", tag, start: 2, end: 3 })
    ).pipe(Effect.map((verdict) => {
      expect(verdict).toMatchObject({ _tag: "Valid", start: 2, end: 3, changed: true })
    })))

  it.effect("a changed block after lines were added above: the diff is taken where it went", () =>
    scenario(
      (path) => fs.writeFileSync(path, `// header\n${text.replace("const v6 = 6", "const v6 = 6 // changed")}`),
      (tag) => Anchors.verify({ filePath: "src/m.ts", tag, start: 6, end: 6 })
    ).pipe(Effect.map((verdict) => {
      expect(verdict._tag).toBe("Stale")
      if (verdict._tag !== "Stale") return
      expect(verdict.current).toEqual([{ line: 7, text: "const v6 = 6 // changed" }])
      expect(verdict.diff).toContain("@@ -6 +7 @@\n-const v6 = 6\n+const v6 = 6 // changed")
    })))

  it.effect("a tag this session was never shown: stale with the current lines", () =>
    Effect.gen(function*() {
      const root = project({ "m.ts": text })
      const verdict = yield* Anchors.verify({ filePath: "m.ts", tag: "ABCD", start: 1, end: 2 }).pipe(
        Effect.provide(layerIn(root))
      )
      expect(verdict._tag).toBe("Stale")
      if (verdict._tag !== "Stale") return
      expect(verdict.reason).toBe("this session was not shown lines 1-2 under #ABCD")
      expect(verdict.current).toEqual([{ line: 1, text: "const v1 = 1" }, { line: 2, text: "const v2 = 2" }])
      expect(verdict.message).toContain("1:const v1 = 1\n2:const v2 = 2")
    }))

  it.effect("the lines given by the caller stand in for the record (no store)", () =>
    Effect.gen(function*() {
      const root = project({ "m.ts": `first\n${text}` })
      const layer = Layer.merge(nodeLayer(root), Anchors.layerNoopAnchorStore)
      const verdict = yield* Anchors.verify({
        filePath: "m.ts",
        tag: `¶m.ts#${tagOf(text)}`,
        start: 3,
        lines: ["const v3 = 3", "const v4 = 4"]
      }).pipe(Effect.provide(layer))
      expect(verdict).toMatchObject({ _tag: "Moved", from: { start: 3, end: 4 }, start: 4, end: 5 })
    }))

  it.effect("repeated lines: context read around them decides; without it they are ambiguous", () =>
    Effect.gen(function*() {
      const file = "a\n}\nb\n}\nc\n"
      const root = project({ "r.ts": file })
      const layer = layerIn(root)
      const shown = yield* read({ filePath: "r.ts", lineFormat: "hashline" }).pipe(Effect.provide(layer))
      const tag = Anchors.parseHeader(fieldsOf(shown).anchor!)!.tag
      fs.writeFileSync(nodePath.join(root, "r.ts"), `x\n${file}`)
      const moved = yield* Anchors.verify({ filePath: "r.ts", tag, start: 4 }).pipe(Effect.provide(layer))
      expect(moved).toMatchObject({ _tag: "Moved", start: 5, end: 5 })
      const alone = yield* Anchors.verify({ filePath: "r.ts", tag: "0000", start: 4, lines: ["}"] }).pipe(
        Effect.provide(layer)
      )
      expect(alone).toMatchObject({
        _tag: "Stale",
        reason: "they now occur at lines 3, 5 and nothing you read tells which"
      })
    }))

  it.effect("a denied file is PermissionDenied, as for read", () =>
    Effect.gen(function*() {
      const root = project({ "secret/k.txt": "k\n" })
      const permission = Permission.layerRules([
        ...Permission.defaultRules,
        { permission: "read", pattern: "secret/*", action: "deny" }
      ])
      const error = yield* Effect.flip(
        Anchors.verify({ filePath: "secret/k.txt", tag: "0000", start: 1 }).pipe(
          Effect.provide(layerIn(root, { permission }))
        )
      )
      expect(error._tag).toBe("PermissionDenied")
    }))

  it.effect("bad requests are InvalidParams", () =>
    Effect.gen(function*() {
      const root = project({ "m.ts": text })
      const layer = layerIn(root)
      const bad = (input: unknown) => Effect.flip(Anchors.verifyUnknown(input)).pipe(Effect.provide(layer))
      expect((yield* bad({ filePath: "m.ts", tag: "XYZ", start: 1 })).message).toContain("tag must be 4 hex digits")
      expect((yield* bad({ filePath: "m.ts", tag: "0000", start: 3, end: 2 }))._tag).toBe("InvalidParams")
      expect((yield* bad({ filePath: "m.ts", tag: "0000", start: 1, end: 2, lines: ["x"] })).message).toContain(
        "lines holds 1 lines"
      )
      expect((yield* bad({ filePath: "m.ts", tag: tagOf(text), start: 13 })).message).toContain("past the end")
    }))
})

describe("locate (pure)", () => {
  const arbLines = FastCheck.array(FastCheck.stringMatching(/^[a-z]{1,6}$/), { minLength: 1, maxLength: 30 })

  it.prop(
    "a block whose text is unique stays found after lines are inserted above or below it",
    [arbLines, arbLines, arbLines, FastCheck.nat(40), FastCheck.nat(40)],
    ([before, block, after, above, below]) => {
      const file = [...before, ...block, ...after]
      const start = before.length + 1
      const end = start + block.length - 1
      const occurrences = file.filter((_, i) => file.slice(i, i + block.length).join("\n") === block.join("\n")).length
      FastCheck.pre(occurrences === 1)
      const known = new Map(file.map((line, i) => [i + 1, line]))
      const added = (n: number) => Array.from({ length: n }, (_, i) => `added ${i}`)
      const now = [...added(above), ...before, ...block, ...after, ...added(below)]
      const location = locate(known, start, end, now)
      expect(location).toEqual(
        above === 0 ? { _tag: "Same" } : { _tag: "Moved", start: start + above, end: end + above }
      )
    }
  )

  it.prop(
    "a block with a changed line is never Same; Changed when its text occurs nowhere else",
    [arbLines, arbLines, arbLines, FastCheck.nat()],
    ([before, block, after, pick]) => {
      const file = [...before, ...block, ...after]
      const start = before.length + 1
      const end = start + block.length - 1
      const known = new Map(file.map((line, i) => [i + 1, line]))
      const changed = [...block]
      changed[pick % block.length] = "CHANGED"
      const now = [...before, ...changed, ...after]
      const location = locate(known, start, end, now)
      expect(location._tag).not.toBe("Same")
      const elsewhere = now.some((_, i) => now.slice(i, i + block.length).join("\n") === block.join("\n"))
      if (!elsewhere) expect(location._tag).toBe("Changed")
    }
  )

  it.prop("the diff of two blocks replays to the second", [arbLines, arbLines], ([a, b]) => {
    const diff = unifiedDiff({ label: "a", start: 1, lines: a }, { label: "b", start: 1, lines: b })!
    const body = diff.split("\n").slice(3)
    expect(body.filter((line) => !line.startsWith("+")).map((line) => line.slice(1))).toEqual(a)
    expect(body.filter((line) => !line.startsWith("-")).map((line) => line.slice(1))).toEqual(b)
  })

  it("linesOf counts lines as the pager does", () => {
    expect(linesOf("a\nb\n")).toEqual(["a", "b"])
    expect(linesOf("a\r\nb")).toEqual(["a", "b"])
    expect(linesOf("a\rb\r")).toEqual(["a", "b"])
    expect(linesOf("")).toEqual([])
  })
})

describe("the front doors take lineFormat", () => {
  const bin = nodePath.resolve("dist/bin.js")

  it("the tool's JSON Schema lists it (optional)", () => {
    const schema = ReadTool.jsonSchema as unknown as {
      properties: Record<string, Record<string, unknown>>
      required: Array<string>
    }
    expect(schema.properties.lineFormat).toMatchObject({ type: "string", enum: ["hashline"] })
    expect(schema.properties.lineFormat!.description).toContain("¶PATH#TAG")
    expect(schema.required).toEqual(["filePath"])
  })

  it("the CLI: --line-format hashline", () => {
    const root = project({ "a.txt": "alpha\nbeta\n" })
    const result = spawnSync(process.execPath, [bin, "--cwd", root, "--line-format", "hashline", "a.txt"], {
      encoding: "utf8",
      input: ""
    })
    expect(result.status).toBe(0)
    expect(result.stdout).toBe(
      `${page(`${root}/a.txt`, ["¶a.txt#0063", "1:alpha", "2:beta"], "(End of file - total 2 lines)")}\n`
    )
    const bad = spawnSync(process.execPath, [bin, "--cwd", root, "--line-format", "numbers", "a.txt"], {
      encoding: "utf8",
      input: ""
    })
    expect(bad.status).toBe(2)
  })

  it("MCP: the read tool's lineFormat argument", async () => {
    const root = project({ "a.txt": "alpha\nbeta\n" })
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [bin, "mcp", "--cwd", root],
      stderr: "pipe"
    })
    const client = new Client({ name: "effect-read-test", version: "1.0.0" })
    await client.connect(transport)
    try {
      const result = await client.callTool({
        name: "read",
        arguments: { filePath: "a.txt", lineFormat: "hashline" }
      }) as {
        content: Array<{ type: string; text?: string }>
        structuredContent?: { metadata?: Record<string, unknown> }
      }
      expect(result.content[0]!.text).toContain("<content>\n¶a.txt#0063\n1:alpha\n2:beta\n")
      expect(result.structuredContent?.metadata?.anchor).toBe("¶a.txt#0063")
    } finally {
      await client.close()
    }
  })
})
