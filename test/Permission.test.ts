import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FastCheck from "effect/FastCheck"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import picomatch from "picomatch"
import * as Permission from "../src/Permission.js"
import { PermissionDenied } from "../src/ReadError.js"
import * as Workspace from "../src/Workspace.js"

const request = (
  permission: string,
  patterns: ReadonlyArray<string>,
  always: ReadonlyArray<string> = []
): Permission.PermissionRequest => ({ permission, patterns, always, metadata: {} })

const ask = (req: Permission.PermissionRequest) => Effect.flatMap(Permission.Permission, (p) => p.ask(req))

/** An asker that answers from a script (repeating the last answer) and records every request. */
const recordingAsker = (answers: ReadonlyArray<Permission.Answer>) =>
  Effect.gen(function*() {
    const calls = yield* Ref.make<ReadonlyArray<Permission.PermissionRequest>>([])
    const asker: Permission.Asker = (req) =>
      Ref.modify(calls, (seen) => [answers[Math.min(seen.length, answers.length - 1)]!, [...seen, req]])
    return { asker, calls: Ref.get(calls) }
  })

/** Run `body` against `layerRules(rules)` with a recording asker. */
const withRules = <A, E>(
  rules: ReadonlyArray<Permission.Rule>,
  answers: ReadonlyArray<Permission.Answer>,
  body: (
    calls: Effect.Effect<ReadonlyArray<Permission.PermissionRequest>>
  ) => Effect.Effect<A, E, Permission.Permission>
) =>
  Effect.gen(function*() {
    const { asker, calls } = yield* recordingAsker(answers)
    return yield* body(calls).pipe(Effect.provide(Permission.layerRules(rules, { asker })))
  })

