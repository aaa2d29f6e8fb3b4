/**
 * Secrets in text (pure): find them, and mask them with placeholders that say what was there.
 *
 * Three kinds of finding, each replaced within its line (line numbers and the number of lines never
 * change):
 *
 * - **token shapes** anywhere: vendor-prefixed keys (AWS, GitHub, GitLab, Slack, Stripe, OpenAI,
 *   Anthropic, Google, npm, PyPI, Hugging Face, SendGrid, …), JWTs, bearer tokens, passwords in
 *   URLs, and the body of private-key blocks (PEM, OpenSSH, PGP, PuTTY) line by line;
 * - **values of assignments whose key names a secret** (`API_KEY=…`, `password: …`,
 *   `"client_secret": "…"`, `<password>…</password>`): in configuration files (`style: "config"`)
 *   any literal value; in other text (`style: "code"`) only a quoted or bare literal that looks
 *   like a secret, so that `password: string` or `TOKEN_KEY = "auth_token"` stay as they are;
 * - what a credential file's own syntax holds (`.netrc` passwords, `.pgpass` password fields).
 *
 * A placeholder (`‹secret: GitHub token›`) names the kind only: nothing in it (no hash, no
 * number, no part of the value) can be taken back for the value, and `‹`…`›` never occur in a
 * secret, so an Edit tool can refuse text that carries one (`hasPlaceholder`).
 */

/** What a masked value is replaced with. */
export const placeholder = (kind: string): string => `‹secret: ${kind}›`

const PLACEHOLDER = /‹secret: [^›\n]*›/
const PLACEHOLDERS = /‹secret: [^›\n]*›/g

/** Does the text carry a placeholder? An Edit tool given one must not write it (it is not the value). */
export const hasPlaceholder = (text: string): boolean => PLACEHOLDER.test(text)

/**
 * How assignments are judged, from the file's kind:
 *
 * - `env`: env files, shell scripts and rc files, INI/properties/TOML, credential files: any
 *   literal value of a secret-named key is a secret (`DB_PASSWORD=postgres`);
 * - `config`: structured data (JSON, YAML, XML, Terraform): values that look like secrets
 *   (`"client_secret": "GOCSPX-…"`, `password: hunter2`), not names (`"output_token": "NextToken"`);
 * - `code`: everything else: quoted literals that look like secrets, never expressions.
 */
export type Style = "env" | "config" | "code"

const ENV_NAMES = new Set([
  ".envrc",
  ".npmrc",
  ".yarnrc",
  ".pypirc",
  ".netrc",
  "_netrc",
  ".pgpass",
  ".git-credentials",
  ".gitconfig",
  ".bashrc",
  ".bash_profile",
  ".bash_login",
  ".zshrc",
  ".zshenv",
  ".zprofile",
  ".profile",
  ".s3cfg",
  ".boto",
  ".my.cnf",
  "credentials",
  "config",
  "dockerfile",
  "containerfile",
  "procfile"
])
const ENV_EXTENSIONS = new Set([
  "env",
  "sh",
  "bash",
  "zsh",
  "fish",
  "ksh",
  "ps1",
  "bat",
  "cmd",
  "ini",
  "cfg",
  "conf",
  "cnf",
  "properties",
  "toml",
  "pgpass",
  "netrc"
])
const CONFIG_EXTENSIONS = new Set([
  "json",
  "jsonc",
  "json5",
  "yaml",
  "yml",
  "xml",
  "tf",
  "tfvars",
  "hcl",
  "kubeconfig",
  "plist",
  "config"
])

/** The style of a file's text, from its name. */
export const styleOf = (path: string): Style => {
  const name = (path.split(/[/\\]/).pop() ?? "").toLowerCase()
  if (ENV_NAMES.has(name) || /^\.env(?:\.|$)/.test(name)) return "env"
  const dot = name.lastIndexOf(".")
  const extension = dot > 0 ? name.slice(dot + 1) : ""
  if (ENV_EXTENSIONS.has(extension)) return "env"
  return CONFIG_EXTENSIONS.has(extension) || /^docker-compose/.test(name) ? "config" : "code"
}

// -----------------------------------------------------------------------------
// Token shapes
// -----------------------------------------------------------------------------

interface Shape {
  readonly kind: string
  readonly pattern: RegExp
}

