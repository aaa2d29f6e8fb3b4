/**
 * The README and `docs/`: the README stays a map (at most 300 lines), every relative link and
 * anchor in them leads somewhere, and no page names the documents the project was created from by
 * their internal names.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const docsDir = path.join(root, "docs")
const pages = [
  path.join(root, "README.md"),
  ...fs.readdirSync(docsDir).filter((name) => name.endsWith(".md")).sort().map((name) => path.join(docsDir, name))
]
const read = (file: string) => fs.readFileSync(file, "utf8")
const relative = (file: string) => path.relative(root, file)

/** Markdown without its fenced code blocks (links and headings in code are not links or headings). */
const prose = (markdown: string) => markdown.replace(/^```[^\n]*\n[\s\S]*?^```[^\n]*$/gm, "")

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
const anchorsOf = (markdown: string): ReadonlySet<string> => {
  const seen = new Map<string, number>()
  const anchors = new Set<string>()
  for (const match of prose(markdown).matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const slug = match[1]!.toLowerCase().replace(/[^\p{L}\p{N}\p{M} _-]/gu, "").replace(/ /g, "-")
    const count = seen.get(slug) ?? 0
    seen.set(slug, count + 1)
    anchors.add(count === 0 ? slug : `${slug}-${count}`)
  }
  return anchors
}

/** `[text](target)` links of a page's prose (images included), without external ones. */
const localLinks = (markdown: string) =>
  Array.from(prose(markdown).matchAll(/\]\(([^)\s]+)\)/g), (m) => m[1]!).filter((target) =>
    !/^[a-z][a-z0-9+.-]*:/i.test(target)
  )

describe("README and docs/", () => {
  it("the README is a map of at most 300 lines, linking every docs page", () => {
    const readme = read(path.join(root, "README.md"))
    expect(readme.split("\n").length).toBeLessThanOrEqual(300)
    const linked = new Set(localLinks(readme).map((target) => target.split("#")[0]))
    const missing = pages.slice(1).map(relative).filter((page) => !linked.has(page))
    expect(missing).toEqual([])
  })

  it("every relative link leads to a file, and every anchor to a heading there", () => {
    const broken: Array<string> = []
    for (const page of pages) {
      for (const target of localLinks(read(page))) {
        const [file, anchor] = target.split("#") as [string, string | undefined]
        const resolved = file === "" ? page : path.resolve(path.dirname(page), decodeURIComponent(file))
        if (!fs.existsSync(resolved)) {
          broken.push(`${relative(page)}: ${target} (no such file)`)
        } else if (anchor !== undefined && !anchorsOf(read(resolved)).has(anchor)) {
          broken.push(`${relative(page)}: ${target} (no such heading in ${relative(resolved)})`)
        }
      }
    }
    expect(broken).toEqual([])
  })

  it("the README's install command installs this version's tarball with the Effect ranges of package.json", () => {
    const readme = read(path.join(root, "README.md"))
    const manifest = JSON.parse(read(path.join(root, "package.json"))) as {
      readonly version: string
      readonly peerDependencies: Record<string, string>
    }
    const install = readme.split("\n").find((line) => /^npm install \S*effect-read-[\d.]+\.tgz /.test(line))
    expect(install).toBeDefined()
    expect(install).toContain(`/effect-read-${manifest.version}.tgz `)
    for (const name of ["effect", "@effect/platform", "@effect/platform-node"]) {
      expect(install).toContain(`"${name}@${manifest.peerDependencies[name]}"`)
    }
    // Every tarball the README and the install page name is of its package's version.
    const versions: Record<string, string> = {
      "effect-read": manifest.version,
      "effect-read-full":
        (JSON.parse(read(path.join(root, "packages/effect-read-full/package.json"))) as { version: string }).version,
      "effect-read-grammars":
        (JSON.parse(read(path.join(root, "packages/effect-read-grammars/package.json"))) as { version: string }).version
    }
    for (const page of [path.join(root, "README.md"), path.join(docsDir, "install-and-ci.md")]) {
      for (const [tarball, name] of read(page).matchAll(/(effect-read(?:-full|-grammars)?)-\d+\.\d+\.\d+\.tgz/g)) {
        expect(`${relative(page)}: ${tarball}`).toBe(`${relative(page)}: ${name}-${versions[name!]}.tgz`)
      }
    }
  })

  it("every TypeScript example is an excerpt of a type-checked file under examples/", () => {
    // Code lines compared trimmed and without a trailing comment, in order; imports (the examples
    // import from ../src), blank lines and comment lines left out, and an example may have lines
    // the excerpt leaves out.
    const code = (text: string) =>
      text.split("\n").map((line) => line.replace(/\s+\/\/ .*$/, "").trim())
        .filter((line) => line !== "" && !line.startsWith("//") && !line.startsWith("import "))
    const examples = fs.readdirSync(path.join(root, "examples")).filter((name) => name.endsWith(".ts")).map((name) => ({
      name,
      lines: code(read(path.join(root, "examples", name)))
    }))
    const excerptOf = (lines: ReadonlyArray<string>, of: ReadonlyArray<string>) => {
      let at = 0
      for (const line of of) if (line === lines[at]) at++
      return at === lines.length
    }
    const orphans = pages.flatMap((page) =>
      Array.from(read(page).matchAll(/^```ts\n([\s\S]*?)^```$/gm), (m) => code(m[1]!)).flatMap((lines) =>
        examples.some((example) => excerptOf(lines, example.lines)) ? [] : [`${relative(page)}: ${lines[0]}`]
      )
    )
    expect(orphans).toEqual([])
  })

  it("names no source document by its internal name", () => {
    const found = pages.flatMap((page) =>
      read(page).split("\n").flatMap((line, i) =>
        /\bseeds?[ _-]?0\d\d\b/i.test(line) ? [`${relative(page)}:${i + 1}: ${line.trim()}`] : []
      )
    )
    expect(found).toEqual([])
  })

  it("anchors follow GitHub's rules", () => {
    expect([
      ...anchorsOf(
        "## Session memory: don't pay twice\n## The @effect/ai toolkit\n## Several files per call: `read_many`\n## A\n## A\n"
      )
    ]).toEqual([
      "session-memory-dont-pay-twice",
      "the-effectai-toolkit",
      "several-files-per-call-read_many",
      "a",
      "a-1"
    ])
    expect(anchorsOf("```\n# not a heading\n```\n# Real\n").has("not-a-heading")).toBe(false)
  })
})
