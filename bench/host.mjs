/**
 * What effect-read adds to a host's process: `node --expose-gc bench/host.mjs [reads]` prints one
 * JSON line. The host already runs Effect and `@effect/platform-node` (a runtime over
 * `NodeContext.layer` has run an effect); then it loads effect-read's modules and reads one small
 * file; then it reads `reads` more (default 10,000: 1,000 small files written to a temp directory
 * first, round after round). After each step a forced GC, then the process's RSS and its retained
 * memory (V8 heap in use plus memory held outside the heap: buffers), in MB, and where the heap's
 * share sits: V8's code space (compiled code), its old space (objects, and the code's metadata:
 * feedback, deoptimisation data) and its large-object space.
 *
 * `--reader effect` runs, in place of effect-read, the least an Effect program does to read a
 * file (an `Effect.fn` that stats the file, reads it through `@effect/platform`'s `FileSystem` and
 * numbers its lines), and `--reader plain` the plain async function (`readFile`, split, number):
 * what any Effect-based reader, and what no reader, adds while V8 warms up to the same reads.
 *
 * `--snapshots DIR` also writes a heap snapshot after the first read and one after the `reads`
 * (`one.heapsnapshot`, `many.heapsnapshot`): `node bench/heap-diff.mjs DIR/one.heapsnapshot
 * DIR/many.heapsnapshot` says what grew, by kind and by the script whose code it is.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Effect from "effect/Effect"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as v8 from "node:v8"
import { readModules, readServices } from "./readServices.mjs"

const args = process.argv.slice(2)
const option = (name) => args.includes(name) ? args[args.indexOf(name) + 1] : undefined
const snapshotsAt = option("--snapshots")
const reader = option("--reader") ?? "effect-read"
if (!["effect-read", "effect", "plain"].includes(reader)) throw new Error(`--reader: effect-read, effect or plain`)
const reads = Number(args.find((arg, i) => /^\d+$/.test(arg) && !args[i - 1]?.startsWith("--")) ?? 10_000)
const FILES = 1_000
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "effect-read-host-"))
const files = Array.from({ length: FILES }, (_, i) => {
  const file = path.join(dir, `f${String(i).padStart(4, "0")}.ts`)
  fs.writeFileSync(
    file,
    Array.from({ length: 100 }, (_, j) => `export const v${j} = ${i * j} // file ${i}, line ${j + 1}`).join("\n") + "\n"
  )
  return file
})
const measure = () => {
  globalThis.gc()
  globalThis.gc()
  const usage = process.memoryUsage()
  const space = (name) => v8.getHeapSpaceStatistics().find((s) => s.space_name === name).space_used_size / 1e6
  return {
    rssMB: usage.rss / 1e6,
    retainedMB: (usage.heapUsed + usage.external) / 1e6,
    codeSpaceMB: space("code_space"),
    oldSpaceMB: space("old_space"),
    largeObjectSpaceMB: space("large_object_space")
  }
}
const snapshot = (name) => {
  if (snapshotsAt !== undefined) v8.writeHeapSnapshot(path.join(snapshotsAt, `${name}.heapsnapshot`))
}

const host = ManagedRuntime.make(NodeContext.layer)
await host.runPromise(Effect.void)
const before = measure()

const numbered = (text) => text.split("\n").map((line, i) => `${String(i + 1).padStart(6)}\t${line}`).join("\n")
const effectRead = async () => {
  const modules = await readModules()
  const { Read } = modules
  const runtime = ManagedRuntime.make(readServices(modules, dir, "host"))
  return { read: (filePath) => runtime.runPromise(Read.read({ filePath })), dispose: () => runtime.dispose() }
}
const effectOnly = async () => {
  const { FileSystem } = await import("@effect/platform/FileSystem")
  const readNumbered = Effect.fn("host.read")(function*(filePath) {
    const fs = yield* FileSystem
    const info = yield* fs.stat(filePath)
    const text = yield* fs.readFileString(filePath)
    return { output: numbered(text), size: Number(info.size) }
  })
  return { read: (filePath) => host.runPromise(readNumbered(filePath)), dispose: async () => {} }
}
const plain = async () => ({
  read: async (filePath) => numbered(await fs.promises.readFile(filePath, "utf8")),
  dispose: async () => {}
})
const { dispose, read } = await { "effect-read": effectRead, effect: effectOnly, plain }[reader]()
await read(files[0])
const one = measure()
snapshot("one")

for (let i = 0; i < reads; i++) await read(files[i % files.length])
const many = measure()
snapshot("many")
// As many again: flat once warm (what grew before is the runtime warming up, not a leak).
for (let i = 0; i < reads; i++) await read(files[i % files.length])
const twice = measure()

await dispose()
await host.dispose()
fs.rmSync(dir, { recursive: true, force: true })
process.stdout.write(JSON.stringify({ reader, reads, files: files.length, before, one, many, twice }) + "\n")
