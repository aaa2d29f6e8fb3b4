/**
 * Every member kind a tar or ZIP can hold, as real archivers write them: listed and read, or
 * answered with what they are (a link names its target; a device or FIFO is described and
 * never opened). tar fixtures come from CPython's tarfile (python3, run here) and from headers
 * written byte by byte for what tarfile cannot write (sparse files, V7 and signed-checksum
 * headers, malformed pax records); ZIPs from CPython's zipfile and test/zipFixtures.ts.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as zlib from "node:zlib"
import type { ByteSource } from "../src/internal/sources/archive/content.js"
import { ARCHIVE_LIMITS } from "../src/internal/sources/archive/model.js"
import { scanTar } from "../src/internal/sources/archive/tar.js"
import { read, type ReadParams } from "../src/Read.js"
import { nodeLayer, tempDir, writeTree } from "./support/index.js"
import {
  header,
  member,
  paxRecords,
  sparseContent,
  type SparseFile,
  sparseOldGnu,
  sparsePax00,
  sparsePax01,
  sparsePax10,
  tarOf
} from "./support/tarFixtures.js"
import { unicodePathExtra, zip } from "./support/zipFixtures.js"

const roots: Array<string> = []
afterAll(() => {
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true })
})

const project = (files: Readonly<Record<string, string | Uint8Array>>): string => {
  const root = tempDir("effect-read-kinds-")
  roots.push(root)
  writeTree(root, files)
  return root
}

const readIn = (root: string, params: ReadParams) => read(params).pipe(Effect.provide(nodeLayer(root)))
const readPath = (root: string, filePath: string) => readIn(root, { filePath })

/** Each archive in `root` lists `listed` (when given: all its entries) and reads its `member` as the one line `line`. */
const expectEachReads = (
  root: string,
  archives: ReadonlyArray<string>,
  listed: ReadonlyArray<string> | undefined,
  member: string,
  line: string
) =>
  Effect.gen(function*() {
    for (const archive of archives) {
      if (listed !== undefined) {
        expect((yield* readPath(root, archive)).output).toBe(
          archivePage(`${root}/${archive}`, listed, [`(${listed.length} entries)`])
        )
      }
      expect((yield* readPath(root, `${archive}:${member}`)).output).toBe(
        filePage(`${root}/${archive}:${member}`, [`1: ${line}`], "(End of file - total 1 lines)")
      )
    }
  })
const failPath = (root: string, filePath: string) => Effect.flip(readIn(root, { filePath }))

const archivePage = (path: string, entries: ReadonlyArray<string>, footer: ReadonlyArray<string>) =>
  `<path>${path}</path>\n<type>archive</type>\n<entries>\n${entries.map((e) => `${e}\n`).join("")}\n${
    footer.join("\n")
  }\n</entries>`

const filePage = (path: string, shown: ReadonlyArray<string>, footer: string) =>
  `<path>${path}</path>\n<type>file</type>\n<content>\n${shown.map((l) => `${l}\n`).join("")}\n${footer}\n</content>`

const expectArchiveError = (error: { readonly _tag: string; readonly message: string }, reason: RegExp | string) => {
  expect(error._tag).toBe("ArchiveError")
  if (typeof reason === "string") expect(error.message).toBe(reason)
  else expect(error.message).toMatch(reason)
}

// -----------------------------------------------------------------------------
// CPython's tarfile and zipfile
// -----------------------------------------------------------------------------

const LONG = `deep/${
  Array.from({ length: 12 }, (_, i) => `segment${String(i).padStart(2, "0")}`).join("/")
}/long-name-file.txt`

