/**
 * Progress: the throttle and the status line (pure), what the long loops report (in process,
 * through a recording reporter), and the CLI's status line on a terminal and its silence
 * elsewhere (real child processes; the terminal is a pseudo-terminal from `script`).
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as zlib from "node:zlib"
import * as Progress from "../src/Progress.js"
import { read, type ReadParams } from "../src/Read.js"
import { nodeLayer, tempDir, writeTree } from "./support/index.js"
import { bin, eventually, writeEndlessFile } from "./support/mcpWire.js"
import { member as tarMember, tarOf } from "./support/tarFixtures.js"
import { zip } from "./support/zipFixtures.js"

const roots: Array<string> = []
const project = (files: Readonly<Record<string, string | Uint8Array>>): string => {
  const root = tempDir()
  roots.push(root)
  writeTree(root, files)
  return root
}
afterAll(() => {
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true })
})

/** Read with every report recorded, unthrottled. */
const recorded = (root: string, params: ReadParams) =>
  Effect.gen(function*() {
    const updates: Array<Progress.Update> = []
    const result = yield* read(params).pipe(
      Effect.provideService(Progress.Progress, { report: (update) => updates.push(update) }),
      Effect.provide(nodeLayer(root))
    )
    return { result, updates }
  })

const expectGrowing = (updates: ReadonlyArray<Progress.Update>) => {
  const done = updates.map((update) => update.done)
  expect(done).toEqual([...done].sort((a, b) => a - b))
}

describe("throttled", () => {
  it("passes nothing before `after`, then at most one update per `every`", () => {
    let now = 1000
    const seen: Array<number> = []
    const progress = Progress.throttled((update) => seen.push(update.done), { after: 1000, every: 250, now: () => now })
    const report = (done: number) => progress.report({ task: "t", done, unit: "bytes" })
    report(1)
    now += 999
    report(2)
    expect(seen).toEqual([])
    now += 1
    report(3)
    report(4)
    now += 249
    report(5)
    now += 1
    report(6)
    expect(seen).toEqual([3, 6])
  })

  it("is silent by default", () => {
    expect(() => Progress.noop.report({ task: "t", done: 1, unit: "bytes" })).not.toThrow()
  })
})

describe("describe and statusLine", () => {
  it("says what, how much of how much, and the share", () => {
    expect(
      Progress.describe({ task: "Reading /p/big.log", done: 1536 * 1024 * 1024, total: 4 * 1024 ** 3, unit: "bytes" })
    )
      .toBe("Reading /p/big.log: 1.5 GiB of 4.0 GiB (37%)")
    expect(Progress.describe({ task: "Scanning /p/a.zip", done: 12_000, total: 48_000, unit: "entries" }))
      .toBe("Scanning /p/a.zip: 12,000 of 48,000 entries (25%)")
    expect(Progress.describe({ task: "Looking", done: 512, unit: "entries" })).toBe("Looking: 512 entries")
    expect(Progress.describe({ task: "Reading", done: 100, total: 0, unit: "bytes" })).toBe("Reading: 100 bytes")
  })

  it("redraws in place, cut from the start to the width so the numbers stay", () => {
    const update = { task: `Reading /${"deep/".repeat(30)}big.log`, done: 1024, total: 2048, unit: "bytes" } as const
    const line = Progress.statusLine(update, 60)
    expect(line.startsWith("\r…")).toBe(true)
    expect(line.endsWith("1.0 KiB of 2.0 KiB (50%)\x1b[K")).toBe(true)
    expect(line.length - "\r\x1b[K".length).toBe(59)
    // Unknown width (0 under a terminal without a size): 80.
    expect(Progress.statusLine(update, 0).length - "\r\x1b[K".length).toBe(79)
    expect(Progress.statusLine({ task: "Reading a", done: 1, unit: "bytes" })).toBe(
      "\reffect-read: Reading a: 1 bytes\x1b[K"
    )
  })

  it("terminal: clear erases the line only when something was drawn", () => {
    const written: Array<string> = []
    const status = Progress.terminal({ write: (text) => written.push(text), columns: 80 }, { after: 0, every: 0 })
    status.clear()
    expect(written).toEqual([])
    status.progress.report({ task: "Reading a", done: 1, unit: "bytes" })
    status.clear()
    status.clear()
    expect(written).toEqual(["\reffect-read: Reading a: 1 bytes\x1b[K", "\r\x1b[K"])
  })
})

