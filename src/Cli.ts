/**
 * The command line: `effect-read [--cwd DIR] [--offset N] [--limit N] [--json] [--allow-external] <filePath>`.
 *
 * stdout carries exactly the tool's output (or one JSON object with `--json`); exit codes are
 * 0 success, 1 tool failure, 2 usage error.
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as ValidationError from "@effect/cli/ValidationError"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as nodePath from "node:path"
import * as readline from "node:readline"
import * as FileTime from "./FileTime.js"
import * as Lsp from "./Lsp.js"
import * as Permission from "./Permission.js"
import * as Read from "./Read.js"
import type { ReadError } from "./ReadError.js"
import * as Workspace from "./Workspace.js"

export const version = "0.1.0"

/** Exit codes of the CLI. */
export const ExitCode = { ok: 0, toolFailure: 1, usage: 2 } as const

/** Ask on the terminal (stderr for the question, so stdout stays the tool's output). */
export const terminalAsker: Permission.Asker = (request) =>
  Effect.async<Permission.Answer>((resume) => {
    const rl = readline.createInterface({ input: process.stdin, output: process.stderr })
    rl.question(
      `effect-read: allow ${request.permission} ${request.patterns.join(", ")}? [y]es / [a]lways / [N]o `,
      (answer) => {
        rl.close()
        const a = answer.trim().toLowerCase()
        resume(Effect.succeed(a === "y" || a === "yes" ? "once" : a === "a" || a === "always" ? "always" : "reject"))
      }
    )
    return Effect.sync(() => rl.close())
  })

/**
 * The CLI's permissions: everything inside the worktree is allowed; reading outside it is
 * allowed with `--allow-external`, asked on a terminal, and denied otherwise.
 */
export const permissionLayer = (options: { readonly allowExternal: boolean; readonly interactive: boolean }) =>
  Permission.layerRules(
    [
      { permission: "*", pattern: "*", action: "allow" },
      {
        permission: "external_directory",
        pattern: "*",
        action: options.allowExternal ? "allow" : options.interactive ? "ask" : "deny"
      }
    ],
    { asker: terminalAsker }
  )

/** `{"error": {_tag, message, …fields}}`: the error's own fields are its schema fields. */
const errorJson = (error: ReadError) => ({ error: { ...error, _tag: error._tag, message: error.message } })

const command = Command.make(
  "effect-read",
  {
    filePath: Args.text({ name: "filePath" }).pipe(Args.withDescription("The file or directory to read")),
    cwd: Options.text("cwd").pipe(
      Options.withDescription("Working directory and project root (default: the current directory)"),
      Options.optional
    ),
    offset: Options.integer("offset").pipe(Options.withDescription("First line to show, 1-based"), Options.optional),
    limit: Options.integer("limit").pipe(Options.withDescription("Most lines to show (default 2000)"), Options.optional),
    json: Options.boolean("json").pipe(Options.withDescription("Print one JSON object: the result, or {\"error\": …}")),
    allowExternal: Options.boolean("allow-external").pipe(
      Options.withDescription("Allow reading outside the project without asking")
    )
  },
  (args) =>
    Effect.gen(function*() {
      const root = nodePath.resolve(Option.getOrElse(args.cwd, () => process.cwd()))
      const params = {
        filePath: args.filePath,
        ...Option.match(args.offset, { onNone: () => ({}), onSome: (offset) => ({ offset }) }),
        ...Option.match(args.limit, { onNone: () => ({}), onSome: (limit) => ({ limit }) })
      }
      const services = Layer.mergeAll(
        Workspace.layer({ directory: root, worktree: root, sessionId: "cli" }),
        permissionLayer({
          allowExternal: args.allowExternal,
          interactive: Boolean(process.stdin.isTTY && process.stderr.isTTY)
        }),
        Lsp.layerNoop,
        FileTime.layerMemory
      )
      const exit = yield* Read.read(params).pipe(Effect.provide(services), Effect.either)
      if (exit._tag === "Right") {
        const result = exit.right
        yield* Console.log(args.json ? JSON.stringify(Schema.encodeSync(Read.ReadResult)(result)) : result.output)
        return
      }
      const error = exit.left
      if (args.json) yield* Console.log(JSON.stringify(errorJson(error)))
      else yield* Console.error(error.message)
      process.exitCode = error._tag === "InvalidParams" ? ExitCode.usage : ExitCode.toolFailure
    })
).pipe(Command.withDescription("Read a file or directory the way a coding agent's Read tool does."))

const cli = Command.run(command, { name: "effect-read", version })

/** Run the CLI on `argv` (as `process.argv`); sets `process.exitCode`. */
export const run = (argv: ReadonlyArray<string>) =>
  cli(argv).pipe(
    Effect.catchIf(ValidationError.isValidationError, () =>
      Effect.sync(() => {
        process.exitCode = ExitCode.usage
      }))
  )
