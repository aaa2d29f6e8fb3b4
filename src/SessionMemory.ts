/**
 * Don't pay twice: what each session's model still holds of the files it read, as the host
 * reports it. The default (`SessionMemory` unprovided) remembers nothing, and every read returns
 * its content. `layerSession` remembers each text read — the lines shown and the content hash
 * they were shown at — until the host says `compacted`, `rewound(to)` or `forget(path)`; a later
 * read of lines the session still holds, of a file whose content hash is unchanged, is answered
 * with a short stub and `metadata.unchanged`.
 *
 * Changed since your last read: `layerSession` also keeps what each read showed of a text file
 * (the lines shown, and a 53-bit hash of every line of that version), bounded per session. When a
 * file the session read has changed, the next read leads with a one-line notice and, when the
 * change within the lines shown is small, a unified diff against what the session was shown.
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
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { createHash } from "node:crypto"
import { stamp } from "./FileTime.js"
import * as Diff from "./internal/core/diff.js"
import { detectionFor } from "./internal/core/encoding.js"
import { cutLine } from "./internal/core/lines.js"
import { clipRanges, type ClosedRange, mergeRanges as mergeLineRanges } from "./internal/core/ranges.js"
import { recordOrDefer } from "./internal/read/record.js"
import { PageLimits } from "./Limits.js"
import type { ReadResult, TextMetadata } from "./ReadResult.js"
import { Workspace } from "./Workspace.js"

/** One read the model was shown: lines `start`-`end` of the content with hash `hash`. */
export interface Seen {
  /**
   * Order of the read: larger than any earlier read's (and mark) of its session, even one the
   * memory forgot since (`maxSessions`); `rewound(to)` keeps the reads up to `to`.
   */
  readonly seq: number
  readonly start: number
  readonly end: number
  readonly hash: string
  readonly encoding: string | undefined
}

/** What a read showed of one version of a text file, kept to tell the session how it changed since. */
export interface Snapshot {
  readonly hash: string
  readonly encoding: string | undefined
  /** `Diff.hashLine` of every line of the version; undefined when the file was over `maxSnapshotFileBytes`. */
  readonly hashes: Float64Array | undefined
  /** The shown lines' text (as shown: cut at the line-length cap), by 1-based line number. */
  readonly lines: ReadonlyMap<number, string>
}

/**
 * A signal (or `mark`, `advance`) that the memory could not apply: its store could not be reached
 * or refused the write. The host must not go on as if it had been applied — a compaction that was
 * not recorded leaves stubs for content no longer in the context — so it is an error to retry or
 * report, never swallowed. (Queries degrade instead: a store that cannot answer holds nothing, and
 * the read gives its full content.)
 */
export class SessionMemoryError extends Schema.TaggedError<SessionMemoryError>()("SessionMemoryError", {
  operation: Schema.String,
  sessionId: Schema.String,
  cause: Schema.Defect
}) {
  override get message(): string {
    const reason = this.cause instanceof Error ? this.cause.message : String(this.cause)
    return `Session memory could not record ${this.operation} for session ${this.sessionId}: ${reason}`
  }
}

