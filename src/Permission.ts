/**
 * The permission seam. `read` asks before it touches anything:
 * `external_directory` (pattern `<dir>/*`) for targets outside the worktree, then `read`
 * (pattern: the path relative to the worktree, absolute when outside).
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { PermissionDenied } from "./ReadError.js"

export interface PermissionRequest {
  readonly permission: string
  readonly patterns: ReadonlyArray<string>
  /** Patterns to remember as allowed for the session when the user answers `always`. */
  readonly always: ReadonlyArray<string>
  readonly metadata: Readonly<Record<string, unknown>>
}

export interface PermissionShape {
  readonly ask: (request: PermissionRequest) => Effect.Effect<void, PermissionDenied>
}

export class Permission extends Context.Tag("effect-read/Permission")<Permission, PermissionShape>() {}

export type Action = "allow" | "ask" | "deny"

export interface Rule {
  readonly permission: string
  /** A glob over the request's pattern; `*` also matches `/` (as in opencode). */
  readonly pattern: string
  readonly action: Action
}

/** What the user answered to an `ask`. */
export type Answer = "once" | "always" | "reject"

export type Asker = (request: PermissionRequest) => Effect.Effect<Answer>
