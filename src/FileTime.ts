/**
 * The read ledger: what each session read, so a later Edit/Write can `assert` the file did not
 * change since. Compares size, mtime and a content hash: an mtime-only change is not a change.
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import * as Schema from "effect/Schema"

export interface ReadStamp {
  readonly path: string
  /** When the read happened, epoch milliseconds. */
  readonly readAt: number
  readonly size: number
  /** Modification time, epoch milliseconds, when the filesystem reports one. */
  readonly mtime: number | undefined
  /** SHA-256 of the content (hex), or undefined when the file was over the hashing cap. */
  readonly hash: string | undefined
}

export class FileNotRead extends Schema.TaggedError<FileNotRead>()("FileNotRead", {
  path: Schema.String
}) {
  override get message(): string {
    return `You must read ${this.path} before changing it. Use the read tool first.`
  }
}

export class FileChanged extends Schema.TaggedError<FileChanged>()("FileChanged", {
  path: Schema.String,
  readAt: Schema.Number
}) {
  override get message(): string {
    return `${this.path} has changed since it was last read at ${
      new Date(this.readAt).toISOString()
    }. Read it again before changing it.`
  }
}

export interface FileTimeShape {
  /** Record that `sessionId` read `path` now (stat + content hash). Never fails. */
  readonly read: (sessionId: string, path: string) => Effect.Effect<void>
  readonly get: (sessionId: string, path: string) => Effect.Effect<Option.Option<ReadStamp>>
  /** Fails unless the file is unchanged since this session last read it. */
  readonly assert: (sessionId: string, path: string) => Effect.Effect<void, FileNotRead | FileChanged>
}

export class FileTime extends Context.Tag("effect-read/FileTime")<FileTime, FileTimeShape>() {}