export interface SessionMemoryShape {
  /** Does this memory remember at all? `false` for the default: `read` then does nothing extra. */
  readonly enabled: boolean
  /** The held reads of `path` in `sessionId` (oldest first). */
  readonly held: (sessionId: string, path: string) => Effect.Effect<ReadonlyArray<Seen>>
  /**
   * Remember that the session was shown these lines; returns its `seq`, or 0 when nothing was
   * remembered (the request's `Generation` is older than the conversation's).
   */
  readonly remember: (sessionId: string, path: string, seen: Omit<Seen, "seq">) => Effect.Effect<number>
  /** A point in the session to rewind to later: the `seq` of its latest read (0 before any). */
  readonly mark: (sessionId: string) => Effect.Effect<number, SessionMemoryError>
  /** The host compacted the conversation: nothing read before is still in context. */
  readonly compacted: (sessionId: string) => Effect.Effect<void, SessionMemoryError>
  /** The host rewound the conversation to `to` (a `mark`): reads after it are gone. */
  readonly rewound: (sessionId: string, to: number) => Effect.Effect<void, SessionMemoryError>
  /** The host dropped a file's reads from the context (or wants it shown again). */
  readonly forget: (sessionId: string, path: string) => Effect.Effect<void, SessionMemoryError>
  /**
   * The conversation is at `generation` (a number the host raises at each compaction): a newer one
   * than the memory knows drops everything held, as `compacted` does, and is kept; the same one
   * changes nothing. Succeeds with `false` for an older one: the request comes from before a
   * compaction the memory already knows of (`atGeneration` then runs it without memory).
   */
  readonly advance: (sessionId: string, generation: number) => Effect.Effect<boolean, SessionMemoryError>
  /** What the session was last shown of `path` (the newest version it still holds), when kept. */
  readonly lastShown: (sessionId: string, path: string) => Effect.Effect<Snapshot | undefined>
  /** Keep what read `seq` showed of `path`: its version's line hashes and the lines shown. */
  readonly keep: (
    sessionId: string,
    path: string,
    seq: number,
    shown: {
      readonly hash: string
      readonly encoding: string | undefined
      readonly hashes: Float64Array | undefined
      readonly lines: ReadonlyArray<readonly [number, string]>
    }
  ) => Effect.Effect<void>
  /** The change notices' bounds. */
  readonly limits: Diff.ChangeLimits & { readonly maxSnapshotFileBytes: number }
}

/** Remembers nothing: every read returns its content, exactly as without session memory. */
export const noop: SessionMemoryShape = {
  enabled: false,
  held: () => Effect.succeed([]),
  remember: () => Effect.succeed(0),
  mark: () => Effect.succeed(0),
  compacted: () => Effect.void,
  rewound: () => Effect.void,
  forget: () => Effect.void,
  advance: () => Effect.succeed(true),
  lastShown: () => Effect.succeed(undefined),
  keep: () => Effect.void,
  limits: {
    maxEdits: 0,
    maxWork: 0,
    maxDiffLines: 0,
    maxDiffChars: 0,
    context: 0,
    maxSnapshotFileBytes: 0
  }
}

/** What the host says is in the model's context. Default: nothing is remembered (`noop`). */
export class SessionMemory extends Context.Reference<SessionMemory>()("effect-read/SessionMemory", {
  defaultValue: (): SessionMemoryShape => noop
}) {}

/** Nothing remembered, as a layer (the default, stated: for a host that turns a memory off). */
export const layerNoop: Layer.Layer<SessionMemory> = Layer.succeed(SessionMemory, noop)

/** @deprecated Use `noop` (or `layerNoop`). */
export const none: SessionMemoryShape = noop

/**
 * The conversation's generation as the current request states it (MCP: `params._meta
 * ["effect-read/generation"]`), when it does. A memory records nothing for a request whose
 * generation is older than the conversation's: a read that raced a compaction cannot bring back
 * what the compaction dropped. Provided by `atGeneration`.
 */
export class Generation extends Context.Reference<Generation>()("effect-read/SessionMemory/Generation", {
  defaultValue: (): number | undefined => undefined
}) {}

/**
 * Run `self` as a request of `sessionId` at `generation`: the memory first `advance`s to it (a
 * raised generation drops everything held). A request from an older generation, or one whose
 * memory cannot be reached, runs without session memory (full content, nothing remembered), so
 * a generation can never be missed: the next request carrying it applies it.
 */
