/**
 * A path that does not exist: recover the one entry it plainly meant, or fail with suggestions
 * — listed only after the session may read that directory.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import { FileNotFound } from "../ReadError.js"
import { Workspace } from "../Workspace.js"
import { askRead, type Target, targetOf } from "./access.js"
import { equivalentEntry, suggestEntries } from "./suggest.js"

export const recoverMissing = Effect.fn("Read.recoverMissing")(function*(target: Target) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const workspace = yield* Workspace
  const dir = path.dirname(target.absolute)
  const name = path.basename(target.absolute)
  const dirTarget = targetOf(path, workspace.worktree, dir)
  const entries = yield* askRead(dirTarget).pipe(
    Effect.zipRight(fs.readDirectory(dir)),
    Effect.orElseSucceed((): ReadonlyArray<string> => [])
  )
  const equivalent = equivalentEntry(name, entries)
  if (equivalent !== undefined) return targetOf(path, workspace.worktree, path.join(dir, equivalent))
  return yield* new FileNotFound({
    path: target.absolute,
    suggestions: suggestEntries(name, entries).map((entry) => path.join(dir, entry))
  })
})
