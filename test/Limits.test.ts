/**
 * `Limits`: every tunable in one module, with the defaults its comments state, set by a host with
 * one layer taking a partial record; and one spelling of "nothing" (`noop`, `layerNoop`), the
 * old spellings kept as deprecated aliases.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Anchors from "../src/Anchors.js"
import * as FileTime from "../src/FileTime.js"
import * as Instructions from "../src/Instructions.js"
import * as Limits from "../src/Limits.js"
import * as LineIndex from "../src/LineIndex.js"
import * as Progress from "../src/Progress.js"
import * as Read from "../src/Read.js"
import * as ReadMany from "../src/ReadMany.js"
import * as SessionMemory from "../src/SessionMemory.js"
import * as SqlFileTime from "../src/SqlFileTime.js"
import { nodeLayer, projectDirs } from "./support/index.js"

const project = projectDirs()

describe("Limits", () => {
  it.effect("every tunable has the default its comment states", () =>
    Effect.gen(function*() {
      const current = yield* Limits.current
      expect(current.page).toEqual({
        lines: 2000,
        lineLength: 2000,
        bytes: 51_200,
        mediaBytes: 20 * 1024 * 1024,
        directoryEntries: 2000
      })
      // The page caps are the ones `read` states (`Read.limits`, the description).
      expect(current.page).toMatchObject({
        lines: Read.limits.defaultLimit,
        lineLength: Read.limits.maxLineLength,
        bytes: Read.limits.maxBytes,
        mediaBytes: Read.limits.maxMediaBytes
      })
      expect(current.image).toEqual({
        maxDimension: 2000,
        maxBytes: 5 * 1024 * 1024,
        maxPixels: 100_000_000,
        maxFullDimension: 8000
      })
      expect(current.web).toEqual({
        timeout: Duration.seconds(30),
        maxBytes: 10 * 1024 * 1024,
        maxRedirects: 5,
        keepFor: Duration.minutes(10)
      })
      expect(current.query).toEqual({
        timeout: Duration.seconds(5),
        idleProcesses: 2,
        idleTimeout: Duration.seconds(30)
      })
      expect(current.recovery).toEqual({ timeout: Duration.seconds(2), maxEntries: 50_000 })
      expect(current.readMany).toEqual({
        maxFiles: 20,
        maxBytes: 51_200,
        concurrency: 2,
        globMaxEntries: 10_000,
        maxAttachmentBytes: 20 * 1024 * 1024
      })
      expect(current.fileTime).toEqual({ maxFiles: 10_000 })
      expect(current.structure).toEqual({ outlineWhenTruncated: false, outlineRows: 250 })
      expect(current.hostMedia).toEqual({ pdf: "attach" })
      expect(current.lockTimeout).toEqual(Duration.seconds(60))
    }))

  it.effect("layer: a partial record, each group merged over what is in force; what is left out keeps its value", () =>
    Effect.gen(function*() {
      const current = yield* Limits.current.pipe(
        Effect.provide(Limits.layer({
          page: { lines: 500 },
          image: { maxDimension: 1568, maxBytes: undefined },
          web: { timeout: "10 seconds" },
          lockTimeout: "5 seconds"
        }))
      )
      expect(current.page).toEqual({ ...Limits.PageLimits.defaultValue(), lines: 500 })
      expect(current.image).toEqual({ ...Limits.ImageLimits.defaultValue(), maxDimension: 1568 })
      expect(current.web).toEqual({ ...Limits.WebLimits.defaultValue(), timeout: "10 seconds" })
      expect(current.lockTimeout).toEqual(Duration.seconds(5))
      expect(current.readMany).toEqual(Limits.ReadManyLimits.defaultValue())
    }))

  it.effect("an inner layer goes over an outer one, not over the defaults", () =>
    Effect.gen(function*() {
      const inner = yield* Limits.current.pipe(
        Effect.provide(Limits.layer({ readMany: { concurrency: 4 } })),
        Effect.provide(Limits.layer({ readMany: { maxFiles: 3 } }))
      )
      expect(inner.readMany).toMatchObject({ maxFiles: 3, concurrency: 4, maxBytes: 51_200 })
    }))

  it.effect("what a host sets is what a read applies (read_many's file cap)", () =>
    Effect.gen(function*() {
      const root = project({ "a.txt": "a\n", "b.txt": "b\n" })
      const layer = Layer.merge(nodeLayer(root), Limits.layer({ readMany: { maxFiles: 1 } }))
      const error = yield* Effect.flip(
        ReadMany.readMany({ files: [{ filePath: "a.txt" }, { filePath: "b.txt" }] }).pipe(Effect.provide(layer))
      )
      expect(error._tag).toBe("InvalidParams")
      expect(error.message).toContain("1")
      const one = yield* ReadMany.readMany({ files: [{ filePath: "a.txt" }] }).pipe(Effect.provide(layer))
      expect(one.files).toHaveLength(1)
    }))

  it("the old homes are the same references (no second definition)", () => {
    expect(Read.ImageLimits).toBe(Limits.ImageLimits)
    expect(Read.WebLimits).toBe(Limits.WebLimits)
    expect(Read.QueryLimits).toBe(Limits.QueryLimits)
    expect(Read.RecoveryLimits).toBe(Limits.RecoveryLimits)
    expect(Read.StructureDefaults).toBe(Limits.StructureDefaults)
    expect(Read.HostMedia).toBe(Limits.HostMedia)
    expect(ReadMany.ReadManyLimits).toBe(Limits.ReadManyLimits)
    expect(SqlFileTime.LockTimeout).toBe(Limits.LockTimeout)
    expect(FileTime.MemoryLimits).toBe(Limits.FileTimeLimits)
  })
})

describe("one spelling of nothing", () => {
  it.effect("each service's layerNoop provides its noop", () =>
    Effect.gen(function*() {
      const provided = yield* Effect.all([
        SessionMemory.SessionMemory,
        Instructions.Instructions,
        LineIndex.LineIndex,
        Progress.Progress,
        Anchors.AnchorStore
      ]).pipe(
        Effect.provide(Layer.mergeAll(
          SessionMemory.layerNoop,
          Instructions.layerNoop,
          LineIndex.layerNoop,
          Progress.layerNoop,
          Anchors.layerNoopAnchorStore
        ))
      )
      expect(provided).toEqual([
        SessionMemory.noop,
        Instructions.noop,
        LineIndex.noop,
        Progress.noop,
        Anchors.noopAnchorStore
      ])
      expect(SessionMemory.noop.enabled).toBe(false)
      expect(Instructions.noop.enabled).toBe(false)
    }))

  it("the old spellings are the same values", () => {
    expect(SessionMemory.none).toBe(SessionMemory.noop)
    expect(Instructions.off).toBe(Instructions.noop)
    expect(Anchors.noAnchorStore).toBe(Anchors.noopAnchorStore)
  })
})
