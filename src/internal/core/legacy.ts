/**
 * iconv-lite and chardet, loaded at their first use. A UTF-8 read needs neither, and together
 * they are over half a megabyte of code and tables that every start-up (the CLI's, a host's
 * import) would otherwise compile: only a file in a legacy or multi-byte Unicode encoding, or a
 * named `encoding`, loads them.
 */
import { createRequire } from "node:module"

// Resolved from this module's own place, bundled or not (the bundle keeps `import.meta.url` as
// the compiled module's URL), and not followed by the bundler: they stay out of the bundle.
const load = createRequire(import.meta.url)

let iconvLite: typeof import("iconv-lite") | undefined
let chardetModule: typeof import("chardet") | undefined

/** iconv-lite, loaded on the first call. */
export const iconv = (): typeof import("iconv-lite") => iconvLite ??= load("iconv-lite")

/** chardet, loaded on the first call. */
export const chardet = (): typeof import("chardet") => chardetModule ??= load("chardet")
