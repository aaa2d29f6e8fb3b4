/**
 * Where a path leads and whether the session may go there.
 *
 * Every check is made on the path as written (lexically normalised) AND on its real path
 * (links resolved): the external-directory check, so a symlink inside the project cannot
 * smuggle a read outside it, and the `read` rules, so a link named `notes.txt` cannot side-step
 * a rule on the `.env` it points at. Then `openChecked` opens the file and confirms that what
 * was opened is what was checked, closing the window between the check and the open.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { type Action, contentPermissions, Permission, type PermissionRequest } from "../Permission.js"
import { FileChanged, formatBytes } from "../ReadError.js"
import { Workspace } from "../Workspace.js"
import { readHead } from "./bytes.js"
import { detect } from "./core/encoding.js"
import { privateKeyIn, secretsIn, styleOf } from "./core/secrets.js"
import { opensKernelDescriptors, realPathOf } from "./nodeFileSystem.js"
import { fromPlatformError } from "./platformError.js"

export interface Target {
  /** Absolute, lexically normalised. */
  readonly absolute: string
  /** Relative to the worktree with `/` separators, or absolute when outside it. */
  readonly relative: string
  /** The real path the access check decided on (set by `checkAccess`). */
  readonly real?: string | undefined
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
export const realPathOfNearest = Effect.fn("Read.realPath")(function*(absolute: string) {
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
const externalRequest = Effect.fn("Read.externalRequest")(function*(target: Target, real: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const workspace = yield* Workspace
  const worktree = path.resolve(workspace.worktree)
  const outside: Array<string> = []
  if (!within(path, worktree, target.absolute)) outside.push(target.absolute)
  // The worktree's own real path matters only when the target's is not under it lexically.
  if (!within(path, worktree, real) && !within(path, yield* realPathOfNearest(worktree), real) && !outside.includes(real)) {
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
})

/** Ask `external_directory` when the target, lexically or really, is outside the worktree. */
const checkExternal = Effect.fn("Read.checkExternal")(function*(target: Target, real: string) {
  const request = yield* externalRequest(target, real)
  if (request === undefined) return
  yield* Effect.flatMap(Permission, (permission) => permission.ask(request))
})

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

/** The `read` request for a path and, when it differs, its real path: deny wins if either is denied. */
const readRequest = Effect.fn("Read.readRequest")(function*(target: Target, real?: string) {
  const path = yield* Path.Path
  const workspace = yield* Workspace
  const worktree = path.resolve(workspace.worktree)
  const patterns = [readPattern(path, worktree, target.absolute)]
  if (real !== undefined && real !== target.absolute) {
    // A worktree reached through a link (/tmp → /private/tmp) is the same worktree.
    const realWorktree = yield* realPathOfNearest(worktree)
    const pattern = within(path, realWorktree, real) ? readPattern(path, realWorktree, real) : readPattern(path, worktree, real)
    if (!patterns.includes(pattern)) patterns.push(pattern)
  }
  return {
    permission: "read",
    patterns,
    // Remembered for the conversation: this path (as written and real), not every path.
    always: patterns,
    metadata: { filePath: target.absolute, ...(real === undefined ? {} : { realPath: real }) }
  }
})

/** The `read` ask for a path (a file, or a directory about to be listed) and its real path. */
export const askRead = (target: Target, real?: string) =>
  Effect.flatMap(readRequest(target, real), (request) => Effect.flatMap(Permission, (permission) => permission.ask(request)))

/**
 * What a read of a path would meet, asking nobody: the `read` rules on the path and its real
 * path, where either lies outside the worktree the `external_directory` rules, and the content
 * permissions on the file's first bytes when a rule needs them (`deny` if any denies, `ask` if any
 * would ask).
 */
export const checkRead = (target: Target): Effect.Effect<Action, never, FileSystem.FileSystem | Path.Path | Workspace | Permission> =>
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
) =>
  Effect.gen(function*() {
    const permission = yield* Permission
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
        findings.push({ request: { ...contentRequest, metadata: { ...contentRequest.metadata, found } }, action, found })
      }
    }
    return findings
  })

