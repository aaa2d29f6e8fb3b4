/**
 * `effect-read mcp` (the built bin) with MCP clients nobody here wrote, each as a host uses it:
 *
 * - the official TypeScript SDK's `Client`, which checks every result's structured content
 *   against the tool's `outputSchema` (failures' too);
 * - the official Python SDK's `ClientSession` (a venv made by scripts/python-mcp.sh), which
 *   checks successful results against the `outputSchema` with `jsonschema`;
 * - the Vercel AI SDK's MCP client (`@ai-sdk/mcp`) driving `generateText` with a scripted model:
 *   what the model's next prompt holds is what the SDK made of our result.
 *
 * In each: an image and a PDF put no base64 into text the model reads, a text read costs at most
 * 1.2 times its text in what the host shows, and a malformed argument is a result the model can
 * correct. (Codex shows `structuredContent` when there is one: the ratio for that side is checked too.)
 */
import { createMCPClient } from "@ai-sdk/mcp"
import { StdioMCPTransport } from "@ai-sdk/mcp/mcp-stdio"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { generateText, stepCountIs } from "ai"
import { MockLanguageModelV4 } from "ai/test"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { tempDir, ustar, writeTree } from "./support/index.js"
import { HOST_PDF, HOST_SOURCE, PNG } from "./support/media.js"

const bin = path.resolve("dist/bin.js")
const root = tempDir()
const source = HOST_SOURCE
const PDF = HOST_PDF
writeTree(root, {
  "src/app.ts": source,
  "src/util.ts": "export const u = 2\n",
  "pixel.png": PNG,
  "report.pdf": PDF,
  "bundle.tar": ustar([{ name: "notes/readme.md", content: "# Notes\nkept in a tar\n" }])
})
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

const pngProbe = PNG.toString("base64").slice(0, 40)
const pdfProbe = PDF.toString("base64").slice(0, 40)

/** The calls every host makes, and what each must show. */
const calls = {
  text: { name: "read", arguments: { filePath: "src/app.ts" } },
  directory: { name: "read", arguments: { filePath: "src" } },
  image: { name: "read", arguments: { filePath: "pixel.png" } },
  pdf: { name: "read", arguments: { filePath: "report.pdf" } },
  member: { name: "read", arguments: { filePath: "bundle.tar:notes/readme.md" } },
  many: { name: "read_many", arguments: { files: [{ filePath: "pixel.png" }, { filePath: "src/util.ts" }] } },
  mended: { name: "read", arguments: { filePath: "src/app.ts", offset: "2", limit: "2", view: null } },
  malformed: { name: "read", arguments: { filePath: "src/app.ts", limit: "three" } },
  missing: { name: "read", arguments: { filePath: "src/app.s" } }
} as const
type CallName = keyof typeof calls

interface Block {
  readonly type: string
  readonly text?: string
  readonly data?: string
  readonly mimeType?: string
}
interface Result {
  readonly isError?: boolean
  readonly content: ReadonlyArray<Block>
  readonly structuredContent?: Record<string, any>
}

const textOf = (result: Result) =>
  result.content.filter((block) => block.type === "text").map((block) => block.text).join("\n")

/** The checks every MCP host's view of the results must pass. */
const expectHostView = (results: Record<CallName, Result>) => {
  const text = results.text
  expect(text.isError).toBe(false)
  expect(text.content).toEqual([{ type: "text", text: text.structuredContent!.output }])
  // Hosts that show structuredContent (Codex) show this much for the text.
  expect(JSON.stringify(text.structuredContent).length / textOf(text).length).toBeLessThanOrEqual(1.2)

  expect(results.directory.structuredContent).toMatchObject({ metadata: { kind: "directory" } })

  const image = results.image
  expect(image.content.map((block) => block.type)).toEqual(["text", "image"])
  expect(image.content[1]).toMatchObject({ data: PNG.toString("base64"), mimeType: "image/png" })
  expect(textOf(image)).not.toContain(pngProbe)
  expect(JSON.stringify(image.structuredContent)).not.toContain(pngProbe)
  expect(image.structuredContent!.attachments).toEqual([{
    index: 0,
    mime: "image/png",
    size: PNG.length,
    delivery: "image-content"
  }])

  const pdf = results.pdf
  expect(pdf.content.map((block) => block.type)).toEqual(["text"])
  expect(textOf(pdf)).toContain("Quarterly report from the host test")
  expect(JSON.stringify(pdf)).not.toContain(pdfProbe)

  expect(textOf(results.member)).toContain("kept in a tar")
  expect(results.many.content.map((block) => block.type)).toEqual(["text", "image"])
  expect(JSON.stringify(results.many.structuredContent)).not.toContain(pngProbe)

  expect(results.mended.isError).toBe(false)
  expect(textOf(results.mended)).toContain("(Showing lines 2-3 of 120.")

  expect(results.malformed.isError).toBe(true)
  expect(textOf(results.malformed)).toBe("Invalid parameters: limit: Expected number, actual \"three\"")
  expect(results.malformed.structuredContent).toMatchObject({ _tag: "InvalidParams" })
  expect(results.missing.isError).toBe(true)
  expect(textOf(results.missing)).toContain(`Did you mean one of these?\n${root}/src/app.ts`)
}

