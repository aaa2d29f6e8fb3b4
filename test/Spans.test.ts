/**
 * Observability: every step of a read is a named span, nested under `Read.read`, collected here
 * by an in-memory tracer (the same spans an OpenTelemetry exporter would receive).
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Tracer from "effect/Tracer"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { LeanRead } from "../src/internal/read/lean.js"
import * as Lsp from "../src/Lsp.js"
import * as Permission from "../src/Permission.js"
import * as Read from "../src/Read.js"
import * as SqliteFileTime from "../src/SqliteFileTime.js"
import * as Workspace from "../src/Workspace.js"
import { nodeLayer, tempDir, writeTree } from "./support/index.js"
import { PNG } from "./support/media.js"
import { recordingTracer } from "./support/tracing.js"

const root = tempDir("effect-read-spans-")
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))
writeTree(root, {
  "src/app.ts": "export const a = 1\n",
  "docs/readme.md": "# hello\n",
  "logo.png": PNG
})

/** The names of `span`'s ancestors, nearest first. */
const ancestors = (span: Tracer.AnySpan): Array<string> => {
  const names: Array<string> = []
  let current = span._tag === "Span" ? span.parent : Option.none<Tracer.AnySpan>()
  while (Option.isSome(current)) {
    const parent = current.value
    if (parent._tag !== "Span") break
    names.push(parent.name)
    current = parent.parent
  }
  return names
}

/**
 * Run `Read.read(input)` with `layer` under a recording tracer; wait for the forked
 * `Lsp.touchFile` when the read should reach it. Returns the recorded spans by name.
 */
const traced = <E>(
  input: unknown,
  layer: Layer.Layer<Read.EffectRequirements | Lsp.Recorder, E>,
  options: { readonly touches: boolean } = { touches: true }
) =>
  Effect.gen(function*() {
    const { spans, tracer } = yield* recordingTracer
    const exit = yield* Effect.gen(function*() {
      const exit = yield* Effect.exit(Read.readUnknown(input))
      if (options.touches) {
        const recorder = yield* Lsp.Recorder
        // `read` forks the touch; wait for it (bounded by the test timeout, not by a clock).
        while ((yield* recorder.touched).length === 0) yield* Effect.sleep("10 millis")
      }
      return exit
    }).pipe(Effect.provide(Layer.merge(layer, Layer.setTracer(tracer))))
    const byName = (name: string) => spans.filter((span) => span.name === name)
    const one = (name: string) => {
      const found = byName(name)
      expect(found, `one ${name} span`).toHaveLength(1)
      return found[0]!
    }
    return { exit, spans, names: new Set(spans.map((span) => span.name)), byName, one }
  })

