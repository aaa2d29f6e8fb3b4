/**
 * The front doors' V8 setting for background WebAssembly compilation: one task fewer than the
 * cores, at least one, and never over a value node was started with.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import { leaveMainThreadACore, wasmTasksFor } from "../src/internal/doors/wasmTasks.js"

describe("wasmTasks", () => {
  it("leaves one core to the main thread, and keeps one task on a single core", () => {
    expect(wasmTasksFor(1)).toBe(1)
    expect(wasmTasksFor(2)).toBe(1)
    expect(wasmTasksFor(8)).toBe(7)
  })

  it.prop(
    "is at least one and below the cores when there are two or more",
    [fc.integer({ min: 1, max: 1024 })],
    ([cores]) => {
      const tasks = wasmTasksFor(cores)
      expect(tasks).toBeGreaterThanOrEqual(1)
      if (cores >= 2) expect(tasks).toBe(cores - 1)
    }
  )

  it("does not override a value node was started with", () => {
    expect(leaveMainThreadACore(["--wasm-num-compilation-tasks=4"])).toBeUndefined()
    expect(leaveMainThreadACore(["--inspect", "--wasm-num-compilation-tasks"])).toBeUndefined()
  })

  it("sets the flag otherwise, naming the tasks", () => {
    expect(leaveMainThreadACore(["--wasm-num-compilation-tasksX"])).toBeGreaterThanOrEqual(1)
    expect(leaveMainThreadACore([])).toBeGreaterThanOrEqual(1)
  })
})
