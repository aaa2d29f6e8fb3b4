/**
 * The permission seam. `read` asks before it touches anything:
 * `external_directory` (pattern `<dir>/*`) for targets outside the worktree, then `read`
 * (pattern: the path relative to the worktree, absolute when outside). Once a file is open, what
 * its first bytes hold is asked about under its own permission, with the same patterns:
 * `read_private_key` (a private-key block) and `read_secret` (a credential the masker finds).
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import picomatch from "picomatch"
import { withLeanSpan } from "./internal/io/spans.js"
import { PermissionDenied } from "./ReadError.js"
import { Workspace } from "./Workspace.js"

export interface PermissionRequest {
  readonly permission: string
  readonly patterns: ReadonlyArray<string>
  /** Patterns to remember as allowed for the session when the user answers `always`. */
  readonly always: ReadonlyArray<string>
  readonly metadata: Readonly<Record<string, unknown>>
}

export interface PermissionShape {
  /** Allow the request, or fail: a rule denied it, or whoever was asked said no. */
  readonly ask: (request: PermissionRequest) => Effect.Effect<void, PermissionDenied>
  /**
   * What `ask` would decide for the request, without asking anyone: `"deny"` when any pattern
   * is denied, `"ask"` when one would be asked, `"allow"` otherwise. `read` uses it to keep
   * denied paths out of the suggestions it offers for a missing path.
   */
  readonly check: (request: PermissionRequest) => Effect.Effect<Action>
}

export class Permission extends Context.Tag("effect-read/Permission")<Permission, PermissionShape>() {}

export type Action = "allow" | "ask" | "deny"

export interface Rule {
  readonly permission: string
  /** A glob over the request's pattern; `*` also matches `/` (as in opencode). */
  readonly pattern: string
  readonly action: Action
}

/** What the user answered to an `ask`. */
export type Answer = "once" | "always" | "reject"

/**
 * Who answers an `ask`. It may fail with its own `PermissionDenied` when nobody could be asked
 * (reason `"unavailable"`) or nobody answered in time (`"unanswered"`). The request's metadata
 * carries `rule`: the `ask` rule's glob that matched.
 */
export type Asker = (request: PermissionRequest) => Effect.Effect<Answer, PermissionDenied>

/** The permissions asked about what an open file holds (see the module comment). */
export const contentPermissions = {
  /** A private-key block (PEM, OpenSSH, PGP, PuTTY) in the file's first 64 KB. */
  privateKey: "read_private_key",
  /** A credential the masker finds in the file's first 64 KB (a token, a password assignment). */
  secret: "read_secret"
} as const

const RuleSchema = Schema.Struct({
  permission: Schema.String,
  pattern: Schema.String,
  action: Schema.Literal("allow", "ask", "deny")
})

/**
 * A rules file: a JSON array of rules, or `{ "rules": [...] }`. What `--rules FILE` reads; the same
 * list `layerRules` takes.
 */
export const RulesFile = Schema.Union(
  Schema.Array(RuleSchema),
  Schema.Struct({ rules: Schema.Array(RuleSchema) })
).annotations({ identifier: "RulesFile" })

/** The rules of a parsed rules file (`RulesFile`), or why they are not rules. */
export const decodeRules = (json: unknown): Effect.Effect<ReadonlyArray<Rule>, string> =>
  Schema.decodeUnknown(RulesFile)(json).pipe(
    Effect.map((file) => "rules" in file ? file.rules : file),
    Effect.mapError((error) => error.message)
  )

// -----------------------------------------------------------------------------
// Glob matching
// -----------------------------------------------------------------------------

/**
 * The picomatch options behind every rule glob (both the rule's `permission` and `pattern`).
 *
 * - `bash: true` makes `*` cross `/` (picomatch's bash mode compiles a star to `.*?`), which is
 *   opencode's wildcard semantics: `*.env` matches `config/.env`, `src/*` matches `src/a/b.ts`.
 * - `dot: true` lets `*` match dotfiles (`*.env` matches `.env`).
 * - `flags: "s"` lets `*` match a newline too: file names may contain one, and a rule must not
 *   silently stop applying to them.
 *
 * Two picomatch refusals remain even with these options and are patched in `compileGlob`:
 * an empty string never matches, and neither does a string that starts with a `.` or `..`
 * segment (`.`, `../x`). A glob made only of stars (`*`, `**`) matches every string without
 * consulting picomatch, and leading dot segments are swapped for private-use characters in
 * both the glob and the input, so `*.env` matches `../other/.env` (a file outside the
 * worktree is asked as `../other/.env`) and `../other/*` matches it too.
 */
