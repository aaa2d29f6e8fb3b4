/**
 * Diagnostics on read: with the real language-server layer and the real
 * `typescript-language-server`, a read with `diagnostics` appends the file's errors (and warnings
 * when asked) after the page, with their line numbers, capped; off by default; bounded in time
 * (a server that never publishes is said to be late, not waited for); nothing for files no server
 * knows, nor without a language-server layer.
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import type * as FileSystem from "@effect/platform/FileSystem"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as nodePath from "node:path"
import { promisify } from "node:util"
import * as FileTime from "../src/FileTime.js"
import { renderDiagnostics } from "../src/internal/read/diagnostics.js"
import * as LanguageServer from "../src/LanguageServer.js"
import * as Lsp from "../src/Lsp.js"
import * as Permission from "../src/Permission.js"
import * as Read from "../src/Read.js"
import * as Workspace from "../src/Workspace.js"
import { fieldsOf, tempDir, writeTree } from "./support/index.js"

const roots: Array<string> = []
afterAll(() => {
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true })
})

const BAD = [
  "// three errors below",
  "export const answer: number = \"forty-two\"",
  "export function twice(n: number): number {",
  "  return n * 2",
  "}",
  "export const wrong: string = twice(\"3\")",
  ""
].join("\n")

const project = () => {
  const root = tempDir("effect-read-diagnostics-")
  roots.push(root)
  writeTree(root, {
    "tsconfig.json": JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: "ES2022" } }),
    "bad.ts": BAD,
    "good.ts": "export const ok: number = 1\n",
    "notes.txt": "no server knows this\n"
  })
  return root
}

const layerWith = (root: string, lsp: Layer.Layer<Lsp.Lsp, never, Workspace.Workspace | FileSystem.FileSystem>) =>
  Layer.mergeAll(lsp, Permission.layerAllowAll, FileTime.layerMemory).pipe(
    Layer.provideMerge(
      Layer.mergeAll(Workspace.layer({ directory: root, sessionId: "d" }), NodeFileSystem.layer, NodePath.layer)
    )
  )

/** A generous bound: the first start of tsserver on a shared machine takes seconds. */
const patient = Effect.provideService(Read.DiagnosticsOnRead, {
  severity: undefined,
  wait: "60 seconds",
  maxCount: 20,
  maxBytes: 4096
})

