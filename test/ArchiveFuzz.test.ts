/**
 * Mutated archives: valid tar, tar.gz and ZIP archives holding every member kind, then bit
 * flips, truncations, overwritten bytes and oversized or absurd header fields (with the tar
 * checksum repaired, so they reach the parser's deeper paths). Every listing and member read
 * must end — within a generous deadline — in an honest success or a typed error: no defect, no
 * hang, output within its caps, never `undefined` or `NaN`, memory bounded by the caps.
 *
 * The seed is printed; `ARCHIVE_FUZZ_SEED=<n>` replays a run, `ARCHIVE_FUZZ_RUNS=<n>` sets the
 * cases per format, `ARCHIVE_FUZZ_STATS=1` prints how the answers were distributed (to see that
 * mutations reach past the first header).
 */
import * as FileSystem from "@effect/platform/FileSystem"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as fc from "effect/FastCheck"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import * as zlib from "node:zlib"
import { resolveTarget } from "../src/internal/read/access.js"
import { ARCHIVE_LIMITS, type ArchiveLimits, readArchiveWith } from "../src/internal/sources/archive.js"
import { nodeLayer, tempDir } from "./support/index.js"
import {
  header,
  member,
  paxRecords,
  sparseOldGnu,
  sparsePax00,
  sparsePax01,
  sparsePax10,
  tarOf
} from "./support/tarFixtures.js"
import { unicodePathExtra, zip } from "./support/zipFixtures.js"

const SEED = Number(process.env["ARCHIVE_FUZZ_SEED"] ?? Math.floor(Math.random() * 2 ** 31))
const RUNS = Number(process.env["ARCHIVE_FUZZ_RUNS"] ?? 60)
console.info(`archive fuzz: seed ${SEED}, ${RUNS} cases per format (replay with ARCHIVE_FUZZ_SEED=${SEED})`)

/** Small caps, so that whatever a mutation claims, a case holds little memory. */
const LIMITS: ArchiveLimits = {
  ...ARCHIVE_LIMITS,
  maxMemberBytes: 512 * 1024,
  ratioMinBytes: 64 * 1024,
  maxInflatedBytes: 4 * 1024 * 1024,
  maxEntries: 200
}
const run = readArchiveWith(LIMITS)

const root = tempDir("effect-read-fuzz-")
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

// -----------------------------------------------------------------------------
// The corpus: one archive per format holding every kind
// -----------------------------------------------------------------------------

const TEXT = "line one\nline two\nline three\n"
const sparse = {
  name: "sparse.log",
  realSize: 9000,
  segments: [{ offset: 0, data: Buffer.from(TEXT.repeat(10)) }, { offset: 5000, data: Buffer.from(TEXT) }]
}

const TAR = tarOf(
  member({ name: "dir/", type: "5" }),
  member({ name: "dir-with-size/", type: "5", size: 255 }),
  member({ name: "dir/a.txt", data: TEXT }),
  member({ name: "link", type: "2", linkname: "dir/a.txt" }),
  member({ name: "hard", type: "1", linkname: "dir/a.txt" }),
  member({ name: "tty", type: "3", devmajor: 5, devminor: 1 }),
  member({ name: "fifo", type: "6" }),
  member({
    name: "PaxHeaders/long",
    type: "x",
    data: paxRecords({ path: `long/${"n".repeat(150)}.txt`, mtime: "1.5" })
  }),
  member({ name: "short.txt", data: TEXT }),
  member({ name: "././@LongLink", type: "L", format: "gnu", data: `gnu/${"g".repeat(120)}.txt\0` }),
  member({ name: "gnu/short", format: "gnu", data: TEXT }),
  member({ name: "v7.txt", type: "\0", format: "v7", data: TEXT }),
  member({
    name: "b256.txt",
    data: TEXT,
    size: 0,
    raw: [[124, Buffer.from([0x80, ...Array(10).fill(0), TEXT.length])]]
  }),
  sparseOldGnu({ ...sparse, name: "s-old.log" }),
  sparsePax00({ ...sparse, name: "s-00.log" }),
  sparsePax01({ ...sparse, name: "s-01.log" }),
  sparsePax10({ ...sparse, name: "s-10.log" }),
  member({ name: "dir/a.txt", data: `${TEXT}again\n` })
)

