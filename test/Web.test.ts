/**
 * Web pages through `readWeb` against a real HTTP server on 127.0.0.1 started by the tests (no
 * network): conversion by content type, paging and selectors, permissions asked per hop, the
 * SSRF rule, redirects, limits (time, size, redirects), compression, and typed failures. The
 * address classifier gets property tests.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Layer from "effect/Layer"
import * as Http from "node:http"
import * as Https from "node:https"
import type { AddressInfo } from "node:net"
import * as Zlib from "node:zlib"
import { errorCode } from "../src/Envelope.js"
import { noSelection, type Selection } from "../src/internal/core/selector.js"
import { readWeb, type WebRequest } from "../src/internal/sources/web.js"
import { type AddressClass, classifyAddress } from "../src/internal/sources/web/address.js"
import { WebLimits } from "../src/Limits.js"
import * as Permission from "../src/Permission.js"
import { FetchFailed } from "../src/ReadError.js"
import { fieldsOf } from "./support/index.js"
import { PNG } from "./support/media.js"

// -----------------------------------------------------------------------------
// The server
// -----------------------------------------------------------------------------

const ARTICLE = `<!doctype html>
<html><head><title>Parsing Lines</title><meta charset="utf-8"></head>
<body>
<header><nav><a href="/">Home</a> | <a href="/blog">Blog</a> | <a href="/about">About us</a></nav></header>
<aside class="sidebar"><h3>Related</h3><ul><li><a href="/x">Sidebar link one</a></li><li><a href="/y">Sidebar link two</a></li></ul></aside>
<main><article>
<h1>Parsing Lines</h1>
<p>Reading a file line by line sounds simple, but line terminators differ between systems, and a
careful reader keeps count of them while it pages through the text. This article shows how the
pager counts lines, where it stops, and how it decides what the next offset is.</p>
<h2>The pager</h2>
<p>The pager is fed chunks of bytes and splits them at line terminators. See
<a href="/docs/pager.html">the pager documentation</a> for every option it takes, and the
<a href="https://example.com/spec">specification</a> for the terminators it recognises.</p>
<pre><code class="language-ts">const pager = new LinePager({ offset: 1, limit: 100 })
pager.push(bytes)
</code></pre>
<p>Each page ends at the limit, at the byte cap, or at the end of the file; the footer says which
one it was and how to continue reading from the next line.</p>
<h2>Terminators</h2>
<ul><li>LF, as on Unix</li><li>CRLF, as on Windows</li><li>CR, as on classic Mac OS</li></ul>
<p>Mixed files are reported as mixed, so a caller can decide whether to normalise them first.</p>
</article></main>
<footer><p>Copyright 2026 Example Corp. All rights reserved.</p><a href="/privacy">Privacy policy</a></footer>
</body></html>`

/** Markup a plain HTML-to-markdown pass renders poorly: tables, <pre> without <code>, loose lists, permalinks. */
const FEATURES = `<html><head><title>Features</title></head><body><article>
<table><tr><td><a href="/prev">Prev</a></td><td><a href="/next">Next</a></td></tr></table>
<h2 id="options">Options<a class="headerlink" href="#options">¶</a></h2>
<p>The options below are read once, when the reader starts, and apply to every page it reads after that.</p>
<table><tr><th>name</th><th>default</th></tr><tr><td>limit</td><td>2000</td></tr><tr><td>pipe | char</td><td>none</td></tr></table>
<pre>
int main(void) {
  return 0;
}
</pre>
<ul><li><p>first item</p></li><li><p>second item</p></li></ul>
<p>The list above has two items, each written as a paragraph, which a plain conversion would separate by blank lines.</p>
</article></body></html>`

const LINES = Array.from({ length: 300 }, (_, i) => `line ${i + 1}`).join("\n") + "\n"

type Handler = (request: Http.IncomingMessage, response: Http.ServerResponse) => void

const send =
  (type: string | undefined, body: string | Buffer, headers: Http.OutgoingHttpHeaders = {}): Handler => (_, res) => {
    res.writeHead(200, { ...(type === undefined ? {} : { "content-type": type }), ...headers })
    res.end(body)
  }

const redirect = (location: string, status = 302): Handler => (_, res) => {
  res.writeHead(status, { location })
  res.end()
}

const status = (code: number): Handler => (_, res) => {
  res.writeHead(code, { "content-type": "text/plain" })
  res.end("nope")
}

