/**
 * Web pages: `http://` and `https://` paths, fetched and read like files.
 *
 * Every fetch asks `webfetch` with the URL as pattern, and so does every redirect hop. A host is
 * connected to only at public addresses: when it has none (loopback, private, link-local,
 * unique-local, CGNAT, multicast, reserved — literal IPs included), `webfetch_private` is asked
 * with the URL, so it is refused unless a rule allows it. The addresses checked are the ones
 * connected to (a pinned `lookup`), so a second DNS answer cannot point the request elsewhere.
 *
 * HTML becomes markdown through a reader view, JSON is pretty-printed, other text is shown as
 * sent (decoded by its charset), images and PDFs are attachments; text is then numbered, paged,
 * selected (`url:50-100`, `:raw` for the body as sent) and capped exactly like a file's.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Dns from "node:dns"
import * as Net from "node:net"
import { WebLimits } from "../../Limits.js"
import { Permission } from "../../Permission.js"
import { FetchFailed, InvalidParams, InvalidSelector } from "../../ReadError.js"
import type { ReadResult } from "../../ReadResult.js"
import { codecFor, utf8 } from "../core/encoding.js"
import { mediaKind } from "../core/media.js"
import type { Selection } from "../core/selector.js"
import { memoryPageAt, memoryTailAt } from "../present/pages.js"
import { presentText } from "../present/text.js"
import { attachBytes } from "./media.js"
import type { Params, SchemeRequest } from "./types.js"
import { type AddressClass, classifyAddress, literalAddress } from "./web/address.js"
import { htmlToMarkdown } from "./web/html.js"
import { type Address, get, type Outcome } from "./webFetch.js"

export interface WebRequest {
  /** An `http:` or `https:` URL, already parsed (selector removed). */
  readonly url: URL
  readonly params: Params
  readonly selection: Selection
}

export { WebLimits, type WebLimitsShape } from "../../Limits.js"

// -----------------------------------------------------------------------------
// Fetching: permissions, addresses, redirects, time
// -----------------------------------------------------------------------------

const failure = (url: URL, problem: FetchFailed["problem"], reason: string) =>
  new FetchFailed({ url: url.href, problem, reason })

const askFetch = (url: URL) =>
  Effect.flatMap(Permission, (permission) =>
    permission.ask({
      permission: "webfetch",
      patterns: [url.href],
      always: [`${url.origin}/*`],
      metadata: { url: url.href }
    }))

/** The host's addresses: the literal IP itself, or what DNS answers. */
const resolve = (url: URL): Effect.Effect<ReadonlyArray<Address>, FetchFailed> => {
  const literal = literalAddress(url.hostname)
  if (literal !== undefined) return Effect.succeed([{ address: literal, family: Net.isIPv6(literal) ? 6 : 4 }])
  return Effect.tryPromise({
    try: () => Dns.promises.lookup(url.hostname, { all: true, verbatim: true }),
    catch: (error) => {
      const code = typeof error === "object" && error !== null && "code" in error ? String(error.code) : "unknown error"
      return failure(url, "dns", `the host ${url.hostname} could not be resolved (DNS: ${code})`)
    }
  }).pipe(
    Effect.flatMap((found) =>
      found.length === 0
        ? Effect.fail(failure(url, "dns", `the host ${url.hostname} has no addresses`))
        : Effect.succeed(
          found.map(({ address, family }) => ({ address, family: family === 6 ? 6 as const : 4 as const }))
        )
    )
  )
}

/** One request of a fetch: its URL, and the non-public address it went to (asked of `webfetch_private`). */
interface Hop {
  readonly url: URL
  readonly private?: { readonly address: string; readonly kind: AddressClass } | undefined
}

const askPrivate = (url: URL, address: string, kind: AddressClass) =>
  Effect.flatMap(Permission, (permission) =>
    permission.ask({
      permission: "webfetch_private",
      patterns: [url.href],
      always: [`${url.origin}/*`],
      metadata: { url: url.href, address, class: kind }
    })).pipe(Effect.mapError(() => refused(url, address, kind)))

/**
 * The addresses to connect to: the public ones; when there are none, all of them if
 * `webfetch_private` allows the URL.
 */
