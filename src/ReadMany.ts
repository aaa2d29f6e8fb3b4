/**
 * Several files in one call: `readMany({ files, glob })` reads each request with `Read.read`
 * (its own permission checks, its own result block in the usual format), keeps the order, reports
 * a failing file in place, and splits one output budget fairly between the files. A closing line
 * names the files the budget cut and the read that continues each.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import picomatch from "picomatch"
import { checkExternalOf, checkRead, realPathOfNearest, targetOf } from "./internal/read/access.js"
import { decodeExactly, decodeModelInput } from "./internal/read/params.js"
import { deferring } from "./internal/read/record.js"
import {
  ancestorChain,
  extendChain,
  type IgnoreChain,
  isIgnored,
  PRUNED_ALWAYS,
  PRUNED_FILES,
  statEntries
} from "./internal/read/walk.js"
import { PageLimits, ReadManyLimits } from "./Limits.js"
import type { Permission } from "./Permission.js"
import * as Read from "./Read.js"
import { InvalidParams, type ReadError } from "./ReadError.js"
import { Attachment, isPaged, isTextual, Next, ReadMetadata, type ReadResult } from "./ReadResult.js"
import { Workspace } from "./Workspace.js"

export { ReadManyLimits, type ReadManyLimitsShape } from "./Limits.js"

export const ReadManyParams = Schema.Struct({
  files: Schema.optionalWith(Schema.Array(Read.ReadParams), { exact: true }).annotations({
    description:
      "The files (or directories, or URLs) to read, each with the fields of the read tool (filePath, offset, limit, selectors …). Shown in this order."
  }),
  glob: Schema.optionalWith(
    Schema.String.pipe(Schema.minLength(1, { message: () => "glob must not be empty" })),
    { exact: true }
  ).annotations({
    description:
      "Also read the files matching this glob, relative to the working directory (e.g. \"src/**/*.ts\"), in path order after the named files. Skips .gitignored files, .git and node_modules."
  })
}).annotations({ identifier: "ReadManyParams", title: "Read-many parameters" })
export type ReadManyParams = typeof ReadManyParams.Type

/**
 * How to continue a file the budget cut: `read` with these parameters (every parameter of a
 * read but `column`: a continuation starts at a line). The encoding and line format the cut read
 * was asked for go on; a cut view (outline, summary, block, conflicts) continues as that view.
 */
export const Continuation = Read.ReadParams.omit("column")
export type Continuation = typeof Continuation.Type

export const ReadManyFile = Schema.Struct({
  /** The path as requested (or as the glob matched it). */
  filePath: Schema.String,
  /** The file's metadata, when it was read. */
  metadata: Schema.optional(ReadMetadata),
  /** Why the file could not be read: the error's tag and the message the model read. */
  error: Schema.optional(Schema.Struct({ _tag: Schema.String, message: Schema.String })),
  /** The budget cut this file's block: the read that continues it. */
  continueWith: Schema.optional(Continuation),
  /** Where this file's attachments are in the result's `attachments` (absent when none were attached). */
  attachmentIndexes: Schema.optional(Schema.Array(Schema.Number))
})
export type ReadManyFile = typeof ReadManyFile.Type

export const ReadManyResult = Schema.Struct({
  title: Schema.String,
  /** Exactly what the model reads: the blocks in order, then the closing line if any. */
  output: Schema.String,
  files: Schema.Array(ReadManyFile),
  attachments: Schema.optional(Schema.Array(Attachment))
}).annotations({ identifier: "ReadManyResult" })
export type ReadManyResult = typeof ReadManyResult.Type

const bytes = (text: string): number => Buffer.byteLength(text, "utf8")

/** Kept free in a cut file's share for its cut note and its part of the closing line. */
const CUT_RESERVE = 320

/**
 * Max-min fair shares: a file needing less than an equal share gets what it needs, and what it
 * leaves is split equally between the rest.
 */
