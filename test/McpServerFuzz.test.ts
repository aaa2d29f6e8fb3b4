/**
 * Hostile input on the raw wire: thousands of random, truncated, oversized (MBs) and deeply
 * nested lines, split at random points across writes, interleaved with valid requests. Every
 * valid request must be answered once and correctly, every unparsable line with `-32700` and
 * every oversized one with `-32600` (counted against `JSON.parse` and the byte limit, not
 * against the server's own judgement), memory must stay bounded while far more than the bound
 * streams through, and a final `ping` must be answered.
 *
 * The seed is printed; `MCP_FUZZ_SEED=<n>` replays a run.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import { tempDir, writeTree } from "./support/index.js"
import { initializeRequest, type Message, Wire } from "./support/mcpWire.js"

const SEED = Number(process.env["MCP_FUZZ_SEED"] ?? Math.floor(Math.random() * 2 ** 31))
console.info(`MCP fuzz: seed ${SEED} (replay with MCP_FUZZ_SEED=${SEED})`)

/** The server's limit on one message. */
const MAX_MESSAGE_BYTES = 1024 * 1024
const HOSTILE_LINES = 3000
/** Oversized lines stream this much through the server in total, far over the memory bound below. */
const OVERSIZED_LINES = 48
/**
 * Growth of the server's peak resident memory over its size after `initialize`, with the V8
 * heap capped at 128 MB: about 90 MB here, the same whether 400 MB or 800 MB stream through.
 */
const MEMORY_BOUND = 200 * 1024 * 1024

const root = tempDir()
writeTree(root, { "notes.txt": "alpha\nbeta\n" })
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

/** mulberry32: small, seedable, good enough to pick cases. */
const random = (seed: number) => {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32
  }
}

interface Expected {
  readonly id: string | number
  readonly check: (response: Message) => void
}

const notesText = (path: string) =>
  `<path>${path}</path>\n<type>file</type>\n<content>\n1: alpha\n2: beta\n\n(End of file - total 2 lines)\n</content>`

