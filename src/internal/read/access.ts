/**
 * Where a path leads and whether the session may go there.
 *
 * Every check is made on the path as written (lexically normalised) AND on its real path
 * (links resolved): the external-directory check, so a symlink inside the project cannot
 * smuggle a read outside it, and the `read` rules, so a link named `notes.txt` cannot side-step
 * a rule on the `.env` it points at. Then `open.ts` opens the file and confirms that what was
 * opened is what was checked, closing the window between the check and the open.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import {
  type Action,
  contentPermissions,
  Permission,
  type PermissionRequest,
  type PermissionShape
} from "../../Permission.js"
import { Workspace } from "../../Workspace.js"
import { detect } from "../core/encoding.js"
import { privateKeyIn, secretsIn, styleOf } from "../core/secrets.js"
import { readHead } from "../io/bytes.js"
import { realPathOf } from "../io/nodeFileSystem.js"

export interface Target {
  /** Absolute, lexically normalised. */
  readonly absolute: string
  /** Relative to the worktree with `/` separators, or absolute when outside it. */
  readonly relative: string
  /** The real path the access check decided on (set by `checkAccess`). */
  readonly real?: string | undefined
}

export const within = (path: Path.Path, root: string, candidate: string): boolean => {
  const rel = path.relative(root, candidate)
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel))
}

export const targetOf = (path: Path.Path, worktree: string, absolute: string): Target => ({
  absolute,
  relative: within(path, worktree, absolute)
    ? path.relative(worktree, absolute).split(path.sep).join("/") || "."
    : absolute
})

export const resolveTarget = Effect.fn("Read.resolveTarget", { captureStackTrace: false })(function*(filePath: string) {
  const path = yield* Path.Path
  const workspace = yield* Workspace
  return targetOf(path, workspace.worktree, path.resolve(workspace.directory, filePath))
})

/** The real path of `absolute`, or of its nearest existing ancestor joined with the rest. */
export const realPathOfNearest = Effect.fn("Read.realPath", { captureStackTrace: false })(function*(absolute: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  let current = absolute
  const rest: Array<string> = []
  for (;;) {
    const real = yield* realPathOf(fs, current)
    if (real._tag === "Some") return rest.length === 0 ? real.value : path.join(real.value, ...rest.reverse())
    const parent = path.dirname(current)
    if (parent === current) return absolute
    rest.push(path.basename(current))
    current = parent
  }
})

/**
 * The `external_directory` request for a target that, lexically or really, is outside the
 * worktree; undefined when it is inside on both counts.
 */
const externalRequest = Effect.fn("Read.externalRequest", { captureStackTrace: false })(
  function*(target: Target, real: string) {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const workspace = yield* Workspace
    const worktree = path.resolve(workspace.worktree)
    const outside: Array<string> = []
    if (!within(path, worktree, target.absolute)) outside.push(target.absolute)
    // The worktree's own real path matters only when the target's is not under it lexically.
    if (
      !within(path, worktree, real) && !within(path, yield* realPathOfNearest(worktree), real) &&
      !outside.includes(real)
    ) {
      outside.push(real)
    }
    if (outside.length === 0) return undefined
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
    return {
      permission: "external_directory",
      patterns,
      always: patterns,
      metadata: { filepath: target.absolute, realPath: real }
    } satisfies PermissionRequest
  }
)

/** Ask `external_directory` when the target, lexically or really, is outside the worktree. */
const checkExternal = Effect.fn("Read.checkExternal", { captureStackTrace: false })(
  function*(target: Target, real: string) {
    const request = yield* externalRequest(target, real)
    if (request === undefined) return
    yield* Effect.flatMap(Permission, (permission) => permission.ask(request))
  }
)

/**
 * What the `external_directory` rules say about a target and its real path, asking nobody:
 * `allow` for a target inside the worktree on both counts.
 */
export const checkExternalOf = (target: Target, real: string) =>
  Effect.flatMap(externalRequest(target, real), (request) =>
    request === undefined
      ? Effect.succeed<Action>("allow")
      : Effect.flatMap(Permission, (permission) => permission.check(request)))

