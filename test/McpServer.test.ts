/**
 * The MCP door, end to end: `node dist/bin.js mcp` as a child process, driven by the official
 * MCP TypeScript SDK client over stdio.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import * as McpServer from "../src/McpServer.js"
import * as ModelResult from "../src/ModelResult.js"
import * as Read from "../src/Read.js"
import type { ReadError } from "../src/ReadError.js"
import * as ReadMany from "../src/ReadMany.js"
import * as ReadTool from "../src/ReadTool.js"
import { nodeLayer, tempDir, writeTree } from "./support/index.js"
import { eventually, writeEndlessFile } from "./support/mcpWire.js"
import { PDF, PNG } from "./support/media.js"

const bin = path.resolve("dist/bin.js")
const packageVersion = JSON.parse(fs.readFileSync("package.json", "utf8")).version

const root = tempDir()
writeTree(root, {
  "src/app.ts": "import x from \"y\"\nexport const a = 1\n",
  "src/util.ts": "export const u = 2\n",
  "config.json": "{}\n",
  "pixel.png": PNG,
  "doc.pdf": PDF
})
const endless = writeEndlessFile(`${root}/endless.txt`)
const outside = tempDir("effect-read-outside-")
writeTree(outside, { "secret.txt": "outside\n" })

afterAll(() => {
  fs.rmSync(root, { recursive: true, force: true })
  fs.rmSync(outside, { recursive: true, force: true })
})

/** A connected SDK client for `effect-read mcp <args>`; stderr is collected, not inherited. */
const connect = async (args: ReadonlyArray<string>) => {
  const transport = new StdioClientTransport({ command: process.execPath, args: [bin, "mcp", ...args], stderr: "pipe" })
  const stderr: Array<string> = []
  transport.stderr?.on("data", (chunk) => stderr.push(String(chunk)))
  const errors: Array<Error> = []
  const client = new Client({ name: "effect-read-test", version: "1.0.0" })
  client.onerror = (error) => errors.push(error)
  await client.connect(transport)
  return { client, stderr, errors }
}

type Connection = Awaited<ReturnType<typeof connect>>

interface CallResult {
  readonly isError?: boolean
  readonly content: ReadonlyArray<Record<string, unknown>>
  readonly structuredContent?: Record<string, unknown>
}

const call = (connection: Connection, args: Record<string, unknown>) =>
  connection.client.callTool({ name: "read", arguments: args }) as Promise<CallResult>

