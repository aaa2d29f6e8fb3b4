/**
 * Asking the person through the MCP client: `node dist/bin.js mcp` driven by the official SDK
 * client, which declares (or not) the `elicitation` capability and answers `elicitation/create`
 * with accept, decline, cancel, or not at all.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { type ElicitRequest, ElicitRequestSchema, type ElicitResult } from "@modelcontextprotocol/sdk/types.js"
import * as fs from "node:fs"
import * as path from "node:path"
import { tempDir, writeTree } from "./support/index.js"

const bin = path.resolve("dist/bin.js")

const root = tempDir("effect-read-ask-")
writeTree(root, {
  ".env": "API_KEY=abcd1234efgh5678\nDB_PASSWORD=hunter2-prod\n",
  "config/.env.production": "TOKEN=prod-0123456789abcdef\n",
  "src/app.ts": "export const a = 1\n"
})
const outside = tempDir("effect-read-ask-outside-")
writeTree(outside, { "notes.txt": "outside\n" })

afterAll(() => {
  fs.rmSync(root, { recursive: true, force: true })
  fs.rmSync(outside, { recursive: true, force: true })
})

type Answer = (request: ElicitRequest["params"]) => Promise<ElicitResult>

interface CallResult {
  readonly isError?: boolean
  readonly content: ReadonlyArray<{ readonly type: string; readonly text?: string }>
  readonly structuredContent?: Record<string, unknown>
}

/**
 * A server for one conversation, and a client that answers its questions with `answer` (and
 * records them); `capability` is what the client declares (none: no elicitation).
 */
const connect = async (
  answer: Answer,
  options: { readonly capability?: Record<string, unknown> | undefined; readonly args?: ReadonlyArray<string> } = {}
) => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, "mcp", "--cwd", root, ...(options.args ?? [])],
    stderr: "pipe"
  })
  const asked: Array<ElicitRequest["params"]> = []
  const client = new Client(
    { name: "effect-read-ask-test", version: "1.0.0" },
    options.capability === undefined ? {} : { capabilities: { elicitation: options.capability } }
  )
  if (options.capability !== undefined) {
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params)
      return answer(request.params)
    })
  }
  await client.connect(transport)
  const read = (filePath: string) => client.callTool({ name: "read", arguments: { filePath } }) as Promise<CallResult>
  return { client, asked, read }
}

const accept = (remember: boolean): Answer => () => Promise.resolve({ action: "accept", content: { remember } })

describe("MCP: asking through the client (elicitation)", () => {
  it("accept reads; the question says what, where and why, and offers to remember; asked again next time", async () => {
    const { asked, client, read } = await connect(accept(false), { capability: {} })
    const first = await read(".env")
    expect(first.isError).toBe(false)
    expect(first.content[0]!.text).toContain("2: DB_PASSWORD=hunter2-prod")
    expect(asked).toHaveLength(1)
    expect(asked[0]).toMatchObject({
      mode: "form",
      message:
        `The model's read needs your approval: reading .env (${root}/.env). It is asked because env files usually hold secrets, and what is read is sent to the model's provider. Allow it?`,
      requestedSchema: {
        type: "object",
        properties: { remember: { type: "boolean", title: "Allow for the rest of this conversation", default: false } }
      }
    })
    expect((await read(".env")).isError).toBe(false)
    expect(asked).toHaveLength(2)
    await client.close()
  })

  it("accept with remember: the same path is not asked again in this conversation; another one is", async () => {
    const { asked, client, read } = await connect(accept(true), { capability: { form: {} } })
    expect((await read(".env")).isError).toBe(false)
    expect((await read(".env")).isError).toBe(false)
    expect(asked).toHaveLength(1)
    expect((await read("config/.env.production")).isError).toBe(false)
    expect(asked).toHaveLength(2)
    await client.close()
  })

  it("an approval kept for the conversation is kept for that conversation only (params._meta[\"effect-read/session\"])", async () => {
    const { asked, client } = await connect(accept(true), { capability: {} })
    const readIn = (session: string) =>
      client.callTool({
        name: "read",
        arguments: { filePath: ".env" },
        _meta: { "effect-read/session": session }
      }) as Promise<CallResult>
    expect((await readIn("conversation-a")).isError).toBe(false)
    expect((await readIn("conversation-a")).isError).toBe(false)
    expect(asked).toHaveLength(1)
    expect((await readIn("conversation-b")).isError).toBe(false)
    expect(asked).toHaveLength(2)
    await client.close()
  })

  it.each(["decline", "cancel"] as const)(
    "%s is PermissionDenied (rejected), nothing of the file shown",
    async (action) => {
      const { asked, client, read } = await connect(() => Promise.resolve({ action }), { capability: {} })
      const result = await read(".env")
      expect(asked).toHaveLength(1)
      expect(result.isError).toBe(true)
      expect(result.content).toEqual([{ type: "text", text: "Permission denied: the user refused reading .env." }])
      expect(result.structuredContent).toMatchObject({
        _tag: "PermissionDenied",
        permission: "read",
        patterns: [".env"],
        reason: "rejected"
      })
      expect(JSON.stringify(result)).not.toContain("hunter2")
      await client.close()
    }
  )

  it("no answer within --ask-timeout is PermissionDenied (unanswered); the server goes on serving", async () => {
    const { asked, client, read } = await connect(() => new Promise<ElicitResult>(() => {}), {
      capability: {},
      args: ["--ask-timeout", "0.5"]
    })
    const result = await read(".env")
    expect(asked).toHaveLength(1)
    expect(result.isError).toBe(true)
    expect(result.content[0]!.text).toBe(
      "Permission denied: reading .env needs the user's approval, and the user did not answer within 500ms."
    )
    expect(result.structuredContent).toMatchObject({ _tag: "PermissionDenied", reason: "unanswered" })
    expect((await read("src/app.ts")).content[0]!.text).toContain("1: export const a = 1")
    await client.close()
  })

  it("a client without the capability is never asked: PermissionDenied (unavailable) saying how to allow it", async () => {
    const { client, read } = await connect(accept(true))
    const result = await read(".env")
    expect(result.isError).toBe(true)
    expect(result.structuredContent).toMatchObject({ _tag: "PermissionDenied", reason: "unavailable" })
    expect(result.content[0]!.text).toBe(
      "Permission denied: reading .env needs the user's approval, and the user could not be asked (the MCP client does not support elicitation, so the server cannot ask the user). Do not retry it. To allow it, the user can start the MCP server (effect-read mcp) with --allow '.env' (or --mask-secrets, which shows env files with their values masked), or with a rule in a --rules file."
    )
    await client.close()
  })

  it("reading outside the project is asked too", async () => {
    const { asked, client, read } = await connect(accept(false), { capability: {} })
    const result = await read(path.join(outside, "notes.txt"))
    expect(result.content[0]!.text).toContain("1: outside")
    expect(asked[0]!.message).toContain(`reading outside the project (${outside}/*)`)
    expect(asked[0]!.message).toContain("It is asked because it is outside the project.")
    await client.close()
  })

  it("--mask-secrets: env files are read masked without asking", async () => {
    const { asked, client, read } = await connect(accept(false), { capability: {}, args: ["--mask-secrets"] })
    const result = await read(".env")
    expect(asked).toHaveLength(0)
    expect(result.content[0]!.text).toContain("1: API_KEY=‹secret: key›\n2: DB_PASSWORD=‹secret: password›")
    await client.close()
  })
})
