/**
 * What each session was shown under each hashline tag: the lines a read showed (whole, as in the
 * file, not cut), kept so an Edit that names a tag the file no longer has can still find the
 * lines it meant. Bounded per session: files, tags per file, bytes.
 */
import * as Path from "@effect/platform/Path"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Workspace } from "../../Workspace.js"

/** The PATH of a `¶PATH#TAG` header: relative to the working directory (POSIX), else absolute. */
export const anchorPath = (absolute: string) =>
  Effect.gen(function*() {
    const path = yield* Path.Path
    const { directory } = yield* Workspace
    const relative = path.relative(directory, absolute)
    const inside = relative !== "" && relative !== ".." && !relative.startsWith(`..${path.sep}`) &&
      !path.isAbsolute(relative)
    return inside ? relative.split(path.sep).join("/") : absolute
  })

export interface AnchorStoreShape {
  /** Remember lines `start`… of `path` as they were under `tag`. */
  readonly record: (
    sessionId: string,
    path: string,
    tag: string,
    start: number,
    lines: ReadonlyArray<string>
  ) => Effect.Effect<void>
  /** The lines of `path` known under `tag` (line number → text); undefined when none are. */
  readonly lookup: (
    sessionId: string,
    path: string,
    tag: string
  ) => Effect.Effect<ReadonlyMap<number, string> | undefined>
  /** The host compacted or ended the session: forget what it was shown. */
  readonly clear: (sessionId: string) => Effect.Effect<void>
}

export interface AnchorStoreOptions {
  /** Files remembered per session (least recently read dropped first). Default 30. */
  readonly maxFiles?: number | undefined
  /** Tags (versions) remembered per file (oldest dropped first). Default 4. */
  readonly maxTagsPerFile?: number | undefined
  /** Bytes of line text remembered per session (least recently read files dropped first). Default 8 MiB. */
  readonly maxBytes?: number | undefined
  /** Sessions remembered (least recently used dropped first). Default 16. */
  readonly maxSessions?: number | undefined
}

interface Version {
  readonly tag: string
  readonly lines: Map<number, string>
  bytes: number
}

/** An in-process store with the given bounds. */
export const makeAnchorStore = (options: AnchorStoreOptions = {}): AnchorStoreShape => {
  const maxFiles = options.maxFiles ?? 30
  const maxTags = options.maxTagsPerFile ?? 4
  const maxBytes = options.maxBytes ?? 8 * 1024 * 1024
  const maxSessions = options.maxSessions ?? 16
  const sessions = new Map<string, Map<string, Array<Version>>>()
  const sizeOf = (files: Map<string, Array<Version>>) => {
    let total = 0
    for (const versions of files.values()) for (const version of versions) total += version.bytes
    return total
  }
  return {
    record: (sessionId, path, tag, start, lines) =>
      Effect.sync(() => {
        let files = sessions.get(sessionId)
        if (files !== undefined) sessions.delete(sessionId)
        files ??= new Map()
        sessions.set(sessionId, files)
        if (sessions.size > maxSessions) sessions.delete(sessions.keys().next().value!)
        const versions = files.get(path) ?? []
        files.delete(path)
        files.set(path, versions)
        let version = versions.find((v) => v.tag === tag)
        if (version === undefined) {
          version = { tag, lines: new Map(), bytes: 0 }
          versions.push(version)
          if (versions.length > maxTags) versions.shift()
        } else {
          versions.splice(versions.indexOf(version), 1)
          versions.push(version)
        }
        lines.forEach((text, i) => {
          if (!version.lines.has(start + i)) version.bytes += text.length * 2
          version.lines.set(start + i, text)
        })
        while (files.size > maxFiles || (files.size > 1 && sizeOf(files) > maxBytes)) {
          files.delete(files.keys().next().value!)
        }
      }),
    lookup: (sessionId, path, tag) =>
      Effect.sync(() => sessions.get(sessionId)?.get(path)?.find((v) => v.tag === tag)?.lines),
    clear: (sessionId) => Effect.sync(() => void sessions.delete(sessionId))
  }
}

/** Records nothing: an Edit must then give the lines it saw to have a changed file's anchors found. */
export const noopAnchorStore: AnchorStoreShape = {
  record: () => Effect.void,
  lookup: () => Effect.succeed(undefined),
  clear: () => Effect.void
}

/**
 * Where hashline reads record what they showed. Default: one store in this process, shared by
 * every runtime, keyed by session id and bounded (16 sessions × 30 files × 4 tags, 8 MiB of line
 * text per session); only hashline reads write to it.
 */
export class AnchorStore extends Context.Reference<AnchorStore>()("effect-read/AnchorStore", {
  defaultValue: (): AnchorStoreShape => makeAnchorStore()
}) {}

/** A store of its own (tests, or a host that wants other bounds). */
export const layerAnchorStore = (options: AnchorStoreOptions = {}): Layer.Layer<AnchorStore> =>
  Layer.sync(AnchorStore, () => makeAnchorStore(options))

/** A store that records nothing, as a layer. */
export const layerNoopAnchorStore: Layer.Layer<AnchorStore> = Layer.succeed(AnchorStore, noopAnchorStore)

/** @deprecated Use `noopAnchorStore` (or `layerNoopAnchorStore`). */
export const noAnchorStore: AnchorStoreShape = noopAnchorStore