const PYTHON = String.raw`
import io, sys, tarfile, zipfile, os
out = sys.argv[1]
LONG = sys.argv[2]
def info(name, type=tarfile.REGTYPE, **kw):
    t = tarfile.TarInfo(name); t.type = type; t.mtime = 1735689600; t.mode = 0o644
    for k, v in kw.items(): setattr(t, k, v)
    return t
for fmt, label in [(tarfile.USTAR_FORMAT, "ustar"), (tarfile.GNU_FORMAT, "gnu"), (tarfile.PAX_FORMAT, "pax")]:
    with tarfile.open(os.path.join(out, label + ".tar"), "w", format=fmt) as tar:
        data = b"hello from %s\n" % label.encode()
        tar.addfile(info("kinds/", tarfile.DIRTYPE))
        tar.addfile(info("kinds/file.txt", size=len(data)), io.BytesIO(data))
        tar.addfile(info("kinds/symlink", tarfile.SYMTYPE, linkname="file.txt"))
        tar.addfile(info("kinds/hardlink", tarfile.LNKTYPE, linkname="kinds/file.txt"))
        tar.addfile(info("kinds/tty", tarfile.CHRTYPE, devmajor=5, devminor=0))
        tar.addfile(info("kinds/disk", tarfile.BLKTYPE, devmajor=8, devminor=1))
        tar.addfile(info("kinds/pipe", tarfile.FIFOTYPE))
        if fmt != tarfile.USTAR_FORMAT:
            body = b"a long name\n"
            tar.addfile(info(LONG, size=len(body)), io.BytesIO(body))
            tar.addfile(info("kinds/longlink", tarfile.SYMTYPE, linkname="../" + LONG))
        if fmt == tarfile.PAX_FORMAT:
            body = "grüße\n".encode()
            tar.addfile(info("kinds/grüße.txt", size=len(body)), io.BytesIO(body))
# Written to a pipe: no seeking back, so every member gets a data descriptor.
class Pipe(io.RawIOBase):
    def __init__(self): self.buf = bytearray()
    def writable(self): return True
    def write(self, b): self.buf += b; return len(b)
pipe = Pipe()
with zipfile.ZipFile(pipe, "w", compression=zipfile.ZIP_DEFLATED) as z:
    z.writestr("dir/", b"")
    z.writestr("dir/streamed.txt", b"written without seeking\n" * 3)
    with z.open("big64.txt", "w", force_zip64=True) as f:
        f.write(b"zip64 member\n")
    z.writestr("ünïcode.txt", b"utf-8 name\n")
open(os.path.join(out, "python.zip"), "wb").write(bytes(pipe.buf))
`

/** The archives CPython writes, in a fresh project. */
const pythonArchives = () => {
  const root = project({})
  execFileSync("python3", ["-c", PYTHON, root, LONG], { stdio: "pipe" })
  return root
}

describe("tar member kinds, as CPython's tarfile writes them", () => {
  it.effect("ustar, GNU and pax: directories, files, symbolic and hard links, devices, FIFOs", () =>
    Effect.gen(function*() {
      const root = pythonArchives()
      for (const format of ["ustar", "gnu", "pax"]) {
        const archive = `${format}.tar`
        const listing = yield* readPath(root, `${archive}:kinds`)
        expect(listing.output).toBe(
          archivePage(`${root}/${archive}:kinds/`, [
            "disk (block device 8,1)",
            `file.txt (${`hello from ${format}\n`.length} bytes)`,
            ...(format === "pax" ? ["grüße.txt (8 bytes)"] : []),
            "hardlink -> kinds/file.txt (hard link)",
            ...(format === "ustar" ? [] : [`longlink -> ../${LONG}`]),
            "pipe (FIFO)",
            "symlink -> file.txt",
            "tty (character device 5,0)"
          ], [`(${format === "ustar" ? 6 : format === "gnu" ? 7 : 8} entries)`])
        )
        const file = yield* readPath(root, `${archive}:kinds/file.txt`)
        expect(file.output).toBe(
          filePage(`${root}/${archive}:kinds/file.txt`, [`1: hello from ${format}`], "(End of file - total 1 lines)")
        )
        expectArchiveError(
          yield* failPath(root, `${archive}:kinds/symlink`),
          `Archive member 'kinds/symlink' is a symbolic link to 'file.txt'; links inside archives are not followed. Read ${root}/${archive}:kinds/file.txt instead.`
        )
        expectArchiveError(
          yield* failPath(root, `${archive}:kinds/hardlink`),
          `Archive member 'kinds/hardlink' is a hard link to 'kinds/file.txt'; links inside archives are not followed. Read ${root}/${archive}:kinds/file.txt instead.`
        )
        for (const [name, kind] of [["tty", "character device 5,0"], ["disk", "block device 8,1"], ["pipe", "FIFO"]]) {
          expectArchiveError(
            yield* failPath(root, `${archive}:kinds/${name}`),
            `Archive member 'kinds/${name}' is a ${kind}, not a regular file: it has no content to show, and nothing on this machine is opened for it`
          )
        }
        if (format !== "ustar") {
          const long = yield* readPath(root, `${archive}:${LONG}`)
          expect(long.output).toBe(
            filePage(`${root}/${archive}:${LONG}`, ["1: a long name"], "(End of file - total 1 lines)")
          )
          expectArchiveError(
            yield* failPath(root, `${archive}:kinds/longlink`),
            new RegExp(`Read ${root}/${archive}:${LONG} instead\\.$`)
          )
        }
      }
      const unicode = yield* readPath(root, "pax.tar:kinds/grüße.txt")
      expect(unicode.output).toContain("1: grüße\n")
    }))

  it.effect("a ZIP written to a pipe (data descriptors, a forced ZIP64 member, a UTF-8 name)", () =>
    Effect.gen(function*() {
      const root = pythonArchives()
      const listing = yield* readPath(root, "python.zip")
      expect(listing.output).toBe(
        archivePage(`${root}/python.zip`, ["big64.txt (13 bytes)", "dir/", "ünïcode.txt (11 bytes)"], ["(3 entries)"])
      )
      expect((yield* readPath(root, "python.zip:dir/streamed.txt:3")).output).toContain("3: written without seeking\n")
      expect((yield* readPath(root, "python.zip:big64.txt")).output).toContain("1: zip64 member\n")
      expect((yield* readPath(root, "python.zip:ünïcode.txt")).output).toContain("1: utf-8 name\n")
    }))
})