describe("what the long loops report", () => {
  it.effect("reading up to a deep page: bytes of the file's size", () =>
    Effect.gen(function*() {
      const text = Array.from({ length: 200_000 }, (_, i) => `line ${i + 1}`).join("\n") + "\n"
      const root = project({ "big.log": text })
      const { result, updates } = yield* recorded(root, { filePath: "big.log", offset: 199_990 })
      expect(result.output).toContain("199990: line 199990")
      expect(updates.length).toBeGreaterThan(1)
      for (const update of updates) {
        expect(update).toMatchObject({ task: `Reading ${root}/big.log`, unit: "bytes", total: text.length })
        expect(update.done).toBeLessThanOrEqual(text.length)
      }
      expectGrowing(updates)
      expect(updates.at(-1)!.done).toBe(text.length)
    }))

  it.effect("listing a zip: entries of the central directory's count", () =>
    Effect.gen(function*() {
      const members = Array.from({ length: 50 }, (_, i) => ({ name: `f${i}.txt`, data: `${i}\n` }))
      const root = project({ "a.zip": zip(members) })
      const { updates } = yield* recorded(root, { filePath: "a.zip" })
      expect(updates.map((update) => update.done)).toEqual(members.map((_, i) => i + 1))
      for (const update of updates) {
        expect(update).toMatchObject({ task: `Scanning ${root}/a.zip`, unit: "entries", total: 50 })
      }
    }))

  it.effect("scanning a tar.gz: compressed bytes of the file's size", () =>
    Effect.gen(function*() {
      const members = Array.from({ length: 40 }, (_, i) =>
        tarMember({ name: `m${i}.txt`, data: `${"x".repeat(20_000)}${i}\n` }))
      const archive = zlib.gzipSync(tarOf(...members))
      const root = project({ "a.tar.gz": archive })
      const { updates } = yield* recorded(root, { filePath: "a.tar.gz" })
      expect(updates.length).toBeGreaterThan(0)
      for (const update of updates) {
        expect(update).toMatchObject({ task: `Scanning ${root}/a.tar.gz`, unit: "bytes", total: archive.length })
      }
      expectGrowing(updates)
      expect(updates.at(-1)!.done).toBe(archive.length)
    }))

  it.effect("walking the project for a missing path: entries visited, total unknown", () =>
    Effect.gen(function*() {
      const root = project({ "a/b/unique.txt": "found\n", "c/d.txt": "", "c/e.txt": "" })
      const { result, updates: all } = yield* recorded(root, { filePath: "unique.txt" })
      expect(result.title).toBe("a/b/unique.txt")
      // Then the file found is read (and reported as such).
      const updates = all.filter((update) => update.task.startsWith("Looking"))
      expect(updates.length).toBeGreaterThan(0)
      for (const update of updates) {
        expect(update).toMatchObject({ task: `Looking for the missing path in ${root}`, unit: "entries" })
        expect(update.total).toBeUndefined()
      }
      expectGrowing(updates)
    }))
})

describe("the CLI's status line", () => {
  const root = project({})
  const endless = writeEndlessFile(`${root}/endless.txt`)
  const args = ["--cwd", root, "--offset", String(endless.lines + 2), "endless.txt"]

  it("is drawn on stderr when it is a terminal", async () => {
    // `script` runs the CLI on a pseudo-terminal; its stdout is what the terminal showed.
    const command = [process.execPath, bin, ...args].map((arg) => `'${arg.replace(/'/g, "'\\''")}'`).join(" ")
    const child = spawn("script", ["-qec", command, "/dev/null"], { stdio: ["pipe", "pipe", "pipe"], detached: true })
    let shown = ""
    child.stdout.on("data", (chunk: Buffer) => (shown += chunk.toString("utf8")))
    try {
      // One line, redrawn in place; cut from its start when it is wider than the terminal.
      await eventually(
        () => /\r(effect-read: |…).*endless\.txt: [\d.]+ [KMG]iB of 1\.0 TiB \(0%\)\x1b\[K/.test(shown),
        "a status line"
      )
    } finally {
      // `script` and the CLI under it, as a group (gone already if the CLI ended).
      try {
        process.kill(-child.pid!, "SIGKILL")
      } catch {
        // ESRCH: nothing left to stop.
      }
    }
  })

  it("is never drawn when stderr is not a terminal", async () => {
    const child = spawn(process.execPath, [bin, ...args], { stdio: ["ignore", "pipe", "pipe"] })
    let stderr = ""
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))
    try {
      // Wait until the read has run well past the one-second mark and kept reading after it.
      const holds = () =>
        fs.readdirSync(`/proc/${child.pid}/fd`).some((n) => {
          try {
            return fs.readlinkSync(`/proc/${child.pid}/fd/${n}`).endsWith("/endless.txt")
          } catch {
            return false
          }
        })
      // Bytes the process has read so far (reads are positional, so the descriptor's offset stays put).
      const bytesRead = () => Number(/^rchar:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${child.pid}/io`, "utf8"))?.[1])
      await eventually(holds, "the read opened its file")
      const opened = Date.now()
      await eventually(() => Date.now() - opened > 2000, "two seconds of reading")
      const then = bytesRead()
      await eventually(() => bytesRead() > then + 16 * 1024 * 1024, "the read went on")
      expect(stderr).toBe("")
    } finally {
      child.kill("SIGKILL")
    }
  })
})