export const fairShares = (needs: ReadonlyArray<number>, budget: number): Array<number> => {
  const shares = needs.map(() => 0)
  let left = Math.max(0, budget)
  let open = needs.map((_, i) => i).sort((a, b) => needs[a]! - needs[b]!)
  while (open.length > 0) {
    const equal = Math.floor(left / open.length)
    const i = open[0]!
    if (needs[i]! <= equal) {
      shares[i] = needs[i]!
      left -= needs[i]!
      open = open.slice(1)
      continue
    }
    for (const j of open) shares[j] = equal
    break
  }
  return shares
}

const NUMBERED = /^(\d+): /
const HASHLINE = /^(\d+):/

interface Cut {
  readonly output: string
  readonly continueWith: Continuation
  /** A text file: the last line kept (before its first shown line when none was). */
  readonly lastShown?: number | undefined
}

/**
 * Cut a block at a line boundary to at most `allowance` bytes (its tags kept), and say which
 * read continues it: the same file from the first line not shown, up to where this read ended.
 */
const cutBlock = (result: ReadResult, request: Read.ReadParams, allowance: number, pageLines: number): Cut => {
  const lines = result.output.split("\n")
  const open = lines.findIndex((line) => line === "<content>" || line === "<entries>")
  const head = open === -1 ? [] : lines.slice(0, open + 1)
  const closing = open === -1 ? undefined : lines[open] === "<content>" ? "</content>" : "</entries>"
  const body = open === -1 ? lines : lines.slice(open + 1)
  const note = "(Cut here by the read_many output budget: the closing line says how to continue.)"
  let used = bytes(head.join("\n")) + bytes(note) + (closing === undefined ? 0 : bytes(closing)) + 3
  const kept: Array<string> = []
  for (const line of body) {
    const size = bytes(line) + 1
    if (used + size > allowance) break
    kept.push(line)
    used += size
  }
  const output = [...head, ...kept, note, ...(closing === undefined ? [] : [closing])].join("\n")
  const metadata = result.metadata
  const start = (isPaged(metadata) ? metadata.startLine : undefined) ?? 1
  let continueWith: Continuation
  let lastShown: number | undefined
  if (isTextual(metadata) && (metadata.structure !== undefined || metadata.conflicts !== undefined)) {
    // A view is not the lines it names (its rows are `A-B:` ranges, or folds): the same request,
    // made alone, shows all of it, paged as that view pages.
    continueWith = request
  } else if (metadata.kind === "text") {
    const pattern = metadata.lineFormat === "hashline" ? HASHLINE : NUMBERED
    const numbered = kept.map((line) => pattern.exec(line)).filter((match) => match !== null)
    const last = numbered.length === 0 ? undefined : Number(numbered[numbered.length - 1]![1])
    const offset = last === undefined ? start : last + 1
    lastShown = offset - 1
    const end = metadata.endLine
    // A read that ended at its own page cap or at the end of file goes on by itself; one that
    // ended at an asked limit or range end gets that end as the continuation's limit.
    const shownAlone = end === undefined ? 0 : end - start + 1
    const endedOnItsOwn = !metadata.truncated || result.output.includes("(Output capped at ") ||
      shownAlone >= pageLines
    continueWith = {
      filePath: metadata.path,
      offset,
      ...(!endedOnItsOwn && end !== undefined && end >= offset ? { limit: end - offset + 1 } : {}),
      ...(request.encoding === undefined ? {} : { encoding: request.encoding }),
      ...(request.lineFormat === undefined ? {} : { lineFormat: request.lineFormat })
    }
  } else if (metadata.kind === "directory" && metadata.view === undefined) {
    const entries = kept.filter((line) => line !== "" && !line.startsWith("(")).length
    const offset = start + entries
    const end = metadata.endLine
    continueWith = {
      filePath: metadata.path,
      offset,
      ...(end !== undefined && end >= offset ? { limit: end - offset + 1 } : {})
    }
  } else {
    // Other kinds page in their own units: the same request, made alone, shows all of it.
    continueWith = request
  }
  return { output, continueWith, lastShown }
}

/**
 * The metadata of a file the budget cut: its `next` is the read that continues the cut (when
 * `next` can say it: `continueWith` asks for nothing but what a continuation carries), not the
 * one after the whole page the read made.
 */
