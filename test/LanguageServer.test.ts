/**
 * The real `Lsp` layer against the real `typescript-language-server` (a dev dependency), and
 * against servers that are missing, hang or crash: reads never fail or wait on them.
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as nodePath from "node:path"
import * as FileTime from "../src/FileTime.js"
import * as LanguageServer from "../src/LanguageServer.js"
import * as Permission from "../src/Permission.js"
import * as Read from "../src/Read.js"
import * as Workspace from "../src/Workspace.js"
import { tempDir, writeTree } from "./support/index.js"

const roots: Array<string> = []
afterAll(() => {
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true })
})

/** A small TypeScript project whose `bad.ts` has a type error on line 2. */
const project = () => {
  const root = tempDir("effect-read-lsp-")
  roots.push(root)
  writeTree(root, {
    "tsconfig.json": JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: "ES2022" } }),
    "bad.ts": "// a type error below\nexport const answer: number = \"forty-two\"\n",
    "notes.txt": "not a language any server handles\n"
  })
  return root
}

/** Everything `Read.read` needs, with the real language-server layer as its `Lsp`. */
const readLayer = (root: string, options: LanguageServer.Options = {}) =>
  Layer.mergeAll(
    LanguageServer.layer(options),
    Permission.layerAllowAll,
    FileTime.layerMemory
  ).pipe(
    Layer.provideMerge(Layer.mergeAll(
      Workspace.layer({ directory: root, sessionId: "lsp-test" }),
      NodeFileSystem.layer,
      NodePath.layer
    ))
  )

/** Run `effect` every 50 ms until `done` holds (no timing assumed: the test timeout bounds it). */
const pollUntil = <A, E, R>(effect: Effect.Effect<A, E, R>, done: (a: A) => boolean): Effect.Effect<A, E, R> =>
  Effect.flatMap(
    effect,
    (a) => done(a) ? Effect.succeed(a) : Effect.zipRight(Effect.sleep("50 millis"), pollUntil(effect, done))
  )

const stateOf = (server: string) =>
  Effect.flatMap(LanguageServer.LanguageServer, (service) => service.servers).pipe(
    Effect.map((states) => states[server]!)
  )

/** The state of `server` once it has left Idle/Starting. */
const settledState = (server: string) =>
  pollUntil(stateOf(server), (state) => state._tag !== "Idle" && state._tag !== "Starting")

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** A fake "language server": a node script, given as an absolute command. */
const fakeServer = (root: string, name: string, source: string): LanguageServer.ServerConfig => {
  const script = nodePath.join(root, `${name}.cjs`)
  fs.writeFileSync(script, source)
  return { id: name, command: process.execPath, args: [script], extensions: { ".ts": "typescript" } }
}

describe("LanguageServer with typescript-language-server", () => {
  it.live("a read of a .ts file with a type error yields that diagnostic; didChange clears it", () => {
    const root = project()
    const bad = nodePath.join(root, "bad.ts")
    let pid = -1
    return Effect.gen(function*() {
      const result = yield* Read.read({ filePath: "bad.ts" })
      expect(result.output).toContain("2: export const answer: number = \"forty-two\"")

      const diagnostics = yield* LanguageServer.awaitDiagnostics(bad, {
        until: (ds) => ds.some((d) => d.code === 2322),
        timeout: "45 seconds"
      })
      expect(diagnostics).toContainEqual(expect.objectContaining({
        path: bad,
        severity: "error",
        code: 2322,
        source: "typescript",
        message: "Type 'string' is not assignable to type 'number'.",
        line: 2,
        column: 14
      }))
      // Relative paths resolve against the root; the snapshot matches what was awaited.
      expect(yield* LanguageServer.diagnostics("bad.ts")).toEqual(diagnostics)

      const state = (yield* Effect.flatMap(LanguageServer.LanguageServer, (s) => s.servers)).typescript!
      expect(state._tag).toBe("Running")
      if (state._tag === "Running") pid = state.pid

      // Fix the file and read it again: the server gets the new text (didChange) and withdraws
      // the error.
      fs.writeFileSync(bad, "// fixed\nexport const answer: number = 42\n")
      yield* Read.read({ filePath: bad })
      const after = yield* LanguageServer.awaitDiagnostics(bad, {
        until: (ds) => ds.length === 0,
        timeout: "45 seconds"
      })
      expect(after).toEqual([])
    }).pipe(
      Effect.provide(readLayer(root)),
      // The layer's scope is closed now: the server was shut down, and its process is gone.
      Effect.tap(() => expect(pid).toBeGreaterThan(0)),
      Effect.tap(() => pollUntil(Effect.sync(() => isAlive(pid)), (alive) => !alive))
    )
  })

  it.live("files no server handles are not sent anywhere, and no server starts", () => {
    const root = project()
    return Effect.gen(function*() {
      yield* Read.read({ filePath: "notes.txt" })
      yield* Read.read({ filePath: "." })
      const states = yield* Effect.flatMap(LanguageServer.LanguageServer, (s) => s.servers)
      expect(states.typescript?._tag).toBe("Idle")
      expect(yield* LanguageServer.diagnostics("notes.txt")).toEqual([])
    }).pipe(Effect.provide(readLayer(root)))
  })
})