/** What the content permissions decide for a file's text, asking nobody. */
const contentChecks = <R>(request: PermissionRequest, path: string, text: Effect.Effect<string | undefined, never, R>) =>
  Effect.map(contentFindings(request, path, text), (findings): Action =>
    findings.some((finding) => finding.action === "deny") ? "deny" : findings.length > 0 ? "ask" : "allow")

/**
 * After the open: what the file's first bytes (`text`, at most `CONTENT_SNIFF_BYTES` of them) hold
 * is asked about under its own permission, with the `read` request's patterns — a private key
 * (`read_private_key`), a credential (`read_secret`). Permissions the rules allow outright cost
 * nothing: the text is not even looked at.
 */
export const askContent = <R>(target: Target, text: Effect.Effect<string | undefined, never, R>, path: string = target.absolute) =>
  Effect.gen(function*() {
    const permission = yield* Permission
    const request = yield* readRequest(target, target.real)
    for (const finding of yield* contentFindings(request, path, text)) {
      yield* permission.ask(finding.request)
    }
  })

/** The `read` request's target for a member of a checked archive: `<archive>/<member>`, as written and real. */
export const memberTarget = (archive: Target, member: string): Target => ({
  absolute: `${archive.absolute}/${member}`,
  relative: `${archive.relative}/${member}`,
  real: archive.real === undefined ? undefined : `${archive.real}/${member}`
})

/** Decide access on the path as written and on its real path; the target comes back with `real` set. */
export const checkAccess = Effect.fn("Read.checkAccess")(function*(target: Target) {
  const real = yield* realPathOfNearest(target.absolute)
  yield* checkExternal(target, real)
  yield* askRead(target, real)
  return { ...target, real } satisfies Target
})

const sameIdentity = (a: FileSystem.File.Info, b: FileSystem.File.Info): boolean =>
  a.dev === b.dev && Option.getOrUndefined(a.ino) === Option.getOrUndefined(b.ino)

/**
 * Open a checked target and confirm the descriptor holds the file that was checked: where the
 * kernel names what a descriptor holds (`/proc/self/fd`, Linux), that name must be the checked
 * real path; elsewhere (other systems, an in-memory filesystem) the descriptor's device and
 * inode must be those of the checked real path. A link swapped in between the check and the
 * open is caught either way and fails closed with `FileChanged`. Also returns the descriptor's
 * `stat` at open: the version every byte of the read must come from.
 */
export const openCheckedAt = Effect.fn("Read.openChecked")(function*(target: Target) {
  const fs = yield* FileSystem.FileSystem
  const failed = (error: Parameters<typeof fromPlatformError>[1]) => fromPlatformError(target.absolute, error)
  const file = yield* fs.open(target.absolute, { flag: "r" }).pipe(Effect.mapError(failed))
  const checked = target.real
  const info = yield* file.stat.pipe(Effect.mapError(failed))
  if (checked === undefined) return { file, info }
  const named = yield* fs.readLink(`/proc/self/fd/${file.fd}`).pipe(Effect.option)
  const swapped = () =>
    new FileChanged({
      path: target.absolute,
      detail: "it was replaced between the permission check and opening it"
    })
  // A descriptor number of another filesystem layer (in-memory) names some other file here:
  // the kernel's name counts only when that file is the one the descriptor holds (Node's own
  // descriptors are the kernel's).
  const kernelName = Option.isSome(named) && (opensKernelDescriptors(fs) || (yield* fs.stat(named.value).pipe(
      Effect.map((found) => sameIdentity(found, info)),
      Effect.orElseSucceed(() => false)
    )))
    ? named.value
    : undefined
  if (kernelName !== undefined) {
    if (kernelName !== checked) return yield* swapped()
    return { file, info }
  }
  // The checked path must still be real (no link swapped in on the way) and hold that file.
  const real = Option.getOrUndefined(yield* realPathOf(fs, checked))
  const now = yield* fs.stat(checked).pipe(Effect.orElseSucceed(() => undefined))
  if (real !== checked || now === undefined || !sameIdentity(now, info)) return yield* swapped()
  return { file, info }
})

