/**
 * The source registry: custom file sources (before and after the defaults, as containers),
 * removed defaults, custom schemes that answer with content or name local files, and the pure
 * resolution of a path's meanings.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fc from "effect/FastCheck"
import * as Layer from "effect/Layer"
import { skills } from "../examples/sources.js"
import { localMeanings, resolve } from "../src/internal/core/resolve.js"
import * as Permission from "../src/Permission.js"
import { read } from "../src/Read.js"
import { FileNotFound } from "../src/ReadError.js"
import * as Sources from "../src/Sources.js"
import { memoryLayer } from "./support/index.js"

const FILES = {
  "/project/notes.txt": "one\ntwo\nthree\n",
  "/project/data.rev": "abc\ndef\n",
  "/project/blob.bin": new Uint8Array([0, 1, 2, 3, 0, 0, 255, 254]),
  "/project/store.kv": "name=effect-read\nlines=a\\nb\n",
  "/project/bundle.zip": "plain text in a zip-named file\n",
  "/project/skills/review/SKILL.md": "# Review\nRead the diff first.\n",
  "/project/skills/secret/SKILL.md": "# Secret\n"
}

const withSources = (sources: ReadonlyArray<Sources.Source>, permission?: Layer.Layer<Permission.Permission>) =>
  Layer.merge(memoryLayer(FILES, permission === undefined ? {} : { permission }), Sources.layer(sources))

/** Text files whose lines are shown reversed: a source that claims by extension. */
const reversed = Sources.fileSource({
  name: "reversed",
  claims: (facts) => facts.extension === ".rev",
  read: (request) =>
    Effect.gen(function*() {
      const bytes = new Uint8Array(Number(request.info.size))
      yield* request.file.seek(0, "start")
      yield* request.file.read(bytes).pipe(Effect.orDie)
      const text = new TextDecoder().decode(bytes).split("\n").map((line) => [...line].reverse().join("")).join("\n")
      return yield* Sources.textResult({
        path: request.target.absolute,
        title: request.target.relative,
        text,
        params: request.params,
        selection: request.selection
      })
    })
})

/** Binary `.bin` files described by size: no default claims binary, so it can go last. */
const blobs = Sources.fileSource({
  name: "blobs",
  claims: (facts) => facts.extension === ".bin",
  read: (request) =>
    Sources.textResult({
      path: request.target.absolute,
      text: `${request.info.size} bytes of binary data\n`,
      params: request.params,
      selection: request.selection
    })
})

/** `store.kv:key` reads one value: a container source. */
const keyValues = Sources.fileSource({
  name: "key-values",
  container: /\.kv(?=:|$)/gi,
  claims: (facts) => facts.extension === ".kv",
  read: (request) =>
    Effect.gen(function*() {
      const bytes = new Uint8Array(Number(request.info.size))
      yield* request.file.seek(0, "start")
      yield* request.file.read(bytes).pipe(Effect.orDie)
      const entries = new TextDecoder().decode(bytes).split("\n").filter((line) => line.includes("="))
      const wanted = request.inner ?? ""
      const value = entries.find((line) => line.startsWith(`${wanted}=`))?.slice(wanted.length + 1)
      if (wanted !== "" && value === undefined) {
        return yield* new FileNotFound({ path: `${request.target.absolute}:${wanted}`, suggestions: [] })
      }
      return yield* Sources.textResult({
        path: wanted === "" ? request.target.absolute : `${request.target.absolute}:${wanted}`,
        text: wanted === "" ? entries.map((line) => line.split("=")[0]).join("\n") : value!.replaceAll("\\n", "\n"),
        params: request.params,
        selection: request.selection
      })
    })
})

/** `memory://key` answers from a map: a scheme source with content. */
const notes: Record<string, string> = { todo: "buy milk\nship effect-read\nsleep\n" }
const memory = Sources.schemeSource({
  name: "memory",
  schemes: ["memory"],
  read: (request) => {
    const key = request.url.slice("memory://".length)
    const text = notes[key]
    return text === undefined
      ? Effect.fail(
        new FileNotFound({ path: request.url, suggestions: Object.keys(notes).map((k) => `memory://${k}`) })
      )
      : Sources.textResult({ path: request.url, text, params: request.params, selection: request.selection })
  }
})

