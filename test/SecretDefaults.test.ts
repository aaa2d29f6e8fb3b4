/**
 * The front doors' default rules for secrets, through both doors as users run them: the real
 * bin (`node dist/bin.js`, no terminal) and the MCP server driven by the official SDK client
 * (a client without elicitation). Every rule is exercised on a file named for it, through a
 * symlink, inside archives, through `read_many`, suffix recovery and suggestions.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import * as fs from "node:fs"
import * as path from "node:path"
import { runProcess, tempDir, ustar, writeTree } from "./support/index.js"
import { zip } from "./support/zipFixtures.js"

const bin = path.resolve("dist/bin.js")

const OPENSSH_KEY = [
  "-----BEGIN OPENSSH PRIVATE KEY-----",
  "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
  "QyNTUxOQAAACBDbJQ9wvGwQRQf0rtoxUWk4vCDq3Sb8k2Iuqkq3R2jUAAAAJgAAAAAAAAA",
  "-----END OPENSSH PRIVATE KEY-----",
  ""
].join("\n")
const PEM_KEY = [
  "-----BEGIN PRIVATE KEY-----",
  "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKjMzEf",
  "YyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvuNMoSfm76",
  "-----END PRIVATE KEY-----",
  ""
].join("\n")
const CERTIFICATE = [
  "-----BEGIN CERTIFICATE-----",
  "MIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJRTES",
  "-----END CERTIFICATE-----",
  ""
].join("\n")
const GITHUB_TOKEN = `ghp_${"A1b2C3d4E5".repeat(3)}abcdef`
const ENV = `API_KEY=sk_live_${"4eC39HqLyjWDarjtT1zdp7dc".slice(0, 24)}\nDB_PASSWORD=hunter2-prod\nPORT=3000\n`

const root = tempDir("effect-read-secrets-")
writeTree(root, {
  ".env": ENV,
  "config/.env.local": "SECRET_KEY_BASE=0f1e2d3c4b5a69788796a5b4c3d2e1f0\n",
  ".env.example": "API_KEY=your-key-here\n",
  ".env.sample": "API_KEY=\n",
  ".env.template": "API_KEY=${API_KEY}\n",
  ".ssh/id_ed25519": OPENSSH_KEY,
  ".ssh/id_ed25519.pub": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIENslD3C8bBBFB user@host\n",
  ".ssh/id_rsa": PEM_KEY,
  "certs/server.pem": PEM_KEY,
  "certs/ca.pem": CERTIFICATE,
  "certs/tls.key": PEM_KEY,
  "keys/notes-about-deploy.txt": `deploy key below\n${PEM_KEY}`,
  ".netrc": "machine api.example.com login me password s3cr3t-netrc\n",
  ".pgpass": "localhost:5432:app:me:s3cr3t-pg\n",
  ".aws/credentials":
    "[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n",
  ".git-credentials": `https://me:${GITHUB_TOKEN}@github.com\n`,
  ".kube/config": "apiVersion: v1\nusers:\n- name: me\n  user:\n    token: kube-token-0123456789abcdef\n",
  ".docker/config.json": "{\"auths\": {\"ghcr.io\": {\"auth\": \"bWU6cGFzc3dvcmQxMjM=\"}}}\n",
  ".npmrc": `//registry.npmjs.org/:_authToken=npm_${"a1B2c3D4e5".repeat(3)}a1B2c3\n`,
  "web/.npmrc": "registry=https://registry.npmjs.org/\nsave-exact=true\n",
  ".pypirc":
    "[pypi]\nusername = __token__\npassword = pypi-AgEIcHlwaS5vcmcCJGE4ZjQ2ZWUxLWE3YjYtNDNmMy1iYzc2LTk2YjI5NjU5YWY1YQ\n",
  "src/app.ts": "export const port = 3000\n",
  "bundle.zip": zip([
    { name: ".env", data: ENV },
    { name: "home/.ssh/id_rsa", data: PEM_KEY },
    { name: "keys/server.pem", data: PEM_KEY },
    { name: "README.md", data: "# bundle\n" }
  ]),
  "backup.tar": ustar([
    { name: ".aws/credentials", content: "[default]\naws_secret_access_key = abc\n" },
    { name: "notes.md", content: "notes\n" }
  ])
})
fs.symlinkSync(".env", path.join(root, "notes.txt"))
fs.symlinkSync(".ssh/id_ed25519", path.join(root, "key-link.txt"))
fs.symlinkSync("certs/server.pem", path.join(root, "cert-link.txt"))

afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

/** What a door must do with a path: read it, refuse it by rule, or refuse it for want of someone to ask. */
type Outcome = "read" | "rule" | "unavailable"