describe("the official MCP TypeScript SDK client", () => {
  it("lists both tools with exact input schemas and output schemas, and every result passes the SDK's output check", async () => {
    const client = new Client({ name: "host-test", version: "1.0.0" })
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [bin, "mcp", "--cwd", root], stderr: "pipe" })
    )
    try {
      const { tools } = await client.listTools()
      for (const tool of tools) {
        expect(tool.outputSchema).toMatchObject({ type: "object" })
        // No generated titles ("minLength(1)", "int"): a "title" here is the result's property.
        expect(JSON.stringify([tool.inputSchema, tool.outputSchema])).not.toContain("\"title\":\"")
      }
      expect(tools[1]!.inputSchema).toMatchObject({ minProperties: 1, properties: { files: { minItems: 1 } } })
      // callTool checks structuredContent against outputSchema once the tools are listed: it throws on a mismatch.
      const results = {} as Record<CallName, Result>
      for (const [name, call] of Object.entries(calls)) {
        results[name as CallName] = await client.callTool(call) as Result
      }
      expectHostView(results)
    } finally {
      await client.close()
    }
  })
})

describe("the official MCP Python SDK client", () => {
  let python: string
  beforeAll(() => {
    python = execFileSync("bash", ["scripts/python-mcp.sh"], { encoding: "utf8", timeout: 300_000 }).trim()
  }, 300_000)

  it("reads every kind; results pass its output-schema check", () => {
    const script = path.resolve("test/hosts/python_mcp_client.py")
    const printed = execFileSync(python, [script, process.execPath, bin, "mcp", "--cwd", root], {
      input: JSON.stringify(Object.values(calls)),
      encoding: "utf8",
      timeout: 120_000
    })
    const { results, tools } = JSON.parse(printed) as {
      readonly tools: ReadonlyArray<{ readonly name: string; readonly outputSchema: unknown }>
      readonly results: ReadonlyArray<Result & { readonly error?: string }>
    }
    expect(tools.map((tool) => tool.name)).toEqual(["read", "read_many"])
    expect(results.filter((result) => result.error !== undefined)).toEqual([])
    expectHostView(
      Object.fromEntries(Object.keys(calls).map((name, i) => [name, results[i]!])) as Record<CallName, Result>
    )
  })
})

describe("the Vercel AI SDK MCP client, with a scripted model", () => {
  /** The model calls `call`, then answers; returns the tool result as the model's next prompt holds it. */
  const toolResultSeen = async (call: (typeof calls)[CallName]) => {
    const client = await createMCPClient({
      transport: new StdioMCPTransport({ command: process.execPath, args: [bin, "mcp", "--cwd", root] })
    })
    try {
      const prompts: Array<ReadonlyArray<any>> = []
      const usage = { inputTokens: { total: 1 }, outputTokens: { total: 1 } }
      const model = new MockLanguageModelV4({
        doGenerate: async (options: { readonly prompt: ReadonlyArray<any> }) => {
          prompts.push(options.prompt)
          return prompts.length === 1
            ? {
              content: [{
                type: "tool-call",
                toolCallId: "call-1",
                toolName: call.name,
                input: JSON.stringify(call.arguments)
              }],
              finishReason: { unified: "tool-calls", raw: undefined },
              usage,
              warnings: []
            }
            : {
              content: [{ type: "text", text: "done" }],
              finishReason: { unified: "stop", raw: undefined },
              usage,
              warnings: []
            }
        }
      } as any)
      await generateText({ model, tools: await client.tools(), prompt: "read it", stopWhen: stepCountIs(3) })
      const toolMessage = prompts[1]!.find((message) => message.role === "tool")
      return toolMessage.content[0].output as { readonly type: string; readonly value: ReadonlyArray<any> }
    } finally {
      await client.close()
    }
  }

  const textParts = (output: { readonly value: ReadonlyArray<any> }) =>
    output.value.filter((part) => part.type === "text").map((part) => String(part.text)).join("\n")

  it("a text read is its text", async () => {
    const output = await toolResultSeen(calls.text)
    expect(output.type).toBe("content")
    expect(output.value).toHaveLength(1)
    expect(textParts(output)).toContain(`<path>${root}/src/app.ts</path>`)
    expect(textParts(output)).toContain("(End of file - total 120 lines)")
  })

  it("an image is a file part beside its text; no base64 in the text", async () => {
    const output = await toolResultSeen(calls.image)
    expect(textParts(output)).toBe("Image read successfully")
    const media = output.value.filter((part) => part.type !== "text")
    expect(media).toHaveLength(1)
    expect(JSON.stringify(media[0])).toContain(PNG.toString("base64"))
    expect(media[0]).toMatchObject({ mediaType: "image/png" })
  })

  it("a PDF is its text", async () => {
    const output = await toolResultSeen(calls.pdf)
    expect(output.value.map((part) => part.type)).toEqual(["text"])
    expect(textParts(output)).toContain("Quarterly report from the host test")
    expect(JSON.stringify(output)).not.toContain(pdfProbe)
  })

  it("a malformed argument is a result the model reads", async () => {
    const output = await toolResultSeen(calls.malformed)
    expect(textParts(output)).toBe("Invalid parameters: limit: Expected number, actual \"three\"")
  })
})