const cutMetadata = (metadata: ReadMetadata, continueWith: Continuation): ReadMetadata => {
  const { next: _, ...rest } = metadata as ReadMetadata & { readonly next?: unknown }
  const fits = Object.keys(continueWith).every((key) => key in Next.fields) && "next" in metadataFieldsOf(metadata)
  return (fits ? { ...rest, next: continueWith } : rest) as ReadMetadata
}

/** The fields a kind's metadata schema has. */
const metadataFieldsOf = (metadata: ReadMetadata) =>
  ReadMetadata.members.find((member) => member.fields.kind.literals[0] === metadata.kind)!.fields

const describeContinuation = (c: Continuation): string =>
  `read filePath=${JSON.stringify(c.filePath)}${c.offset === undefined ? "" : ` offset=${c.offset}`}${
    c.limit === undefined ? "" : ` limit=${c.limit}`
  }${c.encoding === undefined ? "" : ` encoding=${JSON.stringify(c.encoding)}`}${
    c.lineFormat === undefined ? "" : ` lineFormat=${JSON.stringify(c.lineFormat)}`
  }${c.view === undefined ? "" : ` view=${JSON.stringify(c.view)}`}${
    c.levels === undefined ? "" : ` levels=${c.levels}`
  }${c.context === undefined ? "" : ` context=${JSON.stringify(c.context)}`}${
    c.search === undefined ? "" : ` search=${JSON.stringify(c.search)}`
  }`

const failureBlock = (filePath: string, error: ReadError): string =>
  `<path>${filePath}</path>\n<error>\n${error.message}\n</error>`

/** How many directories a glob did not search, as a note; "" when none. */
const unsearchedNote = (count: number, open: string, close: string): string =>
  count === 0
    ? ""
    : `${open}${count === 1 ? "1 directory" : `${count} directories`} the session may not read ${
      count === 1 ? "was" : "were"
    } not searched${close}`

/**
 * The files a glob matches under the working directory, in path order: `.gitignore`d entries and
 * `.git`/`node_modules`/… left out, symlinked directories not entered, directories the session
 * may not read (without being asked) not listed, at most `max` files and `maxEntries` entries
 * visited. The glob's fixed prefix must lie inside the project, on its real path too.
 */
export const globFiles = (pattern: string, max: number, maxEntries: number) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const workspace = yield* Workspace
    if (path.isAbsolute(pattern)) {
      return yield* new InvalidParams({ reason: `glob must be relative to the working directory, not ${pattern}` })
    }
    const scanned = picomatch.scan(pattern)
    const base = path.resolve(workspace.directory, scanned.base)
    const relativeToRoot = path.relative(workspace.worktree, base)
    if (relativeToRoot.startsWith("..") || path.isAbsolute(relativeToRoot)) {
      return yield* new InvalidParams({
        reason: `glob ${JSON.stringify(pattern)} leads outside the project; name such files in files instead`
      })
    }
    const worktree = path.resolve(workspace.worktree)
    // A base reached through a link out of the project leads outside it as much as `../x` does.
    const baseTarget = targetOf(path, worktree, base)
    if ((yield* checkExternalOf(baseTarget, yield* realPathOfNearest(base))) !== "allow") {
      return yield* new InvalidParams({
        reason: `glob ${JSON.stringify(pattern)} leads outside the project; name such files in files instead`
      })
    }
    const matches = picomatch(pattern, { dot: false })
    const found: Array<string> = []
    let visited = 0
    let more = false
    let stopped = false
    let unsearched = 0
    const walk = (
      dir: string,
      chain: IgnoreChain
    ): Effect.Effect<void, never, FileSystem.FileSystem | Path.Path | Workspace | Permission> =>
      Effect.gen(function*() {
        if (more || stopped) return
        // A directory is listed only where the session may read without being asked: a glob
        // names nothing of a directory a rule denies (nor asks about each one it passes).
        if ((yield* checkRead(targetOf(path, worktree, dir))) !== "allow") {
          unsearched++
          return
        }
        const names = (yield* fs.readDirectory(dir).pipe(Effect.orElseSucceed(() => [] as Array<string>))).sort()
        const here = yield* extendChain(chain, dir, names).pipe(
          Effect.provideService(FileSystem.FileSystem, fs),
          Effect.provideService(Path.Path, path)
        )
        const entries = yield* statEntries(dir, names).pipe(
          Effect.provideService(FileSystem.FileSystem, fs),
          Effect.provideService(Path.Path, path)
        )
        for (const entry of entries) {
          if (more || stopped) return
          if (++visited > maxEntries) {
            stopped = true
            return
          }
          if (entry.info === undefined || PRUNED_FILES.has(entry.name)) continue
          const isDirectory = entry.info.type === "Directory"
          if (isDirectory && (PRUNED_ALWAYS.has(entry.name) || entry.link)) continue
          if (isIgnored(path, here, entry.absolute, isDirectory)) continue
          const relative = path.relative(workspace.directory, entry.absolute).split(path.sep).join("/")
          if (isDirectory) yield* walk(entry.absolute, here)
          else if (entry.info.type === "File" && matches(relative)) {
            if (found.length === max) more = true
            else found.push(relative)
          }
        }
      })
    const exists = yield* fs.stat(base).pipe(
      Effect.map((info) => info.type === "Directory"),
      Effect.orElseSucceed(() => false)
    )
    if (exists) {
      const chain = yield* ancestorChain(workspace.worktree, base)
      yield* walk(base, chain)
    }
    return { files: found, more, stopped, unsearched }
  })

