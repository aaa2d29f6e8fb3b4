/**
 * A fixed-size record of ids seen, that may say "seen" of one never added but never says "not seen"
 * of one added (a Bloom filter: 2^20 bits, 128 KiB, three bits per id). For a bound that drops
 * ids from an exact set and must still never mistake a dropped one for a new one: the ledger's
 * forked subagents. The wrong "seen" grows with the ids added: about 1 in 45,000 after 10,000, 1 in
 * 65 after 100,000, 1 in 5 after 300,000.
 */

const BITS = 1 << 20

export interface EverSeen {
  readonly add: (id: string) => void
  /** False only for an id never added. */
  readonly mayHave: (id: string) => boolean
}

/** Two 32-bit FNV-1a hashes of the id's UTF-16 code units, with different offset bases. */
const hashes = (id: string): readonly [number, number] => {
  let a = 0x811c9dc5
  let b = 0x01000193 ^ 0x9e3779b9
  for (let i = 0; i < id.length; i++) {
    const unit = id.charCodeAt(i)
    a = Math.imul(a ^ unit, 0x01000193)
    b = Math.imul(b ^ unit, 0x01000193)
  }
  // Mix the second so its low bits differ from the first's; odd, so the probes never repeat.
  b = Math.imul(b ^ (b >>> 15), 0x2c1b3c6d)
  return [a >>> 0, (b | 1) >>> 0]
}

/** An empty record; its 128 KiB are taken at the first `add`. */
export const makeEverSeen = (): EverSeen => {
  let words: Uint32Array | undefined
  const probes = (id: string, visit: (word: number, bit: number) => boolean): boolean => {
    const [a, b] = hashes(id)
    for (let i = 0; i < 3; i++) {
      const position = (a + i * b) % BITS
      if (!visit(position >>> 5, 1 << (position & 31))) return false
    }
    return true
  }
  return {
    add: (id) => {
      words ??= new Uint32Array(BITS / 32)
      const bits = words
      probes(id, (word, bit) => {
        bits[word]! |= bit
        return true
      })
    },
    mayHave: (id) => words !== undefined && probes(id, (word, bit) => (words![word]! & bit) !== 0)
  }
}
