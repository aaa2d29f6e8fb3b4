/**
 * The commands' work, given their parsed arguments: a read, `mcp` and `many`. No parser here:
 * `Cli.ts` runs these with what `@effect/cli` parsed, and the bin runs the common calls with what
 * `cliArgs.quickParse` parsed, so a plain read or an MCP server never loads `@effect/cli`
 * (start-up). The helpers every door shares (permissions, prompts, the session's layer) are here
 * too; `Cli.ts` re-exports the public ones.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Console from "effect/Console"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Record from "effect/Record"
import * as Schema from "effect/Schema"
import * as nodePath from "node:path"
import * as readline from "node:readline"
import { isatty } from "node:tty"
import * as FileTime from "../../FileTime.js"
import * as Limits from "../../Limits.js"
import * as Lsp from "../../Lsp.js"
import * as ModelInput from "../../ModelInput.js"
import * as Permission from "../../Permission.js"
import * as Progress from "../../Progress.js"
import * as Read from "../../Read.js"
import { describePermission, type ReadError } from "../../ReadError.js"
import * as Secrets from "../../Secrets.js"
import * as SessionMemory from "../../SessionMemory.js"
import * as Workspace from "../../Workspace.js"
import * as CliArgs from "./cliArgs.js"
import { type Format, type ManyArgs, type McpArgs, paramsOf, type PermissionArgs, type ReadArgs } from "./flags.js"

export type { Format, ManyArgs, McpArgs, PermissionArgs, ReadArgs } from "./flags.js"
import * as EarlyInitialize from "../mcp/earlyInitialize.js"
import { runIncomplete } from "./codeCache.js"
import { flagOf, limitFlags, settingsOf } from "./limitFlags.js"
import { version } from "./packageJson.js"

/** The package version, from `package.json`. */
export { version }

/** Exit codes of the CLI. */
export const ExitCode = { ok: 0, toolFailure: 1, usage: 2 } as const

/** Ask on the terminal (stderr for the question, so stdout stays the tool's output). */
export const terminalAsker: Permission.Asker = (request) =>
  Effect.async<Permission.Answer>((resume) => {
    // Erase a progress status line, if one is drawn, before asking on its line.
    process.stderr.write("\r\x1b[K")
    const rl = readline.createInterface({ input: process.stdin, output: process.stderr })
    rl.question(
      `effect-read: allow ${describePermission(request.permission, request.patterns)} (${
        Permission.whyAsked(request)
      })? [y]es / [a]lways / [N]o `,
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
  const rule = request.metadata["rule"]
  return `To allow it, the user can ${how} ${
    allowFlags(request.permission, request.patterns, rule === "*.env" || rule === "*.env.*")
  }.`
}

/** The flags that allow a permission: `--allow-external`, or `--allow 'PATTERN'` (for an env file, or `--mask-secrets`). */
const allowFlags = (permission: string, patterns: ReadonlyArray<string>, envFile: boolean): string => {
  if (permission === "external_directory") return "--allow-external"
  const masked = envFile ? " (or --mask-secrets, which shows env files with their values masked)" : ""
  return `--allow '${patterns[0] ?? "*"}'${masked}, or with a rule in a --rules file`
}

/**
 * A failed read as the CLI tells it to a person at a terminal: a refused permission says why and
 * which flag allows it (the model's wording, `error.message`, is for an agent reading the output).
 */
export const forPerson = (error: ReadError): string => {
  if (error._tag !== "PermissionDenied") return error.message
  const what = describePermission(error.permission, error.patterns)
  const why = error.reason === "rule"
    ? "the permission rules deny it"
    : error.reason === "rejected"
    ? "you said no"
    : error.reason === "unavailable"
    ? `it needs your approval, and ${error.detail ?? "nobody could be asked"}`
    : `it needs your approval, and nobody answered${error.detail === undefined ? "" : ` ${error.detail}`}`
  const envFile = error.patterns.some((pattern) => /(^|\/)[^/]*\.env(\.[^/]*)?$/.test(pattern))
  const allow = error.permission.startsWith("webfetch")
    ? ""
    : ` To allow it, run effect-read with ${allowFlags(error.permission, error.patterns, envFile)}.`
  return `effect-read: ${what} was refused: ${why}.${allow}`
}

/**
 * A person at a terminal can be asked: stdin and stderr are terminals. Asked of the descriptors,
 * not of `process.stdin`, whose first use makes its stream (a read that asks nobody never needs it).
 */
const isInteractive = (): boolean => isatty(0) && isatty(2)

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

/**
 * `self` with the real language-server layer as its `Lsp` (`LanguageServer`, loaded here: a plain
 * read never loads it), its servers stopped when `self` ends. A command line read starts the
 * server cold, so it waits up to 60 seconds for the file's diagnostics.
 */
const withLanguageServer = <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.flatMap(Effect.promise(() => import("../../LanguageServer.js")), (LanguageServer) =>
    self.pipe(
      Effect.provide(LanguageServer.layer()),
      Effect.provideService(Read.DiagnosticsOnRead, { ...Read.DiagnosticsOnRead.defaultValue(), wait: "60 seconds" })
    ))

/**
 * One session's services for the CLI and the MCP server: the worktree is `root`; `ledger`, the
 * read ledger (in this process unless given).
 */
export const sessionLayer = (
  root: string,
  options: PermissionOptions,
  ledger: Layer.Layer<FileTime.FileTime, never, FileSystem.FileSystem> = FileTime.layerMemory
) =>
  Layer.mergeAll(
    Workspace.layer({ directory: root, worktree: root, sessionId: "cli" }),
    permissionLayer(options),
    Lsp.layerNoop,
    ledger
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
        sessionMemory ? SessionMemory.layerSession() : SessionMemory.layerNoop
      ))
    }
    const Store = yield* Effect.promise(() => import("./storeOption.js"))
    return Either.map(
      Store.parseStore(store, process.cwd()),
      (spec) => Store.layer(spec, { sessionMemory: sessionMemory ? {} : false })
    )
  })