describe("Permission.evaluate", () => {
  it("the last matching rule wins", () => {
    const rules: ReadonlyArray<Permission.Rule> = [
      { permission: "read", pattern: "*", action: "deny" },
      { permission: "read", pattern: "src/*", action: "allow" },
      { permission: "read", pattern: "src/secret/*", action: "ask" }
    ]
    expect(Permission.evaluate(rules, "read", "README.md")).toBe("deny")
    expect(Permission.evaluate(rules, "read", "src/app.ts")).toBe("allow")
    expect(Permission.evaluate(rules, "read", "src/a/b.ts")).toBe("allow")
    expect(Permission.evaluate(rules, "read", "src/secret/key.pem")).toBe("ask")
    const reordered = [rules[2]!, rules[1]!, rules[0]!]
    expect(Permission.evaluate(reordered, "read", "src/secret/key.pem")).toBe("deny")
  })

  it("no matching rule asks", () => {
    expect(Permission.evaluate([], "read", "a.ts")).toBe("ask")
    expect(Permission.evaluate([{ permission: "edit", pattern: "*", action: "allow" }], "read", "a.ts")).toBe("ask")
  })

  it("a rule's permission may be a glob", () => {
    const rules: ReadonlyArray<Permission.Rule> = [{ permission: "*", pattern: "*", action: "deny" }]
    expect(Permission.evaluate(rules, "read", "a")).toBe("deny")
    expect(Permission.evaluate(rules, "external_directory", "/tmp/*")).toBe("deny")
  })

  it("`*` crosses `/` and matches dotfiles (opencode wildcards)", () => {
    expect(Permission.matches("*.env", "config/.env")).toBe(true)
    expect(Permission.matches("*.env", ".env")).toBe(true)
    expect(Permission.matches("*.env.example", "a/b/.env.example")).toBe(true)
    expect(Permission.matches("src/*", "src/a/b.ts")).toBe(true)
    expect(Permission.matches("*", "/abs/.hidden/file")).toBe(true)
    expect(Permission.matches("*", "")).toBe(true)
    expect(Permission.matches("*", ".")).toBe(true)
    expect(Permission.matches("*.env", "dir/we\nird.env")).toBe(true)
    expect(Permission.matches("*.env", "a.env.bak")).toBe(false)
    expect(Permission.matches("src/*", "lib/src/a.ts")).toBe(false)
    expect(Permission.matches("/home/me/other/*", "/home/me/other/sub/*")).toBe(true)
    expect(Permission.matches("/home/me/other/*", "/home/me/elsewhere/*")).toBe(false)
  })

  it("opencode's defaults for read", () => {
    const rules = Permission.defaultRules
    expect(Permission.evaluate(rules, "read", ".env")).toBe("ask")
    expect(Permission.evaluate(rules, "read", "config/.env")).toBe("ask")
    expect(Permission.evaluate(rules, "read", "a/.env.local")).toBe("ask")
    expect(Permission.evaluate(rules, "read", ".env.production")).toBe("ask")
    expect(Permission.evaluate(rules, "read", ".env.example")).toBe("allow")
    expect(Permission.evaluate(rules, "read", "a/b/.env.example")).toBe("allow")
    expect(Permission.evaluate(rules, "read", "src/app.ts")).toBe("allow")
    expect(Permission.evaluate(rules, "read", "")).toBe("allow")
    expect(Permission.evaluate(rules, "external_directory", "/etc/*")).toBe("ask")
    expect(Permission.evaluate(rules, "external_directory", "/home/me/other/*")).toBe("ask")
  })

  it("compiles a rule set once", () => {
    const rules: ReadonlyArray<Permission.Rule> = [{ permission: "read", pattern: "*", action: "allow" }]
    expect(Permission.compile(rules)).toBe(Permission.compile(rules))
  })

  const action = FastCheck.constantFrom<Permission.Action>("allow", "ask", "deny")
  const rule = FastCheck.record({
    permission: FastCheck.oneof(FastCheck.constantFrom("*", "read", "external_directory"), FastCheck.string()),
    pattern: FastCheck.oneof(FastCheck.constantFrom("*", "*.env", "src/*", "*.env.*"), FastCheck.string()),
    action
  })

  it.prop(
    "a final catch-all rule decides everything",
    {
      rules: FastCheck.array(rule, { maxLength: 8 }),
      last: action,
      permission: FastCheck.oneof(FastCheck.constantFrom("read", "external_directory"), FastCheck.string()),
      pattern: FastCheck.oneof(
        FastCheck.constantFrom("", ".", "..", ".env", "../x", "a/.env.local"),
        FastCheck.string({ unit: "binary" })
      )
    },
    ({ last, pattern, permission, rules }) => {
      const all = [...rules, { permission: "*", pattern: "*", action: last }]
      expect(Permission.evaluate(all, permission, pattern)).toBe(last)
    }
  )

  /** Globs and inputs made of what the rules' globs are made of: literals, `.`, `/`, stars, `?`, and some that are not plain. */
  const piece = FastCheck.constantFrom("a", "b", "id_rsa", ".", "..", "/", "*", "**", "?", "-", "_", "~", "env", ".env")
  const odd = FastCheck.constantFrom("[ab]", "{a,b}", "!", "+(a)", "\\*", "é", " ")
  const globOf = FastCheck.array(FastCheck.oneof({ weight: 9, arbitrary: piece }, { weight: 1, arbitrary: odd }), {
    maxLength: 7
  }).map((parts) => parts.join(""))

  it.prop(
    "a glob matches exactly what picomatch matches (the required-literal shortcut never changes an answer)",
    {
      glob: FastCheck.oneof(
        globOf,
        FastCheck.constantFrom(...Permission.secretRules({}).map((rule) => rule.pattern))
      ),
      inputs: FastCheck.array(FastCheck.oneof(globOf, FastCheck.string()), { maxLength: 6 })
    },
    ({ glob, inputs }) => {
      const hide = (s: string) =>
        s.replace(/^(?:\.\.?(?:\/|$))+/, (segments) => segments.replace(/\.\./g, "\uE000").replace(/\./g, "\uE001"))
      const reference = /^\*+$/.test(glob)
        ? () => true
        : glob === ""
        ? (input: string) => input === ""
        : (input: string) => picomatch(hide(glob), Permission.globOptions)(hide(input))
      const compiled = Permission.compileGlob(glob)
      // The glob's own text and its pieces are likely matches: the shortcut must let them through.
      for (const input of [...inputs, glob.replaceAll("*", ""), glob.replaceAll("*", "x"), glob.replaceAll("?", "q")]) {
        expect([glob, input, compiled(input)]).toEqual([glob, input, reference(input)])
      }
    },
    { fastCheck: { numRuns: 2000 } }
  )

  it.prop(
    "evaluate never throws and answers an action",
    { rules: FastCheck.array(rule, { maxLength: 8 }), permission: FastCheck.string(), pattern: FastCheck.string() },
    ({ pattern, permission, rules }) => {
      expect(["allow", "ask", "deny"]).toContain(Permission.evaluate(rules, permission, pattern))
    }
  )
})

