import { describe, expect, it } from "@effect/vitest"
import * as Option from "effect/Option"
import type { SpawnOptions } from "node:child_process"
import * as fs from "node:fs"
import { builtinModules } from "node:module"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import * as CliArgs from "../src/internal/doors/cliArgs.js"
import { paramsOf, readOptions } from "../src/internal/doors/readOptions.js"
import { ReadParams } from "../src/Read.js"
import { runProcess, tempDir, writeTree } from "./support/index.js"
import { unprivilegedCli } from "./support/unprivileged.js"

/** The command as installed: package.json's `bin`. */
const bin = path.resolve("dist/bin.cjs")

const run = (args: ReadonlyArray<string>, options: SpawnOptions = {}) =>
  runProcess(process.execPath, [bin, ...args], options)

describe("CLI", () => {
  const root = tempDir()
  writeTree(root, {
    "src/app.ts": "import x from \"y\"\nexport const a = 1\n",
    "notes.md": Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join("\n"),
    "config.json": "{}\n"
  })
  const outside = tempDir("effect-read-outside-")
  writeTree(outside, { "secret.txt": "outside\n" })

  it("prints exactly the tool output and exits 0", async () => {
    const { code, stderr, stdout } = await run(["--cwd", root, "src/app.ts"])
    expect(code).toBe(0)
    expect(stderr).toBe("")
    expect(stdout).toBe(
      `<path>${root}/src/app.ts</path>\n<type>file</type>\n<content>\n1: import x from "y"\n2: export const a = 1\n\n(End of file - total 2 lines)\n</content>\n`
    )
  })

  it("--next-header puts the range shown and the next call before the output", async () => {
    const { code, stdout } = await run(["--cwd", root, "--next-header", "--limit", "3", "notes.md"])
    expect(code).toBe(0)
    expect(stdout.split("\n").slice(0, 2)).toEqual([
      "(Lines 1-3 of 10 shown. Next: read {\"filePath\":\"notes.md\",\"offset\":4,\"limit\":3})",
      `<path>${root}/notes.md</path>`
    ])
    expect((await run(["--cwd", root, "--limit", "3", "notes.md"])).stdout.startsWith("<path>")).toBe(true)
  })

  it("--version is package.json's version (read in one place, as the MCP server's serverInfo is)", async () => {
    const { code, stdout } = await run(["--version"])
    expect(code).toBe(0)
    expect(stdout.trim()).toBe(JSON.parse(fs.readFileSync("package.json", "utf8")).version)
  })

  it("the command is dist/bin.cjs (package.json's bin and ./bin); node dist/bin.js runs the same command", async () => {
    const manifest = JSON.parse(fs.readFileSync("package.json", "utf8"))
    expect(path.resolve(manifest.bin["effect-read"])).toBe(bin)
    expect(path.resolve(manifest.exports["./bin"])).toBe(bin)
    expect(fs.readFileSync(bin, "utf8").startsWith("#!/usr/bin/env node\n")).toBe(true)
    expect(fs.statSync(bin).mode & 0o111).not.toBe(0)
    const shim = path.resolve("dist/bin.js")
    for (const args of [["--cwd", root, "--json", "notes.md"], ["--cwd", root, "nope.md"], ["--version"]]) {
      const [direct, viaShim] = await Promise.all([run(args), runProcess(process.execPath, [shim, ...args])])
      expect(viaShim).toEqual(direct)
    }
  })

  it("grows the young generation 16 times at a scavenge (fewer at start); a process's own factor is kept", async () => {
    // Compiled from source (no code cache) both times: the same work, V8's flags apart.
    const scavenges = async (flags: ReadonlyArray<string>) => {
      const { code, stdout } = await runProcess(process.execPath, [
        "--trace-gc",
        ...flags,
        bin,
        "--cwd",
        root,
        "--json",
        "notes.md"
      ], { env: { ...process.env, NODE_DISABLE_COMPILE_CACHE: "1" } })
      expect(code).toBe(0)
      return stdout.split("\n").filter((line) => line.includes("Scavenge")).length
    }
    const [ours, theirs] = await Promise.all([scavenges([]), scavenges(["--semi-space-growth-factor=2"])])
    expect(ours).toBeGreaterThan(0)
    expect(ours).toBeLessThan(theirs)
  })

  it("many: several files in order, a failing one in place, exit 1; --glob; --json", async () => {
    const mixed = await run(["many", "--cwd", root, "src/app.ts", "nope.md", "config.json"])
    expect(mixed.code).toBe(1)
    expect(mixed.stdout.indexOf("src/app.ts")).toBeLessThan(mixed.stdout.indexOf("<path>nope.md</path>\n<error>"))
    expect(mixed.stdout.indexOf("nope.md")).toBeLessThan(mixed.stdout.indexOf("config.json"))
    expect(mixed.stdout).toContain("1: {}")
    const globbed = await run(["many", "--cwd", root, "--glob", "**/*.json", "--json"])
    expect(globbed.code).toBe(0)
    const parsed = JSON.parse(globbed.stdout)
    expect(parsed.files.map((file: { filePath: string }) => file.filePath)).toEqual(["config.json"])
    const none = await run(["many", "--cwd", root])
    expect(none.code).toBe(2)
    expect(none.stderr).toContain("name at least one file")
  })

  it.each(
    [
      ["a read", (cwd: string) => ["--cwd", cwd, "src/app.ts"]],
      ["mcp", (cwd: string) => ["mcp", "--cwd", cwd]],
      ["mcp, --cwd before the subcommand", (cwd: string) => ["--cwd", cwd, "mcp"]],
      ["many", (cwd: string) => ["many", "--cwd", cwd, "src/app.ts"]]
    ] as const
  )(
    "%s: a --cwd that is not a directory is a usage error at start (exit 2), not a session of misses",
    async (_, args) => {
      const missing = path.join(root, "no-such-dir")
      // A server that started anyway would exit 0 when its stdin (empty here) ends.
      const gone = await run(args(missing))
      expect(gone.code).toBe(2)
      expect(gone.stdout).toBe("")
      expect(gone.stderr).toBe(`effect-read: --cwd ${missing}: no such directory\n`)
      const file = await run(args(path.join(root, "notes.md")))
      expect(file.code).toBe(2)
      expect(file.stderr).toBe(`effect-read: --cwd ${path.join(root, "notes.md")}: not a directory (a file)\n`)
    }
  )

  it("resolves relative paths against the process cwd by default", async () => {
    const { code, stdout } = await run(["notes.md", "--offset", "3", "--limit", "2"], { cwd: root })
    expect(code).toBe(0)
    expect(stdout).toContain("3: line 3\n4: line 4\n\n(Showing lines 3-4 of 10. Use offset=5 to continue.)")
  })

  it("reads on inside a cut line with --column, and takes selectors in the path", async () => {
    fs.writeFileSync(path.join(root, "long.txt"), "a".repeat(2500) + "\nnext\n")
    const rest = await run(["--cwd", root, "--offset", "1", "--column", "2001", "long.txt"])
    expect(rest.code).toBe(0)
    expect(rest.stdout).toContain(`1: ${"a".repeat(500)}\n2: next\n`)
    expect(rest.stdout).toContain("(Line 1 is shown from character 2001.)")
    const selected = await run(["--cwd", root, "notes.md:3-4"])
    expect(selected.stdout).toContain("3: line 3\n4: line 4\n\n(Showing lines 3-4 of 10. Use offset=5 to continue.)")
    // A negative offset is a tail; --view conflicts shows the merge-conflict regions.
    const tail = await run(["--cwd", root, "--offset", "-2", "notes.md"])
    expect(tail.code).toBe(0)
    expect(tail.stdout).toContain("9: line 9\n10: line 10\n\n(Showing the last 2 lines: 9-10 of 10.")
    const conflicts = await run(["--cwd", root, "--view", "conflicts", "notes.md"])
    expect(conflicts.code).toBe(0)
    expect(conflicts.stdout).toContain(
      "(No unresolved merge conflicts: no <<<<<<< marker at the start of any of the 10 lines.)"
    )
  })

  it("prints the ReadResult as one JSON object with --json", async () => {
    const { code, stdout } = await run(["--cwd", root, "--json", "src"])
    expect(code).toBe(0)
    const result = JSON.parse(stdout)
    expect(result.title).toBe("src")
    expect(result.metadata.kind).toBe("directory")
    expect(result.output).toContain("<entries>\napp.ts\n\n(1 entry)\n</entries>")
  })

  it("reports a tool failure on stderr with exit 1", async () => {
    const { code, stderr, stdout } = await run(["--cwd", root, "config.jsn"])
    expect(code).toBe(1)
    expect(stdout).toBe("")
    expect(stderr).toBe(`File not found: ${root}/config.jsn\n\nDid you mean one of these?\n${root}/config.json\n`)
  })

  it("reports a tool failure as {error} JSON with --json", async () => {
    const { code, stdout } = await run(["--cwd", root, "--json", "config.jsn"])
    expect(code).toBe(1)
    expect(JSON.parse(stdout)).toEqual({
      error: {
        _tag: "FileNotFound",
        message: `File not found: ${root}/config.jsn\n\nDid you mean one of these?\n${root}/config.json`,
        path: `${root}/config.jsn`,
        suggestions: [`${root}/config.json`]
      }
    })
  })

  it("exits 2 on usage errors", async () => {
    expect((await run([])).code).toBe(2)
    expect((await run(["--no-such-flag", "x"])).code).toBe(2)
    expect((await run(["--offset", "abc", "x"])).code).toBe(2)
    const zero = await run(["--cwd", root, "--limit", "0", "notes.md"])
    expect(zero.code).toBe(2)
    expect(zero.stderr).toContain("limit must be at least 1")
    const view = await run(["--cwd", root, "--view", "sideways", "notes.md"])
    expect(view.code).toBe(2)
  })

  it("denies reads outside the project without a terminal", async () => {
    const { code, stderr, stdout } = await run(["--cwd", root, path.join(outside, "secret.txt")])
    expect(code).toBe(1)
    expect(stdout).toBe("")
    expect(stderr).toContain(`Permission denied: reading outside the project (${outside}/*)`)
  })

  it("allows reads outside the project with --allow-external", async () => {
    const { code, stdout } = await run(["--cwd", root, "--allow-external", path.join(outside, "secret.txt")])
    expect(code).toBe(0)
    expect(stdout).toContain("1: outside")
  })

  it("asks on a terminal before reading outside the project", async () => {
    // `script` gives the CLI a real pseudo-terminal; the answer is typed on it.
    const command = `${process.execPath} ${bin} --cwd ${root} ${path.join(outside, "secret.txt")}`
    const yes = await runProcess("script", ["-qec", command, "/dev/null"], { input: "y\n" })
    expect(yes.stdout).toContain(
      `allow reading outside the project (${outside}/*) (it is outside the project)? [y]es / [a]lways / [N]o`
    )
    expect(yes.stdout).toContain("1: outside")
    expect(yes.code).toBe(0)
    const no = await runProcess("script", ["-qec", command, "/dev/null"], { input: "n\n" })
    // Told to the person at the terminal, with the flag that allows it.
    expect(no.stdout).toContain(
      `effect-read: reading outside the project (${outside}/*) was refused: you said no. To allow it, run effect-read with --allow-external.`
    )
    expect(no.code).toBe(1)
  })

  it("tells a person at a terminal that nobody could be asked, and the flag; a pipe gets the model's words", async () => {
    // stderr a terminal, stdin not: there is nobody to ask.
    const command = `${process.execPath} ${bin} --cwd ${root} ${path.join(outside, "secret.txt")} </dev/null`
    const person = await runProcess("script", ["-qec", command, "/dev/null"])
    expect(person.code).toBe(1)
    expect(person.stdout).toBe(
      `effect-read: reading outside the project (${outside}/*) was refused: it needs your approval, and there is no ` +
        "terminal to ask on. To allow it, run effect-read with --allow-external.\r\n"
    )
    const envFile = await runProcess("script", [
      "-qec",
      `${process.execPath} ${bin} --cwd ${outside} .env </dev/null`,
      "/dev/null"
    ])
    expect(envFile.stdout).toContain(
      "effect-read: reading .env was refused: it needs your approval, and there is no terminal to ask on. " +
        "To allow it, run effect-read with --allow '.env' (or --mask-secrets, which shows env files with their values masked), or with " +
        "a rule in a --rules file."
    )
    const piped = await run(["--cwd", root, path.join(outside, "secret.txt")])
    expect(piped.stderr).toBe(
      `Permission denied: reading outside the project (${outside}/*) needs the user's approval, and the user could not be asked ` +
        "(there is no terminal to ask on). Do not retry it. To allow it, the user can run effect-read with --allow-external.\n"
    )
  })

  it("names the path when the operating system refuses access (EACCES)", async () => {
    const dir = tempDir()
    fs.chmodSync(dir, 0o755)
    const locked = path.join(dir, "locked.txt")
    fs.writeFileSync(locked, "private\n")
    fs.chmodSync(locked, 0o000)
    // root reads anything, so as root the CLI runs as nobody, from a place nobody can enter.
    const cli = unprivilegedCli()
    const { code, stderr } = await runProcess(process.execPath, [cli.bin, "--cwd", dir, "locked.txt"], cli.asUser)
    expect(code).toBe(1)
    expect(stderr).toBe(`Cannot read ${locked}: permission denied by the operating system (EACCES)\n`)
  })

  it("--format text|json is the same as the default and --json", async () => {
    expect((await run(["--cwd", root, "--format", "text", "src/app.ts"])).stdout).toBe(
      (await run(["--cwd", root, "src/app.ts"])).stdout
    )
    const json = await run(["--cwd", root, "--format", "json", "src"])
    expect(json.code).toBe(0)
    expect(json.stdout).toBe((await run(["--cwd", root, "--json", "src"])).stdout)
    expect((await run(["--cwd", root, "--json", "--format", "json", "src"])).stdout).toBe(json.stdout)
  })

  it("exits 2 when flags conflict or the path is missing", async () => {
    const conflict = await run(["--cwd", root, "--json", "--format", "envelope", "notes.md"])
    expect(conflict).toEqual({ code: 2, stdout: "", stderr: "effect-read: --json conflicts with --format envelope\n" })
    const filesOnly = await run(["--cwd", root, "--files-only", "notes.md"])
    expect(filesOnly).toEqual({ code: 2, stdout: "", stderr: "effect-read: --files-only needs --format envelope\n" })
    const missing = await run(["--cwd", root])
    expect(missing.code).toBe(2)
    expect(missing.stdout).toBe("")
    expect(missing.stderr).toBe("effect-read: missing <filePath> (or a command: mcp, many); see --help\n")
    expect((await run(["--format", "xml", "notes.md"], { cwd: root })).code).toBe(2)
  })

  it("lists the mcp command in its help, and says how to read a path named like a command", async () => {
    const { code, stdout } = await run(["--help"])
    expect(code).toBe(0)
    expect(stdout).toContain("mcp")
    expect(stdout).toContain("--format")
    expect(stdout).toContain("is read when written as a path (./many) or after -- (effect-read -- many)")
  })

  it("prints help and usage errors without colour codes when piped or with NO_COLOR, in colour on a terminal", async () => {
    const escape = "\x1b["
    for (const args of [["--help"], ["mcp", "--help"], ["--version"]]) {
      const piped = await run(args)
      expect(piped.code).toBe(0)
      expect(piped.stdout).not.toContain(escape)
    }
    const invalid = await run(["--view", "sideways", "notes.md"], { cwd: root })
    expect(invalid.code).toBe(2)
    expect(invalid.stderr).not.toBe("")
    expect(invalid.stderr).not.toContain(escape)
    const terminal = await runProcess("script", ["-qec", `${process.execPath} ${bin} --help`, "/dev/null"])
    expect(terminal.stdout).toContain(escape)
    const noColor = await runProcess("script", ["-qec", `${process.execPath} ${bin} --help`, "/dev/null"], {
      env: { ...process.env, NO_COLOR: "1" }
    })
    expect(noColor.stdout).toContain("USAGE")
    expect(noColor.stdout).not.toContain(escape)
    // A result is printed as it is: escape codes in a file reach stdout untouched.
    fs.writeFileSync(path.join(root, "colours.log"), `${escape}31mred${escape}0m\n`)
    expect((await run(["--cwd", root, "colours.log"])).stdout).toContain(`1: ${escape}31mred${escape}0m`)
  })

  it("has an option for every parameter of a read, named and typed from ReadParams, and passes each on", async () => {
    const fields = Object.keys(ReadParams.fields).filter((name) => name !== "filePath")
    expect(Object.keys(readOptions)).toEqual(fields)
    const { stdout } = await run(["--help"])
    for (const name of fields) expect(stdout).toContain(`--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`)
    // Each option reaches the read: the same answer as the read with that parameter.
    const given = ["--offset", "2", "--limit", "3", "--encoding", "utf-8", "--line-format", "hashline", "--json"]
    const parsed = JSON.parse((await run(["--cwd", root, "notes.md", ...given])).stdout)
    expect(parsed.metadata).toMatchObject({ startLine: 2, endLine: 4, lineFormat: "hashline", encoding: "utf-8" })
    // Typed as the parameter: a choice lists its values, a whole number refuses a fraction.
    const bogus = await run(["--cwd", root, "--view", "bogus", "notes.md"])
    expect(bogus.code).toBe(2)
    expect(bogus.stdout + bogus.stderr).toContain("outline")
    expect((await run(["--cwd", root, "--levels", "1.5", "notes.md"])).code).toBe(2)
    expect(
      paramsOf({ ...Object.fromEntries(fields.map((name) => [name, Option.none()])), offset: Option.some(4) } as never)
    )
      .toEqual({ offset: 4 })
  })

  /**
   * Every module a run of the bin loads, ES (a resolve hook) or CommonJS (Module._load), its output,
   * and the functions of the bundle (`bin-main.cjs`) that ran, with their source ranges (V8's precise
   * coverage, `NODE_V8_COVERAGE`).
   */
  const loadedBy = async (args: ReadonlyArray<string>, input = "") => {
    const dir = tempDir()
    const trace = path.join(dir, "loaded.txt")
    fs.writeFileSync(
      path.join(dir, "hooks.mjs"),
      `import { appendFileSync } from "node:fs"
      export async function resolve(specifier, context, next) {
        const resolved = await next(specifier, context)
        appendFileSync(${JSON.stringify(trace)}, resolved.url + "\\n")
        return resolved
      }`
    )
    const preload = path.join(dir, "trace.cjs")
    fs.writeFileSync(
      preload,
      `const Module = require("node:module")
      const { appendFileSync } = require("node:fs")
      Module.register(${JSON.stringify(pathToFileURL(path.join(dir, "hooks.mjs")).href)})
      const load = Module._load
      Module._load = function(request, ...rest) {
        appendFileSync(${JSON.stringify(trace)}, request + "\\n")
        return load.call(this, request, ...rest)
      }`
    )
    const coverage = path.join(dir, "coverage")
    const result = await runProcess(process.execPath, ["--require", preload, bin, ...args], {
      input,
      // The code cache off: this asks which functions of the bundle ran, and a clean-clone CI run
      // (shared ~/.cache, many bins at once) once got no coverage of the bundle three runs in a row.
      env: { ...process.env, NODE_V8_COVERAGE: coverage, NODE_DISABLE_COMPILE_CACHE: "1" }
    })
    const loaded = fs.readFileSync(trace, "utf8").split("\n").filter((l) => l !== "")
    // The trace may name the tracer's own hooks module (seen from a fresh clone): not the bin's.
    const tracer = pathToFileURL(path.join(dir, "hooks.mjs")).href
    const scripts = fs.readdirSync(coverage).flatMap((name) =>
      (JSON.parse(fs.readFileSync(path.join(coverage, name), "utf8")) as {
        result: Array<{ url: string; functions: Array<{ ranges: Array<Range> }> }>
      }).result
    )
    const ran = scripts.filter((script) => script.url === pathToFileURL(main).href)
      .flatMap((script) => script.functions.flatMap((f) => f.ranges))
    return { ...result, loaded: loaded.filter((l) => l !== tracer), ran }
  }
  /**
   * `loadedBy`, run again (twice at most) when V8's coverage names no function of the bundle: seen
   * once under heavy load, a coverage file without the script, most likely collected before the
   * report (the bundle is a `vm.Script`); the run's answer was right.
   */
  const coveredRun = async (args: ReadonlyArray<string>, input = "") => {
    for (let attempt = 1;; attempt++) {
      const result = await loadedBy(args, input)
      if (result.ran.length > 0 || attempt === 3) return result
    }
  }
  interface Range {
    readonly startOffset: number
    readonly endOffset: number
    readonly count: number
  }
  const main = path.resolve("dist/bin-main.cjs")
  const mainSource = fs.readFileSync(main, "utf8")

  /**
   * Whether the code at `marker` (a string a module evaluates as it loads: a span name, a symbol
   * key) ran: the count of the smallest range of V8's block coverage that holds it.
   */
  const ranAround = (ran: ReadonlyArray<Range>, marker: string): boolean => {
    const at = mainSource.indexOf(marker)
    expect(at).toBeGreaterThan(0)
    expect(mainSource.indexOf(marker, at + 1)).toBe(-1)
    const holding = ran.filter((r) => r.startOffset <= at && at < r.endOffset)
      .sort((a, b) => (a.endOffset - a.startOffset) - (b.endOffset - b.startOffset))
    return holding[0]!.count > 0
  }

  /** What a run loaded besides the bin and Node's built-ins. */
  const othersThan = (loaded: ReadonlyArray<string>) =>
    loaded.filter((l) => l !== bin && !l.startsWith("node:") && !builtinModules.includes(l))

  /** Markers of the lazy parts: the command-line parser, the MCP server, the sources a text file does not need. */
  const lazyParts = {
    cli: "\"@effect/cli/Command\"",
    mcp: "\"effect-read/session\"",
    archive: "\"Read.archive\"",
    database: "\"Read.database\"",
    document: "\"Read.document\"",
    notebook: "\"Read.notebook\"",
    web: "\"Web.fetch\""
  }

  it("is bundled: a text read loads no module but the bin, runs no lazy part of the bundle, and loads no package", async () => {
    const result = await coveredRun(["--cwd", root, "--json", "notes.md"])
    expect(result.stderr).toBe("")
    expect(JSON.parse(result.stdout).output).toContain("10: line 10")
    // The bin is CommonJS, loaded by path: Node's ES module loader resolved nothing.
    expect(result.loaded).toContain(bin)
    expect(result.loaded.filter((l) => l.startsWith("file:"))).toEqual([])
    // Besides the bin (which reads the bundle and compiles it itself): only Node's built-ins
    // (CommonJS code names them without the node: prefix).
    expect(othersThan(result.loaded)).toEqual([])
    // Nor the built-ins a read does not use: a command line read records no hash, asks nothing
    // on a terminal, and reads no file through promises (scripts/bundle.mjs, lazyBuiltins).
    const builtins = result.loaded.map((l) => l.replace(/^node:/, ""))
    for (const unused of ["crypto", "readline", "fs/promises"]) expect(builtins).not.toContain(unused)
    // The bundle ran, but not the command-line parser (`Cli`, with @effect/cli), the MCP server,
    // nor the sources of archives, databases, documents, notebooks or web pages.
    expect(result.ran.length).toBeGreaterThan(0)
    for (const [part, marker] of Object.entries(lazyParts)) {
      expect([part, ranAround(result.ran, marker)]).toEqual([part, false])
    }
  })

  it("mcp answers initialize without the command-line parser (@effect/cli) or any package outside the bundle", async () => {
    const initialize = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "test", version: "1" } }
    })
    const result = await coveredRun(["mcp", "--cwd", root], `${initialize}\n`)
    expect(result.ran.length).toBeGreaterThan(0)
    expect(JSON.parse(result.stdout.split("\n")[0]!).result.serverInfo.name).toBe("effect-read")
    // Not ajv (the SDK's validator loads at the first form answer).
    expect(othersThan(result.loaded)).toEqual([])
    expect(ranAround(result.ran, lazyParts.mcp)).toBe(true)
    const { mcp: _, ...others } = lazyParts
    for (const [part, marker] of Object.entries(others)) {
      expect([part, ranAround(result.ran, marker)]).toEqual([part, false])
    }
  })

  describe("a path named like a command (mcp, many)", () => {
    const here = tempDir()
    writeTree(here, { "many/inside.txt": "inside many\n", "mcp": "the file named mcp\n" })
    const elsewhere = tempDir()
    const also = (name: string, kind: string) =>
      `effect-read: ${name} is also ${kind} in ${here}: to read it, write it as a path (effect-read ./${name}) or after -- ` +
      `(effect-read -- ${name}).\n`

    it("is read when written as a path or after --", async () => {
      for (const args of [["./many"], ["--", "many"], ["--cwd", here, "--", "many"], ["many", "--", "many"]]) {
        const read = await run(args, { cwd: here })
        expect(read.code).toBe(0)
        expect(read.stdout).toContain(`<path>${here}/many</path>\n<type>directory</type>\n<entries>\ninside.txt\n`)
      }
      for (const args of [["./mcp"], ["--", "mcp"], ["--offset", "1", "--", "mcp"]]) {
        const read = await run(args, { cwd: here })
        expect(read.code).toBe(0)
        expect(read.stdout).toContain("1: the file named mcp\n")
      }
      // After a subcommand, -- ends its options: `many -- --glob` reads a file named --glob.
      fs.writeFileSync(path.join(here, "--glob"), "dashes\n")
      const dashed = await run(["many", "--", "--glob"], { cwd: here })
      expect(dashed.code).toBe(0)
      expect(dashed.stdout).toContain("1: dashes")
    })

    it("many without files is a usage error that says the directory of that name can be read", async () => {
      const none = await run(["many"], { cwd: here })
      expect(none).toEqual({
        code: 2,
        stdout: "",
        stderr: "effect-read: many: name at least one file, or give --glob.\n" + also("many", "a directory")
      })
      const withCwd = await run(["--cwd", here, "many"])
      expect(withCwd.stderr).toBe(
        "effect-read: many: name at least one file, or give --glob.\n" + also("many", "a directory")
      )
      // Without such a path, only the usage error.
      expect((await run(["many"], { cwd: elsewhere })).stderr).toBe(
        "effect-read: many: name at least one file, or give --glob.\n"
      )
    })

    it("a subcommand given words it does not take is a usage error, never a server started or files misread", async () => {
      const offset = await run(["mcp", "--offset", "3"], { cwd: here })
      expect(offset).toEqual({
        code: 2,
        stdout: "",
        stderr: "effect-read: mcp does not take the option --offset; see effect-read mcp --help.\n" +
          also("mcp", "a file")
      })
      const extra = await run(["mcp", "notes.md"], { cwd: here })
      expect(extra).toEqual({
        code: 2,
        stdout: "",
        stderr:
          "effect-read: mcp takes no paths (it serves MCP on stdin and stdout), and was given notes.md; see effect-read mcp --help.\n" +
          also("mcp", "a file")
      })
      // `many --offset 3` read files named --offset and 3.
      const many = await run(["many", "--offset", "3", "notes.md"], { cwd: elsewhere })
      expect(many).toEqual({
        code: 2,
        stdout: "",
        stderr: "effect-read: many does not take the option --offset; see effect-read many --help.\n"
      })
      // Its own options, before or after its name, still work.
      const own = await run(["--allow-external", "many", "--json", "--cwd", here, "mcp"])
      expect(own.code).toBe(0)
      expect(JSON.parse(own.stdout).files[0].filePath).toBe("mcp")
    })

    it("a read given a value of the wrong kind, an option it does not take or two paths: the error names it", async () => {
      // @effect/cli said "'abc' is not a integer", "Expected one of the following cases: …" and,
      // for an unknown option or a second path, "Invalid subcommand for effect-read".
      const usage = (stderr: string) => ({ code: 2, stdout: "", stderr: `effect-read: ${stderr}\n` })
      expect(await run(["--offset", "abc", "notes.md"], { cwd: root })).toEqual(
        usage(`--offset takes a whole number, and was given "abc"; see effect-read --help.`)
      )
      expect(await run(["notes.md", "--limit=2.5"], { cwd: root })).toEqual(
        usage(`--limit takes a whole number, and was given "2.5"; see effect-read --help.`)
      )
      expect(await run(["--view", "nope", "notes.md"], { cwd: root })).toEqual(
        usage(
          `--view takes list, tree, outline, summary, block or conflicts, and was given "nope"; see effect-read --help.`
        )
      )
      expect(await run(["--nope", "notes.md"], { cwd: root })).toEqual(
        usage("unknown option --nope; see effect-read --help.")
      )
      expect(await run(["notes.md", "other.md"], { cwd: root })).toEqual(
        usage(
          "one path at a time (given 2: notes.md other.md); to read several: effect-read many notes.md other.md; see effect-read --help."
        )
      )
      expect(await run(["mcp", "--ask-timeout", "soon"], { cwd: elsewhere })).toEqual(
        usage(`--ask-timeout takes a number, and was given "soon"; see effect-read mcp --help.`)
      )
      // What each kind takes still reads: a negative offset, a value after =, a number in seconds.
      const tail = await run(["--offset", "-1", "--limit=1", "notes.md"], { cwd: root })
      expect(tail.code).toBe(0)
    })

    it("the words are scanned with each command's own options, as its --help lists them", async () => {
      for (const command of ["read", ...CliArgs.subcommands] as const) {
        const help = await run(command === "read" ? ["--help"] : [command, "--help"])
        const usage = help.stdout.split("\n").find((line) => line.startsWith("$ "))!
        const values = Array.from(usage.matchAll(/--([a-z-]+) (?=[^-[\s])/g), (m) => m[1])
        const flags = Array.from(usage.matchAll(/--([a-z-]+)\]/g), (m) => m[1])
        expect([...CliArgs.options[command].values].sort()).toEqual(values.sort())
        expect([...CliArgs.options[command].flags].sort()).toEqual(flags.sort())
      }
    })

    it("mcp started on a terminal says the file of that name is there, and serves", async () => {
      const command = `${process.execPath} ${bin} mcp --cwd ${here}`
      // Ctrl-D ends the server's input on the terminal.
      const child = runProcess("script", ["-qec", command, "/dev/null"], { input: "\x04" })
      const { code, stdout } = await child
      expect(code).toBe(0)
      expect(stdout).toContain(
        `effect-read: serving MCP on stdin and stdout. ${also("mcp", "a file").slice("effect-read: ".length, -1)}`
      )
    })
  })

  it("runs the same through npm start", async () => {
    const result = await runProcess("npm", ["start", "--silent", "--", "--cwd", root, "src/app.ts"])
    expect(result.code).toBe(0)
    expect(result.stdout).toContain("2: export const a = 1")
  })
})
