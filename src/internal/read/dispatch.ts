/**
 * Which source reads a path, decided in one place: try the path's meanings in order (see
 * `core/resolve.ts`), check access on the one that applies, then hand a directory to the listing, a
 * regular file to the first registered source that claims it, and a URL to its scheme's source.
 */
import type { File } from "@effect/platform/FileSystem"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { FileTime, ReadBytes } from "../../FileTime.js"
import * as LineIndex from "../../LineIndex.js"
import type { Lsp } from "../../Lsp.js"
import type { Permission } from "../../Permission.js"
import { FileChanged, InvalidParams, InvalidSelector, NotAFile, type ReadError } from "../../ReadError.js"
import type { ReadResult } from "../../ReadResult.js"
import { type Registry, Sources } from "../../Sources.js"
import { Workspace } from "../../Workspace.js"
import { localMeanings, type Resolved } from "../core/resolve.js"
import { noSelection, parseSelector, type Selection, SelectorError, textViews } from "../core/selector.js"
import { fromPlatformError, isNotFound } from "../io/platformError.js"
import { withLeanSpan } from "../io/spans.js"
import type { FileFacts, FileSource } from "../sources/types.js"
import { askContent, checkAccess, resolveTarget, type Target } from "./access.js"
import { readDirectory, readTree } from "./directory.js"
import { factsOf, refuseBinary } from "./facts.js"
import { type Opened, openForRead } from "./open.js"
import { imageOptionsMisplaced, type Params, type ReadParams } from "./params.js"
import { recordFileRead } from "./record.js"

/** What a local read needs: the services of `read`. */
export type LocalServices = FileSystem.FileSystem | Path.Path | Workspace | Permission | Lsp | FileTime

/** What a read asks: its parameters, the path as the caller wrote it included (for messages). */
export type Request = ReadParams

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
    // `:/re/` pages over matches: offset and limit count them.
    const pagedView = (parsed.view === "outline" || parsed.view === "conflicts" || parsed.view === "summary" ||
      parsed.search !== undefined) &&
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
        if (!last && !(yield* fs.stat(target.absolute).pipe(Effect.as(true), Effect.orElseSucceed(() => false)))) {
          continue
        }
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
          info.value,
          (found) =>
            readFile(target, found, (extension) => readInside(registry, target, request, meaning.inner, extension))
        )
        // No container source claims it (a `.db` holding text): `notes.db:5` is line 5 of it.
        if (Option.isSome(read)) return read.value.result
        continue
      }
      case "Selected": {
        const workspace = yield* Workspace
        const pathModule = yield* Path.Path
        if (meaning.ifExists === true) {
          const there = yield* fs.exists(pathModule.resolve(workspace.directory, meaning.path)).pipe(
            Effect.orElseSucceed(() => false)
          )
          if (!there) continue
        }
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
      // Loaded for a path that is not there: a read that finds its file never loads the file index.
      const recovered = yield* Effect.flatMap(Effect.promise(() => import("./recovery.js")), (m) =>
        m.recoverMissing(target, written))
      note = recovered.note
      target = yield* check(recovered.target)
    }
    const stat = Option.isSome(found)
      ? found.value
      : yield* fs.stat(target.absolute).pipe(Effect.mapError((error) =>
        fromPlatformError(target.absolute, error)
      ))

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
    if (request.view === "list" || request.view === "tree") {
      return yield* viewMismatch(request.view, target.absolute, "file")
    }
    const read = yield* onceMoreIfChanged(
      target.absolute,
      stat,
      (found) =>
        readFile(target, found, (extension) => readOpened(registry, target, request, selection, note, extension))
    )
    return yield* fileAnswer(target, request, selection, note, read)
  })

/** A file read's answer: refused when image options were misplaced, else recorded, with the note first. */
export const fileAnswer = (
  target: Target,
  request: Request,
  selection: Selection,
  note: string | undefined,
  { bytes, result }: FileRead
) =>
  Effect.gen(function*() {
    // Nothing recorded of a read that fails: the image options were for an image.
    const misplaced = imageOptionsMisplaced(request, selection, result)
    if (misplaced !== undefined) {
      return yield* misplaced
    }
    yield* recordFileRead(target, result, bytes)
    // Sources that do not print the note themselves (media, containers) get it as a first line.
    return note === undefined || result.output.startsWith(note)
      ? result
      : { ...result, output: `${note}\n${result.output}` }
  })

