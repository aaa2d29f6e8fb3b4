/**
 * The tools' JSON Schemas in each dialect, checked by the providers' documented rules, and the
 * mends every door applies to arguments before decoding them exactly.
 */
import { describe, expect, it } from "@effect/vitest"
import { Ajv } from "ajv"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import { mend } from "../src/internal/read/params.js"
import * as Read from "../src/Read.js"
import * as ReadMany from "../src/ReadMany.js"
import * as ReadTool from "../src/ReadTool.js"
import { memoryLayer } from "./support/index.js"
import { geminiViolations, strictViolations } from "./support/jsonSchemaRules.js"

const names = ["read", "read_many"] as const

/** Every `title` keyword in a schema (a property named `title` is not one). */
const titles = (schema: unknown): Array<unknown> => {
  if (Array.isArray(schema)) return schema.flatMap(titles)
  if (typeof schema !== "object" || schema === null) return []
  return Object.entries(schema).flatMap(([key, value]) =>
    key === "properties"
      ? Object.values(value as object).flatMap(titles)
      : key === "title"
      ? [value]
      : titles(value)
  )
}

describe("tool schemas", () => {
  it.each(names)("%s: no generated titles, no $ref, in any dialect", (name) => {
    for (const dialect of ["standard", "openai-strict", "gemini"] as const) {
      const schema = ReadTool.inputSchema(name, dialect)
      expect(titles(schema)).toEqual([])
      expect(JSON.stringify(schema)).not.toContain("$ref")
    }
  })

  it.each(names)("%s: the openai-strict dialect keeps OpenAI's strict-mode rules", (name) => {
    expect(strictViolations(ReadTool.inputSchema(name, "openai-strict"))).toEqual([])
    // The standard one does not: that is why the dialect exists.
    expect(strictViolations(ReadTool.inputSchema(name))).not.toEqual([])
  })

  it.each(names)("%s: the gemini dialect holds only fields of Gemini's Schema", (name) => {
    expect(geminiViolations(ReadTool.inputSchema(name, "gemini"))).toEqual([])
    expect(geminiViolations(ReadTool.inputSchema(name))).not.toEqual([])
  })

  it("openai-strict: every parameter required, the optional ones nullable, enums with null", () => {
    const schema = ReadTool.inputSchema("read", "openai-strict") as any
    expect(schema.required).toEqual(Object.keys(schema.properties))
    expect(schema.properties.filePath.type).toBe("string")
    expect(schema.properties.limit).toMatchObject({ type: ["integer", "null"], minimum: 1 })
    expect(schema.properties.view.enum).toContain(null)
    expect(schema.properties.filePath).not.toHaveProperty("minLength")
  })

  const ajv = new Ajv({ strict: false })

  it("read_many's schema needs files or a glob, as read_many does", () => {
    const valid = ajv.compile(ReadTool.inputSchema("read_many"))
    expect(valid({})).toBe(false)
    expect(valid({ files: [] })).toBe(false)
    expect(valid({ glob: "src/**/*.ts" })).toBe(true)
    expect(valid({ files: [{ filePath: "a.ts" }] })).toBe(true)
    expect(valid({ files: [{ filePath: "a.ts" }], extra: 1 })).toBe(false)
  })

  it.effect("what the schemas accept, read accepts; a strict model's call with nulls too", () =>
    Effect.gen(function*() {
      const valid = ajv.compile(ReadTool.inputSchema("read"))
      const strict = ajv.compile(ReadTool.inputSchema("read", "openai-strict"))
      const call = { filePath: "a.txt", offset: 2, limit: 1 }
      const nulls = {
        filePath: "a.txt",
        offset: 2,
        column: null,
        limit: 1,
        encoding: null,
        lineFormat: null,
        view: null,
        levels: null,
        search: null,
        context: null,
        region: null,
        frame: null,
        diagnostics: null,
        fullResolution: null,
        pageImages: null
      }
      expect(valid(call)).toBe(true)
      expect(strict(nulls)).toBe(true)
      const exact = yield* Read.read(call)
      expect(yield* Read.readUnknown(nulls)).toEqual(exact)
      expect(exact.output).toContain("2: two")
    }).pipe(Effect.provide(memoryLayer({ "/project/a.txt": "one\ntwo\nthree\n" }))))
})

describe("mended arguments", () => {
  const safeInteger = FastCheck.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER })

  it.prop("an integer field given as a string of its digits is that integer", [safeInteger], ([n]) => {
    expect(mend(Read.ReadParams.ast, { filePath: "a", offset: String(n), limit: String(n) })).toEqual({
      filePath: "a",
      offset: n,
      limit: n
    })
  })

  it.prop("any other string is left for the decoder to reject", [
    FastCheck.string().filter((text) => !/^-?\d+$/.test(text))
  ], ([text]) => {
    expect(mend(Read.ReadParams.ast, { filePath: text, offset: text })).toEqual({ filePath: text, offset: text })
  })

  it("a null optional parameter is not given; a null required one, an unknown key and a bigger-than-safe integer stay", () => {
    expect(mend(Read.ReadParams.ast, { filePath: null, limit: null, extra: null, offset: "9007199254740993" })).toEqual(
      {
        filePath: null,
        extra: null,
        offset: "9007199254740993"
      }
    )
  })

  it("read_many: mended inside each file, and its glob", () => {
    expect(mend(ReadMany.ReadManyParams.ast, { files: [{ filePath: "a", limit: "3", view: null }], glob: null }))
      .toEqual({
        files: [{ filePath: "a", limit: 3 }]
      })
  })

  it.effect("in read: numbers written as strings are read; numbers with a fraction, words or spaces are not", () =>
    Effect.gen(function*() {
      expect((yield* Read.readUnknown({ filePath: "a.txt", offset: "-1" })).output).toContain("3: three")
      for (const limit of ["1.5", "one", " 1", "1e0"]) {
        const error = yield* Effect.flip(Read.readUnknown({ filePath: "a.txt", limit }))
        expect(error._tag).toBe("InvalidParams")
      }
    }).pipe(Effect.provide(memoryLayer({ "/project/a.txt": "one\ntwo\nthree\n" }))))
})
