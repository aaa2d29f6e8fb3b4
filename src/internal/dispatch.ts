/**
 * Which source reads a path, decided in one place: try the path's meanings in order (see
 * `resolve.ts`), check access on the one that applies, then hand a directory to the listing, a
 * regular file to the first registered source that claims it, and a URL to its scheme's source.
 */
import type { File } from "@effect/platform/FileSystem"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"
import { fileTypeFromBuffer } from "file-type"
import { FileTime, lastReadBytes, type Shown } from "../FileTime.js"
import * as LineIndex from "../LineIndex.js"
import { Lsp } from "../Lsp.js"
import type { Permission } from "../Permission.js"
import { FileChanged, InvalidParams, InvalidSelector, NotAFile, type ReadError } from "../ReadError.js"
import type { ReadResult } from "../ReadResult.js"
import * as Secrets from "../Secrets.js"
import { type Registry, Sources } from "../Sources.js"
import { Workspace } from "../Workspace.js"
import {
  askContent,
  checkAccess,
  confirmUnchanged,
  CONTENT_SNIFF_BYTES,
  endedEarly,
  openCheckedAt,
  resolveTarget,
  TAIL_BYTES,
  tailOf,
  type Target,
  textOf
} from "./access.js"
import { binarySignature, SAMPLE_BYTES } from "./core/binary.js"
import { readHead } from "./bytes.js"
import { readDirectory, readTree } from "./directory.js"
import { detect } from "./core/encoding.js"
import { refuseBinary } from "./file.js"
import { recoverMissing } from "./notFound.js"
import * as Permits from "./permits.js"
import { clipRanges, recordOrDefer } from "./recording.js"
import { fromPlatformError, isNotFound } from "./platformError.js"
import { localMeanings, type Resolved } from "./core/resolve.js"
import { noSelection, parseSelector, type Selection, SelectorError, textViews } from "./core/selector.js"
import { readUnsized, readWhole, SMALL_FILE_BYTES, snapshotFile } from "./snapshot.js"
import type { FileFacts, FileSource, Params } from "./sources/types.js"

/** What a local read needs: the services of `read`. */
export type LocalServices = FileSystem.FileSystem | Path.Path | Workspace | Permission | Lsp | FileTime

export interface Request extends Params {
  /** The path as the caller wrote it, for messages. */
  readonly filePath: string
}

const explicitOf = (params: Params) =>
  params.offset !== undefined || params.limit !== undefined || params.column !== undefined

export const selectorWithParams = (filePath: string) =>
  new InvalidParams({
    reason: `the path '${filePath}' has a selector; do not also pass offset, limit or column (use one or the other)`
  })

/** Parse a selector, or the typed error naming the path it followed. */
export const selectionOf = (selector: string, path: string, request: Request) =>
  Effect.gen(function*() {
    const parsed = parseSelector(selector)
    if (parsed instanceof SelectorError) return yield* new InvalidSelector({ path, reason: parsed.message })
    // `report.pdf:pages=3-5` picks pages; offset/limit still page the text they convert to.
    const pagesOnly = parsed.ranges.length === 0 && !parsed.raw && parsed.pages !== undefined
    // `:outline` and `:conflicts` page over declarations and regions, and `:summary` over the
    // outline it becomes when longer than a page: their footers' offset applies.
    const pagedView = (parsed.view === "outline" || parsed.view === "conflicts" || parsed.view === "summary") &&
      request.column === undefined
    if (explicitOf(request) && !pagesOnly && !pagedView) return yield* selectorWithParams(request.filePath)
    return parsed
  })

