/**
 * Don't pay twice: what each session's model still holds of the files it read, as the host
 * reports it. The default (`SessionMemory` unprovided) remembers nothing, and every read returns
 * its content. `layerSession` remembers each text read — the lines shown and the content hash
 * they were shown at — until the host says `compacted`, `rewound(to)` or `forget(path)`; a later
 * read of lines the session still holds, of a file whose content hash is unchanged, is answered
 * with a short stub and `metadata.unchanged`.
 *
 * Never stubbed: instruction files (`AGENTS.md`, `CLAUDE.md`, skill files …: the model must see
 * them whole every time they are asked for), anything after a compaction or a rewind past its
 * read, lines not held, a file over `FileTime.maxHashBytes` (no hash to prove it unchanged), a
 * read with `column` or another encoding than the one held.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { stamp } from "./FileTime.js"
import type { ReadResult } from "./ReadResult.js"
import { Workspace } from "./Workspace.js"

/** One read the model was shown: lines `start`-`end` of the content with hash `hash`. */
export interface Seen {
  /** Order of the read in its session; `rewound(to)` keeps the reads up to `to`. */
  readonly seq: number
  readonly start: number
  readonly end: number
  readonly hash: string
  readonly encoding: string | undefined
}

export interface SessionMemoryShape {
  /** Does this memory remember at all? `false` for the default: `read` then does nothing extra. */
  readonly enabled: boolean
  /** The held reads of `path` in `sessionId` (oldest first). */
  readonly held: (sessionId: string, path: string) => Effect.Effect<ReadonlyArray<Seen>>
  /** Remember that the session was shown these lines; returns its `seq`. */
  readonly remember: (sessionId: string, path: string, seen: Omit<Seen, "seq">) => Effect.Effect<number>
  /** A point in the session to rewind to later: the `seq` of its latest read. */
  readonly mark: (sessionId: string) => Effect.Effect<number>
  /** The host compacted the conversation: nothing read before is still in context. */
  readonly compacted: (sessionId: string) => Effect.Effect<void>
  /** The host rewound the conversation to `to` (a `mark`): reads after it are gone. */
  readonly rewound: (sessionId: string, to: number) => Effect.Effect<void>
  /** The host dropped a file's reads from the context (or wants it shown again). */
  readonly forget: (sessionId: string, path: string) => Effect.Effect<void>
}

/** Remembers nothing: every read returns its content, exactly as without session memory. */
export const none: SessionMemoryShape = {
  enabled: false,
  held: () => Effect.succeed([]),
  remember: () => Effect.succeed(0),
  mark: () => Effect.succeed(0),
  compacted: () => Effect.void,
  rewound: () => Effect.void,
  forget: () => Effect.void
}

/** What the host says is in the model's context. Default: nothing is remembered (`none`). */
export class SessionMemory extends Context.Reference<SessionMemory>()("effect-read/SessionMemory", {
  defaultValue: (): SessionMemoryShape => none
}) {}

export interface Options {
  /** Files remembered per session (least recently read dropped first). Default 2,000. */
  readonly maxFiles?: number | undefined
  /** Reads remembered per file (oldest dropped first). Default 32. */
  readonly maxReadsPerFile?: number | undefined
}

/** A session memory in this process, per session id. */
export const make = (options: Options = {}): SessionMemoryShape => {
  const maxFiles = options.maxFiles ?? 2_000
  const maxReads = options.maxReadsPerFile ?? 32
  const sessions = new Map<string, { seq: number; files: Map<string, Array<Seen>> }>()
  const sessionOf = (id: string) => {
    let session = sessions.get(id)
    if (session === undefined) {
      session = { seq: 0, files: new Map() }
      sessions.set(id, session)
    }
    return session
  }
  return {
    enabled: true,
    held: (sessionId, path) => Effect.sync(() => sessions.get(sessionId)?.files.get(path) ?? []),
    remember: (sessionId, path, seen) =>
      Effect.sync(() => {
        const session = sessionOf(sessionId)
        const seq = ++session.seq
        // Reads of other content are older views the latest read replaced: never a stub's basis.
        const reads = (session.files.get(path) ?? []).filter((read) => read.hash === seen.hash)
        session.files.delete(path)
        session.files.set(path, [...reads, { ...seen, seq }].slice(-maxReads))
        if (session.files.size > maxFiles) session.files.delete(session.files.keys().next().value!)
        return seq
      }),
    mark: (sessionId) => Effect.sync(() => sessions.get(sessionId)?.seq ?? 0),
    compacted: (sessionId) => Effect.sync(() => sessions.get(sessionId)?.files.clear()),
    rewound: (sessionId, to) =>
      Effect.sync(() => {
        const session = sessions.get(sessionId)
        if (session === undefined) return
        for (const [path, reads] of session.files) {
          const kept = reads.filter((read) => read.seq <= to)
          if (kept.length === 0) session.files.delete(path)
          else session.files.set(path, kept)
        }
      }),
    forget: (sessionId, path) => Effect.sync(() => void sessions.get(sessionId)?.files.delete(path))
  }
}

