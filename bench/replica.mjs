/**
 * One replica of an agent server on a shared store, as a process of its own (after `npm run
 * build`), for bench/replicas.mjs and the store's tests:
 *
 *   node bench/replica.mjs start <store> [--at MS]
 *     builds the ledger and session memory on the store (running its migrations): many of these
 *     started at once on an empty database is the first boot of a scaled-out server.
 *   node bench/replica.mjs coverage <store> <file> <start> <end> <sessions> [--at MS]
 *     records that each of <sessions> sessions (s0, s1, …) was shown lines <start>-<end> of
 *     <file>, all at once.
 *
 * <store> is sqlite:FILE or a postgres:// URL. `--at` waits until that epoch millisecond once
 * everything is loaded, so that several processes start their work together. Prints one JSON line:
 * {"ok":true,…} or {"ok":false,"error":…}; exit 0 either way (the caller counts).
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as FileTime from "../dist/FileTime.js"
import * as Store from "../dist/internal/store.js"

const [command, storeText, ...rest] = process.argv.slice(2)
const at = rest.includes("--at") ? Number(rest[rest.indexOf("--at") + 1]) : undefined
const args = rest.filter((_, i) => rest[i] !== "--at" && rest[i - 1] !== "--at")

const spec = Either.getOrThrowWith(Store.parseStore(storeText ?? "", process.cwd()), (error) => new Error(error))
const services = Store.layer(spec, { sessionMemory: {} }).pipe(Layer.provideMerge(NodeContext.layer))

const waitUntil = Effect.suspend(() => at === undefined ? Effect.void : Effect.sleep(Math.max(0, at - Date.now())))

const program = command === "start"
  ? Effect.gen(function*() {
    yield* waitUntil
    const started = performance.now()
    yield* Effect.scoped(Layer.build(services))
    return { ms: performance.now() - started }
  })
  : command === "coverage"
  ? Effect.gen(function*() {
    const [file, start, end, sessions] = args
    const shown = { start: Number(start), end: Number(end), whole: false, size: 0, mtime: undefined }
    yield* waitUntil
    yield* Effect.gen(function*() {
      const ledger = yield* FileTime.FileTime
      // What was shown is of the version stamped: the stamp's size and mtime.
      const fs = yield* FileSystem.FileSystem
      const info = yield* fs.stat(file)
      const version = { ...shown, size: Number(info.size), mtime: info.mtime._tag === "Some" ? info.mtime.value.getTime() : undefined }
      yield* Effect.forEach(
        Array.from({ length: Number(sessions) }, (_, i) => `s${i}`),
        // Each after a random few milliseconds: the two processes' reads of a session overlap in every way.
        (session) => Effect.zipRight(Effect.sleep(Math.random() * 30), ledger.read(session, file, version)),
        { concurrency: "unbounded", discard: true }
      )
    }).pipe(Effect.provide(services))
    return {}
  })
  : Effect.die(new Error(`unknown command ${command}`))

Effect.runPromise(program.pipe(Effect.either)).then((result) => {
  console.log(JSON.stringify(
    Either.isRight(result) ? { ok: true, ...result.right } : { ok: false, error: String(result.left?.message ?? result.left) }
  ))
}, (defect) => console.log(JSON.stringify({ ok: false, error: String(defect?.message ?? defect) })))