/** A local path: its meanings tried in order, the first that applies read. */
export const readLocal = Effect.fnUntraced(function*(path: string, request: Request, home: string) {
  const registry = yield* Sources
  const fs = yield* FileSystem.FileSystem
  const meanings = localMeanings(path, { containers: registry.containers.map((source) => source.container), home })
  // Access already granted in this read, so a path tried twice is asked about once.
  const checked = new Map<string, Target>()
  const check = (target: Target) =>
    checked.has(target.absolute)
      ? Effect.succeed(checked.get(target.absolute)!)
      : Effect.tap(checkAccess(target), (granted) => Effect.sync(() => checked.set(target.absolute, granted)))

  for (const [i, meaning] of meanings.entries()) {
    const last = i === meanings.length - 1
    switch (meaning._tag) {
      case "AsWritten": {
        const target = yield* resolveTarget(meaning.path)
        // Another meaning follows: this one is read only if it is there.
        if (!last && !(yield* fs.stat(target.absolute).pipe(Effect.as(true), Effect.orElseSucceed(() => false)))) continue
        return yield* readTarget(target, noSelection, request, meaning.path, check)
      }
      case "Container": {
        const container = yield* resolveTarget(meaning.path)
        // A container that is there but cannot be stat'ed (EIO, EACCES) is that error, not a miss.
        const info = yield* fs.stat(container.absolute).pipe(
          Effect.map(Option.some),
          Effect.catchIf(isNotFound, () => Effect.succeed(Option.none())),
          Effect.mapError((error) => fromPlatformError(container.absolute, error))
        )
        if (Option.isNone(info) || info.value.type !== "File") continue
        const target = yield* check(container)
        const read = yield* onceMoreIfChanged(
          target.absolute,
          readFile(registry, target, request, noSelection, meaning.inner, undefined)
        )
        // No container source claims it (a `.db` holding text): `notes.db:5` is line 5 of it.
        if (Option.isSome(read)) return read.value
        continue
      }
      case "Selected": {
        const workspace = yield* Workspace
        const pathModule = yield* Path.Path
        const selection = yield* selectionOf(
          meaning.selector,
          pathModule.resolve(workspace.directory, meaning.path),
          request
        )
        return yield* readTarget(yield* resolveTarget(meaning.path), selection, request, meaning.path, check)
      }
    }
  }
  // `localMeanings` always ends with a meaning that is read whether or not it exists.
  return yield* Effect.dieMessage("no meaning of the path applied")
})

const notAFileKinds: Record<string, string> = {
  FIFO: "named pipe (FIFO)",
  Socket: "socket",
  CharacterDevice: "character device",
  BlockDevice: "block device",
  Unknown: "special file"
}

/** A plain path (recovered when missing): a directory listing, or a file through the registry. */
const readTarget = (
  resolved: Target,
  selection: Selection,
  request: Request,
  written: string,
  check: (target: Target) => Effect.Effect<Target, ReadError, LocalServices>
) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const registry = yield* Sources
    let target = yield* check(resolved)
    const found = yield* fs.stat(target.absolute).pipe(
      Effect.map(Option.some),
      Effect.catchIf(isNotFound, () => Effect.succeed(Option.none())),
      Effect.mapError((error) => fromPlatformError(target.absolute, error))
    )
    // A path recovered by a suffix match says so on its first line.
    let note: string | undefined
    if (Option.isNone(found)) {
      const recovered = yield* recoverMissing(target, written)
      note = recovered.note
      target = yield* check(recovered.target)
    }
    const stat = Option.isSome(found)
      ? found.value
      : yield* fs.stat(target.absolute).pipe(Effect.mapError((error) => fromPlatformError(target.absolute, error)))

    if (stat.type === "Directory") return yield* listDirectory(target, stat, selection, request, note)
    if (stat.type !== "File") {
      return yield* new NotAFile({ path: target.absolute, kind: notAFileKinds[stat.type] ?? "special file" })
    }
    if (selection.tree === true) {
      return yield* new InvalidSelector({
        path: target.absolute,
        reason: `The :tree selector shows a directory as a tree; ${target.absolute} is a file.`
      })
    }
    if (request.view === "list" || request.view === "tree") return yield* viewMismatch(request.view, target.absolute, "file")
    const read = yield* onceMoreIfChanged(target.absolute, readFile(registry, target, request, selection, undefined, note))
    const result = Option.getOrThrow(read)
    // A line whose secret is masked (`read` masks its result last) was not shown, so not read.
    const masked = yield* Secrets.maskedLines(result, target.real)
    // read_many may keep fewer lines than were read: it records what it kept (recording.ts).
    yield* recordOrDefer((lastShown) =>
      recordRead(target.absolute, clipShown(withoutLines(shownOf(result), masked), lastShown))
    )
    // Sources that do not print the note themselves (media, containers) get it as a first line.
    return note === undefined || result.output.startsWith(note) ? result : { ...result, output: `${note}\n${result.output}` }
  })