export const atGeneration =
  (sessionId: string, generation: number) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.gen(function*() {
      const memory = yield* SessionMemory
      if (!memory.enabled) return yield* self
      const current = yield* memory.advance(sessionId, generation).pipe(
        Effect.catchAll((error) =>
          Effect.logWarning("SessionMemory: the generation could not be checked; this request runs without memory")
            .pipe(
              Effect.annotateLogs({ sessionId, generation, error: error.message }),
              Effect.as(false)
            )
        )
      )
      return yield* current
        ? Effect.provideService(self, Generation, generation)
        : Effect.provideService(self, SessionMemory, noop)
    })

export interface Options {
  /** Files remembered per session (least recently read dropped first). Default 2,000. */
  readonly maxFiles?: number | undefined
  /** Reads remembered per file (oldest dropped first). Default 32. */
  readonly maxReadsPerFile?: number | undefined
  /** Files whose shown text is kept for change notices, per session (least recently read dropped first). Default 30. */
  readonly maxSnapshotFiles?: number | undefined
  /** Versions kept per file (oldest dropped first). Default 4. */
  readonly maxVersionsPerFile?: number | undefined
  /** Bytes of kept text and line hashes per session (oldest versions dropped first). Default 64 MiB. */
  readonly maxSnapshotBytes?: number | undefined
  /**
   * Conversations remembered in this process (`layerSession`; least recently used dropped first).
   * A dropped one holds nothing: its next reads are in full, never a stub. Default 256. Not an
   * option of the SQL store, which drops conversations idle for `idleTimeout` instead.
   */
  readonly maxSessions?: number | undefined
  /** Larger files keep no lines: a change is told without a diff. Default 4 MiB. */
  readonly maxSnapshotFileBytes?: number | undefined
  /** A diff is shown when at most this many shown lines were removed plus added. Default 40. */
  readonly maxDiffLines?: number | undefined
  /** … and its text is at most this many characters. Default 8,000. */
  readonly maxDiffChars?: number | undefined
}

/** One version of a file as the session was shown it, with the reads (`seq`s) that showed it. */
interface Version {
  readonly hash: string
  readonly encoding: string | undefined
  readonly hashes: Float64Array | undefined
  /** Shown lines: text and the first read (`seq`) that showed it. */
  readonly lines: Map<number, { readonly text: string; readonly seq: number }>
  seqs: Array<number>
  bytes: number
}

const costOf = (version: Version): number => {
  let bytes = 64 + (version.hashes?.byteLength ?? 0)
  for (const line of version.lines.values()) bytes += 48 + 2 * line.text.length
  return bytes
}

const latest = (version: Version): number => version.seqs[version.seqs.length - 1] ?? 0

/** The change notices' bounds a memory with `options` has. */
export const limitsOf = (options: Options): SessionMemoryShape["limits"] => ({
  // Bounds of the diff: at most 1,000 lines differing and 5 million steps (about 50 ms), then counts are not given.
  maxEdits: 1_000,
  maxWork: 5_000_000,
  maxDiffLines: options.maxDiffLines ?? 40,
  maxDiffChars: options.maxDiffChars ?? 8_000,
  context: 3,
  maxSnapshotFileBytes: options.maxSnapshotFileBytes ?? 4 * 1024 * 1024
})

/** Conversations `layerSession` remembers when `maxSessions` is not given. */
export const defaultMaxSessions = 256

/**
 * A session memory in this process, per session id, for at most `maxSessions` conversations: past
 * that, the least recently used one is dropped whole. Nothing of it needs to outlive the drop:
 *
 * - it holds nothing afterwards, so its next read of anything is in full (a stub needs a read
 *   remembered since);
 * - `seq`s (and so marks) come from one counter for the whole memory, so a conversation that comes
 *   back gets larger ones than any mark it was given before: a rewind to such a mark keeps nothing
 *   read since the drop;
 * - its generation is forgotten, so the memory answers as a new one that sees only the requests
 *   after the drop — an order of arrival the generation check already allows: a request from an
 *   older generation may then record, but the first request of a newer one drops it (`advance`),
 *   so nothing it recorded is ever a stub at the newer generation.
 */
