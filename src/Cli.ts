/**
 * The command line:
 *
 * - `effect-read [--cwd DIR] [--offset N] [--limit N] [--column N] [--encoding NAME] [--view V] [--levels K] [--search RE] [--context syntax|N] [--line-format hashline]
 *   [--format text|json|envelope] [--json] [--files-only] [PERMISSIONS] <filePath>` reads once. stdout carries exactly the tool's
 *   output, or one JSON object (`json`: the `ReadResult` or `{"error": …}`; `envelope`: the standard
 *   envelope). `--json` is short for `--format json`.
 * - `effect-read mcp [--cwd DIR] [--store sqlite:FILE|postgres://…] [--session-memory] [--ask-timeout SECONDS] [PERMISSIONS]`
 *   serves the tool over MCP on stdio; each request's conversation is its `_meta["effect-read/session"]`.
 * - `effect-read many [--cwd DIR] [--glob PATTERN] [--json] [PERMISSIONS] <filePath>...` reads
 *   several files at once (`read_many`); exit 1 when any of them failed (the others are shown).
 *
 * PERMISSIONS: `--allow-external`, `--mask-secrets`, `--rules FILE`, `--allow GLOB`, `--ask GLOB`,
 * `--deny GLOB` (see `doorRules`). Reads start from `Permission.secretRules`: env files ask (on a
 * terminal; over MCP through the client's elicitation), private keys and credential stores are
 * denied.
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
import { describePermission, type ReadError } from "./ReadError.js"
import * as Secrets from "./Secrets.js"
import * as SessionMemory from "./SessionMemory.js"
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
      `effect-read: allow ${describePermission(request.permission, request.patterns)} (${Permission.whyAsked(request)})? [y]es / [a]lways / [N]o `,
      (answer) => {
        rl.close()
        const a = answer.trim().toLowerCase()
        resume(Effect.succeed(a === "y" || a === "yes" ? "once" : a === "a" || a === "always" ? "always" : "reject"))
      }
    )
    return Effect.sync(() => rl.close())
  })

/**
 * How the person running effect-read can allow what was denied for want of someone to ask: the
 * flags of the CLI (`door: "cli"`) or of `effect-read mcp`.
 */
export const allowHint = (door: "cli" | "mcp") => (request: Permission.PermissionRequest): string => {
  const how = door === "cli" ? "run effect-read with" : "start the MCP server (effect-read mcp) with"
  if (request.permission === "external_directory") return `To allow it, the user can ${how} --allow-external.`
  const pattern = request.patterns[0] ?? "*"
  const rule = request.metadata["rule"]
  const masked = rule === "*.env" || rule === "*.env.*"
    ? " (or --mask-secrets, which shows env files with their values masked)"
    : ""
  return `To allow it, the user can ${how} --allow '${pattern}'${masked}, or with a rule in a --rules file.`
}

/** The CLI's prompt: the terminal when there is one, else nobody (denied, saying how to allow it). */
export const cliPrompt = (interactive: boolean): Permission.Asker =>
  interactive ? terminalAsker : Permission.unavailable("there is no terminal to ask on", allowHint("cli"))

export interface PermissionOptions {
  readonly allowExternal: boolean
  /** A person is at a terminal: private web addresses are asked there instead of denied. */
  readonly interactive: boolean
  /** Secret values are masked: env files are read without asking. */
  readonly maskSecrets?: boolean | undefined
  /** The user's rules (`--rules`, `--allow`, `--ask`, `--deny`), after the defaults: they win. */
  readonly rules?: ReadonlyArray<Permission.Rule> | undefined
}

/**
 * The doors' rules: everything inside the worktree and public web pages allowed, then
 * `Permission.secretRules` (env files ask, private keys and credential stores denied), outside the
 * worktree asked (allowed with `--allow-external`), web pages at loopback, private and other
 * non-public addresses asked on a terminal and denied otherwise (the MCP server never fetches
 * them), then the user's rules.
 */
export const doorRules = (options: PermissionOptions): ReadonlyArray<Permission.Rule> => [
  { permission: "*", pattern: "*", action: "allow" },
  ...Permission.secretRules({ maskSecrets: options.maskSecrets }),
  { permission: "external_directory", pattern: "*", action: options.allowExternal ? "allow" : "ask" },
  { permission: "webfetch_private", pattern: "*", action: options.interactive ? "ask" : "deny" },
  ...(options.rules ?? [])
]

