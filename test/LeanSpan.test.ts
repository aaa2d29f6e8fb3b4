/**
 * `withLeanSpan` records what `Effect.withSpan` records (the read path's spans, in fewer runtime
 * steps): the same spans, parents, attributes and ends, for every way the effect can end, with
 * the context put back after it.
 */
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import type * as Tracer from "effect/Tracer"
import { withLeanSpan } from "../src/internal/io/spans.js"
import { recordingTracer } from "./support/tracing.js"

/** What a test can see of a span: its name, parent, attributes, and how it ended. */
const seen = (span: Tracer.Span) => ({
  name: span.name,
  parent: Option.match(span.parent, { onNone: () => undefined, onSome: (p) => p._tag === "Span" ? p.name : p.spanId }),
  attributes: Object.fromEntries(span.attributes),
  ended: span.status._tag === "Ended"
    ? Exit.match(span.status.exit, {
      onFailure: (cause) =>
        Cause.isInterruptedOnly(cause) ? "interrupted" : Cause.isDie(cause) ? "died" : `failed ${Cause.squash(cause)}`,
      onSuccess: (value) => `succeeded ${String(value)}`
    })
    : "open"
})

type Outcome = "succeed" | "fail" | "die" | "interrupt"
const outcomes: ReadonlyArray<Outcome> = ["succeed", "fail", "die", "interrupt"]
const end = (outcome: Outcome): Effect.Effect<string, string> =>
  outcome === "succeed"
    ? Effect.succeed("done")
    : outcome === "fail"
    ? Effect.fail("no")
    : outcome === "die"
    ? Effect.die("boom")
    : Effect.interrupt

class Service extends Context.Tag("test/Service")<Service, string>() {}

type Wrap = <A, E, R>(
  self: Effect.Effect<A, E, R>,
  name: string,
  attributes: Record<string, unknown> | undefined
) => Effect.Effect<A, E, R>
const native: Wrap = (self, name, attributes) =>
  Effect.withSpan(self, name, { captureStackTrace: false, ...(attributes ? { attributes } : {}) })
const lean: Wrap = (self, name, attributes) => withLeanSpan(self, name, attributes ? { attributes } : {})

/**
 * Spans nested `depth` deep under `outer`, the innermost running a child span, an annotation and
 * `outcome`; what the spans recorded, which span each level saw as current, and the span in force
 * after the region (the context put back).
 */
const run = (wrap: Wrap, depth: number, outcome: Outcome, attributes: Record<string, unknown> | undefined) =>
  Effect.gen(function*() {
    const { spans, tracer } = yield* recordingTracer
    const current: Array<string> = []
    const look = Effect.map(Effect.currentSpan, (span) => span.name).pipe(
      Effect.orElseSucceed(() => "none"),
      Effect.tap((name) => Effect.sync(() => current.push(name)))
    )
    let body: Effect.Effect<string, string> = Effect.zipRight(
      Effect.annotateCurrentSpan("inside", depth),
      Effect.withSpan(Effect.zipRight(look, end(outcome)), "child", { captureStackTrace: false })
    )
    for (let level = depth; level >= 1; level--) body = wrap(Effect.zipRight(look, body), `level${level}`, attributes)
    const exit = yield* Effect.gen(function*() {
      const exit = yield* Effect.exit(body)
      yield* look
      return exit
    }).pipe(Effect.withSpan("outer", { captureStackTrace: false }), Effect.withTracer(tracer))
    return { exit: Exit.isSuccess(exit) ? "success" : "failure", spans: spans.map(seen), current }
  })

describe("withLeanSpan", () => {
  it.effect.prop(
    "records the spans Effect.withSpan records, however the effect ends",
    [
      fc.integer({ min: 1, max: 3 }),
      fc.constantFrom(...outcomes),
      fc.option(fc.dictionary(fc.string({ minLength: 1, maxLength: 5 }), fc.oneof(fc.string(), fc.integer())), {
        nil: undefined
      })
    ],
    ([depth, outcome, attributes]) =>
      Effect.gen(function*() {
        const expected = yield* run(native, depth, outcome, attributes)
        const actual = yield* run(lean, depth, outcome, attributes)
        expect(actual).toEqual(expected)
        expect(actual.spans.every((span) => span.ended !== "open")).toBe(true)
      })
  )

  it.effect("a fiber interrupted inside the span ends it, as interrupted", () =>
    Effect.gen(function*() {
      const { spans, tracer } = yield* recordingTracer
      const fiber = yield* withLeanSpan(Effect.never, "waiting").pipe(Effect.withTracer(tracer), Effect.fork)
      yield* Effect.yieldNow()
      yield* Fiber.interrupt(fiber)
      expect(spans.map(seen)).toEqual([{ name: "waiting", parent: undefined, attributes: {}, ended: "interrupted" }])
    }))

  it.effect("provide: services put in the context with the span, for the effect only", () =>
    Effect.gen(function*() {
      const inside = yield* withLeanSpan(Service, "with", { provide: (context) => Context.add(context, Service, "b") })
      expect(inside).toBe("b")
      expect(yield* Service).toBe("a")
    }).pipe(Effect.provideService(Service, "a")))
})
