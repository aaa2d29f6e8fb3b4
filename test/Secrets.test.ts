/**
 * Masking secret values: the pure masker on a corpus of realistic files and on random secrets in
 * random text, no false positive on ordinary code from node_modules, and through `read` with
 * `Secrets.layerMask`: pages that start inside a key, cut lines, hashline anchors and
 * `Anchors.verify`, the ledger's coverage, session memory's diffs and `read_many`.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, FastCheck as fc, Layer } from "effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import * as Anchors from "../src/Anchors.js"
import * as FileTime from "../src/FileTime.js"
import { identifierLike, maskText, styleOf } from "../src/internal/core/secrets.js"
import * as Read from "../src/Read.js"
import * as ReadMany from "../src/ReadMany.js"
import * as Secrets from "../src/Secrets.js"
import * as SessionMemory from "../src/SessionMemory.js"
import { fieldsOf, memoryLayer, nodeLayer, tempDir, writeTree } from "./support/index.js"
import { corpus } from "./support/secretCorpus.js"

const maskFile = (name: string, text: string) => maskText(text, { style: styleOf(name), name: name.split("/").pop() })

describe("the masker on realistic files", () => {
  it.each(corpus.map((file) => [file.name, file] as const))("%s", (_, file) => {
    const masked = maskFile(file.name, file.text)
    expect(masked.text).toBe(file.masked)
    // Line numbers and the number of lines never change.
    expect(masked.text.split("\n")).toHaveLength(file.text.split("\n").length)
    for (const secret of file.secrets) expect(masked.text).not.toContain(secret)
    expect(masked.count).toBeGreaterThan(0)
    expect(Object.values(masked.kinds).reduce((a, b) => a + b, 0)).toBe(masked.count)
    // Masking again changes nothing: a placeholder is never masked.
    expect(maskFile(file.name, masked.text)).toMatchObject({ text: masked.text, count: 0 })
  })

  it("a name is not a secret; a random value is", () => {
    for (
      const name of [
        "NextToken",
        "V1SecretVolumeSource",
        "Unexpected_token_1012",
        "AUTH_CLIENT_SECRET_value",
        "HTTPServer",
        "OAuth2ClientCredentials",
        "notificationsToolLastEventId",
        "XmlHttpRequest"
      ]
    ) {
      expect(identifierLike(name)).toBe(true)
    }
    for (const value of ["K7xPqL2mN9vRtY4w", "Ab7x9CdEfGhIj", "wJalrXUtnFEMI/K7MDENG"]) {
      expect(identifierLike(value)).toBe(false)
    }
  })

  it("a placeholder names the kind and nothing of the value; hasPlaceholder finds it", () => {
    const masked = maskText("GITHUB_TOKEN=ghp_R4nd0mT0k3nV4lu3F0rT3st1ng0123456789\n", { style: "env" })
    expect(masked.text).toBe("GITHUB_TOKEN=‹secret: GitHub token›\n")
    expect(Secrets.hasPlaceholder(masked.text)).toBe(true)
    expect(Secrets.hasPlaceholder("GITHUB_TOKEN=ghp_x")).toBe(false)
    // Two different values are masked alike: nothing tells them apart or leads back.
    expect(maskText("GITHUB_TOKEN=ghp_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA1\n", { style: "env" }).text).toBe(masked.text)
  })

  it("finds private keys by content, of every armour", () => {
    expect(Secrets.privateKeyIn("-----BEGIN OPENSSH PRIVATE KEY-----\nb3Bl\n")).toBe("OpenSSH private key")
    expect(Secrets.privateKeyIn("x\n-----BEGIN EC PRIVATE KEY-----\n")).toBe("PEM private key")
    expect(Secrets.privateKeyIn("-----BEGIN PGP PRIVATE KEY BLOCK-----\n")).toBe("PGP private key")
    expect(Secrets.privateKeyIn("PuTTY-User-Key-File-3: ssh-ed25519\nPrivate-Lines: 1\nAAAA\n")).toBe(
      "PuTTY private key"
    )
    expect(Secrets.privateKeyIn("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")).toBeUndefined()
    expect(Secrets.privateKeyIn("-----BEGIN PUBLIC KEY-----\n")).toBeUndefined()
    const putty =
      "PuTTY-User-Key-File-3: ssh-ed25519\nPublic-Lines: 1\nAAAAC3Nz\nPrivate-Lines: 1\nAAAAIGzY1q2w3e4r5t6y7u8i9o0p\nPrivate-MAC: 0f1e2d3c4b5a\n"
    expect(maskText(putty).text).toBe(
      "PuTTY-User-Key-File-3: ssh-ed25519\nPublic-Lines: 1\nAAAAC3Nz\nPrivate-Lines: 1\n‹secret: private key›\n‹secret: private key›\n"
    )
  })
})

// -----------------------------------------------------------------------------
// Random secrets in random text
// -----------------------------------------------------------------------------

const chars = (alphabet: string, min: number, max: number = min) =>
  fc.array(fc.constantFrom(...alphabet), { minLength: min, maxLength: max }).map((a) => a.join(""))
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
const HEX = "0123456789abcdef"
const B64URL = `${ALNUM}_-`
/** A random string of `alphabet` holding at least one upper-case letter, one lower-case letter and one digit. */
const mixed = (alphabet: string, min: number, max: number = min) =>
  fc.tuple(
    chars(alphabet, min - 3, max - 3),
    chars("ABCDEFGHJKLMNPQRSTUVWXYZ", 1),
    chars("abcdefghijkmnopqrstuvwxyz", 1),
    chars("23456789", 1)
  )
    .map(([rest, u, l, d]) => `${u}${rest}${l}${d}`)

