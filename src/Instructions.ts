/**
 * Nearby instructions (off by default). With `Instructions.layer()`, reading a file under a
 * directory whose `AGENTS.md` (or `CLAUDE.md`; names configurable) this session has not yet been
 * shown appends that file once, after the output, as a `<system-reminder>` block, and lists it in
 * `metadata.loaded`.
 *
 * - Directories: the read file's own directory, then each parent up to and including the
 *   worktree root — at most `maxDirectories` (default 8), the nearest ones; in each, the first of
 *   `names` that is a file. Shown outermost first (the root's before a sub-directory's).
 * - Once: with a remembering `SessionMemory`, an instruction file is "shown" while the memory
 *   holds it at its current content, so it is shown again after `compacted`, after a `rewound`
 *   past the read that showed it, after `forget(path)`, and when it changed. Without one, once per
 *   session and version of the file, for the life of the layer.
 * - Never for a read outside the worktree (lexically or by its real path), never a file the
 *   `read` rules do not allow without asking (denied or ask: not shown, nobody asked), never an
 *   instruction file whose real path leaves the worktree, never the file being read itself.
 * - Capped: each file at `maxBytesPerFile` (8 KiB; a cut one says so and how to read the rest),
 *   all of one read at `maxBytes` (12 KiB; files past it wait for a later read). The block comes
 *   on top of the page's 50 KB.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { createHash } from "node:crypto"
import { formatBytes } from "./internal/core/format.js"
import { checkRead, realPathOfNearest, type Target, targetOf } from "./internal/read/access.js"
import { openChecked, readAllFrom } from "./internal/read/open.js"
import type { Permission } from "./Permission.js"
import type { ReadResult } from "./ReadResult.js"
import { SessionMemory } from "./SessionMemory.js"
import { Workspace } from "./Workspace.js"

export interface Options {
  /** File names that hold instructions, tried in this order in each directory. Default `AGENTS.md`, `CLAUDE.md`. */
  readonly names?: ReadonlyArray<string> | undefined
  /** Directories looked in, nearest first (the file's own, then parents up to the worktree). Default 8. */
  readonly maxDirectories?: number | undefined
  /** Bytes shown of one instruction file. Default 8 KiB. */
  readonly maxBytesPerFile?: number | undefined
  /** Bytes of instructions appended to one read. Default 12 KiB. */
  readonly maxBytes?: number | undefined
  /** Absolute paths never appended (e.g. the ones the host already put in the system prompt). */
  readonly skip?: ReadonlyArray<string> | undefined
  /**
   * Sessions whose shown instructions are remembered without a session memory (least recently
   * reading dropped first; a dropped one is shown them again). Default 256.
   */
  readonly maxSessions?: number | undefined
}

export interface InstructionsShape {
  readonly enabled: boolean
  readonly names: ReadonlyArray<string>
  readonly maxDirectories: number
  readonly maxBytesPerFile: number
  readonly maxBytes: number
  readonly skip: ReadonlySet<string>
  /**
   * What was shown per session (path → content hash) when no session memory remembers it; Map
   * order is the eviction order, at most `maxSessions` sessions.
   */
  readonly shown: Map<string, Map<string, string>>
  readonly maxSessions: number
  /** Content hashes of instruction files by size and mtime: a held one is skipped with a `stat`. */
  readonly hashes: Map<string, { readonly version: string; readonly hash: string }>
  /** One read at a time decides what to append: `read_many`'s parallel reads show a file once. */
  readonly lock: Effect.Semaphore
}

export const defaults = {
  names: ["AGENTS.md", "CLAUDE.md"],
  maxDirectories: 8,
  maxBytesPerFile: 8 * 1024,
  maxBytes: 12 * 1024,
  maxSessions: 256
} as const