describe("Permission layers", () => {
  it.effect("allow-all allows", () =>
    ask(request("read", ["anything", ".env"])).pipe(Effect.provide(Permission.layerAllowAll)))

  it.effect("deny-all denies by rule", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(ask(request("read", ["src/a.ts"])))
      expect(error).toBeInstanceOf(PermissionDenied)
      expect(error.reason).toBe("rule")
      expect(error.permission).toBe("read")
      expect(error.patterns).toEqual(["src/a.ts"])
      expect(error.message).toBe("Permission denied: reading src/a.ts is not allowed in this session. Do not retry it.")
    }).pipe(Effect.provide(Permission.layerDenyAll)))

  it.effect("allowed patterns never call the asker", () =>
    withRules(Permission.defaultRules, ["reject"], (calls) =>
      Effect.gen(function*() {
        yield* ask(request("read", ["src/app.ts", ".env.example"]))
        expect(yield* calls).toEqual([])
      })))

  it.effect("reject fails with PermissionDenied(rejected)", () =>
    withRules(Permission.defaultRules, ["reject"], (calls) =>
      Effect.gen(function*() {
        const req = request("read", ["config/.env"], ["config/.env"])
        const error = yield* Effect.flip(ask(req))
        expect(error).toBeInstanceOf(PermissionDenied)
        expect(error.reason).toBe("rejected")
        expect(error.permission).toBe("read")
        expect(error.patterns).toEqual(["config/.env"])
        expect(error.message).toBe("Permission denied: the user refused reading config/.env.")
        // The asker is told which rule asks.
        expect(yield* calls).toEqual([{ ...req, metadata: { rule: "*.env" } }])
      })))

  it.effect("rejected external directory reads say so", () =>
    withRules(Permission.defaultRules, ["reject"], () =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(ask(request("external_directory", ["/etc/*"])))
        expect(error.message).toBe("Permission denied: the user refused reading outside the project (/etc/*).")
      })))

  it.effect("the default asker rejects", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(ask(request("read", [".env"])))
      expect(error.reason).toBe("rejected")
    }).pipe(Effect.provide(Permission.layerRules(Permission.defaultRules))))

  it.effect("once allows this time and asks again next time", () =>
    withRules(Permission.defaultRules, ["once"], (calls) =>
      Effect.gen(function*() {
        yield* ask(request("read", [".env"], ["*.env"]))
        yield* ask(request("read", [".env"], ["*.env"]))
        expect((yield* calls).length).toBe(2)
      })))

  it.effect("always remembers the `always` patterns for the session", () =>
    withRules(Permission.defaultRules, ["always", "reject"], (calls) =>
      Effect.gen(function*() {
        yield* ask(request("read", [".env"], ["*.env"]))
        yield* ask(request("read", [".env"], ["*.env"]))
        yield* ask(request("read", ["config/.env"], ["config/.env"]))
        expect((yield* calls).length).toBe(1)
        // `*.env.*` was not approved: asked again, and this time rejected.
        const error = yield* Effect.flip(ask(request("read", [".env.local"])))
        expect(error.reason).toBe("rejected")
        expect((yield* calls).length).toBe(2)
      })))

  it.effect("always without `always` patterns remembers the request's patterns", () =>
    withRules(Permission.defaultRules, ["always", "reject"], (calls) =>
      Effect.gen(function*() {
        yield* ask(request("external_directory", ["/home/me/other/*"]))
        yield* ask(request("external_directory", ["/home/me/other/*"]))
        yield* ask(request("external_directory", ["/home/me/other/sub/*"]))
        expect((yield* calls).length).toBe(1)
        const error = yield* Effect.flip(ask(request("external_directory", ["/etc/*"])))
        expect(error.reason).toBe("rejected")
      })))

  it.effect("approvals are per permission", () =>
    withRules(
      [{ permission: "*", pattern: "*", action: "ask" }],
      ["always", "reject"],
      (calls) =>
        Effect.gen(function*() {
          yield* ask(request("read", ["a.ts"], ["*"]))
          yield* ask(request("read", ["b.ts"]))
          const error = yield* Effect.flip(ask(request("edit", ["a.ts"])))
          expect(error.permission).toBe("edit")
          expect((yield* calls).length).toBe(2)
        })
    ))

  it.effect("approvals last only as long as the layer", () =>
    Effect.gen(function*() {
      const { asker, calls } = yield* recordingAsker(["always"])
      const layer = Permission.layerRules(Permission.defaultRules, { asker })
      yield* ask(request("read", [".env"])).pipe(Effect.provide(layer))
      yield* ask(request("read", [".env"])).pipe(Effect.provide(layer))
      expect((yield* calls).length).toBe(2)
    }))

  it.effect("deny beats ask, without asking", () =>
    withRules(
      [
        { permission: "read", pattern: "*", action: "ask" },
        { permission: "read", pattern: "secret/*", action: "deny" }
      ],
      ["always"],
      (calls) =>
        Effect.gen(function*() {
          const error = yield* Effect.flip(ask(request("read", ["a.ts", "secret/key", "secret/b"])))
          expect(error.reason).toBe("rule")
          expect(error.patterns).toEqual(["secret/key", "secret/b"])
          expect(yield* calls).toEqual([])
        })
    ))

  it.effect("an `always` approval never overrides a deny rule", () =>
    withRules(
      [
        { permission: "read", pattern: "*", action: "ask" },
        { permission: "read", pattern: "secret/*", action: "deny" }
      ],
      ["always"],
      () =>
        Effect.gen(function*() {
          yield* ask(request("read", ["a.ts"], ["*"]))
          const error = yield* Effect.flip(ask(request("read", ["secret/key"])))
          expect(error.reason).toBe("rule")
        })
    ))

  it.effect("several patterns: one ask prompts once for the whole request", () =>
    withRules(Permission.defaultRules, ["once"], (calls) =>
      Effect.gen(function*() {
        const req = request("read", ["src/a.ts", ".env", "b/.env.local"])
        yield* ask(req)
        expect(yield* calls).toEqual([{ ...req, metadata: { rule: "*.env" } }])
      })))

  it.effect("several patterns: asks only while some ask-pattern is unapproved", () =>
    withRules(Permission.defaultRules, ["always", "reject"], (calls) =>
      Effect.gen(function*() {
        yield* ask(request("read", [".env"], ["*.env"]))
        yield* ask(request("read", ["src/a.ts", "x/.env"]))
        expect((yield* calls).length).toBe(1)
        const exit = yield* Effect.exit(ask(request("read", ["x/.env", ".env.local"])))
        expect(Exit.isFailure(exit)).toBe(true)
        expect((yield* calls).length).toBe(2)
      })))

  it.effect("concurrent asks for the same path prompt once after `always`", () =>
    withRules(Permission.defaultRules, ["always", "reject"], (calls) =>
      Effect.gen(function*() {
        yield* Effect.all(
          Array.from({ length: 5 }, () => ask(request("read", [".env"]))),
          { concurrency: "unbounded" }
        )
        expect((yield* calls).length).toBe(1)
      })))

  it.effect("an empty request is allowed", () =>
    ask(request("read", [])).pipe(Effect.provide(Permission.layerRules([]))))

  it.effect("layerDefault uses the default rules", () =>
    Effect.gen(function*() {
      yield* ask(request("read", ["src/app.ts"]))
      const error = yield* Effect.flip(ask(request("read", [".env"])))
      expect(error.reason).toBe("rejected")
    }).pipe(Effect.provide(Layer.fresh(Permission.layerDefault()))))
})