/** `openCheckedAt`, for callers that need only the descriptor. */
export const openChecked = (target: Target) => Effect.map(openCheckedAt(target), ({ file }) => file)

/**
 * After listing a checked directory: its real path must still be the one checked, or a link
 * was swapped in and the names listed may be another directory's.
 */
export const confirmDirectory = Effect.fn("Read.confirmDirectory")(function*(target: Target) {
  if (target.real === undefined) return
  const now = yield* realPathOfNearest(target.absolute)
  if (now !== target.real) {
    return yield* new FileChanged({
      path: target.absolute,
      detail: "it was replaced by a link while it was being listed"
    })
  }
})

/**
 * The first `size` bytes of an open file, from its start (callers cap the size first): the bytes
 * it had when opened; fewer means it shrank (`endedEarly`), appended ones are not read.
 */
export const readAllFrom = (file: FileSystem.File, target: Target, size: number) =>
  Effect.gen(function*() {
    const failed = (error: Parameters<typeof fromPlatformError>[1]) => fromPlatformError(target.absolute, error)
    yield* file.seek(0, "start")
    const chunks: Array<Uint8Array> = []
    let total = 0
    while (total < size) {
      const chunk = yield* file.readAlloc(Math.min(256 * 1024, size - total)).pipe(Effect.mapError(failed))
      if (Option.isNone(chunk) || chunk.value.length === 0) {
        yield* endedEarly(file, target, size)
        break
      }
      chunks.push(chunk.value)
      total += chunk.value.length
    }
    const bytes = new Uint8Array(total)
    let at = 0
    for (const chunk of chunks) {
      bytes.set(chunk, at)
      at += chunk.length
    }
    return bytes
  })

/** The whole of a checked file (callers cap its size first), read from the checked descriptor. */
export const readChecked = (target: Target) =>
  Effect.scoped(Effect.gen(function*() {
    const { file, info: before } = yield* openCheckedAt(target)
    const size = Number(before.size)
    const tail = yield* tailOf(file, size)
    return yield* confirmUnchanged(file, target, before, readAllFrom(file, target, size), {
      before: tail,
      again: tailOf(file, size)
    })
  }))

/** How many of the opened version's last bytes `confirmUnchanged` compares. */
export const TAIL_BYTES = 4096

/**
 * The last bytes of the first `size` bytes of a file (undefined if they cannot be read): an
 * append leaves them as they were, a rewrite almost never does. Moves the file's position.
 */
export const tailOf = (file: FileSystem.File, size: number): Effect.Effect<Uint8Array | undefined> =>
  Effect.gen(function*() {
    if (size === 0) return undefined
    const length = Math.min(TAIL_BYTES, size)
    yield* file.seek(size - length, "start")
    return yield* readHead(file, length)
  }).pipe(Effect.orElseSucceed(() => undefined))

/**
 * The file ended before the size it had when it was opened: it shrank under the read
 * (`FileChanged`), unless it still reports that size, as `/sys` files (always 4096) and some
 * FUSE files do: then its end is where the bytes end.
 */
export const endedEarly = (file: FileSystem.File, target: Target, size: number) =>
  Effect.flatMap(file.stat.pipe(Effect.option), (now) =>
    Option.isSome(now) && Number(now.value.size) >= size
      ? Effect.void
      : Effect.fail(
        new FileChanged({
          path: target.absolute,
          detail: `it shrank while it was being read (${formatBytes(size)} → ${
            Option.match(now, { onNone: () => "less", onSome: (info) => formatBytes(Number(info.size)) })
          })`
        })
      ))

/**
 * Run `use`, then confirm the open file is still the version it was (`before`, its `stat` at
 * open): not shrunk, not rewritten in place (same size, new mtime; or its last bytes changed),
 * and still the file at its path (not replaced by a rename). A change fails with `FileChanged`
 * whatever `use` returned, so no answer mixes two versions or claims an end it did not reach.
 * Growth that left the old bytes in place is an append: the read is an honest snapshot of the
 * bytes that were there when it was opened; `tail` (the last bytes at open, see `tailOf`, and
 * how to read them again) tells it from a rewrite that grew the file or kept its mtime.
 */
