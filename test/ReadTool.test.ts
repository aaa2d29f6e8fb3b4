/**
 * The @effect/ai door: the `read` tool runs through `LanguageModel.generateText` with a test
 * provider that emits tool calls, so parameters are decoded, the handler runs and the result is
 * encoded by @effect/ai's own machinery, exactly as in a real model call.
 */
import * as LanguageModel from "@effect/ai/LanguageModel"
import * as Tool from "@effect/ai/Tool"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as fs from "node:fs"
import { inlineRefs } from "../src/internal/doors/jsonSchema.js"
import * as ModelResult from "../src/ModelResult.js"
import * as Read from "../src/Read.js"
import { FileNotFound, InvalidParams } from "../src/ReadError.js"
import type * as ReadMany from "../src/ReadMany.js"
import * as ReadTool from "../src/ReadTool.js"
import { nodeLayer, tempDir, writeTree } from "./support/index.js"

const root = tempDir()
writeTree(root, { "src/app.ts": "import x from \"y\"\nexport const a = 1\n", "config.json": "{}\n" })
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

/** What the test provider saw: the tools offered to it, with their JSON Schemas. */
const offered: Array<{ readonly name: string; readonly description: string | undefined; readonly schema: unknown }> = []

/** A language model that answers every request with one call of `read` with `params`. */
const modelCalling = (params: unknown, name = "read") =>
  Layer.effect(
    LanguageModel.LanguageModel,
    LanguageModel.make({
      generateText: (options) =>
        Effect.sync(() => {
          for (const tool of options.tools) {
            offered.push({ name: tool.name, description: tool.description, schema: Tool.getJsonSchema(tool as any) })
          }
          return [{ type: "tool-call", id: "call-1", name, params }]
        }),
      streamText: () => {
        throw new Error("not used")
      }
    })
  )

/** One model turn that calls `read` with `params`, with Read added by one `Layer.provide`. */
const callRead = (params: unknown, name = "read") =>
  LanguageModel.generateText({ prompt: "read it", toolkit: ReadTool.toolkit }).pipe(
    Effect.map((response) => response.toolResults),
    Effect.provide(modelCalling(params, name)),
    Effect.provide(ReadTool.layer.pipe(Layer.provide(nodeLayer(root))))
  )

