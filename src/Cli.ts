/**
 * The command line:
 *
 * - `effect-read [--cwd DIR] [--offset N] [--limit N] [--column N] [--encoding NAME] [--view V] [--levels K] [--context syntax] [--line-format hashline]
 *   [--format text|json|envelope] [--json] [--files-only] [--allow-external] <filePath>` reads once. stdout carries exactly the tool's
 *   output, or one JSON object (`json`: the `ReadResult` or `{"error": …}`; `envelope`: seed 002's
 *   envelope). `--json` is short for `--format json`.
 * - `effect-read mcp [--cwd DIR] [--allow-external] [--store sqlite:FILE|postgres://…] [--session-memory]` serves
 *   the tool over MCP on stdio; each request's conversation is its `_meta["effect-read/session"]`.
 * - `effect-read many [--cwd DIR] [--glob PATTERN] [--json] [--allow-external] <filePath>...` reads
 *   several files at once (`read_many`); exit 1 when any of them failed (the others are shown).
 *
 * Exit codes: 0 success, 1 tool failure, 2 usage error.
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as ValidationError from "@effect/cli/ValidationError"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Duration from "effect/Duration"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as nodePath from "node:path"
import * as readline from "node:readline"
import * as Envelope from "./Envelope.js"
import * as FileTime from "./FileTime.js"
import * as Lsp from "./Lsp.js"
import * as Permission from "./Permission.js"
import * as Progress from "./Progress.js"
import * as Read from "./Read.js"
import * as ReadMany from "./ReadMany.js"
import * as SessionMemory from "./SessionMemory.js"
import type { ReadError } from "./ReadError.js"
import * as Workspace from "./Workspace.js"

export const version = "0.1.0"

/** Exit codes of the CLI. */
export const ExitCode = { ok: 0, toolFailure: 1, usage: 2 } as const

