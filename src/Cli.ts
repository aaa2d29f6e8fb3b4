/**
 * The command line:
 *
 * - `effect-read [--cwd DIR] [--offset N] [--limit N] [--column N] [--encoding NAME] [--view V] [--levels K] [--context syntax] [--line-format hashline]
 *   [--format text|json|envelope] [--json] [--files-only] [PERMISSIONS] <filePath>` reads once. stdout carries exactly the tool's
 *   output, or one JSON object (`json`: the `ReadResult` or `{"error": …}`; `envelope`: the standard
 *   envelope). `--json` is short for `--format json`.
 * - `effect-read mcp [--cwd DIR] [--store sqlite:FILE|postgres://…] [--session-memory] [--language-server] [--ask-timeout SECONDS] [PERMISSIONS]`
 *   serves the tool over MCP on stdio; each request's conversation is its `_meta["effect-read/session"]`.
 * - `effect-read many [--cwd DIR] [--glob PATTERN] [--json] [PERMISSIONS] <filePath>...` reads
 *   several files at once (`read_many`); exit 1 when any of them failed (the others are shown).
 *
 * PERMISSIONS: `--allow-external`, `--mask-secrets`, `--text-only` (`ModelInput.textOnly`), `--next-header` (`Limits.Notices`), `--rules FILE`, `--allow GLOB`, `--ask GLOB`,
 * `--deny GLOB` (see `doorRules`). Reads start from `Permission.secretRules`: env files ask (on a
 * terminal; over MCP through the client's elicitation), private keys and credential stores are
 * denied.
 *
 * Exit codes: 0 success, 1 tool failure, 2 usage error.
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import type * as Options from "@effect/cli/Options"
import * as ValidationError from "@effect/cli/ValidationError"
import * as Console from "effect/Console"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as nodePath from "node:path"
import * as CliArgs from "./internal/doors/cliArgs.js"
import {
  ExitCode,
  type ManyArgs,
  manyCommand,
  type McpArgs,
  mcpCommand,
  type ReadArgs,
  readCommand,
  samePath,
  usageError
} from "./internal/doors/commands.js"
import { manyFlags, mcpFlags, readCommandFlags } from "./internal/doors/flags.js"
import { version } from "./internal/doors/packageJson.js"
import { optionsOf } from "./internal/doors/readOptions.js"

export {
  allowHint,
  cliPrompt,
  doorRules,
  type Format,
  forPerson,
  permissionLayer,
  type PermissionOptions,
  sessionLayer,
  terminalAsker
} from "./internal/doors/commands.js"
/** The package version, from `package.json`; exit codes of the CLI. */
export { ExitCode, version }

/**
 * What each command runs with the arguments `@effect/cli` parsed: the commands' work. A test puts
 * a recorder here to hold `cliArgs.quickParse` to what `@effect/cli` parses.
 */
export class CommandHandlers extends Context.Reference<CommandHandlers>()("effect-read/Cli/CommandHandlers", {
  defaultValue: (): {
    readonly read: typeof readCommand
    readonly mcp: typeof mcpCommand
    readonly many: typeof manyCommand
  } => ({ read: readCommand, mcp: mcpCommand, many: manyCommand })
}) {}

/** The `@effect/cli` options of `flags`, typed as the command's parsed arguments. */
const optionsFor = <A>(flags: Parameters<typeof optionsOf>[0]) =>
  optionsOf(flags) as unknown as { readonly [K in keyof A]: Options.Options<A[K]> }

const command = Command.make(
  "effect-read",
  {
    // Optional only so that `effect-read mcp` parses; a read without it is a usage error.
    filePath: Args.text({ name: "filePath" }).pipe(
      Args.withDescription("The file or directory to read"),
      Args.optional
    ),
    ...optionsFor<Omit<ReadArgs, "filePath">>(readCommandFlags)
  },
  (args) => Effect.flatMap(CommandHandlers, (handlers) => handlers.read(args))
).pipe(Command.withDescription(
  "Read a file or directory the way a coding agent's Read tool does. A path that is also a command's name " +
    "(mcp, many) or starts with - is read when written as a path (./many) or after -- (effect-read -- many)."
))