const TAR_MEMBERS = [
  "dir",
  "dir/a.txt",
  `gnu/${"g".repeat(120)}.txt`,
  "s-old.log",
  "s-10.log",
  "v7.txt",
  `long/${"n".repeat(150)}.txt`
]

const legacy = Buffer.from("legacy.txt")
const ZIP = zip([
  { name: "dir/", method: 0 },
  { name: "dir/deflated.txt", data: TEXT.repeat(30) },
  { name: "stored.txt", data: TEXT, method: 0 },
  { name: "described.txt", data: TEXT, dataDescriptor: true },
  { name: "wide.txt", data: TEXT, zip64: true },
  { name: "legacy", rawName: legacy, utf8: false, extra: unicodePathExtra(legacy, "ünï.txt"), data: TEXT },
  { name: "link", data: "stored.txt", method: 0, mode: 0o120777 },
  { name: "win\\path.txt", data: TEXT }
], { prefix: Buffer.from("#!/bin/sh\nexit 0\n"), zip64End: true })

const ZIP_MEMBERS = [
  "dir",
  "dir/deflated.txt",
  "stored.txt",
  "described.txt",
  "wide.txt",
  "ünï.txt",
  "link",
  "win/path.txt"
]

/** A plain `.gz`: one compressed file, asked for whole, by its name and by lines. */
const GZ = zlib.gzipSync(TEXT.repeat(200))
const GZ_REQUESTS = ["fuzz", "clean", "2-3"]

// -----------------------------------------------------------------------------
// Mutations
// -----------------------------------------------------------------------------

type Mutation =
  | { readonly _tag: "Flip"; readonly at: number; readonly bit: number }
  | { readonly _tag: "Truncate"; readonly at: number }
  | { readonly _tag: "Overwrite"; readonly at: number; readonly bytes: Uint8Array }
  | { readonly _tag: "Field"; readonly at: number; readonly field: number; readonly value: number }

/** Where in the archive, as a fraction of its length (fast-check's doubles crowd around 0). */
const position = fc.integer({ min: 0, max: 999_999 }).map((n) => n / 1_000_000)
const absurd = fc.oneof(
  fc.constantFrom(0, 1, 0xff, 0xffff, 0xffffffff, 2 ** 31, 2 ** 33, Number.MAX_SAFE_INTEGER),
  fc.integer({ min: 0, max: 0xffffffff })
)
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ _tag: fc.constant("Flip" as const), at: position, bit: fc.integer({ min: 0, max: 7 }) }),
  fc.record({ _tag: fc.constant("Truncate" as const), at: position }),
  fc.record({
    _tag: fc.constant("Overwrite" as const),
    at: position,
    bytes: fc.uint8Array({ minLength: 1, maxLength: 24 })
  }),
  fc.record({ _tag: fc.constant("Field" as const), at: position, field: fc.nat(), value: absurd })
)
const plan = fc.array(mutation, { minLength: 1, maxLength: 4 })

/** tar fields a header holds: offset and width. */
const TAR_FIELDS: ReadonlyArray<readonly [number, number]> = [
  [124, 12],
  [136, 12],
  [156, 1],
  [0, 100],
  [157, 100],
  [345, 155],
  [482, 1],
  [483, 12],
  [386, 12]
]

const octalField = (value: number, width: number): Buffer => {
  const digits = value.toString(8)
  // Too wide for the field: GNU's base-256 form.
  if (digits.length > width - 1) {
    const field = Buffer.alloc(width)
    field[0] = 0x80
    let rest = BigInt(value)
    for (let i = width - 1; i > 0 && rest > 0n; i--, rest >>= 8n) field[i] = Number(rest & 0xffn)
    return field
  }
  return Buffer.from(digits.padStart(width - 1, "0") + "\0", "latin1")
}

const repairChecksum = (bytes: Buffer, block: number) => {
  bytes.fill(0x20, block + 148, block + 156)
  let sum = 0
  for (let i = block; i < block + 512; i++) sum += bytes[i]!
  bytes.write(sum.toString(8).padStart(6, "0") + "\0 ", block + 148, "latin1")
}

