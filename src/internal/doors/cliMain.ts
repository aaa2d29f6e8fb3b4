/** The command line, run: what `bin.ts` loads once Node's compile cache is on. */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Effect from "effect/Effect"
import { run } from "../../Cli.js"
import { leaveMainThreadACore } from "./wasmTasks.js"

// This process is ours: a first structure read parses faster with a core left to it.
leaveMainThreadACore()

run(process.argv).pipe(Effect.provide(NodeContext.layer), NodeRuntime.runMain({ disableErrorReporting: true }))