/** Ask on the terminal (stderr for the question, so stdout stays the tool's output). */
export const terminalAsker: Permission.Asker = (request) =>
  Effect.async<Permission.Answer>((resume) => {
    // Erase a progress status line, if one is drawn, before asking on its line.
    process.stderr.write("\r\x1b[K")
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
 * The CLI's permissions: everything inside the worktree is allowed, and public web pages;
 * reading outside it is allowed with `--allow-external`, asked on a terminal, and denied
 * otherwise. Web pages at loopback, private and other non-public addresses are asked on a
 * terminal and denied otherwise (the MCP server never fetches them).
 */
export const permissionLayer = (options: { readonly allowExternal: boolean; readonly interactive: boolean }) =>
  Permission.layerRules(
    [
      { permission: "*", pattern: "*", action: "allow" },
      {
        permission: "external_directory",
        pattern: "*",
        action: options.allowExternal ? "allow" : options.interactive ? "ask" : "deny"
      },
      { permission: "webfetch_private", pattern: "*", action: options.interactive ? "ask" : "deny" }
    ],
    { asker: terminalAsker }
  )

/** One session's services for the CLI and the MCP server: the worktree is `root`. */
export const sessionLayer = (root: string, options: { readonly allowExternal: boolean; readonly interactive: boolean }) =>
  Layer.mergeAll(
    Workspace.layer({ directory: root, worktree: root, sessionId: "cli" }),
    permissionLayer(options),
    Lsp.layerNoop,
    FileTime.layerMemory
  )

/**
 * The MCP server's state: the ledger and (with `sessionMemory`) session memory, on the store
 * `--store` names, else in this process. Loaded only for `mcp`: a plain read never loads `@effect/sql`.
 */
const mcpState = (
  store: string | undefined,
  sessionMemory: boolean
): Effect.Effect<
  Either.Either<
    Layer.Layer<FileTime.FileTime | SessionMemory.SessionMemory, { readonly message: string }, FileSystem.FileSystem>,
    string
  >
> =>
  Effect.gen(function*() {
    if (store === undefined) {
      return Either.right(Layer.merge(
        FileTime.layerMemory,
        sessionMemory ? SessionMemory.layerSession() : Layer.succeed(SessionMemory.SessionMemory, SessionMemory.none)
      ))
    }
    const Store = yield* Effect.promise(() => import("./internal/store.js"))
    return Either.map(
      Store.parseStore(store, process.cwd()),
      (spec) => Store.layer(spec, { sessionMemory: sessionMemory ? {} : false })
    )
  })

/** `{"error": {_tag, message, …fields}}`: the error's own fields are its schema fields. */
const errorJson = (error: ReadError) => ({ error: { ...error, _tag: error._tag, message: error.message } })

/** A usage error found after parsing (conflicting flags): message on stderr, exit 2. */
const usageError = (message: string) =>
  Console.error(`effect-read: ${message}`).pipe(
    Effect.zipRight(Effect.sync(() => {
      process.exitCode = ExitCode.usage
    }))
  )

export type Format = "text" | "json" | "envelope"

const cwdOption = Options.text("cwd").pipe(
  Options.withDescription("Working directory and project root (default: the current directory)"),
  Options.optional
)
/**
 * The project root: `--cwd` (else the current directory), resolved. A `--cwd` that is not a
 * directory is a usage error at start (exit 2), not a session whose every read says "not found".
 */
const projectRoot = (cwd: Option.Option<string>) =>
  Effect.gen(function*() {
    const root = nodePath.resolve(Option.getOrElse(cwd, () => process.cwd()))
    if (Option.isNone(cwd)) return Option.some(root)
    const fs = yield* FileSystem.FileSystem
    const info = yield* Effect.either(fs.stat(root))
    if (info._tag === "Right" && info.right.type === "Directory") return Option.some(root)
    const problem = info._tag === "Left"
      ? info.left._tag === "SystemError" && info.left.reason === "NotFound" ? "no such directory" : info.left.message
      : `not a directory (a ${info.right.type === "File" ? "file" : info.right.type})`
    yield* usageError(`--cwd ${cwd.value}${cwd.value === root ? "" : ` (${root})`}: ${problem}`)
    return Option.none<string>()
  })

const allowExternalOption = Options.boolean("allow-external").pipe(
  Options.withDescription("Allow reading outside the project without asking")
)

const command = Command.make(
  "effect-read",
  {
    // Optional only so that `effect-read mcp` parses; a read without it is a usage error.
    filePath: Args.text({ name: "filePath" }).pipe(Args.withDescription("The file or directory to read"), Args.optional),
    cwd: cwdOption,
    offset: Options.integer("offset").pipe(Options.withDescription("First line to show, 1-based"), Options.optional),
    limit: Options.integer("limit").pipe(Options.withDescription("Most lines to show (default 2000)"), Options.optional),
    column: Options.integer("column").pipe(
      Options.withDescription("Character (1-based) at which the line at --offset starts: reads on in a cut line"),
      Options.optional
    ),
    encoding: Options.text("encoding").pipe(
      Options.withDescription("Decode text in this encoding (e.g. shift_jis, windows-1252) instead of detecting it"),
      Options.optional
    ),
    view: Options.choice("view", Read.views).pipe(
      Options.withDescription(
        "Directories: list (default) or tree; files: outline, summary, block (the declaration around --offset) or conflicts"
      ),
      Options.optional
    ),
    levels: Options.integer("levels").pipe(
      Options.withDescription("With --view block: 1 the innermost declaration around the line, 2 the one around it, …"),
      Options.optional
    ),
    context: Options.choice("context", ["syntax"]).pipe(
      Options.withDescription("syntax: widen the requested range to the statements or declarations it cuts"),
      Options.optional
    ),
    lineFormat: Options.choice("line-format", ["hashline"]).pipe(
      Options.withDescription("hashline: a ¶PATH#TAG first line and N:text lines, for edit tools that take anchors"),
      Options.optional
    ),
    format: Options.choice("format", ["text", "json", "envelope"]).pipe(
      Options.withDescription(
        "text: the tool output (default); json: the ReadResult or {\"error\": …}; envelope: the standard envelope"
      ),
      Options.optional
    ),
    json: Options.boolean("json").pipe(Options.withDescription("Short for --format json")),
    filesOnly: Options.boolean("files-only").pipe(
      Options.withDescription("With --format envelope: a directory is an IS_DIRECTORY error")
    ),
    allowExternal: allowExternalOption
  },
  (args) =>
    Effect.gen(function*() {
      if (Option.isNone(args.filePath)) return yield* usageError("missing <filePath> (or a command: mcp); see --help")
      if (args.json && Option.isSome(args.format) && args.format.value !== "json") {
        return yield* usageError(`--json conflicts with --format ${args.format.value}`)
      }
      const format: Format = Option.getOrElse(args.format, () => args.json ? "json" : "text")
      if (args.filesOnly && format !== "envelope") return yield* usageError("--files-only needs --format envelope")

      const checkedRoot = yield* projectRoot(args.cwd)
      if (Option.isNone(checkedRoot)) return
      const root = checkedRoot.value
      const params = {
        filePath: args.filePath.value,
        ...Option.match(args.offset, { onNone: () => ({}), onSome: (offset) => ({ offset }) }),
        ...Option.match(args.limit, { onNone: () => ({}), onSome: (limit) => ({ limit }) }),
        ...Option.match(args.column, { onNone: () => ({}), onSome: (column) => ({ column }) }),
        ...Option.match(args.encoding, { onNone: () => ({}), onSome: (encoding) => ({ encoding }) }),
        ...Option.match(args.lineFormat, { onNone: () => ({}), onSome: (lineFormat) => ({ lineFormat }) }),
        ...Option.match(args.view, { onNone: () => ({}), onSome: (view) => ({ view }) }),
        ...Option.match(args.levels, { onNone: () => ({}), onSome: (levels) => ({ levels }) }),
        ...Option.match(args.context, { onNone: () => ({}), onSome: (context) => ({ context }) })
      }
      const services = sessionLayer(root, {
        allowExternal: args.allowExternal,
        interactive: Boolean(process.stdin.isTTY && process.stderr.isTTY)
      })
      // A status line on stderr for a read that takes a while, only when a person watches it.
      const status = process.stderr.isTTY ? Progress.terminal(process.stderr) : undefined
      const [duration, exit] = yield* Read.read(params).pipe(
        Effect.either,
        Effect.timed,
        Effect.provide(services),
        Effect.provideService(Progress.Progress, status?.progress ?? Progress.noop),
        Effect.ensuring(Effect.sync(() => status?.clear()))
      )
      const failureCode = (error: ReadError) =>
        error._tag === "InvalidParams" ? ExitCode.usage : ExitCode.toolFailure

      if (format === "envelope") {
        const envelope = yield* Envelope.renderInWorkspace(exit, {
          params,
          timeMs: Duration.toMillis(duration),
          filesOnly: args.filesOnly
        }).pipe(Effect.provide(services))
        yield* Console.log(JSON.stringify(envelope))
        if (exit._tag === "Left") process.exitCode = failureCode(exit.left)
        else if (envelope.status === "error") process.exitCode = ExitCode.toolFailure
        return
      }
      if (exit._tag === "Right") {
        const result = exit.right
        yield* Console.log(format === "json" ? JSON.stringify(Schema.encodeSync(Read.ReadResult)(result)) : result.output)
        return
      }
      const error = exit.left
      if (format === "json") yield* Console.log(JSON.stringify(errorJson(error)))
      else yield* Console.error(error.message)
      process.exitCode = failureCode(error)
    })
).pipe(Command.withDescription("Read a file or directory the way a coding agent's Read tool does."))

const mcp = Command.make(
  "mcp",
  {
    cwd: cwdOption,
    allowExternal: allowExternalOption,
    store: Options.text("store").pipe(
      Options.withDescription(
        "Keep the read ledger and session memory on this store, shared by every server on it: sqlite:FILE or postgres://…"
      ),
      Options.optional
    ),
    sessionMemory: Options.boolean("session-memory").pipe(
      Options.withDescription(
        "Session memory: a re-read of lines the conversation still holds is a short stub; a changed file leads with a diff"
      )
    )
  },
  (args) =>
    Effect.gen(function*() {
      // `effect-read --cwd DIR mcp` works too: the subcommand's own flags win.
      const parent = yield* command
      const checkedRoot = yield* projectRoot(Option.orElse(args.cwd, () => parent.cwd))
      if (Option.isNone(checkedRoot)) return
      const root = checkedRoot.value
      const state = yield* mcpState(Option.getOrUndefined(args.store), args.sessionMemory)
      if (Either.isLeft(state)) return yield* usageError(state.left)
      // Nobody can answer a question on stdio (it carries the protocol): outside the project is
      // allowed with --allow-external and denied otherwise, as for the CLI without a terminal.
      const services = Layer.mergeAll(
        Workspace.layer({ directory: root, worktree: root, sessionId: "cli" }),
        permissionLayer({ allowExternal: args.allowExternal || parent.allowExternal, interactive: false }),
        Lsp.layerNoop,
        state.right
      )
      // Loaded here, not at the top: a plain read never pays for the MCP SDK (start-up, memory).
      const McpServer = yield* Effect.promise(() => import("./McpServer.js"))
      return yield* McpServer.runStdio({ version }).pipe(
        Effect.provide(services),
        // The store could not be opened (unreachable, a missing package): say so and exit 1.
        Effect.catchAll((error) =>
          Console.error(`effect-read: ${error.message}`).pipe(
            Effect.zipRight(Effect.sync(() => {
              process.exitCode = ExitCode.toolFailure
            }))
          )
        )
      )
    })
).pipe(Command.withDescription("Serve the read tool over MCP on stdin/stdout (logs go to stderr)."))

const many = Command.make(
  "many",
  {
    filePaths: Args.text({ name: "filePath" }).pipe(Args.withDescription("Files or directories to read"), Args.repeated),
    glob: Options.text("glob").pipe(
      Options.withDescription("Also read the files matching this glob (relative to --cwd; .gitignore honoured)"),
      Options.optional
    ),
    json: Options.boolean("json").pipe(Options.withDescription("Print the ReadManyResult or {\"error\": …} as JSON")),
    cwd: cwdOption,
    allowExternal: allowExternalOption
  },
  (args) =>
    Effect.gen(function*() {
      const parent = yield* command
      const checkedRoot = yield* projectRoot(Option.orElse(args.cwd, () => parent.cwd))
      if (Option.isNone(checkedRoot)) return
      const root = checkedRoot.value
      const services = sessionLayer(root, {
        allowExternal: args.allowExternal || parent.allowExternal,
        interactive: Boolean(process.stdin.isTTY && process.stderr.isTTY)
      })
      const params = {
        files: args.filePaths.map((filePath) => ({ filePath })),
        ...Option.match(args.glob, { onNone: () => ({}), onSome: (glob) => ({ glob }) })
      }
      const exit = yield* ReadMany.readMany(params).pipe(Effect.either, Effect.provide(services))
      if (exit._tag === "Right") {
        yield* Console.log(
          args.json ? JSON.stringify(Schema.encodeSync(ReadMany.ReadManyResult)(exit.right)) : exit.right.output
        )
        // Some files could not be read: the others are shown, and the exit code says so.
        if (exit.right.files.some((file) => file.error !== undefined)) process.exitCode = ExitCode.toolFailure
        return
      }
      if (args.json) yield* Console.log(JSON.stringify(errorJson(exit.left)))
      else yield* Console.error(exit.left.message)
      process.exitCode = ExitCode.usage
    })
).pipe(
  Command.withDescription(
    "Read several files in one call (read_many): each in the usual format, in order, sharing one 50 KB output budget."
  )
)

const root = command.pipe(Command.withSubcommands([mcp, many]))

const cli = Command.run(root, { name: "effect-read", version })

/** Run the CLI on `argv` (as `process.argv`); sets `process.exitCode`. */
export const run = (argv: ReadonlyArray<string>) =>
  cli(argv).pipe(
    Effect.catchIf(ValidationError.isValidationError, () =>
      Effect.sync(() => {
        process.exitCode = ExitCode.usage
      }))
  )