describe("Sources: a custom file source", () => {
  it.effect("placed before the defaults, it reads what it claims", () =>
    Effect.gen(function*() {
      const result = yield* read({ filePath: "data.rev" })
      expect(result.output).toContain("1: cba\n2: fed")
      // Everything else still goes to the defaults.
      expect((yield* read({ filePath: "notes.txt:2" })).output).toContain("2: two")
    }).pipe(Effect.provide(withSources([reversed, ...Sources.defaults]))))

  it.effect("without it, the same file is plain text", () =>
    Effect.gen(function*() {
      expect((yield* read({ filePath: "data.rev" })).output).toContain("1: abc\n2: def")
    }).pipe(Effect.provide(withSources(Sources.defaults))))

  it.effect("placed after the defaults, it gets binary files no default claims", () =>
    Effect.gen(function*() {
      expect((yield* read({ filePath: "blob.bin" })).output).toContain("1: 8 bytes of binary data")
    }).pipe(Effect.provide(withSources([...Sources.defaults, blobs]))))

  it.effect("what no source claims is refused as binary", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(read({ filePath: "blob.bin" }))
      expect(error._tag).toBe("BinaryFile")
    }).pipe(Effect.provide(withSources(Sources.defaults))))

  it.effect("a container source is reached into with `file.ext:inner`, selectors after it", () =>
    Effect.gen(function*() {
      expect((yield* read({ filePath: "store.kv:name" })).output).toContain("1: effect-read")
      expect((yield* read({ filePath: "store.kv" })).output).toContain("1: name\n2: lines")
      const missing = yield* Effect.flip(read({ filePath: "store.kv:nope" }))
      expect(missing._tag).toBe("FileNotFound")
    }).pipe(Effect.provide(withSources([keyValues, ...Sources.defaults]))))

  it.effect("removing a default: a .zip is then what its bytes are", () =>
    Effect.gen(function*() {
      // With the archive source, a `.zip` path reaches inside; without it, the text file is read.
      const withArchives = yield* Effect.flip(read({ filePath: "bundle.zip:member.txt" })).pipe(
        Effect.provide(withSources(Sources.defaults))
      )
      expect(withArchives._tag).toBe("ArchiveError")
      const lean = withSources(Sources.defaults.filter((source) => source.name !== "archive"))
      expect((yield* read({ filePath: "bundle.zip" }).pipe(Effect.provide(lean))).output).toContain(
        "1: plain text in a zip-named file"
      )
      const inside = yield* Effect.flip(read({ filePath: "bundle.zip:member.txt" }).pipe(Effect.provide(lean)))
      expect(inside._tag).toBe("FileNotFound")
    }))
})

describe("Sources: custom schemes", () => {
  it.effect("a scheme with content: numbered, selectable, paged like a file", () =>
    Effect.gen(function*() {
      const whole = yield* read({ filePath: "memory://todo" })
      expect(whole.output).toContain("<path>memory://todo</path>")
      expect(whole.output).toContain("1: buy milk\n2: ship effect-read\n3: sleep")
      const picked = yield* read({ filePath: "memory://todo:2" })
      expect(picked.output).toContain("2: ship effect-read")
      expect(picked.output).not.toContain("1: buy milk")
      const paged = yield* read({ filePath: "memory://todo", offset: 3 })
      expect(paged.output).toContain("3: sleep")
      const missing = yield* Effect.flip(read({ filePath: "memory://nothing" }))
      expect(missing.message).toContain("memory://todo")
    }).pipe(Effect.provide(withSources([memory, ...Sources.defaults]))))

  // `skills` is the README's example (examples/sources.ts).
  it.effect("a scheme that names local files goes through the whole pipeline, permissions included", () =>
    Effect.gen(function*() {
      const rules = Permission.layerRules([
        ...Permission.defaultRules,
        { permission: "read", pattern: "skills/secret/*", action: "deny" }
      ])
      const layer = withSources([skills, ...Sources.defaults], rules)
      const skill = yield* read({ filePath: "skill://review" }).pipe(Effect.provide(layer))
      expect(skill.output).toContain("<path>/project/skills/review/SKILL.md</path>")
      expect(skill.output).toContain("2: Read the diff first.")
      const line = yield* read({ filePath: "skill://review:2" }).pipe(Effect.provide(layer))
      expect(line.output).not.toContain("1: # Review")
      const denied = yield* Effect.flip(read({ filePath: "skill://secret" }).pipe(Effect.provide(layer)))
      expect(denied._tag).toBe("PermissionDenied")
    }))

  it.effect("an unregistered scheme is a plain path", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(read({ filePath: "memory://todo" }))
      expect(error._tag).toBe("FileNotFound")
    }).pipe(Effect.provide(withSources(Sources.defaults))))

  it.effect("file:// is a default scheme: containers and selectors after it work", () =>
    Effect.gen(function*() {
      expect((yield* read({ filePath: "file:///project/notes.txt:2-3" })).output).toContain("2: two\n3: three")
    }).pipe(Effect.provide(withSources(Sources.defaults))))
})

