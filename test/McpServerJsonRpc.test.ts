/**
 * The pure JSON-RPC layer under the MCP server: line framing and the verdict on each line.
 */
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { classify, deeperThan, type Line, LineBuffer, stringifyLine } from "../src/internal/mcp/jsonRpc.js"

/** Feed `bytes` cut at `cuts` (positions, any order), then end. */
const split = (buffer: LineBuffer, bytes: Uint8Array, cuts: ReadonlyArray<number>): Array<Line> => {
  const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b)
  const lines: Array<Line> = []
  let start = 0
  for (const point of [...points, bytes.length]) {
    lines.push(...buffer.push(bytes.subarray(start, point)))
    start = point
  }
  return [...lines, ...buffer.end()]
}

describe("LineBuffer", () => {
  it.prop("splits on \\n (dropping a \\r before it) whatever the chunking", [
    fc.array(fc.string({ unit: "grapheme" }).map((s) => s.replace(/\n/g, "")), { maxLength: 8 }),
    fc.array(fc.nat(), { maxLength: 10 })
  ], ([texts, cuts]) => {
    const bytes = Buffer.from(texts.map((text) => `${text}\n`).join(""), "utf8")
    const lines = split(new LineBuffer(1 << 20), bytes, cuts)
    expect(lines).toEqual(texts.map((text) => ({ _tag: "Line", text: text.replace(/\r$/, "") })))
  })

  it.prop("skips lines over the limit, counting their bytes, and keeps the rest", [
    fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 8 }),
    fc.array(fc.nat(), { maxLength: 10 })
  ], ([lengths, cuts]) => {
    const limit = 16
    const bytes = Buffer.from(lengths.map((length) => `${"x".repeat(length)}\n`).join(""), "utf8")
    const lines = split(new LineBuffer(limit), bytes, cuts)
    expect(lines).toEqual(
      lengths.map((length) =>
        length > limit ? { _tag: "TooLong", bytes: length } : { _tag: "Line", text: "x".repeat(length) }
      )
    )
  })

  it("takes an unterminated last line at the end, and nothing when the input ended with \\n", () => {
    const buffer = new LineBuffer()
    expect(buffer.push(Buffer.from("{\"a\":1}\n{\"b\""))).toEqual([{ _tag: "Line", text: "{\"a\":1}" }])
    expect(buffer.end()).toEqual([{ _tag: "Line", text: "{\"b\"" }])
    expect(buffer.end()).toEqual([])
  })

  it("does not keep a view of the caller's chunk", () => {
    const buffer = new LineBuffer()
    const chunk = Buffer.from("abc")
    buffer.push(chunk)
    chunk.fill(0x7a)
    expect(buffer.push(Buffer.from("\n"))).toEqual([{ _tag: "Line", text: "abc" }])
  })
})

describe("classify", () => {
  it("takes requests, notifications and responses, dropping unknown members", () => {
    expect(classify("{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"ping\",\"x\":1}")).toEqual({
      _tag: "Request",
      message: { jsonrpc: "2.0", id: "a", method: "ping" }
    })
    expect(classify("{\"id\":0,\"method\":\"tools/list\",\"params\":{}}")).toEqual({
      _tag: "Request",
      message: { jsonrpc: "2.0", id: 0, method: "tools/list", params: {} }
    })
    expect(classify("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}")).toEqual({
      _tag: "Notification",
      message: { jsonrpc: "2.0", method: "notifications/initialized" }
    })
    expect(classify("{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{}}")).toEqual({
      _tag: "Response",
      message: { jsonrpc: "2.0", id: 4, result: {} }
    })
  })

  it("never answers a malformed notification or response", () => {
    expect(classify("{\"jsonrpc\":\"2.0\",\"method\":\"n\",\"params\":[1]}")._tag).toBe("Ignore")
    expect(classify("{\"jsonrpc\":\"2.0\",\"id\":null,\"result\":{}}")._tag).toBe("Ignore")
  })

  it.prop("answers or dispatches every line, and never throws", [
    fc.oneof(fc.string(), fc.json(), fc.jsonValue().map((value) => JSON.stringify(value)))
  ], ([line]) => {
    const verdict = classify(line)
    expect(["Request", "Notification", "Response", "Reply", "Ignore"]).toContain(verdict._tag)
    if (verdict._tag === "Reply") {
      expect([-32700, -32600, -32602]).toContain(verdict.response.error.code)
    }
  })

  it("caps the parser's complaint", () => {
    const verdict = classify(`"${"x".repeat(100_000)}`)
    expect(verdict._tag).toBe("Reply")
    if (verdict._tag === "Reply") expect(verdict.response.error.message.length).toBeLessThan(300)
  })
})

describe("deeperThan", () => {
  it("measures nesting without recursion (a million levels)", () => {
    const deep = JSON.parse(`${"[".repeat(1_000_000)}${"]".repeat(1_000_000)}`)
    expect(deeperThan(deep, 64)).toBe(true)
    expect(deeperThan({ a: [{ b: 1 }] }, 3)).toBe(false)
    expect(deeperThan({ a: [{ b: {} }] }, 3)).toBe(true)
    expect(deeperThan("scalar", 0)).toBe(false)
  })
})

describe("stringifyLine", () => {
  it.prop("is JSON.stringify, whatever the values and wherever long strings are put in as they are", [
    fc.jsonValue(),
    fc.integer({ min: 0, max: 12 })
  ], ([value, rawChars]) => {
    expect(stringifyLine(value, rawChars)).toBe(JSON.stringify(value))
  })

  it("puts a base64 attachment in as it is, twice, and escapes a long string that needs it", () => {
    const data = Buffer.alloc(300_000, 7).toString("base64")
    const message = {
      jsonrpc: "2.0",
      id: 1,
      result: {
        content: [{ type: "text", text: `a "quoted"\nline\u0000${"x".repeat(70_000)}` }, {
          type: "image",
          data,
          mimeType: "image/png"
        }],
        structuredContent: { attachments: [{ url: `data:image/png;base64,${data}` }], note: "\u0000raw-0-0" }
      }
    }
    const line = stringifyLine(message)
    expect(line).toBe(JSON.stringify(message))
    expect(JSON.parse(line)).toEqual(message)
  })
})
