/**
 * `node --expose-gc bench/sessionsMemory.mjs MAX_SESSIONS CONVERSATIONS` (after `npm run build`):
 * prints the bytes (V8 heap in use plus buffers outside it, after a forced GC) that
 * `SessionMemory.make({ maxSessions })` retains once CONVERSATIONS conversations have each
 * remembered 10 files of 100 lines (the lines kept for change notices). `Infinity`: no bound.
 * One figure per fresh process: run by bench/sessions.mjs and test/SessionBounds.test.ts.
 */
import * as Effect from "effect/Effect"
import * as SessionMemory from "../dist/SessionMemory.js"

const [maxSessions, conversations] = process.argv.slice(2, 4).map(Number)
const measure = () => {
  globalThis.gc()
  globalThis.gc()
  const usage = process.memoryUsage()
  return usage.heapUsed + usage.external
}
const memory = SessionMemory.make({ maxSessions })
const lines = Array.from({ length: 100 }, (_, i) => [i + 1, `export const value${i} = ${i} // a line of code`])
const hashes = new Float64Array(100).map((_, i) => i * 7919)
const conversation = (id) =>
  Effect.gen(function*() {
    for (let f = 0; f < 10; f++) {
      const path = `/work/project/src/module${f}.ts`
      const seq = yield* memory.remember(id, path, { start: 1, end: 100, hash: `h${f}`, encoding: "utf-8" })
      yield* memory.keep(id, path, seq, { hash: `h${f}`, encoding: "utf-8", hashes, lines })
    }
  })
await Effect.runPromise(conversation("warm"))
const before = measure()
for (let i = 0; i < conversations; i++) await Effect.runPromise(conversation(`conversation-${i}`))
console.log(measure() - before)