/** Shapes found anywhere in a line; every pattern is global and matches the secret alone. */
const SHAPES: ReadonlyArray<Shape> = [
  { kind: "AWS access key ID", pattern: /\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b/g },
  { kind: "GitHub token", pattern: /\bgh[pousr]_[A-Za-z0-9]{30,}/g },
  { kind: "GitHub token", pattern: /\bgithub_pat_[A-Za-z0-9_]{20,}/g },
  { kind: "GitLab token", pattern: /\bgl(?:pat|dt|ptt|rt)-[A-Za-z0-9_-]{20,}/g },
  { kind: "Slack token", pattern: /\bxox[abposre]-[A-Za-z0-9-]{10,}/g },
  { kind: "Slack webhook", pattern: /(?<=hooks\.slack\.com\/services\/)[A-Za-z0-9_/-]{20,}/g },
  { kind: "Stripe key", pattern: /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}/g },
  { kind: "Stripe webhook secret", pattern: /\bwhsec_[A-Za-z0-9+/=]{20,}/g },
  { kind: "Anthropic key", pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/g },
  {
    kind: "OpenAI key",
    pattern:
      /\bsk-(?:(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}|[A-Za-z0-9]{16,}T3BlbkFJ[A-Za-z0-9_-]{10,}|(?=[A-Za-z]*\d)(?=[0-9a-z]*[A-Z])[A-Za-z0-9]{32,}(?![A-Za-z0-9_-]))/g
  },
  { kind: "Google API key", pattern: /\bAIza[0-9A-Za-z_-]{35}/g },
  { kind: "Google OAuth token", pattern: /\bya29\.[0-9A-Za-z_-]{20,}/g },
  { kind: "npm token", pattern: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { kind: "PyPI token", pattern: /\bpypi-AgE[A-Za-z0-9_-]{40,}/g },
  { kind: "Hugging Face token", pattern: /\bhf_(?=[a-z]*[A-Z])[A-Za-z0-9]{30,}\b/g },
  { kind: "SendGrid key", pattern: /\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{20,}/g },
  { kind: "Shopify token", pattern: /\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b/g },
  { kind: "DigitalOcean token", pattern: /\bdo[opr]_v1_[a-f0-9]{64}\b/g },
  { kind: "Databricks token", pattern: /\bdapi[a-f0-9]{32}\b/g },
  { kind: "Azure key", pattern: /(?<=\b(?:AccountKey|SharedAccessKey)=)[A-Za-z0-9+/]{20,}={0,2}/g },
  { kind: "JWT", pattern: /\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}(?:\.[A-Za-z0-9_-]*)?/g },
  { kind: "bearer token", pattern: /(?<=\b(?:Bearer|Basic)\s+)(?=[A-Za-z._~+/-]*\d)[A-Za-z0-9._~+/-]{16,}=*/g },
  {
    kind: "private key",
    pattern: /(?<=-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----)(?=[^-]*[A-Za-z0-9+/]{16})[^-]+/g
  }
]

/** The literal parts of the shapes: a line without any holds none of them. */
const SHAPE_HINTS =
  /A[KS]IA|ABIA|ACCA|gh[pousr]_|github_pat_|gl(?:pat|dt|ptt|rt)-|xox[abposre]-|hooks\.slack\.com|_live_|_test_|whsec_|sk-|AIza|ya29\.|npm_|pypi-|hf_|SG\.|shp(?:at|ca|pa|ss)_|do[opr]_v1_|dapi|AccountKey|SharedAccessKey|eyJ|Bearer|Basic|PRIVATE KEY/

/** Every secret-named key holds one of these (a line without any has no secret assignment). */
const SECRET_WORDS = /pass|pwd|secret|token|key|auth|credential|connection/i

/**
 * A token cut by the line-length cap: its shown start is masked if it starts like one (the rest
 * of the shape cannot be checked).
 */
const CUT_TOKEN =
  /\b(?:gh[pousr]_|github_pat_|gl(?:pat|dt|ptt|rt)-|xox[abposre]-|(?:sk|rk)_(?:live|test)_|whsec_|sk-|AIza|ya29\.|npm_|pypi-|hf_|SG\.|shp(?:at|ca|pa|ss)_|do[opr]_v1_|dapi|eyJ|AKIA|ASIA)[A-Za-z0-9_.+/=-]*$/

/** The notice the pager appends to a line cut at the length cap. */
const CUT_NOTICE = /\.\.\. \(line truncated to \d+ chars[^)]*\)$/

// -----------------------------------------------------------------------------
// Secret-named keys
// -----------------------------------------------------------------------------

