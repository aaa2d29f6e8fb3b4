/**
 * The command line, run: the entry of the bundle `bin.ts` runs (`dist/bin-main.cjs`). The common calls (a
 * read, `mcp`) are parsed here and run without `@effect/cli`, on the Node file system and path
 * alone (start-up); every other call — help, `many`, a usage error — loads `Cli.ts`, which parses
 * it with `@effect/cli` on the whole Node context.
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { quickParse } from "./cliArgs.js"
import { mcpCommand, readCommand } from "./commands.js"

const quick = quickParse(process.argv.slice(2))

const program = quick === undefined
  ? Effect.promise(() => Promise.all([import("@effect/platform-node/NodeContext"), import("../../Cli.js")])).pipe(
    Effect.flatMap(([NodeContext, Cli]) => Cli.run(process.argv).pipe(Effect.provide(NodeContext.layer)))
  )
  : (quick.command === "read"
    ? readCommand(quick.args)
    : mcpCommand(quick.args, quick.parent)).pipe(
      Effect.provide(Layer.merge(NodeFileSystem.layer, NodePath.layer))
    )

program.pipe(NodeRuntime.runMain({ disableErrorReporting: true }))
