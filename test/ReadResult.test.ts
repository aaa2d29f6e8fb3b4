/**
 * `ReadMetadata` is one schema per kind, with the JSON the single struct had: every field a read
 * of each kind sets is in its kind's schema (encoding drops nothing), in the one order fields are
 * written on the wire. Reads of every local kind, and the steps after the source (a view, an
 * anchor, masking, session memory, nearby instructions), are checked.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Http from "node:http"
import { createRequire } from "node:module"
import type { AddressInfo } from "node:net"
import * as nodePath from "node:path"
import * as Instructions from "../src/Instructions.js"
import * as Permission from "../src/Permission.js"
import * as Read from "../src/Read.js"
import * as ReadResult from "../src/ReadResult.js"
import * as Secrets from "../src/Secrets.js"
import * as SessionMemory from "../src/SessionMemory.js"
import { nodeLayer, projectDirs } from "./support/index.js"
import { makePdf, PDF, PNG } from "./support/media.js"
import { zip } from "./support/zipFixtures.js"

/** The order fields are written in (`kind` first): the wire format of 0.1, kept, with the fields added since in their places. */
const WIRE_ORDER = [
  "kind",
  "path",
  "preview",
  "truncated",
  "startLine",
  "endLine",
  "ranges",
  "totalLines",
  "totalLinesAtLeast",
  "column",
  "nextOffset",
  "next",
  "linesCut",
  "size",
  "mtime",
  "mime",
  "encoding",
  "bom",
  "lineEnding",
  "finalNewline",
  "invalidBytesReplaced",
  "width",
  "height",
  "format",
  "frames",
  "frame",
  "region",
  "diagnostics",
  "pageImages",
  "scale",
  "attached",
  "url",
  "status",
  "contentType",
  "structure",
  "search",
  "conflicts",
  "view",
  "unchanged",
  "changed",
  "lineFormat",
  "anchor",
  "anchorOmitted",
  "masked",
  "loaded"
]

const members = ReadResult.ReadMetadata.members

/**
 * The 0.1 metadata, one struct: every kind's fields, in wire order, beside a `kind` of any of
 * them. What a union member encodes must be byte for byte what this encodes.
 */
const Metadata01 = Schema.Struct(
  Object.fromEntries(
    WIRE_ORDER.map((key) =>
      key === "kind"
        ? [key, Schema.Literal(...members.map((member) => member.fields.kind.literals[0]))]
        : [
          key,
          members.map((member) => (member.fields as Schema.Struct.Fields)[key]).find((field) => field !== undefined)!
        ]
    )
  )
) as unknown as Schema.Schema<ReadResult.ReadMetadata, unknown>
const Result01 = Schema.Struct({ ...ReadResult.ReadResult.fields, metadata: Metadata01 })

/** The union's JSON of `result` is the 0.1 struct's, and decodes back to `result`. */
const sameOnTheWire = (result: ReadResult.ReadResult) => {
  const json = JSON.stringify(Schema.encodeSync(ReadResult.ReadResult)(result))
  expect(json).toBe(JSON.stringify(Schema.encodeSync(Result01)(result)))
  expect(Schema.decodeUnknownSync(ReadResult.ReadResult)(JSON.parse(json))).toEqual(result)
}

const Database = createRequire(createRequire(import.meta.url).resolve("@effect/sql-sqlite-node/package.json"))(
  "better-sqlite3"
) as new(path: string) => { exec(sql: string): void; close(): void }

const project = projectDirs()