/**
 * The `read` pattern of a path: relative to the worktree with `/` separators (`../x/y` outside
 * it, as opencode asks), or absolute when no relative path leads there (another drive).
 */
export const readPattern = (path: Path.Path, worktree: string, absolute: string): string => {
  const relative = path.relative(worktree, absolute)
  if (relative === "") return "."
  return path.isAbsolute(relative) ? absolute : relative.split(path.sep).join("/")
}

/**
 * The `read` request for a path and, when it differs, its real path: deny wins if either is denied.
 * No span of its own: every read builds it (twice), and it asks nothing. The services are taken
 * from the context at once (a step per service otherwise); the worktree's real path is looked up
 * only for a path whose real path differs.
 */
const readRequest = (target: Target, real?: string) =>
  Effect.flatMap(Effect.context<Path.Path | Workspace>(), (context) => {
    const path = Context.get(context, Path.Path)
    const worktree = path.resolve(Context.get(context, Workspace).worktree)
    const patterns = [readPattern(path, worktree, target.absolute)]
    const request = () => ({
      permission: "read",
      patterns,
      // Remembered for the conversation: this path (as written and real), not every path.
      always: patterns,
      metadata: { filePath: target.absolute, ...(real === undefined ? {} : { realPath: real }) }
    })
    if (real === undefined || real === target.absolute) return Effect.succeed(request())
    // A worktree reached through a link (/tmp → /private/tmp) is the same worktree.
    return Effect.map(realPathOfNearest(worktree), (realWorktree) => {
      const pattern = within(path, realWorktree, real)
        ? readPattern(path, realWorktree, real)
        : readPattern(path, worktree, real)
      if (!patterns.includes(pattern)) patterns.push(pattern)
      return request()
    })
  })

/** The `read` ask for a path (a file, or a directory about to be listed) and its real path. */
export const askRead = (target: Target, real?: string) =>
  Effect.flatMap(
    readRequest(target, real),
    (request) => Effect.flatMap(Permission, (permission) => permission.ask(request))
  )

/**
 * What a read of a path would meet, asking nobody: the `read` rules on the path and its real
 * path, where either lies outside the worktree the `external_directory` rules, and the content
 * permissions on the file's first bytes when a rule needs them (`deny` if any denies, `ask` if any
 * would ask).
 */
export const checkRead = (
  target: Target
): Effect.Effect<Action, never, FileSystem.FileSystem | Path.Path | Workspace | Permission> =>
  Effect.gen(function*() {
    const real = yield* realPathOfNearest(target.absolute)
    const external = yield* checkExternalOf(target, real)
    if (external === "deny") return external
    const request = yield* readRequest(target, real)
    const read = yield* Effect.flatMap(Permission, (permission) => permission.check(request))
    if (read === "deny") return read
    const content = yield* contentChecks(request, target.absolute, peekText(real))
    if (content === "deny") return content
    return read === "ask" || content === "ask" || external === "ask" ? "ask" : "allow"
  })

/** How much of a file the content permissions look at. */
export const CONTENT_SNIFF_BYTES = 64 * 1024

/** A file's first bytes as text, for deciding what it holds (not shown: it may be denied). */
const peekText = (path: string): Effect.Effect<string | undefined, never, FileSystem.FileSystem> =>
  Effect.flatMap(FileSystem.FileSystem, (fs) =>
    Effect.scoped(Effect.gen(function*() {
      const info = yield* fs.stat(path)
      if (info.type !== "File") return undefined
      const file = yield* fs.open(path, { flag: "r" })
      return textOf(yield* readHead(file, Math.min(CONTENT_SNIFF_BYTES, Number(info.size))))
    })).pipe(Effect.orElseSucceed(() => undefined)))

/** Bytes as text in their detected encoding; undefined for binary data. */
export const textOf = (bytes: Uint8Array): string | undefined => {
  const detection = detect(bytes.subarray(0, 4096), bytes.length < 4096)
  return detection._tag === "Text" ? detection.codec.decode(bytes.subarray(detection.bomLength)).text : undefined
}

