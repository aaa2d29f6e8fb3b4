/**
 * Session memory in this process (`layerSession`): the contract, the default that remembers
 * nothing, and the conversation's generation.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import * as Read from "../src/Read.js"
import * as SessionMemory from "../src/SessionMemory.js"
import { replaceLine, sessionMemoryContract } from "./contracts/SessionMemory.js"
import { fieldsOf, nodeLayer, tempDir, writeTree } from "./support/index.js"

sessionMemoryContract("layerSession", (options) => SessionMemory.layerSession(options))

const root = tempDir()
const numbered = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n") + "\n"
writeTree(root, { "a.txt": numbered(10) })
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))
const envelope = (path: string) => `<path>${path}</path>`
let fileCount = 0
const fresh = (content: string) => {
  const path = nodePath.join(root, `changed-${++fileCount}.txt`)
  fs.writeFileSync(path, content)
  return path
}

describe("SessionMemory: the default", () => {
  it.effect("the default remembers nothing: a re-read returns the content, exactly as before", () =>
    Effect.gen(function*() {
      const first = yield* Read.read({ filePath: "a.txt" })
      const second = yield* Read.read({ filePath: "a.txt" })
      expect(second).toEqual(first)
      expect(fieldsOf(second).unchanged).toBeUndefined()
    }).pipe(Effect.provide(nodeLayer(root))))

  it.effect("the default remembers nothing: a changed file reads exactly as without session memory", () =>
    Effect.gen(function*() {
      const path = fresh(numbered(10))
      yield* Read.read({ filePath: path })
      replaceLine(path, 5, "line five")
      const after = yield* Read.read({ filePath: path })
      expect(after.output.startsWith(envelope(path))).toBe(true)
      expect(after.metadata.changed).toBeUndefined()
    }).pipe(Effect.provide(nodeLayer(root))))
})

describe("SessionMemory: pure parts", () => {
  it("mergeRanges and covered", () => {
    expect(SessionMemory.mergeRanges([{ start: 5, end: 9 }, { start: 1, end: 4 }, { start: 12, end: 12 }])).toEqual([
      { start: 1, end: 9 },
      { start: 12, end: 12 }
    ])
    expect(SessionMemory.covered([{ start: 1, end: 4 }, { start: 5, end: 9 }], 2, 9)).toBe(true)
    expect(SessionMemory.covered([{ start: 1, end: 4 }, { start: 6, end: 9 }], 2, 9)).toBe(false)
  })
})