const TOKEN_WORDS = new Set(["token", "apikey", "apitoken", "accesstoken", "authtoken"])
/** `*_KEY` in code names many things (`SORT_KEY`, `CACHE_KEY`): only these kinds of key are secrets there. */
const KEY_QUALIFIERS = new Set([
  "api",
  "secret",
  "private",
  "access",
  "encryption",
  "signing",
  "master",
  "license",
  "licence",
  "client",
  "app",
  "auth",
  "account",
  "service",
  "hmac",
  "jwt",
  "webhook",
  "consumer",
  "shared",
  "subscription",
  "admin",
  "deploy",
  "crypto",
  "cipher",
  "session",
  "secure"
])
/** Keys in configuration that name what is not secret. */
const NOT_SECRET_KEY_WORDS = new Set([
  "public",
  "publishable",
  "pub",
  "primary",
  "foreign",
  "sort",
  "partition",
  "cache",
  "map",
  "hot",
  "shortcut",
  "idempotency",
  "i18n",
  "translation",
  "path",
  "file",
  "dir",
  "name",
  "id",
  "type",
  "length",
  "min",
  "max",
  "field",
  "header",
  "url",
  "uri",
  "env",
  "var",
  "expiry",
  "expires",
  "ttl",
  "policy",
  "hash",
  "hint",
  "regex",
  "pattern",
  "format",
  "count",
  "prefix",
  "suffix"
])

/** Tokens that are not credentials, by the word before `token`. */
const NOT_CREDENTIAL_TOKENS = new Set([
  "next",
  "page",
  "continuation",
  "cancel",
  "cancellation",
  "sync",
  "resume",
  "last",
  "first",
  "prev",
  "previous",
  "start",
  "end",
  "client",
  "idempotency",
  "request",
  "significant",
  "current",
  "eof",
  "parser",
  "lexer",
  "input",
  "output",
  "pagination",
  "marker",
  "whitespace",
  "string",
  "number",
  "ident",
  "delim",
  "comma",
  "colon",
  "semicolon",
  "hash",
  "function"
])

/** Last words of configuration keys that hold settings about a secret, not the secret. */
const NOT_SECRET_LAST_WORDS = new Set([
  "endpoint",
  "host",
  "port",
  "user",
  "username",
  "email",
  "label",
  "enabled",
  "enable",
  "required",
  "rotation",
  "provider",
  "version",
  "store",
  "manager",
  "ref",
  "arn",
  "location",
  "source",
  "mode",
  "method",
  "algorithm",
  "scope",
  "scopes",
  "audience",
  "issuer",
  "lifetime",
  "timeout",
  "age",
  "size",
  "bits",
  "rounds",
  "salt",
  "iterations"
])

const wordsOf = (key: string): ReadonlyArray<string> =>
  key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== "")

/** What a key names, when it names a secret: the placeholder's kind. */
export const secretKeyKind = (key: string, style: Style): string | undefined => {
  const words = wordsOf(key)
  const last = words[words.length - 1]
  if (last === undefined) return undefined
  if (words.some((word) => word === "public" || word === "publishable")) return undefined
  const before = words[words.length - 2]
  const data = style !== "code"
  if (last === "pwd" && words.length === 1) return undefined // the shell's working directory
  if (last === "password" || last === "passwd" || last === "pwd") return "password"
  if (last === "passphrase") return "passphrase"
  if (last === "secret" || last === "secrets") return "secret"
  if (last === "credential" || last === "credentials" || (last === "auth" && data)) return "credential"
  if (TOKEN_WORDS.has(last)) {
    // Paging, cancellation, idempotency and parser tokens are not credentials.
    if (last === "token" && before !== undefined && NOT_CREDENTIAL_TOKENS.has(before)) return undefined
    return last === "apikey" ? "key" : "token"
  }
  if (last === "pass" && before !== undefined && data) return "password"
  if (last === "key") {
    if (before !== undefined && NOT_SECRET_KEY_WORDS.has(before)) return undefined
    if (before !== undefined && (KEY_QUALIFIERS.has(before) || style === "env")) return "key"
    return undefined
  }
  // kubeconfig's `client-key-data`, `connectionString` holding an account key.
  if (last === "data" && before === "key" && data) return "key"
  if (last === "string" && before === "connection") return "connection string"
  // In env files a secret word anywhere but last still names one (`SECRET_KEY_BASE`,
  // `DB_PASSWORD_ENCRYPTED`), unless the last word says what else it is (`PASSWORD_MIN_LENGTH`).
  if (style === "env" && !NOT_SECRET_KEY_WORDS.has(last) && !NOT_SECRET_LAST_WORDS.has(last) && !/^\d+$/.test(last)) {
    const word = words.find((w) =>
      w === "password" || w === "passwd" || w === "secret" || w === "token" || w === "apikey"
    )
    if (word !== undefined) return word === "passwd" ? "password" : word === "apikey" ? "key" : word
  }
  return undefined
}

// -----------------------------------------------------------------------------
// Values
// -----------------------------------------------------------------------------