describe("Spans", () => {
  it.live("a file read the straight way: its phases are named spans under Read.read, in one trace", () =>
    Effect.gen(function*() {
      const { exit, names, one, spans } = yield* traced({ filePath: "src/app.ts" }, nodeLayer(root))
      expect(exit._tag).toBe("Success")
      for (
        const name of ["Read.checkAccess", "Permission.ask", "Read.file", "Read.text", "FileTime.read", "Lsp.touchFile"]
      ) expect(names, name).toContain(name)
      // No span per tiny step: the general way's inner ones are not opened.
      expect(names).not.toContain("Read.resolveTarget")
      const read = one("Read.read")
      expect(read.parent._tag).toBe("None")
      expect(ancestors(one("Permission.ask"))).toEqual(["Read.checkAccess", "Read.read"])
      expect(ancestors(one("Read.text"))).toEqual(["Read.file", "Read.read"])
      expect(ancestors(one("FileTime.read"))).toEqual(["Read.read"])
      expect(ancestors(one("Lsp.touchFile"))).toEqual(["Read.read"])
      expect(new Set(spans.map((span) => span.traceId))).toEqual(new Set([read.traceId]))
    }))

  it.live("a file read the general way: every step is a named span under Read.read, in one trace", () =>
    Effect.gen(function*() {
      const { byName, exit, names, one, spans } = yield* traced(
        { filePath: "src/app.ts" },
        Layer.merge(nodeLayer(root), Layer.succeed(LeanRead, false))
      )
      expect(exit._tag).toBe("Success")
      for (
        const name of [
          "Read.read",
          "Read.resolveTarget",
          "Read.checkAccess",
          "Read.checkExternal",
          "Read.realPath",
          "Permission.ask",
          "Read.file",
          "FileTime.read",
          "Lsp.touchFile"
        ]
      ) expect(names, name).toContain(name)

      const read = one("Read.read")
      expect(read.parent._tag).toBe("None")
      expect(read.status._tag).toBe("Ended")
      expect(ancestors(one("Read.file"))).toEqual(["Read.read"])
      expect(ancestors(one("Read.checkAccess"))).toEqual(["Read.read"])
      // Bytes the read confirmed are stamped inside FileTime.read, no FileTime.stamp of their own.
      expect(ancestors(one("FileTime.read"))).toEqual(["Read.read"])
      // The touch runs in a forked fiber after the read, still a child of its span.
      expect(ancestors(one("Lsp.touchFile"))).toEqual(["Read.read"])
      // The read permission is asked under checkAccess.
      const asks = byName("Permission.ask")
      expect(asks.length).toBeGreaterThan(0)
      for (const ask of asks) expect(ancestors(ask)).toContain("Read.checkAccess")
      // One trace for the whole read.
      expect(new Set(spans.map((span) => span.traceId))).toEqual(new Set([read.traceId]))
    }))

  it.live("a directory read: Read.directory", () =>
    Effect.gen(function*() {
      const { exit, names, one } = yield* traced({ filePath: "docs" }, nodeLayer(root), { touches: false })
      expect(exit._tag).toBe("Success")
      expect(names).toContain("Read.checkAccess")
      expect(ancestors(one("Read.directory"))).toEqual(["Read.read"])
    }))

  it.live("an image read: Read.attach under Read.file", () =>
    Effect.gen(function*() {
      const { exit, one } = yield* traced({ filePath: "logo.png" }, nodeLayer(root))
      expect(exit._tag).toBe("Success")
      expect(ancestors(one("Read.attach"))).toEqual(["Read.file", "Read.read"])
    }))

  it.live("a missing file: Read.recoverMissing, and Read.read ends with the failure", () =>
    Effect.gen(function*() {
      const { exit, one } = yield* traced({ filePath: "src/apps.ts" }, nodeLayer(root), { touches: false })
      expect(exit._tag).toBe("Failure")
      expect(ancestors(one("Read.recoverMissing"))).toEqual(["Read.read"])
      const status = one("Read.read").status
      expect(status._tag === "Ended" && status.exit._tag).toBe("Failure")
    }))

  it.live("a denied read: Permission.ask ends with the failure", () =>
    Effect.gen(function*() {
      const { byName, exit } = yield* traced(
        { filePath: "src/app.ts" },
        nodeLayer(root, { permission: Permission.layerDenyAll }),
        { touches: false }
      )
      expect(exit._tag).toBe("Failure")
      const failed = byName("Permission.ask").filter((span) =>
        span.status._tag === "Ended" && span.status.exit._tag === "Failure"
      )
      expect(failed.length).toBeGreaterThan(0)
    }))

  it.live("with the SQLite ledger, its queries are child spans of FileTime.read", () => {
    const layer = Layer.mergeAll(
      Workspace.layer({ directory: root, sessionId: "spans" }),
      Permission.layerAllowAll,
      Lsp.layerRecording,
      SqliteFileTime.layer({ filename: nodePath.join(root, "ledger.db") })
    ).pipe(Layer.provideMerge(Layer.merge(NodeFileSystem.layer, NodePath.layer)))
    return Effect.gen(function*() {
      const { byName, exit, one } = yield* traced({ filePath: "src/app.ts" }, layer)
      expect(exit._tag).toBe("Success")
      const queries = byName("sql.execute").filter((span) => ancestors(span).includes("FileTime.read"))
      // The stamp's upsert, then the coverage's select and write (coverage: see Coverage.test.ts).
      expect(queries.length).toBeGreaterThanOrEqual(1)
      expect(ancestors(queries[0]!)).toEqual(["FileTime.read", "Read.read"])
      for (const query of queries) expect(ancestors(query).slice(-2)).toEqual(["FileTime.read", "Read.read"])
      expect(queries[0]!.attributes.get("db.system.name")).toBe("sqlite")
      expect(ancestors(one("FileTime.stamp"))).toEqual(["FileTime.read", "Read.read"])
    })
  })
})
