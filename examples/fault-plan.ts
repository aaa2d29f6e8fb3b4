/**
 * The fault-plan example of docs/faults.md, type-checked in CI: a property test of a read under
 * random fault plans, and a plan written by hand.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Layer } from "effect"
import { FaultFileSystem, FileTime, Lsp, Permission, Read, Workspace } from "../src/index.js"
import * as MemoryFileSystem from "../src/MemoryFileSystem.js"

const log = Array.from({ length: 40_000 }, (_, i) => `line ${i + 1}`).join("\n")
const session = Layer.mergeAll(
  Workspace.layer({ directory: "/repo" }),
  Permission.layerAllowAll,
  Lsp.layerNoop,
  FileTime.layerMemory
).pipe(Layer.provideMerge(Layer.merge(MemoryFileSystem.layer({ "/repo/app.log": log }), Path.layer)))

it.effect.prop("a read is a typed failure or a success, and closes what it opens", [
  FaultFileSystem.arbitrary({ maxNth: 6, maxSize: 400_000 })
], ([plan]) =>
  Effect.gen(function*() {
    const faults = yield* FaultFileSystem.make(plan) // wraps the FileSystem in context
    const exit = yield* Read.read({ filePath: "app.log", offset: 30_000 }).pipe(
      Effect.provideService(FileSystem.FileSystem, faults.fileSystem),
      Effect.exit
    )
    const stats = yield* faults.stats
    expect(stats.closed).toBe(stats.opened)
    if (Exit.isFailure(exit)) expect(Cause.isDie(exit.cause)).toBe(false)
  }).pipe(Effect.provide(session))) // a fresh filesystem for every case

// By hand: the log is truncated to nothing right after its first read.
export const truncated = FaultFileSystem.layer([FaultFileSystem.Truncate.make({ afterRead: 1, size: 0 })])
