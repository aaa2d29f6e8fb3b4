#!/usr/bin/env node
/**
 * The consumer test: effect-read as users install it, from the tarballs `npm pack` makes, into
 * fresh projects outside this repository (no dev dependencies, no workspace, no .npmrc of ours).
 *
 * 1. Lean: the README's own install command (its "Install" section, the tarball's path put in) in
 *    an empty project: the library next to effect, @effect/platform and @effect/platform-node.
 *    The API program of the README reads a file; `npx effect-read <file>` and `npx effect-read mcp`
 *    (initialize, then a tools/call read, as plain JSON-RPC over stdio) answer; `npm ls effect`
 *    shows one copy; no package the library added has an install script; the added size and the
 *    install time are printed. The entry points that need an optional peer the lean project lacks
 *    (`effect-read/ReadTool`, …) fail with the package to install; a TypeScript program importing
 *    the library compiles with `skipLibCheck: false` (our declarations name no package the
 *    project does not have).
 * 2. Full: `npm install effect-read-full` (one command, here the two tarballs) into an empty
 *    project; `npx effect-read-full` reads a PDF's text, an image (downscaled by sharp), an .xlsx and
 *    a SQLite table, and `npx effect-read-full mcp` reads the PDF over MCP. A TypeScript program
 *    importing every entry point compiles with `skipLibCheck: false`.
 *
 * 3. The README's MCP client configuration (the bin of this checkout, as from a clone) answers
 *    initialize and a read.
 *
 * Run after `npm run build` (dist/ is packed as it is). Needs the npm registry.
 * `node .ci/consumer.mjs [--keep]`: --keep leaves the temporary projects for a look.
 */
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const rootPackage = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"))
const fullDir = path.join(root, "packages", "effect-read-full")
const grammarsDir = path.join(root, "packages", "effect-read-grammars")
const work = fs.mkdtempSync(path.join(os.tmpdir(), "effect-read-consumer-"))
const keep = process.argv.includes("--keep")
const npm = process.platform === "win32" ? "npm.cmd" : "npm"
const started = Date.now()
const figures = []

const fail = (message) => {
  console.error(`consumer test FAILED: ${message}\n(projects in ${work})`)
  process.exit(1)
}
const check = (condition, message) => {
  if (!condition) fail(message)
}

/** Runs a command to completion; its output is returned, or the test fails showing it. */
const run = (command, args, cwd, options = {}) => {
  const result = spawnSync(command, args, {
    cwd,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    timeout: 20 * 60_000,
    env: { ...process.env, npm_config_fund: "false", npm_config_audit: "false", npm_config_update_notifier: "false" },
    ...options
  })
  if (result.status !== 0 && !options.allowFailure) {
    fail(
      `${command} ${args.join(" ")} (in ${cwd}) exited ${
        result.status ?? result.signal
      }\n${result.stdout}\n${result.stderr}`
    )
  }
  return result
}

const timed = (f) => {
  const t = Date.now()
  const value = f()
  return [value, (Date.now() - t) / 1000]
}

/** Bytes of the files under `dir` (apparent sizes, symlinks not followed). */
const sizeOf = (dir) => {
  let total = 0
  const walk = (d) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, entry.name)
      if (entry.isDirectory()) walk(p)
      else if (entry.isFile()) total += fs.statSync(p).size
    }
  }
  if (fs.existsSync(dir)) walk(dir)
  return total
}
const mb = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`

/** The installed packages of a project, from its lockfile: path → entry. */
const locked = (project) => JSON.parse(fs.readFileSync(path.join(project, "package-lock.json"), "utf8")).packages

const readme = fs.readFileSync(path.join(root, "README.md"), "utf8")
/** The fenced blocks of a README section (`## name` to the next `## `), as [language, text]. */
const blocksOf = (section) => {
  const start = readme.indexOf(`\n## ${section}\n`)
  check(start !== -1, `README.md has no "## ${section}" section`)
  const end = readme.indexOf("\n## ", start + 1)
  const body = readme.slice(start, end === -1 ? undefined : end)
  return Array.from(body.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm), (m) => [m[1], m[2]])
}
/** Words of a shell command line: whitespace-separated, double quotes grouping (all the README uses). */
const shellWords = (line) => Array.from(line.matchAll(/"([^"]*)"|(\S+)/g), (m) => m[1] ?? m[2])