const vetted = (url: URL, addresses: ReadonlyArray<Address>) =>
  Effect.gen(function*() {
    const classed = addresses.map((address) => ({ address, kind: classifyAddress(address.address) ?? "reserved" }))
    const open = classed.filter(({ kind }) => kind === "public").map(({ address }) => address)
    if (open.length > 0) return { addresses: open, hop: { url } satisfies Hop }
    const first = classed[0]!
    yield* askPrivate(url, first.address.address, first.kind)
    return { addresses, hop: { url, private: { address: first.address.address, kind: first.kind } } satisfies Hop }
  })

const refused = (url: URL, address: string, kind: AddressClass) =>
  failure(
    url,
    "address",
    `${
      url.hostname === address || url.hostname === `[${address}]` ? "" : `${url.hostname} resolves to `
    }${address}, a ${kind} address. Loopback, private, link-local and other non-public addresses are fetched only when a webfetch_private permission rule allows the URL.`
  )

interface Fetched {
  readonly url: URL
  readonly redirects: number
  readonly response: Extract<Outcome, { _tag: "Response" }>
  /** Every request made, in order: a kept page asks their permissions again. */
  readonly hops: ReadonlyArray<Hop>
}

/** Fetch `start`, following redirects; every hop is asked and its addresses checked. */
const fetchFollowing = Effect.fn("Web.fetch")(function*(start: URL) {
  const limits = yield* WebLimits
  const budget = Duration.toMillis(Duration.decode(limits.timeout))
  let spent = 0
  // Only network time counts against the timeout; a permission prompt may wait for a person.
  const network = <A>(url: URL, effect: Effect.Effect<A, FetchFailed>) =>
    Effect.timed(effect.pipe(Effect.timeoutFail({
      duration: Duration.millis(Math.max(0, budget - spent)),
      onTimeout: () =>
        failure(
          url,
          "timeout",
          `no complete response within ${Duration.format(Duration.millis(budget))} (the time limit for fetching a page)`
        )
    }))).pipe(Effect.map(([elapsed, value]) => {
      spent += Duration.toMillis(elapsed)
      return value
    }))

  let url = start
  const hops: Array<Hop> = []
  for (let redirects = 0;; redirects++) {
    yield* Effect.annotateCurrentSpan("url", url.href)
    yield* askFetch(url)
    const { addresses, hop } = yield* vetted(url, yield* network(url, resolve(url)))
    hops.push(hop)
    const outcome = yield* network(url, get(url, addresses, limits.maxBytes))
    if (outcome._tag === "Response") {
      if (outcome.status < 200 || outcome.status > 299) {
        return yield* new FetchFailed({
          url: url.href,
          problem: "status",
          status: outcome.status,
          reason: `HTTP ${outcome.status}${outcome.statusText === "" ? "" : ` ${outcome.statusText}`}`
        })
      }
      return { url, redirects, response: outcome, hops } satisfies Fetched
    }
    let next: URL
    try {
      next = new URL(outcome.location, url)
    } catch {
      return yield* failure(
        url,
        "redirects",
        `HTTP ${outcome.status} redirects to "${outcome.location}", which is not a valid URL`
      )
    }
    if (next.protocol !== "http:" && next.protocol !== "https:") {
      return yield* failure(
        url,
        "redirects",
        `HTTP ${outcome.status} redirects to ${next.href}, which is not an http or https URL`
      )
    }
    if (redirects >= limits.maxRedirects) {
      return yield* failure(
        url,
        "redirects",
        `more than ${limits.maxRedirects} redirects (the next one is to ${next.href})`
      )
    }
    url = next
  }
})

// -----------------------------------------------------------------------------
// Pages kept for continued reads
// -----------------------------------------------------------------------------

/** Pages kept at once, and their bodies' bytes in all; least recently fetched first out. */
const KEPT_PAGES = 8
const KEPT_BYTES = 32 * 1024 * 1024

/**
 * The pages fetched lately, by the URL asked for, so that a read continuing one (page 2, a
 * range, the tail) shows the same response as the read that began it, not a newer one.
 */
const kept = new Map<string, { readonly fetched: Fetched; readonly at: number }>()

