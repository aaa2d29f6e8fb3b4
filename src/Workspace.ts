/**
 * Who is reading and from where.
 */
import * as Context from "effect/Context"
import * as Layer from "effect/Layer"

export interface WorkspaceShape {
  /** Relative `filePath`s resolve against this absolute directory. */
  readonly directory: string
  /** The absolute project root: reads outside it need `external_directory`. */
  readonly worktree: string
  /** Keys the session's FileTime ledger and remembered permissions. */
  readonly sessionId: string
}

export class Workspace extends Context.Tag("effect-read/Workspace")<Workspace, WorkspaceShape>() {}

/** A workspace from values; `worktree` defaults to `directory`, `sessionId` to `"default"`. */
export const layer = (options: {
  readonly directory: string
  readonly worktree?: string | undefined
  readonly sessionId?: string | undefined
}): Layer.Layer<Workspace> =>
  Layer.succeed(Workspace, {
    directory: options.directory,
    worktree: options.worktree ?? options.directory,
    sessionId: options.sessionId ?? "default"
  })