/** `{"error": {_tag, message, …fields}}`: the error's own fields are its schema fields. */
const errorJson = (error: ReadError) => ({ error: { ...error, _tag: error._tag, message: error.message } })

/** A usage error found after parsing (conflicting flags): message on stderr, exit 2. */
export const usageError = (message: string) =>
  Console.error(`effect-read: ${message}`).pipe(
    Effect.zipRight(Effect.sync(() => {
      process.exitCode = ExitCode.usage
    }))
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

/** A subcommand's permission flags with the parent's (`effect-read --allow x mcp` works too). */
const mergePermissions = (own: PermissionArgs, parent: PermissionArgs): PermissionArgs => ({
  ...Record.map(limitFlags, (_, name) => Option.orElse(own[name], () => parent[name])),
  allowExternal: own.allowExternal || parent.allowExternal,
  textOnly: own.textOnly || parent.textOnly,
  nextHeader: own.nextHeader || parent.nextHeader,
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
  Effect.try({ try: () => JSON.parse(text) as unknown, catch: (error) => `is not JSON (${(error as Error).message})` })
    .pipe(
      Effect.flatMap(Permission.decodeRules),
      Effect.mapError((reason) => `--rules ${path}: ${reason}`)
    )

/**
 * The limits the flags set (`--max-lines`, …, and `extra`), or a usage error naming the flag that
 * no read could honour (`--max-lines 0`): checked at start-up, never clamped.
 */
const limitsFor = (args: PermissionArgs, extra: Limits.Settings = {}): Effect.Effect<Layer.Layer<never>, string> => {
  const settings: Limits.Settings = {
    ...settingsOf(Record.map(limitFlags, (_, name) => Option.getOrUndefined(args[name]))),
    ...extra
  }
  const invalid = Limits.check(settings)
  return invalid === undefined
    ? Effect.succeed(Layer.orDie(Limits.layer(settings)))
    : Effect.fail(`${flagOf(invalid.setting) ?? invalid.setting} ${invalid.value}: must be ${invalid.expected}`)
}

/** The session's services for `args`, or a usage error (a bad rules file, a cap no read could honour). */
const servicesFor = (root: string, args: PermissionArgs, interactive: boolean) =>
  Effect.zipWith(userRules(args), limitsFor(args), (rules, limits) =>
    Layer.mergeAll(
      // A command line read has no edit after it to guard: its ledger records nothing (no stat,
      // no hash of what was read; start-up).
      sessionLayer(
        root,
        { allowExternal: args.allowExternal, interactive, maskSecrets: args.maskSecrets, rules },
        FileTime.layerNoop
      ),
      args.maskSecrets ? Secrets.layerMask : Layer.empty,
      args.textOnly ? ModelInput.layerTextOnly : Layer.empty,
      args.nextHeader ? Layer.succeed(Limits.Notices, { header: true }) : Layer.empty,
      limits
    ))

/**
 * How to read `name` (a subcommand's name) as a path, when it is one in `directory`; else "".
 */
export const samePath = (name: CliArgs.Subcommand, directory: string) =>
  Effect.flatMap(FileSystem.FileSystem, (fs) => fs.stat(nodePath.join(directory, name))).pipe(
    Effect.map((info) =>
      CliArgs.samePathHint(
        name,
        info.type === "Directory" ? "a directory" : info.type === "File" ? "a file" : "a path",
        directory
      )
    ),
    Effect.orElseSucceed(() => "")
  )

/** Read one file or directory and print it (text, JSON or the envelope); sets `process.exitCode`. */
export const readCommand = (args: ReadArgs) =>
  Effect.gen(function*() {
    if (Option.isNone(args.filePath)) {
      return yield* usageError("missing <filePath> (or a command: mcp, many); see --help")
    }
    if (args.json && Option.isSome(args.format) && args.format.value !== "json") {
      return yield* usageError(`--json conflicts with --format ${args.format.value}`)
    }
    const format: Format = Option.getOrElse(args.format, () => args.json ? "json" : "text")
    if (args.filesOnly && format !== "envelope") return yield* usageError("--files-only needs --format envelope")

    const checkedRoot = yield* projectRoot(args.cwd)
    if (Option.isNone(checkedRoot)) return
    const root = checkedRoot.value
    const params: Read.ReadParams = { filePath: args.filePath.value, ...paramsOf(args) }
    const interactive = isInteractive()
    const built = yield* Effect.either(servicesFor(root, args, interactive))
    if (built._tag === "Left") return yield* usageError(built.left)
    const services = built.right
    // A status line on stderr for a read that takes a while, only when a person watches it.
    const status = isatty(2) ? Progress.terminal(process.stderr) : undefined
    const [duration, exit] = yield* Read.read(params).pipe(
      // Diagnostics come from a real language server, started for this read (and stopped after it).
      params.diagnostics === undefined ? (self) => self : withLanguageServer,
      Effect.either,
      Effect.timed,
      Effect.provide(services),
      Effect.provideService(Permission.Prompt, cliPrompt(interactive)),
      Effect.provideService(Progress.Progress, status?.progress ?? Progress.noop),
      Effect.ensuring(Effect.sync(() => status?.clear()))
    )
    const failureCode = (error: ReadError) => error._tag === "InvalidParams" ? ExitCode.usage : ExitCode.toolFailure

    if (format === "envelope") {
      // Loaded here: the envelope's JSON Schema support is not what a plain read needs at start-up.
      const Envelope = yield* Effect.promise(() => import("../../Envelope.js"))
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
    else yield* Console.error(process.stderr.isTTY ? forPerson(error) : error.message)
    process.exitCode = failureCode(error)
  })

/** Serve the read tool over MCP on stdin/stdout; `parent`: the options given before `mcp`. */
export const mcpCommand = (args: McpArgs, parent: ReadArgs) =>
  Effect.gen(function*() {
    // `effect-read --cwd DIR mcp` works too: the subcommand's own flags win.
    const checkedRoot = yield* projectRoot(Option.orElse(args.cwd, () => parent.cwd))
    if (Option.isNone(checkedRoot)) return
    const root = checkedRoot.value
    if (Option.isSome(args.askTimeout) && !(args.askTimeout.value > 0)) {
      return yield* usageError("--ask-timeout must be a positive number of seconds")
    }
    const permissions = mergePermissions(args, parent)
    const rules = yield* Effect.either(userRules(permissions))
    if (Either.isLeft(rules)) return yield* usageError(rules.left)
    const limits = yield* Effect.either(
      limitsFor(permissions, args.shortDescription ? { description: { form: "short" } } : {})
    )
    if (Either.isLeft(limits)) return yield* usageError(limits.left)
    // A person at a terminal who typed `effect-read mcp` may have meant the file of that name.
    if (process.stdin.isTTY) {
      const also = yield* samePath("mcp", root)
      if (also !== "") yield* Console.error(`effect-read: serving MCP on stdin and stdout. ${also}`)
    }
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
      args.languageServer
        ? (yield* Effect.promise(() => import("../../LanguageServer.js"))).layer().pipe(
          Layer.provide(Workspace.layer({ directory: root, worktree: root, sessionId: "cli" }))
        )
        : Lsp.layerNoop,
      // A server's first diagnostics wait for it to start and load the project: up to 30 seconds.
      args.languageServer
        ? Layer.succeed(Read.DiagnosticsOnRead, { ...Read.DiagnosticsOnRead.defaultValue(), wait: "30 seconds" })
        : Layer.empty,
      state.right,
      permissions.maskSecrets ? Secrets.layerMask : Layer.empty,
      permissions.textOnly ? ModelInput.layerTextOnly : Layer.empty,
      permissions.nextHeader ? Layer.succeed(Limits.Notices, { header: true }) : Layer.empty,
      limits.right
    )
    // The command line is good: a first `initialize` can be answered while the server loads,
    // unless opening a store might still fail (its error must not follow a successful answer).
    // The bin may have listened already (a command line whose checks cannot fail).
    const early = (globalThis as Record<symbol, EarlyInitialize.Listener | undefined>)[EarlyInitialize.listenerKey] ??
      (process.stdin.isTTY || Option.isSome(args.store)
        ? undefined
        : EarlyInitialize.listen({ serverInfo: { name: "effect-read", version } }))
    if (early !== undefined) yield* Effect.promise(() => early.settled)
    // Loaded here, not at the top: a plain read never pays for the MCP SDK (start-up, memory).
    const McpServer = yield* Effect.promise(() => import("../mcp/server.js"))
    return yield* McpServer.runStdioWith({
      name: "effect-read",
      version,
      ...Option.match(args.askTimeout, {
        onNone: () => ({}),
        onSome: (seconds) => ({ askTimeout: Duration.millis(Math.round(seconds * 1000)) })
      }),
      permissionHint: allowHint("mcp")
    }, () => ({
      early: early?.takeOver(),
      onAnswered: (method) => {
        // The code cache of a run that answered a read holds what a session runs (codeCache.ts).
        if (method === "tools/call") (globalThis as Record<symbol, unknown>)[runIncomplete] = false
      }
    })).pipe(
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

/** Read several files in one call (`read_many`); `parent`: the options given before `many`. */
export const manyCommand = (args: ManyArgs, parent: ReadArgs) =>
  Effect.gen(function*() {
    const checkedRoot = yield* projectRoot(Option.orElse(args.cwd, () => parent.cwd))
    if (Option.isNone(checkedRoot)) return
    const root = checkedRoot.value
    const interactive = isInteractive()
    if (args.filePaths.length === 0 && Option.isNone(args.glob)) {
      const also = yield* samePath("many", root)
      return yield* usageError(
        `many: name at least one file, or give --glob.${also === "" ? "" : `\neffect-read: ${also}`}`
      )
    }
    const built = yield* Effect.either(servicesFor(root, mergePermissions(args, parent), interactive))
    if (built._tag === "Left") return yield* usageError(built.left)
    const params = {
      files: args.filePaths.map((filePath) => ({ filePath })),
      ...Option.match(args.glob, { onNone: () => ({}), onSome: (glob) => ({ glob }) })
    }
    const ReadMany = yield* Effect.promise(() => import("../../ReadMany.js"))
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
