/**
 * The language-server seam: `touchFile` warms the server for a file the agent just read, so
 * diagnostics and symbols are ready when it edits. `read` forks it and ignores its outcome.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"

export interface LspShape {
  readonly touchFile: (path: string) => Effect.Effect<void>
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