export const make = (options: Options = {}): SessionMemoryShape => {
  const maxSessions = options.maxSessions ?? defaultMaxSessions
  const maxFiles = options.maxFiles ?? 2_000
  const maxReads = options.maxReadsPerFile ?? 32
  const maxSnapshotFiles = options.maxSnapshotFiles ?? 30
  const maxVersions = options.maxVersionsPerFile ?? 4
  const maxSnapshotBytes = options.maxSnapshotBytes ?? 64 * 1024 * 1024
  interface Session {
    seq: number
    /** The newest generation `advance` was told of (0 until then). */
    generation: number
    files: Map<string, Array<Seen>>
    /** Kept versions per file; Map order is the eviction order (least recently kept first). */
    snapshots: Map<string, Array<Version>>
    bytes: number
  }
  // Map order is the eviction order: the first session is the one used longest ago.
  const sessions = new Map<string, Session>()
  let newest: string | undefined
  // The last `seq` given, in any session: never reused, so a mark stays below every later read.
  let lastSeq = 0
  /** The session, now the most recently used; undefined when not held. */
  const find = (id: string) => {
    const session = sessions.get(id)
    if (session !== undefined && newest !== id) {
      sessions.delete(id)
      sessions.set(id, session)
      newest = id
    }
    return session
  }
  /** The session, new (at `generation`, when the request states one) when not held. */
  const sessionOf = (id: string, generation: number | undefined) => {
    let session = find(id)
    if (session === undefined) {
      session = { seq: 0, generation: generation ?? 0, files: new Map(), snapshots: new Map(), bytes: 0 }
      sessions.set(id, session)
      newest = id
      if (sessions.size > maxSessions) sessions.delete(sessions.keys().next().value!)
    }
    return session
  }
  const setVersions = (session: Session, path: string, versions: Array<Version>) => {
    for (const version of session.snapshots.get(path) ?? []) session.bytes -= version.bytes
    session.snapshots.delete(path)
    if (versions.length === 0) return
    for (const version of versions) session.bytes += version.bytes
    session.snapshots.set(path, versions)
  }
  /** Drop the oldest versions until the session is within its bounds. */
  const bound = (session: Session) => {
    while (session.snapshots.size > maxSnapshotFiles) {
      setVersions(session, session.snapshots.keys().next().value!, [])
    }
    while (session.bytes > maxSnapshotBytes) {
      let oldest: { path: string; version: Version } | undefined
      for (const [path, versions] of session.snapshots) {
        for (const version of versions) {
          if (oldest === undefined || latest(version) < latest(oldest.version)) oldest = { path, version }
        }
      }
      if (oldest === undefined) break
      const { path, version } = oldest
      setVersions(session, path, session.snapshots.get(path)!.filter((kept) => kept !== version))
    }
  }
  /** Does the request's generation (when it states one) still allow recording in this session? */
  const current = (id: string, generation: number | undefined) =>
    generation === undefined || (sessions.get(id)?.generation ?? 0) <= generation
  const clear = (session: Session) => {
    session.files.clear()
    session.snapshots.clear()
    session.bytes = 0
  }
  return {
    enabled: true,
    limits: limitsOf(options),
    held: (sessionId, path) => Effect.sync(() => find(sessionId)?.files.get(path) ?? []),
    remember: (sessionId, path, seen) =>
      Effect.flatMap(Generation, (generation) =>
        Effect.sync(() => {
          if (!current(sessionId, generation)) return 0
          const session = sessionOf(sessionId, generation)
          const seq = session.seq = ++lastSeq
          // Reads of other content are older views the latest read replaced: never a stub's basis.
          const reads = (session.files.get(path) ?? []).filter((read) => read.hash === seen.hash)
          session.files.delete(path)
          session.files.set(path, [...reads, { ...seen, seq }].slice(-maxReads))
          if (session.files.size > maxFiles) session.files.delete(session.files.keys().next().value!)
          return seq
        })),
    mark: (sessionId) => Effect.sync(() => find(sessionId)?.seq ?? 0),
    compacted: (sessionId) =>
      Effect.sync(() => {
        const session = sessions.get(sessionId)
        if (session !== undefined) clear(session)
      }),
    advance: (sessionId, generation) =>
      Effect.sync(() => {
        const session = sessionOf(sessionId, undefined)
        if (generation < session.generation) return false
        if (generation > session.generation) {
          session.generation = generation
          clear(session)
        }
        return true
      }),
    rewound: (sessionId, to) =>
      Effect.sync(() => {
        const session = sessions.get(sessionId)
        if (session === undefined) return
        for (const [path, reads] of session.files) {
          const kept = reads.filter((read) => read.seq <= to)
          if (kept.length === 0) session.files.delete(path)
          else session.files.set(path, kept)
        }
        // What was shown after the mark is gone from the context: so are those lines and versions.
        for (const [path, versions] of [...session.snapshots]) {
          const kept: Array<Version> = []
          for (const version of versions) {
            const seqs = version.seqs.filter((seq) => seq <= to)
            if (seqs.length === 0) continue
            const lines = new Map([...version.lines].filter(([, line]) => line.seq <= to))
            const trimmed: Version = { ...version, lines, seqs, bytes: 0 }
            trimmed.bytes = costOf(trimmed)
            kept.push(trimmed)
          }
          setVersions(session, path, kept)
        }
      }),
    forget: (sessionId, path) =>
      Effect.sync(() => {
        const session = sessions.get(sessionId)
        if (session === undefined) return
        session.files.delete(path)
        setVersions(session, path, [])
      }),
    lastShown: (sessionId, path) =>
      Effect.sync(() => {
        const versions = find(sessionId)?.snapshots.get(path) ?? []
        const newest = versions.reduce<Version | undefined>(
          (best, version) => best === undefined || latest(version) > latest(best) ? version : best,
          undefined
        )
        if (newest === undefined) return undefined
        const snapshot: Snapshot = {
          hash: newest.hash,
          encoding: newest.encoding,
          hashes: newest.hashes,
          lines: new Map([...newest.lines].map(([line, { text }]) => [line, text]))
        }
        return snapshot
      }),
    keep: (sessionId, path, seq, shown) =>
      Effect.flatMap(Generation, (generation) =>
        Effect.sync(() => {
          if (!current(sessionId, generation)) return
          const session = sessionOf(sessionId, generation)
          const versions = [...(session.snapshots.get(path) ?? [])]
          const index = versions.findIndex((version) =>
            version.hash === shown.hash && version.encoding === shown.encoding
          )
          const previous = index < 0 ? undefined : versions.splice(index, 1)[0]!
          const lines = new Map(previous?.lines)
          for (const [line, text] of shown.lines) if (!lines.has(line)) lines.set(line, { text, seq })
          const version: Version = {
            hash: shown.hash,
            encoding: shown.encoding,
            hashes: previous?.hashes ?? shown.hashes,
            lines,
            seqs: [...(previous?.seqs ?? []), seq].slice(-maxReads),
            bytes: 0
          }
          version.bytes = costOf(version)
          versions.push(version)
          setVersions(session, path, versions.sort((a, b) => latest(a) - latest(b)).slice(-maxVersions))
          bound(session)
        }))
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

/**
 * Merged inclusive ranges, sorted.
 * @deprecated Not part of the session-memory API; kept for 0.1 callers and removed in 0.3.
 */
export const mergeRanges: (ranges: ReadonlyArray<ClosedRange>) => Array<ClosedRange> = mergeLineRanges

/** Are lines `start`-`end` inside the merged ranges? */
export const covered = (
  ranges: ReadonlyArray<{ readonly start: number; readonly end: number }>,
  start: number,
  end: number
): boolean => mergeLineRanges(ranges).some((range) => range.start <= start && end <= range.end)

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
 * hash becomes the stub, and any other text read is remembered, with what it showed kept; when the
 * file changed since the session's last read of it, the output leads with the change notice (and a
 * diff). A read whose file changed after it ran (size or mtime no longer the shown ones) is neither
 * stubbed nor remembered.
 */
export const apply = (request: { readonly column?: number | undefined }, result: ReadResult) =>
  Effect.gen(function*() {
    const memory = yield* SessionMemory
    const metadata = result.metadata
    if (!memory.enabled) return result
    const { sessionId } = yield* Workspace
    if (metadata.kind !== "text") return yield* noLongerText(memory, sessionId, result)
    if (metadata.mtime === undefined || metadata.startLine === undefined || metadata.endLine === undefined) {
      return result
    }
    if (request.column !== undefined || isInstructionFile(metadata.path)) return result
    const version = yield* versionShown(metadata, memory.limits.maxSnapshotFileBytes)
    if (version === undefined) return result
    const ranges = metadata.ranges ?? [{ start: metadata.startLine, end: metadata.endLine }]
    const held = (yield* memory.held(sessionId, metadata.path)).filter(
      (seen) => seen.hash === version.hash && seen.encoding === metadata.encoding
    )
    if (ranges.every((range) => covered(held, range.start, range.end))) {
      const stub: ReadResult = {
        ...result,
        output: stubText(metadata.path, metadata.startLine, metadata.endLine, metadata.nextOffset),
        metadata: { ...metadata, unchanged: true }
      }
      return stub
    }
    const last = yield* memory.lastShown(sessionId, metadata.path)
    // read_many may keep fewer lines than were read: what it kept is remembered (internal/read/record.ts).
    yield* recordOrDefer((lastShown) =>
      Effect.gen(function*() {
        const shown = clipRanges(ranges, lastShown)
        if (shown.length === 0) return
        // A read of several ranges holds those ranges only, never the lines between them.
        let seq = 0
        for (const range of shown) {
          seq = yield* memory.remember(sessionId, metadata.path, {
            start: range.start,
            end: range.end,
            hash: version.hash,
            encoding: metadata.encoding
          })
        }
        const lines = version.lines
        yield* memory.keep(sessionId, metadata.path, seq, {
          hash: version.hash,
          encoding: metadata.encoding,
          hashes: version.hashes,
          lines: lines === undefined
            ? []
            : shown.flatMap((range) =>
              lines.slice(range.start - 1, range.end).map((text, i) => [range.start + i, text] as const)
            )
        })
      })
    )
    if (last === undefined || last.hash === version.hash) return result
    return withNotice(result, changeOf(last, version, metadata.encoding, memory.limits))
  })

/** A file the session read as text that now reads as something else: a notice, and nothing kept. */
const noLongerText = (memory: SessionMemoryShape, sessionId: string, result: ReadResult) =>
  Effect.gen(function*() {
    if ((yield* memory.lastShown(sessionId, result.metadata.path)) === undefined) return result
    // Not forgotten (the store failed): its reads are of text content, which this file no longer has.
    yield* memory.forget(sessionId, result.metadata.path).pipe(
      Effect.catchAll((error) =>
        Effect.logWarning("SessionMemory: could not forget a file that is no longer text", error)
      )
    )
    return withNotice(result, {
      notice: [Diff.uncomparedNotice(`it is no longer text (now ${result.metadata.kind})`)],
      changed: { diff: false }
    })
  })

type Changed = NonNullable<ReadResult["metadata"]["changed"]>

const withNotice = (
  result: ReadResult,
  change: { readonly notice: ReadonlyArray<string>; readonly changed: Changed }
) => {
  const changed: ReadResult = {
    ...result,
    output: [...change.notice, result.output].join("\n"),
    metadata: { ...result.metadata, changed: change.changed }
  }
  return changed
}

/** The notice (and diff) for a file that changed from `last` to `now`. */
const changeOf = (
  last: Snapshot,
  now: ShownVersion,
  encoding: string | undefined,
  limits: Diff.ChangeLimits & { readonly maxSnapshotFileBytes: number }
): { readonly notice: ReadonlyArray<string>; readonly changed: Changed } => {
  if (last.hashes === undefined || now.hashes === undefined || now.lines === undefined) {
    return {
      notice: [Diff.uncomparedNotice(`it is too large to compare (over ${formatMiB(limits.maxSnapshotFileBytes)})`)],
      changed: { diff: false }
    }
  }
  if (last.encoding !== encoding) {
    return { notice: [Diff.uncomparedNotice("it was read in another encoding then")], changed: { diff: false } }
  }
  const change = Diff.changeSince(
    { hashes: last.hashes, lines: last.lines },
    { hashes: now.hashes, lines: now.lines },
    limits
  )
  const notice = Diff.changeNotice(now.path, change)
  switch (change._tag) {
    case "Lines":
      return {
        notice,
        changed: {
          diff: change.hunks !== undefined,
          removed: change.removed,
          added: change.added,
          outsideRemoved: change.outsideRemoved,
          outsideAdded: change.outsideAdded
        }
      }
    case "NoLineChanged":
      return { notice, changed: { diff: false, removed: 0, added: 0, outsideRemoved: 0, outsideAdded: 0 } }
    case "TooDifferent":
      return { notice, changed: { diff: false } }
  }
}

const formatMiB = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MiB`

/** The version a result shows: its content hash and, for a file within the snapshot cap, its lines. */
interface ShownVersion {
  readonly path: string
  readonly hash: string
  /** Every line as a read shows it (cut at the line-length cap); undefined over the cap. */
  readonly lines: ReadonlyArray<string> | undefined
  readonly hashes: Float64Array | undefined
}

/**
 * The version a text result shows, read again: undefined when the file is no longer the version
 * shown (its size or mtime changed since). Within `maxBytes` the bytes are decoded as the read
 * decoded them and split into lines, which must agree with the result's preview, else no lines are
 * kept; over it only the hash is taken (streamed, as the ledger does).
 */
const versionShown = (metadata: TextMetadata, maxBytes: number) =>
  Effect.gen(function*() {
    if (metadata.size > maxBytes) {
      const hash = yield* hashOfShown(metadata)
      return hash === undefined ? undefined : { path: metadata.path, hash, lines: undefined, hashes: undefined }
    }
    const fs = yield* FileSystem.FileSystem
    const bytes = yield* Effect.option(fs.readFile(metadata.path))
    const info = yield* Effect.option(fs.stat(metadata.path))
    if (Option.isNone(bytes) || Option.isNone(info)) return undefined
    const mtime = Option.getOrUndefined(info.value.mtime)?.getTime()
    if (bytes.value.length !== metadata.size || Number(info.value.size) !== metadata.size || mtime !== metadata.mtime) {
      return undefined
    }
    const hash = createHash("sha256").update(bytes.value).digest("hex")
    const detection = detectionFor(metadata.encoding ?? "utf-8", bytes.value)
    if (detection._tag !== "Text") return { path: metadata.path, hash, lines: undefined, hashes: undefined }
    // Cut as the read cut them (the line length in force), so the lines compare with what was shown.
    const { lineLength } = yield* PageLimits
    const lines = Diff.splitLines(detection.codec.decode(bytes.value.subarray(detection.bomLength)).text).map((line) =>
      cutLine(line, lineLength)
    )
    const ranges = metadata.ranges ?? [{ start: metadata.startLine!, end: metadata.endLine! }]
    const preview = ranges.flatMap((range) => lines.slice(range.start - 1, range.end)).slice(0, 20).join("\n")
    if (preview !== metadata.preview) return { path: metadata.path, hash, lines: undefined, hashes: undefined }
    return { path: metadata.path, hash, lines, hashes: Float64Array.from(lines, Diff.hashLine) }
  }) satisfies Effect.Effect<ShownVersion | undefined, never, FileSystem.FileSystem>

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
