/**
 * Who a read is for. A read for the model (the default) is what the model is shown: session
 * memory may answer it with a stub and remembers it, the ledger records it for Edit guards, and
 * nearby instructions come with it. A programmatic read — the host reading for itself (an index,
 * a preview in its UI, a check before it edits) — is none of that: the model never sees it, so it
 * neither seeds nor consumes stubs, covers nothing for an Edit guard, and shows no instructions.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"

export class Programmatic extends Context.Reference<Programmatic>()("effect-read/Programmatic", {
  defaultValue: (): boolean => false
}) {}

/** Run `self`'s reads as the host's own (see the module comment): the model is shown none of them. */
export const programmatic = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.provideService(self, Programmatic, true)
