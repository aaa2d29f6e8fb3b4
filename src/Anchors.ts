/**
 * Hashline anchors for a host's Edit tool. A read with `lineFormat: "hashline"` shows an editable
 * text file under a `¶PATH#TAG` header (TAG names the version of the whole file) with `N:text`
 * lines. Before an Edit changes lines the model chose from such a read, `verify` reads the file
 * as it is now — through the same permission checks and checked descriptor as `read` — and says
 * whether those lines are still where the model saw them:
 *
 * - `Valid`: the file still has the tag, or the lines are unchanged at the same numbers;
 * - `Moved`: the lines are unchanged at other numbers (lines were added or removed above them);
 * - `Stale`: the lines changed, or cannot be found: the current lines and, when the old ones are
 *   known, a diff; the Edit should not apply and the model should read again.
 *
 * The old lines come from the call (`lines`, as the model saw them) or from what hashline reads
 * of this session recorded under the tag (`AnchorStore`).
 */
import * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { detect, detectionFor, encodingExists } from "./internal/core/encoding.js"
import {
  anchorHeader,
  hashline,
  HASHLINE_MAX_BYTES,
  isTag,
  linesOf,
  locate,
  parseHeader,
  tagOf,
  unifiedDiff
} from "./internal/core/hashline.js"
import { fromPlatformError } from "./internal/io/platformError.js"
import { askContent, checkAccess, CONTENT_SNIFF_BYTES, resolveTarget, textOf } from "./internal/read/access.js"
import { readChecked } from "./internal/read/open.js"
import { anchorPath, AnchorStore } from "./internal/store/anchors.js"
import type { Permission } from "./Permission.js"
import { BinaryFile, InvalidParams, NotAFile, type ReadError } from "./ReadError.js"
import type { ReadResult } from "./ReadResult.js"
import * as Secrets from "./Secrets.js"
import { Workspace } from "./Workspace.js"

export { HASHLINE_MAX_BYTES, parseHeader, tagOf } from "./internal/core/hashline.js"
export {
  AnchorStore,
  type AnchorStoreOptions,
  type AnchorStoreShape,
  layerAnchorStore,
  layerNoopAnchorStore,
  makeAnchorStore,
  noAnchorStore,
  noopAnchorStore
} from "./internal/store/anchors.js"

export const VerifyParams = Schema.Struct({
  filePath: Schema.String.pipe(Schema.minLength(1, { message: () => "filePath must not be empty" })),
  tag: Schema.String.annotations({
    description: "The TAG of the ¶PATH#TAG header the lines were read under (or the whole header)"
  }),
  start: Schema.Int.pipe(Schema.greaterThanOrEqualTo(1, { message: () => "start must be a line number (1-based)" })),
  end: Schema.optionalWith(
    Schema.Int.pipe(Schema.greaterThanOrEqualTo(1, { message: () => "end must be a line number (1-based)" })),
    { exact: true }
  ),
  lines: Schema.optionalWith(Schema.Array(Schema.String), { exact: true }).annotations({
    description: "Lines start-end as the model saw them (text without the N: prefix); else the session's record"
  }),
  encoding: Schema.optionalWith(Schema.String.pipe(Schema.filter((name) => encodingExists(name))), { exact: true })
}).annotations({ identifier: "VerifyParams" })
export type VerifyParams = typeof VerifyParams.Type

const Range = Schema.Struct({ start: Schema.Number, end: Schema.Number })
const Line = Schema.Struct({ line: Schema.Number, text: Schema.String })

/** The lines are where the model saw them; `changed` when the file changed elsewhere (a new tag). */
export const Valid = Schema.TaggedStruct("Valid", {
  header: Schema.String,
  tag: Schema.String,
  start: Schema.Number,
  end: Schema.Number,
  changed: Schema.Boolean,
  message: Schema.String
})
/** The lines are unchanged at `start`-`end` now (they were `from`). */
export const Moved = Schema.TaggedStruct("Moved", {
  header: Schema.String,
  tag: Schema.String,
  from: Range,
  start: Schema.Number,
  end: Schema.Number,
  message: Schema.String
})
/** The lines changed or cannot be placed: the current lines where they most likely are, and a diff when known. */
export const Stale = Schema.TaggedStruct("Stale", {
  header: Schema.optional(Schema.String),
  tag: Schema.optional(Schema.String),
  reason: Schema.String,
  current: Schema.Array(Line),
  diff: Schema.optional(Schema.String),
  message: Schema.String
})
export const Verdict = Schema.Union(Valid, Moved, Stale).annotations({ identifier: "AnchorVerdict" })
export type Verdict = typeof Verdict.Type

/** What `verify` needs: the services of `read`'s file path. */
export type VerifyRequirements = FileSystem.FileSystem | Path.Path | Workspace | Permission

