/**
 * `effect-read mcp` answers a first `initialize` before the SDK is loaded
 * (src/internal/mcp/earlyInitialize.ts). The early answer must be the SDK server's, byte for
 * byte, for every request it is given for; everything else is left to the SDK; and a session
 * served after an early answer is the session served without one, minus nothing.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import {
  InitializeRequestSchema,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS
} from "@modelcontextprotocol/sdk/types.js"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as fs from "node:fs"
import { PassThrough } from "node:stream"
import {
  checksCannotFail,
  initializeAnswer,
  latestProtocolVersion,
  listen,
  supportedProtocolVersions,
  wellFormedInitialize
} from "../src/internal/mcp/earlyInitialize.js"
import { classify, type Request } from "../src/internal/mcp/jsonRpc.js"
import { runStdioWith } from "../src/internal/mcp/server.js"
import * as McpServer from "../src/McpServer.js"
import { memoryLayer, tempDir, writeTree } from "./support/index.js"
import { initializeRequest, Wire } from "./support/mcpWire.js"

const serverInfo = { name: "effect-read", version: "9.8.7" }
const services = memoryLayer({ "/project/notes.txt": "alpha\nbeta\n" })

/**
 * The lines the real server (`McpServer` on `StdioTransport`) writes for `input` (then `later`,
 * once the server has started; then the input ends); with `early`, `earlyInitialize.listen`
 * reads first, as the bin does.
 */
const serve = async (input: string, early: boolean, later?: string) => {
  const stdin = new PassThrough()
  const stdout = new PassThrough()
  let written = ""
  stdout.on("data", (chunk: Buffer) => (written += chunk.toString("utf8")))
  stdin.write(input)
  if (later === undefined) stdin.end()
  const listener = early ? listen({ serverInfo, input: stdin, output: stdout }) : undefined
  if (listener !== undefined) await listener.settled
  const earlyWritten = written
  const transport = () => {
    if (later !== undefined) setImmediate(() => stdin.end(later))
    return { input: stdin, output: stdout, early: listener?.takeOver() }
  }
  await Effect.runPromise(runStdioWith(serverInfo, transport).pipe(Effect.provide(services)))
  return { earlyWritten, lines: written.split("\n").filter((line) => line !== "") }
}

const line = (message: unknown) => `${JSON.stringify(message)}\n`

const request = (message: unknown): Request => {
  const verdict = classify(JSON.stringify(message))
  if (verdict._tag !== "Request") throw new Error(`not a request: ${JSON.stringify(message)}`)
  return verdict.message
}

const json = FastCheck.jsonValue({ maxDepth: 2 })
const someObject = FastCheck.oneof(FastCheck.constant({}), FastCheck.dictionary(FastCheck.string(), json))
const id = FastCheck.oneof(FastCheck.string(), FastCheck.integer(), FastCheck.constantFrom(0, "", -1))

/**
 * `initialize` requests: each value what the schema takes, or in `noise` cases of 20 any JSON
 * value; with `dropRequired`, required fields may be missing too (both sides of every check).
 */
const initializeRequests = (noise: number, dropRequired: boolean) => {
  const or = <A>(arbitrary: FastCheck.Arbitrary<A>) =>
    FastCheck.oneof({ weight: 20 - noise, arbitrary }, { weight: noise, arbitrary: json })
  const object = (fields: Record<string, FastCheck.Arbitrary<unknown>>, required: ReadonlyArray<string> = []) =>
    FastCheck.record(Object.fromEntries(
      Object.entries(fields).map(([key, arbitrary]) => [
        key,
        required.includes(key) && !dropRequired
          ? or(arbitrary)
          : FastCheck.option(or(arbitrary), { nil: undefined, freq: 3 })
      ])
    )).map((record) => Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)))
  const capabilities = object({
    experimental: FastCheck.dictionary(FastCheck.string(), someObject),
    sampling: object({ context: someObject, tools: someObject }),
    elicitation: object({ form: object({ applyDefaults: FastCheck.boolean() }), url: someObject }),
    roots: object({ listChanged: FastCheck.boolean() }),
    tasks: object({
      list: someObject,
      cancel: someObject,
      requests: object({ sampling: object({ createMessage: someObject }), elicitation: object({ create: someObject }) })
    }),
    extensions: FastCheck.dictionary(FastCheck.string(), someObject),
    custom: json
  })
  const clientInfo = object({
    name: FastCheck.string(),
    title: FastCheck.string(),
    version: FastCheck.string(),
    websiteUrl: FastCheck.string(),
    description: FastCheck.string(),
    icons: FastCheck.array(object({
      src: FastCheck.string(),
      mimeType: FastCheck.string(),
      sizes: FastCheck.array(FastCheck.string()),
      theme: FastCheck.constantFrom("light", "dark")
    }, ["src"]))
  }, ["name", "version"])
  return FastCheck.record({
    jsonrpc: FastCheck.constant("2.0"),
    id,
    method: FastCheck.constant("initialize"),
    params: object({
      protocolVersion: FastCheck.oneof(FastCheck.constantFrom(...SUPPORTED_PROTOCOL_VERSIONS), FastCheck.string()),
      capabilities,
      clientInfo,
      _meta: object({
        progressToken: FastCheck.oneof(FastCheck.string(), FastCheck.integer()),
        "io.modelcontextprotocol/related-task": object({ taskId: FastCheck.string() }, ["taskId"])
      })
    }, ["protocolVersion", "capabilities", "clientInfo"])
  })
}