describe("the front doors' secret rules (Permission.secretRules)", () => {
  const rules = [{ permission: "*", pattern: "*", action: "allow" } as const, ...Permission.secretRules()]
  const decide = (permission: string, pattern: string) => Permission.evaluate(rules, permission, pattern)

  it("env files ask, their templates are allowed; with masking they are read", () => {
    for (const pattern of [".env", "config/.env", ".env.local", "app/.env.production", "../other/.env"]) {
      expect(decide("read", pattern)).toBe("ask")
    }
    for (const pattern of [".env.example", "a/.env.sample", ".env.template", "src/env.ts"]) {
      expect(decide("read", pattern)).toBe("allow")
    }
    const masked = [
      { permission: "*", pattern: "*", action: "allow" } as const,
      ...Permission.secretRules({ maskSecrets: true })
    ]
    expect(Permission.evaluate(masked, "read", ".env")).toBe("allow")
    expect(Permission.evaluate(masked, "read", ".ssh/id_rsa")).toBe("deny")
  })

  it("private keys and credential stores are denied by name, at any depth and outside the project", () => {
    for (
      const pattern of [
        "id_rsa",
        ".ssh/id_ed25519",
        "../../home/me/.ssh/id_ecdsa",
        "/home/me/.ssh/id_dsa",
        "keys/deploy.ppk",
        "certs/client.p12",
        "../.gnupg/private-keys-v1.d/ABC.key",
        ".netrc",
        "../me/.pgpass",
        "/home/me/.aws/credentials",
        ".git-credentials",
        "../.kube/config",
        "cluster.kubeconfig",
        "/home/me/.docker/config.json",
        "/home/me/.config/gh/hosts.yml",
        "bundle.zip/.aws/credentials"
      ]
    ) expect(decide("read", pattern), pattern).toBe("deny")
    for (
      const pattern of [
        ".ssh/id_rsa.pub",
        ".ssh/known_hosts",
        ".ssh/config",
        ".aws/config",
        "certs/ca.pem",
        "src/keys.ts",
        "kube/config.go"
      ]
    ) {
      expect(decide("read", pattern), pattern).toBe("allow")
    }
  })

  it("what a file holds is decided by its own permissions: any private key denied, credentials in registry config denied", () => {
    expect(decide("read_private_key", "certs/server.pem")).toBe("deny")
    expect(decide("read_private_key", "notes.txt")).toBe("deny")
    expect(decide("read_secret", "src/config.ts")).toBe("allow")
    for (const pattern of [".npmrc", "web/.npmrc", "/home/me/.pypirc", ".yarnrc.yml", "/home/me/.m2/settings.xml"]) {
      expect(decide("read_secret", pattern), pattern).toBe("deny")
    }
  })

  it("rules appended after them win (the doors' --allow, a rules file)", () => {
    const allowed = [
      ...rules,
      ...["read", "read_private_key"].map((permission) => ({
        permission,
        pattern: "test/fixtures/*",
        action: "allow" as const
      }))
    ]
    expect(Permission.evaluate(allowed, "read_private_key", "test/fixtures/key.pem")).toBe("allow")
    expect(Permission.evaluate(allowed, "read", "test/fixtures/id_rsa")).toBe("allow")
    expect(Permission.evaluate(allowed, "read_private_key", "certs/key.pem")).toBe("deny")
  })

  it.effect("a rules file is a JSON array of rules, or { rules }; anything else says what is wrong", () =>
    Effect.gen(function*() {
      const rule = { permission: "read", pattern: "*.env", action: "allow" }
      expect(yield* Permission.decodeRules([rule])).toEqual([rule])
      expect(yield* Permission.decodeRules({ rules: [rule] })).toEqual([rule])
      const bad = yield* Effect.flip(Permission.decodeRules([{ ...rule, action: "sometimes" }]))
      expect(bad).toContain("sometimes")
      expect(yield* Effect.flip(Permission.decodeRules({ allow: ["*.env"] }))).toContain("rules")
    }))
})