/** Every token shape the masker knows, with random bodies. */
const tokenShapes = fc.oneof(
  chars("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16).map((body) => `AKIA${body}`),
  mixed(ALNUM, 36).map((body) => `ghp_${body}`),
  mixed(ALNUM, 36).map((body) => `gho_${body}`),
  mixed(`${ALNUM}_`, 82).map((body) => `github_pat_${body}`),
  mixed(B64URL, 20).map((body) => `glpat-${body}`),
  fc.tuple(chars("0123456789", 12), chars("0123456789", 13), mixed(ALNUM, 24)).map(([a, b, c]) =>
    `xoxb-${a}-${b}-${c}`
  ),
  mixed(ALNUM, 24, 99).map((body) => `sk_live_${body}`),
  mixed(ALNUM, 24).map((body) => `rk_test_${body}`),
  mixed(ALNUM, 32).map((body) => `whsec_${body}`),
  mixed(B64URL, 40, 95).map((body) => `sk-ant-api03-${body}`),
  mixed(B64URL, 40, 120).map((body) => `sk-proj-${body}`),
  mixed(ALNUM, 48).map((body) => `sk-${body}`),
  mixed(B64URL, 35).map((body) => `AIza${body}`),
  mixed(B64URL, 40).map((body) => `ya29.${body}`),
  mixed(ALNUM, 36).map((body) => `npm_${body}`),
  mixed(B64URL, 60, 120).map((body) => `pypi-AgEIcHlwaS5vcmc${body}`),
  mixed(ALNUM, 34).map((body) => `hf_${body}`),
  fc.tuple(mixed(B64URL, 22), mixed(B64URL, 43)).map(([a, b]) => `SG.${a}.${b}`),
  chars(HEX, 32).map((body) => `shpat_${body}`),
  chars(HEX, 64).map((body) => `dop_v1_${body}`),
  fc.tuple(mixed(B64URL, 20, 60), mixed(B64URL, 20, 200), chars(B64URL, 0, 86)).map(([h, p, s]) =>
    `eyJ${h}.eyJ${p}.${s}`
  )
)

/** Names a person gives a secret in an env file, and values a person gives it. */
const envKeys = fc.constantFrom(
  "API_KEY",
  "DB_PASSWORD",
  "SECRET_KEY_BASE",
  "AUTH_TOKEN",
  "CLIENT_SECRET",
  "STRIPE_SECRET",
  "SMTP_PASS",
  "ENCRYPTION_KEY",
  "GITHUB_TOKEN",
  "PRIVATE_KEY",
  "MYSQL_ROOT_PASSWORD",
  "SLACK_BOT_TOKEN"
)
const envValues = fc.oneof(
  mixed(`${ALNUM}!@%^&*_+-=.,/`, 4, 40),
  chars(HEX, 16, 64).filter((value) => /[a-f]/.test(value) && /\d/.test(value)),
  tokenShapes
)
const jsonKeys = fc.constantFrom(
  "password",
  "client_secret",
  "apiKey",
  "access_token",
  "secret",
  "privateKey",
  "auth_token"
)

/** A random value that does not read as a name: `7x9` (a lone lower-case letter) is in no word. */
const notAName = (alphabet: string) =>
  fc.tuple(mixed(alphabet, 13, 45), fc.nat()).map(([value, at]) => {
    const cut = at % (value.length + 1)
    return `${value.slice(0, cut)}7x9${value.slice(cut)}`
  })

/** A secret in its setting: the line that holds it (in a file of `style`) and the values that must not survive. */
interface Planted {
  readonly lines: ReadonlyArray<string>
  readonly secrets: ReadonlyArray<string>
}

const planted = (style: "env" | "config" | "code"): fc.Arbitrary<Planted> =>
  fc.oneof(
    // A token anywhere in a line, among words.
    fc.tuple(
      tokenShapes,
      fc.constantFrom("", "token: ", "curl -H 'Authorization: Bearer ", "# old key ", "url=https://x/?k=")
    ).map((
      [token, before]
    ) => ({ lines: [`${before}${token} end`], secrets: [token] })),
    // An assignment whose key names a secret.
    style === "env"
      ? fc.tuple(envKeys, envValues, fc.constantFrom("", "export ", "  ")).map(([key, value, lead]) => ({
        lines: [`${lead}${key}=${value}`],
        secrets: [value]
      }))
      // In structured data and code a value must not read as a name (`"output_token": "NextToken"`
      // is not masked, by design).
      : style === "config"
      ? fc.tuple(jsonKeys, notAName(`${ALNUM}_-`)).map(([key, value]) => ({
        lines: [`  "${key}": "${value}",`],
        secrets: [value]
      }))
      : fc.tuple(jsonKeys, notAName(ALNUM)).map(([key, value]) => ({
        lines: [`const ${key} = "${value}"`],
        secrets: [value]
      })),
    // A password in a URL.
    fc.tuple(mixed(`${ALNUM}!*_.~`, 6, 30)).map(([password]) => ({
      lines: [`DATABASE=postgres://app:${password}@db:5432/app`],
      secrets: [password]
    })),
    // A private key block.
    fc.tuple(
      fc.array(chars(`${ALNUM}+/`, 64), { minLength: 1, maxLength: 12 }),
      chars(`${ALNUM}+/`, 4, 60),
      fc.constantFrom("RSA ", "EC ", "", "OPENSSH ")
    ).map((
      [body, last, kind]
    ) => ({
      lines: [`-----BEGIN ${kind}PRIVATE KEY-----`, ...body, `${last}==`, `-----END ${kind}PRIVATE KEY-----`],
      secrets: [...body, `${last}==`].filter((line) => line.length >= 8)
    }))
  )

/** Ordinary lines: words, numbers and punctuation (nothing secret-shaped). */
const ordinaryLine = fc.array(
  fc.constantFrom("the", "port", "3000", "value", "=", "{", "}", "return", "// note", "x", "list", "-", "ok"),
  {
    maxLength: 10
  }
).map((words) => words.join(" "))

const fileOf = (style: "env" | "config" | "code") =>
  fc.tuple(
    fc.array(ordinaryLine, { maxLength: 30 }),
    fc.array(fc.tuple(planted(style), fc.nat()), { minLength: 1, maxLength: 6 })
  ).map(
    ([ordinary, secrets]) => {
      // Each setting goes whole between two ordinary lines (never inside another one).
      const at = (n: number) => n % (ordinary.length + 1)
      const sorted = [...secrets].sort(([, a], [, b]) => at(a) - at(b))
      const lines: Array<string> = []
      let next = 0
      for (const [plant, position] of sorted) {
        lines.push(...ordinary.slice(next, at(position)), ...plant.lines)
        next = at(position)
      }
      lines.push(...ordinary.slice(next))
      return { text: lines.join("\n"), secrets: secrets.flatMap(([plant]) => plant.secrets) }
    }
  )

const nameOf = { env: ".env", config: "settings.json", code: "app.ts" } as const

describe("random secrets in random text never survive", () => {
  it.prop(
    "maskText: no secret left, the same number of lines, ordinary lines untouched",
    [
      fc.constantFrom("env" as const, "config" as const, "code" as const).chain((style) =>
        fileOf(style).map((file) => ({ ...file, style }))
      )
    ],
    ([{ secrets, style, text }]) => {
      const masked = maskFile(nameOf[style], text)
      for (const secret of secrets) expect(masked.text).not.toContain(secret)
      const before = text.split("\n")
      const after = masked.text.split("\n")
      expect(after).toHaveLength(before.length)
      before.forEach((line, i) => {
        if (!masked.lines.includes(i)) expect(after[i]).toBe(line)
      })
    },
    { fastCheck: { numRuns: 400 } }
  )

  it.effect.prop(
    "read with layerMask: any page of such a file (from its start, inside a key, a tail) shows no secret",
    [
      fc.constantFrom("env" as const, "config" as const, "code" as const).chain((style) =>
        fileOf(style).map((file) => ({ ...file, style }))
      ),
      fc.integer({ min: -40, max: 60 }),
      fc.integer({ min: 1, max: 40 })
    ],
    ([{ secrets, style, text }, offset, limit]) =>
      Effect.gen(function*() {
        // A final newline ends the last line; it does not start another.
        const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0)
        const params = offset < 0
          ? { filePath: nameOf[style], offset: Math.max(offset, -lines) }
          : { filePath: nameOf[style], offset: Math.min(Math.max(offset, 1), lines), limit }
        const result = yield* Read.read(params).pipe(
          Effect.provide(Layer.merge(memoryLayer({ [`/project/${nameOf[style]}`]: text }), Secrets.layerMask))
        )
        const shown = `${result.output}\n${result.metadata.preview}`
        for (const secret of secrets) expect(shown).not.toContain(secret)
        expect(fieldsOf(result).totalLines).toBe(lines)
      }),
    { fastCheck: { numRuns: 150 } }
  )
})