/** A reference to a secret kept elsewhere, not the secret: `${TOKEN}`, `$(cat f)`, `{{ .Values.x }}`, … */
const REFERENCE =
  /^(?:\$\{?[A-Za-z_]|\$\(|%[A-Za-z_][\w]*%|\{\{|<%|\$\{\{|!(?:Ref|Sub|GetAtt|ImportValue)\b|ENC\[|vault:|secretref:|ref\+|op:\/\/|arn:aws:secretsmanager|@Microsoft\.KeyVault|process\.env\b|os\.environ\b|env\(|ENV\[)/
/** Values no secret has: placeholders for one, empty values, versions, YAML structure, our own placeholder. */
const NOT_A_VALUE =
  /^(?:|null|none|nil|undefined|true|false|yes|no|on|off|read|write|~|[\^~<>=v]*\d+(?:\.\d+){1,3}(?:[-+][\w.-]+)?|[|>][-+]?\d*|[^A-Za-z0-9]*|<[^>]*>|\[[^\]]*\]|x{3,}|\*{3,}|your[-_ ].*|.*[-_]here|‹.*)$/i
/** A template that is filled in elsewhere: `{password}`, `%s`, `%(name)s`, `{0}:{1}`, `$1`. */
const TEMPLATE = /\{[^}]*\}|%\(?\w*\)?[sd]\b|\$\d/
const IDENTIFIER_PATH = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/
const KEBAB_OR_SNAKE = /^[a-z0-9]+(?:[_.:-][a-z0-9]+)+$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const CODE_WORDS = new Set([
  "string",
  "number",
  "boolean",
  "any",
  "unknown",
  "object",
  "str",
  "int",
  "bytes",
  "bool",
  "optional",
  "required",
  "secret",
  "password",
  "token",
  "key",
  "default"
])

/**
 * A name made of words (`NextToken`, `notificationsToolLastEventId`, `V1SecretVolumeSource`,
 * `Unexpected_token_1012`, `AUTH_CLIENT_SECRET`): every piece a word with a vowel, a short
 * abbreviation (`css`, `Xml`), an acronym or a short number. Random strings have pieces no name
 * has: a lone lower-case letter, a long run of consonants (`K7xPqL2m`).
 */
export const identifierLike = (value: string): boolean => {
  const tokens = value.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+/g) ?? []
  return /[A-Za-z]/.test(value) && tokens.every((token) =>
    /^\d/.test(token)
      ? token.length <= 4
      : /^[A-Z]+$/.test(token)
      ? token.length <= 5 || /[AEIOUY]/.test(token)
      : /^[A-Z]/.test(token)
      ? /[aeiouy]/i.test(token) || token.length <= 4
      : /[aeiouy]/.test(token) || (token.length >= 2 && token.length <= 4)
  )
}

/** Does a literal look like a key or token (not a name, a word or a sentence)? */
export const looksRandom = (value: string): boolean => {
  if (value.length < 12 || /\s/.test(value)) return false
  if (UUID.test(value)) return true
  const digit = /\d/.test(value)
  if (/^[0-9a-f]+$/i.test(value)) return value.length >= 16 && digit && /[a-f]/i.test(value)
  if (KEBAB_OR_SNAKE.test(value) || identifierLike(value)) return false
  const classes = Number(/[a-z]/.test(value)) + Number(/[A-Z]/.test(value)) + Number(digit)
  return classes >= 3 || (classes === 2 && (digit || value.length >= 20))
}

/**
 * A short password: printable, not a plain word, nor a name of several words (`SetPassword`,
 * `AUTH_CLIENT_SECRET_value`) unless it has what names do not: a symbol, or digits inside a word
 * (`Pa55word`).
 */
const looksLikePassword = (value: string): boolean => {
  if (value.length < 4 || !/^[!-~]+$/.test(value) || /^[a-z]+$/.test(value) || /^[A-Z][a-z]+$/.test(value)) return false
  if (/^[A-Z_]+$/.test(value)) return false
  const named = KEBAB_OR_SNAKE.test(value) ||
    (identifierLike(value) && (value.match(/[A-Z]?[a-z]{2,}|[A-Z]{2,}/g) ?? []).length >= 2)
  return !named || /[a-z]\d+[a-z]/.test(value) || /[!@#%^&*+=?~]/.test(value)
}

/** Is `value` (unquoted) a secret for a key of `kind`, judged in `style`? */
const acceptValue = (value: string, kind: string, style: Style, quoted: boolean): boolean => {
  if (NOT_A_VALUE.test(value) || REFERENCE.test(value)) return false
  // The start of a structure (`auth: {`, `"tokens": [`), not a value.
  if (!quoted && /^[[{(]/.test(value)) return false
  const phrase = kind === "password" || kind === "passphrase"
  // In env files a value is a literal, whatever it looks like.
  if (style === "env") return quoted || !/\s/.test(value)
  if (/\s/.test(value) || TEMPLATE.test(value) || IDENTIFIER_PATH.test(value) || CODE_WORDS.has(value.toLowerCase())) {
    return false
  }
  // In code a bare value is an expression (`password: BinaryLike`, `key = keys[i]`) unless it
  // looks like a key itself; in YAML it is a literal.
  if (!quoted && style === "code") {
    return looksRandom(value) && !/[()[\]{}<>,;]/.test(value) && !/^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/.test(value)
  }
  // A type (`list[V1LocalObjectReference]`), not a value.
  if (/\[.*\]/.test(value)) return false
  if (phrase || kind === "secret" || kind === "credential") return looksRandom(value) || looksLikePassword(value)
  return looksRandom(value)
}

// -----------------------------------------------------------------------------
// Assignments
// -----------------------------------------------------------------------------

interface Span {
  readonly start: number
  readonly end: number
  readonly kind: string
}

/** `KEY=value` at the start of a line: env files, shell, INI, properties, TOML, `.npmrc` (`//host/:_authToken=…`). */
const LINE_EQUALS =
  /^(\s*(?:export\s+|set\s+|setx\s+|readonly\s+|declare\s+(?:-\w+\s+)?|ENV\s+|ARG\s+)?)([^\s=#;'"`()[\]{}<>,]+)(\s*=(?!=|>)\s*)(.*)$/
/** `key: value` at the start of a line: YAML, JSON lines, object literals. */
const LINE_COLON = /^(\s*(?:-\s+)?)(["']?)([A-Za-z_$@][\w$.@-]*)\2(\??\s*:(?=\s|["'`]|$)\s*)(.*)$/
/** `key = "value"`, `key: 'value'`, `key := "value"`, `key => "value"` anywhere in a line. */
const INLINE_QUOTED =
  /(?<![\w$-])(["']?)((?=[\w$.-]*(?:pass|pwd|secret|token|key|auth|credential|connection))[A-Za-z_$][\w$.-]*)\1(\s*(?::=|=>|=|:)\s*)(["'`])((?:(?!\4)[^\\]|\\.)*)\4/gi
/** `KEY=value` anywhere (a command line's `FOO=bar cmd`, `docker run -e KEY=value`). */
const INLINE_ENV =
  /(?<![\w$.\-/])((?=[A-Z0-9_]*(?:PASS|PWD|SECRET|TOKEN|KEY|AUTH|CREDENTIAL))[A-Z][A-Z0-9_]*)=(?![=\s"'`])([^\s'"`;&|)<>]+)/g
/** `<password>value</password>` (Maven's settings.xml, .NET configs). */
const XML_ELEMENT = /<([A-Za-z_][\w.:-]*)>([^<]+)<\/\1>/g
/** `scheme://user:password@host`. */
const URL_PASSWORD = /\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@'"`]+:([^\s@/'"`]+)@/gi

/** A value written after `=` or `:` on the rest of a line: its span within `rest` and whether quoted. */
const valueIn = (
  rest: string,
  style: Style
): { readonly start: number; readonly end: number; readonly quoted: boolean } | undefined => {
  const quote = rest[0]
  if (quote === "\"" || quote === "'" || quote === "`") {
    let i = 1
    while (i < rest.length && rest[i] !== quote) i += rest[i] === "\\" ? 2 : 1
    // An unclosed quote runs to the end of the line (a multi-line value, or a cut line).
    return { start: 1, end: Math.min(i, rest.length), quoted: true }
  }
  // A bare value ends at a comment (` #`, ` ;` in config) or, in code, at a statement's end.
  const comment = style === "env" ? /\s+[#;]/.exec(rest) : /\s+(?:#|\/\/)/.exec(rest)
  let end = comment === null ? rest.length : comment.index
  while (end > 0 && /\s/.test(rest[end - 1]!)) end--
  if (style === "code") {
    while (end > 0 && /[,;]/.test(rest[end - 1]!)) end--
  } else if (end > 0 && rest[end - 1] === ",") {
    end--
  }
  return end === 0 ? undefined : { start: 0, end, quoted: false }
}

/** Secret values of assignments in one line's content. */
const assignmentSpans = (content: string, fileStyle: Style, spans: Array<Span>): void => {
  // An environment variable's name (`DB_PASSWORD:` under a CI job's or a container's `env`) is
  // judged as in an env file.
  const styleFor = (key: string): Style => fileStyle === "config" && /^[A-Z][A-Z0-9_]*$/.test(key) ? "env" : fileStyle
  const lineValue = (offset: number, rest: string, key: string) => {
    const style = styleFor(key)
    const kind = secretKeyKind(key, style)
    if (kind === undefined) return
    const value = valueIn(rest, style)
    if (value === undefined) return
    const text = rest.slice(value.start, value.end)
    if (acceptValue(text, kind, style, value.quoted)) {
      spans.push({ start: offset + value.start, end: offset + value.end, kind })
    }
  }
  const equals = LINE_EQUALS.exec(content)
  if (equals !== null) lineValue(equals[1]!.length + equals[2]!.length + equals[3]!.length, equals[4]!, equals[2]!)
  const colon = LINE_COLON.exec(content)
  if (colon !== null) {
    lineValue(colon[1]!.length + colon[2]!.length * 2 + colon[3]!.length + colon[4]!.length, colon[5]!, colon[3]!)
  }
  const style = fileStyle
  for (const match of content.matchAll(INLINE_QUOTED)) {
    const kind = secretKeyKind(match[2]!, style)
    if (kind === undefined) continue
    const value = match[5]!
    if (!acceptValue(value, kind, style, true)) continue
    const start = match.index + match[0].length - 1 - value.length
    spans.push({ start, end: start + value.length, kind })
  }
  for (const match of content.matchAll(INLINE_ENV)) {
    const kind = secretKeyKind(match[1]!, style)
    if (kind === undefined || !acceptValue(match[2]!, kind, style, false)) continue
    const start = match.index + match[1]!.length + 1
    spans.push({ start, end: start + match[2]!.length, kind })
  }
  if (content.includes("</")) {
    for (const match of content.matchAll(XML_ELEMENT)) {
      const kind = secretKeyKind(match[1]!, style)
      const value = match[2]!.trim()
      if (kind === undefined || !acceptValue(value, kind, style, true)) continue
      const start = match.index + match[1]!.length + 2 + match[2]!.indexOf(value)
      spans.push({ start, end: start + value.length, kind })
    }
  }
  if (content.includes("://")) {
    for (const match of content.matchAll(URL_PASSWORD)) {
      const value = match[1]!
      if (
        NOT_A_VALUE.test(value) || REFERENCE.test(value) || TEMPLATE.test(value) ||
        /^(?:pass(?:word)?|passwd|secret|pwd|\*+)$/i.test(value)
      ) continue
      // `https://a:b@host` in documentation: too short to be anyone's password.
      if (style === "code" && value.length < 4) continue
      const start = match.index + match[0].length - 1 - value.length
      spans.push({ start, end: start + value.length, kind: "password" })
    }
  }
}

/** `.netrc`: `machine h login u password p` (any order, any lines); `.pgpass`: `host:port:db:user:password`. */
const credentialFileSpans = (content: string, name: string, spans: Array<Span>): void => {
  if (name === ".netrc" || name === "_netrc") {
    for (const match of content.matchAll(/\b(password|account)\s+(\S+)/g)) {
      const start = match.index + match[0].length - match[2]!.length
      spans.push({ start, end: start + match[2]!.length, kind: "password" })
    }
  } else if (name === ".pgpass" && !/^\s*#/.test(content)) {
    const fields = /^((?:(?:[^:\\]|\\.)*:){4})(.+)$/.exec(content)
    if (fields !== null) spans.push({ start: fields[1]!.length, end: content.length, kind: "password" })
  }
}

// -----------------------------------------------------------------------------
// Private-key blocks
// -----------------------------------------------------------------------------

/** A key block's first line: its marker ends the line (prose that names a marker is not a block). */
const BEGIN_KEY = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----\s*(?:\\n)?["'`]?,?\s*$|^\s*Private-Lines:\s*\d+\s*$/
const END_KEY = /-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|^\s*Private-MAC:/
const BEGIN_OTHER = /-----BEGIN [A-Z0-9 ]+-----/
const END_OTHER = /-----END [A-Z0-9 ]+-----/
/** A line of a block's body: base64, or an armour header (`Proc-Type:`, `DEK-Info:`, `Version:`, `Comment:`). */
const BODY =
  /^\s*(?:[A-Za-z0-9+/]+={0,2}|=[A-Za-z0-9+/]{4}|(?:Proc-Type|DEK-Info|Version|Comment|Hash|Charset|Encryption|Key-Derivation|Argon2-[A-Za-z]+):.*)\s*$/
/** Full-width lines of PEM (64), OpenSSH (70) and PGP armour (64/76), for a block whose start is not in view. */
const FULL_WIDTH = /^\s*[A-Za-z0-9+/]{64}\s*$|^\s*[A-Za-z0-9+/]{70}\s*$|^\s*[A-Za-z0-9+/]{76}\s*$/
/** A line of key material cut short by the end of the view: base64 with something no word has. */
const KEY_MATERIAL = /^\s*(?=[A-Za-z]*[0-9+/=])[A-Za-z0-9+/]{4,}={0,2}\s*$/

/** The kind of private key a text holds (PEM, OpenSSH, PGP, PuTTY), or undefined. */
export const privateKeyIn = (text: string): string | undefined => {
  const pem = /-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY(?: BLOCK)?-----/.exec(text)
  if (pem !== null) {
    const what = pem[1]!.trim()
    return what === "OPENSSH" ? "OpenSSH private key" : what === "PGP" ? "PGP private key" : "PEM private key"
  }
  if (/^PuTTY-User-Key-File-\d+:/m.test(text) && /^Private-Lines:/m.test(text)) return "PuTTY private key"
  return undefined
}

// -----------------------------------------------------------------------------
// Masking
// -----------------------------------------------------------------------------

export interface MaskOptions {
  /** How assignments are judged (default `code`). */
  readonly style?: Style | undefined
  /** The file's name, for credential files' own syntax (`.netrc`, `.pgpass`). */
  readonly name?: string | undefined
  /**
   * A rendering prefix to keep out of each line's content (line numbers, diff marks): the rules
   * that look at a line's start see what follows it.
   */
  readonly gutter?: RegExp | undefined
  /**
   * The first line may be inside a private-key block whose start is not in view (a page that
   * starts past line 1): a run of base64 lines there is masked when an END line of a private key
   * closes it, or when it holds a full-width line and nothing says what it is.
   */
  readonly startsInside?: boolean | undefined
  /** This line (0-based) continues a line cut before it (`column`): a leading token-like run is masked. */
  readonly continuesAt?: number | undefined
  /**
   * Lines of the rendering around the text (tags, footers): they neither continue nor end a block
   * whose start is not in view.
   */
  readonly frame?: RegExp | undefined
}

export interface Masked {
  readonly text: string
  /** Secrets masked (a private-key block counts once). */
  readonly count: number
  /** Lines (0-based, of the text) with something masked. */
  readonly lines: ReadonlyArray<number>
  /** Secrets masked, by kind. */
  readonly kinds: Readonly<Record<string, number>>
}

const SHAPE_KINDS = new Set(SHAPES.map((shape) => shape.kind))

const mergeSpans = (spans: ReadonlyArray<Span>): ReadonlyArray<Span> => {
  const sorted = spans.filter((span) => span.end > span.start).sort((a, b) => a.start - b.start || b.end - a.end)
  const merged: Array<Span> = []
  for (const span of sorted) {
    const last = merged[merged.length - 1]
    if (last !== undefined && span.start < last.end) {
      // Overlapping findings are one secret; a token shape names it better than its key does.
      const kind = SHAPE_KINDS.has(span.kind) && !SHAPE_KINDS.has(last.kind) ? span.kind : last.kind
      merged[merged.length - 1] = { start: last.start, end: Math.max(last.end, span.end), kind }
    } else {
      merged.push(span)
    }
  }
  return merged
}

/** The secrets of one line's content (block state aside). */
const lineSpans = (content: string, options: MaskOptions, cut: boolean, continues: boolean): ReadonlyArray<Span> => {
  const spans: Array<Span> = []
  const style = options.style ?? "code"
  // Most lines hold none of the shapes' literal parts and no secret word: one search each, not dozens.
  if (SHAPE_HINTS.test(content)) {
    for (const shape of SHAPES) {
      for (const match of content.matchAll(shape.pattern)) {
        spans.push({ start: match.index, end: match.index + match[0].length, kind: shape.kind })
      }
    }
  }
  if (SECRET_WORDS.test(content) || content.includes("://")) assignmentSpans(content, style, spans)
  if (options.name !== undefined) credentialFileSpans(content, options.name.toLowerCase(), spans)
  if (cut) {
    const token = CUT_TOKEN.exec(content)
    if (token !== null) spans.push({ start: token.index, end: content.length, kind: "token (cut)" })
  }
  if (continues) {
    const lead = /^[A-Za-z0-9_.+/=-]+/.exec(content)
    if (lead !== null && looksRandom(lead[0])) spans.push({ start: 0, end: lead[0].length, kind: "value (cut)" })
  }
  // Our own placeholders are never masked again, nor any part of one.
  const taken = [...content.matchAll(PLACEHOLDERS)].map((match) =>
    [match.index, match.index + match[0].length] as const
  )
  return mergeSpans(spans).filter((span) => !taken.some(([start, end]) => span.start < end && start < span.end))
}

/**
 * Mask the secrets in `text`, line by line: each finding becomes a placeholder naming its kind;
 * each line inside a private-key block becomes one placeholder (blank lines stay blank, the BEGIN
 * and END lines stay). Line terminators are never touched, so numbering and counts stay.
 * Idempotent: placeholders are never masked again.
 */
export const maskText = (text: string, options: MaskOptions = {}): Masked => {
  const lines = text.split("\n")
  const gutter = options.gutter
  const out = lines.slice()
  const changed = new Set<number>()
  const kinds: Record<string, number> = {}
  let count = 0
  const found = (kind: string) => {
    kinds[kind] = (kinds[kind] ?? 0) + 1
    count++
  }
  const split = (i: number) => {
    const line = lines[i]!
    const prefix = gutter === undefined ? "" : (gutter.exec(line)?.[0] ?? "")
    return { prefix, content: line.slice(prefix.length) }
  }

  let blockCounted = false
  /** A line of a private key's body, replaced whole (its indentation and CR kept). */
  const maskBody = (i: number) => {
    const { content, prefix } = split(i)
    if (content.trim() === "") return
    const lead = /^\s*/.exec(content)![0]
    out[i] = `${prefix}${lead}${placeholder("private key")}${content.endsWith("\r") ? "\r" : ""}`
    changed.add(i)
    if (!blockCounted) {
      found("private key")
      blockCounted = true
    }
  }
  /** The END line of a key: what precedes its marker on the line is body. */
  const maskEnd = (i: number) => {
    const { content, prefix } = split(i)
    if (/^\s*Private-MAC:/.test(content)) return maskBody(i)
    const at = content.search(/-----END /)
    if (at > 0 && /^\s*[A-Za-z0-9+/]{4,}={0,2}\s*$/.test(content.slice(0, at)) && !BEGIN_KEY.test(content)) {
      out[i] = `${prefix}${placeholder("private key")}${content.slice(at)}`
      changed.add(i)
      if (!blockCounted) found("private key")
    } else {
      maskLine(i)
    }
  }
  const maskLine = (i: number) => {
    const { content: whole, prefix } = split(i)
    const crless = whole.endsWith("\r") ? whole.slice(0, -1) : whole
    const notice = CUT_NOTICE.exec(crless)
    const content = notice === null ? crless : crless.slice(0, notice.index)
    const spans = lineSpans(content, options, notice !== null, i === options.continuesAt)
    if (spans.length === 0) return
    let masked = ""
    let at = 0
    for (const span of spans) {
      masked += content.slice(at, span.start) + placeholder(span.kind)
      at = span.end
      found(span.kind)
    }
    out[i] = prefix + masked + content.slice(at) + (notice === null ? "" : notice[0]) + whole.slice(crless.length)
    changed.add(i)
  }

  // Block state: inside a private key, inside another block (a certificate), outside, or not known
  // (a view that starts past the first line), with the lines held until it is.
  let state: "outside" | "key" | "other" | "unknown" = options.startsInside === true ? "unknown" : "outside"
  let pending: Array<number> = []
  const settle = (mask: boolean) => {
    if (mask) {
      blockCounted = false
      for (const i of pending) maskBody(i)
    }
    pending = []
    state = "outside"
  }
  for (let i = 0; i < lines.length; i++) {
    const { content } = split(i)
    if (state === "unknown") {
      if (options.frame?.test(lines[i]!) === true) continue
      if (END_KEY.test(content)) {
        settle(true)
        maskEnd(i)
        continue
      }
      if (END_OTHER.test(content)) {
        settle(false)
        continue
      }
      if (BODY.test(content) || content.trim() === "") {
        pending.push(i)
        continue
      }
      // The run ended without saying what it was: full-width lines are taken for key material.
      settle(pending.some((j) => FULL_WIDTH.test(split(j).content)))
    }
    if (state === "key") {
      if (END_KEY.test(content)) {
        state = "outside"
        maskEnd(i)
        continue
      }
      if (BODY.test(content) || content.trim() === "") {
        maskBody(i)
        continue
      }
      // Not a key's body after all: the block ends unmasked here.
      state = "outside"
    }
    if (state === "other") {
      if (END_OTHER.test(content)) state = "outside"
      continue
    }
    const begin = BEGIN_KEY.exec(content)
    if (begin !== null) {
      maskLine(i)
      // A block written on one line (`-----BEGIN…-----MIIE…-----END…-----`) is over already.
      if (!END_KEY.test(content.slice(begin.index + begin[0].length))) {
        state = "key"
        blockCounted = false
      }
      continue
    }
    if (BEGIN_OTHER.test(content) && !END_OTHER.test(content.slice(content.search(BEGIN_OTHER) + 10))) {
      state = "other"
      continue
    }
    maskLine(i)
  }
  // The view ended inside the run: nothing says what it is; key material is taken for a key.
  if (state === "unknown") {
    settle(
      pending.some((j) => FULL_WIDTH.test(split(j).content)) || pending.some((j) => KEY_MATERIAL.test(split(j).content))
    )
  }

  return { text: out.join("\n"), count, lines: [...changed].sort((a, b) => a - b), kinds }
}

/** How many secrets the text holds (what `maskText` would mask). */
export const secretsIn = (text: string, options: MaskOptions = {}): number => maskText(text, options).count