const newProject = (name) => {
  const dir = path.join(work, name)
  fs.mkdirSync(dir)
  fs.writeFileSync(
    path.join(dir, "package.json"),
    JSON.stringify({ name, version: "1.0.0", private: true, type: "module" }, null, 2)
  )
  return dir
}

/** One JSON-RPC exchange with `effect-read mcp` over stdio: initialize, initialized, a tools/call read. */
const mcpRead = (cwd, command, args, filePath) =>
  new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ["pipe", "pipe", "pipe"] })
    const responses = new Map()
    let buffered = ""
    let stderr = ""
    const timer = setTimeout(() => {
      child.kill()
      reject(new Error(`mcp did not answer within 120 s; stderr: ${stderr}`))
    }, 120_000)
    const send = (message) => child.stdin.write(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n")
    child.stderr.on("data", (chunk) => (stderr += chunk))
    child.stdout.on("data", (chunk) => {
      buffered += chunk
      let newline
      while ((newline = buffered.indexOf("\n")) >= 0) {
        const line = buffered.slice(0, newline).trim()
        buffered = buffered.slice(newline + 1)
        if (line === "") continue
        const message = JSON.parse(line)
        if (message.id === undefined) continue
        responses.set(message.id, message)
        if (message.id === 1) {
          send({ method: "notifications/initialized" })
          send({ id: 2, method: "tools/call", params: { name: "read", arguments: { filePath } } })
        }
        if (message.id === 2) {
          clearTimeout(timer)
          child.stdin.end()
          child.kill()
          resolve({ initialize: responses.get(1), read: message })
        }
      }
    })
    child.on("error", reject)
    child.on("exit", (code) => {
      if (!responses.has(2)) {
        clearTimeout(timer)
        reject(new Error(`mcp exited ${code} before answering; stderr: ${stderr}`))
      }
    })
    send({
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "consumer-test", version: "1.0.0" }
      }
    })
  })

const checkMcp = async (label, cwd, command, args, filePath, expected) => {
  const { initialize, read } = await mcpRead(cwd, command, args, filePath).catch((error) =>
    fail(`${label}: ${error.message}`)
  )
  check(initialize.result?.serverInfo?.name, `${label}: initialize answered ${JSON.stringify(initialize)}`)
  const text = (read.result?.content ?? []).map((part) => part.text ?? "").join("\n")
  check(read.result?.isError !== true && text.includes(expected), `${label}: the read answered ${JSON.stringify(read)}`)
  console.log(
    `  ${label}: initialize → ${initialize.result.serverInfo.name} ${initialize.result.serverInfo.version}; tools/call read → ${
      JSON.stringify(expected)
    } found`
  )
}

