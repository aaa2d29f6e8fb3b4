/**
 * JSON-RPC conformance of `effect-read mcp` on the raw wire: what a client other than the
 * official SDK may send, byte for byte, and what must come back.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import { tempDir, writeTree } from "./support/index.js"
import { eventually, initializeRequest, type Message, Wire, writeEndlessFile } from "./support/mcpWire.js"

const root = tempDir()
writeTree(root, { "notes.txt": "alpha\nbeta\n" })
// Reading past its first lines never ends in practice (a 1 TiB line; a hole, so no disk is used).
const endless = writeEndlessFile(`${root}/endless.txt`)
const slowRead = (id: string | number, progressToken?: string | number) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: {
    name: "read",
    arguments: { filePath: "endless.txt", offset: endless.lines + 2 },
    ...(progressToken === undefined ? {} : { _meta: { progressToken } })
  }
})
const holdsEndless = (wire: Wire) => wire.openFiles().some((file) => file.endsWith("/endless.txt"))
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

const readNotes = (id: string | number) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "read", arguments: { filePath: "notes.txt" } }
})

const expectNotes = (response: Message) => {
  expect(response.error).toBeUndefined()
  expect(response.result.isError).toBe(false)
  expect(response.result.content).toEqual([{
    type: "text",
    text:
      `<path>${root}/notes.txt</path>\n<type>file</type>\n<content>\n1: alpha\n2: beta\n\n(End of file - total 2 lines)\n</content>`
  }])
}

const errorOf = (response: Message) => {
  expect(response.jsonrpc).toBe("2.0")
  expect(response.result).toBeUndefined()
  return response.error as { code: number; message: string }
}

describe("MCP on the raw wire", () => {
  let wire: Wire
  beforeAll(async () => {
    wire = new Wire(["--cwd", root])
    const init = await wire.initialize()
    expect(init.result.serverInfo.name).toBe("effect-read")
  })
  afterAll(async () => {
    expect(await wire.end()).toBe(0)
    expect(wire.garbage).toEqual([])
  })

  it("echoes string and integer ids exactly", async () => {
    for (const id of ["req-abc", "", "1", "ünï 🚀 \"quoted\"", "x".repeat(10_000), 0, -7, 1, Number.MAX_SAFE_INTEGER]) {
      const response = await wire.call({ jsonrpc: "2.0", id, method: "ping" })
      expect(response).toEqual({ jsonrpc: "2.0", id, result: {} })
    }
    // `1` and `"1"` are different requests.
    const from = wire.received.length
    await wire.send({ jsonrpc: "2.0", id: 1, method: "ping" }, { jsonrpc: "2.0", id: "1", method: "ping" })
    expect(await wire.response(1, from)).toMatchObject({ result: {} })
    expect(await wire.response("1", from)).toMatchObject({ result: {} })
    expectNotes(await wire.call(readNotes("read-with-a-string-id")))
  })

  it("answers a line that is not JSON with -32700 and id null, and goes on", async () => {
    for (
      const line of [
        "{\"jsonrpc\":\"2.0\",",
        "garbage",
        "{\"id\": 1, \"method\": \"ping\"",
        "\u0000\u0001\u0002",
        "{'a': 1}"
      ]
    ) {
      const from = wire.received.length
      await wire.send(line)
      const response = await wire.next((message) => message.id === null, from)
      expect(errorOf(response).code).toBe(-32700)
      expect(errorOf(response).message).toMatch(/^Parse error: /)
      expect(await wire.call({ jsonrpc: "2.0", id: "after-parse-error", method: "ping" })).toMatchObject({ result: {} })
    }
  })

  it("answers a message that is not a valid request with -32600, echoing the id when it is valid", async () => {
    const cases: ReadonlyArray<readonly [string, string | number | null, RegExp]> = [
      ["[]", null, /batches/],
      ["[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", null, /batches/],
      ["42", null, /JSON object/],
      ["\"ping\"", null, /JSON object/],
      ["null", null, /JSON object/],
      ["{}", null, /no "method"/],
      ["{\"jsonrpc\":\"2.0\",\"id\":\"no-method\"}", "no-method", /no "method"/],
      ["{\"jsonrpc\":\"1.0\",\"id\":\"old\",\"method\":\"ping\"}", "old", /"jsonrpc" must be "2.0"/],
      ["{\"jsonrpc\":\"2.0\",\"id\":\"m\",\"method\":5}", "m", /"method" must be a string/],
      ["{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}", null, /must not be null/],
      ["{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}", null, /string or an integer/],
      ["{\"jsonrpc\":\"2.0\",\"id\":{\"a\":1},\"method\":\"ping\"}", null, /string or an integer/],
      ["{\"jsonrpc\":\"2.0\",\"id\":true,\"method\":\"ping\"}", null, /string or an integer/],
      ["{\"jsonrpc\":\"2.0\",\"id\":12345678901234567890,\"method\":\"ping\"}", null, /echoed exactly/],
      ["{\"jsonrpc\":\"2.0\",\"id\":\"p\",\"method\":\"ping\",\"params\":\"x\"}", "p", /"params" must be an object/],
      [
        `{"jsonrpc":"2.0","id":"deep","method":"ping","params":{"a":${"[".repeat(100)}${"]".repeat(100)}}}`,
        "deep",
        /nests deeper than 64 levels/
      ],
      [`${"[".repeat(200_000)}${"]".repeat(200_000)}`, null, /batches/]
    ]
    for (const [line, id, message] of cases) {
      const from = wire.received.length
      await wire.send(line)
      const response = await wire.next((m) => m.id === id && "error" in m, from)
      expect(errorOf(response)).toEqual({ code: -32600, message: expect.stringMatching(message) })
      expect(await wire.call({ jsonrpc: "2.0", id: "after-invalid", method: "ping" })).toMatchObject({ result: {} })
    }
  })

  it("skips a line over 1 MiB without buffering it, answers -32600, and reads the next line", async () => {
    const from = wire.received.length
    await wire.write(
      `{"jsonrpc":"2.0","id":"huge","method":"ping","params":{"pad":"${"x".repeat(3 * 1024 * 1024)}"}}\n`
    )
    const response = await wire.next((message) => message.id === null, from)
    expect(errorOf(response)).toEqual({
      code: -32600,
      message: expect.stringMatching(/over the limit of 1048576 bytes/)
    })
    expectNotes(await wire.call(readNotes("after-huge")))
    expect(wire.received.slice(from).some((message) => message.id === "huge")).toBe(false)
  })

  it("answers an unknown method with -32601 and the request's id", async () => {
    for (const id of [10, "ten"]) {
      const response = await wire.call({ jsonrpc: "2.0", id, method: "no/such/method" })
      expect(response.id).toBe(id)
      expect(errorOf(response)).toEqual({
        code: -32601,
        message: expect.stringMatching(/^Method not found: no\/such\/method/)
      })
    }
    const resources = await wire.call({ jsonrpc: "2.0", id: "res", method: "resources/list" })
    expect(errorOf(resources).code).toBe(-32601)
  })

  it("answers bad params of a protocol method with -32602 saying what is wrong where", async () => {
    const noParams = await wire.call({ jsonrpc: "2.0", id: "np", method: "tools/call" })
    expect(errorOf(noParams)).toEqual({
      code: -32602,
      message: expect.stringMatching(/^Invalid params for tools\/call: params: /)
    })
    const badName = await wire.call({ jsonrpc: "2.0", id: "bn", method: "tools/call", params: { name: 5 } })
    expect(errorOf(badName)).toEqual({
      code: -32602,
      message: expect.stringMatching(/^Invalid params for tools\/call: params\.name: .*expected string/)
    })
    const badArguments = await wire.call({
      jsonrpc: "2.0",
      id: "ba",
      method: "tools/call",
      params: { name: "read", arguments: "notes.txt" }
    })
    expect(errorOf(badArguments)).toEqual({ code: -32602, message: expect.stringMatching(/params\.arguments/) })
    const badInitialize = await wire.call({ jsonrpc: "2.0", id: "bi", method: "initialize", params: {} })
    expect(errorOf(badInitialize)).toEqual({
      code: -32602,
      message: expect.stringMatching(/^Invalid params for initialize: params\.protocolVersion/)
    })
    const positional = await wire.call({ jsonrpc: "2.0", id: "pos", method: "tools/call", params: ["read"] })
    expect(errorOf(positional)).toEqual({ code: -32602, message: expect.stringMatching(/not an array/) })
  })

  it("answers bad tool arguments as a tool result with isError, the way read does", async () => {
    const noArguments = await wire.call({ jsonrpc: "2.0", id: "na", method: "tools/call", params: { name: "read" } })
    expect(noArguments.result).toEqual({
      isError: true,
      content: [{ type: "text", text: "Invalid parameters: filePath: is missing" }],
      structuredContent: {
        _tag: "InvalidParams",
        reason: "filePath: is missing",
        message: "Invalid parameters: filePath: is missing"
      }
    })
    const wrongType = await wire.call({
      jsonrpc: "2.0",
      id: "wt",
      method: "tools/call",
      params: { name: "read", arguments: { filePath: ["notes.txt"] } }
    })
    expect(wrongType.result.isError).toBe(true)
    expect(wrongType.result.content[0].text).toMatch(/^Invalid parameters: filePath: /)
  })

  it("answers an unknown tool as an error with the request's id", async () => {
    const response = await wire.call({
      jsonrpc: "2.0",
      id: 77,
      method: "tools/call",
      params: { name: "write", arguments: {} }
    })
    expect(errorOf(response)).toEqual({
      code: -32602,
      message: "Tool 'write' not found: this server has the tools read and read_many"
    })
  })

  it("never answers a notification or a response, well-formed or not", async () => {
    const from = wire.received.length
    await wire.send(
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", method: "notifications/no-such-thing", params: { a: 1 } },
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "never-sent" } },
      { jsonrpc: "2.0", method: "notifications/cancelled" },
      { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 1, progress: 1 } },
      { jsonrpc: "2.0", method: "notifications/initialized", params: [1, 2] },
      { jsonrpc: "2.0", method: "tools/call", params: { name: "read", arguments: { filePath: "notes.txt" } } },
      { jsonrpc: "2.0", id: "unknown-response", result: {} },
      { jsonrpc: "2.0", id: 12345, error: { code: -1, message: "x" } }
    )
    await wire.call({ jsonrpc: "2.0", id: "fence-1", method: "ping" })
    await wire.call({ jsonrpc: "2.0", id: "fence-2", method: "ping" })
    expect(wire.received.slice(from).map((message) => message.id)).toEqual(["fence-1", "fence-2"])
  })

  it("is lenient where nothing is ambiguous: no \"jsonrpc\", extra members, CRLF, blank lines, a BOM", async () => {
    expect(await wire.call({ id: "req-abc", method: "ping" })).toEqual({ jsonrpc: "2.0", id: "req-abc", result: {} })
    expect(await wire.call({ jsonrpc: "2.0", id: "extra", method: "ping", extra: true })).toMatchObject({ result: {} })
    const from = wire.received.length
    await wire.write(`\n   \n\uFEFF${JSON.stringify(readNotes("crlf"))}\r\n`)
    expectNotes(await wire.response("crlf", from))
    expect(wire.received.slice(from).map((message) => message.id)).toEqual(["crlf"])
  })

  it("takes messages split anywhere across writes, and several in one write", async () => {
    const bytes = Buffer.from(
      [readNotes("split-1"), { jsonrpc: "2.0", id: "split-2", method: "ping" }, readNotes("split-3")]
        .map((m) => `${JSON.stringify(m)}\n`)
        .join("")
    )
    const from = wire.received.length
    for (let i = 0; i < bytes.length; i += 7) await wire.write(bytes.subarray(i, i + 7))
    expectNotes(await wire.response("split-1", from))
    expect(await wire.response("split-2", from)).toMatchObject({ result: {} })
    expectNotes(await wire.response("split-3", from))
  })

  it("serves the issue's sequence and a plain read after it", async () => {
    const from = wire.received.length
    await wire.send(
      "{\"jsonrpc\":\"2.0\",\"id\":\"req-abc\",\"method\":\"ping\"}",
      "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"no/such/method\"}",
      "{\"jsonrpc\":\"2.0\",",
      "garbage",
      "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"tools/call\",\"params\":{\"name\":\"read\"}}",
      "{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"tools/call\",\"params\":{\"name\":\"nope\",\"arguments\":{}}}",
      JSON.stringify(readNotes(13))
    )
    expect(await wire.response("req-abc", from)).toMatchObject({ result: {} })
    expect(errorOf(await wire.response(10, from)).code).toBe(-32601)
    expect((await wire.response(11, from)).result.isError).toBe(true)
    expect(errorOf(await wire.response(12, from)).code).toBe(-32602)
    expectNotes(await wire.response(13, from))
    expect(wire.received.slice(from).filter((message) => message.id === null).map((m) => m.error.code)).toEqual([
      -32700,
      -32700
    ])
  })
})

describe("MCP stdio lifecycle", () => {
  it("answers everything written before stdin closed, then exits 0", async () => {
    const wire = new Wire(["--cwd", root])
    await wire.send(initializeRequest(1), ...Array.from({ length: 20 }, (_, i) => readNotes(100 + i)), "garbage")
    expect(await wire.end()).toBe(0)
    for (let i = 0; i < 20; i++) expectNotes(await wire.response(100 + i))
    expect(wire.received.filter((message) => message.id === null)).toHaveLength(1)
    expect(wire.garbage).toEqual([])
  })

  it("answers an unterminated last line at end of input", async () => {
    const wire = new Wire(["--cwd", root])
    await wire.write(JSON.stringify({ jsonrpc: "2.0", id: "last", method: "ping" }))
    expect(await wire.end()).toBe(0)
    expect(await wire.response("last")).toMatchObject({ result: {} })
  })
})

describe("MCP: slow reads, cancellation and progress on the raw wire", () => {
  it("answers a ping and other reads while a read runs; a cancelled read stops and is never answered", async () => {
    const wire = new Wire(["--cwd", root])
    await wire.initialize()
    // Id 0 on purpose: the SDK alone would ignore a cancellation naming a falsy id.
    await wire.send(slowRead(0))
    await eventually(() => holdsEndless(wire), "the slow read has its file open")
    expect(await wire.call({ jsonrpc: "2.0", id: "ping-during", method: "ping" })).toMatchObject({ result: {} })
    expectNotes(await wire.call(readNotes("read-during")))
    expect(holdsEndless(wire)).toBe(true)

    await wire.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 0, reason: "test" } })
    // Interrupted, not merely unanswered: the read lets go of its file.
    await eventually(() => !holdsEndless(wire), "the cancelled read closed its file")
    expectNotes(await wire.call(readNotes("read-after")))
    expect(await wire.end()).toBe(0)
    expect(wire.received.some((message) => message.id === 0)).toBe(false)
  })

  it("sends notifications/progress for a read that carries a progressToken and takes over a second", async () => {
    const wire = new Wire(["--cwd", root])
    await wire.initialize()
    const from = wire.received.length
    await wire.send(slowRead(41, "tok-41"), slowRead(42))
    const isProgress = (message: Message) => message.method === "notifications/progress"
    const first = await wire.next(isProgress, from)
    const later = await wire.next((m) => isProgress(m) && m.params.progress > first.params.progress, from)
    for (const notification of [first, later]) {
      expect(notification.id).toBeUndefined()
      expect(notification.params).toEqual({
        progressToken: "tok-41",
        progress: expect.any(Number),
        total: endless.size,
        message: expect.stringMatching(new RegExp(`^Reading ${root}/endless\\.txt: .* of 1\\.0 TiB \\(0%\\)$`))
      })
    }
    await wire.send(
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 41 } },
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 42 } }
    )
    await eventually(() => !holdsEndless(wire), "both reads closed their file")
    const progress = wire.received.filter(isProgress)
    // Only the request that asked for progress gets it, and it only grows.
    expect(progress.every((m) => m.params.progressToken === "tok-41")).toBe(true)
    const values = progress.map((m) => m.params.progress)
    expect(values).toEqual([...values].sort((a, b) => a - b))
    expect(new Set(values).size).toBe(values.length)
    expect(await wire.end()).toBe(0)
    expect(wire.received.some((message) => message.id === 41 || message.id === 42)).toBe(false)
  })

  it("when stdin closes with a read still running, interrupts it after a grace period and exits 0", async () => {
    const wire = new Wire(["--cwd", root])
    await wire.initialize()
    await wire.send(slowRead("left-running"), { jsonrpc: "2.0", id: "answered", method: "ping" })
    await eventually(() => holdsEndless(wire), "the slow read has its file open")
    expect(await wire.end()).toBe(0)
    expect(await wire.response("answered")).toMatchObject({ result: {} })
    expect(wire.received.some((message) => message.id === "left-running")).toBe(false)
  })
})
