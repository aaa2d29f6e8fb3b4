/**
 * The start-up baseline: a Node process that reads a file with `fs.readFileSync` and prints it
 * numbered, as one JSON object (what `effect-read --json` prints, minus everything else).
 */
import { readFileSync } from "node:fs"

const text = readFileSync(process.argv[2], "utf8")
const lines = text.split("\n")
if (lines.at(-1) === "") lines.pop()
const output = lines.map((line, i) => `${i + 1}: ${line}`).join("\n")
process.stdout.write(JSON.stringify({ output, totalLines: lines.length }) + "\n")