describe("LanguageServer with a broken server", () => {
  it.live("a missing command: the read succeeds and the server is marked Failed", () => {
    const root = project()
    const missing: LanguageServer.ServerConfig = {
      ...LanguageServer.typescript,
      command: "effect-read-no-such-language-server"
    }
    return Effect.gen(function*() {
      const result = yield* Read.read({ filePath: "bad.ts" })
      expect(result.metadata.kind).toBe("text")
      const state = yield* settledState("typescript")
      expect(state._tag).toBe("Failed")
      expect(state._tag === "Failed" && state.reason).toContain("ENOENT")
      // Later reads still work; touches of a failed server are dropped.
      yield* Read.read({ filePath: "bad.ts" })
      expect(yield* LanguageServer.diagnostics("bad.ts")).toEqual([])
    }).pipe(Effect.provide(readLayer(root, { servers: [missing] })))
  })

  it.live("a server that hangs: reads do not wait for it, and closing the scope kills it", () => {
    const root = project()
    const pidFile = nodePath.join(root, "hang.pid")
    // Reads its input forever, answers nothing, and ignores polite signals.
    const hang = fakeServer(
      root,
      "hang",
      `require("fs").writeFileSync(${JSON.stringify(pidFile)}, String(process.pid))
process.on("SIGTERM", () => {})
process.stdin.on("data", () => {})
setInterval(() => {}, 1 << 30)
`
    )
    return Effect.gen(function*() {
      yield* Read.read({ filePath: "bad.ts" })
      // Wait until the server process is up (it wrote its pid), then read again while it hangs
      // in `initialize`: the read completes although the server never answered anything.
      yield* pollUntil(Effect.sync(() => fs.existsSync(pidFile)), (exists) => exists)
      const result = yield* Read.read({ filePath: "bad.ts" })
      expect(result.output).toContain("forty-two")
      const states = yield* Effect.flatMap(LanguageServer.LanguageServer, (s) => s.servers)
      expect(states.hang?._tag).toBe("Starting")
      return Number(fs.readFileSync(pidFile, "utf8"))
    }).pipe(
      // The default 30 s startup timeout is still running: closing the scope must not wait for it.
      Effect.provide(readLayer(root, { servers: [hang] })),
      Effect.flatMap((pid) => pollUntil(Effect.sync(() => isAlive(pid)), (alive) => !alive))
    )
  })

  it.live("a server that hangs past the startup timeout is marked Failed, and reads go on", () => {
    const root = project()
    const hang = fakeServer(root, "hang", `process.stdin.on("data", () => {})\nsetInterval(() => {}, 1 << 30)\n`)
    return Effect.gen(function*() {
      yield* Read.read({ filePath: "bad.ts" })
      const state = yield* settledState("hang")
      expect(state._tag).toBe("Failed")
      expect(state._tag === "Failed" && state.reason).toContain("no answer to initialize")
      yield* Read.read({ filePath: "bad.ts" })
    }).pipe(Effect.provide(readLayer(root, { servers: [hang], startupTimeout: "1 second" })))
  })

  it.live("a server that crashes at once: the read succeeds and the server is marked Failed", () => {
    const root = project()
    const crash = fakeServer(root, "crash", `process.stderr.write("boom\\n")\nprocess.exit(3)\n`)
    return Effect.gen(function*() {
      const result = yield* Read.read({ filePath: "bad.ts" })
      expect(result.metadata.kind).toBe("text")
      const state = yield* settledState("crash")
      // It died before answering `initialize` (Failed) or right after (Exited): either way it is
      // out of service, and not restarted.
      expect(["Failed", "Exited"]).toContain(state._tag)
      yield* Read.read({ filePath: "bad.ts" })
      expect(yield* LanguageServer.diagnostics("bad.ts")).toEqual([])
    }).pipe(Effect.provide(readLayer(root, { servers: [crash] })))
  })

  it.live("a server that crashes after initialize is marked Exited; reads go on", () => {
    const root = project()
    // Answers `initialize` properly, then dies on the first document it is sent.
    const flaky = fakeServer(
      root,
      "flaky",
      `const rpc = require(${
        JSON.stringify(createRequire(import.meta.url).resolve("vscode-languageserver-protocol/node"))
      })
const connection = rpc.createProtocolConnection(new rpc.StreamMessageReader(process.stdin), new rpc.StreamMessageWriter(process.stdout))
connection.onRequest(rpc.InitializeRequest.type, () => ({ capabilities: { textDocumentSync: 1 } }))
connection.onNotification(rpc.DidOpenTextDocumentNotification.type, () => process.exit(7))
connection.listen()
`
    )
    return Effect.gen(function*() {
      yield* Read.read({ filePath: "bad.ts" })
      const state = yield* pollUntil(stateOf("flaky"), (s) => s._tag === "Failed" || s._tag === "Exited")
      expect(state).toMatchObject({ _tag: "Exited", code: 7 })
      const again = yield* Read.read({ filePath: "bad.ts" })
      expect(again.metadata.kind).toBe("text")
    }).pipe(Effect.provide(readLayer(root, { servers: [flaky] })))
  })

  it.live("a server that stops reading its input is given up on and killed; reads go on", () => {
    const root = project()
    const pidFile = nodePath.join(root, "deaf.pid")
    // Answers `initialize`, then never reads stdin again: a big didOpen fills the pipe.
    const deaf = fakeServer(
      root,
      "deaf",
      `require("fs").writeFileSync(${JSON.stringify(pidFile)}, String(process.pid))
const rpc = require(${JSON.stringify(createRequire(import.meta.url).resolve("vscode-languageserver-protocol/node"))})
const connection = rpc.createProtocolConnection(new rpc.StreamMessageReader(process.stdin), new rpc.StreamMessageWriter(process.stdout))
connection.onRequest(rpc.InitializeRequest.type, () => ({ capabilities: { textDocumentSync: 1 } }))
connection.onNotification(rpc.InitializedNotification.type, () => { process.stdin.pause(); process.stdin.removeAllListeners("data") })
connection.listen()
setInterval(() => {}, 1 << 30)
`
    )
    writeTree(root, { "big.ts": `export const big = ${JSON.stringify("x".repeat(2 * 1024 * 1024))}\n` })
    return Effect.gen(function*() {
      yield* Read.read({ filePath: "big.ts" })
      const state = yield* pollUntil(stateOf("deaf"), (s) => s._tag === "Failed" || s._tag === "Exited")
      expect(state._tag).toBe("Failed")
      expect(state._tag === "Failed" && state.reason).toContain("does not read its input")
      const pid = Number(fs.readFileSync(pidFile, "utf8"))
      // Given up on means gone: the worker's scope closed and killed it, before the layer closes.
      yield* pollUntil(Effect.sync(() => isAlive(pid)), (alive) => !alive)
      const again = yield* Read.read({ filePath: "bad.ts" })
      expect(again.metadata.kind).toBe("text")
    }).pipe(
      Effect.provide(readLayer(root, { servers: [deaf], requestTimeout: "1 second", shutdownTimeout: "1 second" }))
    )
  })
})

describe("LanguageServer.resolveCommand", () => {
  it("finds a bare command in node_modules/.bin (here: this package's own)", () => {
    const root = project()
    expect(LanguageServer.resolveCommand("typescript-language-server", root)).toBe(
      nodePath.join(process.cwd(), "node_modules", ".bin", "typescript-language-server")
    )
  })

  it("leaves an unknown bare command to PATH, and resolves a relative path against the root", () => {
    expect(LanguageServer.resolveCommand("no-such-server-anywhere", "/tmp")).toBe("no-such-server-anywhere")
    expect(LanguageServer.resolveCommand("./bin/server", "/srv/project")).toBe("/srv/project/bin/server")
  })
})