/** Views of directories and views of files: which target each fits, said in the error. */
export const viewMismatch = (view: string, path: string, is: "file" | "directory") =>
  new InvalidParams({
    reason: is === "file"
      ? `view "${view}" lists a directory; ${path} is a file (its views: ${textViews.join(", ")}; or none)`
      : `view "${view}" shows a file's text; ${path} is a directory (its views: list, tree)`
  })

const listDirectory = (target: Target, stat: File.Info, selection: Selection, request: Request, note: string | undefined) =>
  Effect.gen(function*() {
    if (request.view !== undefined && request.view !== "list" && request.view !== "tree") {
      return yield* viewMismatch(request.view, target.absolute, "directory")
    }
    if (selection.view !== undefined || selection.tail !== undefined) {
      return yield* new InvalidSelector({
        path: target.absolute,
        reason: `The :${selection.view ?? `-${selection.tail}`} selector reads a file's text; ${target.absolute} is a directory. Use :tree or a line range.`
      })
    }
    if (request.offset !== undefined && request.offset < 0) {
      return yield* new InvalidParams({
        reason: `a negative offset reads the last lines of a file; ${target.absolute} is a directory (use a positive offset)`
      })
    }
    if (selection.ranges.length > 1) {
      return yield* new InvalidSelector({
        path: target.absolute,
        reason: "Multi-range line selectors are not supported for directory listings."
      })
    }
    const range = selection.ranges[0]
    const listing = range === undefined
      ? request
      : { offset: range.start, ...(range.end === undefined ? {} : { limit: range.end - range.start + 1 }) }
    // The flat listing stays the default (the opencode contract); a tree is asked for.
    return yield* request.view === "tree" || selection.tree === true
      ? readTree(target, stat, listing, note)
      : readDirectory(target, stat, listing, note)
  })

/** The session read this file (for edit guards); the language server warms up for later edits. */
/** The lines a text read showed, for the ledger's coverage (not a part of a long line). */
const shownOf = (result: ReadResult): Shown | undefined => {
  const m = result.metadata
  if (m.kind !== "text" || m.startLine === undefined || m.endLine === undefined || m.column !== undefined) return undefined
  return {
    start: m.startLine,
    end: m.endLine,
    whole: m.startLine === 1 && !m.truncated && m.ranges === undefined,
    size: m.size,
    mtime: m.mtime,
    ranges: m.ranges
  }
}

/** What was shown, less the lines whose secrets were masked (the model saw placeholders there, not the lines). */
const withoutLines = (shown: Shown | undefined, masked: ReadonlyArray<number> | undefined): Shown | undefined => {
  if (shown === undefined || masked === undefined || masked.length === 0) return shown
  const ranges: Array<{ start: number; end: number }> = []
  for (const range of shown.ranges ?? [{ start: shown.start, end: shown.end }]) {
    let start = range.start
    for (const line of masked) {
      if (line < start || line > range.end) continue
      if (line > start) ranges.push({ start, end: line - 1 })
      start = line + 1
    }
    if (start <= range.end) ranges.push({ start, end: range.end })
  }
  if (ranges.length === 0) return undefined
  return {
    ...shown,
    start: ranges[0]!.start,
    end: ranges[ranges.length - 1]!.end,
    whole: false,
    ranges: ranges.length > 1 ? ranges : undefined
  }
}

/** What was shown when a caller kept lines up to `lastShown` only. */
const clipShown = (shown: Shown | undefined, lastShown: number | undefined): Shown | undefined => {
  if (shown === undefined || lastShown === undefined || lastShown >= shown.end) return shown
  if (lastShown < shown.start) return undefined
  const ranges = shown.ranges === undefined ? undefined : clipRanges(shown.ranges, lastShown)
  return { ...shown, end: lastShown, whole: false, ranges }
}