/** `main.ts` importing `imports` type-checks in `project` with `skipLibCheck: false` (typescript added to it). */
const compilesStrictly = (label, project, imports) => {
  run(npm, [
    "install",
    "--no-save",
    `typescript@${rootPackage.devDependencies.typescript}`,
    `@types/node@${rootPackage.devDependencies["@types/node"]}`
  ], project)
  fs.writeFileSync(
    path.join(project, "tsconfig.strict.json"),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        module: "nodenext",
        moduleResolution: "nodenext",
        target: "es2022",
        skipLibCheck: false,
        noEmit: true,
        types: ["node"]
      },
      files: ["strict.ts"]
    })
  )
  fs.writeFileSync(
    path.join(project, "strict.ts"),
    imports.map((specifier, i) => `import * as M${i} from ${JSON.stringify(specifier)}`).join("\n") +
      `\nexport const modules = [${imports.map((_, i) => `M${i}`).join(", ")}]\n`
  )
  const result = run(
    process.execPath,
    [path.join(project, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.strict.json"],
    project,
    { allowFailure: true }
  )
  check(result.status === 0, `${label}: tsc with skipLibCheck: false failed:\n${result.stdout}${result.stderr}`)
  console.log(`  ${label}: ${imports.join(", ")} type-check with skipLibCheck: false`)
}

const onlyOneEffect = (project) => {
  const copies = run(npm, ["ls", "effect", "--all", "--parseable"], project).stdout.trim().split("\n").filter(Boolean)
  check(copies.length === 1, `npm ls effect shows ${copies.length} copies:\n${copies.join("\n")}`)
  const version = JSON.parse(fs.readFileSync(path.join(copies[0], "package.json"), "utf8")).version
  console.log(`  npm ls effect: one copy (effect@${version})`)
}

// --- pack -------------------------------------------------------------------------------------

console.log(`consumer test in ${work}`)
check(fs.existsSync(path.join(root, "dist", "bin.cjs")), "dist/ is not built: run `npm run build` first")
// dist/ is built already; --ignore-scripts keeps `prepare` from building it again.
const packed = JSON.parse(run(npm, ["pack", "--json", "--ignore-scripts", "--pack-destination", work], root).stdout)[0]
const fullPacked = JSON.parse(run(npm, ["pack", "--json", "--pack-destination", work], fullDir).stdout)[0]
const grammarsPacked = JSON.parse(run(npm, ["pack", "--json", "--pack-destination", work], grammarsDir).stdout)[0]
const tarball = path.join(work, packed.filename)
const fullTarball = path.join(work, fullPacked.filename)
const grammarsTarball = path.join(work, grammarsPacked.filename)
console.log(
  `  packed ${packed.filename}: ${mb(packed.size)} (${
    mb(packed.unpackedSize)
  } unpacked, ${packed.entryCount} files); ${fullPacked.filename}: ${fullPacked.size} bytes`
)
figures.push(["effect-read tarball", `${mb(packed.size)}, ${mb(packed.unpackedSize)} unpacked`])
console.log(
  `  packed ${grammarsPacked.filename}: ${mb(grammarsPacked.size)} (${mb(grammarsPacked.unpackedSize)} unpacked)`
)
figures.push([
  "effect-read-grammars tarball",
  `${mb(grammarsPacked.size)}, ${mb(grammarsPacked.unpackedSize)} unpacked`
])

// --- lean -------------------------------------------------------------------------------------

console.log("lean install (the README's install command, in an empty project)")
// The command as the README writes it, with the tarball made here in place of its /path/to/….
const installLine = blocksOf("Install").filter(([language]) => language === "sh")
  .flatMap(([, text]) => text.split("\n")).find((line) =>
    line.startsWith("npm install ") && /effect-read-[\d.]+\.tgz/.test(line)
  )
check(installLine !== undefined, "README.md's Install section has no `npm install …/effect-read-VERSION.tgz …` command")
const installWords = shellWords(installLine)
const named = installWords.find((word) => /effect-read-[\d.]+\.tgz$/.test(word))
check(
  path.basename(named) === packed.filename,
  `README.md installs ${path.basename(named)}, but npm pack makes ${packed.filename}`
)
const installArgs = installWords.slice(1).map((word) => word === named ? tarball : word)
console.log(`  README: ${installLine}`)
const peers = installArgs.filter((word) => word !== tarball)
for (const name of ["effect", "@effect/platform", "@effect/platform-node"]) {
  check(
    peers.includes(`${name}@${rootPackage.peerDependencies[name]}`),
    `README.md's install command does not name ${name}@${rootPackage.peerDependencies[name]}`
  )
}
// The same peers alone, in a project of their own: what the library adds beyond them.
const effectOnly = newProject("effect-only")
const [, peersTime] = timed(() => run(npm, ["install", ...peers], effectOnly))
const peersSize = sizeOf(path.join(effectOnly, "node_modules"))
const before = new Set(Object.keys(locked(effectOnly)))
const lean = newProject("lean")
const [, installTime] = timed(() => run(npm, installArgs, lean))
const leanSize = sizeOf(path.join(lean, "node_modules"))
const added = Object.entries(locked(lean)).filter(([key]) => key !== "" && !before.has(key))
const scripted = added.filter(([, entry]) => entry.hasInstallScript).map(([key]) => key)
check(scripted.length === 0, `the lean install added packages with install scripts: ${scripted.join(", ")}`)
const nativeFiles = added.flatMap(([key]) => {
  const found = []
  const walk = (d) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      if (entry.isDirectory() && entry.name !== "node_modules") walk(path.join(d, entry.name))
      else if (entry.name.endsWith(".node")) found.push(path.join(d, entry.name))
    }
  }
  if (fs.existsSync(path.join(lean, key))) walk(path.join(lean, key))
  return found
})
check(nativeFiles.length === 0, `the lean install brought native addons: ${nativeFiles.join(", ")}`)
console.log(`  effect + @effect/platform + @effect/platform-node alone: ${mb(peersSize)} in ${peersTime.toFixed(1)} s`)
console.log(
  `  the README's command: ${mb(leanSize)} in ${
    installTime.toFixed(1)
  } s; effect-read added ${added.length} packages, +${mb(leanSize - peersSize)}; no install script, no native addon`
)
figures.push(["the README's install command (an empty project)", `${mb(leanSize)}, ${installTime.toFixed(1)} s`])
figures.push(["of which effect-read and its dependencies", `+${mb(leanSize - peersSize)}, ${added.length} packages`])
onlyOneEffect(lean)

