/**
 * Maintainer script: rebuild the grammar pack (packages/effect-read-grammars/grammars/) from the
 * official tree-sitter grammar packages on the npm registry, pinned below.
 *
 *   node scripts/pack-grammars.mjs
 *
 * For each package it runs `npm pack` (a tarball download: no install, no install script, no
 * toolchain), takes the prebuilt `.wasm` the package ships and its LICENSE, compresses the wasm
 * with brotli at quality 11 and writes `manifest.json` with the package, version, the SHA-256 of
 * the raw wasm and the file extensions routed to it. Bump a version here and run it again to
 * re-vendor (for instance when tree-sitter-typescript parses variance annotations, #370).
 */
import { execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as zlib from "node:zlib"

const here = path.dirname(fileURLToPath(import.meta.url))
const pack = path.join(here, "..", "packages", "effect-read-grammars")
const out = path.join(pack, "grammars")

/**
 * language, package@version, the wasm file inside it, extensions. Not PowerShell or Swift: after a
 * parse with them the next grammar load stalls for seconds on two cores (shared/notes §1.5).
 */
const GRAMMARS = [
  ["typescript", "tree-sitter-typescript", "0.23.2", "tree-sitter-typescript.wasm", [".ts", ".mts", ".cts"]],
  ["tsx", "tree-sitter-typescript", "0.23.2", "tree-sitter-tsx.wasm", [".tsx"]],
  ["javascript", "tree-sitter-javascript", "0.25.0", "tree-sitter-javascript.wasm", [".js", ".mjs", ".cjs", ".jsx"]],
  ["python", "tree-sitter-python", "0.25.0", "tree-sitter-python.wasm", [".py", ".pyi", ".pyw"]],
  ["go", "tree-sitter-go", "0.25.0", "tree-sitter-go.wasm", [".go"]],
  ["rust", "tree-sitter-rust", "0.24.0", "tree-sitter-rust.wasm", [".rs"]],
  ["java", "tree-sitter-java", "0.23.5", "tree-sitter-java.wasm", [".java"]],
  ["c", "tree-sitter-c", "0.24.1", "tree-sitter-c.wasm", [".c", ".h"]],
  ["cpp", "tree-sitter-cpp", "0.23.4", "tree-sitter-cpp.wasm", [
    ".cc",
    ".cpp",
    ".cxx",
    ".c++",
    ".hpp",
    ".hh",
    ".hxx",
    ".h++",
    ".ipp",
    ".tpp"
  ]],
  ["csharp", "tree-sitter-c-sharp", "0.23.5", "tree-sitter-c_sharp.wasm", [".cs"]],
  ["ruby", "tree-sitter-ruby", "0.23.1", "tree-sitter-ruby.wasm", [".rb", ".rake", ".gemspec", ".ru"]],
  ["php", "tree-sitter-php", "0.24.2", "tree-sitter-php.wasm", [".php", ".phtml"]],
  ["bash", "tree-sitter-bash", "0.25.1", "tree-sitter-bash.wasm", [".sh", ".bash", ".zsh"]],
  ["json", "tree-sitter-json", "0.24.8", "tree-sitter-json.wasm", [".json"]],
  ["yaml", "@tree-sitter-grammars/tree-sitter-yaml", "0.7.1", "tree-sitter-yaml.wasm", [".yaml", ".yml"]],
  ["toml", "@tree-sitter-grammars/tree-sitter-toml", "0.7.0", "tree-sitter-toml.wasm", [".toml"]]
]

const work = fs.mkdtempSync(path.join(os.tmpdir(), "pack-grammars-"))
const unpacked = new Map()
/** The package's files, unpacked once per package@version. */
const unpack = (name, version) => {
  const key = `${name}@${version}`
  if (!unpacked.has(key)) {
    const dir = fs.mkdtempSync(path.join(work, "pkg-"))
    const [{ filename }] = JSON.parse(
      execFileSync("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", dir, key], { encoding: "utf8" })
    )
    execFileSync("tar", ["-xzf", path.join(dir, filename), "-C", dir])
    unpacked.set(key, path.join(dir, "package"))
  }
  return unpacked.get(key)
}

fs.rmSync(out, { recursive: true, force: true })
fs.mkdirSync(out, { recursive: true })
const manifest = []
let raw = 0
let packed = 0
for (const [language, npmPackage, version, wasm, extensions] of GRAMMARS) {
  const dir = unpack(npmPackage, version)
  const bytes = fs.readFileSync(path.join(dir, wasm))
  const compressed = zlib.brotliCompressSync(bytes, {
    params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: 11,
      [zlib.constants.BROTLI_PARAM_LGWIN]: 24,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length
    }
  })
  fs.writeFileSync(path.join(out, `${language}.wasm.br`), compressed)
  const license = path.join(out, `${language}.LICENSE`)
  fs.copyFileSync(path.join(dir, "LICENSE"), license)
  const sha256 = createHash("sha256").update(bytes).digest("hex")
  manifest.push({ language, npmPackage, version, wasm, sha256, size: bytes.length, extensions })
  raw += bytes.length
  packed += compressed.length
  console.log(`${language.padEnd(10)} ${npmPackage}@${version}: ${bytes.length} → ${compressed.length} bytes`)
}
fs.writeFileSync(path.join(pack, "manifest.json"), JSON.stringify(manifest, null, 2) + "\n")
fs.rmSync(work, { recursive: true, force: true })
console.log(`${manifest.length} grammars: ${raw} bytes raw, ${packed} bytes brotli`)