const cases: ReadonlyArray<readonly [string, Outcome, string]> = [
  [".env", "unavailable", "reading .env"],
  ["config/.env.local", "unavailable", "reading config/.env.local"],
  [".env.example", "read", ""],
  [".env.sample", "read", ""],
  [".env.template", "read", ""],
  [".ssh/id_ed25519", "rule", "reading .ssh/id_ed25519"],
  [".ssh/id_ed25519.pub", "read", ""],
  [".ssh/id_rsa", "rule", "reading .ssh/id_rsa"],
  ["certs/server.pem", "rule", "reading the private key in certs/server.pem"],
  ["certs/ca.pem", "read", ""],
  ["certs/tls.key", "rule", "reading the private key in certs/tls.key"],
  ["keys/notes-about-deploy.txt", "rule", "reading the private key in keys/notes-about-deploy.txt"],
  [".netrc", "rule", "reading .netrc"],
  [".pgpass", "rule", "reading .pgpass"],
  [".aws/credentials", "rule", "reading .aws/credentials"],
  [".git-credentials", "rule", "reading .git-credentials"],
  [".kube/config", "rule", "reading .kube/config"],
  [".docker/config.json", "rule", "reading .docker/config.json"],
  [".npmrc", "rule", "reading the credentials in .npmrc"],
  ["web/.npmrc", "read", ""],
  [".pypirc", "rule", "reading the credentials in .pypirc"],
  ["src/app.ts", "read", ""],
  // A link meets the rules of what it points at.
  ["notes.txt", "unavailable", "reading notes.txt, .env"],
  ["key-link.txt", "rule", "reading .ssh/id_ed25519"],
  ["cert-link.txt", "rule", "reading the private key in cert-link.txt, certs/server.pem"],
  // Archive members are asked about as files at <archive>/<member>.
  ["bundle.zip:.env", "unavailable", "reading bundle.zip/.env"],
  ["bundle.zip:home/.ssh/id_rsa", "rule", "reading bundle.zip/home/.ssh/id_rsa"],
  ["bundle.zip:keys/server.pem", "rule", "reading the private key in bundle.zip/keys/server.pem"],
  ["bundle.zip:README.md", "read", ""],
  ["backup.tar:.aws/credentials", "rule", "reading backup.tar/.aws/credentials"],
  ["backup.tar:notes.md", "read", ""]
]

const secretsIn = (text: string) =>
  [
    "sk_live_",
    "hunter2",
    "BEGIN OPENSSH",
    "MIIEvQ",
    "s3cr3t",
    "wJalrXUtnFEMI",
    GITHUB_TOKEN,
    "kube-token",
    "npm_a1B2",
    "pypi-AgE"
  ]
    .filter((secret) => text.includes(secret))

