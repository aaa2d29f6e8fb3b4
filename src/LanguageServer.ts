/**
 * A real `Lsp` layer: language servers over stdio, spoken to with JSON-RPC through
 * `vscode-languageserver-protocol` (the client library VS Code itself uses).
 *
 * - One server per configured language family, started lazily on the first touch of a file it
 *   handles, `initialize`d with the worktree as root and workspace folder.
 * - `touchFile` sends `didOpen` (first touch) or a full-text `didChange` (later touches).
 * - Diagnostics the servers publish are kept per file and read through the `LanguageServer`
 *   service (`diagnostics`, `changes`, `awaitDiagnostics`).
 * - When the layer's scope closes: `shutdown`, `exit`, and a kill if the server lingers.
 *
 * `touchFile` only enqueues: each server has a worker fiber owned by the layer's scope that does
 * the starting, reading and writing, every step under a timeout. A server that is missing,
 * crashes or hangs is logged and marked `Failed`/`Exited`; it never fails or slows a read.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as HashMap from "effect/HashMap"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync } from "node:fs"
import * as nodePath from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import {
  ApplyWorkspaceEditRequest,
  ConfigurationRequest,
  createProtocolConnection,
  type Diagnostic as LspDiagnostic,
  DidChangeTextDocumentNotification,
  DidOpenTextDocumentNotification,
  ExitNotification,
  InitializedNotification,
  InitializeRequest,
  LogMessageNotification,
  type ProtocolConnection,
  PublishDiagnosticsNotification,
  type PublishDiagnosticsParams,
  RegistrationRequest,
  ShowMessageRequest,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  UnregistrationRequest,
  WorkDoneProgressCreateRequest,
  WorkspaceFoldersRequest
} from "vscode-languageserver-protocol/node"
import { type DiagnosticsOutcome, Lsp } from "./Lsp.js"
import { Workspace } from "./Workspace.js"

// ---------------------------------------------------------------------------------------------
// Configuration
// ---------------------------------------------------------------------------------------------

/** How to run one language server, and which files it handles. */
export interface ServerConfig {
  /** A name for logs and `servers` (e.g. `"typescript"`). */
  readonly id: string
  /**
   * The executable. A bare name is looked up in `node_modules/.bin` of the root directory and
   * its ancestors, then of the current directory and its ancestors, then on `PATH`.
   */
  readonly command: string
  readonly args?: ReadonlyArray<string> | undefined
  /** File extension (with the dot, lower case) → LSP `languageId`. */
  readonly extensions: Readonly<Record<string, string>>
  /** Extra environment variables for the server process. */
  readonly env?: Readonly<Record<string, string>> | undefined
  /** Sent as `initializationOptions` in `initialize`. */
  readonly initializationOptions?: unknown
}

/** `typescript-language-server --stdio` for TypeScript and JavaScript. */
export const typescript: ServerConfig = {
  id: "typescript",
  command: "typescript-language-server",
  args: ["--stdio"],
  extensions: {
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "typescriptreact",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascriptreact"
  }
}

export const defaultServers: ReadonlyArray<ServerConfig> = [typescript]

export interface Options {
  /** The servers, first match by extension wins. Default: `defaultServers`. */
  readonly servers?: ReadonlyArray<ServerConfig> | undefined
  /** The project root sent to the servers. Default: `Workspace.worktree`. */
  readonly rootDir?: string | undefined
  /** Longest wait for a server to start and answer `initialize`. Default 30 seconds. */
  readonly startupTimeout?: Duration.DurationInput | undefined
  /** Longest wait for one message (`didOpen`/`didChange`) to be written. Default 5 seconds. */
  readonly requestTimeout?: Duration.DurationInput | undefined
  /** Longest wait for `shutdown`, and then for the process to exit, before it is killed. Default 3 seconds. */
  readonly shutdownTimeout?: Duration.DurationInput | undefined
  /**
   * Files larger than this are not sent (full-text sync of a huge file costs the server far more
   * than the warm-up is worth). Default 4 MiB.
   */
  readonly maxFileBytes?: number | undefined
}

// ---------------------------------------------------------------------------------------------
// The service
// ---------------------------------------------------------------------------------------------