describe("an initialize answered before the SDK is loaded", () => {
  it("knows the protocol versions of the SDK installed", () => {
    expect(supportedProtocolVersions).toEqual(SUPPORTED_PROTOCOL_VERSIONS)
    expect(latestProtocolVersion).toBe(LATEST_PROTOCOL_VERSION)
  })

  it.prop(
    "answers only what the SDK's schema and the transport's check take",
    [initializeRequests(4, true)],
    ([message]) => {
      const parsed = request(message)
      if (wellFormedInitialize(parsed)) {
        expect(InitializeRequestSchema.safeParse(parsed).success).toBe(true)
        expect(McpServer.checkParams(parsed)).toBeUndefined()
      }
    },
    { fastCheck: { numRuns: 2000 } }
  )

  it("takes the requests clients send", () => {
    const common = [
      { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "c", version: "1" } },
      {
        protocolVersion: "2025-11-25",
        capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: { form: {}, url: {} } },
        clientInfo: { name: "claude-code", version: "2.0.1", title: "Claude Code" }
      },
      { protocolVersion: "2024-11-05", capabilities: { elicitation: {} }, clientInfo: { name: "x", version: "" } },
      {
        protocolVersion: "1999-01-01",
        capabilities: {},
        clientInfo: { name: "old", version: "0" },
        _meta: { progressToken: 3 }
      }
    ]
    for (const params of common) {
      expect(wellFormedInitialize(request({ jsonrpc: "2.0", id: 1, method: "initialize", params }))).toBe(true)
    }
  })

  it.effect.prop(
    "the early answer is the server's, byte for byte; a session after it is the session without it",
    [initializeRequests(1, false)],
    ([message]) =>
      Effect.promise(async () => {
        const input = [
          line(message),
          line({ jsonrpc: "2.0", method: "notifications/initialized" }),
          line({ jsonrpc: "2.0", id: "ping-after", method: "ping" })
        ].join("")
        const without = await serve(input, false)
        const withEarly = await serve(input, true)
        const parsed = request(message)
        if (wellFormedInitialize(parsed)) {
          const answer = without.lines.find((l) => JSON.parse(l).id === parsed.id && "result" in JSON.parse(l))
          expect(withEarly.earlyWritten).toBe(`${initializeAnswer(parsed, serverInfo)}\n`)
          expect(withEarly.earlyWritten).toBe(`${answer}\n`)
        } else {
          expect(withEarly.earlyWritten).toBe("")
        }
        // Each request answered once, as without the early answer.
        expect(withEarly.lines).toEqual(without.lines)
      }),
    { fastCheck: { numRuns: 100 } }
  )

  it("leaves everything else to the SDK, untouched", async () => {
    const init = line({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "c", version: "1" } }
    })
    const cases: ReadonlyArray<string> = [
      "{\"jsonrpc\":\"2.0\",\n" + init,
      `[${init.trim()}]\n` + init,
      line({ jsonrpc: "2.0", id: 0, method: "ping" }) + init,
      "\n" + init,
      line({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 2025, capabilities: {} } }),
      line({ jsonrpc: "1.0", id: 1, method: "initialize" }),
      line({ jsonrpc: "2.0", method: "initialize", params: {} }) + init
    ]
    for (const input of cases) {
      const without = await serve(input, false)
      const withEarly = await serve(input, true)
      expect(withEarly.earlyWritten).toBe("")
      expect(withEarly.lines).toEqual(without.lines)
    }
    // A first line not yet complete when the server takes over: the server answers it.
    const without = await serve(init.slice(0, 20), false, init.slice(20))
    const withEarly = await serve(init.slice(0, 20), true, init.slice(20))
    expect(withEarly.earlyWritten).toBe("")
    expect(withEarly.lines).toEqual(without.lines)
    expect(JSON.parse(withEarly.lines[0]!)).toMatchObject({ id: 1, result: { serverInfo } })
  })

  it("holds no more than the first line while the server loads: the rest waits in the pipe", async () => {
    const stdin = new PassThrough()
    const stdout = new PassThrough()
    let written = ""
    stdout.on("data", (chunk: Buffer) => (written += chunk.toString("utf8")))
    const init = line({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "c", version: "1" } }
    })
    const listener = listen({ serverInfo, input: stdin, output: stdout })
    stdin.write(init)
    // 4 MB of pings, written one chunk at a time while the server would be loading.
    const pings = Array.from(
      { length: 200 },
      (_, i) =>
        Array.from({ length: 200 }, (_, j) => line({ jsonrpc: "2.0", id: `p${i}-${j}`, method: "ping" })).join("")
    )
    for (const chunk of pings) stdin.write(chunk)
    await listener.settled
    const early = listener.takeOver()
    expect(early.answer).toBeDefined()
    expect(Buffer.concat(early.chunks).toString("utf8")).toBe(init)
    stdin.end()
    await Effect.runPromise(
      runStdioWith(serverInfo, () => ({ input: stdin, output: stdout, early })).pipe(Effect.provide(services))
    )
    const ids = written.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l).id)
    expect(ids).toEqual([1, ...pings.flatMap((_, i) => Array.from({ length: 200 }, (_, j) => `p${i}-${j}`))])
  })

  it("answers once when the client reuses the id after the early answer", async () => {
    const init = {
      jsonrpc: "2.0",
      id: 7,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "c", version: "1" } }
    }
    const input = [line(init), line({ jsonrpc: "2.0", id: 7, method: "ping" })].join("")
    const { earlyWritten, lines } = await serve(input, true)
    expect(earlyWritten).not.toBe("")
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      { result: { protocolVersion: "2025-06-18", capabilities: { tools: {} }, serverInfo }, jsonrpc: "2.0", id: 7 },
      { result: {}, jsonrpc: "2.0", id: 7 }
    ])
  })

  it("is answered by the bin itself only for a command line whose checks cannot fail", () => {
    const isDirectory = (directory: string) => directory === "/project" || directory === "mcp"
    expect(checksCannotFail(["mcp"], isDirectory)).toBe(true)
    expect(checksCannotFail(["mcp", "--cwd", "/project"], isDirectory)).toBe(true)
    for (
      const words of [
        [],
        ["notes.txt"],
        ["--cwd", "/project", "mcp"],
        ["mcp", "--cwd", "/missing"],
        ["mcp", "--cwd", "mcp"],
        ["mcp", "--cwd"],
        ["mcp", "--cwd=/project"],
        ["mcp", "--cwd", "/project", "--store", "sqlite:x.db"],
        ["mcp", "--ask-timeout", "0"],
        ["mcp", "--allow", "**"],
        ["mcp", "--max-lines", "0"],
        ["mcp", "--session-memory"]
      ]
    ) {
      expect(checksCannotFail(words, isDirectory)).toBe(false)
    }
  })

  describe("through the real bin", () => {
    const root = tempDir()
    writeTree(root, { "notes.txt": "alpha\nbeta\n" })
    afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

    it("answers initialize once, then serves the session", async () => {
      const wire = new Wire(["--cwd", root])
      await wire.send(
        { ...initializeRequest(5), params: { ...initializeRequest(5).params, capabilities: { elicitation: {} } } },
        { jsonrpc: "2.0", method: "notifications/initialized" },
        { jsonrpc: "2.0", id: 5, method: "ping" },
        { jsonrpc: "2.0", id: 6, method: "tools/call", params: { name: "read", arguments: { filePath: "notes.txt" } } }
      )
      const read = await wire.response(6)
      expect(read.result.content[0].text).toContain("1: alpha")
      expect(await wire.end()).toBe(0)
      expect(wire.garbage).toEqual([])
      expect(wire.received.filter((message) => message.id === 5)).toEqual([
        {
          result: {
            protocolVersion: "2025-06-18",
            capabilities: { tools: {} },
            serverInfo: { name: "effect-read", version: JSON.parse(fs.readFileSync("package.json", "utf8")).version }
          },
          jsonrpc: "2.0",
          id: 5
        },
        { result: {}, jsonrpc: "2.0", id: 5 }
      ])
    })

    it("answers initialize once on every kind of command line", async () => {
      for (const args of [[], ["--cwd", root], ["--cwd", root, "--session-memory"], ["--cwd", root, "--allow", "**"]]) {
        const wire = new Wire(args)
        await wire.send(initializeRequest(1), { jsonrpc: "2.0", id: 2, method: "ping" })
        await wire.response(2)
        expect(await wire.end()).toBe(0)
        expect(wire.received.map((message) => message.id)).toEqual([1, 2])
      }
    })

    it("answers nothing when the command line is wrong, though initialize is waiting", async () => {
      const wire = new Wire(["--cwd", `${root}/missing`])
      await wire.send(initializeRequest(1))
      expect(await wire.end()).toBe(2)
      expect(wire.received).toEqual([])
      expect(wire.stderr).toContain("no such directory")
    })
  })
})
