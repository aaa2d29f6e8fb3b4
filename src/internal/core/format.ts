/**
 * Small formatting helpers for the messages the model reads (pure).
 */

/**
 * A byte count as people read it, in binary units named as such: `512 bytes`, `1.5 KiB`,
 * `12.0 MiB`, `1.0 GiB`.
 */
export const formatBytes = (bytes: number): string =>
  bytes >= 1024 * 1024 * 1024
    ? `${(bytes / (1024 * 1024 * 1024)).toFixed(1)} GiB`
    : bytes >= 1024 * 1024
    ? `${(bytes / (1024 * 1024)).toFixed(1)} MiB`
    : bytes >= 1024
    ? `${(bytes / 1024).toFixed(1)} KiB`
    : `${bytes} bytes`

/** `1 entry`, `3 entries`: a count with its noun in the number it takes. */
export const plural = (count: number, one: string, many = `${one}s`): string => `${count} ${count === 1 ? one : many}`
