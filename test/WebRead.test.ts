/**
 * Web pages through `read` itself: the registry routes `http(s)://` to the web source, selectors
 * and paging apply, permissions are asked, and a host can remove the source.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as Cli from "../src/Cli.js"
import * as Permission from "../src/Permission.js"
import { read } from "../src/Read.js"
import * as Sources from "../src/Sources.js"
import { nodeLayer, tempDir } from "./support/index.js"

const LINES = Array.from({ length: 300 }, (_, i) => `line ${i + 1}`).join("\n") + "\n"
let server: Http.Server
let port = 0
const at = (path: string) => `http://127.0.0.1:${port}${path}`

beforeAll(async () => {
  server = Http.createServer((req, res) => {
    if (req.url === "/lines") {
      res.writeHead(200, { "content-type": "text/plain; charset=utf-8" })
      res.end(LINES)
    } else {
      res.writeHead(404, { "content-type": "text/plain" })
      res.end("not here")
    }
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  port = (server.address() as AddressInfo).port
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

const root = tempDir()
const asked: Array<Permission.PermissionRequest> = []
const rules = (): ReadonlyArray<Permission.Rule> => [
  ...Permission.defaultRules,
  { permission: "webfetch", pattern: "*", action: "allow" },
  { permission: "webfetch_private", pattern: `http://127.0.0.1:${port}/*`, action: "allow" }
]
const recording = (ruleSet: () => ReadonlyArray<Permission.Rule>) =>
  Layer.effect(
    Permission.Permission,
    Effect.map(Effect.suspend(() => Permission.make(ruleSet())), (inner) => ({
      ask: (request: Permission.PermissionRequest) => Effect.suspend(() => (asked.push(request), inner.ask(request))),
      check: inner.check
    }))
  )
const allowed = () => nodeLayer(root, { permission: recording(rules) })

describe("web pages through read", () => {
  it.live("a selector after the URL picks lines, with the file footer", () =>
    Effect.gen(function*() {
      asked.length = 0
      const result = yield* read({ filePath: `${at("/lines")}:10-12` }).pipe(Effect.provide(allowed()))
      expect(result.output).toContain(`<path>${at("/lines")}</path>`)
      expect(result.output).toContain("10: line 10\n11: line 11\n12: line 12")
      expect(result.output).not.toContain("9: line 9")
      expect(result.metadata.kind).toBe("web")
      expect(asked.map((request) => [request.permission, request.patterns])).toContainEqual([
        "webfetch",
        [at("/lines")]
      ])
    }))

  it.live("offset and limit page a web page like a file; not together with a selector", () =>
    Effect.gen(function*() {
      const page = yield* read({ filePath: at("/lines"), offset: 299, limit: 5 }).pipe(Effect.provide(allowed()))
      expect(page.output).toContain("299: line 299\n300: line 300")
      expect(page.output).toContain("(End of file - total 300 lines)")
      const both = yield* Effect.flip(
        read({ filePath: `${at("/lines")}:5`, offset: 2 }).pipe(Effect.provide(allowed()))
      )
      expect(both._tag).toBe("InvalidParams")
    }))

  it.live("search finds lines of a web page, with the URL's selector form too", () =>
    Effect.gen(function*() {
      const result = yield* read({ filePath: at("/lines"), search: "^line 2\\d\\d$", limit: 2, context: 0 })
        .pipe(Effect.provide(allowed()))
      expect(result.output).toContain("<content>\n200: line 200\n201: line 201\n\n")
      expect(result.output).toContain(
        "(Showing matches 1-2 of 100 for /^line 2\\d\\d$/ in 300 lines. Use offset=3 to continue.)"
      )
      const selected = yield* read({ filePath: `${at("/lines")}:/line 299/`, context: 1 }).pipe(
        Effect.provide(allowed())
      )
      expect(selected.output).toContain("298- line 298\n299: line 299\n300- line 300\n")
    }))

  it.live("a missing page is a FetchFailed with its status", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(read({ filePath: at("/nothing") }).pipe(Effect.provide(allowed())))
      expect(error._tag).toBe("FetchFailed")
      expect(error.message).toContain("404")
    }))

  it.live("loopback is refused by the default rules", () =>
    Effect.gen(function*() {
      const defaults = nodeLayer(root, {
        permission: Permission.layerRules([
          ...Permission.defaultRules,
          { permission: "webfetch", pattern: "*", action: "allow" }
        ])
      })
      const error = yield* Effect.flip(read({ filePath: at("/lines") }).pipe(Effect.provide(defaults)))
      expect(error._tag).toBe("FetchFailed")
      expect(error.message).toContain("a loopback address")
      expect(error.message).toContain("webfetch_private")
    }))

  it.live("the CLI and MCP server fetch public pages, and refuse private addresses unless asked on a terminal", () =>
    Effect.gen(function*() {
      const layer = Cli.permissionLayer({ allowExternal: false, interactive: false })
      const decide = (permission: string) =>
        Effect.flatMap(
          Permission.Permission,
          (service) => service.check({ permission, patterns: ["https://example.com/"], always: [], metadata: {} })
        ).pipe(
          Effect.provide(layer)
        )
      expect(yield* decide("webfetch")).toBe("allow")
      expect(yield* decide("webfetch_private")).toBe("deny")
      const interactive = Cli.permissionLayer({ allowExternal: false, interactive: true })
      const asks = yield* Effect.flatMap(
        Permission.Permission,
        (service) =>
          service.check({ permission: "webfetch_private", patterns: [at("/lines")], always: [], metadata: {} })
      ).pipe(
        Effect.provide(interactive)
      )
      expect(asks).toBe("ask")
      const error = yield* Effect.flip(
        read({ filePath: at("/lines") }).pipe(Effect.provide(nodeLayer(root, { permission: layer })))
      )
      expect(error.message).toContain("a loopback address")
    }))

  it.live("without the web source, a URL is only a path", () =>
    Effect.gen(function*() {
      const lean = Layer.merge(allowed(), Sources.layer(Sources.defaults.filter((source) => source.name !== "web")))
      const error = yield* Effect.flip(read({ filePath: at("/lines") }).pipe(Effect.provide(lean)))
      expect(error._tag).toBe("FileNotFound")
    }))
})