describe("ReadMetadata", () => {
  const root = project({
    "src/app.ts": "export const a = 1\n\nexport function f() {\n  return a\n}\n",
    "merge.txt": "a\n<<<<<<< ours\nb\n=======\nc\n>>>>>>> theirs\nd\n",
    ".env": "API_KEY=sk-live-0123456789abcdefghijklmnop\nPORT=3000\n",
    "pkg/AGENTS.md": "Be brief.\n",
    "pkg/notes.md": "# Notes\n",
    "image.png": PNG,
    "doc.pdf": PDF,
    "report.pdf": makePdf([["Quarterly report", "Revenue went up."]]),
    "bundle.zip": zip([{ name: "dir/readme.txt", data: "hello\nworld\n" }]),
    "nb.ipynb": JSON.stringify({
      cells: [{ cell_type: "code", source: "print(1)", outputs: [], execution_count: 1 }],
      metadata: {},
      nbformat: 4,
      nbformat_minor: 5
    })
  })
  const db = new Database(nodePath.join(root, "app.db"))
  db.exec("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users (name) VALUES ('ada'), ('bob');")
  db.close()

  /** A read, a field its result must carry (the part of the schema it exercises), and a layer. */
  const reads: ReadonlyArray<readonly [string, Read.ReadParams, string, Layer.Layer<never>?]> = [
    ["text", { filePath: "src/app.ts" }, "finalNewline"],
    ["a page of text", { filePath: "src/app.ts", offset: 2, limit: 1 }, "nextOffset"],
    ["a page's next read", { filePath: "src/app.ts:2-2" }, "next"],
    ["ranges", { filePath: "src/app.ts:1-1,4-5" }, "ranges"],
    ["an outline", { filePath: "src/app.ts", view: "outline" }, "structure"],
    ["conflicts", { filePath: "merge.txt", view: "conflicts" }, "conflicts"],
    ["an anchor", { filePath: "src/app.ts", lineFormat: "hashline" }, "anchor"],
    ["masked", { filePath: ".env" }, "masked", Secrets.layerMask],
    ["instructions", { filePath: "pkg/notes.md" }, "loaded", Instructions.layer()],
    ["a directory", { filePath: "." }, "totalLines"],
    ["a tree", { filePath: ".", view: "tree" }, "view"],
    ["an image", { filePath: "image.png" }, "width"],
    ["a pdf", { filePath: "doc.pdf" }, "mime"],
    ["an archive", { filePath: "bundle.zip" }, "totalLines"],
    ["a member", { filePath: "bundle.zip:dir/readme.txt" }, "lineEnding"],
    ["a database", { filePath: "app.db" }, "size"],
    ["a database page's next read", { filePath: "app.db:users?limit=1&offset=0" }, "next"],
    ["a database, anchor asked", { filePath: "app.db", lineFormat: "hashline" }, "anchorOmitted"],
    ["a notebook", { filePath: "nb.ipynb" }, "mime"],
    ["a pdf's text (document)", { filePath: "report.pdf", offset: 1 }, "totalLines"]
  ]

  it.effect.each(reads)(
    "%s: encoded as it was made, in wire order",
    ([, params, field, layer]) =>
      Effect.gen(function*() {
        const result = yield* Read.read(params).pipe(Effect.provide(Layer.merge(nodeLayer(root), layer ?? Layer.empty)))
        expect(result.metadata).toHaveProperty(field)
        const encoded = Schema.encodeSync(ReadResult.ReadResult)(result)
        expect(encoded).toEqual(result)
        const keys = Object.keys(encoded.metadata)
        expect(keys).toEqual(WIRE_ORDER.filter((key) => key in result.metadata))
        // The JSON a client receives is the 0.1 JSON, and decodes back to the result.
        sameOnTheWire(result)
      })
  )

  it.effect("every kind is among the reads above, and each read is the kind its schema names", () =>
    Effect.gen(function*() {
      const kinds = new Set<string>()
      for (const [, params, , layer] of reads) {
        const result = yield* Read.read(params).pipe(Effect.provide(Layer.merge(nodeLayer(root), layer ?? Layer.empty)))
        kinds.add(result.metadata.kind)
        const member = members.find((m) => m.fields.kind.literals[0] === result.metadata.kind)!
        // Its own kind's schema takes it, every field included (no other kind's field slipped in).
        expect(Object.keys(result.metadata).every((key) => key in member.fields)).toBe(true)
      }
      // "web" is read over HTTP below.
      expect([...kinds, "web"].sort()).toEqual(members.map((m) => m.fields.kind.literals[0]).sort())
    }))

  it.effect("a pdf attached, and a document read by its text: both kinds carry their own fields", () =>
    Effect.gen(function*() {
      const pdf = yield* Read.read({ filePath: "report.pdf" }).pipe(Effect.provide(nodeLayer(root)))
      expect(pdf.metadata.kind).toBe("pdf")
      const text = yield* Read.read({ filePath: "report.pdf", offset: 1 }).pipe(Effect.provide(nodeLayer(root)))
      expect(text.metadata).toMatchObject({ kind: "document", startLine: 1 })
      sameOnTheWire(pdf)
      sameOnTheWire(text)
    }))

  it.effect("session memory: an unchanged stub, and a file that is no longer text", () =>
    Effect.gen(function*() {
      const layer = Layer.merge(nodeLayer(root), SessionMemory.layerSession())
      yield* Effect.gen(function*() {
        yield* Read.read({ filePath: "src/app.ts" })
        const stub = yield* Read.read({ filePath: "src/app.ts" })
        expect(stub.metadata).toMatchObject({ kind: "text", unchanged: true })
        expect(Schema.encodeSync(ReadResult.ReadResult)(stub)).toEqual(stub)
        sameOnTheWire(stub)
      }).pipe(Effect.provide(layer))
    }))

  it("one schema per kind, each listing its fields in wire order", () => {
    const members = ReadResult.ReadMetadata.members
    expect(members.map((member) => member.fields.kind.literals[0])).toEqual(
      ["text", "directory", "image", "pdf", "archive", "database", "notebook", "document", "web"]
    )
    for (const member of members) {
      const keys = Object.keys(member.fields)
      expect(keys).toEqual(WIRE_ORDER.filter((key) => keys.includes(key)))
    }
    // Which fields a kind may set is in its schema: an image has no lines, a directory no encoding.
    expect(Object.keys(ReadResult.ImageMetadata.fields)).not.toContain("startLine")
    expect(Object.keys(ReadResult.DirectoryMetadata.fields)).not.toContain("encoding")
    expect(Object.keys(ReadResult.WebMetadata.fields)).toContain("url")
  })
})