describe("MCP server (effect-read mcp)", () => {
  let server: Connection
  beforeAll(async () => {
    server = await connect(["--cwd", root])
  })
  afterAll(async () => {
    await server.client.close()
    // The SDK would have reported anything on stdout that is not a JSON-RPC message.
    expect(server.errors).toEqual([])
  })

  it("initializes with its name, version and the tools capability", () => {
    expect(server.client.getServerVersion()).toEqual({ name: "effect-read", version: packageVersion })
    expect(server.client.getServerCapabilities()?.tools).toBeDefined()
  })

  it("lists read with its description, inlined input schema and read-only hints", async () => {
    const { tools } = await server.client.listTools()
    expect(tools.map((t) => t.name)).toEqual(["read", "read_many"])
    const tool = tools[0]!
    expect(tool.name).toBe("read")
    expect(tool.title).toBe("Read")
    expect(tool.description).toBe(Read.defaultDescription)
    expect(tool.inputSchema).toEqual(JSON.parse(JSON.stringify(ReadTool.jsonSchema)))
    expect(tool.inputSchema.required).toEqual(["filePath"])
    expect(JSON.stringify(tool.inputSchema)).not.toContain("$ref")
    expect(tool.annotations).toEqual({
      title: "Read",
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false
    })
  })

  it("reads a file: output as text, the typed result as structured content", async () => {
    const result = await call(server, { filePath: "src/app.ts" })
    const output =
      `<path>${root}/src/app.ts</path>\n<type>file</type>\n<content>\n1: import x from "y"\n2: export const a = 1\n\n(End of file - total 2 lines)\n</content>`
    expect(result.isError).toBe(false)
    expect(result.content).toEqual([{ type: "text", text: output }])
    const structured = Schema.decodeUnknownSync(ModelResult.ModelReadResult)(result.structuredContent)
    expect(structured.title).toBe("src/app.ts")
    expect(structured.output).toBe(output)
    expect(structured.metadata).toMatchObject({ kind: "text", path: `${root}/src/app.ts`, totalLines: 2 })
    // The preview repeats lines the output has: it does not travel twice.
    expect(result.structuredContent!.metadata).not.toHaveProperty("preview")
  })

  it("read_many: several files in one call, a denied one in place, structured content the ReadManyResult", async () => {
    const many = (await server.client.listTools()).tools[1]!
    expect(many.inputSchema).toEqual(JSON.parse(JSON.stringify(ReadTool.manyJsonSchema)))
    expect(many.annotations).toMatchObject({ title: "Read many", readOnlyHint: true })
    const result = await server.client.callTool({
      name: "read_many",
      arguments: {
        files: [{ filePath: "src/app.ts" }, { filePath: `${outside}/secret.txt` }, { filePath: "src/util.ts" }]
      }
    }) as CallResult
    expect(result.isError).toBe(false)
    const text = String(result.content[0]!.text)
    expect(text.indexOf("src/app.ts")).toBeLessThan(text.indexOf("secret.txt"))
    expect(text.indexOf("secret.txt")).toBeLessThan(text.indexOf("src/util.ts"))
    expect(text).not.toContain("outside\n")
    const structured = Schema.decodeUnknownSync(ModelResult.ModelReadManyResult)(result.structuredContent)
    expect(structured.files.map((file) => file.error?._tag ?? file.metadata?.kind)).toEqual([
      "text",
      "PermissionDenied",
      "text"
    ])
    const bad = await server.client.callTool({ name: "read_many", arguments: { files: "src" } }) as CallResult
    expect(bad.isError).toBe(true)
    expect(bad.structuredContent).toMatchObject({ _tag: "InvalidParams" })
  })

  it("reads a directory", async () => {
    const result = await call(server, { filePath: "src" })
    expect(result.isError).toBe(false)
    expect(result.content).toEqual([{
      type: "text",
      text: `<path>${root}/src</path>\n<type>directory</type>\n<entries>\napp.ts\nutil.ts\n\n(2 entries)\n</entries>`
    }])
    expect(result.structuredContent).toMatchObject({ title: "src", metadata: { kind: "directory", totalLines: 2 } })
  })

  it("returns an image as MCP image content (base64 data and MIME type)", async () => {
    const result = await call(server, { filePath: "pixel.png" })
    expect(result.isError).toBe(false)
    expect(result.content).toEqual([
      { type: "text", text: "Image read successfully" },
      { type: "image", mimeType: "image/png", data: PNG.toString("base64") }
    ])
    expect(Buffer.from(result.content[1]!.data as string, "base64").equals(PNG)).toBe(true)
    // The structured content references the image: its bytes are in the image block only.
    expect(result.structuredContent).toMatchObject({
      metadata: { kind: "image", mime: "image/png", size: PNG.length },
      attachments: [{ index: 0, mime: "image/png", size: PNG.length, delivery: "image-content" }]
    })
    expect(JSON.stringify(result.structuredContent)).not.toContain(PNG.toString("base64").slice(0, 24))
  })

  it("returns a PDF as its text, paged like a document, with no bytes attached", async () => {
    const result = await call(server, { filePath: "doc.pdf" })
    expect(result.isError).toBe(false)
    expect(result.content).toEqual([{
      type: "text",
      text:
        `<path>${root}/doc.pdf</path>\n<type>file</type>\n<content>\n1: [the PDF has no pages]\n\n(End of file - total 1 lines)\n</content>`
    }])
    expect(result.structuredContent).toMatchObject({ metadata: { kind: "document", mime: "application/pdf" } })
    expect(result.structuredContent).not.toHaveProperty("attachments")
  })

  it("a missing file is isError with the message (and suggestions) as text, tag and fields as structured content", async () => {
    const result = await call(server, { filePath: "config.jsn" })
    const message = `File not found: ${root}/config.jsn\n\nDid you mean one of these?\n${root}/config.json`
    expect(result.isError).toBe(true)
    expect(result.content).toEqual([{ type: "text", text: message }])
    expect(result.structuredContent).toEqual({
      _tag: "FileNotFound",
      path: `${root}/config.jsn`,
      suggestions: [`${root}/config.json`],
      message
    })
  })

  it("denies a path outside the project when the client cannot be asked, saying how to allow it", async () => {
    const result = await call(server, { filePath: path.join(outside, "secret.txt") })
    expect(result.isError).toBe(true)
    expect(result.content).toEqual([{
      type: "text",
      text:
        `Permission denied: reading outside the project (${outside}/*) needs the user's approval, and the user could not be asked (the MCP client does not support elicitation, so the server cannot ask the user). Do not retry it. To allow it, the user can start the MCP server (effect-read mcp) with --allow-external.`
    }])
    expect(result.structuredContent).toMatchObject({
      _tag: "PermissionDenied",
      permission: "external_directory",
      patterns: [`${outside}/*`],
      reason: "unavailable"
    })
  })

  it("answers malformed arguments with InvalidParams, as read does", async () => {
    const negative = await call(server, { filePath: "src/app.ts", offset: 1.5 })
    expect(negative.isError).toBe(true)
    expect(negative.content).toEqual([{
      type: "text",
      text:
        "Invalid parameters: offset: offset must be a whole number: a line number (1-based; 0 means 1), or -N for the last N lines"
    }])
    expect(negative.structuredContent).toEqual({
      _tag: "InvalidParams",
      reason: "offset: offset must be a whole number: a line number (1-based; 0 means 1), or -N for the last N lines",
      message:
        "Invalid parameters: offset: offset must be a whole number: a line number (1-based; 0 means 1), or -N for the last N lines"
    })
    const missing = await call(server, { offset: 2 })
    expect(missing.isError).toBe(true)
    expect(missing.content).toEqual([{ type: "text", text: "Invalid parameters: filePath: is missing" }])
  })

  it("answers misspelled and unknown arguments with InvalidParams, word for word what read and readMany answer", async () => {
    const cases: ReadonlyArray<readonly ["read" | "read_many", Record<string, unknown>]> = [
      ["read", { filePath: "src/app.ts", offest: 2 }],
      ["read", { filePath: "src/app.ts", limt: 1 }],
      ["read", { filePath: "src/app.ts", bogus: true, offset: 2 }],
      ["read_many", { globs: "src/*.ts" }],
      ["read_many", { files: [{ filePath: "src/app.ts", offest: 2 }] }]
    ]
    for (const [name, args] of cases) {
      const result = await server.client.callTool({ name, arguments: args }) as CallResult
      const direct = await Effect.runPromise(
        Effect.flip<unknown, ReadError, Read.EffectRequirements>(
          name === "read" ? Read.readUnknown(args) : ReadMany.readManyUnknown(args)
        ).pipe(Effect.provide(nodeLayer(root)))
      )
      expect(direct._tag).toBe("InvalidParams")
      expect(direct.message).toMatch(/is unexpected/)
      expect(result.isError).toBe(true)
      expect(result.content).toEqual([{ type: "text", text: direct.message }])
      expect(result.structuredContent).toMatchObject({ _tag: "InvalidParams", message: direct.message })
    }
  })

  it("an unknown tool is a protocol error, not a tool result", async () => {
    await expect(server.client.callTool({ name: "write", arguments: {} })).rejects.toThrow(/Tool 'write' not found/)
  })
})

