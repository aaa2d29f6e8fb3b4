/**
 * The MCP server on the raw wire: `node dist/bin.js mcp` as a child process, bytes written to
 * its stdin, JSON lines read from its stdout (every line must parse: stdout carries nothing else).
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"

export const bin = path.resolve("dist/bin.js")

export type Message = Record<string, any>

export const initializeRequest = (id: string | number = 0) => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw-wire", version: "0" } }
})

/** Generous: only there to turn a hang into a failure, never to measure. */
const DEADLINE_MS = 30_000

export class Wire {
  readonly child: ChildProcessWithoutNullStreams
  /** Every message the server wrote, in order. */
  readonly received: Array<Message> = []
  /** stdout lines that were not JSON (there must be none). */
  readonly garbage: Array<string> = []
  stderr = ""
  private pending = ""
  private waiters: Array<() => void> = []
  readonly exited: Promise<number | null>

  /** `nodeArgs` go to node before the script (e.g. V8 heap limits). */
  constructor(args: ReadonlyArray<string>, nodeArgs: ReadonlyArray<string> = []) {
    this.child = spawn(process.execPath, [...nodeArgs, bin, "mcp", ...args], { stdio: ["pipe", "pipe", "pipe"] })
    this.child.stdout.on("data", (chunk: Buffer) => {
      this.pending += chunk.toString("utf8")
      let newline: number
      while ((newline = this.pending.indexOf("\n")) !== -1) {
        const line = this.pending.slice(0, newline)
        this.pending = this.pending.slice(newline + 1)
        try {
          this.received.push(JSON.parse(line))
        } catch {
          this.garbage.push(line)
        }
      }
      for (const wake of this.waiters.splice(0)) wake()
    })
    this.child.stderr.on("data", (chunk: Buffer) => (this.stderr += chunk.toString("utf8")))
    // Writing to a server that died must fail the test through `exited`, not crash the runner.
    this.child.stdin.on("error", () => {})
    this.exited = new Promise((resolve) => this.child.on("close", (code) => resolve(code)))
  }

  /** Raw bytes, as they are. */
  write(data: string | Uint8Array): Promise<void> {
    return new Promise((resolve) => {
      if (this.child.stdin.write(data)) resolve()
      else this.child.stdin.once("drain", resolve)
    })
  }

  /** One message per line. */
  send(...messages: ReadonlyArray<unknown>): Promise<void> {
    return this.write(
      messages.map((message) => `${typeof message === "string" ? message : JSON.stringify(message)}\n`).join("")
    )
  }

  /** The first message (from `from` on) that satisfies `predicate`. */
  async next(predicate: (message: Message) => boolean, from = 0): Promise<Message> {
    const deadline = Date.now() + DEADLINE_MS
    for (;;) {
      const found = this.received.slice(from).find(predicate)
      if (found !== undefined) return found
      if (this.child.exitCode !== null) throw new Error(`the server exited (${this.child.exitCode}): ${this.stderr}`)
      if (Date.now() > deadline) {
        throw new Error(
          `no matching message within ${DEADLINE_MS} ms; received ${JSON.stringify(this.received).slice(0, 2000)}`
        )
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 200)
        this.waiters.push(() => {
          clearTimeout(timer)
          resolve()
        })
      })
    }
  }

  /** The response to request `id` (compared exactly: `1` and `"1"` differ). */
  response(id: string | number, from = 0): Promise<Message> {
    return this.next((message) => message.id === id && ("result" in message || "error" in message), from)
  }

  /** Send a request and wait for its response. */
  async call(request: Message): Promise<Message> {
    const from = this.received.length
    await this.send(request)
    return this.response(request.id, from)
  }

  async initialize(): Promise<Message> {
    const answer = await this.call(initializeRequest("init"))
    await this.send({ jsonrpc: "2.0", method: "notifications/initialized" })
    return answer
  }

  /** Close stdin and wait for the exit code. */
  async end(): Promise<number | null> {
    this.child.stdin.end()
    return this.exited
  }

  kill(): void {
    if (this.child.exitCode === null) this.child.kill()
  }

  /** The files the server process holds open (Linux `/proc`). */
  openFiles(): Array<string> {
    const dir = `/proc/${this.child.pid}/fd`
    return fs.readdirSync(dir).flatMap((fd) => {
      try {
        return [fs.readlinkSync(path.join(dir, fd))]
      } catch {
        return []
      }
    })
  }

  /** Peak and current resident memory of the server process, in bytes (Linux `/proc`). */
  memory(): { readonly peak: number; readonly current: number } {
    const status = fs.readFileSync(`/proc/${this.child.pid}/status`, "utf8")
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN) * 1024
    return { peak: kb("VmHWM"), current: kb("VmRSS") }
  }
}

/** Wait until `condition` holds (polling); fails after the deadline. */
export const eventually = async (condition: () => boolean, what: string): Promise<void> => {
  const deadline = Date.now() + DEADLINE_MS
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/**
 * A text file whose reading never ends in practice: a few hundred lines, then a 1 TiB line of
 * NULs (a hole: no disk is used). A page past that line has to scan the whole terabyte.
 */
export const writeEndlessFile = (file: string): { readonly size: number; readonly lines: number } => {
  const lines = 300
  const fd = fs.openSync(file, "w")
  try {
    // Not all ASCII: the first sample settles the encoding (UTF-8), so nothing looks ahead into the hole.
    fs.writeSync(fd, Array.from({ length: lines }, (_, i) => `line ${i + 1} before the long one, café\n`).join(""))
    fs.ftruncateSync(fd, 2 ** 40)
  } finally {
    fs.closeSync(fd)
  }
  return { size: 2 ** 40, lines }
}