describe("the CLI's default rules (no terminal)", () => {
  it.each(cases)("%s: %s", async (filePath, outcome, what) => {
    const { code, stderr, stdout } = await runProcess(process.execPath, [bin, "--cwd", root, filePath])
    if (outcome === "read") {
      expect(stderr).toBe("")
      expect(code).toBe(0)
      return
    }
    expect(code).toBe(1)
    expect(stdout).toBe("")
    expect(secretsIn(stderr)).toEqual([])
    expect(stderr).toContain(`Permission denied: ${what}`)
    if (outcome === "rule") expect(stderr).toContain("is not allowed in this session")
    else {
      expect(stderr).toContain("the user could not be asked (there is no terminal to ask on)")
      expect(stderr).toContain("To allow it, the user can run effect-read with --allow '")
    }
  })

  it("read_many: each member meets the rules; the others are shown", async () => {
    const { code, stdout } = await runProcess(process.execPath, [
      bin,
      "many",
      "--cwd",
      root,
      "src/app.ts",
      ".env",
      ".ssh/id_rsa",
      "certs/ca.pem"
    ])
    expect(code).toBe(1)
    expect(stdout).toContain("1: export const port = 3000")
    expect(stdout).toContain("Permission denied: reading .env needs the user's approval")
    expect(stdout).toContain("Permission denied: reading .ssh/id_rsa is not allowed")
    expect(stdout).toContain("1: -----BEGIN CERTIFICATE-----")
    expect(secretsIn(stdout)).toEqual([])
  })

  it("suffix recovery never lands on a denied file, and suggestions never name one", async () => {
    // `id_rsa` alone: the only file with that name is denied, so it is neither read nor suggested.
    const recovered = await runProcess(process.execPath, [bin, "--cwd", root, "id_rsa"])
    expect(recovered.code).toBe(1)
    expect(secretsIn(recovered.stderr)).toEqual([])
    expect(recovered.stderr).not.toContain(".ssh/id_rsa")
    const near = await runProcess(process.execPath, [bin, "--cwd", root, "certs/server.pen"])
    expect(near.code).toBe(1)
    expect(near.stderr).not.toContain("server.pem")
    // The certificate beside it is suggested: its content holds no key.
    const cert = await runProcess(process.execPath, [bin, "--cwd", root, "certs/ca.pen"])
    expect(cert.stderr).toContain(`${root}/certs/ca.pem`)
  })

  it("--allow, --deny and --rules change the rules; a bad rules file is a usage error", async () => {
    const allowed = await runProcess(process.execPath, [
      bin,
      "--cwd",
      root,
      "--allow",
      "certs/*.pem",
      "certs/server.pem"
    ])
    expect(allowed.code).toBe(0)
    expect(allowed.stdout).toContain("1: -----BEGIN PRIVATE KEY-----")
    const env = await runProcess(process.execPath, [bin, "--cwd", root, "--allow", ".env", ".env"])
    expect(env.code).toBe(0)
    expect(env.stdout).toContain("2: DB_PASSWORD=hunter2-prod")
    const denied = await runProcess(process.execPath, [bin, "--cwd", root, "--deny", "src/**", "src/app.ts"])
    expect(denied.code).toBe(1)
    expect(denied.stderr).toContain("Permission denied: reading src/app.ts is not allowed in this session.")
    const rulesFile = path.join(root, "rules.json")
    fs.writeFileSync(
      rulesFile,
      JSON.stringify({ rules: [{ permission: "read", pattern: "*.env.*", action: "allow" }] })
    )
    const byFile = await runProcess(process.execPath, [bin, "--cwd", root, "--rules", rulesFile, "config/.env.local"])
    expect(byFile.code).toBe(0)
    fs.writeFileSync(rulesFile, JSON.stringify([{ permission: "read", pattern: "*.env", action: "maybe" }]))
    const bad = await runProcess(process.execPath, [bin, "--cwd", root, "--rules", rulesFile, ".env"])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain(`effect-read: --rules ${rulesFile}:`)
    expect(bad.stderr).toContain("maybe")
    // The subcommands take the same flags, before or after their name.
    const many = await runProcess(process.execPath, [bin, "--allow", ".env", "many", "--cwd", root, ".env"])
    expect(many.code).toBe(0)
  })

  it("--mask-secrets reads env files without asking, values masked, line numbers kept; keys stay denied", async () => {
    const env = await runProcess(process.execPath, [bin, "--cwd", root, "--mask-secrets", ".env"])
    expect(env.code).toBe(0)
    expect(env.stdout).toBe(
      `<path>${root}/.env</path>\n<type>file</type>\n<content>\n1: API_KEY=‹secret: Stripe key›\n2: DB_PASSWORD=‹secret: password›\n3: PORT=3000\n\n(End of file - total 3 lines)\n</content>\n`
    )
    const json = JSON.parse(
      (await runProcess(process.execPath, [bin, "--cwd", root, "--mask-secrets", "--json", ".env"])).stdout
    )
    expect(json.metadata.masked).toEqual({ secrets: 2, lines: [1, 2], kinds: { "Stripe key": 1, password: 1 } })
    expect(json.metadata.totalLines).toBe(3)
    expect(secretsIn(JSON.stringify(json))).toEqual([])
    const member = await runProcess(process.execPath, [bin, "--cwd", root, "--mask-secrets", "bundle.zip:.env"])
    expect(member.code).toBe(0)
    expect(member.stdout).toContain("2: DB_PASSWORD=‹secret: password›")
    const key = await runProcess(process.execPath, [bin, "--cwd", root, "--mask-secrets", ".ssh/id_rsa"])
    expect(key.code).toBe(1)
  })
})