describe("ReadTool", () => {
  it.effect("a model's call of read returns the ReadResult, decoded and encoded by @effect/ai", () =>
    Effect.gen(function*() {
      const [result, ...rest] = yield* callRead({ filePath: "src/app.ts" })
      expect(rest).toEqual([])
      expect(result!.name).toBe("read")
      expect(result!.isFailure).toBe(false)
      const expected = yield* Read.read({ filePath: "src/app.ts" }).pipe(Effect.provide(nodeLayer(root)))
      expect(result!.result).toEqual(expected)
      // What the provider sends the model: the result without the preview (the output has its lines).
      const { preview: _, ...metadata } = expected.metadata
      expect(result!.encodedResult).toEqual({ title: expected.title, output: expected.output, metadata })
      expect((result!.encodedResult as Read.ReadResult).output).toContain("2: export const a = 1")
      // The wire form holds references, not bytes: it does not decode back into a result.
      expect(Schema.decodeUnknownEither(ModelResult.ReadResultForPrompt)(result!.encodedResult)._tag).toBe("Left")
    }))

  it.effect("a model's call of read_many returns the ReadManyResult; a failing member is in place", () =>
    Effect.gen(function*() {
      const [result] = yield* callRead(
        { files: [{ filePath: "src/app.ts" }, { filePath: "nope.ts" }, { filePath: "config.json" }] },
        "read_many"
      )
      expect(result!.name).toBe("read_many")
      expect(result!.isFailure).toBe(false)
      const encoded = result!.encodedResult as ReadMany.ReadManyResult
      expect(encoded.files.map((file) => file.error?._tag ?? "ok")).toEqual(["ok", "FileNotFound", "ok"])
      expect(encoded.output).toContain("2: export const a = 1")
      const failed = yield* callRead({ files: [] }, "read_many")
      expect(failed[0]!.isFailure).toBe(true)
      expect(failed[0]!.encodedResult).toMatchObject({
        _tag: "InvalidParams",
        message: expect.stringContaining("at least one file")
      })
    }))

  it.effect("a failure is a typed result the model reads: the ReadError, encoded with its message", () =>
    Effect.gen(function*() {
      const [result] = yield* callRead({ filePath: "config.jsn" })
      expect(result!.isFailure).toBe(true)
      expect(result!.result).toBeInstanceOf(FileNotFound)
      const message = `File not found: ${root}/config.jsn\n\nDid you mean one of these?\n${root}/config.json`
      expect((result!.result as FileNotFound).message).toBe(message)
      expect(result!.encodedResult).toEqual({
        _tag: "FileNotFound",
        path: `${root}/config.jsn`,
        suggestions: [`${root}/config.json`],
        message
      })
    }))

  it.effect("the failure schema round-trips: decoding the wire form rebuilds the ReadError", () =>
    Effect.gen(function*() {
      const error = new FileNotFound({ path: "/p/a", suggestions: ["/p/b"] })
      const encoded = yield* Schema.encode(ReadTool.Failure)(error)
      expect(encoded).toEqual({ _tag: "FileNotFound", path: "/p/a", suggestions: ["/p/b"], message: error.message })
      const decoded = yield* Schema.decodeUnknown(ReadTool.Failure)(encoded)
      expect(decoded).toBeInstanceOf(FileNotFound)
      expect(decoded).toEqual(error)
    }))

  it.effect.each(
    [
      [
        "offset 1.5",
        { filePath: "src/app.ts", offset: 1.5 },
        "offset: offset must be a whole number: a line number (1-based; 0 means 1), or -N for the last N lines"
      ],
      ["missing filePath", { offset: 2 }, "filePath: is missing"],
      ["limit 0", { filePath: "src/app.ts", limit: 0 }, "limit: limit must be at least 1"],
      ["limit \"three\"", { filePath: "src/app.ts", limit: "three" }, "limit: Expected number, actual \"three\""],
      [
        "an unknown key",
        { filePath: "src/app.ts", lines: 3 },
        "lines: is unexpected, expected: \"filePath\" | \"offset\" | \"column\" | \"limit\" | \"encoding\" | \"lineFormat\" | \"view\" | \"levels\" | \"search\" | \"context\" | \"region\" | \"frame\" | \"diagnostics\" | \"fullResolution\" | \"pageImages\""
      ]
    ] as const
  )(
    "malformed parameters (%s) are a failure result the model reads, not an error that ends the turn",
    ([, params, reason]) =>
      Effect.gen(function*() {
        const [result] = yield* callRead(params)
        expect(result!.isFailure).toBe(true)
        expect(result!.result).toEqual(new InvalidParams({ reason }))
        expect(result!.encodedResult).toEqual({
          _tag: "InvalidParams",
          reason,
          message: `Invalid parameters: ${reason}`
        })
        // The same failure Read.read gives, whichever door the call came through.
        expect(yield* Effect.flip(Read.readUnknown(params).pipe(Effect.provide(nodeLayer(root))))).toEqual(
          result!.result
        )
      })
  )

  it.effect("integer-valued strings and nulls for optional parameters are mended, in the toolkit as in read", () =>
    Effect.gen(function*() {
      const [mended] = yield* callRead({ filePath: "src/app.ts", offset: "2", limit: "1", encoding: null, view: null })
      expect(mended!.isFailure).toBe(false)
      const exact = yield* Read.read({ filePath: "src/app.ts", offset: 2, limit: 1 }).pipe(
        Effect.provide(nodeLayer(root))
      )
      expect(mended!.result).toEqual(exact)
      expect((mended!.result as Read.ReadResult).output).toContain("2: export const a = 1")
      const [many] = yield* callRead({ files: [{ filePath: "src/app.ts", limit: "1" }], glob: null }, "read_many")
      expect(many!.isFailure).toBe(false)
      expect((many!.result as ReadMany.ReadManyResult).output).toContain("1: import x from")
      expect((many!.result as ReadMany.ReadManyResult).output).not.toContain("2: export const a = 1")
    }))

  it.effect("the tool carries Read's description, its annotations and an inlined parameter schema", () =>
    Effect.gen(function*() {
      expect(ReadTool.tool.name).toBe("read")
      expect(ReadTool.tool.description).toBe(Read.defaultDescription)
      expect(ReadTool.tool.failureMode).toBe("return")
      const { annotations } = ReadTool.tool
      expect(Context.get(annotations, Tool.Readonly)).toBe(true)
      expect(Context.get(annotations, Tool.Destructive)).toBe(false)
      expect(Context.get(annotations, Tool.Idempotent)).toBe(true)
      expect(Context.get(annotations, Tool.OpenWorld)).toBe(false)
      expect(Context.unsafeGet(annotations, Tool.Title)).toBe("Read")

      const text = JSON.stringify(ReadTool.jsonSchema)
      expect(text).not.toContain("$ref")
      expect(text).not.toContain("$defs")
      expect(ReadTool.jsonSchema).toMatchObject({
        type: "object",
        required: ["filePath"],
        additionalProperties: false,
        properties: {
          filePath: { type: "string", minLength: 1, description: expect.stringContaining("file or directory to read") },
          offset: {
            type: "integer",
            description: expect.stringContaining("A negative offset -N reads the last N lines")
          },
          limit: { type: "integer", minimum: 1, description: expect.stringContaining("default 2000") }
        }
      })

      // A provider building its request from the tools it is given sees the same description and schema.
      offered.length = 0
      yield* callRead({ filePath: "config.json" })
      expect(offered).toEqual([
        { name: "read", description: Read.defaultDescription, schema: ReadTool.jsonSchema },
        { name: "read_many", description: ReadTool.manyDescription, schema: ReadTool.manyJsonSchema }
      ])
    }))

  it("inlineRefs replaces $ref with its definition and keeps the referrer's own keywords", () => {
    const inlined = inlineRefs({
      $schema: "http://json-schema.org/draft-07/schema#",
      $defs: { Int: { type: "integer", description: "an integer" } },
      type: "object",
      required: ["n"],
      properties: { n: { $ref: "#/$defs/Int", description: "a count" } as any },
      additionalProperties: false
    } as any)
    expect(inlined).toEqual({
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      required: ["n"],
      properties: { n: { type: "integer", description: "a count" } },
      additionalProperties: false
    })
  })
})