/** Views of directories and views of files: which target each fits, said in the error. */
export const viewMismatch = (view: string, path: string, is: "file" | "directory") =>
  new InvalidParams({
    reason: is === "file"
      ? `view "${view}" lists a directory; ${path} is a file (its views: ${textViews.join(", ")}; or none)`
      : `view "${view}" shows a file's text; ${path} is a directory (its views: list, tree)`
  })

const listDirectory = (
  target: Target,
  stat: File.Info,
  selection: Selection,
  request: Request,
  note: string | undefined
) =>
  Effect.gen(function*() {
    if (request.view !== undefined && request.view !== "list" && request.view !== "tree") {
      return yield* viewMismatch(request.view, target.absolute, "directory")
    }
    if (selection.view !== undefined || selection.tail !== undefined) {
      return yield* new InvalidSelector({
        path: target.absolute,
        reason: `The :${
          selection.view ?? `-${selection.tail}`
        } selector reads a file's text; ${target.absolute} is a directory. Use :tree or a line range.`
      })
    }
    if (request.offset !== undefined && request.offset < 0) {
      return yield* new InvalidParams({
        reason:
          `a negative offset reads the last lines of a file; ${target.absolute} is a directory (use a positive offset)`
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

/** What a file read gave: the result, and the file's bytes when it was read whole (for the ledger). */
export interface FileRead {
  readonly result: ReadResult
  readonly bytes: ReadBytes | undefined
}

/**
 * Open the file (checked) and `use` it (`readOpened`, or `readInside` for a path inside it), in
 * the `Read.file` span. Every byte comes from the version that was opened, or the read fails with
 * `FileChanged`.
 */
const readFile = <A, E, R>(
  target: Target,
  /** What a `stat` of the path said just before (lets a small file take Node's short way). */
  found: File.Info,
  use: (extension: string) => (opened: Opened) => Effect.Effect<A, E, R>
) =>
  withLeanSpan(
    Effect.flatMap(
      Path.Path,
      (path) => openForRead(target, use(path.extname(target.absolute).toLowerCase()), found)
    ),
    "Read.file"
  )

/**
 * What `readFile` does with an open file: sniff, pick the first file source that claims it, ask
 * about the content, read. What no source claims is refused as binary.
 */
export const readOpened = (
  registry: Registry,
  target: Target,
  request: Request,
  selection: Selection,
  note: string | undefined,
  extension: string
) =>
(opened: Opened) =>
  Effect.flatMap(factsOf(target, opened.info, opened.head, request, selection, undefined, extension), (facts) => {
    const source = registry.files.find((candidate) => candidate.claims(facts))
    return source === undefined ? refuseBinary(facts) : readBy(source, facts, target, opened, note)
  })

/**
 * `readOpened` for a path inside the file (`inner`): only container sources are asked, and none
 * claiming is `None` (the path is read another way).
 */
const readInside =
  (registry: Registry, target: Target, request: Request, inner: string, extension: string) => (opened: Opened) =>
    Effect.flatMap(factsOf(target, opened.info, opened.head, request, noSelection, inner, extension), (facts) => {
      const source = registry.containers.find((candidate) => candidate.claims(facts))
      return source === undefined
        ? Effect.succeed(Option.none<FileRead>())
        : Effect.map(readBy(source, facts, target, opened, undefined), Option.some)
    })

/** `source` reads the open file: what a text holds (a private key, a credential) asked about first. */
const readBy = (source: FileSource, facts: FileFacts, target: Target, opened: Opened, note: string | undefined) =>
  Effect.gen(function*() {
    // A container's members are asked about one by one instead.
    if (source.container === undefined && facts.text) yield* askContent(target, opened.firstText)
    const read = source.read({ ...facts, file: opened.file, note, end: opened.end })
    const result = yield* opened.unsized ? Effect.provideService(read, LineIndex.LineIndex, LineIndex.noop) : read
    return { result, bytes: opened.bytes } satisfies FileRead
  })

/**
 * A file that changed under the read (shrunk, rewritten, replaced) is read once more, from a
 * fresh `stat` (handed to the attempt): the new version is usually stable by then. If it changes
 * again, the answer is the first change (it says what the file was when the read began).
 */
export const onceMoreIfChanged = <A, E, R>(
  absolute: string,
  found: File.Info,
  attempt: (found: File.Info) => Effect.Effect<A, E | FileChanged, R>
) =>
  attempt(found).pipe(
    Effect.catchIf(
      (error): error is FileChanged => error instanceof FileChanged,
      (changed) =>
        Effect.flatMap(FileSystem.FileSystem, (fs) => fs.stat(absolute)).pipe(
          Effect.orElseFail(() => changed),
          Effect.flatMap((current) => current.type === "File" ? attempt(current) : Effect.fail(changed)),
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
