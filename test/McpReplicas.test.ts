/**
 * Conversations outlive a process: two real `effect-read mcp` processes on one store (a SQLite
 * file, a PostgreSQL database), driven by the official MCP SDK client. The conversation is the
 * request's `_meta["effect-read/session"]`, its generation `_meta["effect-read/generation"]`.
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js"
import * as Effect from "effect/Effect"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { promisify } from "node:util"
import * as FileTime from "../src/FileTime.js"
import * as SqliteFileTime from "../src/SqliteFileTime.js"
import { tempDir, writeTree } from "./support/index.js"
import { describePg, freshPgDatabase } from "./support/pg.js"

const bin = path.resolve("dist/bin.js")
const root = tempDir("effect-read-mcp-replicas-")
const numbered = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n") + "\n"
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

interface CallResult {
  readonly isError?: boolean
  readonly content: ReadonlyArray<{ readonly type: string; readonly text?: string }>
  readonly structuredContent?: { readonly metadata?: Record<string, any> }
}

const connect = async (args: ReadonlyArray<string>) => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, "mcp", "--cwd", root, ...args],
    stderr: "pipe"
  })
  const stderr: Array<string> = []
  transport.stderr?.on("data", (chunk) => stderr.push(String(chunk)))
  const client = new Client({ name: "effect-read-replicas-test", version: "1.0.0" })
  await client.connect(transport)
  return { client, stderr }
}

type Replica = Awaited<ReturnType<typeof connect>>

const read = (
  replica: Replica,
  filePath: string,
  meta: { readonly session?: string; readonly generation?: number; readonly parent?: string } = {}
) =>
  replica.client.callTool({
    name: "read",
    arguments: { filePath },
    _meta: {
      ...(meta.session === undefined ? {} : { "effect-read/session": meta.session }),
      ...(meta.generation === undefined ? {} : { "effect-read/generation": meta.generation }),
      ...(meta.parent === undefined ? {} : { "effect-read/parent": meta.parent })
    }
  }) as Promise<CallResult>

const textOf = (result: CallResult) => result.content[0]?.text ?? ""
const unchanged = (result: CallResult) => result.structuredContent?.metadata?.unchanged === true

let files = 0

const twoServers = (store: () => Promise<string>) =>
  it("a conversation moves between two servers on one store; conversations and generations stay apart", async () => {
    const storeArg = await store()
    const a = await connect(["--store", storeArg, "--session-memory"])
    const b = await connect(["--store", storeArg, "--session-memory"])
    try {
      const name = `conversation-${++files}.txt`
      writeTree(root, { [name]: numbered(12) })
      const file = path.join(root, name)
      const s1 = { session: `s1-${files}` }

      const first = await read(a, name, s1)
      expect(textOf(first)).toContain("1: line 1")
      // A's read is held on B for the same conversation.
      const again = await read(b, name, s1)
      expect(unchanged(again)).toBe(true)
      expect(textOf(again)).toContain("File unchanged since your last read (lines 1-12)")
      // After a write, B shows the change since that conversation's last read.
      fs.writeFileSync(file, numbered(12).replace("line 5\n", "line five\n"))
      const changed = await read(b, name, s1)
      expect(changed.structuredContent?.metadata?.changed).toMatchObject({ diff: true, removed: 1, added: 1 })
      expect(textOf(changed)).toContain("-line 5\n+line five")
      // Another conversation gets the full content.
      const other = await read(b, name, { session: `s2-${files}` })
      expect(unchanged(other)).toBe(false)
      expect(textOf(other)).toContain("5: line five")
      // A generation raised on A (the host compacted) is honoured on B.
      expect(unchanged(await read(a, name, { ...s1, generation: 1 }))).toBe(false)
      expect(unchanged(await read(b, name, { ...s1, generation: 1 }))).toBe(true)
      // A request still at the old generation never gets a stub.
      expect(unchanged(await read(b, name, { ...s1, generation: 0 }))).toBe(false)
      // Without a conversation in `_meta`, each server is its own conversation.
      expect(unchanged(await read(a, name))).toBe(false)
      expect(unchanged(await read(a, name))).toBe(true)
      expect(unchanged(await read(b, name))).toBe(false)
    } finally {
      await a.client.close()
      await b.client.close()
    }
  })

describe("two MCP servers on one SQLite file", () => {
  twoServers(() => Promise.resolve(`sqlite:${path.join(root, `store-${++files}.db`)}`))

  it("a subagent's conversation (_meta effect-read/parent): its own stubs, the parent's ledger as of its first call", async () => {
    const store = path.join(root, `store-${++files}.db`)
    const a = await connect(["--store", `sqlite:${store}`, "--session-memory"])
    const b = await connect(["--store", `sqlite:${store}`, "--session-memory"])
    const [early, late, mine] = ["early", "late", "mine"].map((name) => `fork-${name}-${files}.txt`) as [
      string,
      string,
      string
    ]
    writeTree(root, { [early]: numbered(8), [late]: numbered(3), [mine]: numbered(4) })
    const parent = { session: `parent-${files}` }
    const child = { session: `child-${files}`, parent: parent.session }
    try {
      expect(textOf(await read(a, `${early}:2-5`, parent))).toContain("2: line 2")
      // The child's first call, on the other server: the parent's lines are not in its context.
      const first = await read(b, `${early}:2-5`, child)
      expect(unchanged(first)).toBe(false)
      expect(textOf(first)).toContain("2: line 2")
      expect(unchanged(await read(b, `${early}:2-5`, child))).toBe(true)
      // What the child reads never makes the parent's read a stub; the parent's own reads still do.
      await read(b, mine, child)
      expect(unchanged(await read(a, mine, parent))).toBe(false)
      expect(unchanged(await read(a, `${early}:3-4`, parent))).toBe(true)
      await read(a, late, parent)
    } finally {
      await a.client.close()
      await b.client.close()
    }
    // The ledger: the child covers what the parent read before its first call, not what the parent read after.
    const covers = (session: string, name: string, start: number, end: number) =>
      Effect.runPromise(
        Effect.flatMap(FileTime.FileTime, (ledger) => ledger.covers(session, path.join(root, name), start, end)).pipe(
          Effect.provide(SqliteFileTime.layer({ filename: store })),
          Effect.provide(NodeFileSystem.layer)
        )
      )
    expect(await covers(child.session, early, 2, 5)).toBe(true)
    expect(await covers(child.session, late, 1, 3)).toBe(false)
    expect(await covers(parent.session, late, 1, 3)).toBe(true)
    expect(await covers(child.session, mine, 1, 4)).toBe(true)
    // The parent's read of `mine` came after the child's: its own, whole.
    expect(await covers(parent.session, mine, 1, 4)).toBe(true)
  })
})
describePg("two MCP servers on one PostgreSQL database", () => {
  twoServers(freshPgDatabase)
})

describe("MCP conversations in one server", () => {
  it("without --session-memory nothing is remembered; with it, in this process, per conversation", async () => {
    const name = `plain-${++files}.txt`
    writeTree(root, { [name]: numbered(3) })
    const plain = await connect([])
    const remembering = await connect(["--session-memory"])
    try {
      await read(plain, name, { session: "s" })
      expect(unchanged(await read(plain, name, { session: "s" }))).toBe(false)
      await read(remembering, name, { session: "s" })
      expect(unchanged(await read(remembering, name, { session: "s" }))).toBe(true)
      expect(unchanged(await read(remembering, name, { session: "t" }))).toBe(false)
    } finally {
      await plain.client.close()
      await remembering.client.close()
    }
  })

  it("a conversation id or generation of the wrong kind is -32602, saying which", async () => {
    const server = await connect(["--session-memory"])
    try {
      const bad = async (meta: Record<string, unknown>) => {
        const error = await server.client.callTool({ name: "read", arguments: { filePath: "x" }, _meta: meta }).then(
          () => undefined,
          (error: unknown) => error
        )
        expect(error).toBeInstanceOf(McpError)
        expect((error as McpError).code).toBe(ErrorCode.InvalidParams)
        return (error as McpError).message
      }
      expect(await bad({ "effect-read/session": 7 })).toContain(
        `_meta["effect-read/session"]: expected a non-empty string`
      )
      expect(await bad({ "effect-read/session": "" })).toContain("non-empty string")
      expect(await bad({ "effect-read/session": "x".repeat(513) })).toContain("at most 512 characters")
      expect(await bad({ "effect-read/generation": -1 })).toContain(
        `_meta["effect-read/generation"]: expected a non-negative integer`
      )
      expect(await bad({ "effect-read/generation": 1.5 })).toContain("non-negative integer")
      expect(await bad({ "effect-read/generation": "2" })).toContain("non-negative integer")
      expect(await bad({ "effect-read/parent": "p" })).toContain(
        `_meta["effect-read/session"] must name the forked conversation`
      )
      expect(await bad({ "effect-read/parent": "s", "effect-read/session": "s" })).toContain(
        "must name another conversation"
      )
      expect(await bad({ "effect-read/parent": 3, "effect-read/session": "s" })).toContain(
        `_meta["effect-read/parent"]: expected a non-empty string`
      )
    } finally {
      await server.client.close()
    }
  })
})

const run = promisify(execFile)
const mcpExit = (args: ReadonlyArray<string>) =>
  run(process.execPath, [bin, "mcp", "--cwd", root, ...args], { encoding: "utf8", timeout: 60_000 }).then(
    ({ stderr }) => ({ code: 0, stderr }),
    (error: { code?: number; stderr?: string }) => ({ code: error.code, stderr: error.stderr ?? "" })
  )

describe("effect-read mcp --store", () => {
  it("a store that is not sqlite:FILE or a postgres:// URL is a usage error (exit 2)", async () => {
    const outcome = await mcpExit(["--store", "mysql://x"])
    expect(outcome.code).toBe(2)
    expect(outcome.stderr).toContain("--store mysql://x: expected sqlite:FILE or a postgres:// (postgresql://) URL")
  })

  it("a store that cannot be reached stops the server at start with the reason (exit 1), the password not shown", async () => {
    const outcome = await mcpExit(["--store", "postgres://someone:secret@127.0.0.1:1/nothing"])
    expect(outcome.code).toBe(1)
    expect(outcome.stderr).toContain("effect-read: cannot open the store postgres://someone:***@127.0.0.1:1/nothing")
    expect(outcome.stderr).not.toContain("secret")
    const missingDir = await mcpExit(["--store", `sqlite:${path.join(root, "no-such-dir", "x.db")}`])
    expect(missingDir.code).toBe(1)
    expect(missingDir.stderr).toContain("effect-read: cannot open the store sqlite:")
  })
})
