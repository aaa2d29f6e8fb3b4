/** A tracer that records every span it starts, on top of Effect's native one. */
import * as Effect from "effect/Effect"
import * as Tracer from "effect/Tracer"

export const recordingTracer = Effect.map(Effect.tracer, (native) => {
  const spans: Array<Tracer.Span> = []
  const tracer = Tracer.make({
    span: (...args) => {
      const span = native.span(...args)
      spans.push(span)
      return span
    },
    context: (f, fiber) => native.context(f, fiber)
  })
  return { spans, tracer }
})
