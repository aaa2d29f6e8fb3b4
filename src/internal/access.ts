/**
 * Where a path leads and whether the session may go there: the external-directory check (on the
 * real path, so a symlink inside the project cannot smuggle a read outside it) and the read ask.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import { Permission } from "../Permission.js"
import { Workspace } from "../Workspace.js"

export interface Target {
  /** Absolute, lexically normalised. */
  readonly absolute: string
  /** Relative to the worktree with `/` separators, or absolute when outside it. */
  readonly relative: string
}

const within = (path: Path.Path, root: string, candidate: string): boolean => {
  const rel = path.relative(root, candidate)
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel))
}

export const targetOf = (path: Path.Path, worktree: string, absolute: string): Target => ({
  absolute,
  relative: within(path, worktree, absolute)
    ? path.relative(worktree, absolute).split(path.sep).join("/") || "."
    : absolute
})

export const resolveTarget = Effect.fn("Read.resolveTarget")(function*(filePath: string) {
  const path = yield* Path.Path
  const workspace = yield* Workspace
  return targetOf(path, workspace.worktree, path.resolve(workspace.directory, filePath))
})

/** The real path of `absolute`, or of its nearest existing ancestor joined with the rest. */
const realPathOfNearest = Effect.fn("Read.realPath")(function*(absolute: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  let current = absolute
  const rest: Array<string> = []
  for (;;) {
    const real = yield* fs.realPath(current).pipe(Effect.option)
    if (real._tag === "Some") return rest.length === 0 ? real.value : path.join(real.value, ...rest.reverse())
    const parent = path.dirname(current)
    if (parent === current) return absolute
    rest.push(path.basename(current))
    current = parent
  }
})

/** Ask `external_directory` when the target, lexically or really, is outside the worktree. */
const checkExternal = Effect.fn("Read.checkExternal")(function*(target: Target) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const workspace = yield* Workspace
  const permission = yield* Permission
  const worktree = path.resolve(workspace.worktree)
  const real = yield* realPathOfNearest(target.absolute)
  const outside: Array<string> = []
  if (!within(path, worktree, target.absolute)) outside.push(target.absolute)
  // The worktree's own real path matters only when the target's is not under it lexically.
  if (!within(path, worktree, real) && !within(path, yield* realPathOfNearest(worktree), real) && !outside.includes(real)) {
    outside.push(real)
  }
  if (outside.length === 0) return
  const patterns: Array<string> = []
  for (const p of outside) {
    const isDirectory = yield* fs.stat(p).pipe(
      Effect.map((info) => info.type === "Directory"),
      Effect.orElseSucceed(() => false)
    )
    const dir = isDirectory ? p : path.dirname(p)
    const pattern = `${dir.split(path.sep).join("/").replace(/\/$/, "")}/*`
    if (!patterns.includes(pattern)) patterns.push(pattern)
  }
  yield* permission.ask({
    permission: "external_directory",
    patterns,
    always: patterns,
    metadata: { filepath: target.absolute, realPath: real }
  })
})

/** The `read` ask for a path (a file, or a directory about to be listed). */
export const askRead = (target: Target) =>
  Effect.flatMap(Permission, (permission) =>
    permission.ask({
      permission: "read",
      patterns: [target.relative],
      always: ["*"],
      metadata: { filePath: target.absolute }
    }))

export const checkAccess = Effect.fn("Read.checkAccess")(function*(target: Target) {
  yield* checkExternal(target)
  yield* askRead(target)
})
