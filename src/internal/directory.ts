/**
 * Directory listings: names sorted case-insensitively, `/` after directories (and links to
 * them), paged by `offset`/`limit` like lines.
 */
import type { File } from "@effect/platform/FileSystem"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { OffsetOutOfRange } from "../ReadError.js"
import type { Target } from "./access.js"
import { DEFAULT_LIMIT } from "./lines.js"
import { fromPlatformError } from "./platformError.js"
import { renderDirectory } from "./render.js"
import { compareNames } from "./suggest.js"

const PREVIEW_LINES = 20
/** Stats in flight while marking sub-directories. */
const STAT_CONCURRENCY = 32

export const readDirectory = Effect.fn("Read.directory")(function*(
  target: Target,
  info: File.Info,
  params: { readonly offset?: number | undefined; readonly limit?: number | undefined }
) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const names = yield* fs.readDirectory(target.absolute).pipe(
    Effect.mapError((error) => fromPlatformError(target.absolute, error))
  )
  // stat follows links, so a link to a directory is listed as one; a dangling link is a name.
  const entries = yield* Effect.forEach(
    names,
    (name) =>
      fs.stat(path.join(target.absolute, name)).pipe(
        Effect.map((entry) => entry.type === "Directory" ? `${name}/` : name),
        Effect.orElseSucceed(() => name)
      ),
    { concurrency: STAT_CONCURRENCY }
  )
  entries.sort(compareNames)

  const offset = Math.max(1, params.offset ?? 1)
  const limit = params.limit ?? DEFAULT_LIMIT
  const total = entries.length
  if (offset > total && !(total === 0 && offset === 1)) {
    return yield* new OffsetOutOfRange({ path: target.absolute, offset, totalLines: total, unit: "entries" })
  }
  const shown = entries.slice(offset - 1, offset - 1 + limit)
  const last = offset - 1 + shown.length
  const more = last < total
  return {
    title: target.relative,
    output: renderDirectory(target.absolute, { shown, offset, total }),
    metadata: {
      kind: "directory" as const,
      path: target.absolute,
      preview: shown.slice(0, PREVIEW_LINES).join("\n"),
      truncated: more,
      ...(shown.length > 0 ? { startLine: offset, endLine: last } : {}),
      totalLines: total,
      ...(more ? { nextOffset: last + 1 } : {}),
      size: Number(info.size),
      ...Option.match(info.mtime, { onNone: () => ({}), onSome: (mtime) => ({ mtime: mtime.getTime() }) })
    }
  }
})