export const globOptions: { readonly dot: true; readonly bash: true; readonly flags: "s" } = {
  dot: true,
  bash: true,
  flags: "s"
}

const STARS = /^\*+$/
const LEADING_DOT_SEGMENTS = /^(?:\.\.?(?:\/|$))+/

/** `../../x` → `\uE000/\uE000/x`: picomatch never matches a leading `.` or `..` segment. */
const hideDotSegments = (input: string): string =>
  input.replace(LEADING_DOT_SEGMENTS, (segments) => segments.replace(/\.\./g, "\uE000").replace(/\./g, "\uE001"))

/**
 * Compile one rule glob into a predicate. picomatch compiles at the first call that needs it: a
 * rule set is looked at from its last rule and stops at the first match, and an input without the
 * glob's required literal (`requiredLiteral`) is answered without it, so most of a large set's
 * globs (the secret rules' file names) are never compiled, and building the set costs nothing at
 * start-up.
 */
export const compileGlob = (glob: string): (input: string) => boolean => {
  if (STARS.test(glob)) return () => true
  // picomatch rejects an empty glob; the only string it can mean is the empty string.
  if (glob === "") return (input) => input === ""
  const hidden = hideDotSegments(glob)
  const literal = requiredLiteral(hidden)
  let matcher: ((input: string) => boolean) | undefined
  return (input) => {
    const subject = hideDotSegments(input)
    return (literal === undefined || subject.includes(literal)) &&
      (matcher ??= picomatch(hidden, globOptions))(subject)
  }
}

