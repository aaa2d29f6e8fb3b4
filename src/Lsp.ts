/**
 * The language-server seam: `touchFile` warms the server for a file the agent just read, so
 * diagnostics and symbols are ready when it edits. `read` forks it and ignores its outcome.
 */
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"

/** A diagnostic a language server published, positions 1-based (as `read` numbers lines). */
export interface Diagnostic {
  readonly severity: "error" | "warning" | "information" | "hint"
  readonly message: string
  readonly line: number
  readonly column: number
  readonly source?: string | undefined
  readonly code?: string | number | undefined
}

/** What a server said of a file: its diagnostics, or that no server knows it, or no answer in time. */
export type DiagnosticsOutcome =
  | { readonly _tag: "Published"; readonly diagnostics: ReadonlyArray<Diagnostic> }
  | { readonly _tag: "Unknown" }
  | { readonly _tag: "Unavailable"; readonly reason: string }
  | { readonly _tag: "TimedOut" }

export interface LspShape {
  readonly touchFile: (path: string) => Effect.Effect<void>
  /**
   * Send the file as it is now to its server and wait, at most `timeout`, for the diagnostics the
   * server publishes for that text: `Published`, or `Unknown` (no server for the file), or
   * `Unavailable` (its server could not start, or stopped), or `TimedOut`. Optional: a layer without it has no diagnostics to give.
   */
  readonly diagnostics?:
    | ((path: string, options: { readonly timeout: Duration.DurationInput }) => Effect.Effect<DiagnosticsOutcome>)
    | undefined
}

export class Lsp extends Context.Tag("effect-read/Lsp")<Lsp, LspShape>() {}

/** No language server: every touch is a no-op (and `read` does not even fork one). */
export const noop: LspShape = {
  touchFile: () => Effect.void
}

/** No language server: every touch is a no-op. */
export const layerNoop: Layer.Layer<Lsp> = Layer.succeed(Lsp, noop)

/** The recording double's window onto what was touched. */
export class Recorder extends Context.Tag("effect-read/Lsp/Recorder")<Recorder, {
  readonly touched: Effect.Effect<ReadonlyArray<string>>
}>() {}

/** A test double that remembers every touched path, in order. */
export const layerRecording: Layer.Layer<Lsp | Recorder> = Layer.effectContext(
  Effect.gen(function*() {
    const touched = yield* Ref.make<ReadonlyArray<string>>([])
    const touchFile = Effect.fn("Lsp.touchFile")(function*(path: string) {
      yield* Ref.update(touched, (paths) => [...paths, path])
    })
    return Context.make(Lsp, { touchFile }).pipe(Context.add(Recorder, { touched: Ref.get(touched) }))
  })
)