const keep = (start: URL, fetched: Fetched) => {
  kept.delete(start.href)
  kept.set(start.href, { fetched, at: Date.now() })
  let bytes = 0
  for (const page of kept.values()) bytes += page.fetched.response.body.length
  for (const [href, page] of kept) {
    if (kept.size <= KEPT_PAGES && bytes <= KEPT_BYTES) break
    kept.delete(href)
    bytes -= page.fetched.response.body.length
  }
}

/** Does the read continue a page (rather than begin it)? */
const continues = (request: WebRequest): boolean =>
  (request.params.offset !== undefined && request.params.offset !== 1) || request.params.column !== undefined ||
  request.selection.ranges.length > 0 || request.selection.tail !== undefined

/**
 * The page for `request`: kept, when the read continues one fetched within `keepFor` (every
 * request of that fetch asked of the permission rules again), else fetched and kept.
 */
const pageFor = Effect.fn("Web.page")(function*(request: WebRequest) {
  const limits = yield* WebLimits
  const keepFor = Duration.toMillis(Duration.decode(limits.keepFor ?? 0))
  const known = kept.get(request.url.href)
  if (known !== undefined && continues(request) && Date.now() - known.at <= keepFor) {
    for (const hop of known.fetched.hops) {
      yield* askFetch(hop.url)
      if (hop.private !== undefined) yield* askPrivate(hop.url, hop.private.address, hop.private.kind)
    }
    return known.fetched
  }
  const fetched = yield* fetchFollowing(request.url)
  if (keepFor > 0) keep(request.url, fetched)
  return fetched
})

// -----------------------------------------------------------------------------
// Content
// -----------------------------------------------------------------------------

type Handling = "html" | "json" | "text" | "media"

const TEXTUAL_APPLICATIONS = new Set([
  "application/xml",
  "application/javascript",
  "application/ecmascript",
  "application/x-javascript",
  "application/x-yaml",
  "application/yaml",
  "application/toml",
  "application/x-sh",
  "application/sql",
  "application/graphql",
  "application/x-ndjson"
])

const handlingOf = (mime: string): Handling | undefined =>
  mime === "text/html" || mime === "application/xhtml+xml"
    ? "html"
    : mime === "application/json" || mime.endsWith("+json")
    ? "json"
    : mime.startsWith("text/") || mime.endsWith("+xml") || TEXTUAL_APPLICATIONS.has(mime)
    ? "text"
    : mediaKind(mime) !== undefined
    ? "media"
    : undefined

const startsWith = (bytes: Uint8Array, ...prefix: Array<number>) => prefix.every((byte, i) => bytes[i] === byte)

/** A type for a body sent without one (or as `application/octet-stream`): magic bytes, markup, or text. */
const sniff = (bytes: Uint8Array): string | undefined => {
  if (startsWith(bytes, 0x89, 0x50, 0x4e, 0x47)) return "image/png"
  if (startsWith(bytes, 0xff, 0xd8, 0xff)) return "image/jpeg"
  if (startsWith(bytes, 0x47, 0x49, 0x46, 0x38)) return "image/gif"
  if (startsWith(bytes, 0x52, 0x49, 0x46, 0x46) && startsWith(bytes.subarray(8), 0x57, 0x45, 0x42, 0x50)) {
    return "image/webp"
  }
  if (startsWith(bytes, 0x25, 0x50, 0x44, 0x46, 0x2d)) return "application/pdf"
  const head = bytes.subarray(0, 1024)
  if (head.includes(0)) return undefined
  const text = Buffer.from(head).toString("latin1").trimStart().toLowerCase()
  return text.startsWith("<!doctype html") || text.startsWith("<html") ? "text/html" : "text/plain"
}

interface ContentType {
  readonly mime: string
  readonly charset: string | undefined
}

const parseContentType = (header: string | undefined): ContentType | undefined => {
  if (header === undefined || header.trim() === "") return undefined
  const [type, ...parameters] = header.split(";")
  const charset = parameters
    .map((parameter) => /^\s*charset\s*=\s*"?([^";\s]+)"?\s*$/i.exec(parameter)?.[1])
    .find((value) => value !== undefined)
  return { mime: type!.trim().toLowerCase(), charset }
}