const decodeParams = (input: unknown) =>
  Schema.decodeUnknown(VerifyParams, { onExcessProperty: "error" })(input).pipe(
    Effect.mapError((error) => new InvalidParams({ reason: error.message }))
  )

const numbered = (lines: ReadonlyArray<string>, start: number) => lines.map((text, i) => ({ line: start + i, text }))

const render = (lines: ReadonlyArray<{ readonly line: number; readonly text: string }>) =>
  lines.map(({ line, text }) => hashline(line, text)).join("\n")

const span = (start: number, end: number) => start === end ? `line ${start}` : `lines ${start}-${end}`

/**
 * May an Edit change lines `start`-`end` that the model read under `tag`? Reads the file now
 * (permission checks as `read`, at most `HASHLINE_MAX_BYTES`), finds the lines and answers
 * `Valid`, `Moved` or `Stale` (see the module comment). Fails with the `ReadError` a read of
 * the path would give, or `InvalidParams` for a malformed request (what the types cannot say:
 * line numbers from 1, a known encoding, no other key). For input from a model, use
 * `verifyUnknown`.
 */
export const verify: (
  params: VerifyParams
) => Effect.Effect<Verdict, ReadError, VerifyRequirements> = Effect.fn("Anchors.verify")(function*(
  input: VerifyParams
) {
  const params = yield* decodeParams(input)
  const wanted = isTag(params.tag) ? params.tag.toUpperCase() : parseHeader(params.tag)?.tag
  if (wanted === undefined) {
    return yield* new InvalidParams({
      reason: `tag must be 4 hex digits or a ¶PATH#TAG header, not ${JSON.stringify(params.tag)}`
    })
  }
  const start = params.start
  const end = params.end ?? (params.lines === undefined ? start : start + params.lines.length - 1)
  if (end < start) return yield* new InvalidParams({ reason: `end (${end}) must not be before start (${start})` })
  if (params.lines !== undefined && params.lines.length !== end - start + 1) {
    return yield* new InvalidParams({
      reason: `lines holds ${params.lines.length} lines; ${span(start, end)} are ${end - start + 1}`
    })
  }

  const fs = yield* FileSystem.FileSystem
  const target = yield* checkAccess(yield* resolveTarget(params.filePath))
  const info = yield* fs.stat(target.absolute).pipe(
    Effect.mapError((error) => fromPlatformError(target.absolute, error))
  )
  if (info.type !== "File") {
    return yield* new NotAFile({
      path: target.absolute,
      kind: info.type === "Directory" ? "directory" : "special file"
    })
  }
  const stale = (
    reason: string,
    extra: Partial<
      { header: string; tag: string; current: ReadonlyArray<{ line: number; text: string }>; diff: string }
    > = {}
  ) => {
    const current = extra.current ?? []
    const verdict: Verdict = Stale.make({
      ...(extra.header === undefined ? {} : { header: extra.header, tag: extra.tag! }),
      reason,
      current,
      ...(extra.diff === undefined ? {} : { diff: extra.diff }),
      message: [
        `Do not edit ${span(start, end)} of ${params.filePath} by their #${wanted} numbers: ${reason}.${
          extra.header === undefined ? "" : ` The file is now ${extra.header}.`
        } Read it again.`,
        ...(extra.diff !== undefined ? [extra.diff] : current.length > 0 ? [render(current)] : [])
      ].join("\n")
    })
    return verdict
  }
  if (Number(info.size) > HASHLINE_MAX_BYTES) {
    return stale(`the file is over ${HASHLINE_MAX_BYTES / 1024 / 1024} MiB, so it has no tag`)
  }
  const bytes = yield* readChecked(target)
  const detection = params.encoding === undefined ? detect(bytes, true) : detectionFor(params.encoding, bytes)
  if (detection._tag === "Binary") return yield* new BinaryFile({ path: target.absolute, size: bytes.length })
  // What the file holds is asked about as a read asks (a private key is denied here too).
  yield* askContent(target, Effect.sync(() => textOf(bytes.subarray(0, CONTENT_SNIFF_BYTES))))
  const real = detection.codec.decode(bytes.subarray(detection.bomLength)).text
  // With masking on, everything is compared and answered in the masked text the model was shown.
  const text = yield* Secrets.maskFileText(real, target.absolute)
  const tag = tagOf(text)
  const header = anchorHeader(yield* anchorPath(target.absolute), tag)
  const now = linesOf(text)
  const at = (from: number, to: number) => numbered(now.slice(from - 1, to), from)
  // Lines that hold a masked value: an edit by number would write the placeholder over the secret.
  const realLines = text === real ? now : linesOf(real)
  const maskedIn = (from: number, to: number) => {
    for (let line = from; line <= Math.min(to, now.length); line++) {
      if (now[line - 1] !== realLines[line - 1]) return line
    }
    return undefined
  }
  const guarded = (verdict: Verdict): Verdict => {
    if (verdict._tag === "Stale") return verdict
    const line = maskedIn(verdict.start, verdict.end)
    if (line === undefined) return verdict
    return stale(
      `line ${line} holds a secret value that was masked (‹secret: …›); an edit by these numbers would write the placeholder, not the value`,
      { header, tag, current: at(verdict.start, Math.min(verdict.end, now.length)) }
    )
  }

  const store = yield* AnchorStore
  const { sessionId } = yield* Workspace
  const known = new Map(yield* store.lookup(sessionId, target.absolute, wanted))
  params.lines?.forEach((line, i) => known.set(start + i, line))
  // The same version and no lines to compare: the numbers are the model's own.
  if (tag === wanted && params.lines === undefined) {
    if (end > now.length) {
      return yield* new InvalidParams({
        reason: `${span(start, end)} are past the end of ${params.filePath} (${now.length} lines)`
      })
    }
    return guarded(
      Valid.make({
        header,
        tag,
        start,
        end,
        changed: false,
        message: `${span(start, end)} of ${params.filePath} are as you read them (${header}).`
      })
    )
  }
  const missing = Array.from({ length: end - start + 1 }, (_, i) => start + i).filter((n) => !known.has(n))
  if (missing.length > 0) {
    return stale(`this session was not shown ${span(missing[0]!, missing[missing.length - 1]!)} under #${wanted}`, {
      header,
      tag,
      current: at(start, Math.min(end, now.length))
    })
  }
  const location = locate(known, start, end, now)
  switch (location._tag) {
    case "Same":
      return guarded(Valid.make({
        header,
        tag,
        start,
        end,
        changed: tag !== wanted,
        message: `${span(start, end)} of ${params.filePath} are as you read them${
          tag === wanted ? "" : `; the file changed elsewhere and is now ${header}`
        }.`
      }))
    case "Moved":
      return guarded(Moved.make({
        header,
        tag,
        from: { start, end },
        start: location.start,
        end: location.end,
        message: `${span(start, end)} of ${params.filePath} as you read them (#${wanted}) are now ${
          span(location.start, location.end)
        } (${header}): lines were ${location.start > start ? "added" : "removed"} above them.`
      }))
    case "Ambiguous":
      return stale(`they now occur at lines ${location.starts.join(", ")} and nothing you read tells which`, {
        header,
        tag,
        current: location.starts.flatMap((s) => at(s, s + end - start))
      })
    case "Changed": {
      const near = location.near
      const before = Array.from({ length: end - start + 1 }, (_, i) => known.get(start + i)!)
      const current = near === undefined ? [] : at(near.start, near.end)
      const diff = unifiedDiff(
        { label: `${params.filePath} #${wanted} (as you read it)`, start, lines: before },
        {
          label: `${params.filePath} #${tag} (now)`,
          start: near?.start ?? start,
          lines: current.map((line) => line.text)
        }
      )
      return stale("they changed since you read them", {
        header,
        tag,
        current,
        ...(diff === undefined ? {} : { diff })
      })
    }
  }
})