export const make = (options: Options = {}): InstructionsShape => ({
  enabled: true,
  names: options.names ?? defaults.names,
  maxDirectories: options.maxDirectories ?? defaults.maxDirectories,
  maxBytesPerFile: options.maxBytesPerFile ?? defaults.maxBytesPerFile,
  maxBytes: options.maxBytes ?? defaults.maxBytes,
  skip: new Set(options.skip ?? []),
  shown: new Map(),
  maxSessions: options.maxSessions ?? defaults.maxSessions,
  hashes: new Map(),
  lock: Effect.unsafeMakeSemaphore(1)
})

/** Off: no read appends anything. */
export const noop: InstructionsShape = { ...make(), enabled: false }

/** Whether and how reads append nearby instructions. Default: off (`noop`). */
export class Instructions extends Context.Reference<Instructions>()("effect-read/Instructions", {
  defaultValue: (): InstructionsShape => noop
}) {}

/** Off, as a layer (the default, stated). */
export const layerNoop: Layer.Layer<Instructions> = Layer.succeed(Instructions, noop)

/** @deprecated Use `noop` (or `layerNoop`). */
export const off: InstructionsShape = noop

/** Nearby instructions on, with these options. */
export const layer = (options: Options = {}): Layer.Layer<Instructions> => Layer.sync(Instructions, () => make(options))

const within = (path: Path.Path, root: string, candidate: string): boolean => {
  const relative = path.relative(root, candidate)
  return relative === "" || (relative !== ".." && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative))
}

/** Cut UTF-8 text to at most `max` bytes, on a character boundary. */
const cutUtf8 = (bytes: Uint8Array, max: number): string => {
  let end = Math.min(max, bytes.length)
  // Step back over continuation bytes so no character is split.
  while (end > 0 && end < bytes.length && (bytes[end]! & 0xc0) === 0x80) end--
  return new TextDecoder().decode(bytes.subarray(0, end))
}

const lineCount = (text: string): number => {
  if (text.length === 0) return 0
  const lines = text.split(/\r\n|\r|\n/)
  return lines[lines.length - 1] === "" ? lines.length - 1 : lines.length
}

/** Instruction files whose hash is kept (then the cache starts over). */
const MAX_HASHES = 1_000

/** Bytes of an instruction file read (and hashed to tell versions apart); a bigger one is cut anyway. */
const HEAD_BYTES = 1024 * 1024

/** The first `HEAD_BYTES` of a checked file, from the checked descriptor, and its size. */
const readHead = (target: Target) =>
  Effect.scoped(Effect.gen(function*() {
    const file = yield* openChecked(target)
    const size = Number((yield* file.stat).size)
    return { head: yield* readAllFrom(file, target, Math.min(size, HEAD_BYTES)), size }
  }))

/** The instruction files for a file at `absolute`, outermost first (see the module comment). */
const candidatesFor = (absolute: string, settings: InstructionsShape) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const workspace = yield* Workspace
    const root = path.resolve(workspace.worktree)
    const found: Array<{ readonly path: string; readonly version: string }> = []
    let directory = path.dirname(absolute)
    for (let i = 0; i < settings.maxDirectories && within(path, root, directory); i++) {
      for (const name of settings.names) {
        const candidate = path.join(directory, name)
        const info = yield* fs.stat(candidate).pipe(Effect.option)
        if (info._tag === "Some" && info.value.type === "File") {
          const mtime = info.value.mtime._tag === "Some" ? info.value.mtime.value.getTime() : undefined
          found.push({ path: candidate, version: `${info.value.size}:${mtime}` })
          break
        }
      }
      if (directory === root) break
      directory = path.dirname(directory)
    }
    return found.reverse()
  })

/**
 * `read`'s step for nearby instructions: with the layer on, append the instruction files near a
 * local file this session has not been shown (see the module comment); otherwise the result as it is.
 */
export const append = (result: ReadResult) =>
  Effect.gen(function*() {
    const settings = yield* Instructions
    if (!settings.enabled || result.metadata.kind === "web" || result.metadata.kind === "directory") return result
    return yield* settings.lock.withPermits(1)(appendTo(result, settings))
  })