describe("MCP cancellation and progress through the SDK client", () => {
  it("reports progress for a long read, interrupts it when the client aborts, and goes on serving", async () => {
    const server = await connect(["--cwd", root])
    try {
      const pid = (server.client.transport as StdioClientTransport).pid!
      const holdsEndless = () =>
        fs.readdirSync(`/proc/${pid}/fd`).some((fd) => {
          try {
            return fs.readlinkSync(`/proc/${pid}/fd/${fd}`).endsWith("/endless.txt")
          } catch {
            return false
          }
        })
      const controller = new AbortController()
      const updates: Array<
        { readonly progress: number; readonly total?: number | undefined; readonly message?: string | undefined }
      > = []
      let twoUpdates: () => void = () => {}
      const gotProgress = new Promise<void>((resolve) => (twoUpdates = resolve))
      const outcome = server.client.callTool(
        { name: "read", arguments: { filePath: "endless.txt", offset: endless.lines + 2 } },
        undefined,
        {
          signal: controller.signal,
          onprogress: (progress) => {
            updates.push(progress)
            if (updates.length === 2) twoUpdates()
          }
        }
      ).then(() => "answered", (error: Error) => `rejected: ${error.message}`)
      await gotProgress
      expect(updates[0]).toEqual({
        progress: expect.any(Number),
        total: endless.size,
        message: expect.stringContaining(`Reading ${root}/endless.txt`)
      })
      expect(updates[1]!.progress).toBeGreaterThan(updates[0]!.progress)
      // Another call is answered while the read runs.
      expect((await call(server, { filePath: "config.json" })).isError).toBe(false)

      controller.abort("enough")
      expect(await outcome).toMatch(/^rejected: .*enough/)
      await eventually(() => !holdsEndless(), "the aborted read closed its file")
      const after = await call(server, { filePath: "src/util.ts" })
      expect(after.content[0]!.text).toContain("1: export const u = 2")
    } finally {
      await server.client.close()
    }
    // A progress notification the server sent before the cancellation reached it arrives after
    // the client forgot the token: a race in the protocol, which the client only reports.
    expect(server.errors.filter((error) => !/unknown token/i.test(error.message))).toEqual([])
  })
})

