import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Lsp from "../src/Lsp.js"
import * as Workspace from "../src/Workspace.js"

describe("Workspace.layer", () => {
  it.effect("worktree defaults to directory and sessionId to \"default\"", () =>
    Effect.gen(function*() {
      const ws = yield* Workspace.Workspace
      expect(ws).toEqual({ directory: "/repo/src", worktree: "/repo/src", sessionId: "default" })
    }).pipe(Effect.provide(Workspace.layer({ directory: "/repo/src" }))))

  it.effect("explicit values are kept", () =>
    Effect.gen(function*() {
      const ws = yield* Workspace.Workspace
      expect(ws).toEqual({ directory: "/repo/src", worktree: "/repo", sessionId: "s-42" })
    }).pipe(Effect.provide(Workspace.layer({ directory: "/repo/src", worktree: "/repo", sessionId: "s-42" }))))

  it.effect("undefined options fall back to the defaults", () =>
    Effect.gen(function*() {
      const ws = yield* Workspace.Workspace
      expect(ws.worktree).toBe("/repo")
      expect(ws.sessionId).toBe("default")
    }).pipe(Effect.provide(Workspace.layer({ directory: "/repo", worktree: undefined, sessionId: undefined }))))
})

describe("Lsp", () => {
  it.effect("layerNoop touches nothing and succeeds", () =>
    Effect.gen(function*() {
      const lsp = yield* Lsp.Lsp
      yield* lsp.touchFile("/repo/a.ts")
    }).pipe(Effect.provide(Lsp.layerNoop)))

  it.effect("layerRecording remembers touched paths in order", () =>
    Effect.gen(function*() {
      const lsp = yield* Lsp.Lsp
      const recorder = yield* Lsp.Recorder
      expect(yield* recorder.touched).toEqual([])
      yield* lsp.touchFile("/repo/b.ts")
      yield* lsp.touchFile("/repo/a.ts")
      yield* lsp.touchFile("/repo/b.ts")
      expect(yield* recorder.touched).toEqual(["/repo/b.ts", "/repo/a.ts", "/repo/b.ts"])
    }).pipe(Effect.provide(Lsp.layerRecording)))

  it.effect("each layerRecording build starts empty", () =>
    Effect.gen(function*() {
      yield* Effect.flatMap(Lsp.Lsp, (lsp) => lsp.touchFile("/x")).pipe(Effect.provide(Lsp.layerRecording))
      const touched = yield* Effect.flatMap(Lsp.Recorder, (r) => r.touched).pipe(Effect.provide(Lsp.layerRecording))
      expect(touched).toEqual([])
    }))
})