/** `<meta charset=…>` or the `http-equiv` form, in the first bytes of an HTML page. */
const metaCharset = (bytes: Uint8Array): string | undefined =>
  /<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(Buffer.from(bytes.subarray(0, 4096)).toString("latin1"))?.[1]

const decodeBody = (bytes: Uint8Array, charset: string | undefined) => {
  const codec = (charset === undefined ? undefined : codecFor(charset)) ?? utf8
  const decoded = codec.decode(bytes)
  return { text: decoded.text.replace(/^\uFEFF/, ""), replaced: decoded.replaced, encoding: codec.encoding }
}

const withNewline = (text: string): string => text.length === 0 || /[\r\n]$/.test(text) ? text : `${text}\n`

const oneLine = (text: string): string => text.replace(/\s+/g, " ").trim()

/** The text shown for a body, and a note when it is not what the type promised. */
const converted = (handling: "html" | "json" | "text", body: string, url: URL) => {
  if (handling === "html") return { text: htmlToMarkdown(body, url).text, note: undefined }
  if (handling === "json") {
    try {
      return { text: `${JSON.stringify(JSON.parse(body), null, 2)}\n`, note: undefined }
    } catch (error) {
      return {
        text: withNewline(body),
        note: `(Not valid JSON: ${oneLine(error instanceof Error ? error.message : String(error))}. Shown as received.)`
      }
    }
  }
  return { text: withNewline(body), note: undefined }
}

/** Read a web page: fetch it (asking, checking and following as above), then present it. */
export const readWeb = Effect.fn("Read.web")(function*(request: WebRequest) {
  const href = request.url.href
  if (request.selection.pages !== undefined) {
    return yield* new InvalidSelector({
      path: href,
      reason: "Page selectors (:pages=N-M) apply to PDF and .pptx files only; select lines of a web page with :N-M."
    })
  }
  const fetched = yield* pageFor(request)
  const { response, url } = fetched
  const declared = parseContentType(response.contentType)
  const sniffed = declared === undefined || declared.mime === "application/octet-stream"
    ? sniff(response.body)
    : undefined
  const mime = sniffed ?? declared?.mime ?? "application/octet-stream"
  const handling = handlingOf(mime)
  if (handling === undefined) {
    return yield* new FetchFailed({
      url: url.href,
      problem: "content-type",
      reason: `the response is ${mime}, which cannot be read as text, an image or a PDF`
    })
  }
  const web = {
    url: url.href,
    status: response.status,
    ...(response.contentType === undefined ? {} : { contentType: response.contentType })
  }
  if (handling === "media") {
    return yield* attachBytes({
      path: href,
      title: href,
      bytes: response.body,
      mime,
      facts: { size: response.received },
      metadata: web
    })
  }
  const charset = declared?.charset ?? (handling === "html" ? metaCharset(response.body) : undefined)
  const decoded = decodeBody(response.body, charset)
  const shown = request.selection.raw
    ? { text: withNewline(decoded.text), note: undefined }
    : converted(handling, decoded.text, url)
  const notes = [
    fetched.redirects > 0 ? `(Redirected: the content is from ${url.href}.)` : undefined,
    shown.note
  ].filter((note) => note !== undefined)
  const bytes = new TextEncoder().encode(shown.text)
  const result: ReadResult = yield* presentText({
    path: href,
    title: href,
    kind: "web",
    pageAt: memoryPageAt(bytes),
    tailAt: memoryTailAt(bytes),
    selection: request.selection,
    params: request.params,
    note: notes.length === 0 ? undefined : notes.join("\n"),
    facts: { fileSize: bytes.length, encoding: decoded.encoding, replaced: decoded.replaced },
    metadata: { size: response.received, mime, encoding: decoded.encoding, ...web }
  })
  return result
})

/** The `http://` / `https://` scheme source's read: the URL parsed, then `readWeb`. */
export const readWebScheme = (request: SchemeRequest) =>
  Effect.try({
    try: () => new URL(request.url),
    catch: () => new InvalidParams({ reason: `filePath: '${request.url}' is not a valid URL` })
  }).pipe(Effect.flatMap((url) => readWeb({ url, params: request.params, selection: request.selection })))
