/**
 * The "several replicas" example of docs/session-memory.md, type-checked in CI: one replica of an agent server
 * whose read ledger and session memory live in PostgreSQL, through the host's own `PgClient`.
 * Every replica runs this; any of them may serve any request of any conversation, because the
 * conversation (and its generation) comes with the request, never from the process.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Config from "effect/Config"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Lsp, Permission, Read, SessionMemory, Workspace } from "../src/index.js"
import * as SqlFileTime from "../src/SqlFileTime.js"
import * as SqlSessionMemory from "../src/SqlSessionMemory.js"

// The host's own client (a pool per replica); effect-read only asks for a SqlClient.
const PgLive = PgClient.layerConfig({ url: Config.redacted("DATABASE_URL") })

// The ledger and session memory on it. Both run the store's migrations when built, which is safe
// when every replica starts at once; conversations idle for 12 hours are dropped.
const StoreLive = Layer.merge(
  SqlFileTime.layerClient,
  SqlSessionMemory.layerClient({ idleTimeout: "12 hours" })
).pipe(Layer.provide(PgLive))

const ReplicaLive = Layer.mergeAll(Permission.layerAllowAll, Lsp.layerNoop, StoreLive).pipe(
  Layer.provideMerge(NodeContext.layer)
)

/**
 * One request: the conversation id and its generation come from the host (raise the generation
 * at each compaction), never from the model.
 */
const readFor = (conversation: string, generation: number, filePath: string) =>
  Read.read({ filePath }).pipe(
    SessionMemory.atGeneration(conversation, generation),
    Effect.provide(Workspace.layer({ directory: "/srv/project", sessionId: conversation }))
  )

const program = Effect.gen(function*() {
  const memory = yield* SessionMemory.SessionMemory
  const first = yield* readFor("conversation-42", 0, "src/index.ts")
  yield* Console.log(first.output)
  // Before a turn the user may undo: a mark (a number from the store, valid on every replica).
  const mark = yield* memory.mark("conversation-42")
  yield* readFor("conversation-42", 0, "src/other.ts")
  // The user undid the turn: every replica's next read of src/other.ts shows it in full. A signal
  // that cannot reach the store fails (SessionMemoryError): retry it, never carry on without it.
  yield* memory.rewound("conversation-42", mark).pipe(Effect.retry({ times: 3 }))
  // The host dropped one file's reads from the context.
  yield* memory.forget("conversation-42", first.metadata.path)
  // A compaction needs no call: the next requests carry generation 1.
  const after = yield* readFor("conversation-42", 1, "src/index.ts")
  const unchanged = after.metadata.kind === "text" && after.metadata.unchanged === true
  yield* Console.log(unchanged ? "a stub" : "the full content again")
})

program.pipe(Effect.provide(ReplicaLive), NodeRuntime.runMain)
