/**
 * Finding line feeds in bulk: skipping millions of lines before a deep page or a tail is a
 * search for the k-th `\n`, which `indexOf` answers one line at a time (a call per line: most of
 * the cost on short lines). A small WebAssembly module compares 16 bytes at once (SIMD) and
 * counts whole 64-byte blocks, several times faster on lines of ordinary length.
 *
 * WebAssembly sees only its own memory, so a reader that skips reads into buffers that live
 * there (`searchableBuffers`), and `nthLineFeed` takes the fast path for bytes found in one;
 * any other bytes, or a runtime without WebAssembly SIMD, take `indexOf`. Both answer the same.
 */

const LF = 10

/** The module, written out: `nth(ptr, len, k)` (len a multiple of 16). */
const moduleBytes = (): Uint8Array => {
  const u32 = (n: number): Array<number> => {
    const out: Array<number> = []
    do {
      let byte = n & 0x7f
      n >>>= 7
      if (n !== 0) byte |= 0x80
      out.push(byte)
    } while (n !== 0)
    return out
  }
  const section = (id: number, bytes: ReadonlyArray<number>) => [id, ...u32(bytes.length), ...bytes]
  const name = (text: string) => [...u32(text.length), ...Array.from(text, (c) => c.charCodeAt(0))]
  // Locals: 0 ptr, 1 len, 2 k (parameters); 3 count, 4 end, 5 bits, 6 c (i32); 7 the `\n` splat (v128).
  const get = (i: number) => [0x20, i]
  const set = (i: number) => [0x21, i]
  const i32 = (n: number) => [0x41, ...(n === 64 ? [0xc0, 0x00] : n === -1 ? [0x7f] : [n])]
  const ADD = 0x6a, SUB = 0x6b, AND = 0x71, GE_U = 0x4f, GT_U = 0x4b, POPCNT = 0x69, CTZ = 0x68
  const BLOCK = [0x02, 0x40], LOOP = [0x03, 0x40], IF = [0x04, 0x40], END = 0x0b
  const br = (depth: number) => [0x0c, depth]
  const brIf = (depth: number) => [0x0d, depth]
  /** popcnt(bitmask(i8x16.eq(load(ptr + offset), splat))): the line feeds among 16 bytes. */
  const feedsAt = (offset: number) => [...get(0), 0xfd, 0x00, 0x00, offset, ...get(7), 0xfd, 0x23, 0xfd, 0x64]
  const code = [
    ...get(0),
    ...get(1),
    ADD,
    ...set(4),
    ...i32(LF),
    0xfd,
    0x0f,
    ...set(7),
    ...BLOCK, // done
    ...LOOP, // each step
    // 64 bytes at once while they hold fewer line feeds than still wanted.
    ...BLOCK, // slow
    ...get(0),
    ...i32(64),
    ADD,
    ...get(4),
    GT_U,
    ...brIf(0),
    ...feedsAt(0),
    POPCNT,
    ...feedsAt(16),
    POPCNT,
    ADD,
    ...feedsAt(32),
    POPCNT,
    ADD,
    ...feedsAt(48),
    POPCNT,
    ADD,
    ...set(6),
    ...get(3),
    ...get(6),
    ADD,
    ...get(2),
    GE_U,
    ...brIf(0),
    ...get(3),
    ...get(6),
    ADD,
    ...set(3),
    ...get(0),
    ...i32(64),
    ADD,
    ...set(0),
    ...br(1),
    END, // slow: 16 bytes, the k-th line feed may be among them
    ...get(0),
    ...get(4),
    GE_U,
    ...brIf(1),
    ...feedsAt(0),
    ...set(5),
    ...get(5),
    POPCNT,
    ...set(6),
    ...get(3),
    ...get(6),
    ADD,
    ...get(2),
    GE_U,
    ...IF,
    // Drop the lower set bits until the k-th is the lowest.
    ...LOOP,
    ...get(2),
    ...get(3),
    SUB,
    ...i32(1),
    GT_U,
    ...IF,
    ...get(5),
    ...get(5),
    ...i32(1),
    SUB,
    AND,
    ...set(5),
    ...get(3),
    ...i32(1),
    ADD,
    ...set(3),
    ...br(1),
    END,
    END,
    ...get(0),
    ...get(5),
    CTZ,
    ADD,
    ...i32(1),
    ADD,
    0x0f, // return
    END,
    ...get(3),
    ...get(6),
    ADD,
    ...set(3),
    ...get(0),
    ...i32(16),
    ADD,
    ...set(0),
    ...br(0),
    END, // each step
    END, // done
    ...i32(-1),
    ...get(3),
    SUB,
    END
  ]
  const locals = [2, 4, 0x7f, 1, 0x7b]
  const body = [...locals, ...code]
  return new Uint8Array([
    0x00,
    0x61,
    0x73,
    0x6d,
    0x01,
    0x00,
    0x00,
    0x00,
    ...section(1, [1, 0x60, 3, 0x7f, 0x7f, 0x7f, 1, 0x7f]),
    ...section(2, [1, ...name("env"), ...name("memory"), 0x02, 0x00, 0x01]),
    ...section(3, [1, 0]),
    ...section(7, [1, ...name("nth"), 0x00, 0x00]),
    ...section(10, [1, ...u32(body.length), ...body])
  ])
}

