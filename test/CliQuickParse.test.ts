/**
 * The bin parses the common calls (a read, `mcp`) without `@effect/cli` (`cliArgs.quickParse`,
 * start-up) and leaves every other call to it. Where the quick parser answers, it must answer as
 * `@effect/cli` does: the same command, the same arguments, typed the same.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Option from "effect/Option"
import * as Cli from "../src/Cli.js"
import { quickParse } from "../src/internal/doors/cliArgs.js"
import { type Flag, mcpFlags, permissionFlags, readCommandFlags } from "../src/internal/doors/flags.js"

/** A command's arguments without `subcommand`, which `@effect/cli` adds and no handler reads. */
const own = ({ subcommand: _, ...args }: Record<string, unknown>) => args

/** What `@effect/cli` gives the handlers for `words` (`undefined` when it ran none). */
const parsedByEffectCli = (words: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    let got: unknown = undefined
    const handlers = {
      read: (args: Record<string, unknown>) =>
        Effect.sync(() => {
          got = { command: "read", args: own(args) }
        }),
      mcp: (args: Record<string, unknown>, parent: Record<string, unknown>) =>
        Effect.sync(() => {
          got = { command: "mcp", args: own(args), parent: own(parent) }
        }),
      many: () =>
        Effect.sync(() => {
          got = { command: "many" }
        })
    }
    yield* Cli.run(["node", "effect-read", ...words]).pipe(
      Effect.provideService(Cli.CommandHandlers, handlers as never),
      // Help and usage errors are not what this compares: kept off the test's output.
      Effect.withConsole({ ...(yield* Effect.console), log: () => Effect.void, error: () => Effect.void }),
      Effect.provide(NodeContext.layer)
    )
    return got
  })

/** A value of `flag`'s type, as a person would write it. */
const valueOf = (flag: Flag): FastCheck.Arbitrary<string> => {
  switch (flag.kind._tag) {
    case "integer":
      return FastCheck.oneof(FastCheck.nat({ max: 100_000 }).map(String), FastCheck.constantFrom("0", "007", "2000"))
    case "float":
      return FastCheck.constantFrom("1", "30", "0.5", "2.25", "120")
    case "choice":
      return FastCheck.constantFrom(...flag.kind.choices)
    case "wordOrNumber":
      return FastCheck.constantFrom("syntax", "0", "3", "50")
    case "wholeNumbers":
      return FastCheck.constantFrom("0,0,640,480", "10,20,30,40", " 1, 2,3 ,4")
    case "text":
      return FastCheck.constantFrom(
        "a",
        "src/**/*.ts",
        "utf-8",
        "shift_jis",
        "a b",
        "é",
        "sqlite:x.db",
        "TODO|FIXME",
        "x=y"
      )
    default:
      return FastCheck.constant("")
  }
}

/** `--name value` or `--name=value` (a flag alone), for a subset of `flags` in any order. */
const optionsOf = (flags: ReadonlyArray<Flag>) =>
  FastCheck.shuffledSubarray(flags.filter((flag) => flag.kind._tag !== "fileText")).chain((chosen) =>
    FastCheck.tuple(...chosen.map((flag) =>
      flag.kind._tag === "boolean"
        ? FastCheck.constant([`--${flag.name}`])
        : FastCheck.tuple(
          valueOf(flag),
          FastCheck.boolean(),
          FastCheck.integer({ min: 1, max: flag.kind._tag === "text" && flag.kind.repeated ? 2 : 1 })
        )
          .map(([value, inline, times]) =>
            Array.from({ length: times }, () =>
              // A repeated option is written `--allow value` only: `@effect/cli` refuses `--allow=value`.
              inline && times === 1 && !(flag.kind._tag === "text" && flag.kind.repeated)
                ? [`--${flag.name}=${value}`]
                : [`--${flag.name}`, value]).flat()
          )
    ))
  )

const paths = FastCheck.constantFrom(
  "a.txt",
  "src/app.ts",
  "notes.md:10-20",
  "dir/",
  "mcp.txt",
  "ünï.md",
  "/abs/x",
  "a.zip:b.ts"
)

/** A read as a person writes it: options before and after the path. */
const readCall = FastCheck.tuple(optionsOf(readCommandFlags), paths, FastCheck.nat()).map(([options, path, at]) => {
  const cut = options.length === 0 ? 0 : at % (options.length + 1)
  return [...options.slice(0, cut).flat(), path, ...options.slice(cut).flat()]
})