fs.writeFileSync(path.join(lean, "hello.txt"), "hello from the consumer test\nsecond line\n")
// The README's "API on one screen", answering every question itself.
fs.writeFileSync(
  path.join(lean, "main.mjs"),
  `import * as NodeContext from "@effect/platform-node/NodeContext"
import { Effect, Layer } from "effect"
import { FileTime, Lsp, Permission, Read, Workspace } from "effect-read"

const SessionLive = Layer.mergeAll(
  Workspace.layer({ directory: process.cwd(), sessionId: "session-1" }),
  Permission.layerDefault({ asker: () => Effect.succeed("once") }),
  Lsp.layerNoop,
  FileTime.layerMemory
).pipe(Layer.provideMerge(NodeContext.layer))

const result = await Read.read({ filePath: "hello.txt", limit: 20 }).pipe(Effect.provide(SessionLive), Effect.runPromise)
console.log(JSON.stringify({ output: result.output, kind: result.metadata.kind }))
const missing = await Read.read({ filePath: "nope.txt" }).pipe(Effect.flip, Effect.provide(SessionLive), Effect.runPromise)
console.log(JSON.stringify({ tag: missing._tag }))
`
)
const [api] = run(process.execPath, ["main.mjs"], lean).stdout.trim().split("\n").map((line) => JSON.parse(line))
check(
  api.kind === "text" && api.output.includes("hello from the consumer test"),
  `the API read answered ${JSON.stringify(api)}`
)
console.log("  import { Read } from \"effect-read\": read hello.txt with the README's layers")
const leanBin = run(npm, ["exec", "--no", "--", "effect-read", "hello.txt"], lean).stdout
check(leanBin.includes("second line"), `npx effect-read hello.txt printed:\n${leanBin}`)
console.log("  npx effect-read hello.txt: read")
// The command is the CommonJS loader (dist/bin.cjs); dist/bin.js, an ES module, runs the same.
const installedBin = JSON.parse(fs.readFileSync(path.join(lean, "node_modules/effect-read/package.json"), "utf8")).bin
check(installedBin["effect-read"] === "dist/bin.cjs", `effect-read's bin is ${JSON.stringify(installedBin)}`)
const shimmed = run(process.execPath, ["node_modules/effect-read/dist/bin.js", "hello.txt"], lean).stdout
check(shimmed === leanBin, `node dist/bin.js hello.txt printed:\n${shimmed}\nnot what npx effect-read printed`)
console.log("  node node_modules/effect-read/dist/bin.js hello.txt: the same")
await checkMcp(
  "npx effect-read mcp",
  lean,
  npm,
  ["exec", "--no", "--", "effect-read", "mcp"],
  "hello.txt",
  "hello from the consumer test"
)

