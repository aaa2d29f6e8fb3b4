/**
 * The command line's `@effect/cli` options, built from their definitions as data (`flags.ts`):
 * only `Cli.ts` loads this module (help, usage errors, the calls `cliArgs.quickParse` leaves to
 * `@effect/cli`).
 */
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as Options from "@effect/cli/Options"
import * as ValidationError from "@effect/cli/ValidationError"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { Params } from "../read/params.js"
import { type Flag, readFlags, wholeNumbersOf } from "./flags.js"

export { paramsOf } from "./flags.js"

type Field = Exclude<keyof Params, "filePath">

/** Each read option, typed as its parameter; `None` when not given. */
export type ReadOptions = { readonly [K in Field]-?: Options.Options<Option.Option<Exclude<Params[K], undefined>>> }

/**
 * A parameter made of whole numbers (`region`: x, y, width, height) as one option, its values
 * comma-separated in the schema's order (`--region 0,0,640,480`); `read` checks their ranges.
 */
const wholeNumbers = (name: string, fields: ReadonlyArray<string>): Options.Options<unknown> =>
  Options.text(name).pipe(
    Options.mapEffect((text) => {
      const value = wholeNumbersOf(text, fields)
      return value !== undefined
        ? Effect.succeed(value)
        : Effect.fail(
          ValidationError.invalidValue(
            HelpDoc.p(
              `--${name} takes ${fields.join(",")} as whole numbers, e.g. ${
                fields.map(() => "0").join(",")
              }; got ${text}`
            )
          )
        )
    })
  )

/** The `@effect/cli` option of one flag. */
export const optionOf = (flag: Flag): Options.Options<unknown> => {
  const { kind, name } = flag
  const option: Options.Options<unknown> = kind._tag === "boolean"
    ? Options.boolean(name)
    : kind._tag === "text"
    ? Options.text(name)
    : kind._tag === "integer"
    ? Options.integer(name)
    : kind._tag === "float"
    ? Options.float(name)
    : kind._tag === "choice"
    ? Options.choice(name, kind.choices)
    : kind._tag === "wordOrNumber"
    ? Options.text(name).pipe(Options.map((text) => /^\d+$/.test(text) ? Number(text) : text))
    : kind._tag === "wholeNumbers"
    ? wholeNumbers(name, kind.fields)
    : Options.fileText(name)
  const given = kind._tag === "boolean"
    // A read's flag is given or not: not given is the parameter left out, not `false`.
    ? flag.readParam === true
      ? option.pipe(Options.map((on) => on === true ? Option.some(true) : Option.none()))
      : option
    : kind._tag === "text" && kind.repeated === true
    ? Options.repeated(option)
    : Options.optional(option)
  return given.pipe(Options.withDescription(flag.description))
}

/** The options of `flags`, by key, in their order. */
export const optionsOf = (flags: ReadonlyArray<Flag>): Record<string, Options.Options<unknown>> =>
  Object.fromEntries(flags.map((flag) => [flag.key, optionOf(flag)]))

/** The options of a read, in the order of `ReadParams`. */
export const readOptions: ReadOptions = optionsOf(readFlags) as unknown as ReadOptions
