/**
 * Secret values kept out of what a read returns. With `layerMask` provided, every text a read
 * returns — the page, its preview, views, diffs of session memory, archive members, `read_many`
 * blocks, hashline anchors — has secret values replaced by placeholders that name what was there
 * (`‹secret: GitHub token›`), within their lines: line numbers and the number of lines never change,
 * and `metadata.masked` counts what was masked.
 *
 * A placeholder names a kind and nothing else, so no read can take it back for the value: hashline
 * tags hash the masked text, the anchor store keeps the masked lines, `Anchors.verify` compares and
 * answers with masked text, and the read ledger does not count masked lines as read (an Edit guard
 * asking `FileTime.covers` refuses them). An Edit tool should refuse any text that carries one
 * (`hasPlaceholder`).
 *
 * What is found (pure, `src/internal/core/secrets.ts`): vendor-prefixed tokens, JWTs, bearer
 * tokens, passwords in URLs and private-key blocks anywhere; values of assignments whose key names
 * a secret, judged by the file's kind (`styleOf`).
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { type MaskOptions, maskText, styleOf } from "./internal/core/secrets.js"
import { isTextual, type ReadResult } from "./ReadResult.js"

export {
  hasPlaceholder,
  type Masked,
  type MaskOptions,
  maskText,
  placeholder,
  privateKeyIn,
  secretsIn,
  type Style,
  styleOf
} from "./internal/core/secrets.js"

export interface MaskingShape {
  readonly enabled: boolean
}

/** Whether reads mask secret values: a `Context.Reference`, off by default. */
export class Masking extends Context.Reference<Masking>()("effect-read/Secrets/Masking", {
  defaultValue: (): MaskingShape => ({ enabled: false })
}) {}

/** Mask secret values in everything reads return. */
export const layerMask: Layer.Layer<Masking> = Layer.succeed(Masking, { enabled: true })

/** The rendering prefix of a line of output: `12: ` (default), `12:` (hashline), `3-9: ` (outline), a diff's mark. */
const OUTPUT_GUTTER = /^(?:\d+(?:-\d+)?: ?|[-+ ](?![-+]))/

/** Lines of the rendering, not of the file: tags and parenthesised notices and footers. */
const OUTPUT_FRAME = /^(?:<\/?(?:path|type|content|entries)>.*|\(.*\))$/

/** The file a result's text came from, for its style: an archive member's own name. */
const nameOf = (path: string): string => path.split(/[/\\:]/).pop() ?? path

/** The number a line of output carries (`12: text`, `12:text`), if any. */
const lineNumberOf = (line: string): number | undefined => {
  const match = /^(\d+):/.exec(line)
  return match === null ? undefined : Number(match[1])
}

/**
 * A result with its secret values masked (pure): the output and preview, and `metadata.masked`
 * (`secrets` found, the file's `lines` they were on when numbered, counts by kind), added to what an
 * earlier pass counted. A result with nothing to mask is returned as it is. `path` names the file
 * the text is from when it is not `metadata.path` (a link's target), for the file's style.
 */
export const maskResult = (result: ReadResult, path: string = result.metadata.path): ReadResult => {
  const metadata = result.metadata
  if (metadata.kind === "image" || metadata.kind === "pdf" || metadata.kind === "directory") return result
  const name = nameOf(path)
  const options: MaskOptions = { style: styleOf(name), name }
  const textual = isTextual(metadata) ? metadata : undefined
  const startsInside = (textual?.startLine ?? 1) > 1
  const outputLines = result.output.split("\n")
  const continuesAt = textual?.column !== undefined && textual.column > 1
    ? outputLines.findIndex((line) => lineNumberOf(line) !== undefined)
    : undefined
  const output = maskText(result.output, {
    ...options,
    gutter: OUTPUT_GUTTER,
    frame: OUTPUT_FRAME,
    startsInside,
    continuesAt
  })
  const preview = maskText(metadata.preview, { ...options, startsInside })
  if (output.count === 0 && preview.count === 0) return result
  const lines = new Set(metadata.masked?.lines ?? [])
  for (const i of output.lines) {
    const number = lineNumberOf(outputLines[i]!)
    if (number !== undefined) lines.add(number)
  }
  const kinds: Record<string, number> = { ...metadata.masked?.kinds }
  for (const [kind, count] of Object.entries(output.kinds)) kinds[kind] = (kinds[kind] ?? 0) + count
  return {
    ...result,
    output: output.text,
    metadata: {
      ...metadata,
      preview: preview.text,
      masked: {
        secrets: (metadata.masked?.secrets ?? 0) + Math.max(output.count, preview.count),
        lines: [...lines].sort((a, b) => a - b),
        kinds
      }
    }
  }
}

/**
 * `maskResult` when masking is on (`Masking`), else the result as it is. The file's style comes
 * from its real path: a link named `notes.txt` to `.env` is masked as an env file.
 */
export const apply = (result: ReadResult): Effect.Effect<ReadResult, never, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    if (!(yield* Masking).enabled) return result
    const fs = yield* FileSystem.FileSystem
    const real = yield* fs.realPath(result.metadata.path).pipe(Effect.orElseSucceed(() => result.metadata.path))
    return maskResult(result, real)
  })

/**
 * The file's lines that masking would change in `result` (none when masking is off): what the
 * model is not shown, so not recorded as read.
 */
export const maskedLines = (result: ReadResult, path?: string): Effect.Effect<ReadonlyArray<number>> =>
  Effect.map(Masking, (masking) => masking.enabled ? maskResult(result, path).metadata.masked?.lines ?? [] : [])

/** `maskText` for a file's whole text when masking is on (hashline tags and anchor lines). */
export const maskFileText = (text: string, path: string): Effect.Effect<string> =>
  Effect.map(
    Masking,
    (masking) => masking.enabled ? maskText(text, { style: styleOf(path), name: nameOf(path) }).text : text
  )