describe("ReadMetadata of a web page, over HTTP", () => {
  let server: Http.Server
  let port = 0
  beforeAll(async () => {
    server = Http.createServer((req, res) => {
      if (req.url === "/page") {
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" })
        res.end("<html><head><title>T</title></head><body><h1>Hello</h1><p>A page.</p></body></html>")
      } else {
        res.writeHead(200, { "content-type": "image/png" })
        res.end(PNG)
      }
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    port = (server.address() as AddressInfo).port
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  const root = projectDirs()()
  const layer = () =>
    nodeLayer(root, {
      permission: Permission.layerRules([
        { permission: "*", pattern: "*", action: "allow" },
        { permission: "webfetch_private", pattern: `http://127.0.0.1:${port}/*`, action: "allow" }
      ])
    })

  it.live("a page (web) and an image fetched (image with its url): the 0.1 JSON", () =>
    Effect.gen(function*() {
      const page = yield* Read.read({ filePath: `http://127.0.0.1:${port}/page` }).pipe(Effect.provide(layer()))
      expect(page.metadata).toMatchObject({ kind: "web", status: 200, url: `http://127.0.0.1:${port}/page` })
      sameOnTheWire(page)
      const image = yield* Read.read({ filePath: `http://127.0.0.1:${port}/pixel.png` }).pipe(Effect.provide(layer()))
      expect(image.metadata).toMatchObject({ kind: "image", url: `http://127.0.0.1:${port}/pixel.png` })
      sameOnTheWire(image)
    }))
})