const CONTENT_PERMISSIONS = [contentPermissions.privateKey, contentPermissions.secret] as const

/** What a content permission finds in a file's text: the kind of key, how many credentials, or nothing. */
const findIn = (permission: (typeof CONTENT_PERMISSIONS)[number], text: string, path: string): string | undefined => {
  if (permission === contentPermissions.privateKey) return privateKeyIn(text)
  const name = path.split(/[/\\]/).pop()
  const count = secretsIn(text, { style: styleOf(path), name })
  return count === 0 ? undefined : `${count} credential${count === 1 ? "" : "s"}`
}

/**
 * For each content permission the rules do not allow outright, what the file's text holds of it
 * (the text is only looked at then): the permission's request, its action, and the finding.
 */
const contentFindings = <R>(
  request: PermissionRequest,
  path: string,
  text: Effect.Effect<string | undefined, never, R>
) => Effect.flatMap(Permission, (permission) => findingsOf(permission, request, path, text))

/** `contentFindings` with the `Permission` service in hand. */
const findingsOf = <R>(
  permission: PermissionShape,
  request: PermissionRequest,
  path: string,
  text: Effect.Effect<string | undefined, never, R>
) =>
  Effect.gen(function*() {
    const findings: Array<{ readonly request: PermissionRequest; readonly action: Action; readonly found: string }> = []
    let loaded: { readonly text: string | undefined } | undefined
    for (const name of CONTENT_PERMISSIONS) {
      const contentRequest = { ...request, permission: name }
      const action = yield* permission.check(contentRequest)
      if (action === "allow") continue
      loaded ??= { text: yield* text }
      if (loaded.text === undefined) break
      const found = findIn(name, loaded.text, path)
      if (found !== undefined) {
        findings.push({
          request: { ...contentRequest, metadata: { ...contentRequest.metadata, found } },
          action,
          found
        })
      }
    }
    return findings
  })

/** What the content permissions decide for a file's text, asking nobody. */
const contentChecks = <R>(
  request: PermissionRequest,
  path: string,
  text: Effect.Effect<string | undefined, never, R>
) =>
  Effect.map(
    contentFindings(request, path, text),
    (findings): Action =>
      findings.some((finding) => finding.action === "deny") ? "deny" : findings.length > 0 ? "ask" : "allow"
  )

/**
 * After the open: what the file's first bytes (`text`, at most `CONTENT_SNIFF_BYTES` of them) hold
 * is asked about under its own permission, with the `read` request's patterns — a private key
 * (`read_private_key`), a credential (`read_secret`). Permissions the rules allow outright cost
 * nothing: the text is not even looked at.
 */
export const askContent = <R>(
  target: Target,
  text: Effect.Effect<string | undefined, never, R>,
  path: string = target.absolute
) =>
  Effect.flatMap(
    Permission,
    (permission) =>
      Effect.flatMap(readRequest(target, target.real), (request) =>
        Effect.flatMap(
          findingsOf(permission, request, path, text),
          (findings) =>
            findings.length === 0
              ? Effect.void
              : Effect.forEach(findings, (finding) => permission.ask(finding.request), { discard: true })
        ))
  )

/** The `read` request's target for a member of a checked archive: `<archive>/<member>`, as written and real. */
export const memberTarget = (archive: Target, member: string): Target => ({
  absolute: `${archive.absolute}/${member}`,
  relative: `${archive.relative}/${member}`,
  real: archive.real === undefined ? undefined : `${archive.real}/${member}`
})

/** Decide access on the path as written and on its real path; the target comes back with `real` set. */
export const checkAccess = Effect.fn("Read.checkAccess", { captureStackTrace: false })(function*(target: Target) {
  const real = yield* realPathOfNearest(target.absolute)
  yield* checkExternal(target, real)
  yield* askRead(target, real)
  return { ...target, real } satisfies Target
})
