/**
 * How often secret masking masks what is no secret: run the masker over every code, data and doc
 * file under a tree (default: this repository's node_modules) and print what it masked, line by
 * line, to be judged by eye; then the masker's time on 50 KB pages.
 *
 *   npm run build && node bench/secrets.mjs [DIR ...]
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { maskText, styleOf } from "../dist/internal/core/secrets.js"

const EXTENSIONS = new Set([
  ".js",
  ".mjs",
  ".cjs",
  ".ts",
  ".mts",
  ".cts",
  ".json",
  ".md",
  ".yml",
  ".yaml",
  ".sh",
  ".py",
  ".c",
  ".h",
  ".cc",
  ".rs",
  ".go",
  ".toml"
])
const roots = process.argv.length > 2 ? process.argv.slice(2) : [path.resolve("node_modules")]

const walk = (directory, out) => {
  for (const entry of fs.readdirSync(directory, { withFileTypes: true })) {
    const full = path.join(directory, entry.name)
    if (entry.isDirectory()) walk(full, out)
    else if (entry.isFile() && EXTENSIONS.has(path.extname(entry.name))) out.push(full)
  }
  return out
}

for (const root of roots) {
  let lines = 0
  let bytes = 0
  let files = 0
  const masked = []
  for (const file of walk(root, [])) {
    const size = fs.statSync(file).size
    if (size > 2_000_000) continue
    const text = fs.readFileSync(file, "utf8")
    files++
    bytes += size
    const original = text.split("\n")
    lines += original.length
    const result = maskText(text, { style: styleOf(file), name: path.basename(file) })
    const shown = result.text.split("\n")
    for (const i of result.lines) {
      masked.push(
        `${path.relative(root, file)}:${i + 1}: ${original[i].trim().slice(0, 140)}\n    => ${
          shown[i].trim().slice(0, 140)
        }`
      )
    }
  }
  console.log(masked.join("\n"))
  console.log(
    `${root}: ${files} files, ${lines} lines, ${(bytes / 1e6).toFixed(1)} MB; ${masked.length} lines masked (${
      (masked.length / lines * 100).toFixed(5)
    } % of lines)`
  )
}

// The masker's cost on a 50 KB page (a read's output cap), median of 50 after a warm-up.
for (
  const file of [
    "node_modules/typescript/lib/lib.dom.d.ts",
    "node_modules/effect/src/internal/fiberRuntime.ts",
    "node_modules/.package-lock.json"
  ]
) {
  if (!fs.existsSync(file)) continue
  const page = fs.readFileSync(file, "utf8").slice(0, 50 * 1024)
  for (let i = 0; i < 20; i++) maskText(page, { style: styleOf(file) })
  const times = []
  for (let i = 0; i < 50; i++) {
    const start = performance.now()
    maskText(page, { style: styleOf(file) })
    times.push(performance.now() - start)
  }
  times.sort((a, b) => a - b)
  console.log(`mask a 50 KB page of ${file}: median ${times[25].toFixed(2)} ms`)
}
