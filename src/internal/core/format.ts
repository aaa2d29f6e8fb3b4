/**
 * Small formatting helpers for the messages the model reads (pure).
 */

/** A byte count as people read it: `512 bytes`, `1.5 KB`, `12.0 MB`. */
export const formatBytes = (bytes: number): string =>
  bytes >= 1024 * 1024
    ? `${(bytes / (1024 * 1024)).toFixed(1)} MB`
    : bytes >= 1024
    ? `${(bytes / 1024).toFixed(1)} KB`
    : `${bytes} bytes`