interface CallResult {
  readonly isError?: boolean
  readonly content: ReadonlyArray<{ readonly type: string; readonly text?: string }>
  readonly structuredContent?: Record<string, unknown>
}

const connect = async (args: ReadonlyArray<string>) => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, "mcp", "--cwd", root, ...args],
    stderr: "pipe"
  })
  const client = new Client({ name: "effect-read-secrets-test", version: "1.0.0" })
  await client.connect(transport)
  return client
}

describe("the MCP server's default rules (a client without elicitation)", () => {
  let client: Client
  let masked: Client
  beforeAll(async () => {
    client = await connect([])
    masked = await connect(["--mask-secrets"])
  })
  afterAll(async () => {
    await client.close()
    await masked.close()
  })

  it.each(cases)("%s: %s", async (filePath, outcome, what) => {
    const result = await client.callTool({ name: "read", arguments: { filePath } }) as CallResult
    if (outcome === "read") {
      expect(result.isError).toBe(false)
      return
    }
    expect(result.isError).toBe(true)
    const text = result.content[0]!.text!
    expect(secretsIn(JSON.stringify(result))).toEqual([])
    expect(text).toContain(`Permission denied: ${what}`)
    expect(result.structuredContent).toMatchObject({ _tag: "PermissionDenied", reason: outcome })
    if (outcome === "unavailable") {
      expect(text).toContain("the MCP client does not support elicitation, so the server cannot ask the user")
      expect(text).toContain("To allow it, the user can start the MCP server (effect-read mcp) with --allow '")
    }
  })

  it("read_many members meet the rules one by one", async () => {
    const result = await client.callTool({
      name: "read_many",
      arguments: {
        files: [{ filePath: "src/app.ts" }, { filePath: "bundle.zip:keys/server.pem" }, { filePath: "notes.txt" }]
      }
    }) as CallResult
    const text = result.content[0]!.text!
    expect(text).toContain("1: export const port = 3000")
    expect(text).toContain("Permission denied: reading the private key in bundle.zip/keys/server.pem")
    expect(text).toContain("Permission denied: reading notes.txt, .env needs the user's approval")
    expect(secretsIn(text)).toEqual([])
  })

  it("--mask-secrets: env files (also through links and in archives) are read masked; keys stay denied", async () => {
    for (const filePath of [".env", "notes.txt", "bundle.zip:.env"]) {
      const result = await masked.callTool({ name: "read", arguments: { filePath } }) as CallResult
      expect(result.isError).toBe(false)
      expect(result.content[0]!.text).toContain(
        "1: API_KEY=‹secret: Stripe key›\n2: DB_PASSWORD=‹secret: password›\n3: PORT=3000"
      )
      expect(secretsIn(JSON.stringify(result))).toEqual([])
      expect(result.structuredContent).toMatchObject({
        metadata: { masked: { secrets: 2, lines: [1, 2] }, totalLines: 3 }
      })
    }
    const key = await masked.callTool({ name: "read", arguments: { filePath: "certs/tls.key" } }) as CallResult
    expect(key.isError).toBe(true)
  })
})