const applyTar = (base: Buffer, mutations: ReadonlyArray<Mutation>): Buffer => {
  let bytes = Buffer.from(base)
  for (const m of mutations) {
    const at = Math.floor(m.at * bytes.length)
    switch (m._tag) {
      case "Flip":
        if (bytes.length > 0) bytes[at]! ^= 1 << m.bit
        break
      case "Truncate":
        bytes = bytes.subarray(0, at)
        break
      case "Overwrite":
        Buffer.from(m.bytes).copy(bytes, at)
        break
      case "Field": {
        // A header field, with the checksum made right again so the parser believes it.
        const block = Math.floor(at / 512) * 512
        if (block + 512 > bytes.length) break
        const [offset, width] = TAR_FIELDS[m.field % TAR_FIELDS.length]!
        const value = width === 1 ? Buffer.from([m.value & 0xff]) : octalField(m.value, width)
        value.copy(bytes, block + offset, 0, width)
        repairChecksum(bytes, block)
      }
    }
  }
  return bytes
}

const SIGNATURES = [0x04034b50, 0x02014b50, 0x06054b50, 0x06064b50, 0x07064b50, 0x08074b50]

const applyZip = (base: Buffer, mutations: ReadonlyArray<Mutation>): Buffer => {
  let bytes = Buffer.from(base)
  for (const m of mutations) {
    const at = Math.floor(m.at * bytes.length)
    switch (m._tag) {
      case "Flip":
        if (bytes.length > 0) bytes[at]! ^= 1 << m.bit
        break
      case "Truncate":
        bytes = bytes.subarray(0, at)
        break
      case "Overwrite":
        Buffer.from(m.bytes).copy(bytes, at)
        break
      case "Field": {
        // A field of the nearest record at or after `at`: sizes, offsets, counts, name lengths.
        let record = -1
        for (let i = at; i + 4 <= bytes.length; i++) {
          if (SIGNATURES.includes(bytes.readUInt32LE(i))) {
            record = i
            break
          }
        }
        if (record === -1) break
        const offset = 4 + 2 * (m.field % 22)
        if (record + offset + 4 > bytes.length) break
        if (m.field % 2 === 0) bytes.writeUInt32LE(m.value >>> 0, record + offset)
        else bytes.writeUInt16LE(m.value & 0xffff, record + offset)
      }
    }
  }
  return bytes
}

// -----------------------------------------------------------------------------
// The property
// -----------------------------------------------------------------------------

const stats = new Map<string, number>()
afterAll(() => {
  if (process.env["ARCHIVE_FUZZ_STATS"] === undefined) return
  console.info([...stats].sort((a, b) => b[1] - a[1]).map(([answer, n]) => `${n}\t${answer}`).join("\n"))
})
const ALLOWED = new Set(["ArchiveError", "OffsetOutOfRange", "InvalidSelector", "BinaryFile"])
let baseline = 0
const memoryInUse = () => {
  const usage = process.memoryUsage()
  return usage.heapUsed + usage.arrayBuffers
}