type Nth = (ptr: number, len: number, k: number) => number

/** The parts of the WebAssembly API used here (the project's `lib` has no DOM types). */
interface Wasm {
  validate(bytes: Uint8Array): boolean
  readonly Module: new(bytes: Uint8Array) => object
  readonly Instance: new(module: object, imports: object) => { readonly exports: Record<string, unknown> }
  readonly Memory: new(descriptor: { readonly initial: number }) => { readonly buffer: ArrayBuffer }
}
const wasm = (globalThis as { readonly WebAssembly?: Wasm }).WebAssembly

let compiled: object | null | undefined
/** The module, compiled once; null where WebAssembly or its SIMD is missing. */
const compiledModule = (): object | null => {
  if (compiled === undefined) {
    try {
      const bytes = moduleBytes()
      compiled = wasm !== undefined && wasm.validate(bytes) ? new wasm.Module(bytes) : null
    } catch {
      compiled = null
    }
  }
  return compiled
}

/** Each searchable memory's `nth`, by the memory's buffer. */
const searchers = new WeakMap<ArrayBufferLike, Nth>()

const PAGE = 65_536

/**
 * Two buffers of `size` bytes in a memory of their own that `nthLineFeed` can search fast (two
 * plain buffers where it cannot). A reader keeps them for one read: the memory is freed with them.
 */
export const searchableBuffers = (size: number): readonly [Buffer, Buffer] => {
  const module = compiledModule()
  if (module === null || wasm === undefined) return [Buffer.allocUnsafe(size), Buffer.allocUnsafe(size)]
  const memory = new wasm.Memory({ initial: Math.max(1, Math.ceil((2 * size) / PAGE)) })
  const instance = new wasm.Instance(module, { env: { memory } })
  searchers.set(memory.buffer, instance.exports.nth as Nth)
  return [Buffer.from(memory.buffer, 0, size), Buffer.from(memory.buffer, size, size)]
}

/**
 * Where the `k`-th line feed (k ≥ 1) of `bytes[from, to)` ends: its index + 1. With fewer than
 * `k` there, `-1 - n` for the `n` there are. Fast when `bytes` lies in `searchableBuffers`' memory.
 */
export const nthLineFeed = (bytes: Uint8Array, from: number, to: number, k: number): number => {
  let count = 0
  let at = from
  const nth = searchers.get(bytes.buffer)
  if (nth !== undefined) {
    const whole = (to - from) & ~15
    const found = nth(bytes.byteOffset + from, whole, Math.min(k, 0x7fffffff))
    if (found >= 0) return found - bytes.byteOffset
    count = -1 - found
    at = from + whole
  }
  while (count < k) {
    const hit = bytes.indexOf(LF, at)
    if (hit === -1 || hit >= to) return -1 - count
    count++
    at = hit + 1
  }
  return at
}
