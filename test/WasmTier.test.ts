/**
 * The front doors run WebAssembly in V8's baseline tier only (`doors/wasmTier.ts`), unless node was
 * started with a flag of V8's WebAssembly tiers. The flags are checked in fresh processes on the
 * Node running the suite (CI runs it on 20, 22 and 24): accepted without a word on stderr, and a
 * hot function stays in the baseline tier where, without them, V8 optimises it.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { choosesWasmTiers } from "../src/internal/doors/wasmTier.js"
import { runProcess } from "./support/index.js"

/** The built module (the suite's global setup builds dist/ first), as the bin loads it. */
const wasmTier = pathToFileURL(path.resolve("dist/internal/doors/wasmTier.js")).href

/**
 * A fresh process: a small WebAssembly loop, called `calls` times or, with `calls` 0, until V8 has
 * optimised it (10 s at most: only a hang's guard); prints how many calls and each tier's answer.
 */
const hotLoop = (setFlags: boolean, calls: number) => `
  const { baselineWasmOnly } = await import(${JSON.stringify(wasmTier)})
  const set = ${setFlags} ? baselineWasmOnly([]) : false
  // (func (export "f") (param i32) (result i32)): the sum 1..n, in a loop.
  const bytes = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 6, 1, 96, 1, 127, 1, 127, 3, 2, 1, 0,
    7, 5, 1, 1, 102, 0, 0, 10, 35, 1, 33, 1, 1, 127, 2, 64, 3, 64, 32, 0, 69, 13, 1, 32, 1, 32, 0,
    106, 33, 1, 32, 0, 65, 1, 107, 33, 0, 12, 0, 11, 11, 32, 1, 11])
  const f = new WebAssembly.Instance(new WebAssembly.Module(bytes)).exports.f
  const optimised = new Function("f", "return %IsTurboFanFunction(f)")
  const baseline = new Function("f", "return %IsLiftoffFunction(f)")
  if (f(10) !== 55) throw new Error("the loop is wrong")
  let calls = 0
  const deadline = Date.now() + 10_000
  while (${calls} === 0 ? !optimised(f) && Date.now() < deadline : calls < ${calls}) {
    f(1000)
    calls++
  }
  console.log(JSON.stringify({ set, calls, optimised: optimised(f), baseline: baseline(f) }))
`

const run = async (setFlags: boolean, calls: number) => {
  const { code, stderr, stdout } = await runProcess(process.execPath, [
    "--allow-natives-syntax",
    "--input-type=module",
    "-e",
    hotLoop(setFlags, calls)
  ])
  expect({ code, stderr }).toEqual({ code: 0, stderr: "" })
  return JSON.parse(stdout) as { set: boolean; calls: number; optimised: boolean; baseline: boolean }
}

describe("wasmTier", () => {
  it("leaves a process started with a WebAssembly tier flag as it is", () => {
    for (
      const argv of [
        ["--liftoff-only"],
        ["--no-liftoff"],
        ["--wasm-dynamic-tiering"],
        ["--no-wasm-tier-up"],
        ["--nowasm-tier-up"],
        ["--inspect", "--wasm_dynamic_tiering"],
        ["--wasm-tier-up=false"]
      ]
    ) expect(choosesWasmTiers(argv), argv.join(" ")).toBe(true)
    for (
      const argv of [
        [],
        ["--wasm-num-compilation-tasks=1"],
        ["--liftoff-x"],
        ["--wasm-tiering-budget=100"],
        ["--enable-source-maps"]
      ]
    ) expect(choosesWasmTiers(argv), argv.join(" ")).toBe(false)
  })

  it.prop(
    "finds a tier flag anywhere among other arguments, in any spelling V8 reads",
    [
      fc.array(fc.string().filter((argument) => !/tier|liftoff/.test(argument))),
      fc.constantFrom("wasm-dynamic-tiering", "wasm-tier-up", "liftoff", "liftoff-only"),
      fc.constantFrom("", "no-", "no"),
      fc.boolean(),
      fc.constantFrom("", "=true", "=false"),
      fc.nat()
    ],
    ([others, name, negation, underscores, value, at]) => {
      expect(choosesWasmTiers(others)).toBe(false)
      const spelt = underscores ? name.replace(/-/g, "_") : name
      const argv = [...others]
      argv.splice(at % (others.length + 1), 0, `--${negation}${spelt}${value}`)
      expect(choosesWasmTiers(argv)).toBe(true)
    }
  )

  it("keeps a hot function in the baseline tier, where V8 would otherwise optimise it", async () => {
    const defaults = await run(false, 0)
    expect(defaults).toMatchObject({ set: false, optimised: true })
    // Many more calls than it took V8 to optimise the same loop with its defaults.
    const baseline = await run(true, 4 * defaults.calls + 100_000)
    expect(baseline).toMatchObject({ set: true, optimised: false, baseline: true })
  }, 60_000)
})