// -----------------------------------------------------------------------------
// No false positive on ordinary code
// -----------------------------------------------------------------------------

describe("no false positive on ordinary code", () => {
  /**
   * A sample of this repository's node_modules (installed from the lockfile, so the same in CI):
   * Effect's sources, the platform packages, undici, the MCP SDK, TypeScript's declarations, and
   * every package.json. Measured on all of node_modules and two held-out trees, see the README.
   */
  const SAMPLE = [
    ["node_modules/effect/src", /\.ts$/],
    ["node_modules/@effect/platform/src", /\.ts$/],
    ["node_modules/@effect/platform-node/src", /\.ts$/],
    ["node_modules/@effect/cli/src", /\.ts$/],
    ["node_modules/@modelcontextprotocol/sdk/dist/esm", /\.js$/],
    ["node_modules/undici/lib", /\.js$/],
    ["node_modules/typescript/lib", /^lib\..*\.d\.ts$/],
    ["node_modules/picomatch/lib", /\.js$/]
  ] as const

  const walk = (directory: string, pattern: RegExp): Array<string> =>
    fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
      const full = nodePath.join(directory, entry.name)
      return entry.isDirectory() ? walk(full, pattern) : pattern.test(entry.name) ? [full] : []
    })

  it("masks nothing in the sample", () => {
    const files = [
      ...SAMPLE.flatMap(([directory, pattern]) => walk(directory, pattern)),
      ...fs.readdirSync("node_modules").flatMap((name) =>
        name.startsWith("@")
          ? fs.readdirSync(nodePath.join("node_modules", name)).map((scoped) =>
            nodePath.join("node_modules", name, scoped, "package.json")
          )
          : [nodePath.join("node_modules", name, "package.json")]
      ).filter((file) => fs.existsSync(file))
    ]
    let lines = 0
    const masked: Array<string> = []
    for (const file of files) {
      const text = fs.readFileSync(file, "utf8")
      lines += text.split("\n").length
      const result = maskFile(file, text)
      for (const i of result.lines) masked.push(`${file}:${i + 1}: ${text.split("\n")[i]!.slice(0, 120)}`)
    }
    expect(files.length).toBeGreaterThan(1000)
    expect(lines).toBeGreaterThan(400_000)
    expect(masked).toEqual([])
  })
})