describe("asking, per conversation and per request", () => {
  const inSession = (sessionId: string) => Effect.provide(Workspace.layer({ directory: "/p", sessionId }))

  it.effect("an `always` answer is remembered for its conversation only", () =>
    withRules(Permission.defaultRules, ["always"], (calls) =>
      Effect.gen(function*() {
        const env = request("read", [".env"], [".env"])
        yield* ask(env).pipe(inSession("conversation-a"))
        yield* ask(env).pipe(inSession("conversation-a"))
        expect(yield* calls).toHaveLength(1)
        // Another conversation (another MCP session) was never asked.
        yield* ask(env).pipe(inSession("conversation-b"))
        expect(yield* calls).toHaveLength(2)
        const check = Effect.flatMap(Permission.Permission, (p) => p.check(env))
        expect(yield* check.pipe(inSession("conversation-a"))).toBe("allow")
        expect(yield* check.pipe(inSession("conversation-c"))).toBe("ask")
      })))

  it.effect("askPrompt asks whoever the request's Prompt holds; by default nobody can be asked", () =>
    Effect.gen(function*() {
      const rules = [{ permission: "read", pattern: "*", action: "ask" } as const]
      const service = yield* Permission.make(rules, { asker: Permission.askPrompt })
      const nobody = yield* Effect.flip(service.ask(request("read", ["a.txt"])))
      expect(nobody).toMatchObject({
        _tag: "PermissionDenied",
        reason: "unavailable",
        detail: "nobody can be asked here"
      })
      expect(nobody.message).toBe(
        "Permission denied: reading a.txt needs the user's approval, and the user could not be asked (nobody can be asked here). Do not retry it."
      )
      const asked: Array<Permission.PermissionRequest> = []
      yield* service.ask(request("read", ["a.txt"])).pipe(
        Effect.provideService(Permission.Prompt, (req) => Effect.sync(() => (asked.push(req), "once" as const)))
      )
      expect(asked.map((req) => req.metadata)).toEqual([{ rule: "*" }])
      const hinted = yield* Effect.flip(
        service.ask(request("read", ["b.txt"])).pipe(
          Effect.provideService(
            Permission.Prompt,
            Permission.unavailable("no terminal", (req) => `Allow ${req.patterns[0]} with --allow.`)
          )
        )
      )
      expect(hinted.message).toBe(
        "Permission denied: reading b.txt needs the user's approval, and the user could not be asked (no terminal). Do not retry it. Allow b.txt with --allow."
      )
    }))
})
