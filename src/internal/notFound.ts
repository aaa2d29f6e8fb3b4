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
  const name = path.basename(target.absolute)
  // The entries of a directory, only once the session may read it; none when denied or missing.
  const list = (dir: string) =>
    askRead(targetOf(path, workspace.worktree, dir)).pipe(
      Effect.zipRight(fs.readDirectory(dir)),
      Effect.orElseSucceed((): ReadonlyArray<string> => [])
    )
  // Missing directories on the way may be look-alikes too (`café/` typed NFC, stored NFD).
  let dir = path.dirname(target.absolute)
  const missing: Array<string> = []
  while (!(yield* fs.exists(dir).pipe(Effect.orElseSucceed(() => false))) && path.dirname(dir) !== dir) {
    missing.unshift(path.basename(dir))
    dir = path.dirname(dir)
  }
  for (const component of missing) {
    const match = equivalentEntry(component, yield* list(dir))
    if (match === undefined) return yield* new FileNotFound({ path: target.absolute, suggestions: [] })
    dir = path.join(dir, match)
  }
  const entries = yield* list(dir)
  // After a recovered directory, the name itself may exist as typed.
  const equivalent = missing.length > 0 && entries.includes(name) ? name : equivalentEntry(name, entries)
  if (equivalent !== undefined) return targetOf(path, workspace.worktree, path.join(dir, equivalent))
  return yield* new FileNotFound({
    path: target.absolute,
    suggestions: suggestEntries(name, entries).map((entry) => path.join(dir, entry))
  })
})