// -----------------------------------------------------------------------------
// tar headers written byte by byte
// -----------------------------------------------------------------------------

const TEXT = "seven thousand bytes of prose\n"

describe("tar headers from old and unusual archivers", () => {
  it.effect("V7 headers (no magic, a trailing slash for directories), Latin-1 names and signed checksums", () =>
    Effect.gen(function*() {
      const root = project({
        "old.tar": tarOf(
          member({ name: "v7/", type: "\0", format: "v7" }),
          member({ name: "v7/plain.txt", type: "\0", format: "v7", data: TEXT }),
          // Latin-1 bytes summed as signed chars: HP-UX and old V7 tars.
          member({
            name: "v7/signed-\u00c4\u00d6\u00dc.txt",
            type: "\0",
            format: "v7",
            latin1: true,
            signedChecksum: true,
            data: TEXT
          }),
          member({ name: "ustar/hpux-\u00e4\u00f6\u00fc.txt", latin1: true, signedChecksum: true, data: TEXT }),
          // ustar's prefix field holds the leading directories of a long path.
          member({ name: "file-in-prefixed-dir.txt", prefix: "a/prefixed/dir", data: TEXT }),
          // A size in base-256 (GNU, for members over 8 GB; small here).
          member({
            name: "base256.txt",
            data: TEXT,
            size: 0,
            raw: [[124, Buffer.from([0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, TEXT.length])]]
          })
        )
      })
      const listing = yield* readPath(root, "old.tar:v7")
      expect(listing.output).toBe(
        archivePage(`${root}/old.tar:v7/`, ["plain.txt (30 bytes)", "signed-ÄÖÜ.txt (30 bytes)"], ["(2 entries)"])
      )
      for (
        const path of [
          "v7/plain.txt",
          "v7/signed-ÄÖÜ.txt",
          "ustar/hpux-äöü.txt",
          "a/prefixed/dir/file-in-prefixed-dir.txt",
          "base256.txt"
        ]
      ) {
        const result = yield* readPath(root, `old.tar:${path}`)
        expect(result.output).toBe(
          filePage(`${root}/old.tar:${path}`, ["1: seven thousand bytes of prose"], "(End of file - total 1 lines)")
        )
      }
    }))

  it.effect("pax headers: several in a row are merged, the last value wins; Solaris X; size overrides; globals ignored", () =>
    Effect.gen(function*() {
      const root = project({
        "pax.tar": tarOf(
          member({ name: "GlobalHead", type: "g", data: paxRecords({ comment: "global", uname: "someone" }) }),
          member({
            name: "PaxHeaders/one",
            type: "x",
            data: paxRecords({ path: "first/name.txt", mtime: "1700000000.5" })
          }),
          member({ name: "PaxHeaders/two", type: "x", data: paxRecords({ path: "nested/final-name.txt" }) }),
          member({ name: "short-name.txt", data: TEXT }),
          member({ name: "PaxHeaders/three", type: "X", data: paxRecords({ path: "solaris/name.txt" }) }),
          member({ name: "short", data: TEXT }),
          // The header's size field says 0; the pax size is the truth (CPython's pax/regtype4).
          member({ name: "PaxHeaders/four", type: "x", data: paxRecords({ size: String(TEXT.length) }) }),
          Buffer.concat([
            header({ name: "sized-by-pax.txt", size: 0 }),
            Buffer.from(TEXT),
            Buffer.alloc(512 - TEXT.length)
          ])
        )
      })
      const listing = yield* readPath(root, "pax.tar")
      expect(listing.output).toBe(
        archivePage(`${root}/pax.tar`, ["nested/", "sized-by-pax.txt (30 bytes)", "solaris/"], ["(3 entries)"])
      )
      for (const path of ["nested/final-name.txt", "solaris/name.txt", "sized-by-pax.txt"]) {
        expect((yield* readPath(root, `pax.tar:${path}`)).output).toContain("1: seven thousand bytes of prose\n")
      }
      const named = yield* readPath(root, "pax.tar:nested/final-name.txt")
      expect(named.metadata.mtime).toBe(1700000000500)
    }))

  // Go's archive/tar testdata pax-nul-path.tar: a pax path with a NUL and bytes after it. GNU and
  // BSD tar and Go end the name at the NUL; it was listed with the NUL in it, and no path reads it.
  it.effect("pax path and linkpath values end at a NUL, as GNU and BSD tar read them", () =>
    Effect.gen(function*() {
      const root = project({
        "nul.tar": tarOf(
          member({ name: "PaxHeaders/x", type: "x", data: paxRecords({ path: "dir/name.txt\u0000garbage" }) }),
          member({ name: "short-name", data: TEXT }),
          member({ name: "PaxHeaders/y", type: "x", data: paxRecords({ linkpath: "dir/name.txt\u0000junk" }) }),
          member({ name: "link", type: "2", linkname: "x" })
        )
      })
      expect((yield* readPath(root, "nul.tar")).output).toBe(
        archivePage(`${root}/nul.tar`, ["dir/", "link -> dir/name.txt"], ["(2 entries)"])
      )
      expect((yield* readPath(root, "nul.tar:dir/name.txt")).output).toContain("1: seven thousand bytes of prose\n")
    }))

  it.effect("malformed pax records and oversized extended headers are typed errors, read no further", () =>
    Effect.gen(function*() {
      const record = (text: string) => member({ name: "PaxHeaders/bad", type: "x", data: text })
      const root = project({
        // A zero length never advances: CPython looped forever on this (recursion.tar).
        "zero.tar": tarOf(record("0 path=x\n"), member({ name: "after.txt", data: TEXT })),
        "short.tar": tarOf(record("5 path=x\n"), member({ name: "after.txt", data: TEXT })),
        "past.tar": tarOf(record("99 path=x\n"), member({ name: "after.txt", data: TEXT })),
        // CPython's recursion.tar: a global header, then a cut block holding "0 X=".
        "recursion.tar": Buffer.concat([header({ name: "bcaller", type: "g", size: 0 }), Buffer.from("0 X=")]),
        // Claims 2 GB: refused from the header, never read.
        "huge.tar": tarOf(
          header({ name: "PaxHeaders/huge", type: "x", size: 2 ** 31 }),
          member({ name: "after.txt", data: TEXT })
        ),
        "longname.tar": tarOf(header({ name: "././@LongLink", type: "L", size: 8 * 1024 * 1024, format: "gnu" }))
      })
      for (const archive of ["zero.tar", "short.tar", "past.tar"]) {
        expectArchiveError(yield* failPath(root, archive), "Invalid tar archive: corrupt pax header")
        expectArchiveError(yield* failPath(root, `${archive}:after.txt`), "Invalid tar archive: corrupt pax header")
      }
      expectArchiveError(yield* failPath(root, "recursion.tar"), "Invalid tar archive: truncated")
      expectArchiveError(
        yield* failPath(root, "huge.tar:after.txt"),
        "Invalid tar archive: an extended header is 2147483648 bytes, over the 1048576 allowed"
      )
      expectArchiveError(
        yield* failPath(root, "longname.tar"),
        /^Invalid tar archive: an extended header is 8388608 bytes/
      )
    }))

  it.effect("volume labels are skipped, GNU dumpdirs are directories, unknown types are read as files", () =>
    Effect.gen(function*() {
      const root = project({
        "misc.tar": tarOf(
          member({ name: "Backup volume 1", type: "V", format: "gnu" }),
          member({ name: "dump/", type: "D", format: "gnu", data: "Ydump/a.txt\0\0" }),
          member({ name: "dump/a.txt", data: TEXT }),
          member({ name: "unknown-type", type: "Q", data: TEXT })
        )
      })
      const listing = yield* readPath(root, "misc.tar")
      expect(listing.output).toBe(
        archivePage(`${root}/misc.tar`, ["dump/", "unknown-type (30 bytes)"], ["(2 entries)"])
      )
      expect((yield* readPath(root, "misc.tar:dump/a.txt")).output).toContain("1: seven thousand bytes of prose\n")
      expect((yield* readPath(root, "misc.tar:unknown-type")).output).toContain("1: seven thousand bytes of prose\n")
    }))
})

