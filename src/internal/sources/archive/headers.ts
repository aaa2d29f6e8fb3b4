/**
 * What the first bytes of a tar or gzip file look like: the header checks that tell one from other
 * data (`core/containers.ts` asks them of every file named like an archive) apart from the
 * readers in `tar.ts`, so the check loads none of them. Pure.
 */

/** A tar file is a sequence of 512-byte blocks. */
export const BLOCK = 512

export const latin1 = new TextDecoder("latin1")

/** A NUL-terminated field. */
export const field = (block: Uint8Array, offset: number, length: number): Uint8Array => {
  const bytes = block.subarray(offset, offset + length)
  const end = bytes.indexOf(0)
  return end === -1 ? bytes : bytes.subarray(0, end)
}

/** An octal field (spaces and NULs around it, as V7 and GNU write it) or base-256; NaN when neither. */
export const numeric = (block: Uint8Array, offset: number, length: number): number => {
  const bytes = block.subarray(offset, offset + length)
  if (bytes[0] === 0x80) {
    let value = 0
    for (const byte of bytes.subarray(1)) value = value * 256 + byte
    return Number.isSafeInteger(value) ? value : Number.NaN
  }
  // 0xff starts a negative base-256 number: no size, mode or time we accept is negative.
  if (bytes[0] === 0xff) return Number.NaN
  const text = latin1.decode(field(block, offset, length)).trim()
  if (text === "") return 0
  if (!/^[0-7]+$/.test(text)) return Number.NaN
  const value = parseInt(text, 8)
  return Number.isSafeInteger(value) ? value : Number.NaN
}

/** The checksum is the header's byte sum with its own field read as spaces; old tars summed signed chars. */
export const checksumMatches = (block: Uint8Array): boolean => {
  const stored = numeric(block, 148, 8)
  if (Number.isNaN(stored)) return false
  let unsigned = 0
  let signed = 0
  for (let i = 0; i < BLOCK; i++) {
    const byte = i >= 148 && i < 156 ? 32 : block[i]!
    unsigned += byte
    signed += byte > 127 ? byte - 256 : byte
  }
  return stored === unsigned || stored === signed
}

/** tar headers carry an octal checksum of the 512-byte header: enough to tell a tar from other data. */
export const isTarHeader = (head: Uint8Array): boolean => head.length >= BLOCK && checksumMatches(head)

/** gzip data starts with 1f 8b. */
export const isGzip = (head: Uint8Array): boolean => head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b