describe("diagnostics on read, with typescript-language-server", () => {
  it.live("errors after the page, with line:column; a fixed file reads 'no errors'; off by default", () => {
    const root = project()
    return Effect.gen(function*() {
      const plain = yield* Read.read({ filePath: "bad.ts" })
      expect(plain.output).not.toContain("Diagnostics")
      expect(fieldsOf(plain).diagnostics).toBeUndefined()

      const checked = yield* patient(Read.read({ filePath: "bad.ts", diagnostics: "errors" }))
      const [page, block] = checked.output.split("\n\n(Diagnostics")
      expect(page).toBe(plain.output)
      expect(`(Diagnostics${block}`).toBe([
        "(Diagnostics from the language server: 3 errors. Line:column, as numbered above.)",
        "2:14: error (typescript 2322): Type 'string' is not assignable to type 'number'.",
        "6:14: error (typescript 2322): Type 'number' is not assignable to type 'string'.",
        "6:36: error (typescript 2345): Argument of type 'string' is not assignable to parameter of type 'number'."
      ].join("\n"))
      expect(fieldsOf(checked).diagnostics).toEqual({ errors: 3, warnings: 0, shown: 3 })

      // The server is sent the file as it is now: a fix is seen at once.
      fs.writeFileSync(nodePath.join(root, "bad.ts"), "export const answer: number = 42\n")
      const fixed = yield* patient(Read.read({ filePath: "bad.ts", diagnostics: "warnings" }))
      expect(fixed.output).toContain("(Diagnostics from the language server: no errors or warnings.)")
      expect(fieldsOf(fixed).diagnostics).toEqual({ errors: 0, warnings: 0, shown: 0 })

      // A page of the file: the diagnostics are still the file's, numbered as the file is.
      fs.writeFileSync(nodePath.join(root, "bad.ts"), BAD)
      const part = yield* patient(Read.read({ filePath: "bad.ts:1-2", diagnostics: "errors" }))
      expect(part.output).toContain("6:36: error (typescript 2345)")

      // Files no server knows: nothing appended.
      const notes = yield* patient(Read.read({ filePath: "notes.txt", diagnostics: "errors" }))
      expect(notes.output).not.toContain("Diagnostics")
      expect(fieldsOf(notes).diagnostics).toBeUndefined()

      // The host can ask for every read.
      const always = yield* Read.read({ filePath: "good.ts" }).pipe(
        Effect.provideService(Read.DiagnosticsOnRead, {
          severity: "errors",
          wait: "60 seconds",
          maxCount: 20,
          maxBytes: 4096
        })
      )
      expect(always.output).toContain("(Diagnostics from the language server: no errors.)")
    }).pipe(Effect.provide(layerWith(root, LanguageServer.layer())))
  }, 180_000)

  it.live("a server that never publishes: the read says so after the bound, and returns", () => {
    const root = project()
    const script = nodePath.join(root, "silent.cjs")
    // Answers `initialize`, takes every file, publishes nothing.
    fs.writeFileSync(
      script,
      `const rpc = require(${
        JSON.stringify(createRequire(import.meta.url).resolve("vscode-languageserver-protocol/node"))
      })
const connection = rpc.createProtocolConnection(new rpc.StreamMessageReader(process.stdin), new rpc.StreamMessageWriter(process.stdout))
connection.onRequest(rpc.InitializeRequest.type, () => ({ capabilities: { textDocumentSync: 1 } }))
connection.onRequest(rpc.ShutdownRequest.type, () => null)
connection.onNotification(rpc.ExitNotification.type, () => process.exit(0))
connection.listen()
`
    )
    const silent: LanguageServer.ServerConfig = {
      id: "silent",
      command: process.execPath,
      args: [script],
      extensions: { ".ts": "typescript" }
    }
    return Effect.gen(function*() {
      const result = yield* Read.read({ filePath: "bad.ts", diagnostics: "errors" }).pipe(
        Effect.provideService(Read.DiagnosticsOnRead, {
          severity: undefined,
          wait: "1 second",
          maxCount: 20,
          maxBytes: 4096
        })
      )
      expect(result.output).toContain("2: export const answer")
      expect(result.output.endsWith("(Diagnostics: the language server did not answer within 1s.)")).toBe(true)
      expect(fieldsOf(result).diagnostics).toEqual({ errors: 0, warnings: 0, shown: 0, timedOut: true })
    }).pipe(Effect.provide(layerWith(root, LanguageServer.layer({ servers: [silent] }))))
  }, 60_000)

  it.live("a server that cannot start: the read says why at once, not after the bound", () => {
    const root = project()
    const missing: LanguageServer.ServerConfig = {
      id: "missing",
      command: "no-such-language-server-31",
      extensions: { ".ts": "typescript" }
    }
    return Effect.gen(function*() {
      const result = yield* Read.read({ filePath: "bad.ts", diagnostics: "errors" }).pipe(
        Effect.provideService(Read.DiagnosticsOnRead, {
          severity: undefined,
          wait: "10 minutes",
          maxCount: 20,
          maxBytes: 4096
        })
      )
      expect(result.output).toContain(
        "(Diagnostics: the language server for this file is not available: cannot start no-such-language-server-31"
      )
    }).pipe(Effect.provide(layerWith(root, LanguageServer.layer({ servers: [missing] }))))
  }, 60_000)

  it.effect("without a language-server layer (Lsp.layerNoop): a read that asks is told so; the host's default adds nothing", () => {
    const root = project()
    return Effect.gen(function*() {
      const result = yield* Read.read({ filePath: "bad.ts", diagnostics: "errors" })
      expect(
        result.output.endsWith("\n\n(Diagnostics: no language server runs for this session, so none can be shown.)")
      ).toBe(true)
      expect(fieldsOf(result).diagnostics).toBeUndefined()
      const quiet = yield* Read.read({ filePath: "bad.ts" }).pipe(
        Effect.provideService(Read.DiagnosticsOnRead, {
          severity: "errors",
          wait: "1 second",
          maxCount: 20,
          maxBytes: 4096
        })
      )
      expect(quiet.output).not.toContain("Diagnostics")
    }).pipe(Effect.provide(layerWith(root, Lsp.layerNoop)))
  })
})