// -----------------------------------------------------------------------------
// Sparse files
// -----------------------------------------------------------------------------

const prose = (label: string, size: number) => {
  const line = `${label} ${"x".repeat(60)}\n`
  return Buffer.from(line.repeat(Math.ceil(size / line.length)).slice(0, size))
}

/** Text for its first 4 KB (so the member reads as text), then holes between seven segments. */
const SPARSE: SparseFile = {
  name: "data/sparse.log",
  realSize: 40_000,
  segments: [
    { offset: 0, data: prose("one", 5000) },
    { offset: 8000, data: prose("two", 1000) },
    { offset: 12_000, data: prose("three", 700) },
    { offset: 15_000, data: prose("four", 512) },
    { offset: 20_000, data: prose("five", 3000) },
    { offset: 30_000, data: prose("six", 10) },
    { offset: 33_000, data: prose("seven", 2000) }
  ]
}

const bufferSource = (bytes: Uint8Array): ByteSource => ({
  size: bytes.length,
  readAt: async (position, length) => bytes.subarray(position, position + length)
})

const FORMS = { "old GNU (S)": sparseOldGnu, "pax 0.0": sparsePax00, "pax 0.1": sparsePax01, "pax 1.0": sparsePax10 }

describe("sparse files", () => {
  it.effect("each GNU form is rebuilt byte for byte, holes as zeros, from tar and tar.gz", () =>
    Effect.gen(function*() {
      for (const [form, write] of Object.entries(FORMS)) {
        const bytes = tarOf(write(SPARSE), member({ name: "after.txt", data: TEXT }))
        for (const [gzip, archive] of [[false, bytes], [true, zlib.gzipSync(bytes)]] as const) {
          const scan = yield* Effect.promise((signal) =>
            scanTar(bufferSource(archive), gzip, [SPARSE.name], ARCHIVE_LIMITS, signal)
          )
          const content = scan.found?.content
          expect(content?._tag, form).toBe("Text")
          if (content?._tag === "Text") {
            expect(Buffer.from(content.bytes).equals(sparseContent(SPARSE)), form).toBe(true)
          }
          expect(scan.found?.entry).toMatchObject({ size: 40_000, sparse: true })
          // The member after it is where it should be: the sparse data was consumed exactly.
          const after = yield* Effect.promise((signal) =>
            scanTar(bufferSource(archive), gzip, ["after.txt"], ARCHIVE_LIMITS, signal)
          )
          expect(after.found?.content._tag).toBe("Text")
        }
      }
    }))

  it.effect("listed with their full size; a sparse file opening with a hole reads as binary", () =>
    Effect.gen(function*() {
      const holeFirst: SparseFile = {
        name: "hole-first.bin",
        realSize: 86_016,
        segments: [{ offset: 4096, data: prose("d", 4096) }]
      }
      const root = project({
        "s.tar": tarOf(
          ...Object.values(FORMS).map((write, i) => write({ ...SPARSE, name: `f${i}.log` })),
          sparsePax10(holeFirst)
        )
      })
      const listing = yield* readPath(root, "s.tar")
      expect(listing.output).toBe(
        archivePage(`${root}/s.tar`, [
          "f0.log (39.1 KiB, sparse)",
          "f1.log (39.1 KiB, sparse)",
          "f2.log (39.1 KiB, sparse)",
          "f3.log (39.1 KiB, sparse)",
          "hole-first.bin (84.0 KiB, sparse)"
        ], ["(5 entries)"])
      )
      const first = yield* readPath(root, "s.tar:f2.log:1-2")
      expect(first.output).toContain(`1: one ${"x".repeat(60)}\n2: one ${"x".repeat(60)}\n`)
      expect((yield* Effect.flip(readPath(root, "s.tar:hole-first.bin"))).message).toBe(
        `Cannot read binary file: ${root}/s.tar:hole-first.bin (.bin file, unrecognised binary data starting with 00 00 00 00 00 00 00 00, 84.0 KiB)`
      )
    }))

  it.effect("a sparse map that lists more data than is stored, or leaves the file, is a typed error", () =>
    Effect.gen(function*() {
      const overlong = sparsePax01(SPARSE)
      const root = project({
        "more.tar": tarOf(
          member({
            name: "PaxHeaders/x",
            type: "x",
            data: paxRecords({ "GNU.sparse.size": "100", "GNU.sparse.map": "0,90", "GNU.sparse.name": "m.txt" })
          }),
          member({ name: "m.txt", data: "only ten.\n" })
        ),
        "outside.tar": tarOf(
          member({
            name: "PaxHeaders/x",
            type: "x",
            data: paxRecords({ "GNU.sparse.size": "100", "GNU.sparse.map": "95,10", "GNU.sparse.name": "o.txt" })
          }),
          member({ name: "o.txt", data: "0123456789" })
        ),
        "ok.tar": tarOf(overlong)
      })
      expectArchiveError(
        yield* failPath(root, "more.tar:m.txt"),
        "Invalid tar archive: the sparse map of 'm.txt' lists more data than the member stores"
      )
      expectArchiveError(yield* failPath(root, "outside.tar"), "Invalid tar archive: corrupt sparse map for 'o.txt'")
      expect((yield* readPath(root, "ok.tar:data")).output).toContain("sparse.log (39.1 KiB, sparse)")
    }))
})