// -----------------------------------------------------------------------------
// Through read
// -----------------------------------------------------------------------------

const KEY_LINES = Array.from(
  { length: 6 },
  (_, i) => `MIIEp${String(i).repeat(3)}AIBAAKCAQEAvXj1Vq3m9Qm5nF6pX2zY8c1w0R7t4K9sL3jH2gF5dS6aQ1e`.slice(0, 64)
)
const roots: Array<string> = []
afterAll(() => {
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true })
})
const project = (files: Readonly<Record<string, string>>) => {
  const root = tempDir("effect-read-mask-")
  roots.push(root)
  writeTree(root, files)
  return root
}
const masking = (root: string) => Layer.merge(nodeLayer(root), Secrets.layerMask)

describe("read with Secrets.layerMask", () => {
  const env = "API_KEY=abcd1234efgh5678\nDB_PASSWORD=hunter2-prod\nPORT=3000\n"

  it.effect("off by default; on, the page and preview are masked, numbering kept, metadata counts", () =>
    Effect.gen(function*() {
      const root = project({ ".env": env })
      const plain = yield* Read.read({ filePath: ".env" }).pipe(Effect.provide(nodeLayer(root)))
      expect(plain.output).toContain("2: DB_PASSWORD=hunter2-prod")
      expect(plain.metadata.masked).toBeUndefined()
      const masked = yield* Read.read({ filePath: ".env" }).pipe(Effect.provide(masking(root)))
      expect(masked.output).toContain("1: API_KEY=‹secret: key›\n2: DB_PASSWORD=‹secret: password›\n3: PORT=3000\n")
      expect(masked.metadata.preview).toBe("API_KEY=‹secret: key›\nDB_PASSWORD=‹secret: password›\nPORT=3000")
      expect(masked.metadata).toMatchObject({
        totalLines: 3,
        masked: { secrets: 2, lines: [1, 2], kinds: { key: 1, password: 1 } }
      })
    }))

  it.effect("a page or tail that starts inside a private key masks its lines; a certificate stays", () =>
    Effect.gen(function*() {
      const body = [...KEY_LINES, "abcDEF012=="]
      const certificate = [
        "MIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJRTES",
        "MAGCA1UEChMJQmFsdGltb3JlMRMwEQYDVQQLEwpDeWJlclRydXN0MSIwIAYDVQQD"
      ]
      const pem = [
        "intro",
        "-----BEGIN RSA PRIVATE KEY-----",
        ...body,
        "-----END RSA PRIVATE KEY-----",
        "-----BEGIN CERTIFICATE-----",
        ...certificate,
        "-----END CERTIFICATE-----",
        "outro"
      ]
      const root = project({ "bundle.pem.txt": pem.join("\n") + "\n" })
      const read = (params: object) =>
        Read.read({ filePath: "bundle.pem.txt", ...params }).pipe(Effect.provide(masking(root)))
      // From its start, from inside (its END in view or not), its last line alone, a tail.
      for (
        const params of [{}, { offset: 4, limit: 3 }, { offset: 5 }, { offset: 9, limit: 1 }, { offset: -9 }, {
          offset: 3,
          limit: 1
        }]
      ) {
        const { output } = yield* read(params)
        for (const line of body) expect(output).not.toContain(line)
      }
      // A certificate whose END is in view is shown.
      const cert = yield* read({ offset: 12, limit: 3 })
      expect(cert.output).toContain(`12: ${certificate[0]}\n13: ${certificate[1]}\n14: -----END CERTIFICATE-----`)
    }))

  it.effect("a token cut by the line cap is masked on both sides of the cut", () =>
    Effect.gen(function*() {
      const token = `ghp_${"Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcB"}`
      const line = `${"x ".repeat(996)}${token} tail`
      const root = project({ "long.txt": `${line}\n` })
      const first = yield* Read.read({ filePath: "long.txt" }).pipe(Effect.provide(masking(root)))
      expect(first.output).toContain("‹secret: token (cut)›... (line truncated to 2000 chars")
      expect(first.output).not.toContain("ghp_Zx")
      const rest = yield* Read.read({ filePath: "long.txt", offset: 1, column: 2001 }).pipe(
        Effect.provide(masking(root))
      )
      expect(rest.output).toContain("1: ‹secret: value (cut)› tail")
      expect(rest.output).not.toContain("Lk2Ji1Hg0FeDcB")
    }))

  it.effect("hashline: the tag hashes the masked text; verify never lets an edit write a placeholder", () =>
    Effect.gen(function*() {
      const root = project({ "app.env": env })
      const read = yield* Read.read({ filePath: "app.env", lineFormat: "hashline" }).pipe(Effect.provide(masking(root)))
      const masked = "API_KEY=‹secret: key›\nDB_PASSWORD=‹secret: password›\nPORT=3000\n"
      expect(fieldsOf(read).anchor).toBe(`¶app.env#${Anchors.tagOf(masked)}`)
      expect(Anchors.tagOf(masked)).not.toBe(Anchors.tagOf(env))
      expect(read.output).toContain("2:DB_PASSWORD=‹secret: password›")
      const tag = Anchors.tagOf(masked)
      const verify = (params: Partial<Anchors.VerifyParams>) =>
        Anchors.verifyUnknown({ filePath: "app.env", tag, ...params }).pipe(Effect.provide(masking(root)))
      // The line without a secret may be edited by its number.
      expect((yield* verify({ start: 3 }))._tag).toBe("Valid")
      // The model's own lines, placeholders in them, or the session's record: refused, masked.
      for (
        const params of [{ start: 2 }, { start: 1, end: 2 }, { start: 2, lines: ["DB_PASSWORD=‹secret: password›"] }]
      ) {
        const verdict = yield* verify(params)
        expect(verdict._tag).toBe("Stale")
        expect(verdict.message).toContain("holds a secret value that was masked")
        expect(JSON.stringify(verdict)).not.toContain("hunter2")
      }
      // Nor can verify confirm a guess: the right value and a wrong one get the same answer.
      const right = yield* verify({ start: 2, lines: ["DB_PASSWORD=hunter2-prod"] })
      const wrong = yield* verify({ start: 2, lines: ["DB_PASSWORD=hunter3-prod"] })
      expect(right._tag).toBe("Stale")
      expect(JSON.stringify(right).replaceAll("hunter2", "hunter3")).toBe(JSON.stringify(wrong))
    }))

  it.effect("masked lines are not recorded as read: an Edit guard refuses them", () => {
    const root = project({ ".env": env })
    const path = nodePath.join(root, ".env")
    return Effect.gen(function*() {
      yield* Read.read({ filePath: ".env" })
      const fileTime = yield* FileTime.FileTime
      expect(yield* fileTime.covers("test", path, 3, 3)).toBe(true)
      expect(yield* fileTime.covers("test", path, 2, 2)).toBe(false)
      expect(yield* fileTime.covers("test", path, 1, 3)).toBe(false)
      expect((yield* fileTime.coverage("test", path)).wholeAt).toEqual([])
    }).pipe(Effect.provide(masking(root)))
  })

  it.effect("session memory's diff of a changed file is masked", () => {
    const root = project({ ".env": env })
    return Effect.gen(function*() {
      const read = Read.read({ filePath: ".env" })
      yield* read
      fs.writeFileSync(nodePath.join(root, ".env"), env.replace("hunter2-prod", "hunter3-prod").replace("3000", "3001"))
      const again = yield* read
      expect(again.output).toContain("\n-DB_PASSWORD=‹secret: password›\n")
      expect(again.output).toContain("\n+DB_PASSWORD=‹secret: password›\n")
      expect(again.output).toContain("+PORT=3001")
      expect(again.output).not.toContain("hunter")
    }).pipe(Effect.provide(Layer.merge(masking(root), SessionMemory.layerSession())))
  })

  it.effect("read_many blocks and archive members are masked", () =>
    Effect.gen(function*() {
      const root = project({ ".env": env, "notes.md": "AWS key AKIAIOSFODNN7EXAMPLE here\n" })
      const result = yield* ReadMany.readMany({ files: [{ filePath: ".env" }, { filePath: "notes.md" }] }).pipe(
        Effect.provide(masking(root))
      )
      expect(result.output).toContain("2: DB_PASSWORD=‹secret: password›")
      expect(result.output).toContain("1: AWS key ‹secret: AWS access key ID› here")
      expect(result.output).not.toContain("hunter2")
    }))
})
