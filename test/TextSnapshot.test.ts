/**
 * The text source takes a small file's snapshot in place (its look past an ASCII start and its
 * page come from the bytes in memory, no read call, no copy): it answers as it does reading the
 * same bytes through the `File` interface, chunk by chunk.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { noSelection } from "../src/internal/core/selector.js"
import { readOpened } from "../src/internal/read/dispatch.js"
import { type Opened, snapshotBytes, snapshotFile, TAIL_BYTES } from "../src/internal/read/open.js"
import * as LineIndex from "../src/LineIndex.js"
import * as Sources from "../src/Sources.js"
import { nodeLayer, tempDir } from "./support/index.js"

const dir = tempDir("effect-read-snapshot-")
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))
let n = 0

/** Lines of text: ASCII, UTF-8, a Latin-1 byte, CR and CRLF ends, long and empty lines. */
const lines = fc.array(
  fc.constantFrom("alpha", "é", "", "\t x", "😀", "line\r", "a".repeat(2500), "\xe9", "// ascii only"),
  { maxLength: 200 }
)
/** Bytes of a small file: text (an ASCII start long enough to look past), UTF-16, or anything. */
const contents = fc.oneof(
  fc.tuple(fc.integer({ min: 0, max: 9000 }), lines, fc.constantFrom("\n", "\r\n")).map(([ascii, rest, end]) =>
    Buffer.concat([Buffer.from("x".repeat(ascii) + end), Buffer.from(rest.join(end), "latin1")])
  ),
  lines.map((rest) => Buffer.from(rest.join("\n"), "utf8")),
  lines.map((rest) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(rest.join("\n"), "utf16le")])),
  fc.uint8Array({ minLength: 1, maxLength: 3000 }).map((bytes) => Buffer.from(bytes))
).filter((bytes) => bytes.length > 0 && bytes.length <= 64 * 1024)

/** A page, a tail, or the default read. */
const requests = fc.oneof(
  fc.constant({}),
  fc.record({ offset: fc.integer({ min: -40, max: 300 }), limit: fc.integer({ min: 1, max: 50 }) })
)

describe("a small file's snapshot, taken in place by the text source", () => {
  it.effect.prop(
    "answers as the same bytes read through the File interface do",
    [contents, requests],
    ([bytes, request]) =>
      Effect.gen(function*() {
        const path = nodePath.join(dir, `f${n++}.txt`)
        fs.writeFileSync(path, bytes)
        const info = yield* Effect.flatMap(FileSystem.FileSystem, (fileSystem) => fileSystem.stat(path))
        const target = { absolute: path, relative: nodePath.basename(path), real: path }
        const registry = yield* Sources.Sources
        const size = bytes.length
        const opened = (file: FileSystem.File): Opened => ({
          file,
          info,
          head: bytes.subarray(0, Math.min(4096, size)),
          end: bytes.subarray(size - Math.min(TAIL_BYTES, size)),
          bytes: undefined,
          unsized: false,
          firstText: Effect.succeed(undefined)
        })
        const read = (file: FileSystem.File) =>
          Effect.either(
            readOpened(registry, target, { filePath: path, ...request }, noSelection, undefined, ".txt")(opened(file))
          ).pipe(Effect.provide(LineIndex.layerMemory()))
        const inPlace = snapshotFile(new Uint8Array(bytes), info)
        // The same reads from the same bytes, not known as a snapshot: copied out a read at a time.
        const copied: FileSystem.File = { ...inPlace }
        expect(snapshotBytes(inPlace)).toBeDefined()
        expect(snapshotBytes(copied)).toBeUndefined()
        const [fast, general] = [yield* read(inPlace), yield* read(copied)]
        expect(fast._tag).toBe(general._tag)
        if (fast._tag === "Right" && general._tag === "Right") {
          expect(fast.right.result.output).toBe(general.right.result.output)
          expect(fast.right.result.metadata).toEqual(general.right.result.metadata)
        } else {
          expect(fast).toEqual(general)
        }
      }).pipe(Effect.provide(nodeLayer(dir))),
    { fastCheck: { numRuns: 150 } }
  )
})