const routes: Record<string, Handler> = {
  "/article": send("text/html; charset=utf-8", ARTICLE),
  "/json": send("application/json", `{"name":"effect-read","tags":["a","b"],"nested":{"ok":true}}`),
  "/problem": send("application/problem+json", `{"title":"x"}`),
  "/bad.json": send("application/json", `{"name": oops}`),
  "/latin1": send("text/plain; charset=iso-8859-1", Buffer.from("caf\xe9 cr\xe8me\n", "latin1")),
  "/lines": send("text/plain", LINES),
  "/untyped": send(undefined, "just some text\n"),
  "/image.png": send("image/png", PNG),
  "/binary": send("application/octet-stream", Buffer.from([0, 1, 2, 3, 0, 255])),
  "/zip": send("application/zip", Buffer.from("PK\x03\x04rest", "latin1")),
  "/gzip": send("text/plain", Zlib.gzipSync(LINES), { "content-encoding": "gzip" }),
  "/br": send("text/plain", Zlib.brotliCompressSync(LINES), { "content-encoding": "br" }),
  "/deflate": send("text/plain", Zlib.deflateRawSync(LINES), { "content-encoding": "deflate" }),
  "/bomb": send("text/plain", Zlib.gzipSync(Buffer.alloc(4 * 1024 * 1024, 0x61)), { "content-encoding": "gzip" }),
  "/features": send("text/html", FEATURES),
  "/tiny": send("text/html", "<html><body><p>Hi <b>there</b>, <a href='sub/page'>go</a></p></body></html>"),
  "/meta-charset": send(
    "text/html",
    Buffer.from(
      "<html><head><meta charset=\"windows-1252\"><title>Caf\xe9</title></head><body><p>\x93Quoted\x94 na\xefve</p></body></html>",
      "latin1"
    )
  ),
  "/declared-big": (_, res) => {
    // Announces 50 MB and sends a little: the announcement alone is refused.
    res.writeHead(200, { "content-type": "text/plain", "content-length": String(50 * 1024 * 1024) })
    res.write("start")
  },
  "/stall": (_, res) => {
    // Headers and a little of the body, then nothing.
    res.writeHead(200, { "content-type": "text/plain" })
    res.write("partial")
  },
  "/cut": (_, res) => {
    // Promises 100 bytes, sends 5, and drops the connection.
    res.writeHead(200, { "content-type": "text/plain", "content-length": "100" })
    res.write("short", () => res.socket?.destroy())
  },
  "/versions": (_, res) => {
    // Another version of the page on every request.
    version++
    res.writeHead(200, { "content-type": "text/plain" })
    res.end(Array.from({ length: 300 }, (_, i) => `version ${version} line ${i + 1}`).join("\n") + "\n")
  },
  "/missing": status(404),
  "/broken": status(500),
  "/redirect": redirect("/json"),
  "/redirect-twice": redirect("/redirect", 301),
  "/loop": redirect("/loop"),
  "/to-private": redirect("http://10.1.2.3/admin"),
  "/to-ftp": redirect("ftp://example.com/file"),
  "/hang": (req) => {
    // Never answers; the client's timeout must end the read and close the connection.
    hangClosed = new Promise((resolve) => req.socket.on("close", () => resolve()))
  },
  "/endless": (_, res) => {
    res.writeHead(200, { "content-type": "text/plain" })
    const chunk = Buffer.alloc(16 * 1024, 0x62)
    const timer = setInterval(() => res.write(chunk), 1)
    res.on("close", () => clearInterval(timer))
  }
}

/** A throwaway self-signed certificate for 127.0.0.1, made for this test and trusted by nothing. */
const TLS = {
  key: `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgS/dVryQl+ij+5GHr
lZlzBHGKgNCL1oWAaHuOYPpDgGChRANCAARom/iierM69GgDyeoMLYxGYfrkjZjS
RURQ0mjLKu87mv9IlVTGd7UFgbSsfikr6xuMb4ndI2UE2vl3OCHqHxnZ
-----END PRIVATE KEY-----`,
  cert: `-----BEGIN CERTIFICATE-----
MIIBkDCCATagAwIBAgIUOuDgcNmqnzYrWM1GAK8wKpkf6yswCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJMTI3LjAuMC4xMCAXDTI2MTEyMzAyMjMzMloYDzIxMjYxMDMw
MDIyMzMyWjAUMRIwEAYDVQQDDAkxMjcuMC4wLjEwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAARom/iierM69GgDyeoMLYxGYfrkjZjSRURQ0mjLKu87mv9IlVTGd7UF
gbSsfikr6xuMb4ndI2UE2vl3OCHqHxnZo2QwYjAdBgNVHQ4EFgQUjmW/qhxGySH4
gzC+JxqqesH2O6wwHwYDVR0jBBgwFoAUjmW/qhxGySH4gzC+JxqqesH2O6wwDwYD
VR0TAQH/BAUwAwEB/zAPBgNVHREECDAGhwR/AAABMAoGCCqGSM49BAMCA0gAMEUC
IQCLux4BftmZxyH88KgkbxGFOgPbw6jXvvAINk7Wvur/MwIgGKr8CS0n9M50eo14
mPyVhtj0zrkdNXuwO9uqSrCjr/0=
-----END CERTIFICATE-----`
}