/** The instruction files `sessionId` was shown, the session moved last in the eviction order. */
const shownBy = (settings: InstructionsShape, sessionId: string): Map<string, string> => {
  const own = settings.shown.get(sessionId) ?? new Map<string, string>()
  settings.shown.delete(sessionId)
  settings.shown.set(sessionId, own)
  if (settings.shown.size > settings.maxSessions) settings.shown.delete(settings.shown.keys().next().value!)
  return own
}

const appendTo = (result: ReadResult, settings: InstructionsShape) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const workspace = yield* Workspace
    const memory = yield* SessionMemory
    const absolute = result.metadata.path
    const root = path.resolve(workspace.worktree)
    // Only a local file (an archive member's path names no file) inside the worktree, really too.
    const isFile = yield* fs.stat(absolute).pipe(
      Effect.map((info) => info.type === "File"),
      Effect.orElseSucceed(() => false)
    )
    if (!isFile || !within(path, root, absolute)) return result
    const realRoot = yield* realPathOfNearest(root)
    if (!within(path, realRoot, yield* realPathOfNearest(absolute))) return result

    // Without a session memory, this session's shown files, now its most recently reading one.
    const own = memory.enabled ? new Map<string, string>() : shownBy(settings, workspace.sessionId)
    const blocks: Array<string> = []
    const loaded: Array<string> = []
    let budget = settings.maxBytes
    const isHeld = (candidate: string, hash: string) =>
      memory.enabled
        ? Effect.map(memory.held(workspace.sessionId, candidate), (held) => held.some((seen) => seen.hash === hash))
        : Effect.succeed(own.get(candidate) === hash)
    for (const { path: candidate, version } of yield* candidatesFor(absolute, settings)) {
      if (candidate === absolute || settings.skip.has(candidate)) continue
      const known = settings.hashes.get(candidate)
      if (known?.version === version && (yield* isHeld(candidate, known.hash))) continue
      const target = targetOf(path, workspace.worktree, candidate)
      const real = yield* realPathOfNearest(candidate)
      if (!within(path, realRoot, real) && !within(path, root, real)) continue
      // Allowed without asking, or not shown: nobody is asked about a file they did not name.
      if ((yield* checkRead(target)) !== "allow") continue
      const bytes = yield* readHead({ ...target, real }).pipe(Effect.option)
      if (bytes._tag === "None") continue
      const hash = createHash("sha256").update(bytes.value.head).digest("hex")
      if (settings.hashes.size >= MAX_HASHES) settings.hashes.clear()
      settings.hashes.set(candidate, { version, hash })
      if (yield* isHeld(candidate, hash)) continue
      const size = bytes.value.size
      const shownBytes = Math.min(size, settings.maxBytesPerFile)
      // Past this read's budget: left for a later read (not marked as shown).
      if (shownBytes > budget && loaded.length > 0) continue
      const cut = size > settings.maxBytesPerFile || shownBytes > budget
      const text = cutUtf8(bytes.value.head, Math.min(shownBytes, budget))
      blocks.push([
        `Instructions from: ${candidate}`,
        text.replace(/\n$/, ""),
        ...(cut
          ? [
            `(Cut at ${formatBytes(new TextEncoder().encode(text).length)} of ${
              formatBytes(size)
            }: read ${candidate} for the rest.)`
          ]
          : [])
      ].join("\n"))
      loaded.push(candidate)
      budget -= shownBytes
      if (memory.enabled) {
        yield* memory.remember(workspace.sessionId, candidate, {
          start: 1,
          end: Math.max(1, lineCount(text)),
          hash,
          encoding: "utf-8"
        })
      } else {
        own.set(candidate, hash)
      }
    }
    if (loaded.length === 0) return result
    const appended: ReadResult = {
      ...result,
      output: `${result.output}\n\n<system-reminder>\n${blocks.join("\n\n")}\n</system-reminder>`,
      metadata: { ...result.metadata, loaded }
    }
    return appended
  }) satisfies Effect.Effect<ReadResult, never, FileSystem.FileSystem | Path.Path | Workspace | Permission>