/** Why a read asked for hashline has no anchor, by what it read. */
const omittedReasons: Record<ReadResult["metadata"]["kind"], string> = {
  // Text files give their own reason (`:raw`, over 4 MiB); other text comes from no editable file.
  text: "this text is not the lines of an editable file",
  directory: "a directory listing has no lines to edit",
  image: "an image has no lines to edit",
  pdf: "a PDF has no lines to edit",
  archive: "archive members are read-only",
  database: "database output is not a file to edit",
  notebook: "a notebook is shown converted, not as the lines of its file",
  document: "a document is shown converted, not as the lines of its file",
  web: "a web page is not a file to edit"
}

/**
 * `read`'s last step for `lineFormat: "hashline"`: a result without an anchor says why, in
 * `metadata.anchorOmitted` and on its first line; a result with one is returned as it is.
 */
export const explainOmitted = (result: ReadResult): ReadResult => {
  if ("anchor" in result.metadata && result.metadata.anchor !== undefined) return result
  const reason = result.metadata.anchorOmitted ?? omittedReasons[result.metadata.kind]
  return {
    ...result,
    output: `(No ¶ anchor: ${reason}.)\n${result.output}`,
    metadata: { ...result.metadata, anchorOmitted: reason }
  }
}

/** `verify` for input from a model or any JSON: decoded against `VerifyParams`; a malformed request is `InvalidParams`. */
export const verifyUnknown = (input: unknown): Effect.Effect<Verdict, ReadError, VerifyRequirements> =>
  Effect.flatMap(decodeParams(input), verify)
