/**
 * The common read, straight: a plain path (one meaning, no selector) to a small regular file
 * inside the worktree, on Node's own filesystem, asking for lines only (`offset`, `limit`). Its
 * real path and its `stat` are asked at once, access is decided from them, and the file is opened,
 * read whole and checked (`readSmallChecked`) — the same services asked, the same source, the same
 * answer as the general way (`readLocal`), in fewer runtime steps and filesystem stages.
 *
 * Anything else, decided before anything is asked, is left to the general way (`undefined`); once
 * access was asked, what the short way cannot read goes the general way from the granted target.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import type { File } from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type { FileChanged, ReadError, ReadFailed } from "../../ReadError.js"
import type { ReadResult } from "../../ReadResult.js"
import { Sources } from "../../Sources.js"
import { Workspace } from "../../Workspace.js"
import type { Meaning } from "../core/resolve.js"
import { noSelection } from "../core/selector.js"
import { findNative, isNodeForLeanRead, readSmallChecked } from "../io/nodeFileSystem.js"
import { withLeanSpan } from "../io/spans.js"
import { askRead, type Target, targetOf, within } from "./access.js"
import { fileAnswer, type LocalServices, onceMoreIfChanged, readOpened, type Request } from "./dispatch.js"
import { type Opened, openFiles, openForRead, SMALL_FILE_BYTES, SMALL_READ, useSnapshot } from "./open.js"

/**
 * Whether `read` may take the straight way for the common read (on by default). Off, every read
 * goes the general way: the tests compare the two.
 */
export class LeanRead extends Context.Reference<LeanRead>()("effect-read/LeanRead", {
  defaultValue: () => true
}) {}

/** The parameters the straight way reads with: the path, and a page of lines. */
const leanKeys: ReadonlySet<string> = new Set(["filePath", "offset", "limit"])

/** A request the straight way may answer: lines of a file, nothing else asked. */
export const isLeanRequest = (request: Request): boolean => {
  for (const key in request) {
    if (!leanKeys.has(key) && request[key as keyof Request] !== undefined) return false
  }
  return true
}

/**
 * The common read of `meanings` (the local path's, resolved), or `undefined` when it is not the
 * common read (nothing asked, nothing opened: the general way reads it). The general way's phases,
 * under the same span names (`Read.checkAccess`, `Read.file`), without their inner steps' spans.
 */
export const readLean = (
  meanings: ReadonlyArray<Meaning>,
  request: Request
): Effect.Effect<ReadResult | undefined, ReadError, LocalServices> =>
  Effect.flatMap(Effect.context<LocalServices>(), (context) => {
    if (meanings.length !== 1 || meanings[0]!._tag !== "AsWritten") return Effect.succeed(undefined)
    if (!isNodeForLeanRead(Context.get(context, FileSystem.FileSystem))) return Effect.succeed(undefined)
    const path = Context.get(context, Path.Path)
    const workspace = Context.get(context, Workspace)
    const target = targetOf(path, workspace.worktree, path.resolve(workspace.directory, meanings[0]!.path))
    // Inside the worktree as written; and, its real path being the same, really.
    if (!within(path, path.resolve(workspace.worktree), target.absolute)) return Effect.succeed(undefined)
    return Effect.flatMap(findNative(target.absolute), ({ info, real }) => {
      if (
        real !== target.absolute || info === undefined || info.type !== "File" || Number(info.size) === 0 ||
        Number(info.size) > SMALL_FILE_BYTES
      ) {
        return Effect.succeed(undefined)
      }
      const granted: Target = { ...target, real }
      const use = readOpened(
        Context.get(context, Sources),
        granted,
        request,
        noSelection,
        undefined,
        path.extname(target.absolute).toLowerCase()
      )
      return withLeanSpan(askRead(target, real), "Read.checkAccess").pipe(
        Effect.zipRight(
          // Changed under the read: once more from a fresh look, as the general way does.
          withLeanSpan(onceMoreIfChanged(target.absolute, info, (found) => readSmall(granted, found, use)), "Read.file")
        ),
        Effect.flatMap((read) => fileAnswer(granted, request, noSelection, undefined, read))
      )
    })
  })

/** A small file read whole the short way (holding an open-files permit if one is free), else the general way. */
const readSmall = <A, E, R>(target: Target, found: File.Info, use: (opened: Opened) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(
    readSmallChecked(target.absolute, target.real!, found, { ...SMALL_READ, permits: openFiles }),
    (snapshot): Effect.Effect<A, E | FileChanged | ReadFailed, R | FileSystem.FileSystem> =>
      snapshot === undefined ? openForRead(target, use) : useSnapshot(target, snapshot, use)
  )