let server: Http.Server
let tlsServer: Https.Server
let port = 0
let tlsPort = 0
const hits: Array<string> = []
let version = 0
/** Resolves when the server sees the /hang request's connection closed. */
let hangClosed: Promise<void> = Promise.resolve()

beforeAll(async () => {
  server = Http.createServer((req, res) => {
    hits.push(req.url ?? "")
    const handler = routes[new URL(req.url ?? "/", "http://x").pathname]
    if (handler === undefined) return status(404)(req, res)
    handler(req, res)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  port = (server.address() as AddressInfo).port
  tlsServer = Https.createServer(TLS, (_, res) => send("text/plain", "secret\n")(_, res))
  await new Promise<void>((resolve) => tlsServer.listen(0, "127.0.0.1", resolve))
  tlsPort = (tlsServer.address() as AddressInfo).port
})

afterAll(async () => {
  server.closeAllConnections()
  tlsServer.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
  await new Promise((resolve) => tlsServer.close(resolve))
})

const at = (path: string) => `http://127.0.0.1:${port}${path}`

// -----------------------------------------------------------------------------
// Reading
// -----------------------------------------------------------------------------

/** A permission service that records every request before the rules decide it. */
const recording = (rules: ReadonlyArray<Permission.Rule>) => {
  const asked: Array<Permission.PermissionRequest> = []
  const layer = Layer.effect(
    Permission.Permission,
    Effect.map(Permission.make(rules), (inner) => ({
      ask: (request: Permission.PermissionRequest) => Effect.suspend(() => (asked.push(request), inner.ask(request))),
      check: inner.check
    }))
  )
  return { asked, layer }
}

/** webfetch allowed everywhere, and private addresses for this server only. */
const serverRules = (): ReadonlyArray<Permission.Rule> => [
  { permission: "webfetch", pattern: "*", action: "allow" },
  { permission: "webfetch_private", pattern: `http://127.0.0.1:${port}/*`, action: "allow" }
]

const request = (path: string, options: { params?: WebRequest["params"]; selection?: Selection } = {}): WebRequest => ({
  url: new URL(at(path)),
  params: options.params ?? {},
  selection: options.selection ?? noSelection
})

const read = (path: string, options: { params?: WebRequest["params"]; selection?: Selection } = {}) =>
  readWeb(request(path, options)).pipe(Effect.provide(recording(serverRules()).layer))

const fail = (path: string) => Effect.flip(read(path))

/** The shown lines without their numbers. */
const text = (output: string): string =>
  output.split("\n<content>\n")[1]!.split("\n\n(")[0]!.split("\n").map((line) => line.replace(/^\d+: /, "")).join("\n")

const limits = (
  overrides: Partial<
    { timeout: Duration.DurationInput; maxBytes: number; maxRedirects: number; keepFor: Duration.DurationInput }
  >
) =>
  Effect.provideService(WebLimits, {
    timeout: Duration.seconds(30),
    maxBytes: 10 * 1024 * 1024,
    maxRedirects: 5,
    ...overrides
  })

describe("web pages", () => {
  it.live("an HTML article becomes markdown: headings, links, code survive; navigation and footer do not", () =>
    Effect.gen(function*() {
      const result = yield* read("/article")
      const markdown = text(result.output)
      expect(
        result.output.startsWith(`<path>${at("/article")}</path>\n<type>file</type>\n<content>\n1: # Parsing Lines\n`)
      ).toBe(true)
      expect(markdown).toContain("## The pager")
      expect(markdown).toContain("## Terminators")
      expect(markdown).toContain(`[the pager documentation](${at("/docs/pager.html")})`)
      expect(markdown).toContain("[specification](https://example.com/spec)")
      expect(markdown).toContain(
        "```ts\nconst pager = new LinePager({ offset: 1, limit: 100 })\npager.push(bytes)\n```"
      )
      expect(markdown).toContain("- CRLF, as on Windows")
      expect(markdown).not.toContain("About us")
      expect(markdown).not.toContain("Copyright 2026")
      expect(markdown).not.toContain("Sidebar link")
      expect(markdown.match(/^# Parsing Lines$/gm)).toHaveLength(1)
      expect(result.metadata).toMatchObject({
        kind: "web",
        path: at("/article"),
        url: at("/article"),
        status: 200,
        contentType: "text/html; charset=utf-8",
        mime: "text/html",
        size: Buffer.byteLength(ARTICLE),
        truncated: false
      })
      expect(result.title).toBe(at("/article"))
    }))

  it.live("tables, bare <pre>, loose lists and permalinks come out as clean markdown", () =>
    Effect.gen(function*() {
      const markdown = text((yield* read("/features")).output)
      expect(markdown).toContain(`[Prev](${at("/prev")}) [Next](${at("/next")})`)
      expect(markdown).toContain("## Options\n")
      expect(markdown).not.toContain("¶")
      expect(markdown).toContain("| name | default |\n| --- | --- |\n| limit | 2000 |\n| pipe \\| char | none |")
      expect(markdown).toContain("```\nint main(void) {\n  return 0;\n}\n```")
      expect(markdown).toContain("- first item\n- second item")
    }))

  it.live("a page without an article is converted whole; a <meta> charset is honoured", () =>
    Effect.gen(function*() {
      expect(text((yield* read("/tiny")).output)).toBe(`Hi **there**, [go](${at("/sub/page")})`)
      const page = yield* read("/meta-charset")
      expect(text(page.output)).toBe("# Café\n\n\u201cQuoted\u201d naïve")
      expect(fieldsOf(page).encoding).toBe("windows-1252")
    }))

  it.live(":raw shows the body as sent, without numbers", () =>
    Effect.gen(function*() {
      const result = yield* read("/article", { selection: { ...noSelection, raw: true } })
      expect(result.output).toContain("\n<!doctype html>\n<html><head><title>Parsing Lines</title>")
      expect(result.output).toContain(`<footer><p>Copyright 2026`)
    }))

  it.live("JSON is pretty-printed; +json types too; invalid JSON is shown as received with a note", () =>
    Effect.gen(function*() {
      const json = yield* read("/json")
      expect(text(json.output)).toBe(
        JSON.stringify({ name: "effect-read", tags: ["a", "b"], nested: { ok: true } }, null, 2)
      )
      expect(text((yield* read("/problem")).output)).toBe(`{\n  "title": "x"\n}`)
      const bad = yield* read("/bad.json")
      expect(bad.output.startsWith("(Not valid JSON: ")).toBe(true)
      expect(text(bad.output)).toBe(`{"name": oops}`)
    }))

  it.live("plain text is decoded by its charset", () =>
    Effect.gen(function*() {
      const result = yield* read("/latin1")
      expect(text(result.output)).toBe("café crème")
      expect(fieldsOf(result).encoding).toBe("iso-8859-1")
      expect(fieldsOf(result).invalidBytesReplaced).toBeUndefined()
    }))

  it.live("a body without a type is sniffed", () =>
    Effect.gen(function*() {
      expect(text((yield* read("/untyped")).output)).toBe("just some text")
      const image = yield* read("/binary").pipe(Effect.flip)
      expect(image).toBeInstanceOf(FetchFailed)
    }))

  it.live("line selectors and offset/limit page the text with the usual footers", () =>
    Effect.gen(function*() {
      const selected = yield* read("/lines", { selection: { ...noSelection, ranges: [{ start: 50, end: 52 }] } })
      expect(selected.output).toBe(
        `<path>${
          at("/lines")
        }</path>\n<type>file</type>\n<content>\n50: line 50\n51: line 51\n52: line 52\n\n(Showing lines 50-52 of 300. Use offset=53 to continue.)\n</content>`
      )
      const paged = yield* read("/lines", { params: { offset: 290, limit: 5 } })
      expect(paged.output).toContain("290: line 290\n")
      expect(paged.output).toContain("(Showing lines 290-294 of 300. Use offset=295 to continue.)")
      expect(paged.metadata).toMatchObject({ startLine: 290, endLine: 294, nextOffset: 295, totalLines: 300 })
      const end = yield* read("/lines", { params: { offset: 299 } })
      expect(end.output).toContain("(End of file - total 300 lines)")
      const beyond = yield* read("/lines", { params: { offset: 400 } }).pipe(Effect.flip)
      expect(beyond._tag).toBe("OffsetOutOfRange")
    }))

  it.live("a read continuing a page (offset, range, tail) shows the response its first page came from", () =>
    Effect.gen(function*() {
      const keeping = Effect.provideService(WebLimits, { ...WebLimits.defaultValue(), keepFor: Duration.minutes(10) })
      const first = yield* read("/versions").pipe(keeping)
      const fetched = hits.length
      const shown = /version (\d+) line 1\n/.exec(first.output)![1]
      const next = yield* read("/versions", { params: { offset: 200, limit: 3 } }).pipe(keeping)
      expect(next.output).toContain(`200: version ${shown} line 200\n`)
      const range = yield* read("/versions", { selection: { ...noSelection, ranges: [{ start: 5, end: 6 }] } }).pipe(
        keeping
      )
      expect(range.output).toContain(`5: version ${shown} line 5\n`)
      const tail = yield* read("/versions", { selection: { ...noSelection, tail: 2 } }).pipe(keeping)
      expect(tail.output).toContain(`300: version ${shown} line 300`)
      expect(hits.length).toBe(fetched)
      // A read from the start fetches anew, and later pages follow the new response.
      const again = yield* read("/versions").pipe(keeping)
      expect(hits.length).toBe(fetched + 1)
      const newer = /version (\d+) line 1\n/.exec(again.output)![1]
      expect(newer).not.toBe(shown)
      expect((yield* read("/versions", { params: { offset: 2, limit: 1 } }).pipe(keeping)).output).toContain(
        `version ${newer} line 2`
      )
      // keepFor 0: every read fetches.
      yield* read("/versions", { params: { offset: 2, limit: 1 } }).pipe(limits({ keepFor: 0 }))
      expect(hits.length).toBe(fetched + 2)
    }))

  it.live("a kept page is shown only if the rules still allow fetching it", () =>
    Effect.gen(function*() {
      const keeping = Effect.provideService(WebLimits, { ...WebLimits.defaultValue(), keepFor: Duration.minutes(10) })
      yield* read("/versions").pipe(keeping)
      const fetched = hits.length
      const denied = recording([
        { permission: "webfetch", pattern: "*", action: "allow" },
        { permission: "webfetch_private", pattern: "*", action: "deny" }
      ])
      const error = yield* readWeb(request("/versions", { params: { offset: 5 } })).pipe(
        keeping,
        Effect.provide(denied.layer),
        Effect.flip
      )
      expect(error._tag).toBe("FetchFailed")
      expect(denied.asked.map((asked) => asked.permission)).toEqual(["webfetch", "webfetch_private"])
      expect(hits.length).toBe(fetched)
    }))

  it.live("page selectors are refused", () =>
    Effect.gen(function*() {
      const error = yield* read("/lines", { selection: { ...noSelection, pages: { start: 1, end: 2 } } }).pipe(
        Effect.flip
      )
      expect(error._tag).toBe("InvalidSelector")
    }))

  it.live("images are attachments", () =>
    Effect.gen(function*() {
      const result = yield* read("/image.png")
      expect(result.metadata).toMatchObject({
        kind: "image",
        mime: "image/png",
        url: at("/image.png"),
        status: 200,
        size: PNG.length
      })
      expect(result.attachments?.[0]?.url).toBe(`data:image/png;base64,${PNG.toString("base64")}`)
    }))

  it.live("gzip, deflate and br bodies are decompressed", () =>
    Effect.gen(function*() {
      for (const path of ["/gzip", "/deflate", "/br"]) {
        const result = yield* read(path, { params: { offset: 298 } })
        expect(text(result.output)).toBe("line 298\nline 299\nline 300")
        expect(result.metadata.size).toBeLessThan(Buffer.byteLength(LINES))
      }
    }))

  it.live("a compressed body past the size limit is stopped once decompressed", () =>
    Effect.gen(function*() {
      const error = yield* fail("/bomb").pipe(limits({ maxBytes: 1024 * 1024 }))
      expect(error).toMatchObject({ _tag: "FetchFailed", problem: "too-large" })
      expect(error.message).toContain("1.0 MiB limit")
    }))

  it.live("an endless body stops at the size limit", () =>
    Effect.gen(function*() {
      const error = yield* fail("/endless").pipe(limits({ maxBytes: 200 * 1024 }))
      expect(error).toMatchObject({ _tag: "FetchFailed", problem: "too-large", url: at("/endless") })
      expect(error.message).toBe(
        `Fetching ${
          at("/endless")
        } failed: the response is larger than the 200.0 KiB limit for web pages; reading stopped there`
      )
    }))

  it.live("a body announced over the size limit is refused before reading it", () =>
    Effect.gen(function*() {
      const error = yield* fail("/declared-big")
      expect(error.message).toBe(
        `Fetching ${
          at("/declared-big")
        } failed: the response (50.0 MiB) is larger than the 10.0 MiB limit for web pages; reading stopped there`
      )
    }))

  it.live("a server that never answers times out", () =>
    Effect.gen(function*() {
      const error = yield* fail("/hang").pipe(limits({ timeout: Duration.millis(300) }))
      expect(error).toMatchObject({ _tag: "FetchFailed", problem: "timeout" })
      expect(error.message).toBe(
        `Fetching ${at("/hang")} failed: no complete response within 300ms (the time limit for fetching a page)`
      )
      // The request was destroyed, not left open.
      yield* Effect.promise(() => hangClosed)
    }), { timeout: 20_000 })

  it.live(
    "a body that stalls times out; a connection dropped mid-body is a network failure",
    () =>
      Effect.gen(function*() {
        const stalled = yield* fail("/stall").pipe(limits({ timeout: Duration.millis(300) }))
        expect(stalled).toMatchObject({ _tag: "FetchFailed", problem: "timeout" })
        const cut = yield* fail("/cut")
        expect(cut).toMatchObject({ _tag: "FetchFailed", problem: "network", url: at("/cut") })
      }),
    { timeout: 20_000 }
  )

  it.live("https verifies the certificate: a self-signed one is a network failure", () =>
    Effect.gen(function*() {
      const rules: ReadonlyArray<Permission.Rule> = [
        { permission: "webfetch", pattern: "*", action: "allow" },
        { permission: "webfetch_private", pattern: "https://127.0.0.1:*", action: "allow" }
      ]
      const url = new URL(`https://127.0.0.1:${tlsPort}/`)
      const error = yield* readWeb({ ...request("/"), url }).pipe(Effect.provide(recording(rules).layer), Effect.flip)
      expect(error).toMatchObject({ _tag: "FetchFailed", problem: "network", url: url.href })
      expect(error.message).toContain("self-signed certificate")
    }))

  it.live("HTTP errors are FetchFailed with the status", () =>
    Effect.gen(function*() {
      const missing = yield* fail("/missing")
      expect(missing).toBeInstanceOf(FetchFailed)
      expect(missing).toMatchObject({ problem: "status", status: 404 })
      expect(missing.message).toBe(`Fetching ${at("/missing")} failed: HTTP 404 Not Found`)
      expect(yield* fail("/broken")).toMatchObject({ problem: "status", status: 500 })
    }))

  it.live("types that are not text, images or PDFs are refused", () =>
    Effect.gen(function*() {
      const error = yield* fail("/zip")
      expect(error).toMatchObject({ _tag: "FetchFailed", problem: "content-type" })
      expect(error.message).toContain("application/zip")
    }))
})

describe("web permissions and redirects", () => {
  it.live("webfetch is asked with the URL as pattern, before any request", () =>
    Effect.gen(function*() {
      const { asked, layer } = recording(serverRules())
      yield* readWeb(request("/json")).pipe(Effect.provide(layer))
      expect(asked.map((r) => [r.permission, r.patterns])).toEqual([
        ["webfetch", [at("/json")]],
        ["webfetch_private", [at("/json")]]
      ])
      expect(asked[0]!.always).toEqual([`http://127.0.0.1:${port}/*`])

      const before = hits.length
      const denied = recording([{ permission: "webfetch", pattern: "*", action: "deny" }])
      const error = yield* readWeb(request("/json")).pipe(Effect.provide(denied.layer), Effect.flip)
      expect(error).toMatchObject({ _tag: "PermissionDenied", permission: "webfetch", patterns: [at("/json")] })
      expect(hits.length).toBe(before)
    }))

  it.live("loopback is refused without a webfetch_private rule and read with one", () =>
    Effect.gen(function*() {
      const before = hits.length
      const plain = recording([{ permission: "webfetch", pattern: "*", action: "allow" }])
      const error = yield* readWeb(request("/json")).pipe(Effect.provide(plain.layer), Effect.flip)
      expect(error).toMatchObject({ _tag: "FetchFailed", problem: "address" })
      expect(error.message).toBe(
        `Fetching ${
          at("/json")
        } failed: 127.0.0.1, a loopback address. Loopback, private, link-local and other non-public addresses are fetched only when a webfetch_private permission rule allows the URL.`
      )
      expect(hits.length).toBe(before)
      // "localhost" resolves to loopback and is refused the same way.
      const named = yield* readWeb({ ...request("/json"), url: new URL(`http://localhost:${port}/json`) }).pipe(
        Effect.provide(plain.layer),
        Effect.flip
      )
      expect(named).toMatchObject({ _tag: "FetchFailed", problem: "address" })
      expect(named.message).toContain("localhost resolves to ")

      // Other spellings of loopback: decimal, hex, IPv4-mapped IPv6.
      for (const host of ["2130706433", "0x7f.1", "[::ffff:127.0.0.1]", "[::1]"]) {
        const other = yield* readWeb({ ...request("/json"), url: new URL(`http://${host}:${port}/json`) }).pipe(
          Effect.provide(plain.layer),
          Effect.flip
        )
        expect([host, other._tag, (other as FetchFailed).problem]).toEqual([host, "FetchFailed", "address"])
        expect(other.message).toContain("a loopback address")
      }
      expect(hits.length).toBe(before)

      const allowed = recording(serverRules())
      const result = yield* readWeb(request("/json")).pipe(Effect.provide(allowed.layer))
      expect(fieldsOf(result).status).toBe(200)
    }))

  it.live("a host name is connected to at the addresses checked (localhost, allowed by rule)", () =>
    Effect.gen(function*() {
      const rules: ReadonlyArray<Permission.Rule> = [
        { permission: "webfetch", pattern: "*", action: "allow" },
        { permission: "webfetch_private", pattern: `http://localhost:${port}/*`, action: "allow" }
      ]
      const result = yield* readWeb({ ...request("/json"), url: new URL(`http://localhost:${port}/json`) }).pipe(
        Effect.provide(recording(rules).layer)
      )
      expect(result.metadata).toMatchObject({ status: 200, url: `http://localhost:${port}/json` })
    }))

  it.live("redirects are followed, every hop asked; the final URL is in the metadata and a note", () =>
    Effect.gen(function*() {
      const { asked, layer } = recording(serverRules())
      const result = yield* readWeb(request("/redirect-twice")).pipe(Effect.provide(layer))
      expect(asked.filter((r) => r.permission === "webfetch").map((r) => r.patterns[0])).toEqual([
        at("/redirect-twice"),
        at("/redirect"),
        at("/json")
      ])
      expect(result.metadata).toMatchObject({ path: at("/redirect-twice"), url: at("/json"), status: 200 })
      expect(
        result.output.startsWith(
          `(Redirected: the content is from ${at("/json")}.)\n<path>${at("/redirect-twice")}</path>`
        )
      ).toBe(true)
    }))

  it.live("a redirect to a private address is refused before connecting", () =>
    Effect.gen(function*() {
      const { asked, layer } = recording(serverRules())
      const error = yield* readWeb(request("/to-private")).pipe(Effect.provide(layer), Effect.flip)
      expect(error).toMatchObject({ _tag: "FetchFailed", problem: "address", url: "http://10.1.2.3/admin" })
      expect(error.message).toContain("10.1.2.3, a private address")
      expect(asked.map((r) => [r.permission, r.patterns[0]])).toContainEqual(["webfetch", "http://10.1.2.3/admin"])
    }))

  it.live("a redirect the webfetch rules deny is refused", () =>
    Effect.gen(function*() {
      const rules = [...serverRules(), { permission: "webfetch", pattern: "*/json", action: "deny" as const }]
      const error = yield* readWeb(request("/redirect")).pipe(Effect.provide(recording(rules).layer), Effect.flip)
      expect(error).toMatchObject({ _tag: "PermissionDenied", patterns: [at("/json")] })
    }))

  it.live("too many redirects, and redirects to other schemes, fail", () =>
    Effect.gen(function*() {
      const loop = yield* fail("/loop").pipe(limits({ maxRedirects: 3 }))
      expect(loop).toMatchObject({ _tag: "FetchFailed", problem: "redirects" })
      expect(loop.message).toContain("more than 3 redirects")
      const ftp = yield* fail("/to-ftp")
      expect(ftp.message).toContain("ftp://example.com/file, which is not an http or https URL")
    }))

  it.live("a host that does not resolve is a dns failure", () =>
    Effect.gen(function*() {
      const error = yield* readWeb({ ...request("/"), url: new URL("http://no-such-host.invalid/") }).pipe(
        Effect.provide(recording(serverRules()).layer),
        Effect.flip
      )
      expect(error).toMatchObject({ _tag: "FetchFailed", problem: "dns" })
      expect(error.message).toContain("no-such-host.invalid could not be resolved")
    }))
})

describe("FetchFailed in the envelope", () => {
  it("takes the code of the file failure it is like", () => {
    const failed = (problem: FetchFailed["problem"], status?: number) =>
      errorCode(
        new FetchFailed({ url: "https://x/", problem, reason: "r", ...(status === undefined ? {} : { status }) })
      )
    expect(failed("address")).toBe("ACCESS_DENIED")
    expect(failed("too-large")).toBe("FILE_TOO_LARGE")
    expect(failed("status", 404)).toBe("NOT_FOUND")
    expect(failed("status", 410)).toBe("NOT_FOUND")
    expect(failed("status", 500)).toBe("READ_FAILED")
    expect(failed("timeout")).toBe("READ_FAILED")
  })
})

// -----------------------------------------------------------------------------
// The address classifier
// -----------------------------------------------------------------------------

const octet = FastCheck.integer({ min: 0, max: 255 })
const v4 = (a: number, b: number, c: number, d: number) => `${a}.${b}.${c}.${d}`
const hex = (n: number) => n.toString(16)
/** `a.b.c.d` as the two hex groups of an IPv6 address. */
const groupsOf = (a: number, b: number, c: number, d: number) => `${hex(a * 256 + b)}:${hex(c * 256 + d)}`

describe("classifyAddress", () => {
  it("names the classes", () => {
    const cases: ReadonlyArray<readonly [string, AddressClass]> = [
      ["8.8.8.8", "public"],
      ["127.0.0.1", "loopback"],
      ["10.0.0.1", "private"],
      ["172.16.0.1", "private"],
      ["172.32.0.1", "public"],
      ["192.168.1.1", "private"],
      ["169.254.169.254", "link-local"],
      ["100.64.0.1", "shared (CGNAT)"],
      ["100.128.0.1", "public"],
      ["224.0.0.1", "multicast"],
      ["0.0.0.0", "unspecified"],
      ["255.255.255.255", "reserved"],
      ["::", "unspecified"],
      ["::1", "loopback"],
      ["::ffff:127.0.0.1", "loopback"],
      ["::ffff:7f00:1", "loopback"],
      ["::ffff:8.8.8.8", "public"],
      ["64:ff9b::10.0.0.1", "private"],
      ["2002:a9fe:a9fe::1", "link-local"],
      ["fd12:3456::1", "unique-local"],
      ["fe80::1%eth0", "link-local"],
      ["ff02::1", "multicast"],
      ["2001:db8::1", "reserved"],
      ["2606:4700:4700::1111", "public"]
    ]
    for (const [address, kind] of cases) expect([address, classifyAddress(address)]).toEqual([address, kind])
    expect(classifyAddress("example.com")).toBeUndefined()
  })

  it.prop("10/8, 127/8 and 192.168/16 are never public", [octet, octet, octet], ([b, c, d]) => {
    expect(classifyAddress(v4(10, b, c, d))).toBe("private")
    expect(classifyAddress(v4(127, b, c, d))).toBe("loopback")
    expect(classifyAddress(v4(192, 168, c, d))).toBe("private")
    expect(classifyAddress(v4(169, 254, c, d))).toBe("link-local")
  })

  it.prop("an IPv4 address mapped into IPv6, in either notation, has the IPv4 address's class", [
    octet,
    octet,
    octet,
    octet
  ], ([a, b, c, d]) => {
    const kind = classifyAddress(v4(a, b, c, d))
    expect(classifyAddress(`::ffff:${v4(a, b, c, d)}`)).toBe(kind)
    expect(classifyAddress(`::ffff:${groupsOf(a, b, c, d)}`)).toBe(kind)
    expect(classifyAddress(`0:0:0:0:0:ffff:${groupsOf(a, b, c, d)}`)).toBe(kind)
    expect(classifyAddress(`64:ff9b::${v4(a, b, c, d)}`)).toBe(kind)
  })

  it.prop(
    "the compressed and full forms of an IPv6 address have the same class",
    [FastCheck.array(FastCheck.integer({ min: 0, max: 0xffff }), { minLength: 8, maxLength: 8 })],
    ([groups]) => {
      const full = groups.map(hex).join(":")
      const padded = groups.map((g) => hex(g).padStart(4, "0")).join(":")
      const compressed = full.replace(/(^|:)0(:0)+(:|$)/, "::")
      expect(classifyAddress(compressed)).toBe(classifyAddress(full))
      expect(classifyAddress(padded.toUpperCase())).toBe(classifyAddress(full))
      expect(classifyAddress(full)).toBeDefined()
    }
  )

  it.prop("fc00::/7 is unique-local and fe80::/10 link-local", [
    FastCheck.integer({ min: 0, max: 0x1ff }),
    FastCheck.integer({ min: 0, max: 0x3f })
  ], ([ula, ll]) => {
    expect(classifyAddress(`${hex(0xfc00 + ula)}::1`)).toBe("unique-local")
    expect(classifyAddress(`${hex(0xfe80 + ll)}::1`)).toBe("link-local")
  })
})