/** A diagnostic as published by a server, positions 1-based (as `read` numbers lines). */
export const Diagnostic = Schema.Struct({
  /** The absolute path of the file. */
  path: Schema.String,
  severity: Schema.Literal("error", "warning", "information", "hint"),
  message: Schema.String,
  /** 1-based line and column (columns count UTF-16 code units, as LSP does) of the range start. */
  line: Schema.Number,
  column: Schema.Number,
  endLine: Schema.Number,
  endColumn: Schema.Number,
  /** Who produced it, e.g. `"typescript"`. */
  source: Schema.optional(Schema.String),
  /** The server's code for it, e.g. `2322`. */
  code: Schema.optional(Schema.Union(Schema.String, Schema.Number))
}).annotations({ identifier: "Diagnostic" })
export type Diagnostic = typeof Diagnostic.Type

/** Where each configured server is in its life. */
export type ServerState = Data.TaggedEnum<{
  /** Not started: nothing it handles was touched yet. */
  Idle: {}
  Starting: {}
  Running: { readonly pid: number }
  /** It could not be started or did not answer `initialize` in time; it is not retried. */
  Failed: { readonly reason: string }
  /** It exited on its own (a crash); it is not restarted. */
  Exited: { readonly code: number | null; readonly signal: string | null }
  /** Shut down with the layer. */
  Stopped: {}
}>
export const ServerState = Data.taggedEnum<ServerState>()

export interface LanguageServerShape {
  /** The diagnostics last published for `path` (absolute, or relative to the root); `[]` if none. */
  readonly diagnostics: (path: string) => Effect.Effect<ReadonlyArray<Diagnostic>>
  /** The current diagnostics for `path`, then every new set a server publishes for it. */
  readonly changes: (path: string) => Stream.Stream<ReadonlyArray<Diagnostic>>
  /** The state of every configured server, by id. */
  readonly servers: Effect.Effect<Readonly<Record<string, ServerState>>>
}

/** Diagnostics and server states behind the real `Lsp` layer. */
export class LanguageServer extends Context.Tag("effect-read/LanguageServer")<LanguageServer, LanguageServerShape>() {}

/** The diagnostics last published for `path`. */
export const diagnostics = (path: string): Effect.Effect<ReadonlyArray<Diagnostic>, never, LanguageServer> =>
  Effect.flatMap(LanguageServer, (service) => service.diagnostics(path))

/**
 * Wait (bounded) for the diagnostics of `path` to satisfy `until` (default: at least one
 * diagnostic), and return them; when `timeout` (default 10 seconds) passes first, return the
 * latest set instead. Never fails: servers publish when they please, possibly never.
 */
export const awaitDiagnostics = (
  path: string,
  options: {
    readonly until?: ((diagnostics: ReadonlyArray<Diagnostic>) => boolean) | undefined
    readonly timeout?: Duration.DurationInput | undefined
  } = {}
): Effect.Effect<ReadonlyArray<Diagnostic>, never, LanguageServer> =>
  Effect.gen(function*() {
    const service = yield* LanguageServer
    const until = options.until ?? ((diagnostics) => diagnostics.length > 0)
    const found = yield* service.changes(path).pipe(
      Stream.filter(until),
      Stream.runHead,
      Effect.timeoutTo({ duration: options.timeout ?? "10 seconds", onTimeout: Option.none, onSuccess: (a) => a })
    )
    return Option.isSome(found) ? found.value : yield* service.diagnostics(path)
  }).pipe(Effect.withSpan("LanguageServer.awaitDiagnostics", { attributes: { path } }))

// ---------------------------------------------------------------------------------------------
// Implementation
// ---------------------------------------------------------------------------------------------

class ServerError extends Data.TaggedError("LanguageServerError")<{
  readonly server: string
  readonly reason: string
}> {
  override get message(): string {
    return `${this.server}: ${this.reason}`
  }
}

