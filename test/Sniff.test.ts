/**
 * The sniff (`io/sniff.ts`) answers as file-type does for the same bytes: every text signature
 * in file-type's own source, at its offset, before random bytes or text; random bytes; binary
 * signatures; the fixtures. And the signatures it keeps are bounded.
 */
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import * as Effect from "effect/Effect"
import { fileTypeFromBuffer } from "file-type"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as nodePath from "node:path"
import { MAX_SIGNATURES, signatureBytes, signaturesHeld, sniff } from "../src/internal/io/sniff.js"

const require = createRequire(import.meta.url)
const core = fs.readFileSync(nodePath.join(nodePath.dirname(require.resolve("file-type")), "core.js"), "utf8")

/** Every `checkString('…', { offset })` in file-type's source: the text signatures it looks for. */
const textSignatures = [...core.matchAll(/checkString\('((?:[^'\\]|\\.)*)'(?:,\s*\{([^}]*)\})?\)/g)].map((match) => ({
  // A JavaScript string literal's escapes, as JSON reads them (`\\0` is not JSON's).
  text: JSON.parse(`"${match[1]!.replace(/\\'/g, "'").replace(/\\0/g, "\\u0000").replace(/"/g, "\\\"")}"`) as string,
  offset: Number(/offset:\s*(\d+)/.exec(match[2] ?? "")?.[1] ?? 0)
}))

/** A few binary signatures, so the comparison meets formats recognised by bytes too. */
const binaryStarts = [
  [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
  [0xff, 0xd8, 0xff],
  [0x50, 0x4b, 0x03, 0x04],
  [0x1f, 0x8b, 0x08],
  [0x49, 0x44, 0x33, 0x04, 0x00],
  [0x00, 0x00, 0x00, 0x20, 0x66, 0x74, 0x79, 0x70]
]

const answer = (found: { readonly mime: string; readonly ext: string } | undefined) =>
  found === undefined ? undefined : { mime: found.mime, ext: found.ext }

const sameAsFileType = (bytes: Uint8Array) =>
  Effect.promise(async () => {
    expect(answer(await sniff(bytes))).toEqual(answer(await fileTypeFromBuffer(bytes).catch(() => undefined)))
  })

describe("the sniff", () => {
  it("finds file-type's text signatures in its source", () => {
    expect(textSignatures.length).toBeGreaterThan(50)
    expect(textSignatures.map((signature) => signature.text)).toContain("%PDF")
  })

  it.effect.prop(
    "answers as file-type for every text signature at its offset, followed by anything",
    [
      fc.nat({ max: 10_000 }),
      fc.oneof(fc.uint8Array({ maxLength: 600 }), fc.string({ maxLength: 600 }).map((text) => Buffer.from(text))),
      fc.boolean()
    ],
    ([which, rest, atOffset]) => {
      const signature = textSignatures[which % textSignatures.length]!
      const offset = atOffset ? signature.offset : 0
      return sameAsFileType(Buffer.concat([Buffer.alloc(offset, 0x20), Buffer.from(signature.text, "latin1"), rest]))
    },
    { fastCheck: { numRuns: 400 } }
  )

  it.effect.prop(
    "answers as file-type for random bytes and binary signatures",
    [fc.nat({ max: binaryStarts.length }), fc.uint8Array({ maxLength: 4200 })],
    ([which, rest]) => sameAsFileType(Uint8Array.from([...(binaryStarts[which] ?? []), ...rest])),
    { fastCheck: { numRuns: 200 } }
  )

  it("answers as file-type for every fixture's first bytes", async () => {
    const root = nodePath.join(import.meta.dirname, "fixtures")
    const files = fs.readdirSync(root, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile())
    expect(files.length).toBeGreaterThan(0)
    for (const entry of files) {
      const bytes = fs.readFileSync(nodePath.join(entry.parentPath, entry.name)).subarray(0, 4096)
      await Effect.runPromise(sameAsFileType(bytes))
    }
  })

  it("keeps at most MAX_SIGNATURES signatures' bytes, and answers past the bound all the same", () => {
    for (let i = 0; i < MAX_SIGNATURES + 100; i++) {
      expect(signatureBytes(`signature ${i}`)).toEqual([...`signature ${i}`].map((c) => c.charCodeAt(0)))
    }
    expect(signaturesHeld()).toBe(MAX_SIGNATURES)
    expect(signatureBytes("<?xml ", { encoding: "utf-16be" })).toEqual([0, 60, 0, 63, 0, 120, 0, 109, 0, 108, 0, 32])
  })
})