/** Every request against one mutated archive: listing, members, a line range. */
const check = (file: string, bytes: Buffer, members: ReadonlyArray<string>, clean = false) =>
  Effect.gen(function*() {
    fs.writeFileSync(nodePath.join(root, file), bytes)
    if (bytes.length === 0) return
    for (const inner of ["", ...members, `${members.find((m) => m !== "dir")}:2-3`]) {
      const exit = yield* Effect.gen(function*() {
        const fsys = yield* FileSystem.FileSystem
        const target = yield* resolveTarget(file)
        const info = yield* fsys.stat(target.absolute)
        return yield* run({ target, info, inner, params: {} })
      }).pipe(
        Effect.provide(nodeLayer(root)),
        // Generous: a hang fails here with the seed, not at vitest's timeout.
        Effect.timeout("30 seconds"),
        Effect.exit
      )
      const context = `${file}:${inner}`
      if (process.env["ARCHIVE_FUZZ_STATS"] !== undefined) {
        const answer = Exit.isSuccess(exit)
          ? `ok ${exit.value.output.includes("<entries>") ? "listing" : "member"}`
          : Cause.pretty(exit.cause).split("\n")[0]!.replace(/'[^']*'/g, "'…'").replace(/\d+/g, "N").slice(0, 110)
        stats.set(answer, (stats.get(answer) ?? 0) + 1)
      }
      // Unmutated, everything reads but the link, which names its target, and the sparse logs,
      // whose holes are zeros: binary, as the same bytes in a file of their own.
      if (clean) {
        const why = Exit.isFailure(exit) ? Cause.pretty(exit.cause) : ""
        const sparseBinary = /^s-\d+|^s-old/.test(inner) &&
          Exit.isFailure(exit) && Cause.failureOption(exit.cause).pipe((o) =>
            o._tag === "Some" && o.value._tag === "BinaryFile"
          )
        expect(Exit.isSuccess(exit) || inner === "link" || sparseBinary, `${context}: ${why}`).toBe(true)
      }
      if (Exit.isSuccess(exit)) {
        const { metadata, output } = exit.value
        expect(output, context).not.toMatch(/undefined|NaN/)
        expect(output, context).toMatch(/^(\(.*\)\n)?<path>/)
        expect(output, context).toMatch(/<\/(entries|content)>$/)
        expect(Buffer.byteLength(output), context).toBeLessThanOrEqual(60 * 1024)
        if (metadata.size !== undefined && metadata.kind === "archive" && output.includes("<type>file</type>")) {
          expect(metadata.size, context).toBeLessThanOrEqual(LIMITS.maxMemberBytes)
        }
      } else {
        expect(Cause.isDie(exit.cause), `${context}: ${Cause.pretty(exit.cause)}`).toBe(false)
        const failure = Cause.failureOption(exit.cause)
        expect(failure._tag, `${context}: ${Cause.pretty(exit.cause)}`).toBe("Some")
        if (failure._tag === "Some") {
          const error = failure.value
          expect(ALLOWED.has(error._tag), `${context}: ${error._tag} ${error.message}`).toBe(true)
          expect(error.message, context).not.toMatch(/undefined|NaN|\[object/)
        }
      }
    }
    expect(memoryInUse() - baseline).toBeLessThan(512 * 1024 * 1024)
  })

describe("mutated archives end in honest answers or typed errors", () => {
  it.effect("the unmutated corpus reads cleanly", () =>
    Effect.gen(function*() {
      baseline = memoryInUse()
      yield* check("clean.tar", TAR, TAR_MEMBERS, true)
      yield* check("clean.tgz", zlib.gzipSync(TAR), TAR_MEMBERS, true)
      yield* check("clean.zip", ZIP, ZIP_MEMBERS, true)
      yield* check("clean.gz", GZ, ["clean", "1-2"], true)
    }))

  it.live.prop("tar", [plan], ([mutations]) => check("fuzz.tar", applyTar(TAR, mutations), TAR_MEMBERS), {
    fastCheck: { numRuns: RUNS, seed: SEED }
  })

  it.live.prop(
    "tar.gz: mutated before and after compression",
    [plan, fc.array(mutation, { maxLength: 2 })],
    ([before, after]) =>
      check(
        "fuzz.tgz",
        applyZip(zlib.gzipSync(applyTar(TAR, before)), after.filter((m) => m._tag !== "Field")),
        TAR_MEMBERS
      ),
    { fastCheck: { numRuns: RUNS, seed: SEED } }
  )

  it.live.prop(
    "gz",
    [plan],
    ([mutations]) => check("fuzz.gz", applyZip(GZ, mutations.filter((m) => m._tag !== "Field")), GZ_REQUESTS),
    { fastCheck: { numRuns: RUNS, seed: SEED } }
  )

  it.live.prop("zip", [plan], ([mutations]) => check("fuzz.zip", applyZip(ZIP, mutations), ZIP_MEMBERS), {
    fastCheck: { numRuns: RUNS, seed: SEED }
  })
})

// The oversized fields the mutations write must really be oversized: keep the helper honest.
it("octal fields too wide for their width switch to base-256", () => {
  expect(octalField(8, 12).toString("latin1")).toBe("00000000010\0")
  expect(octalField(2 ** 40, 12)[0]).toBe(0x80)
  expect(header({ name: "x" }).length).toBe(512)
})