const recordRead = (absolute: string, shown?: Shown) =>
  Effect.gen(function*() {
    const workspace = yield* Workspace
    const fileTime = yield* FileTime
    yield* fileTime.read(workspace.sessionId, absolute, shown)
    const lsp = yield* Lsp
    // Never let the language server fail or delay the read.
    yield* lsp.touchFile(absolute).pipe(
      Effect.timeout("30 seconds"),
      Effect.catchAllCause((cause) => Effect.logDebug("Lsp.touchFile failed", cause)),
      Effect.forkDaemon
    )
  })

/**
 * Files open at once across all reads: a thousand concurrent reads must not exhaust descriptors.
 * FIFO hand-off, so waiting reads cost linear time (see permits.ts).
 */
const openFiles = Permits.unsafeMake(128)

/** What the first bytes say, for the sources' `claims`. */
const factsOf = (
  target: Target,
  info: File.Info,
  head: Uint8Array,
  request: Request,
  selection: Selection,
  inner: string | undefined,
  extension: string
) =>
  Effect.gen(function*() {
    const size = Number(info.size)
    const sniffed = head.length === 0
      ? undefined
      : yield* Effect.promise(() => fileTypeFromBuffer(head).catch(() => undefined))
    const detected = detect(head, head.length >= size)
    // A named encoding overrules the NUL heuristic, never a recognised binary format.
    const binary = request.encoding === undefined
      ? detected._tag === "Binary" || (sniffed !== undefined && detected.fallback)
      : binarySignature(head) !== undefined || (sniffed !== undefined && detected._tag === "Binary")
    const facts: FileFacts = {
      target,
      info,
      extension,
      head,
      sniffed: sniffed === undefined ? undefined : { mime: sniffed.mime, ext: sniffed.ext },
      text: head.length > 0 && detected._tag === "Text" && !detected.fallback,
      binary,
      params: request,
      selection,
      inner
    }
    return facts
  })

/**
 * Open the file (checked), sniff its first bytes, and read it with the first source that claims
 * it. With `inner` only container sources are asked, and none claiming is `None`. Every byte comes
 * from the version that was opened, or the read fails with `FileChanged`.
 */
const readFile = (
  registry: Registry,
  target: Target,
  request: Request,
  selection: Selection,
  inner: string | undefined,
  note: string | undefined
) =>
  Effect.gen(function*() {
    const path = yield* Path.Path
    const extension = path.extname(target.absolute).toLowerCase()
    // What was opened, as it was when opened: the version every byte of this read must come from.
    const { file: opened, info: before } = yield* openCheckedAt(target)
    // A small file is read whole, once: its sample, page and last bytes come from memory. Read
    // here, at open, its last bytes need no read of their own; a read that fails or comes short
    // is left to `readWhole` below, which says why.
    const size = Number(before.size)
    const whole = size > 0 && size <= SMALL_FILE_BYTES
      ? yield* readHead(opened, size).pipe(
        Effect.map((bytes) => bytes.length === size ? bytes : undefined),
        Effect.orElseSucceed(() => undefined)
      )
      : undefined
    // Its last bytes: an append leaves them, a rewrite that grew the file does not.
    const tail = whole !== undefined ? whole.subarray(size - Math.min(TAIL_BYTES, size)) : yield* tailOf(opened, size)
    yield* opened.seek(0, "start")
    return yield* confirmUnchanged(
      opened,
      target,
      before,
      Effect.gen(function*() {
        const unsized = size === 0 ? yield* readUnsized(opened, target) : undefined
        const small = unsized === undefined && size <= SMALL_FILE_BYTES
          ? whole ?? (yield* readWhole(opened, target, size))
          : undefined
        if (small !== undefined && small.length === Number(before.size)) {
          // The ledger's stamp after this read hashes these bytes instead of reading the file again.
          yield* FiberRef.set(lastReadBytes, {
            path: target.absolute,
            size: small.length,
            mtime: Option.getOrUndefined(Option.map(before.mtime, (date) => date.getTime())),
            bytes: small
          })
        }
        const bytes = unsized ?? small
        // A snapshot of an unsized file is never indexed: its next read may hold other bytes.
        const file = bytes === undefined ? opened : snapshotFile(bytes, before)
        const info = bytes === undefined ? before : { ...before, size: FileSystem.Size(bytes.length) }
        const wanted = Math.min(SAMPLE_BYTES, Number(info.size))
        const head = yield* readHead(file, wanted).pipe(
          Effect.mapError((error) => fromPlatformError(target.absolute, error))
        )
        // Fewer first bytes than the size promised: it shrank, or it reports more than it holds.
        if (head.length < wanted) yield* endedEarly(file, target, Number(info.size))
        const facts = yield* factsOf(target, info, head, request, selection, inner, extension)
        const candidates: ReadonlyArray<FileSource> = inner === undefined ? registry.files : registry.containers
        const source = candidates.find((candidate) => candidate.claims(facts))
        if (source === undefined) {
          return inner === undefined ? yield* refuseBinary(facts) : Option.none<ReadResult>()
        }
        // What the text holds (a private key, a credential) is asked about before any of it is
        // shown; a container's members are asked about one by one instead.
        if (source.container === undefined && facts.text) {
          yield* askContent(target, firstText(file, bytes, head, Number(info.size)))
        }
        const read = source.read({ ...facts, file, note, end: tail })
        return Option.some(
          yield* unsized === undefined ? read : Effect.provideService(read, LineIndex.LineIndex, LineIndex.noop)
        )
      }),
      { before: tail, again: tailOf(opened, Number(before.size)) }
    )
  }).pipe(Effect.scoped, openFiles.withPermit, Effect.withSpan("Read.file"))

