/**
 * The command line's code cache (src/internal/doors/codeCache.ts): where it lives and who may own
 * it, that it is bounded, that a damaged file never reaches V8, and — through the real bin — that
 * a run leaves a cache the next run uses as it is, with the same answer with or without it.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import { isAscii } from "node:buffer"
import * as fs from "node:fs"
import * as path from "node:path"
import * as vm from "node:vm"
import {
  asciiOnly,
  bundleHash,
  cacheDirectories,
  MAX_FILES,
  ownDirectory,
  readSource,
  toPrune
} from "../src/internal/doors/codeCache.js"
import { runProcess, tempDir, writeTree } from "./support/index.js"

const bin = path.resolve("dist/bin.cjs")

/** The value of a JavaScript literal, or undefined when it is not valid. */
const evaluate = (source: string): string | RegExp | undefined => {
  try {
    return new vm.Script(`(${source})`).runInThisContext() as string | RegExp
  } catch {
    return undefined
  }
}

describe("codeCache", () => {
  it("lives under XDG_CACHE_HOME or ~/.cache, else in the temp directory; off with NODE_DISABLE_COMPILE_CACHE", () => {
    const of = (env: Record<string, string>, home: string) => cacheDirectories(env, home, "/tmp", 1000)
    const temporary = path.join("/tmp", "effect-read-1000")
    expect(of({ XDG_CACHE_HOME: "/x/cache" }, "/home/u")).toEqual([path.join("/x/cache", "effect-read"), temporary])
    expect(of({}, "/home/u")).toEqual([path.join("/home/u", ".cache", "effect-read"), temporary])
    // A relative XDG_CACHE_HOME is invalid by the spec: ignored.
    expect(of({ XDG_CACHE_HOME: "cache" }, "/home/u")).toEqual([
      path.join("/home/u", ".cache", "effect-read"),
      temporary
    ])
    expect(of({}, "")).toEqual([temporary])
    expect(of({ NODE_DISABLE_COMPILE_CACHE: "1" }, "/home/u")).toEqual([])
    expect(of({ NODE_DISABLE_COMPILE_CACHE: "" }, "/home/u")[0]).toBe(path.join("/home/u", ".cache", "effect-read"))
  })

  it("uses only a directory of this user's that no one else may write", () => {
    const root = tempDir()
    const made = path.join(root, "a", "effect-read")
    expect(ownDirectory(made)).toBe(true)
    expect(fs.statSync(made).mode & 0o777).toBe(0o700)
    const open = path.join(root, "open")
    fs.mkdirSync(open)
    fs.chmodSync(open, 0o777)
    expect(ownDirectory(open)).toBe(false)
    const file = path.join(root, "file")
    fs.writeFileSync(file, "")
    expect(ownDirectory(file)).toBe(false)
    const link = path.join(root, "link")
    fs.symlinkSync(made, link)
    expect(ownDirectory(link)).toBe(false)
  })

  it.prop(
    "keeps at most MAX_FILES, deletes the oldest first, never the current one",
    [
      fc.uniqueArray(fc.record({ name: fc.string({ minLength: 1, maxLength: 6 }), mtimeMs: fc.nat(1000) }), {
        selector: (file) => file.name,
        maxLength: 30
      }),
      fc.nat(40)
    ],
    ([files, pick]) => {
      const current = files.length === 0 ? "current" : files[pick % files.length]!.name
      const pruned = toPrune(files, current)
      expect(pruned).not.toContain(current)
      expect(files.length - pruned.length).toBe(Math.min(files.length, MAX_FILES))
      const kept = files.filter((file) => !pruned.includes(file.name) && file.name !== current)
      for (const gone of files.filter((file) => pruned.includes(file.name))) {
        for (const stays of kept) expect(gone.mtimeMs).toBeLessThanOrEqual(stays.mtimeMs)
      }
    }
  )

  it("reads the bundle's hash from its first line only", () => {
    expect(bundleHash("//# effect-read 0123456789abcdef0123\n(function(){})")).toBe("0123456789abcdef0123")
    expect(bundleHash("(function(){})\n//# effect-read 0123456789abcdef0123\n")).toBeUndefined()
    expect(bundleHash(fs.readFileSync("dist/bin-main.cjs", "utf8"))).toMatch(/^[0-9a-f]{32}$/)
  })

  it("the bundle is ASCII and reads as the same text it is in UTF-8; any other file reads as UTF-8", () => {
    const bytes = fs.readFileSync("dist/bin-main.cjs")
    expect(isAscii(bytes)).toBe(true)
    expect(readSource("dist/bin-main.cjs")).toBe(bytes.toString("utf8"))
    const other = path.join(tempDir(), "other.cjs")
    fs.writeFileSync(other, "//# effect-read 0123456789abcdef\n\"caf\u00e9 \u2039\u203a \ud83d\udd17\"\n")
    expect(readSource(other)).toBe(fs.readFileSync(other, "utf8"))
  })

  /** A character other than a line break, a slash or a backslash, from anywhere in Unicode. */
  const char = fc.string({ unit: "grapheme", minLength: 1, maxLength: 1 }).filter((c) =>
    !/[\n\r\u2028\u2029/\\]/.test(c)
  )

  it.prop("asciiOnly: ASCII text whose literals mean what they meant", [
    fc.array(fc.oneof(char, fc.constantFrom("\\", "é", "¶", "‹", "🔗", "a", "[", "]", "^", "-")), {
      maxLength: 12
    }),
    fc.array(fc.string({ unit: "grapheme", maxLength: 4 }), { maxLength: 6 })
  ], ([parts, inputs]) => {
    const body = parts.join("")
    const sources = [
      // A string, a template, and character classes and sequences in regular expressions, with
      // and without the `u` flag (what the bundle's non-ASCII characters sit in).
      JSON.stringify(body),
      `\`${body.replaceAll("\\", "\\\\").replaceAll("`", "\\`").replaceAll("$", "\\$")}\``,
      ...["", "u"].flatMap((flags) => {
        const escaped = body.replace(/[\\^$.*+?()[\]{}|-]/g, (c) => `\\${c}`)
        return [`/[${escaped}]/${flags}`, `/^${escaped}$/${flags}`]
      })
    ]
    for (const source of sources) {
      const original = evaluate(source)
      if (original === undefined) continue
      const ascii = asciiOnly(source)
      expect(/^[\x00-\x7f]*$/.test(ascii)).toBe(true)
      const rewritten = evaluate(ascii)
      if (typeof original === "string") expect(rewritten).toBe(original)
      else {
        for (const input of [body, ...parts, ...inputs]) {
          expect((rewritten as RegExp).test(input)).toBe(original.test(input))
        }
      }
    }
  })

  it("asciiOnly: an identity escape of a character outside ASCII keeps its meaning", () => {
    // `/\é\\é/`: é (escaped for no reason), a backslash, é.
    const source = "/^\\é\\\\é$/"
    expect(asciiOnly(source)).toBe("/^\\u00e9\\\\\\u00e9$/")
    const [before, after] = [evaluate(source), evaluate(asciiOnly(source))] as Array<RegExp>
    for (const input of ["é\\é", "éé", "\\é\\é"]) expect(after!.test(input)).toBe(before!.test(input))
    expect(after!.test("é\\é")).toBe(true)
  })

  describe("through the bin", () => {
    const project = tempDir()
    writeTree(project, { "notes.md": Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join("\n") + "\n" })
    const run = (cacheHome: string, extra: Record<string, string> = {}) =>
      runProcess(process.execPath, [bin, "--cwd", project, "--json", "notes.md"], {
        env: { ...process.env, NODE_DISABLE_COMPILE_CACHE: "", XDG_CACHE_HOME: cacheHome, TMPDIR: tempDir(), ...extra }
      })
    const cacheFiles = (cacheHome: string) => {
      const directory = path.join(cacheHome, "effect-read")
      return fs.existsSync(directory) ? fs.readdirSync(directory).map((name) => path.join(directory, name)) : []
    }

    it("a run leaves one cache; the next uses it as it is and answers the same", async () => {
      const home = tempDir()
      const first = await run(home)
      expect(first.code).toBe(0)
      const files = cacheFiles(home)
      expect(files.map((file) => path.basename(file))).toEqual([expect.stringMatching(/^cli-[0-9a-f]{32}-.+\.v8$/)])
      expect(fs.statSync(files[0]!).mode & 0o777).toBe(0o600)
      expect(fs.statSync(path.dirname(files[0]!)).mode & 0o777).toBe(0o700)
      const written = fs.readFileSync(files[0]!)
      const second = await run(home)
      expect(second).toEqual(first)
      // Accepted by V8: not written again.
      expect(fs.readFileSync(files[0]!)).toEqual(written)
      const uncached = await run(tempDir(), { NODE_DISABLE_COMPILE_CACHE: "1" })
      expect(uncached).toEqual(first)
    })

    it("a damaged cache is not used, the answer is the same, and a sound one replaces it", async () => {
      const home = tempDir()
      const first = await run(home)
      const [file] = cacheFiles(home)
      const damaged = fs.readFileSync(file!)
      damaged[damaged.length >> 1] = damaged[damaged.length >> 1]! ^ 0xff
      fs.writeFileSync(file!, damaged)
      // V8 refuses it (its checksum, VERIFY_CHECKSUM_FLAG): compiled anew, and a sound cache
      // written, which the next run uses as it is.
      expect(await run(home)).toEqual(first)
      const replaced = fs.readFileSync(file!)
      expect(replaced).not.toEqual(damaged)
      expect(await run(home)).toEqual(first)
      expect(fs.readFileSync(file!)).toEqual(replaced)
      fs.writeFileSync(file!, "")
      expect(await run(home)).toEqual(first)
      expect(fs.readFileSync(file!).length).toBeGreaterThan(0)
    })

    it("an MCP run's cache is partial until a run has answered a read, which replaces it", async () => {
      const home = tempDir()
      const line = (message: unknown) => `${JSON.stringify(message)}\n`
      const initialize = line({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "test", version: "1" } }
      })
      const read = line({ jsonrpc: "2.0", method: "notifications/initialized" }) +
        line({
          jsonrpc: "2.0",
          id: 2,
          method: "tools/call",
          params: { name: "read", arguments: { filePath: "notes.md" } }
        })
      const mcp = (input: string) =>
        runProcess(process.execPath, [bin, "mcp", "--cwd", project], {
          env: { ...process.env, NODE_DISABLE_COMPILE_CACHE: "", XDG_CACHE_HOME: home, TMPDIR: tempDir() },
          input
        })
      const names = () => cacheFiles(home).map((file) => path.basename(file))
      // A probe (initialize alone) leaves a partial cache; a second probe uses it and writes nothing.
      const probe = await mcp(initialize)
      expect(probe.code).toBe(0)
      expect(names()).toEqual([expect.stringMatching(/^mcp-[0-9a-f]{32}-.+-partial\.v8$/)])
      const partial = fs.readFileSync(cacheFiles(home)[0]!)
      expect(await mcp(initialize)).toEqual(probe)
      expect(fs.readFileSync(cacheFiles(home)[0]!)).toEqual(partial)
      // A session that answers a read replaces it with a complete cache, which later runs keep.
      const session = await mcp(initialize + read)
      expect(session.stdout).toContain("line 30")
      expect(names()).toEqual([expect.stringMatching(/^mcp-[0-9a-f]{32}-[^-]+-node\.\d+-\w+\.v8$/)])
      const complete = fs.readFileSync(cacheFiles(home)[0]!)
      expect(await mcp(initialize + read)).toEqual(session)
      expect(await mcp(initialize)).toEqual(probe)
      expect(names()).toHaveLength(1)
      expect(fs.readFileSync(cacheFiles(home)[0]!)).toEqual(complete)
    })

    it("writes nothing when off; not in a directory open to others, in the temp directory instead", async () => {
      const off = tempDir()
      const offTemporary = tempDir()
      expect((await run(off, { NODE_DISABLE_COMPILE_CACHE: "1", TMPDIR: offTemporary })).code).toBe(0)
      expect(fs.readdirSync(off)).toEqual([])
      expect(fs.readdirSync(offTemporary)).toEqual([])
      const open = tempDir()
      fs.mkdirSync(path.join(open, "effect-read"), { mode: 0o777 })
      fs.chmodSync(path.join(open, "effect-read"), 0o777)
      const temporary = tempDir()
      expect((await run(open, { TMPDIR: temporary })).code).toBe(0)
      expect(cacheFiles(open)).toEqual([])
      const own = path.join(temporary, `effect-read-${process.getuid?.() ?? "user"}`)
      expect(fs.readdirSync(own)).toEqual([expect.stringMatching(/^cli-.+\.v8$/)])
      expect(fs.statSync(own).mode & 0o777).toBe(0o700)
    })
  })
})