/**
 * The CLI's and MCP server's permissions (`doorRules`): an `ask` asks whoever `Permission.Prompt`
 * holds for the request being served — the CLI's terminal, the MCP client — and is denied when
 * nobody can be asked. Approvals are kept per conversation.
 */
export const permissionLayer = (options: PermissionOptions) =>
  Permission.layerRules(doorRules(options), { asker: Permission.askPrompt })

/** One session's services for the CLI and the MCP server: the worktree is `root`. */
export const sessionLayer = (root: string, options: PermissionOptions) =>
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
    const Store = yield* Effect.promise(() => import("./internal/doors/storeOption.js"))
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

/** The permission flags every command takes (after the subcommand or before it). */
const permissionOptions = {
  allowExternal: allowExternalOption,
  maskSecrets: Options.boolean("mask-secrets").pipe(
    Options.withDescription(
      "Show secret values as placeholders (‹secret: GitHub token›); env files are then read without asking"
    )
  ),
  rules: Options.fileText("rules").pipe(
    Options.withDescription("Permission rules (JSON: [{\"permission\", \"pattern\", \"action\"}]) after the defaults"),
    Options.optional
  ),
  allow: Options.text("allow").pipe(
    Options.withDescription("Allow reading paths matching this glob (relative to --cwd), private keys and credentials included"),
    Options.repeated
  ),
  ask: Options.text("ask").pipe(Options.withDescription("Ask before reading paths matching this glob"), Options.repeated),
  deny: Options.text("deny").pipe(Options.withDescription("Never read paths matching this glob"), Options.repeated)
}

type PermissionArgs = {
  readonly allowExternal: boolean
  readonly maskSecrets: boolean
  readonly rules: Option.Option<readonly [path: string, content: string]>
  readonly allow: ReadonlyArray<string>
  readonly ask: ReadonlyArray<string>
  readonly deny: ReadonlyArray<string>
}

/** A subcommand's permission flags with the parent's (`effect-read --allow x mcp` works too). */
const mergePermissions = (own: PermissionArgs, parent: PermissionArgs): PermissionArgs => ({
  allowExternal: own.allowExternal || parent.allowExternal,
  maskSecrets: own.maskSecrets || parent.maskSecrets,
  rules: Option.orElse(own.rules, () => parent.rules),
  allow: [...parent.allow, ...own.allow],
  ask: [...parent.ask, ...own.ask],
  deny: [...parent.deny, ...own.deny]
})

/**
 * The user's rules from the flags: the `--rules` file's, then `--ask`, `--deny` and `--allow`
 * globs (the last wins: an `--allow` overrides a default deny). `--allow` covers the content
 * permissions too; a usage error says what is wrong with the file.
 */
const userRules = (args: PermissionArgs): Effect.Effect<ReadonlyArray<Permission.Rule>, string> =>
  Effect.gen(function*() {
    const fromFile = Option.isNone(args.rules) ? [] : yield* rulesOf(args.rules.value[0], args.rules.value[1])
    const glob = (action: Permission.Action, permissions: ReadonlyArray<string>) => (pattern: string) =>
      permissions.map((permission): Permission.Rule => ({ permission, pattern, action }))
    const contentToo = ["read", Permission.contentPermissions.privateKey, Permission.contentPermissions.secret]
    return [
      ...fromFile,
      ...args.ask.flatMap(glob("ask", ["read"])),
      ...args.deny.flatMap(glob("deny", ["read"])),
      ...args.allow.flatMap(glob("allow", contentToo))
    ]
  })

/** The rules in a rules file's text, or a usage error naming the file. */
const rulesOf = (path: string, text: string): Effect.Effect<ReadonlyArray<Permission.Rule>, string> =>
  Effect.try({ try: () => JSON.parse(text) as unknown, catch: (error) => `is not JSON (${(error as Error).message})` }).pipe(
    Effect.flatMap(Permission.decodeRules),
    Effect.mapError((reason) => `--rules ${path}: ${reason}`)
  )