describe("resolve", () => {
  const options = {
    schemes: new Set(["https", "file"]),
    containers: [/\.zip(?=:|$)/gi, /\.db(?=[:?]|$)/gi],
    home: "/home/u"
  }

  it("a web URL's selector follows its path, never its port", () => {
    const split = (input: string) => {
      const resolved = resolve(input, { ...options, schemes: new Set(["http", "https"]) })
      return resolved._tag === "Scheme" ? [resolved.url, resolved.selector] : undefined
    }
    expect(split("https://example.com/guide:50-100")).toEqual(["https://example.com/guide", "50-100"])
    expect(split("https://example.com/data.json:raw")).toEqual(["https://example.com/data.json", "raw"])
    expect(split("https://example.com/a:2-4:raw")).toEqual(["https://example.com/a", "2-4:raw"])
    expect(split("http://127.0.0.1:8080")).toEqual(["http://127.0.0.1:8080", undefined])
    expect(split("http://127.0.0.1:8080/:80")).toEqual(["http://127.0.0.1:8080/", "80"])
    expect(split("http://[::1]:8080/x?q=1:5")).toEqual(["http://[::1]:8080/x?q=1", "5"])
    expect(split("http://host?q=1:5")).toEqual(["http://host?q=1", "5"])
    expect(split("https://example.com/a:b")).toEqual(["https://example.com/a:b", undefined])
    expect(split("ftp://example.com/x")).toBeUndefined()
  })

  it("a selector follows a URL's path, never its port", () => {
    expect(resolve("https://host:8080", options)).toMatchObject({ url: "https://host:8080", selector: undefined })
    expect(resolve("https://host:8080/page:5-9", options)).toMatchObject({
      url: "https://host:8080/page",
      selector: "5-9"
    })
    expect(resolve("HTTPS://host/a", options)).toMatchObject({ _tag: "Scheme", scheme: "https" })
  })

  it("a local path: as written, then containers longest first, then the selector", () => {
    expect(localMeanings("a.zip:b.zip:c.ts:3", options)).toEqual([
      { _tag: "AsWritten", path: "a.zip:b.zip:c.ts:3" },
      { _tag: "Container", path: "a.zip:b.zip", inner: "c.ts:3" },
      { _tag: "Container", path: "a.zip", inner: "b.zip:c.ts:3" },
      { _tag: "Selected", path: "a.zip:b.zip:c.ts", selector: "3" }
    ])
    // A plain path has one meaning.
    expect(localMeanings("~/x.ts", options)).toEqual([{ _tag: "AsWritten", path: "/home/u/x.ts" }])
    // `..` after a colon never reads the directory holding the container.
    expect(localMeanings("a.zip:pkg/..", options)[0]).toEqual({ _tag: "Container", path: "a.zip", inner: "pkg/.." })
    // A leading colon: the literal path after it, and nothing else.
    expect(localMeanings(":notes:12", options)).toEqual([
      { _tag: "AsWritten", path: ":notes:12" },
      { _tag: "AsWritten", path: "notes:12" }
    ])
  })

  it.prop(
    "every container meaning splits the path at a container name; the last meaning always reads something",
    [fc.array(fc.constantFrom("a", ".zip", ".db", ":", "/", "3", "-", "..", "raw", "~"), { maxLength: 12 })],
    ([parts]) => {
      const input = parts.join("")
      if (input.length === 0) return
      const meanings = localMeanings(input, options)
      expect(meanings.length).toBeGreaterThan(0)
      expect(meanings.at(-1)!._tag).not.toBe("Container")
      // No meaning is tried twice in a row.
      meanings.forEach((meaning, i) => expect(meaning).not.toEqual(meanings[i - 1]))
      // `~` and `~/…` name the home directory.
      const expanded = input === "~" || input.startsWith("~/") ? options.home + input.slice(1) : input
      for (const meaning of meanings) {
        if (meaning._tag !== "Container") continue
        expect(/\.(zip|db)$/.test(meaning.path)).toBe(true)
        expect(expanded.startsWith(meaning.path)).toBe(true)
      }
    }
  )
})