const mcp = Command.make(
  "mcp",
  optionsFor<McpArgs>(mcpFlags),
  (args) => Effect.flatMap(Effect.zip(CommandHandlers, command), ([handlers, parent]) => handlers.mcp(args, parent))
).pipe(Command.withDescription("Serve the read tool over MCP on stdin/stdout (logs go to stderr)."))

const many = Command.make(
  "many",
  {
    filePaths: Args.text({ name: "filePath" }).pipe(
      Args.withDescription("Files or directories to read"),
      Args.repeated
    ),
    ...optionsFor<Omit<ManyArgs, "filePaths">>(manyFlags)
  },
  (args) => Effect.flatMap(Effect.zip(CommandHandlers, command), ([handlers, parent]) => handlers.many(args, parent))
).pipe(
  Command.withDescription(
    "Read several files in one call (read_many): each in the usual format, in order, sharing one 50 KB output budget."
  )
)

/** The console the commands print their results on: `run`'s own, not the one that strips colours. */
class ResultConsole extends Context.Reference<ResultConsole>()("effect-read/Cli/ResultConsole", {
  defaultValue: (): Console.Console | undefined => undefined
}) {}

const root = command.pipe(
  Command.withSubcommands([mcp, many]),
  Command.transformHandler((effect) =>
    Effect.flatMap(ResultConsole, (console) => console === undefined ? effect : Effect.withConsole(effect, console))
  )
)

const cli = Command.run(root, { name: "effect-read", version })

/** Terminal escape sequences (colours, styles): `@effect/cli`'s help and errors are written with them. */
const escapes = /\x1b\[[0-?]*[ -/]*[@-~]/g

/**
 * `console` with escape sequences removed from what goes to a stream that is not a terminal, or to
 * any stream when `NO_COLOR` is set: `--help > file` is plain text. Only `@effect/cli`'s own output
 * (help, version, parse errors) goes through it; a command's result is printed as it is.
 */
const plainWhereNoTerminal = (console: Console.Console): Console.Console => {
  const noColor = (process.env["NO_COLOR"] ?? "") !== ""
  const plain = (tty: boolean | undefined) => (args: ReadonlyArray<unknown>) =>
    noColor || !tty ? args.map((arg) => typeof arg === "string" ? arg.replace(escapes, "") : arg) : args
  const out = plain(process.stdout.isTTY)
  const err = plain(process.stderr.isTTY)
  return { ...console, log: (...args) => console.log(...out(args)), error: (...args) => console.error(...err(args)) }
}

/** Run the CLI on `argv` (as `process.argv`); sets `process.exitCode`. */
export const run = (argv: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const words = argv.slice(2)
    const scanned = CliArgs.scan(words)
    const directory = nodePath.resolve(scanned.cwd ?? ".")
    // A subcommand given words it does not take: say so (and that its name is also a path here, when it is).
    const misfit = CliArgs.misfit(scanned)
    if (misfit !== undefined) {
      const also = scanned.subcommand === undefined ? "" : yield* samePath(scanned.subcommand, directory)
      return yield* usageError(
        `${misfit}; see effect-read ${scanned.subcommand === undefined ? "" : `${scanned.subcommand} `}--help.${
          also === "" ? "" : `\neffect-read: ${also}`
        }`
      )
    }
    const own = yield* Console.consoleWith(Effect.succeed)
    yield* cli([...argv.slice(0, 2), ...CliArgs.forcePaths(words)]).pipe(
      Effect.catchIf(ValidationError.isValidationError, () =>
        Effect.gen(function*() {
          process.exitCode = ExitCode.usage
          const also = scanned.subcommand === undefined ? "" : yield* samePath(scanned.subcommand, directory)
          if (also !== "") yield* Console.error(`effect-read: ${also}`)
        })),
      Effect.provideService(ResultConsole, own),
      Effect.withConsole(plainWhereNoTerminal(own))
    )
  })
