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
 *   node bench/replica.mjs serve <store> <root>
 *     a replica serving the conversation "bench" in <root>: one JSON command per stdin line
 *     ({"read": filePath} | {"compacted": true} | {"mark": true} | {"rewound": mark}), one JSON
 *     answer per stdout line ({ output, metadata } | { mark } | {}), until stdin ends.
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
import * as readline from "node:readline"
import * as FileTime from "../dist/FileTime.js"
import * as Store from "../dist/internal/doors/storeOption.js"
import * as Lsp from "../dist/Lsp.js"
import * as Permission from "../dist/Permission.js"
import * as Read from "../dist/Read.js"
import * as SessionMemory from "../dist/SessionMemory.js"
import * as Workspace from "../dist/Workspace.js"

const [command, storeText, ...rest] = process.argv.slice(2)
const at = rest.includes("--at") ? Number(rest[rest.indexOf("--at") + 1]) : undefined
const args = rest.filter((_, i) => rest[i] !== "--at" && rest[i - 1] !== "--at")

const spec = Either.getOrThrowWith(Store.parseStore(storeText ?? "", process.cwd()), (error) => new Error(error))
const services = Store.layer(spec, { sessionMemory: {} }).pipe(Layer.provideMerge(NodeContext.layer))

const waitUntil = Effect.suspend(() => at === undefined ? Effect.void : Effect.sleep(Math.max(0, at - Date.now())))

const serve = Effect.gen(function*() {
  const runtime = yield* Effect.runtime()
  const memory = yield* SessionMemory.SessionMemory
  const run = (effect) => Effect.runPromise(Effect.provide(effect, runtime.context))
  const lines = readline.createInterface({ input: process.stdin })
  yield* Effect.promise(async () => {
    for await (const line of lines) {
      const command = JSON.parse(line)
      const answer = command.read !== undefined
        ? await run(
          Effect.map(
            Read.read({ filePath: command.read }),
            (result) => ({ output: result.output, metadata: result.metadata })
          )
        )
        : command.compacted
        ? await run(Effect.as(memory.compacted("bench"), {}))
        : command.mark
        ? { mark: await run(memory.mark("bench")) }
        : await run(Effect.as(memory.rewound("bench", command.rewound), {}))
      process.stdout.write(JSON.stringify(answer) + "\n")
    }
  })
  return {}
}).pipe(
  Effect.provide(Layer.mergeAll(
    Workspace.layer({ directory: args[0], sessionId: "bench" }),
    Permission.layerAllowAll,
    Lsp.layerNoop
  )),
  Effect.provide(services),
  Effect.scoped
)

const program = command === "serve" ? serve : command === "start"
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
      const version = {
        ...shown,
        size: Number(info.size),
        mtime: info.mtime._tag === "Some" ? info.mtime.value.getTime() : undefined
      }
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
    Either.isRight(result)
      ? { ok: true, ...result.right }
      : { ok: false, error: String(result.left?.message ?? result.left) }
  ))
}, (defect) => console.log(JSON.stringify({ ok: false, error: String(defect?.message ?? defect) })))