/** A bare command from the nearest `node_modules/.bin` (root, then cwd, upwards), else as given (PATH). */
export const resolveCommand = (command: string, rootDir: string): string => {
  if (command.includes("/") || command.includes("\\")) return nodePath.resolve(rootDir, command)
  // The project's, the caller's, then effect-read's own (a server installed beside it).
  for (const start of [rootDir, process.cwd(), fileURLToPath(new URL(".", import.meta.url))]) {
    for (let dir = nodePath.resolve(start);; dir = nodePath.dirname(dir)) {
      const candidate = nodePath.join(dir, "node_modules", ".bin", command)
      if (existsSync(candidate)) return candidate
      if (nodePath.dirname(dir) === dir) break
    }
  }
  return command
}

const severities = ["error", "error", "warning", "information", "hint"] as const

const toDiagnostic = (path: string, d: LspDiagnostic): Diagnostic => {
  const base = {
    path,
    // LSP leaves a missing severity to the client: treat it as an error.
    severity: severities[d.severity ?? 1] ?? "error",
    message: typeof d.message === "string" ? d.message : d.message.value,
    line: d.range.start.line + 1,
    column: d.range.start.character + 1,
    endLine: d.range.end.line + 1,
    endColumn: d.range.end.character + 1
  }
  return {
    ...base,
    ...(d.source !== undefined ? { source: d.source } : {}),
    ...(d.code !== undefined ? { code: d.code } : {})
  }
}

/**
 * Run a finalizer's timed steps in a fresh, interruptible fiber and wait for it. Finalizers run
 * uninterruptibly (and, in a fiber being interrupted, an `Effect.interruptible` region would stop
 * at once); there an `Effect.timeout` would wait for the very step it is meant to cut short.
 */
const bounded = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(Effect.forkDaemon(Effect.interruptible(effect)), Fiber.join)

interface ExitStatus {
  readonly code: number | null
  readonly signal: string | null
}

/** The last few KB a server wrote to stderr: the best clue when it fails. */
const stderrTail = (child: ChildProcess): () => string => {
  let tail = ""
  child.stderr?.setEncoding("utf8")
  child.stderr?.on("data", (chunk: string) => {
    tail = (tail + chunk).slice(-2048)
  })
  return () => tail.trim()
}

/**
 * The service, with its workers forked into the current scope. Requires `Workspace` for the
 * default root and `FileSystem` to read what it sends (the same filesystem `read` used).
 */
export const make = (
  options: Options = {}
): Effect.Effect<
  Context.Context<Lsp | LanguageServer>,
  never,
  Workspace | FileSystem.FileSystem | Scope.Scope
> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const rootDir = nodePath.resolve(options.rootDir ?? (yield* Workspace).worktree)
    const rootUri = pathToFileURL(rootDir).href
    const servers = options.servers ?? defaultServers
    const startupTimeout = options.startupTimeout ?? "30 seconds"
    const requestTimeout = options.requestTimeout ?? "5 seconds"
    const shutdownTimeout = options.shutdownTimeout ?? "3 seconds"
    const maxFileBytes = options.maxFileBytes ?? 4 * 1024 * 1024

    const store = yield* SubscriptionRef.make(HashMap.empty<string, ReadonlyArray<Diagnostic>>())
    // Which text each publish is for: touches asked for per file, the touches the last text sent
    // covers (a sync reads the file after them), and the touches the last publish covers.
    const requested = new Map<string, number>()
    const sent = new Map<string, number>()
    const published = yield* SubscriptionRef.make(HashMap.empty<string, number>())
    const states = yield* Ref.make<Record<string, ServerState>>(
      Object.fromEntries(servers.map((server) => [server.id, ServerState.Idle()]))
    )
    const setState = (id: string, state: ServerState) => Ref.update(states, (all) => ({ ...all, [id]: state }))

    const byExtension = new Map<string, { readonly config: ServerConfig; readonly languageId: string }>()
    for (const config of servers) {
      for (const [extension, languageId] of Object.entries(config.extensions)) {
        if (!byExtension.has(extension.toLowerCase())) byExtension.set(extension.toLowerCase(), { config, languageId })
      }
    }
    const serverOf = (path: string) => byExtension.get(nodePath.extname(path).toLowerCase())
    const languageOf = (path: string) => serverOf(path)?.languageId

    /** Spawn the process: fails (with the OS reason) when the command cannot be started. */
    const spawnServer = (config: ServerConfig, exited: Deferred.Deferred<ExitStatus>) =>
      Effect.async<{ readonly child: ChildProcess; readonly stderr: () => string }, ServerError>((resume) => {
        const command = resolveCommand(config.command, rootDir)
        const child = spawn(command, [...(config.args ?? [])], {
          cwd: rootDir,
          env: { ...process.env, ...config.env },
          stdio: ["pipe", "pipe", "pipe"]
        })
        // Late errors (EPIPE on a dead server's stdin, a failed kill) must never become an
        // unhandled 'error' event: that would crash the host process.
        child.on("error", () => {})
        child.stdin?.on("error", () => {})
        child.stdout?.on("error", () => {})
        child.stderr?.on("error", () => {})
        child.once("error", (error) =>
          resume(
            Effect.fail(new ServerError({ server: config.id, reason: `cannot start ${command}: ${error.message}` }))
          ))
        // Listen from the first tick: a server that dies at once must still be noticed and heard.
        const stderr = stderrTail(child)
        child.once("exit", (code, signal) => Deferred.unsafeDone(exited, Exit.succeed({ code, signal })))
        child.once("spawn", () => resume(Effect.succeed({ child, stderr })))
        return Effect.sync(() => child.kill("SIGKILL"))
      })

    /**
     * Start, connect and initialize one server; everything it acquires lives in the caller's
     * scope and is released in reverse: `shutdown`/`exit`, dispose the connection, end the process.
     */
    const start = Effect.fn("LanguageServer.start")(function*(config: ServerConfig) {
      yield* Effect.annotateCurrentSpan({ server: config.id, command: config.command })
      const exited = yield* Deferred.make<ExitStatus>()
      // `stopping`: we are shutting it down, so its exit is not a crash; `exitRequested`: it was
      // sent `exit`, so it may be given a moment to leave on its own.
      let stopping = false
      let exitRequested = false

      const { child, stderr } = yield* Effect.acquireRelease(spawnServer(config, exited), ({ child }) =>
        Effect.gen(function*() {
          child.stdin?.end()
          // After `exit` a well-behaved server leaves on its own; otherwise do not wait for it.
          if (exitRequested) {
            yield* Deferred.await(exited).pipe(Effect.timeoutOption(shutdownTimeout))
          }
          if (!(yield* Deferred.isDone(exited))) {
            child.kill("SIGKILL")
            yield* Deferred.await(exited).pipe(Effect.timeoutOption("2 seconds"))
          }
        }).pipe(bounded))

      const publishes = yield* Queue.unbounded<PublishDiagnosticsParams>()
      const messages = yield* Queue.sliding<string>(256)
      const connection: ProtocolConnection = yield* Effect.acquireRelease(
        Effect.sync(() => {
          const connection = createProtocolConnection(
            new StreamMessageReader(child.stdout!),
            new StreamMessageWriter(child.stdin!)
          )
          connection.onNotification(PublishDiagnosticsNotification.type, (params) => {
            publishes.unsafeOffer(params)
          })
          // Requests from the server: answer as a minimal client does ("no settings", "not
          // applied", "ok"), so no server waits on us.
          connection.onRequest(ConfigurationRequest.type, (params) =>
            params.items.map(() =>
              null
            ))
          connection.onRequest(WorkspaceFoldersRequest.type, () => [{ uri: rootUri, name: nodePath.basename(rootDir) }])
          connection.onRequest(WorkDoneProgressCreateRequest.type, () => undefined)
          connection.onRequest(RegistrationRequest.type, () => undefined)
          connection.onRequest(UnregistrationRequest.type, () => undefined)
          connection.onRequest(ShowMessageRequest.type, () => null)
          connection.onRequest(ApplyWorkspaceEditRequest.type, () => ({ applied: false }))
          // The server's own log lines, kept for our debug logs.
          connection.onNotification(LogMessageNotification.type, (params) => {
            messages.unsafeOffer(params.message)
          })
          connection.listen()
          return connection
        }),
        (connection) => Effect.sync(() => connection.dispose())
      )
      // One consumer keeps the publishes in the order the server sent them.
      yield* Queue.take(publishes).pipe(
        Effect.flatMap((params) => {
          const path = params.uri.startsWith("file:") ? fileURLToPath(params.uri) : params.uri
          const list = params.diagnostics.map((d) => toDiagnostic(path, d))
          return SubscriptionRef.update(store, HashMap.set<string, ReadonlyArray<Diagnostic>>(path, list)).pipe(
            Effect.zipRight(SubscriptionRef.update(published, HashMap.set(path, sent.get(path) ?? 0)))
          )
        }),
        Effect.forever,
        Effect.forkScoped
      )
      yield* Queue.take(messages).pipe(
        Effect.flatMap((message) => Effect.logDebug(message).pipe(Effect.annotateLogs({ server: config.id }))),
        Effect.forever,
        Effect.forkScoped
      )
      // A crash: note it, so the worker stops feeding a dead server.
      yield* Deferred.await(exited).pipe(
        Effect.flatMap(({ code, signal }) =>
          stopping ? Effect.void : Effect.logWarning("LanguageServer: the server exited").pipe(
            Effect.annotateLogs({ server: config.id, code: String(code), signal: String(signal), stderr: stderr() }),
            Effect.zipRight(setState(config.id, ServerState.Exited({ code, signal })))
          )
        ),
        Effect.forkScoped
      )

      const failure = (what: string) => (cause: unknown) =>
        new ServerError({
          server: config.id,
          reason: `${what}: ${cause instanceof Error ? cause.message : String(cause)}${
            stderr() ? ` (stderr: ${stderr()})` : ""
          }`
        })

      yield* Effect.tryPromise({
        try: () =>
          connection.sendRequest(InitializeRequest.type, {
            processId: process.pid,
            clientInfo: { name: "effect-read" },
            rootUri,
            rootPath: rootDir,
            workspaceFolders: [{ uri: rootUri, name: nodePath.basename(rootDir) }],
            capabilities: {
              textDocument: {
                synchronization: { dynamicRegistration: false, didSave: false },
                publishDiagnostics: { relatedInformation: false, versionSupport: false }
              },
              workspace: { workspaceFolders: true, configuration: true }
            },
            initializationOptions: config.initializationOptions ?? null
          }),
        catch: failure("initialize failed")
      })
      yield* Effect.addFinalizer(() =>
        Effect.gen(function*() {
          stopping = true
          if (yield* Deferred.isDone(exited)) return
          yield* Effect.tryPromise(() => connection.sendRequest(ShutdownRequest.type)).pipe(
            Effect.timeout(shutdownTimeout),
            Effect.catchAllCause((cause) => Effect.logDebug("LanguageServer: no answer to shutdown", cause))
          )
          // Only a server that was actually sent `exit` is given time to leave on its own.
          exitRequested = yield* Effect.tryPromise(() => connection.sendNotification(ExitNotification.type)).pipe(
            Effect.timeout(shutdownTimeout),
            Effect.as(true),
            Effect.orElseSucceed(() => false)
          )
        }).pipe(bounded, Effect.withSpan("LanguageServer.shutdown", { attributes: { server: config.id } }))
      )
      yield* Effect.tryPromise({
        try: () => connection.sendNotification(InitializedNotification.type, {}),
        catch: failure("initialized failed")
      })
      return { child, connection, exited, failure } as const
    })

    /** One server's worker: start on the first touch, then sync each touched file in order. */
    const worker = (config: ServerConfig, touches: Queue.Dequeue<string>) =>
      Effect.gen(function*() {
        const first = yield* Queue.take(touches)
        yield* setState(config.id, ServerState.Starting())
        const started = yield* start(config).pipe(
          Effect.timeoutFail({
            duration: startupTimeout,
            onTimeout: () =>
              new ServerError({
                server: config.id,
                reason: `no answer to initialize within ${Duration.format(Duration.decode(startupTimeout))}`
              })
          }),
          Effect.either
        )
        if (started._tag === "Left") {
          yield* setState(config.id, ServerState.Failed({ reason: started.left.reason }))
          return yield* Effect.logWarning("LanguageServer: server unavailable; touches are ignored").pipe(
            Effect.annotateLogs({ server: config.id, reason: started.left.reason })
          )
        }
        const server = started.right
        yield* setState(config.id, ServerState.Running({ pid: server.child.pid ?? -1 }))
        yield* Effect.addFinalizer(() =>
          Ref.update(
            states,
            (all) => all[config.id]?._tag === "Running" ? { ...all, [config.id]: ServerState.Stopped() } : all
          )
        )

        const versions = new Map<string, number>()
        const sync = Effect.fn("LanguageServer.sync")(function*(path: string) {
          yield* Effect.annotateCurrentSpan({ server: config.id, path })
          if (yield* Deferred.isDone(server.exited)) {
            return
          }
          // This sync reads the file after every touch asked for so far: it answers them all.
          const covers = requested.get(path) ?? 0
          const info = yield* fs.stat(path)
          if (info.type !== "File" || Number(info.size) > maxFileBytes) return
          const text = yield* fs.readFileString(path)
          const uri = pathToFileURL(path).href
          const version = (versions.get(uri) ?? 0) + 1
          versions.set(uri, version)
          const send = version === 1
            ? () =>
              server.connection.sendNotification(DidOpenTextDocumentNotification.type, {
                textDocument: { uri, languageId: languageOf(path) ?? "plaintext", version, text }
              })
            : () =>
              server.connection.sendNotification(DidChangeTextDocumentNotification.type, {
                textDocument: { uri, version },
                contentChanges: [{ text }]
              })
          yield* Effect.tryPromise({ try: send, catch: server.failure(version === 1 ? "didOpen" : "didChange") }).pipe(
            Effect.timeoutFail({
              duration: requestTimeout,
              onTimeout: () => new ServerError({ server: config.id, reason: "the server does not read its input" })
            })
          )
          sent.set(path, covers)
        })
        // A file that cannot be read is skipped; a server that cannot be written to (it stopped
        // reading its input, or the connection broke) is given up on: the worker ends, and its
        // scope shuts the server down and kills it.
        const step = (path: string) =>
          sync(path).pipe(
            Effect.catchIf(
              (error): error is Exclude<typeof error, ServerError> => !(error instanceof ServerError),
              (error) =>
                Effect.logDebug("LanguageServer: could not read a file to sync").pipe(
                  Effect.annotateLogs({ server: config.id, path, error: error.message })
                )
            )
          )
        const serve = Effect.zipRight(step(first), Effect.forever(Effect.flatMap(Queue.take(touches), step)))
        // Serve until the server exits on its own (the exit watcher has marked it Exited).
        const stopped = yield* Effect.raceFirst(
          Effect.either(serve),
          Effect.map(Deferred.await(server.exited), Either.right)
        )
        if (stopped._tag === "Left") {
          yield* setState(config.id, ServerState.Failed({ reason: stopped.left.reason }))
          yield* Effect.logWarning("LanguageServer: server unresponsive; shutting it down").pipe(
            Effect.annotateLogs({ server: config.id, reason: stopped.left.reason })
          )
        }
      }).pipe(
        Effect.scoped,
        Effect.catchAllCause((cause) =>
          Effect.logError("LanguageServer: worker failed", cause).pipe(Effect.annotateLogs({ server: config.id }))
        )
      )

    // A sliding queue per server: touches never wait, and a stuck worker cannot pile up memory
    // (a dropped touch only delays that file's sync to its next touch).
    const queues = new Map<string, Queue.Queue<string>>()
    for (const config of servers) {
      const touches = yield* Queue.sliding<string>(1024)
      queues.set(config.id, touches)
      yield* Effect.forkScoped(worker(config, touches))
    }

    const touchFile = Effect.fn("Lsp.touchFile")(function*(path: string) {
      const absolute = nodePath.resolve(rootDir, path)
      const server = serverOf(absolute)
      yield* Effect.annotateCurrentSpan({ path: absolute, server: server?.config.id ?? "none" })
      if (server === undefined) return
      const state = (yield* Ref.get(states))[server.config.id]
      if (state?._tag === "Failed" || state?._tag === "Exited") return
      requested.set(absolute, (requested.get(absolute) ?? 0) + 1)
      yield* Queue.offer(queues.get(server.config.id)!, absolute)
    })

    /**
     * The file sent as it is now, then the diagnostics published for that text: the first publish
     * after the sync, and any that follow within `settle` (a server may publish syntax, then
     * semantic problems), all within `timeout`.
     */
    const unknown: DiagnosticsOutcome = { _tag: "Unknown" }
    const timedOut: DiagnosticsOutcome = { _tag: "TimedOut" }
    const diagnosticsNow = (
      path: string,
      options: { readonly timeout: Duration.DurationInput; readonly settle?: Duration.DurationInput }
    ): Effect.Effect<DiagnosticsOutcome> =>
      Effect.gen(function*() {
        const absolute = nodePath.resolve(rootDir, path)
        const server = serverOf(absolute)
        if (server === undefined) return unknown
        const unavailable = Effect.map(Ref.get(states), (all): DiagnosticsOutcome => {
          const state = all[server.config.id]
          return {
            _tag: "Unavailable",
            reason: state?._tag === "Failed"
              ? state.reason
              : state?._tag === "Exited"
              ? `${server.config.command} exited (code ${state.code ?? state.signal})`
              : `${server.config.command} was stopped`
          }
        })
        const state = (yield* Ref.get(states))[server.config.id]
        if (state?._tag === "Failed" || state?._tag === "Exited" || state?._tag === "Stopped") return yield* unavailable
        const deadline = (yield* Clock.currentTimeMillis) + Duration.toMillis(Duration.decode(options.timeout))
        yield* touchFile(absolute)
        const target = requested.get(absolute) ?? 0
        const publishedNow = published.changes.pipe(
          Stream.map((all) => Option.getOrElse(HashMap.get(all, absolute), () => 0)),
          Stream.filter((covered) => covered >= target),
          Stream.runHead,
          Effect.as("published" as const)
        )
        // A server that cannot start (not installed) or dies meanwhile answers nothing: no use waiting.
        const down = Ref.get(states).pipe(
          Effect.map((all) => all[server.config.id]?._tag),
          Effect.repeat({
            schedule: Schedule.spaced("100 millis"),
            until: (tag) => tag === "Failed" || tag === "Exited" || tag === "Stopped"
          }),
          Effect.as("down" as const)
        )
        const fresh = yield* Effect.raceFirst(publishedNow, down).pipe(
          Effect.timeoutTo({
            duration: options.timeout,
            onTimeout: () => "late" as const,
            onSuccess: (outcome) => outcome
          })
        )
        if (fresh === "down") return yield* unavailable
        if (fresh === "late") return timedOut
        const settle = Math.min(
          Duration.toMillis(Duration.decode(options.settle ?? "400 millis")),
          deadline - (yield* Clock.currentTimeMillis)
        )
        if (settle > 0) yield* Effect.sleep(Duration.millis(settle))
        const outcome: DiagnosticsOutcome = { _tag: "Published", diagnostics: yield* diagnosticsOf(absolute) }
        return outcome
      }).pipe(Effect.withSpan("Lsp.diagnostics", { attributes: { path } }))

    const diagnosticsOf = (path: string) =>
      Effect.map(SubscriptionRef.get(store), (all) =>
        Option.getOrElse(HashMap.get(all, nodePath.resolve(rootDir, path)), (): ReadonlyArray<Diagnostic> => []))

    const changes = (path: string) => {
      const absolute = nodePath.resolve(rootDir, path)
      return store.changes.pipe(
        Stream.map((all) =>
          Option.getOrElse(HashMap.get(all, absolute), (): ReadonlyArray<Diagnostic> => [])
        ),
        Stream.changes
      )
    }

    return Context.make(Lsp, { touchFile, diagnostics: diagnosticsNow }).pipe(
      Context.add(LanguageServer, {
        diagnostics: diagnosticsOf,
        changes,
        servers: Ref.get(states)
      })
    )
  })

/**
 * The real `Lsp` (plus `LanguageServer` for diagnostics). Servers start on first use and are shut
 * down when the layer's scope closes.
 */
export const layer = (
  options: Options = {}
): Layer.Layer<Lsp | LanguageServer, never, Workspace | FileSystem.FileSystem> => Layer.scopedContext(make(options))