/** Session memory in this process: remembers until the host says otherwise. */
export const layerSession = (options: Options = {}): Layer.Layer<SessionMemory> =>
  Layer.sync(SessionMemory, () => make(options))

/** Instruction files: always shown whole, never stubbed. */
export const isInstructionFile = (path: string): boolean => {
  const parts = path.split(/[\\/]/)
  const name = parts[parts.length - 1]!
  return /^(AGENTS|CLAUDE|CLAUDE\.local|GEMINI|SKILL)\.md$/i.test(name) ||
    parts.includes("skills") || parts.includes(".claude") || /^\.(cursorrules|windsurfrules|clinerules)$/.test(name)
}

/** Merged inclusive ranges, sorted. */
export const mergeRanges = (
  ranges: ReadonlyArray<{ readonly start: number; readonly end: number }>
): Array<{ start: number; end: number }> => {
  const sorted = [...ranges].sort((a, b) => a.start - b.start)
  const merged: Array<{ start: number; end: number }> = []
  for (const range of sorted) {
    const last = merged[merged.length - 1]
    if (last !== undefined && range.start <= last.end + 1) last.end = Math.max(last.end, range.end)
    else merged.push({ start: range.start, end: range.end })
  }
  return merged
}

/** Are lines `start`-`end` inside the merged ranges? */
export const covered = (
  ranges: ReadonlyArray<{ readonly start: number; readonly end: number }>,
  start: number,
  end: number
): boolean => mergeRanges(ranges).some((range) => range.start <= start && end <= range.end)

export const stubText = (path: string, start: number, end: number, nextOffset: number | undefined): string =>
  [
    `<path>${path}</path>`,
    "<type>file</type>",
    `File unchanged since your last read (lines ${start}-${end}). Its content is still above in this conversation.${
      nextOffset === undefined ? "" : ` Use offset=${nextOffset} to read on.`
    }`
  ].join("\n")

/**
 * `read`'s last step: with a remembering session memory, a text read of held lines at an unchanged
 * hash becomes the stub, and any other text read is remembered. A read whose file changed after
 * it ran (size or mtime no longer the shown ones) is neither stubbed nor remembered.
 */
export const apply = (request: { readonly column?: number | undefined }, result: ReadResult) =>
  Effect.gen(function*() {
    const memory = yield* SessionMemory
    const metadata = result.metadata
    if (!memory.enabled || metadata.kind !== "text" || metadata.mtime === undefined) return result
    if (metadata.startLine === undefined || metadata.endLine === undefined || request.column !== undefined) return result
    if (isInstructionFile(metadata.path)) return result
    const after = yield* hashOfShown(metadata)
    if (after === undefined) return result
    const { sessionId } = yield* Workspace
    const held = (yield* memory.held(sessionId, metadata.path)).filter(
      (seen) => seen.hash === after && seen.encoding === metadata.encoding
    )
    const asked = metadata.ranges ?? [{ start: metadata.startLine, end: metadata.endLine }]
    if (asked.every((range) => covered(held, range.start, range.end))) {
      const stub: ReadResult = {
        ...result,
        output: stubText(metadata.path, metadata.startLine, metadata.endLine, metadata.nextOffset),
        metadata: { ...metadata, unchanged: true }
      }
      return stub
    }
    // A read of several ranges holds those ranges only, never the lines between them.
    for (const range of metadata.ranges ?? [{ start: metadata.startLine, end: metadata.endLine }]) {
      yield* memory.remember(sessionId, metadata.path, {
        start: range.start,
        end: range.end,
        hash: after,
        encoding: metadata.encoding
      })
    }
    return result
  })

/**
 * The content hash of the version a result shows: the file's hash now, when its size and mtime are
 * still the ones the result reports (else the file changed after the read: undefined).
 */
export const hashOfShown = (metadata: ReadResult["metadata"]) =>
  stamp(metadata.path).pipe(
    Effect.map((stamped) =>
      stamped.size === metadata.size && stamped.mtime === metadata.mtime ? stamped.hash : undefined
    ),
    Effect.orElseSucceed(() => undefined)
  ) satisfies Effect.Effect<string | undefined, never, FileSystem.FileSystem>
