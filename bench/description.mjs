/**
 * What a host pays for the tool's description on every request: the bytes of `tools/list` (the
 * JSON result the client receives) and of the read tool's description, for the full and the
 * short form, measured through the official MCP client against `effect-read mcp` (dist/bin.cjs).
 * Sizes, not times: the same on any machine.
 *
 *   node bench/description.mjs [--json FILE]
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const here = path.dirname(fileURLToPath(import.meta.url))
const bin = path.join(here, "..", "dist", "bin.cjs")
const args = process.argv.slice(2)
const jsonOut = args.includes("--json") ? args[args.indexOf("--json") + 1] : undefined

/** The short form's target: at most 1.5 KB of description. */
const SHORT_LIMIT = 1536

const variants = [
  { name: "full (default)", flags: [] },
  { name: "short (`--short-description`)", flags: ["--short-description"] },
  { name: "full, text-only model (`--text-only`)", flags: ["--text-only"] },
  { name: "short, text-only model", flags: ["--short-description", "--text-only"] }
]

const measure = async (flags) => {
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "effect-read-description-"))
  const client = new Client({ name: "bench-description", version: "1.0.0" })
  try {
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [bin, "mcp", "--cwd", cwd, ...flags],
        stderr: "pipe"
      })
    )
    const listed = await client.listTools()
    const read = listed.tools.find((tool) => tool.name === "read")
    return {
      toolsList: Buffer.byteLength(JSON.stringify({ tools: listed.tools })),
      // What a host hands its model of each tool: the name, the description and the input schema
      // (the output schema is for the client to check results against).
      modelFacing: listed.tools.reduce(
        (sum, tool) =>
          sum +
          Buffer.byteLength(
            JSON.stringify({ name: tool.name, description: tool.description, input_schema: tool.inputSchema })
          ),
        0
      ),
      description: Buffer.byteLength(read.description),
      readTool: Buffer.byteLength(JSON.stringify(read))
    }
  } finally {
    await client.close()
    fs.rmSync(cwd, { recursive: true, force: true })
  }
}

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB (${bytes.toLocaleString("en-US")} B)`

const main = async () => {
  if (!fs.existsSync(bin)) throw new Error("dist/ is missing: run `npm run build` first")
  const measured = []
  for (const variant of variants) measured.push({ ...variant, ...(await measure(variant.flags)) })
  const full = measured[0]
  const lines = [
    "The tool's description as an MCP host receives it (official client, `tools/list` of `effect-read mcp`, every optional package installed):",
    "",
    "| form | read's description | what the model is sent of both tools (name, description, input schema) | vs full | `tools/list` (with output schemas) | vs full |",
    "|---|---:|---:|---:|---:|---:|",
    ...measured.map((m) =>
      `| ${m.name} | ${kb(m.description)} | ${kb(m.modelFacing)} | ${
        (m.modelFacing / full.modelFacing).toFixed(2)
      }× | ${kb(m.toolsList)} | ${(m.toolsList / full.toolsList).toFixed(2)}× |`
    ),
    "",
    "Targets:",
    "",
    ...measured.filter((m) => m.flags.includes("--short-description")).map((m) =>
      `- ${m.description <= SHORT_LIMIT ? "met" : "**missed**"}: ${m.name}: description ≤ 1.5 KB — ${kb(m.description)}`
    )
  ]
  console.log(lines.join("\n"))
  if (jsonOut !== undefined) {
    fs.mkdirSync(path.dirname(jsonOut), { recursive: true })
    fs.writeFileSync(jsonOut, JSON.stringify({ measured, report: lines.join("\n") }, null, 2))
  }
  if (measured.some((m) => m.flags.includes("--short-description") && m.description > SHORT_LIMIT)) process.exitCode = 1
}

await main()
