/**
 * The bulk line-feed search behind skipping lines: the WebAssembly (SIMD) path and the
 * `indexOf` path answer alike, against a byte-by-byte reference.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import { utf8 } from "../src/internal/core/encoding.js"
import { nthLineFeed, searchableBuffers } from "../src/internal/core/lineFeeds.js"
import { LinePager, MAX_BYTES, MAX_LINE_LENGTH } from "../src/internal/core/lines.js"

/** The answer byte by byte: past the k-th `\n` in [from, to), or -1 - how many there are. */
const reference = (bytes: Uint8Array, from: number, to: number, k: number): number => {
  let count = 0
  for (let i = from; i < to; i++) {
    if (bytes[i] === 10 && ++count === k) return i + 1
  }
  return -1 - count
}

/** Bytes where a line feed is common (1 in `every`), and the rest anything but. */
const text = fc.tuple(fc.integer({ min: 1, max: 120 }), fc.integer({ min: 0, max: 3_000 }), fc.integer())
  .map(([every, length, seed]) => {
    let state = seed | 0
    const bytes = new Uint8Array(length)
    for (let i = 0; i < length; i++) {
      state = (Math.imul(state, 1103515245) + 12345) | 0
      bytes[i] = ((state >>> 8) % every) === 0 ? 10 : 32 + ((state >>> 16) % 90)
    }
    return bytes
  })

describe("nthLineFeed", () => {
  it("buffers in searchable memory take the WebAssembly path (this Node has SIMD)", () => {
    const [a, b] = searchableBuffers(4096)
    expect(a.buffer).toBe(b.buffer)
    expect(a.buffer).not.toBe(Buffer.allocUnsafe(16).buffer)
    expect(a.length).toBe(4096)
    expect(a.byteOffset + a.length).toBeLessThanOrEqual(b.byteOffset)
  })

  it.prop("in searchable memory and in a plain buffer, the same answer as byte by byte", [
    text,
    fc.nat(),
    fc.nat(),
    fc.integer({ min: 1, max: 200 }),
    fc.boolean()
  ], ([bytes, a, b, k, second]) => {
    const from = bytes.length === 0 ? 0 : a % (bytes.length + 1)
    const to = from + (bytes.length === 0 ? 0 : b % (bytes.length - from + 1))
    const buffers = searchableBuffers(Math.max(1, bytes.length))
    const searchable = buffers[second ? 1 : 0].subarray(0, bytes.length)
    searchable.set(bytes)
    const expected = reference(bytes, from, to, k)
    expect(nthLineFeed(searchable, from, to, k)).toBe(expected)
    expect(nthLineFeed(Buffer.from(bytes), from, to, k)).toBe(expected)
  }, { fastCheck: { numRuns: 3_000 } })

  it("a large k counts every line feed; k = 1 finds the first, block boundaries included", () => {
    const [buffer] = searchableBuffers(1 << 16)
    buffer.fill(97)
    for (const at of [0, 15, 16, 63, 64, 65, 1000, 65_535]) buffer[at] = 10
    expect(nthLineFeed(buffer, 0, buffer.length, Number.MAX_SAFE_INTEGER)).toBe(-1 - 8)
    expect(nthLineFeed(buffer, 0, buffer.length, 1)).toBe(1)
    expect(nthLineFeed(buffer, 1, buffer.length, 1)).toBe(16)
    expect(nthLineFeed(buffer, 1, buffer.length, 4)).toBe(65)
    expect(nthLineFeed(buffer, 66, buffer.length, 2)).toBe(65_536)
    expect(nthLineFeed(buffer, 66, 65_535, 2)).toBe(-1 - 1)
  })

  it.prop("a pager skipping to a deep page sees the same lines and checkpoints from searchable chunks", [
    text,
    fc.integer({ min: 1, max: 400 }),
    fc.integer({ min: 0, max: 50 }),
    fc.integer({ min: 1, max: 700 })
  ], ([bytes, offset, every, chunkSize]) => {
    const page = (chunks: ReadonlyArray<Uint8Array>) => {
      const pager = new LinePager({
        offset,
        limit: 5,
        maxLineLength: MAX_LINE_LENGTH,
        maxBytes: MAX_BYTES,
        checkpointEvery: every
      }, utf8)
      for (const chunk of chunks) pager.push(chunk)
      return pager.end(true)
    }
    const plain: Array<Uint8Array> = []
    const searchable: Array<Uint8Array> = []
    for (let at = 0; at < bytes.length; at += chunkSize) {
      const chunk = bytes.subarray(at, at + chunkSize)
      plain.push(Buffer.from(chunk))
      // Each chunk in one of a pair of searchable buffers, as a reader reading ahead has them.
      const pair = searchableBuffers(chunkSize)
      const target = pair[searchable.length % 2]!.subarray(0, chunk.length)
      target.set(chunk)
      searchable.push(target)
    }
    expect(page(searchable)).toEqual(page(plain))
  }, { fastCheck: { numRuns: 500 } })
})