/** The session's services for `args`, or a usage error (a bad rules file). */
const servicesFor = (root: string, args: PermissionArgs, interactive: boolean) =>
  Effect.map(userRules(args), (rules) =>
    Layer.merge(
      sessionLayer(root, { allowExternal: args.allowExternal, interactive, maskSecrets: args.maskSecrets, rules }),
      args.maskSecrets ? Secrets.layerMask : Layer.empty
    ))

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
    search: Options.text("search").pipe(
      Options.withDescription(
        "Show only the lines matching this regular expression (JavaScript syntax; /re/i or (?i) ignores case), with context; --offset/--limit count matches"
      ),
      Options.optional
    ),
    context: Options.text("context").pipe(
      Options.withDescription(
        "With --search: lines of context around each match (0-50, default 2); otherwise syntax: widen the requested range to the statements or declarations it cuts"
      ),
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
    ...permissionOptions
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
        ...Option.match(args.search, { onNone: () => ({}), onSome: (search) => ({ search }) }),
        ...Option.match(args.context, {
          onNone: () => ({}),
          // A number of lines for a search; the word (syntax) otherwise: the schema says what is wrong.
          onSome: (context) => ({ context: /^\d+$/.test(context) ? Number(context) : context })
        })
      }
      const interactive = Boolean(process.stdin.isTTY && process.stderr.isTTY)
      const built = yield* Effect.either(servicesFor(root, args, interactive))
      if (built._tag === "Left") return yield* usageError(built.left)
      const services = built.right
      // A status line on stderr for a read that takes a while, only when a person watches it.
      const status = process.stderr.isTTY ? Progress.terminal(process.stderr) : undefined
      const [duration, exit] = yield* Read.read(params).pipe(
        Effect.either,
        Effect.timed,
        Effect.provide(services),
        Effect.provideService(Permission.Prompt, cliPrompt(interactive)),
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
    askTimeout: Options.float("ask-timeout").pipe(
      Options.withDescription("Seconds to wait for the person to answer a permission question (default 120)"),
      Options.optional
    ),
    ...permissionOptions,
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
      if (Option.isSome(args.askTimeout) && !(args.askTimeout.value > 0)) {
        return yield* usageError("--ask-timeout must be a positive number of seconds")
      }
      const permissions = mergePermissions(args, parent)
      const rules = yield* Effect.either(userRules(permissions))
      if (Either.isLeft(rules)) return yield* usageError(rules.left)
      const state = yield* mcpState(Option.getOrUndefined(args.store), args.sessionMemory)
      if (Either.isLeft(state)) return yield* usageError(state.left)
      // A question goes to the person through the client (MCP elicitation), per request; a client
      // that cannot ask gets the denial and how to allow it. Web pages at private addresses are
      // never fetched (`interactive: false`).
      const services = Layer.mergeAll(
        Workspace.layer({ directory: root, worktree: root, sessionId: "cli" }),
        permissionLayer({
          allowExternal: permissions.allowExternal,
          interactive: false,
          maskSecrets: permissions.maskSecrets,
          rules: rules.right
        }),
        Lsp.layerNoop,
        state.right,
        permissions.maskSecrets ? Secrets.layerMask : Layer.empty
      )
      // Loaded here, not at the top: a plain read never pays for the MCP SDK (start-up, memory).
      const McpServer = yield* Effect.promise(() => import("./McpServer.js"))
      return yield* McpServer.runStdio({
        version,
        ...Option.match(args.askTimeout, {
          onNone: () => ({}),
          onSome: (seconds) => ({ askTimeout: Duration.millis(Math.round(seconds * 1000)) })
        }),
        permissionHint: allowHint("mcp")
      }).pipe(
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
    ...permissionOptions
  },
  (args) =>
    Effect.gen(function*() {
      const parent = yield* command
      const checkedRoot = yield* projectRoot(Option.orElse(args.cwd, () => parent.cwd))
      if (Option.isNone(checkedRoot)) return
      const root = checkedRoot.value
      const interactive = Boolean(process.stdin.isTTY && process.stderr.isTTY)
      const built = yield* Effect.either(servicesFor(root, mergePermissions(args, parent), interactive))
      if (built._tag === "Left") return yield* usageError(built.left)
      const params = {
        files: args.filePaths.map((filePath) => ({ filePath })),
        ...Option.match(args.glob, { onNone: () => ({}), onSome: (glob) => ({ glob }) })
      }
      const exit = yield* ReadMany.readMany(params).pipe(
        Effect.either,
        Effect.provide(built.right),
        Effect.provideService(Permission.Prompt, cliPrompt(interactive))
      )
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