/** `mcp`, with the options the read command shares with it before the subcommand. */
const mcpCall = FastCheck.tuple(
  optionsOf(readCommandFlags.filter((flag) => flag.name === "cwd" || permissionFlags.includes(flag))),
  optionsOf(mcpFlags)
).map(([before, after]) => [...before.flat(), "mcp", ...after.flat()])

/** Anything: the words that trip a parser, in any order. */
const anyCall = FastCheck.array(
  FastCheck.constantFrom(
    "--offset",
    "-3",
    "1.5",
    "abc",
    "12",
    "--json",
    "true",
    "false",
    "--view",
    "OUTLINE",
    "outline",
    "--",
    "-h",
    "--help",
    "--version",
    "mcp",
    "many",
    "a.txt",
    "b.txt",
    "--unknown",
    "--region",
    "1,2,3",
    "1,2,3,4",
    "",
    "--rules",
    "r.json",
    "--cwd=",
    "--cwd",
    ".",
    "--json=false",
    "--ask-timeout",
    "0",
    "-1",
    "--store",
    "sqlite:x",
    "--allow",
    "*.env",
    "--context",
    "syntax",
    "3x",
    "--full-resolution",
    "--format",
    "envelope",
    "--limit=5",
    "-",
    "--levels",
    "2"
  ),
  { maxLength: 8 }
)

describe("the quick parser", () => {
  it.effect.prop(
    "answers every common call, and answers it as @effect/cli does",
    [FastCheck.oneof(readCall, mcpCall)],
    ([words]) =>
      Effect.gen(function*() {
        const quick = quickParse(words)
        expect(quick, words.join(" ")).toBeDefined()
        expect(yield* parsedByEffectCli(words)).toEqual(quick)
      }),
    { fastCheck: { numRuns: 150 } }
  )

  it.effect.prop("leaves to @effect/cli what it is not sure of; what it answers, it answers as @effect/cli does", [
    anyCall
  ], ([words]) =>
    Effect.gen(function*() {
      const quick = quickParse(words)
      if (quick !== undefined) expect(yield* parsedByEffectCli(words)).toEqual(quick)
    }), { fastCheck: { numRuns: 500 } })

  it("leaves help, the other built-ins, many, --, short options, --rules and a value of the wrong type to @effect/cli", () => {
    for (
      const words of [
        [],
        ["--help"],
        ["--version"],
        ["a.txt", "-h"],
        ["many", "a.txt"],
        ["--", "mcp"],
        ["-x", "a.txt"],
        ["--rules", "r.json", "a.txt"],
        ["--offset", "1.5", "a.txt"],
        ["--offset", "-3", "a.txt"],
        ["--view", "OUTLINE", "a.txt"],
        ["--json", "true", "a.txt"],
        ["--json=false", "a.txt"],
        ["--offset", "1", "--offset", "2", "a.txt"],
        ["a.txt", "b.txt"],
        ["mcp", "a.txt"],
        ["mcp", "--offset", "3"],
        ["--region", "1,2,3", "a.txt"],
        ["--allow=a", "a.txt"],
        ["--cwd", "many", "0"],
        ["--search=mcp", "a.txt"]
      ]
    ) expect(quickParse(words), words.join(" ")).toBeUndefined()
  })

  it("gives a read's arguments typed as the handler takes them", () => {
    const quick = quickParse([
      "--cwd",
      "/p",
      "--offset=3",
      "--full-resolution",
      "--allow",
      "a",
      "--allow",
      "b",
      "x.ts",
      "--json"
    ])
    expect(quick?.command).toBe("read")
    if (quick?.command !== "read") return
    expect(quick.args.filePath).toEqual(Option.some("x.ts"))
    expect(quick.args.cwd).toEqual(Option.some("/p"))
    expect(quick.args.offset).toEqual(Option.some(3))
    expect(quick.args.fullResolution).toEqual(Option.some(true))
    expect(quick.args.pageImages).toEqual(Option.none())
    expect(quick.args.json).toBe(true)
    expect(quick.args.maskSecrets).toBe(false)
    expect(quick.args.allow).toEqual(["a", "b"])
    expect(quick.args.deny).toEqual([])
  })
})