const bin = nodePath.resolve("dist/bin.js")

describe("diagnostics through the doors", () => {
  it("the CLI: --diagnostics errors starts the language server for the read and appends the errors", async () => {
    const root = project()
    const { stdout } = await promisify(execFile)(process.execPath, [
      bin,
      "--cwd",
      root,
      "--diagnostics",
      "errors",
      "bad.ts"
    ], {
      encoding: "utf8",
      timeout: 120_000
    })
    expect(stdout).toContain("(Diagnostics from the language server: 3 errors. Line:column, as numbered above.)")
    expect(stdout).toContain("2:14: error (typescript 2322)")
  }, 150_000)

  it(
    "MCP: with --language-server a read's diagnostics come from the real server; without it the model is told",
    async () => {
      const root = project()
      const call = async (args: ReadonlyArray<string>) => {
        const transport = new StdioClientTransport({
          command: process.execPath,
          args: [bin, "mcp", "--cwd", root, ...args],
          stderr: "pipe"
        })
        const client = new Client({ name: "effect-read-diagnostics-test", version: "1.0.0" })
        await client.connect(transport)
        try {
          const result = await client.callTool(
            { name: "read", arguments: { filePath: "bad.ts", diagnostics: "errors" } },
            undefined,
            {
              timeout: 120_000
            }
          ) as { content: Array<{ text?: string }> }
          return result.content[0]?.text ?? ""
        } finally {
          await client.close()
        }
      }
      expect(await call(["--language-server"])).toContain("2:14: error (typescript 2322)")
      expect(await call([])).toContain("(Diagnostics: no language server runs for this session, so none can be shown.)")
    },
    150_000
  )
})

describe("renderDiagnostics", () => {
  const at = (line: number, severity: Lsp.Diagnostic["severity"], message: string): Lsp.Diagnostic => ({
    severity,
    message,
    line,
    column: 1,
    source: "ts",
    code: line
  })

  it("errors only unless warnings are asked for, sorted by severity then line; multi-line messages on one line", () => {
    const found = [
      at(9, "warning", "unused"),
      at(7, "error", "bad\n  because"),
      at(3, "hint", "style"),
      at(2, "error", "worse")
    ]
    expect(renderDiagnostics(found, "errors", { maxCount: 20, maxBytes: 4096 }).text).toBe([
      "(Diagnostics from the language server: 2 errors. Line:column, as numbered above.)",
      "2:1: error (ts 2): worse",
      "7:1: error (ts 7): bad because"
    ].join("\n"))
    expect(renderDiagnostics(found, "warnings", { maxCount: 20, maxBytes: 4096 })).toMatchObject({
      errors: 2,
      warnings: 1,
      shown: 3
    })
  })

  it("capped in count and in bytes, saying how many were shown", () => {
    const many = Array.from({ length: 50 }, (_, i) => at(i + 1, "error", "x".repeat(300)))
    const byCount = renderDiagnostics(many, "errors", { maxCount: 5, maxBytes: 100_000 })
    expect(byCount.shown).toBe(5)
    expect(byCount.text.split("\n")[0]).toBe(
      "(Diagnostics from the language server: 50 errors; the first 5 shown. Line:column, as numbered above.)"
    )
    const byBytes = renderDiagnostics(many, "errors", { maxCount: 50, maxBytes: 1000 })
    expect(Buffer.byteLength(byBytes.text.split("\n").slice(1).join("\n"))).toBeLessThanOrEqual(1000)
    expect(byBytes.shown).toBeLessThan(50)
  })
})