// Entry points whose optional peer the lean project lacks: the error names the package to install.
// (SqlFileTime and SqlSessionMemory need only @effect/sql, which @effect/platform-node brings.)
for (
  const [entry, peer] of [["ReadTool", "@effect/ai"], ["McpServer", "@effect/ai"], ["MemoryFileSystem", "memfs"], [
    "SqliteFileTime",
    "@effect/sql-sqlite-node"
  ]]
) {
  const probe = run(process.execPath, ["--input-type=module", "-e", `await import("effect-read/${entry}")`], lean, {
    allowFailure: true
  })
  const expected =
    `effect-read/${entry} needs the optional peer dependency ${peer}, which is not installed: npm install ${peer}@${
      rootPackage.peerDependencies[peer]
    }`
  check(
    probe.status !== 0 && probe.stderr.includes(expected),
    `import("effect-read/${entry}") without ${peer} said:\n${probe.stderr}`
  )
}
console.log(
  "  effect-read/ReadTool, McpServer, MemoryFileSystem, SqliteFileTime without their peers: the error names the package to install"
)
compilesStrictly("lean", lean, ["effect-read"])

// --- full -------------------------------------------------------------------------------------

console.log("full install (effect-read-full: every optional source, the CLI and the MCP server)")
const full = newProject("full")
// From the registry this is `npm install effect-read-full`; here the tarballs stand in for it.
const [, fullTime] = timed(() => run(npm, ["install", fullTarball, tarball, grammarsTarball], full))
const fullSize = sizeOf(path.join(full, "node_modules"))
const fullCount = Object.keys(locked(full)).length - 1
console.log(
  `  ${fullCount} packages, ${mb(fullSize)} in ${fullTime.toFixed(1)} s (better-sqlite3 compiles from source here)`
)
figures.push(["full install (an empty project)", `${mb(fullSize)}, ${fullCount} packages, ${fullTime.toFixed(1)} s`])
onlyOneEffect(full)

// Fixtures, made with the packages the full install brought (and python3's sqlite3).
fs.writeFileSync(
  path.join(full, "fixtures.mjs"),
  `import ExcelJS from "exceljs"
import sharp from "sharp"
import * as fs from "node:fs"

const objects = [
  "<< /Type /Catalog /Pages 2 0 R >>",
  "<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
  "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
  "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>"
]
const content = "BT /F1 12 Tf 72 720 Td (Quarterly report from the consumer test) Tj ET"
objects.push("<< /Length " + content.length + " >>\\nstream\\n" + content + "\\nendstream")
let pdf = "%PDF-1.4\\n"
const offsets = objects.map((object, i) => {
  const offset = Buffer.byteLength(pdf, "latin1")
  pdf += (i + 1) + " 0 obj\\n" + object + "\\nendobj\\n"
  return offset
})
const xref = Buffer.byteLength(pdf, "latin1")
pdf += "xref\\n0 " + (objects.length + 1) + "\\n0000000000 65535 f \\n" + offsets.map((o) => String(o).padStart(10, "0") + " 00000 n \\n").join("")
pdf += "trailer\\n<< /Size " + (objects.length + 1) + " /Root 1 0 R >>\\nstartxref\\n" + xref + "\\n%%EOF\\n"
fs.writeFileSync("report.pdf", Buffer.from(pdf, "latin1"))

await sharp({ create: { width: 2400, height: 300, channels: 3, background: { r: 200, g: 40, b: 40 } } }).png().toFile("wide.png")

const workbook = new ExcelJS.Workbook()
const sheet = workbook.addWorksheet("Stock")
sheet.addRow(["item", "count"])
sheet.addRow(["consumer widgets", 42])
await workbook.xlsx.writeFile("book.xlsx")
`
)
run(process.execPath, ["fixtures.mjs"], full)
run("python3", [
  "-c",
  "import sqlite3; c = sqlite3.connect('app.db'); c.execute('create table users (id integer primary key, name text)'); c.execute(\"insert into users (name) values ('ada from the consumer test')\"); c.commit()"
], full)