describe("MCP fuzz", () => {
  it("survives hostile input and answers every valid request", { timeout: 180_000 }, async () => {
    const next = random(SEED)
    const int = (max: number) => Math.floor(next() * max)
    const pick = <A>(items: ReadonlyArray<A>): A => items[int(items.length)]!

    const randomBytes = (length: number) => {
      const bytes = Buffer.allocUnsafe(length)
      for (let i = 0; i < length; i++) {
        const byte = int(256)
        bytes[i] = byte === 10 ? 32 : byte
      }
      return bytes
    }
    const randomString = () => {
      const alphabet = ["a", "Z", "0", " ", "\"", "\\", "{", "}", "[", "]", ":", ",", "é", "😀", "\u0000", "\t"]
      return Array.from({ length: int(12) }, () => pick(alphabet)).join("")
    }
    const randomJson = (depth: number): unknown => {
      switch (int(depth > 3 ? 5 : 8)) {
        case 0:
          return null
        case 1:
          return next() < 0.5
        case 2:
          return pick([0, -1, 1.5, 1e300, int(1_000_000), -0])
        case 3:
          return randomString()
        case 4:
          return pick(["ping", "initialize", "tools/list", "tools/call", "notifications/initialized", "x/y"])
        case 5:
          return Array.from({ length: int(4) }, () => randomJson(depth + 1))
        default: {
          const keys = [
            "jsonrpc",
            "id",
            "method",
            "params",
            "result",
            "error",
            "name",
            "arguments",
            "filePath",
            "_meta"
          ]
          return Object.fromEntries(Array.from({ length: int(5) }, () => [pick(keys), randomJson(depth + 1)]))
        }
      }
    }
    /** A message shaped like a request or notification with random parts (ids never collide with valid ones). */
    const randomMessage = () => {
      const message: Record<string, unknown> = {}
      if (next() < 0.8) message.jsonrpc = pick(["2.0", "2.0", "2.0", "1.0", 2])
      if (next() < 0.7) message.id = pick([int(1_000_000), `r${int(1000)}`, null, 1.5, {}, true])
      if (next() < 0.9) message.method = randomJson(4)
      if (next() < 0.7) message.params = randomJson(1)
      return JSON.stringify(message)
    }

    // Valid requests, checked exactly. Numeric ids from 10^12 and string ids `valid-…` never collide.
    let serial = 0
    const expected: Array<Expected> = []
    const validRequest = (): string => {
      serial++
      const id = next() < 0.5 ? `valid-${serial}` : 1_000_000_000_000 + serial
      switch (int(4)) {
        case 0:
          expected.push({ id, check: (r) => expect(r.result).toEqual({}) })
          return JSON.stringify({ jsonrpc: "2.0", id, method: "ping" })
        case 1:
          expected.push({
            id,
            check: (r) => expect(r.result.tools.map((t: Message) => t.name)).toEqual(["read", "read_many"])
          })
          return JSON.stringify({ jsonrpc: "2.0", id, method: "tools/list" })
        case 2:
          expected.push({
            id,
            check: (r) => expect(r.result.content).toEqual([{ type: "text", text: notesText(`${root}/notes.txt`) }])
          })
          return JSON.stringify({
            jsonrpc: "2.0",
            id,
            method: "tools/call",
            params: { name: "read", arguments: { filePath: "notes.txt" } }
          })
        default:
          expected.push({
            id,
            check: (r) => {
              expect(r.result.isError).toBe(true)
              expect(r.result.structuredContent._tag).toBe("FileNotFound")
            }
          })
          return JSON.stringify({
            jsonrpc: "2.0",
            id,
            method: "tools/call",
            params: { name: "read", arguments: { filePath: `missing-${serial}.txt` } }
          })
      }
    }

    // What the server must say about each line, judged independently: by the byte limit and JSON.parse.
    let parseErrors = 0
    let oversized = 0
    const judge = (line: Buffer) => {
      if (line.length > MAX_MESSAGE_BYTES) return void oversized++
      let text = line.toString("utf8").replace(/\r$/, "")
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
      if (text.trim() === "") return
      try {
        JSON.parse(text)
      } catch {
        parseErrors++
      }
    }

    const filler = Buffer.alloc(4 * 1024 * 1024, "x")
    const hostile = (): Buffer => {
      switch (int(9)) {
        case 0:
          return randomBytes(int(300))
        case 1: {
          // A valid request cut short.
          const whole = JSON.stringify({
            jsonrpc: "2.0",
            id: `r${int(100)}`,
            method: "tools/call",
            params: { name: "read" }
          })
          return Buffer.from(whole.slice(0, 1 + int(whole.length - 1)))
        }
        case 2:
        case 3:
          return Buffer.from(randomMessage())
        case 4: {
          // Deep nesting: closed or not, bare or inside a request's params.
          const depth = pick([65, 100, 1000, 100_000])
          const body = `${"[".repeat(depth)}${next() < 0.5 ? "]".repeat(depth) : ""}`
          return Buffer.from(
            next() < 0.5 ? body : `{"jsonrpc":"2.0","id":"r-deep","method":"ping","params":{"a":${body}}}`
          )
        }
        case 5:
          // Big but under the limit: unparsable, or a valid JSON object that is no request.
          return next() < 0.5
            ? Buffer.concat([Buffer.from("{\"a\":\""), filler.subarray(0, 512 * 1024 + int(400 * 1024))])
            : Buffer.from(`{"jsonrpc":"2.0","pad":"${"y".repeat(900 * 1024)}"}`)
        case 6:
          return Buffer.from(pick(["", "   ", "\r", "\uFEFF", "null", "[]", "{}", "\"\"", "0", "[{}]"]))
        case 7:
          // Invalid UTF-8 inside a string: decoded with replacement characters.
          return Buffer.concat([
            Buffer.from(`{"jsonrpc":"2.0","id":"r-utf8","method":"x","params":{"s":"`),
            Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xe2, 0x82]),
            Buffer.from(next() < 0.5 ? "\"}}" : "")
          ])
        default:
          return Buffer.from(randomMessage().replace(/"/g, next() < 0.5 ? "'" : "\""))
      }
    }

    const lines: Array<Buffer> = []
    const valid = new Set<number>()
    for (let i = 0; i < HOSTILE_LINES; i++) {
      if (i % 10 === 0) {
        valid.add(lines.length)
        lines.push(Buffer.from(validRequest() + (next() < 0.2 ? "\r" : "")))
      }
      lines.push(hostile())
    }
    // Oversized lines, spread through the run.
    for (let i = 0; i < OVERSIZED_LINES; i++) {
      const at = int(lines.length)
      const size = MAX_MESSAGE_BYTES + 1 + int(3 * 1024 * 1024)
      lines.splice(at, 0, filler.subarray(0, size))
      for (const index of [...valid]) {
        if (index >= at) {
          valid.delete(index)
          valid.add(index + 1)
        }
      }
    }
    for (const [i, line] of lines.entries()) if (!valid.has(i)) judge(line)

    // A heap limit makes V8 collect instead of growing while garbage waits: the peak then
    // measures what the server keeps, not how far a busy machine let collection lag (an
    // uncapped run measured 122 MB at rest and 227 MB under heavy load; capped, 88-92 MB). A
    // server that kept what streams through would die of it, and fail the test. The young
    // generation is capped too: Node 24's default let it grow to 160-190 MB over the baseline
    // (16 MB semi-spaces: 80-110 MB on Node 24, ~60 MB on Node 20).
    const wire = new Wire(["--cwd", root], ["--max-old-space-size=128", "--max-semi-space-size=16"])
    try {
      await wire.call(initializeRequest("init"))
      // `initialize` is answered before the server has loaded (start-up): its size is taken once
      // it has, so the bound is on what the stream adds, not on loading the SDK and the read tool.
      await wire.call({ jsonrpc: "2.0", id: "loaded", method: "tools/list" })
      const baseline = wire.memory().current
      // Written at random split points, several lines per write or one line over many.
      const stream = Buffer.concat(lines.flatMap((line) => [line, Buffer.from("\n")]))
      let written = 0
      while (written < stream.length) {
        const size = 1 + int(next() < 0.5 ? 256 : 256 * 1024)
        await wire.write(stream.subarray(written, written + size))
        written += size
      }
      const final = await wire.call({ jsonrpc: "2.0", id: "final-ping", method: "ping" })
      expect(final.result).toEqual({})
      const { peak } = wire.memory()

      for (const { check, id } of expected) {
        // Reads may finish after the ping: wait for each answer, then make sure it is the only one.
        await wire.response(id)
        const responses = wire.received.filter((message) => message.id === id)
        expect(responses, `request ${id}`).toHaveLength(1)
        check(responses[0]!)
      }
      for (const message of wire.received) {
        expect(message.jsonrpc).toBe("2.0")
        if ("error" in message) expect([-32700, -32600, -32601, -32602]).toContain(message.error.code)
      }
      const nullErrors = (code: number) =>
        wire.received.filter((m) =>
          m.id === null && m.error?.code === code && (code !== -32600 || /over the limit/.test(m.error.message))
        )
      expect(nullErrors(-32700)).toHaveLength(parseErrors)
      expect(nullErrors(-32600)).toHaveLength(oversized)
      expect(wire.garbage).toEqual([])
      expect(peak - baseline, `peak ${peak}, baseline ${baseline}, streamed ${stream.length}`).toBeLessThan(
        MEMORY_BOUND
      )
      expect(stream.length).toBeGreaterThan(MEMORY_BOUND)
      expect(await wire.end()).toBe(0)
    } catch (error) {
      if (error instanceof Error) {
        error.message = `MCP fuzz failed with seed ${SEED} (replay with MCP_FUZZ_SEED=${SEED}): ${error.message}`
      }
      throw error
    } finally {
      wire.kill()
    }
  })
})