/** A glob of literal characters, `/`, `*` and `?` only: no class, brace, extglob, negation or escape. */
const PLAIN_GLOB = /^[\w.~\-/*?\uE000\uE001]+$/

/**
 * The longest run of a plain glob's literal characters within one path segment, which every
 * string the glob matches holds (a `/` next to `**` may match nothing, so runs stop at `/`); for
 * other globs, undefined. An input without it cannot match: its glob is never compiled (the
 * secret rules' globs, looked at for every read, mostly name files a read is not of).
 */
const requiredLiteral = (glob: string): string | undefined => {
  if (!PLAIN_GLOB.test(glob)) return undefined
  const longest = glob.split(/[/*?]+/).reduce((a, b) => (b.length > a.length ? b : a), "")
  return longest === "" ? undefined : longest
}

/** Does `input` match the rule glob `glob`? Compiles on every call: prefer `compile` for rule sets. */
export const matches = (glob: string, input: string): boolean => compileGlob(glob)(input)

interface CompiledRule {
  readonly permission: (input: string) => boolean
  readonly pattern: (input: string) => boolean
  readonly action: Action
}

const compileRule = (rule: Rule): CompiledRule => ({
  permission: compileGlob(rule.permission),
  pattern: compileGlob(rule.pattern),
  action: rule.action
})

/** A rule set compiled once: `(permission, pattern) => action`, the last matching rule winning. */
export type Evaluator = (permission: string, pattern: string) => Action

const evaluateCompiled = (rules: ReadonlyArray<CompiledRule>, permission: string, pattern: string): Action => {
  for (let i = rules.length - 1; i >= 0; i--) {
    const rule = rules[i]!
    if (rule.permission(permission) && rule.pattern(pattern)) return rule.action
  }
  return "ask"
}

const compiledSets = new WeakMap<
  ReadonlyArray<Rule>,
  { readonly rules: ReadonlyArray<CompiledRule>; readonly evaluator: Evaluator }
>()

/** A rule set's rules compiled once (cached per array identity), with their `Evaluator`. */
const compiledSet = (rules: ReadonlyArray<Rule>) => {
  const cached = compiledSets.get(rules)
  if (cached !== undefined) return cached
  const compiled = rules.map(compileRule)
  const set = {
    rules: compiled,
    evaluator: (permission: string, pattern: string) => evaluateCompiled(compiled, permission, pattern)
  }
  compiledSets.set(rules, set)
  return set
}

const compiledRules = (rules: ReadonlyArray<Rule>): ReadonlyArray<CompiledRule> => compiledSet(rules).rules

/** Compile a rule set once (cached per array identity) into an `Evaluator`. */
export const compile = (rules: ReadonlyArray<Rule>): Evaluator => compiledSet(rules).evaluator

/**
 * What the rule set says about `pattern` under `permission`: the LAST rule whose `permission`
 * and `pattern` globs both match wins; no match means `"ask"`. Pure; the matchers are compiled
 * once per rule-set array.
 */
export const evaluate = (rules: ReadonlyArray<Rule>, permission: string, pattern: string): Action =>
  compile(rules)(permission, pattern)

/**
 * opencode's defaults for `read`: everything is allowed except env files, which ask (their
 * `.example` templates are allowed again); any directory outside the worktree asks. What a file
 * holds is not looked at (`read_private_key` and `read_secret` are allowed): see `secretRules`.
 */
export const defaultRules: ReadonlyArray<Rule> = [
  { permission: "read", pattern: "*", action: "allow" },
  { permission: "read", pattern: "*.env", action: "ask" },
  { permission: "read", pattern: "*.env.*", action: "ask" },
  { permission: "read", pattern: "*.env.example", action: "allow" },
  { permission: "external_directory", pattern: "*", action: "ask" },
  { permission: "read_private_key", pattern: "*", action: "allow" },
  { permission: "read_secret", pattern: "*", action: "allow" }
]

/** Env-file templates, allowed again after the env-file asks. */
const ENV_TEMPLATES = ["*.env.example", "*.env.sample", "*.env.template"]

/** Files that are private keys by name (`**\/` is any depth, the project root included). */
const PRIVATE_KEY_NAMES = [
  "**/id_rsa",
  "**/id_dsa",
  "**/id_ecdsa",
  "**/id_ed25519",
  "**/id_ecdsa_sk",
  "**/id_ed25519_sk",
  "**/.ssh/identity",
  "**/*.ppk",
  "**/*.p12",
  "**/*.pfx",
  "**/*.jks",
  "**/*.keystore",
  "**/.gnupg/**"
]

/** Credential stores by name: they hold tokens or passwords whatever else they hold. */
const CREDENTIAL_STORES = [
  "**/.netrc",
  "**/_netrc",
  "**/.pgpass",
  "**/.git-credentials",
  "**/.aws/credentials",
  "**/.aws/sso/cache/**",
  "**/.config/gcloud/credentials.db",
  "**/.config/gcloud/access_tokens.db",
  "**/.config/gcloud/application_default_credentials.json",
  "**/.config/gcloud/legacy_credentials/**",
  "**/.azure/accessTokens.json",
  "**/.azure/msal_token_cache.*",
  "**/.kube/config",
  "**/*.kubeconfig",
  "**/.vault-token",
  "**/.terraform.d/credentials.tfrc.json",
  "**/.config/gh/hosts.yml",
  "**/.cargo/credentials",
  "**/.cargo/credentials.toml",
  "**/.gem/credentials",
  "**/.m2/settings-security.xml",
  "**/.docker/config.json"
]

/** Configuration that is a credential store only when it holds a credential (a registry token). */
const CREDENTIALS_WHEN_PRESENT = [
  "**/.npmrc",
  "**/.pypirc",
  "**/.yarnrc.yml",
  "**/.m2/settings.xml",
  "**/.gradle/gradle.properties"
]

export interface SecretRulesOptions {
  /**
   * Secret values are masked (`Secrets.layerMask`): env files are read without asking, since their
   * values are not shown.
   */
  readonly maskSecrets?: boolean | undefined
}

/**
 * The front doors' rules for secrets, on top of `"*": allow`: env files ask (`.env`, `.env.*`, but
 * not `.env.example`/`.sample`/`.template`; allowed outright with `maskSecrets`), private keys and
 * credential stores are denied by name, any file whose first 64 KB hold a private key is denied
 * (`read_private_key`), and registry configuration (`.npmrc`, `.pypirc`, …) is denied when it holds
 * a credential (`read_secret`). Last match wins: rules appended after these override them.
 */
export const secretRules = (options: SecretRulesOptions = {}): ReadonlyArray<Rule> => [
  { permission: "read", pattern: "*.env", action: options.maskSecrets === true ? "allow" : "ask" },
  { permission: "read", pattern: "*.env.*", action: options.maskSecrets === true ? "allow" : "ask" },
  ...ENV_TEMPLATES.map((pattern): Rule => ({ permission: "read", pattern, action: "allow" })),
  ...[...PRIVATE_KEY_NAMES, ...CREDENTIAL_STORES].map((pattern): Rule => ({
    permission: "read",
    pattern,
    action: "deny"
  })),
  { permission: contentPermissions.privateKey, pattern: "*", action: "deny" },
  { permission: contentPermissions.secret, pattern: "*", action: "allow" },
  ...CREDENTIALS_WHEN_PRESENT.map((pattern): Rule => ({
    permission: contentPermissions.secret,
    pattern,
    action: "deny"
  }))
]

// -----------------------------------------------------------------------------
// Services and layers
// -----------------------------------------------------------------------------

const denied = (permission: string, patterns: ReadonlyArray<string>, reason: "rule" | "rejected") =>
  new PermissionDenied({ permission, patterns: [...patterns], reason })

/**
 * An `ask` in its `Permission.ask` span, annotated with the request. No call-site stack: every read
 * asks, and capturing one per call costs more than the decision.
 */
const asking = <E>(decide: (request: PermissionRequest) => Effect.Effect<void, E>) => (request: PermissionRequest) =>
  withLeanSpan(decide(request), "Permission.ask", {
    attributes: { permission: request.permission, patterns: request.patterns }
  })

/** Every request is allowed. */
export const layerAllowAll: Layer.Layer<Permission> = Layer.succeed(Permission, {
  ask: asking(() => Effect.void),
  check: () => Effect.succeed("allow")
})

/** Every request is refused by rule. */
export const layerDenyAll: Layer.Layer<Permission> = Layer.succeed(Permission, {
  ask: asking((request) => denied(request.permission, request.patterns, "rule")),
  check: () => Effect.succeed("deny")
})

/** The asker used when none is given: nobody is there to say yes. */
export const rejectAll: Asker = () => Effect.succeed("reject")

/**
 * Whoever can be asked for the request being served: a front door provides it per request (the
 * CLI a terminal, the MCP server the client's elicitation). By default nobody can be asked.
 */
export class Prompt extends Context.Reference<Prompt>()("effect-read/Permission/Prompt", {
  defaultValue: (): Asker => unavailable("nobody can be asked here")
}) {}

/** Why a rule asks, in words the person asked can judge (the request's metadata names the rule). */
export const whyAsked = (request: PermissionRequest): string => {
  const rule = request.metadata["rule"]
  if (request.permission === "external_directory") return "it is outside the project"
  if (rule === "*.env" || rule === "*.env.*") {
    return "env files usually hold secrets, and what is read is sent to the model's provider"
  }
  if (request.permission === contentPermissions.privateKey) return "the file holds a private key"
  if (request.permission === contentPermissions.secret) return "the file holds credentials"
  return typeof rule === "string" ? `a rule asks before reading ${rule}` : "a rule asks before reading it"
}

/** An asker that asks whoever `Prompt` holds for the request being served. */
export const askPrompt: Asker = (request) => Effect.flatMap(Prompt, (prompt) => prompt(request))

/**
 * An asker that cannot ask: `PermissionDenied` with reason `"unavailable"`, saying `why` and, when
 * given, how the user can allow it (`hint`).
 */
export const unavailable = (why: string, hint?: (request: PermissionRequest) => string): Asker => (request) =>
  Effect.fail(
    new PermissionDenied({
      permission: request.permission,
      patterns: [...request.patterns],
      reason: "unavailable",
      detail: why,
      ...(hint === undefined ? {} : { hint: hint(request) })
    })
  )

export interface RulesOptions {
  /** Who answers `ask` rules. Defaults to `rejectAll`. */
  readonly asker?: Asker | undefined
}

/**
 * A rule-set permission service. For a request, every pattern is evaluated:
 *
 * - any `deny` → `PermissionDenied` (reason `"rule"`, `patterns` = the denied ones);
 * - otherwise, patterns that `ask` and were not approved `always` earlier in this conversation
 *   make it call the asker once with the whole request (its metadata's `rule` the `ask` rule's
 *   glob): `"reject"` → `PermissionDenied` (reason `"rejected"`), `"once"` → allowed this time,
 *   `"always"` → allowed, and `request.always` (or `request.patterns` when empty) remembered as
 *   globs approved for that permission; an asker's own failure (nobody to ask, no answer) stands.
 *   Approvals never override a `deny` rule.
 *
 * Approvals are kept per conversation: by the `Workspace.sessionId` of the read that asks (one
 * conversation, `"default"`, when no workspace is in context). Asks are serialized, so a second
 * concurrent request re-checks the approvals after the first one was answered instead of
 * prompting twice.
 */
export const make = (
  rules: ReadonlyArray<Rule>,
  options?: RulesOptions
): Effect.Effect<PermissionShape> =>
  Effect.gen(function*() {
    const evaluator = compile(rules)
    const compiled = compiledRules(rules)
    const asker = options?.asker ?? rejectAll
    const approved = yield* Ref.make<ReadonlyMap<string, ReadonlyArray<CompiledRule>>>(new Map())
    const lock = yield* Effect.makeSemaphore(1)
    const conversation = Effect.map(
      Effect.serviceOption(Workspace),
      Option.match({ onNone: () => "default", onSome: (workspace) => workspace.sessionId })
    )

    const pending = (request: PermissionRequest, patterns: ReadonlyArray<string>) =>
      Effect.gen(function*() {
        const approvals = (yield* Ref.get(approved)).get(yield* conversation) ?? []
        return patterns.filter((pattern) => evaluateCompiled(approvals, request.permission, pattern) !== "allow")
      })

    /** The glob of the rule that decided `pattern` (the last one matching). */
    const ruleOf = (permission: string, pattern: string): string | undefined => {
      for (let i = compiled.length - 1; i >= 0; i--) {
        const rule = compiled[i]!
        if (rule.permission(permission) && rule.pattern(pattern)) return rules[i]!.pattern
      }
      return undefined
    }

    const askUser = (request: PermissionRequest, patterns: ReadonlyArray<string>) =>
      lock.withPermits(1)(Effect.gen(function*() {
        const still = yield* pending(request, patterns)
        if (still.length === 0) return
        const rule = ruleOf(request.permission, still[0]!)
        const answer = yield* asker({
          ...request,
          metadata: { ...request.metadata, ...(rule === undefined ? {} : { rule }) }
        })
        yield* Effect.annotateCurrentSpan("answer", answer)
        if (answer === "reject") return yield* denied(request.permission, request.patterns, "rejected")
        if (answer === "always") {
          const remember = request.always.length > 0 ? request.always : request.patterns
          const added = remember.map((pattern) =>
            compileRule({ permission: request.permission, pattern, action: "allow" })
          )
          const key = yield* conversation
          yield* Ref.update(approved, (approvals) =>
            new Map(approvals).set(key, [...(approvals.get(key) ?? []), ...added]))
        }
      }))

    const ask = asking(Effect.fnUntraced(function*(request: PermissionRequest) {
      const actions = request.patterns.map((pattern) =>
        [pattern, evaluator(request.permission, pattern)] as const
      )
      const deniedPatterns = actions.filter(([, action]) => action === "deny").map(([pattern]) => pattern)
      if (deniedPatterns.length > 0) return yield* denied(request.permission, deniedPatterns, "rule")
      const asking = actions.filter(([, action]) => action === "ask").map(([pattern]) => pattern)
      if (asking.length === 0) return
      const still = yield* pending(request, asking)
      if (still.length === 0) return
      yield* askUser(request, still)
    }))

    const check = (request: PermissionRequest): Effect.Effect<Action> =>
      Effect.gen(function*() {
        const actions = request.patterns.map((pattern) => evaluator(request.permission, pattern))
        if (actions.includes("deny")) return "deny"
        const asking = request.patterns.filter((_, i) => actions[i] === "ask")
        return asking.length === 0 || (yield* pending(request, asking)).length === 0 ? "allow" : "ask"
      })

    return Permission.of({ ask, check })
  })

/** A rule-set permission service (see `make`); approvals last as long as the layer. */
export const layerRules = (rules: ReadonlyArray<Rule>, options?: RulesOptions): Layer.Layer<Permission> =>
  Layer.effect(Permission, make(rules, options))

/** `layerRules(defaultRules, options)`. */
export const layerDefault = (options?: RulesOptions): Layer.Layer<Permission> => layerRules(defaultRules, options)
