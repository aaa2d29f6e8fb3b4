/**
 * The FileTime contract: every ledger layer (the memory ledger, SQLite, SQL on SQLite and PostgreSQL) must pass these.
 *
 * `layer` provides the ledger and the filesystem it stamps through; `root` is an existing
 * scratch directory on that filesystem. Each case builds a fresh ledger and its own files.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as FileTime from "../../src/FileTime.js"

let counter = 0

export const fileTimeContract = (
  name: string,
  options: {
    readonly layer: Layer.Layer<FileTime.FileTime | FileSystem.FileSystem, unknown>
    readonly root: () => string
  }
) => {
  /** A fresh file path under the root, written with `content`. */
  const file = (content: string) =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = `${options.root()}/file-${process.pid}-${++counter}.txt`
      yield* fs.writeFileString(path, content)
      return path
    })

  const run = <A, E>(body: Effect.Effect<A, E, FileTime.FileTime | FileSystem.FileSystem>) =>
    Effect.provide(body, options.layer)

  const ledger = FileTime.FileTime

  describe(`FileTime contract: ${name}`, () => {
    it.effect("read then assert succeeds", () =>
      run(Effect.gen(function*() {
        const ft = yield* ledger
        const path = yield* file("hello\n")
        yield* ft.read("s1", path)
        yield* ft.assert("s1", path)
      })))

    it.effect("read records a stamp: size, mtime and content hash", () =>
      run(Effect.gen(function*() {
        const ft = yield* ledger
        const path = yield* file("hello\n")
        expect(Option.isNone(yield* ft.get("s1", path))).toBe(true)
        yield* ft.read("s1", path)
        const stamp = Option.getOrThrow(yield* ft.get("s1", path))
        expect(stamp.path).toBe(path)
        expect(stamp.size).toBe(6)
        expect(stamp.mtime).toBeTypeOf("number")
        // sha256("hello\n")
        expect(stamp.hash).toBe("5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03")
      })))

    it.effect("assert without a read fails with FileNotRead", () =>
      run(Effect.gen(function*() {
        const ft = yield* ledger
        const path = yield* file("hello\n")
        const error = yield* Effect.flip(ft.assert("s1", path))
        expect(error).toBeInstanceOf(FileTime.FileNotRead)
        expect(error.message).toBe(`You must read ${path} before changing it. Use the read tool first.`)
      })))

    it.effect("new content of the same size fails with FileChangedSinceRead, even with the mtime restored", () =>
      run(Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const ft = yield* ledger
        const path = yield* file("aaaa")
        yield* ft.read("s1", path)
        const before = Option.getOrThrow(yield* ft.get("s1", path))
        yield* fs.writeFileString(path, "bbbb")
        yield* fs.utimes(path, new Date(before.mtime!), new Date(before.mtime!))
        const error = yield* Effect.flip(ft.assert("s1", path))
        expect(error).toBeInstanceOf(FileTime.FileChangedSinceRead)
        expect(error._tag === "FileChangedSinceRead" && error.readAt).toBe(before.readAt)
      })))

    it.effect("an append fails with FileChangedSinceRead", () =>
      run(Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const ft = yield* ledger
        const path = yield* file("one\n")
        yield* ft.read("s1", path)
        yield* fs.writeFileString(path, "two\n", { flag: "a" })
        const error = yield* Effect.flip(ft.assert("s1", path))
        expect(error._tag).toBe("FileChangedSinceRead")
      })))

    it.effect("a deleted file fails with FileChangedSinceRead", () =>
      run(Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const ft = yield* ledger
        const path = yield* file("one\n")
        yield* ft.read("s1", path)
        yield* fs.remove(path)
        const error = yield* Effect.flip(ft.assert("s1", path))
        expect(error._tag).toBe("FileChangedSinceRead")
        expect(error.message).toContain(`${path} has changed since it was last read at `)
      })))

    it.effect("a new mtime over the same content is not a change", () =>
      run(Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const ft = yield* ledger
        const path = yield* file("same\n")
        yield* ft.read("s1", path)
        yield* fs.utimes(path, new Date(2001, 1, 1), new Date(2001, 1, 1))
        yield* ft.assert("s1", path)
      })))

    it.effect("rewriting the same content is not a change", () =>
      run(Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const ft = yield* ledger
        const path = yield* file("same\n")
        yield* ft.read("s1", path)
        yield* fs.writeFileString(path, "same\n")
        yield* ft.assert("s1", path)
      })))

    it.effect("a re-read after a change makes assert pass again", () =>
      run(Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const ft = yield* ledger
        const path = yield* file("v1\n")
        yield* ft.read("s1", path)
        yield* fs.writeFileString(path, "v2 longer\n")
        expect((yield* Effect.flip(ft.assert("s1", path)))._tag).toBe("FileChangedSinceRead")
        yield* ft.read("s1", path)
        yield* ft.assert("s1", path)
      })))

    it.effect("sessions are independent", () =>
      run(Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const ft = yield* ledger
        const path = yield* file("v1\n")
        yield* ft.read("s1", path)
        expect((yield* Effect.flip(ft.assert("s2", path)))._tag).toBe("FileNotRead")
        expect(Option.isNone(yield* ft.get("s2", path))).toBe(true)
        yield* fs.writeFileString(path, "v2 longer\n")
        yield* ft.read("s2", path)
        yield* ft.assert("s2", path)
        expect((yield* Effect.flip(ft.assert("s1", path)))._tag).toBe("FileChangedSinceRead")
      })))

    it.effect("reading a missing file records nothing and does not fail", () =>
      run(Effect.gen(function*() {
        const ft = yield* ledger
        const path = `${options.root()}/missing-${++counter}.txt`
        yield* ft.read("s1", path)
        expect(Option.isNone(yield* ft.get("s1", path))).toBe(true)
        expect((yield* Effect.flip(ft.assert("s1", path)))._tag).toBe("FileNotRead")
      })))

    it.effect("a file over the hashing cap is compared by size and mtime", () =>
      run(Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const ft = yield* ledger
        const path = yield* file("")
        yield* fs.truncate(path, FileTime.maxHashBytes + 1)
        yield* fs.utimes(path, new Date(2020, 0, 1), new Date(2020, 0, 1))
        yield* ft.read("s1", path)
        const stamp = Option.getOrThrow(yield* ft.get("s1", path))
        expect(stamp.size).toBe(FileTime.maxHashBytes + 1)
        expect(stamp.hash).toBeUndefined()
        yield* ft.assert("s1", path)
        // Without a hash, a new mtime is taken as a change.
        yield* fs.utimes(path, new Date(2021, 0, 1), new Date(2021, 0, 1))
        expect((yield* Effect.flip(ft.assert("s1", path)))._tag).toBe("FileChangedSinceRead")
      })))

    it.effect("fork: the child starts with the parent's stamps and coverage, once; later reads stay their own", () =>
      run(Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const ft = yield* ledger
        const n = ++counter
        const [parent, child, other] = [`parent-${n}`, `child-${n}`, `other-${n}`]
        const shown = (size: number, mtime: number | undefined, start: number, end: number): FileTime.Shown => ({
          start,
          end,
          whole: false,
          size,
          mtime
        })
        const stampOf = (session: string, path: string) => Effect.map(ft.get(session, path), Option.getOrThrow)
        const a = yield* file("1\n2\n3\n4\n5\n6\n")
        const b = yield* file("b\n")
        const own = yield* file("own\n")
        yield* ft.read(parent, a)
        const stamped = yield* stampOf(parent, a)
        yield* ft.read(parent, a, shown(stamped.size, stamped.mtime, 2, 4))
        yield* ft.read(parent, own)
        yield* ft.read(parent, own, shown(4, (yield* stampOf(parent, own)).mtime, 1, 1))
        // The child read `own` itself before the fork: its own read stays, the parent's is not copied over it.
        yield* ft.read(child, own)
        const childOwn = yield* stampOf(child, own)

        expect(yield* FileTime.fork(parent, child)).toBe(true)
        expect(yield* ft.covers(child, a, 2, 4)).toBe(true)
        expect(yield* ft.covers(child, a, 1, 4)).toBe(false)
        yield* ft.assert(child, a)
        expect((yield* stampOf(child, a)).hash).toBe(stamped.hash)
        expect(yield* stampOf(child, own)).toEqual(childOwn)
        expect(yield* ft.covers(child, own, 1, 1)).toBe(false)

        // Once: the parent's later reads reach no child, and a second fork copies nothing.
        yield* ft.read(parent, b)
        expect(yield* FileTime.fork(parent, child)).toBe(false)
        expect(Option.isNone(yield* ft.get(child, b))).toBe(true)
        // The child's reads never reach the parent (nor another session).
        const c = yield* file("c\n")
        yield* ft.read(child, c)
        expect(Option.isNone(yield* ft.get(parent, c))).toBe(true)
        expect(Option.isNone(yield* ft.get(other, a))).toBe(true)
        // A session is not its own fork.
        expect(yield* FileTime.fork(other, other)).toBe(false)

        // After a change the parent read again, the child's inherited stamp is of the old content.
        yield* fs.writeFileString(a, "1\n2\nthree\n4\n5\n6\n")
        yield* ft.read(parent, a)
        yield* ft.assert(parent, a)
        expect((yield* Effect.flip(ft.assert(child, a)))._tag).toBe("FileChangedSinceRead")
        expect(yield* ft.covers(child, a, 2, 4)).toBe(false)
      })))
  })
}