// -----------------------------------------------------------------------------
// ZIP variants
// -----------------------------------------------------------------------------

describe("ZIP variants", () => {
  it.effect("CP437 names, UTF-8 names, Info-ZIP Unicode path fields, backslash separators, directory entries", () =>
    Effect.gen(function*() {
      const cp437 = Buffer.from([0x63, 0x61, 0x66, 0x82, 0x2e, 0x74, 0x78, 0x74]) // caf‚.txt: é in CP437
      const legacy = Buffer.from("old-name.txt", "latin1")
      const root = project({
        "names.zip": zip([
          { name: "café-cp437", rawName: cp437, utf8: false, data: "cp437\n" },
          { name: "naïve-utf8.txt", data: "utf8\n" },
          {
            name: "unicode",
            rawName: legacy,
            utf8: false,
            extra: unicodePathExtra(legacy, "ünicode-path.txt"),
            data: "extra field\n"
          },
          { name: "win\\dir\\file.txt", data: "backslashes\n" },
          { name: "win\\empty\\", method: 0, mode: 0o040755 },
          { name: "explicit/", method: 0 },
          { name: "explicit/inside.txt", data: "inside\n" }
        ])
      })
      const listing = yield* readPath(root, "names.zip")
      expect(listing.output).toBe(
        archivePage(`${root}/names.zip`, [
          "café.txt (6 bytes)",
          "explicit/",
          "naïve-utf8.txt (5 bytes)",
          "win/",
          "ünicode-path.txt (12 bytes)"
        ], ["(5 entries)"])
      )
      expect((yield* readPath(root, "names.zip:win")).output).toBe(
        archivePage(`${root}/names.zip:win/`, ["dir/", "empty/"], ["(2 entries)"])
      )
      for (
        const [path, line] of [["café.txt", "cp437"], ["naïve-utf8.txt", "utf8"], ["ünicode-path.txt", "extra field"], [
          "win/dir/file.txt",
          "backslashes"
        ], ["explicit/inside.txt", "inside"]]
      ) {
        expect((yield* readPath(root, `names.zip:${path}`)).output).toBe(
          filePage(`${root}/names.zip:${path}`, [`1: ${line}`], "(End of file - total 1 lines)")
        )
      }
    }))

  // Go's archive/zip testdata utf8-osx.zip (macOS Archive Utility): '世界' in UTF-8 without the
  // UTF-8 flag was listed as CP437 'Σ╕ûτòî'; unzip and Go show 世界.
  it.effect("unflagged names from Unix and macOS archivers are UTF-8 when they decode as UTF-8; others are CP437", () =>
    Effect.gen(function*() {
      const world = Buffer.from("世界/naïve.txt", "utf8")
      const root = project({
        "osx.zip": zip([{ name: "x", rawName: world, utf8: false, host: 19, data: "osx\n" }]),
        "unix.zip": zip([{ name: "x", rawName: world, utf8: false, data: "unix\n" }]),
        "fat.zip": zip([{ name: "x", rawName: world, utf8: false, host: 0, data: "fat\n" }]),
        "latin.zip": zip([{ name: "x", rawName: Buffer.from("caf\xe9.txt", "latin1"), utf8: false, data: "latin\n" }])
      })
      for (const [archive, line] of [["osx.zip", "osx"], ["unix.zip", "unix"]] as const) {
        expect((yield* readPath(root, archive)).output).toBe(
          archivePage(`${root}/${archive}`, ["世界/"], ["(1 entry)"])
        )
        expect((yield* readPath(root, `${archive}:世界/naïve.txt`)).output).toBe(
          filePage(`${root}/${archive}:世界/naïve.txt`, [`1: ${line}`], "(End of file - total 1 lines)")
        )
      }
      // A DOS or Windows archiver wrote its code page: the same bytes are CP437 there.
      expect((yield* readPath(root, "fat.zip")).output).toBe(archivePage(`${root}/fat.zip`, ["Σ╕ûτòî/"], ["(1 entry)"]))
      // Bytes that are not UTF-8 stay CP437 from any host.
      expect((yield* readPath(root, "latin.zip")).output).toBe(
        archivePage(`${root}/latin.zip`, ["cafΘ.txt (6 bytes)"], ["(1 entry)"])
      )
    }))

  it.effect("data descriptors, stored and deflated", () =>
    Effect.gen(function*() {
      const root = project({
        "dd.zip": zip([
          { name: "deflated.txt", data: "deflated with a descriptor\n".repeat(20), dataDescriptor: true },
          { name: "stored.txt", data: "stored with a descriptor\n", method: 0, dataDescriptor: true }
        ])
      })
      expect((yield* readPath(root, "dd.zip:deflated.txt:20")).output).toContain("20: deflated with a descriptor\n")
      expect((yield* readPath(root, "dd.zip:stored.txt")).output).toContain("1: stored with a descriptor\n")
    }))

  it.effect("a ZIP appended to other bytes (a self-extractor), with and without ZIP64 records", () =>
    Effect.gen(function*() {
      const stub = Buffer.concat([
        Buffer.from("#!/bin/sh\nexec unzip \"$0\"\n"),
        Buffer.from([0, 1, 2, 3]),
        Buffer.alloc(3000, 7)
      ])
      const members = [{ name: "inside.txt", data: "found past the stub\n" }, {
        name: "bin/tool",
        data: Buffer.alloc(100, 0)
      }]
      const root = project({
        "sfx.zip": zip(members, { prefix: stub }),
        "sfx64.zip": zip(members.map((m) => ({ ...m, zip64: true })), { prefix: stub, zip64End: true }),
        "plain64.zip": zip(members.map((m) => ({ ...m, zip64: true })), { zip64End: true })
      })
      yield* expectEachReads(
        root,
        ["sfx.zip", "sfx64.zip", "plain64.zip"],
        ["bin/", "inside.txt (20 bytes)"],
        "inside.txt",
        "found past the stub"
      )
    }))

  // Go's archive/zip testdata: test-trailing-junk.zip and test-prefix.zip end in "some nonsense"
  // after the comment, readme.zip's comment length is one byte short; unzip, Go and Python read all three.
  it.effect("a ZIP followed by other bytes after its end record and comment is read", () =>
    Effect.gen(function*() {
      const members = [{ name: "test.txt", data: "This is a test text file.\n" }, { name: "dir/b.txt", data: "b\n" }]
      const withComment = (archive: Buffer, comment: string, declared = comment.length) => {
        const out = Buffer.concat([archive, Buffer.from(comment)])
        out.writeUInt16LE(declared, archive.length - 2)
        return out
      }
      const junk = Buffer.from("some nonsense\n")
      // Junk holding an end-record signature that leads nowhere is passed over.
      const decoy = Buffer.concat([Buffer.from("PK\x05\x06"), Buffer.alloc(30, 0xee)])
      const root = project({
        "junk.zip": Buffer.concat([zip(members), junk]),
        "comment-junk.zip": Buffer.concat([withComment(zip(members), "This is a zipfile comment."), junk]),
        "short-comment.zip": withComment(zip(members), "README text\n", 11),
        "prefix-junk.zip": Buffer.concat([zip(members, { prefix: Buffer.alloc(500, 7) }), junk]),
        "zip64-junk.zip": Buffer.concat([zip(members.map((m) => ({ ...m, zip64: true })), { zip64End: true }), junk]),
        "decoy.zip": Buffer.concat([zip(members), decoy])
      })
      yield* expectEachReads(
        root,
        ["junk.zip", "comment-junk.zip", "short-comment.zip", "prefix-junk.zip", "zip64-junk.zip", "decoy.zip"],
        ["dir/", "test.txt (26 bytes)"],
        "test.txt",
        "This is a test text file."
      )
    }))

  // Go's archive/zip testdata test-baddirsz.zip: the end record's directory size is wrong, which
  // made the directory look moved by a prefix; unzip and Go read the directory where its offset says.
  it.effect("a wrong central directory size in the end record is not taken for a prefix", () =>
    Effect.gen(function*() {
      const members = [{ name: "test.txt", data: "This is a test text file.\n" }]
      const sized = (delta: number) => {
        const archive = zip(members)
        archive.writeUInt32LE(archive.readUInt32LE(archive.length - 22 + 12) + delta, archive.length - 22 + 12)
        return archive
      }
      const root = project({
        "smaller.zip": sized(-7),
        "larger.zip": sized(5),
        "stub.zip": zip(members, { prefix: Buffer.alloc(64, 1) })
      })
      yield* expectEachReads(
        root,
        ["smaller.zip", "larger.zip", "stub.zip"],
        undefined,
        "test.txt",
        "This is a test text file."
      )
    }))

  it.effect("offsets pointing outside the file are a typed error, not a failed platform read", () =>
    Effect.gen(function*() {
      // Found by the fuzz: the ZIP64 end record's central directory offset with its top bit set.
      const wide = zip([{ name: "a.txt", data: "a\n", zip64: true }], { zip64End: true })
      const record = wide.length - 22 - 20 - 56
      wide.writeBigUInt64LE(2n ** 63n + 100n, record + 48)
      const root = project({ "far.zip": wide })
      expectArchiveError(
        yield* failPath(root, "far.zip"),
        /^Invalid ZIP archive: truncated — data lies past the end of the file/
      )
    }))

  it.effect("Unix symbolic links name their target; FIFOs and devices are described", () =>
    Effect.gen(function*() {
      const root = project({
        "unix.zip": zip([
          { name: "docs/real.txt", data: "real\n" },
          { name: "docs/link", data: "real.txt", method: 0, mode: 0o120777 },
          { name: "escape", data: "../../etc/passwd", method: 0, mode: 0o120777 },
          { name: "fifo", method: 0, mode: 0o010644 },
          { name: "tty", method: 0, mode: 0o020644 }
        ])
      })
      const listing = yield* readPath(root, "unix.zip")
      expect(listing.output).toBe(
        archivePage(`${root}/unix.zip`, ["docs/", "escape (symbolic link)", "fifo (FIFO)", "tty (character device)"], [
          "(4 entries)"
        ])
      )
      expectArchiveError(
        yield* failPath(root, "unix.zip:docs/link"),
        `Archive member 'docs/link' is a symbolic link to 'real.txt'; links inside archives are not followed. Read ${root}/unix.zip:docs/real.txt instead.`
      )
      expectArchiveError(
        yield* failPath(root, "unix.zip:escape"),
        "Archive member 'escape' is a symbolic link to '../../etc/passwd'; links inside archives are not followed."
      )
      expectArchiveError(yield* failPath(root, "unix.zip:fifo"), /^Archive member 'fifo' is a FIFO, not a regular file/)
      expectArchiveError(
        yield* failPath(root, "unix.zip:tty"),
        /^Archive member 'tty' is a character device, not a regular file/
      )
    }))
})