const fullRead = (filePath, ...flags) =>
  run(npm, ["exec", "--no", "--", "effect-read-full", ...flags, filePath], full).stdout
const pdfText = fullRead("report.pdf:pages=1")
check(pdfText.includes("Quarterly report from the consumer test"), `the PDF's text: ${pdfText}`)
console.log("  npx effect-read-full report.pdf:pages=1: the page's text (pdfjs-dist)")
const image = JSON.parse(fullRead("wide.png", "--json"))
check(
  image.metadata?.width === 2400 && image.metadata?.attached?.width === 2000 && image.attachments?.length === 1,
  `the image read: ${JSON.stringify({ ...image, attachments: image.attachments?.length })}`
)
console.log(
  `  npx effect-read-full wide.png: 2400×300 attached as ${image.metadata.attached.width}×${image.metadata.attached.height} (sharp)`
)
const xlsx = fullRead("book.xlsx")
check(xlsx.includes("consumer widgets") && xlsx.includes("42"), `the workbook: ${xlsx}`)
console.log("  npx effect-read-full book.xlsx: the sheet's cells (exceljs)")
const table = fullRead("app.db:users")
check(table.includes("ada from the consumer test"), `the table: ${table}`)
console.log("  npx effect-read-full app.db:users: the table's rows (@effect/sql-sqlite-node, better-sqlite3)")
compilesStrictly("full", full, [
  "effect-read",
  "effect-read/ReadTool",
  "effect-read/McpServer",
  "effect-read/MemoryFileSystem",
  "effect-read/SqliteFileTime",
  "effect-read/SqlFileTime",
  "effect-read/SqlSessionMemory",
  "effect-read/LanguageServer"
])
await checkMcp(
  "npx effect-read-full mcp",
  full,
  npm,
  ["exec", "--no", "--", "effect-read-full", "mcp"],
  "report.pdf:pages=1",
  "Quarterly report from the consumer test"
)

// --- the README's MCP client configuration ---------------------------------------------------

console.log("the README's MCP client configuration (this checkout's bin, as from a clone)")
const mcpJson = blocksOf("MCP").find(([language]) => language === "json")
check(mcpJson !== undefined, "README.md's MCP section has no JSON client configuration")
const server = Object.values(JSON.parse(mcpJson[1]).mcpServers)[0]
const project = newProject("mcp-project")
fs.writeFileSync(path.join(project, "notes.txt"), "read through the README's MCP configuration\n")
const placed = (word) => word.replace("/path/to/effect-read", root).replace("/path/to/project", project)
const configured = [placed(server.command), server.args.map(placed)]
check(
  configured[1].some((arg) => arg.startsWith(root)) && configured[1].includes(project),
  `the configuration names no clone or no project: ${mcpJson[1]}`
)
await checkMcp(
  `${server.command} ${server.args.join(" ")}`,
  work,
  configured[0],
  configured[1],
  "notes.txt",
  "read through the README's MCP configuration"
)

// --- figures ----------------------------------------------------------------------------------

console.log(
  `\nconsumer test passed in ${((Date.now() - started) / 1000).toFixed(0)} s (Node ${process.version}, npm ${
    run(npm, ["--version"], work).stdout.trim()
  })`
)
for (const [what, figure] of figures) console.log(`  ${what}: ${figure}`)
if (!keep) fs.rmSync(work, { recursive: true, force: true })