/** The text of a file's first `CONTENT_SNIFF_BYTES`: from the bytes in memory, else read (the position is put back). */
const firstText = (file: File, whole: Uint8Array | undefined, head: Uint8Array, size: number) =>
  Effect.gen(function*() {
    if (whole !== undefined || head.length >= size) return textOf((whole ?? head).subarray(0, CONTENT_SNIFF_BYTES))
    yield* file.seek(0, "start")
    const bytes = yield* readHead(file, Math.min(CONTENT_SNIFF_BYTES, size))
    yield* file.seek(head.length, "start")
    return textOf(bytes)
  }).pipe(Effect.orElseSucceed(() => undefined))

/**
 * A file that changed under the read (shrunk, rewritten, replaced) is read once more, from a
 * fresh `stat`: the new version is usually stable by then. If it changes again, the answer is
 * the first change (it says what the file was when the read began).
 */
const onceMoreIfChanged = <A, E, R>(absolute: string, attempt: Effect.Effect<A, E | FileChanged, R>) =>
  attempt.pipe(
    Effect.catchIf(
      (error): error is FileChanged => error instanceof FileChanged,
      (changed) =>
        Effect.flatMap(FileSystem.FileSystem, (fs) => fs.stat(absolute)).pipe(
          Effect.orElseFail(() => changed),
          Effect.flatMap((current) => current.type === "File" ? attempt : Effect.fail(changed)),
          Effect.catchIf((error): error is FileChanged => error instanceof FileChanged, () => Effect.fail(changed))
        )
    )
  )

/**
 * A `scheme://…` path: a scheme that names local files is read as that path; any other
 * scheme's source answers with the selector already parsed.
 */
export const readScheme = Effect.fnUntraced(function*(
  resolved: Extract<Resolved, { readonly _tag: "Scheme" }>,
  request: Request,
  home: string
) {
  const registry = yield* Sources
  const source = registry.schemes.get(resolved.scheme)
  if (source?.toPath !== undefined) {
    let path: string
    try {
      path = source.toPath(resolved.input)
    } catch {
      path = resolved.input
    }
    return yield* readLocal(path, request, home)
  }
  if (source?.read === undefined) {
    return yield* Effect.dieMessage(`the source for ${resolved.scheme}:// has neither toPath nor read`)
  }
  const selection = resolved.selector === undefined
    ? noSelection
    : yield* selectionOf(resolved.selector, resolved.url, request)
  return yield* source.read({
    input: resolved.input,
    url: resolved.url,
    selector: resolved.selector,
    selection,
    params: request
  })
})