describe("MCP server with --allow-external", () => {
  it("reads outside the project", async () => {
    const server = await connect(["--cwd", root, "--allow-external"])
    try {
      const result = await call(server, { filePath: path.join(outside, "secret.txt") })
      expect(result.isError).toBe(false)
      expect(result.content[0]!.text as string).toContain("1: outside")
    } finally {
      await server.client.close()
    }
  })

  it("takes --cwd and --allow-external before the subcommand too", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [bin, "--cwd", root, "--allow-external", "mcp"],
      stderr: "pipe"
    })
    const client = new Client({ name: "effect-read-test", version: "1.0.0" })
    await client.connect(transport)
    try {
      const inside = (await client.callTool({ name: "read", arguments: { filePath: "config.json" } })) as CallResult
      expect(inside.content[0]!.text).toContain(`<path>${root}/config.json</path>`)
      const external = (await client.callTool({
        name: "read",
        arguments: { filePath: path.join(outside, "secret.txt") }
      })) as CallResult
      expect(external.isError).toBe(false)
    } finally {
      await client.close()
    }
  })

  it("--next-header: each result shown in parts is led by the range shown and the next call; structuredContent carries next", async () => {
    const { client } = await connect(["--cwd", root, "--next-header"])
    try {
      const page =
        (await client.callTool({ name: "read", arguments: { filePath: "src/app.ts", limit: 1 } })) as unknown as {
          readonly content: ReadonlyArray<{ readonly text: string }>
          readonly structuredContent: { readonly metadata: { readonly next?: unknown } }
        }
      expect(page.content[0]!.text.split("\n").slice(0, 2)).toEqual([
        "(Lines 1-1 of 2 shown. Next: read {\"filePath\":\"src/app.ts\",\"offset\":2,\"limit\":1})",
        `<path>${root}/src/app.ts</path>`
      ])
      expect(page.structuredContent.metadata.next).toEqual({ filePath: "src/app.ts", offset: 2, limit: 1 })
    } finally {
      await client.close()
    }
  })
})

describe("MCP stdio discipline", () => {
  it("writes nothing but JSON-RPC messages to stdout and exits when stdin closes", async () => {
    const child = spawn(process.execPath, [bin, "mcp", "--cwd", root], { stdio: ["pipe", "pipe", "pipe"] })
    let stdout = ""
    child.stdout.on("data", (chunk) => (stdout += String(chunk)))
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)))
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`)
    const responses = () => stdout.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line))
    const until = async (predicate: () => boolean) => {
      while (!predicate()) await new Promise((resolve) => setTimeout(resolve, 20))
    }

    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } }
    })
    await until(() => responses().some((message) => message.id === 1))
    send({ jsonrpc: "2.0", method: "notifications/initialized" })
    send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "read", arguments: { filePath: "nope.txt" } } })
    await until(() => responses().some((message) => message.id === 2))
    child.stdin.end()
    expect(await exited).toBe(0)

    expect(stdout.endsWith("\n")).toBe(true)
    for (const message of responses()) expect(message.jsonrpc).toBe("2.0")
    const call = responses().find((message) => message.id === 2)
    expect(call.result.isError).toBe(true)
    expect(call.result.content).toEqual([{ type: "text", text: `File not found: ${root}/nope.txt` }])
  })
})

describe("MCP content of read_many attachments", () => {
  it.effect("each attachment is named by the file it came from, also when an earlier one was dropped for the budget", () =>
    Effect.gen(function*() {
      // A PDF too big for the call's attachment budget (a long comment after its header), read before the ones that fit.
      const header = PDF.indexOf(0x0a) + 1
      const big = Buffer.concat([PDF.subarray(0, header), Buffer.from(`%${"x".repeat(4096)}\n`), PDF.subarray(header)])
      writeTree(root, { "big.pdf": big })
      const result = yield* ReadMany.readMany({
        files: [{ filePath: "pixel.png" }, { filePath: "big.pdf" }, { filePath: "doc.pdf" }]
      }).pipe(
        Effect.provideService(ReadMany.ReadManyLimits, {
          maxFiles: 20,
          maxBytes: 50 * 1024,
          concurrency: 2,
          globMaxEntries: 10_000,
          maxAttachmentBytes: 4096
        })
      )
      expect(result.output).toContain("(Not attached: the attachments of this call passed 4096 bytes.")
      expect(result.files.map((file) => file.attachmentIndexes)).toEqual([[0], undefined, [1]])
      const { content, structuredContent } = McpServer.successResult(result)
      expect(content.slice(1)).toEqual([
        { type: "image", data: PNG.toString("base64"), mimeType: "image/png" },
        {
          type: "resource_link",
          uri: pathToFileURL(`${root}/doc.pdf`).href,
          name: "doc.pdf",
          mimeType: "application/pdf"
        }
      ])
      expect(structuredContent!.attachments).toEqual([
        { index: 0, mime: "image/png", size: PNG.length, delivery: "image-content" },
        { index: 1, mime: "application/pdf", size: PDF.length, delivery: "resource-link" }
      ])
    }).pipe(Effect.provide(nodeLayer(root))))
})