/**
 * Read several files in one call. At most `ReadManyLimits.maxFiles` files; each is read by
 * `Read.read` (a failing one is its error block in place), `concurrency` at a time, and the
 * blocks share `maxBytes` of output. What the types cannot say (whole numbers, a known encoding,
 * no other key) is checked: a call that breaks it fails with `InvalidParams`. For input from a
 * model, use `readManyUnknown`.
 */
export const readMany: (
  params: ReadManyParams
) => Effect.Effect<ReadManyResult, InvalidParams, Read.EffectRequirements> = Effect.fn("Read.readMany")(function*(
  input: ReadManyParams
) {
  const params = yield* decodeExactly(ReadManyParams)(input)
  const limits = yield* ReadManyLimits
  const pageLines = (yield* PageLimits).lines
  const named = params.files ?? []
  if (named.length > limits.maxFiles) {
    return yield* new InvalidParams({
      reason: `at most ${limits.maxFiles} files per call (got ${named.length}); split them into several calls`
    })
  }
  const globbed = params.glob === undefined
    ? { files: [] as Array<string>, more: false, stopped: false, unsearched: 0 }
    : yield* globFiles(params.glob, limits.maxFiles - named.length, limits.globMaxEntries)
  const requests: Array<Read.ReadParams> = [...named, ...globbed.files.map((filePath) => ({ filePath }))]
  if (requests.length === 0) {
    return yield* new InvalidParams({
      reason: params.glob === undefined
        ? "name at least one file in files, or give a glob"
        : `the glob ${JSON.stringify(params.glob)} matched no files${unsearchedNote(globbed.unsearched, " (", ")")}`
    })
  }

  // Each read's recording (coverage, session memory) waits until its block is cut to its share.
  const reads = yield* Effect.forEach(requests, (request) => deferring(Effect.either(Read.read(request))), {
    concurrency: limits.concurrency
  })
  const outcomes = reads.map(([outcome]) => outcome)
  const lastShown: Array<number | undefined> = reads.map(() => undefined)

  const failures = outcomes.map((outcome, i) =>
    Either.isLeft(outcome) ? failureBlock(requests[i]!.filePath, outcome.left) : undefined
  )
  const fixed = failures.reduce((sum, block) => sum + (block === undefined ? 0 : bytes(block)), 0) +
    2 * requests.length + 400
  const needs = outcomes.map((outcome) => Either.isRight(outcome) ? bytes(outcome.right.output) : 0)
  const shares = fairShares(needs, limits.maxBytes - fixed)

  const blocks: Array<string> = []
  const files: Array<ReadManyFile> = []
  const cuts: Array<string> = []
  const attachments: Array<Attachment> = []
  let attachmentBytes = 0
  outcomes.forEach((outcome, i) => {
    const request = requests[i]!
    if (Either.isLeft(outcome)) {
      blocks.push(failures[i]!)
      files.push({ filePath: request.filePath, error: { _tag: outcome.left._tag, message: outcome.left.message } })
      return
    }
    const result = outcome.right
    let block = result.output
    let continueWith: Continuation | undefined
    if (needs[i]! > shares[i]!) {
      // Nearby instructions are kept whole after the cut: they count as shown once appended.
      const at = result.output.indexOf("\n\n<system-reminder>\n")
      const reminder = at === -1 ? "" : result.output.slice(at)
      const page = at === -1 ? result : { ...result, output: result.output.slice(0, at) }
      const cut = cutBlock(
        page,
        request,
        Math.max(0, shares[i]! - CUT_RESERVE - Buffer.byteLength(reminder)),
        pageLines
      )
      block = cut.output + reminder
      continueWith = cut.continueWith
      lastShown[i] = cut.lastShown
      cuts.push(`${request.filePath} (${describeContinuation(cut.continueWith)})`)
    }
    const attached = result.attachments ?? []
    const size = attached.reduce((sum, a) => sum + a.url.length, 0)
    let attachmentIndexes: Array<number> | undefined
    if (size > 0 && attachmentBytes + size > limits.maxAttachmentBytes) {
      block =
        `${block}\n(Not attached: the attachments of this call passed ${limits.maxAttachmentBytes} bytes. Read this file alone to see it.)`
      continueWith = continueWith ?? request
      cuts.push(`${request.filePath} (attachment; ${describeContinuation(request)})`)
    } else if (size > 0) {
      attachmentBytes += size
      attachmentIndexes = attached.map((_, k) => attachments.length + k)
      attachments.push(...attached)
    }
    blocks.push(block)
    files.push({
      filePath: request.filePath,
      metadata: continueWith === undefined ? result.metadata : cutMetadata(result.metadata, continueWith),
      ...(continueWith ? { continueWith } : {}),
      ...(attachmentIndexes ? { attachmentIndexes } : {})
    })
  })

  // Only the lines each block kept were shown.
  for (const [i, [, recordings]] of reads.entries()) {
    for (const record of recordings) yield* record(lastShown[i])
  }

  const closing: Array<string> = []
  if (cuts.length > 0) {
    closing.push(
      `(read_many shares ${Math.round(limits.maxBytes / 1024)} KB of output between its files. Cut: ${
        cuts.join("; ")
      }.)`
    )
  }
  if (globbed.more) {
    closing.push(
      `(The glob matched more than ${globbed.files.length} files; only the first ${globbed.files.length} in path order are shown. Narrow the glob, or use a pattern for the rest.)`
    )
  }
  if (globbed.stopped) {
    closing.push(`(The glob stopped after visiting ${limits.globMaxEntries} entries; narrow it to reach files beyond.)`)
  }
  if (globbed.unsearched > 0) closing.push(unsearchedNote(globbed.unsearched, "(The glob: ", ".)"))
  const output = [...blocks, ...closing].join("\n\n")
  const readCount = files.filter((file) => file.metadata !== undefined).length
  return {
    title: `${readCount} of ${requests.length} files`,
    output,
    files,
    ...(attachments.length > 0 ? { attachments } : {})
  } satisfies ReadManyResult
})

/**
 * `readMany` for input from a model or any JSON: decoded against `ReadManyParams` after the
 * mends every door applies (see `Read.readUnknown`); a malformed call is an `InvalidParams`.
 */
export const readManyUnknown = (
  input: unknown
): Effect.Effect<ReadManyResult, InvalidParams, Read.EffectRequirements> =>
  Effect.flatMap(decodeModelInput(ReadManyParams)(input), readMany)