export const confirmUnchanged = <A, E, R>(
  file: FileSystem.File,
  target: Target,
  before: FileSystem.File.Info,
  use: Effect.Effect<A, E, R>,
  tail?: {
    readonly before: Uint8Array | undefined
    readonly again: Effect.Effect<Uint8Array | undefined, never, R>
  }
): Effect.Effect<A, E | FileChanged, R | FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const result = yield* Effect.either(use)
    const checking = Effect.gen(function*() {
      const after = yield* file.stat.pipe(Effect.option)
      // Its old end changed: a rewrite (also told when the descriptor's stat fails).
      const tailNow = tail?.before === undefined ? undefined : yield* tail.again
      const rewritten = tail?.before !== undefined && tailNow !== undefined && Buffer.compare(tail.before, tailNow) !== 0
      if (Option.isNone(after)) return rewritten ? "it was rewritten while it was being read" : undefined
      const now = after.value
      const size = Number(before.size)
      const sizeNow = Number(now.size)
      if (sizeNow < size) return `it shrank while it was being read (${formatBytes(size)} → ${formatBytes(sizeNow)})`
      const mtime = Option.getOrUndefined(Option.map(before.mtime, (date) => date.getTime()))
      const mtimeNow = Option.getOrUndefined(Option.map(now.mtime, (date) => date.getTime()))
      if (sizeNow === size && mtime !== mtimeNow) return "it was rewritten while it was being read"
      // A rewrite that grew the file, or one within the same mtime tick: the old end changed.
      // It grew, and its old end could not be read at open: an append cannot be told apart.
      if (sizeNow > size && size > 0 && tail !== undefined && tail.before === undefined) {
        return `it grew while it was being read (${formatBytes(size)} → ${formatBytes(sizeNow)})`
      }
      if (rewritten) {
        return sizeNow > size
          ? `it was rewritten while it was being read (${formatBytes(size)} → ${formatBytes(sizeNow)})`
          : "it was rewritten while it was being read"
      }
      const atPath = yield* fs.stat(target.absolute).pipe(Effect.option)
      if (Option.isNone(atPath)) return "it was removed while it was being read"
      if (!sameIdentity(atPath.value, now)) return "it was replaced while it was being read"
      return undefined
    })
    // A file that stops answering (a hung mount) must not hang the read after its answer.
    const checked = yield* Effect.timeoutOption(checking, CONFIRM_TIMEOUT)
    if (Option.isNone(checked)) {
      // A failure stands as it is; a success cannot be vouched for.
      if (result._tag === "Left") return yield* result
      return yield* new FileChanged({
        path: target.absolute,
        detail: "it stopped answering while it was checked for changes"
      })
    }
    const detail = checked.value
    if (detail !== undefined) return yield* new FileChanged({ path: target.absolute, detail })
    return yield* result
  })

/** How long `confirmUnchanged` waits for the file to answer its checks. */
const CONFIRM_TIMEOUT = "5 seconds"

/**
 * Run `use`, which reads `target` its own way (SQLite opens it by path), holding the file open
 * meanwhile: the answer is `FileChanged` when the file opened is not the version `info`
 * describes (it changed since it was looked at), or when it changes before `use` is done.
 */
export const whileUnchanged = <A, E, R>(target: Target, info: FileSystem.File.Info, use: Effect.Effect<A, E, R>) =>
  Effect.scoped(Effect.gen(function*() {
    const { file, info: opened } = yield* openCheckedAt(target)
    const time = (i: FileSystem.File.Info) => Option.getOrUndefined(Option.map(i.mtime, (date) => date.getTime()))
    if (!sameIdentity(info, opened) || Number(info.size) !== Number(opened.size) || time(info) !== time(opened)) {
      const [was, is] = [Number(info.size), Number(opened.size)]
      return yield* new FileChanged({
        path: target.absolute,
        detail: `it changed while it was being read${was === is ? "" : ` (${formatBytes(was)} → ${formatBytes(is)})`}`
      })
    }
    const size = Number(opened.size)
    return yield* confirmUnchanged(file, target, opened, use, { before: yield* tailOf(file, size), again: tailOf(file, size) })
  }))
