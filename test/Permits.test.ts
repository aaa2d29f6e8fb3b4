/**
 * The FIFO permits bounding open files: never more holders than permits, waiters served in
 * arrival order (so none starves), and interruption of a waiter or a holder returns the permit.
 */
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Permits from "../src/internal/io/permits.js"

/** Let every fiber that can run, run. */
const settle = Effect.gen(function*() {
  for (let i = 0; i < 8; i++) yield* Effect.yieldNow()
})

type Action =
  | { readonly _tag: "arrive" }
  | { readonly _tag: "finish"; readonly pick: number }
  | { readonly _tag: "interrupt"; readonly pick: number }

const actionArb: fc.Arbitrary<Action> = fc.oneof(
  { weight: 3, arbitrary: fc.constant<Action>({ _tag: "arrive" }) },
  { weight: 2, arbitrary: fc.nat(50).map((pick): Action => ({ _tag: "finish", pick })) },
  { weight: 1, arbitrary: fc.nat(50).map((pick): Action => ({ _tag: "interrupt", pick })) }
)

interface Task {
  readonly id: number
  readonly gate: Deferred.Deferred<void>
  readonly acquired: Deferred.Deferred<void>
  readonly fiber: Fiber.RuntimeFiber<void>
}

describe("FIFO permits", () => {
  it.effect.prop(
    "random arrivals, releases and interruptions: the limit holds, waiters are served in order, permits return",
    [fc.integer({ min: 1, max: 4 }), fc.array(actionArb, { maxLength: 60 })],
    ([limit, actions]) =>
      Effect.gen(function*() {
        const permits = Permits.unsafeMake(limit)
        let held = 0
        let maxHeld = 0
        const order: Array<number> = []
        const tasks: Array<Task> = []
        // The model: who holds a permit, who waits (in arrival order), in what order permits went.
        const holders = new Set<number>()
        const queue: Array<number> = []
        const expectedOrder: Array<number> = []
        const grant = () => {
          while (holders.size < limit && queue.length > 0) {
            const next = queue.shift()!
            holders.add(next)
            expectedOrder.push(next)
          }
        }
        const check = Effect.gen(function*() {
          for (const id of holders) yield* Deferred.await(tasks[id]!.acquired)
          yield* settle
          expect(order).toEqual(expectedOrder)
          expect(held).toBe(holders.size)
          expect(permits.available()).toBe(limit - holders.size)
          expect(permits.waiting()).toBe(queue.length)
        })

        const spawn = Effect.gen(function*() {
          const id = tasks.length
          const gate = yield* Deferred.make<void>()
          const acquired = yield* Deferred.make<void>()
          const fiber = yield* Effect.fork(permits.withPermit(
            Effect.gen(function*() {
              held++
              maxHeld = Math.max(maxHeld, held)
              order.push(id)
              yield* Deferred.succeed(acquired, undefined)
              yield* Deferred.await(gate)
            }).pipe(Effect.ensuring(Effect.sync(() => held--)))
          ))
          tasks.push({ id, gate, acquired, fiber })
          queue.push(id)
          grant()
        })

        for (const action of actions) {
          if (action._tag === "arrive") {
            yield* spawn
          } else if (action._tag === "finish") {
            const current = [...holders]
            if (current.length === 0) continue
            const id = current[action.pick % current.length]!
            yield* Deferred.succeed(tasks[id]!.gate, undefined)
            yield* Fiber.join(tasks[id]!.fiber)
            holders.delete(id)
            grant()
          } else {
            const live = [...holders, ...queue]
            if (live.length === 0) continue
            const id = live[action.pick % live.length]!
            yield* Fiber.interrupt(tasks[id]!.fiber)
            if (holders.delete(id)) grant()
            else queue.splice(queue.indexOf(id), 1)
          }
          yield* check
        }
        // Nobody starves: releasing the holders one by one serves every waiter left.
        while (holders.size > 0) {
          const id = [...holders][0]!
          yield* Deferred.succeed(tasks[id]!.gate, undefined)
          yield* Fiber.join(tasks[id]!.fiber)
          holders.delete(id)
          grant()
          yield* check
        }
        expect(maxHeld).toBeLessThanOrEqual(limit)
        expect(permits.available()).toBe(limit)
        expect(permits.waiting()).toBe(0)
      }),
    { fastCheck: { numRuns: 100 } }
  )

  it.effect("a waiter interrupted right after a permit is handed to it passes the permit on", () =>
    Effect.gen(function*() {
      const permits = Permits.unsafeMake(1)
      let waiter: Fiber.RuntimeFiber<void> | undefined
      yield* permits.withPermit(Effect.gen(function*() {
        waiter = yield* Effect.fork(permits.withPermit(Effect.never))
        yield* settle
        expect(permits.waiting()).toBe(1)
      }))
      // The release above handed the permit to the waiter, which has not run yet: interrupt it now.
      yield* Fiber.interrupt(waiter!)
      expect(permits.available()).toBe(1)
      expect(permits.waiting()).toBe(0)
      yield* permits.withPermit(Effect.void)
      expect(permits.available()).toBe(1)
    }))

  it.effect("a holder that fails or is interrupted returns its permit", () =>
    Effect.gen(function*() {
      const permits = Permits.unsafeMake(1)
      const failed = yield* permits.withPermit(Effect.fail("boom")).pipe(Effect.flip)
      expect(failed).toBe("boom")
      expect(permits.available()).toBe(1)
      const holder = yield* Effect.fork(permits.withPermit(Effect.never))
      yield* settle
      expect(permits.available()).toBe(0)
      yield* Fiber.interrupt(holder)
      expect(permits.available()).toBe(1)
    }))

  it.effect("thousands of waiters: all served once, in arrival order, never more than the limit at once", () =>
    Effect.gen(function*() {
      const permits = Permits.unsafeMake(16)
      let held = 0
      let maxHeld = 0
      const order: Array<number> = []
      const ids = Array.from({ length: 2000 }, (_, i) => i)
      yield* Effect.forEach(
        ids,
        (id) =>
          permits.withPermit(Effect.gen(function*() {
            held++
            maxHeld = Math.max(maxHeld, held)
            order.push(id)
            yield* Effect.yieldNow()
            held--
          })),
        { concurrency: "unbounded", discard: true }
      )
      expect(order).toEqual(ids)
      expect(maxHeld).toBe(16)
      expect(permits.available()).toBe(16)
    }))
})
