/**
 * The syntax engine: tree-sitter (web-tree-sitter, wasm) with the grammars of the optional package
 * effect-read-grammars. Everything loads on first use: the runtime once (`Parser.init`), each
 * grammar when a file of its language is first read (brotli-decoded with node:zlib), one parser
 * per language. A parse has a deadline (cancelled through the progress callback); results are
 * cached by content hash; a file parsed again after an edit is parsed incrementally.
 *
 * `syntaxStructure` returns undefined — and the caller uses the indentation engine — when the
 * package is not installed, no grammar fits the path, the file is over 2 MiB or 20,000 lines, the
 * deadline passes, or errors dominate the tree (more than a tenth of the lines, and more than 4,
 * in ERROR nodes).
 */
import * as Effect from "effect/Effect"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import * as zlib from "node:zlib"
import { loadOptional, type Modules } from "../../OptionalPackages.js"
import type { FileStructure } from "../core/declarations.js"
import { countLines, errorLines, extract, type SyntaxNode } from "./extract.js"
import { specs } from "./languages.js"

export const MAX_SYNTAX_BYTES = 2 * 1024 * 1024
export const MAX_SYNTAX_LINES = 20_000
export const DEFAULT_DEADLINE_MS = 250
/** More than this share of the lines in ERROR nodes: the tree says too little. */
export const MAX_ERROR_SHARE = 0.1
/** …and more than this many lines: two variance annotations in a 10-line file are not a mess. */
const MIN_ERROR_LINES = 4
const CACHE_ENTRIES = 48
const FIRST_PARSE_ALLOWANCE = 4

export interface SyntaxOptions {
  /** Milliseconds a parse may take before it is cancelled (default 250). */
  readonly deadlineMs?: number
}

/** One grammar of the pack, as its manifest.json lists it. */
export interface Grammar {
  readonly language: string
  readonly npmPackage: string
  readonly version: string
  readonly sha256: string
  readonly extensions: ReadonlyArray<string>
}

// The parts of web-tree-sitter used here, typed structurally (the package is optional).
interface Point {
  readonly row: number
  readonly column: number
}
interface Edit {
  readonly startIndex: number
  readonly oldEndIndex: number
  readonly newEndIndex: number
  readonly startPosition: Point
  readonly oldEndPosition: Point
  readonly newEndPosition: Point
}
interface Tree {
  readonly rootNode: SyntaxNode
  edit(edit: Edit): void
  delete(): void
}
interface Parser {
  setLanguage(language: unknown): Parser
  parse(input: string, oldTree: Tree | null, options: { readonly progressCallback: () => boolean }): Tree | null
  reset(): void
}
interface TreeSitter {
  readonly Parser: { init(): Promise<void>; new(): Parser }
  readonly Language: { load(bytes: Uint8Array): Promise<unknown> }
}

class Runtime {
  private ready: Promise<void> | undefined
  /** Languages whose parser has run once (the first parse is the slow one). */
  readonly parsed = new Set<string>()
  private readonly parsers = new Map<string, Promise<Parser>>()
  readonly grammars: ReadonlyArray<Grammar>
  private readonly byExtension = new Map<string, string>()

  constructor(private readonly module: Modules["effect-read-grammars"]) {
    this.grammars = module.manifest as ReadonlyArray<Grammar>
    for (const grammar of this.grammars) {
      for (const extension of grammar.extensions) {
        if (!this.byExtension.has(extension)) this.byExtension.set(extension, grammar.language)
      }
    }
  }

  private get treeSitter(): TreeSitter {
    return this.module as unknown as TreeSitter
  }

  /** The language a file is read as: by its extension, else by a `#!` line. */
  languageOf(path: string, text: string): string | undefined {
    const byExtension = this.byExtension.get(nodePath.extname(path).toLowerCase())
    if (byExtension !== undefined) return byExtension
    if (!text.startsWith("#!")) return undefined
    const shebang = text.slice(0, Math.max(0, text.indexOf("\n"))) || text.slice(0, 200)
    const interpreter = /^#!\s*(?:\S*\/)?(?:env\s+(?:-\S+\s+)*)?([\w.+-]+)/.exec(shebang)?.[1]?.replace(/[\d.]+$/, "")
    const language = interpreter === undefined ? undefined : SHEBANGS[interpreter]
    return language !== undefined && this.grammars.some((grammar) => grammar.language === language)
      ? language
      : undefined
  }

  /** The language's parser: the runtime and grammar loaded on the first call. */
  parser(language: string): Promise<Parser> {
    let parser = this.parsers.get(language)
    if (parser === undefined) {
      const { Language, Parser } = this.treeSitter
      this.ready ??= Parser.init()
      // The grammar is read and decoded here, on this thread, while V8 compiles the runtime on
      // its own: ~3 ms for TypeScript's. zlib's asynchronous brotli decodes in 16 KB pieces, a
      // thread-pool round trip each, and was ready ~25 ms later.
      const bytes = decodeGrammar(nodePath.join(this.module.grammarsDirectory, `${language}.wasm.br`))
      parser = Promise.all([this.ready, bytes]).then(async ([, decoded]) =>
        new Parser().setLanguage(await Language.load(decoded))
      )
      parser.catch(() => this.parsers.delete(language))
      this.parsers.set(language, parser)
    }
    return parser
  }
}

/** A grammar's wasm, decoded; a failure is the promise's. */
const decodeGrammar = (file: string): Promise<Buffer> => {
  try {
    return Promise.resolve(zlib.brotliDecompressSync(fs.readFileSync(file)))
  } catch (error) {
    return Promise.reject(error)
  }
}

const SHEBANGS: Readonly<Record<string, string>> = {
  sh: "bash",
  bash: "bash",
  dash: "bash",
  ksh: "bash",
  zsh: "bash",
  python: "python",
  node: "javascript",
  ruby: "ruby",
  php: "php"
}

const runtimes = new WeakMap<object, Runtime>()
const runtimeOf = (module: Modules["effect-read-grammars"]): Runtime => {
  let runtime = runtimes.get(module)
  if (runtime === undefined) {
    runtime = new Runtime(module)
    runtimes.set(module, runtime)
  }
  return runtime
}

/** Content hash → structure; the oldest entry leaves first. */
type Analysis = { readonly structure: FileStructure } | { readonly declined: "deadline" | "errors" }
const cache = new Map<string, Analysis>()
/**
 * A parse past its deadline is remembered too: the same text is not parsed to the deadline again
 * at every view, and the engine a text gets does not change from one read to the next with the
 * machine's load (until the entry leaves the cache or the text changes).
 */
const remember = (key: string, analysis: Analysis): Analysis => {
  cache.delete(key)
  cache.set(key, analysis)
  if (cache.size > CACHE_ENTRIES) cache.delete(cache.keys().next().value!)
  return analysis
}

/**
 * The last tree of each of the latest files parsed, by path: a file read again after an edit is
 * parsed incrementally (the edit found by the common head and tail of the two texts), which
 * reuses the unchanged parts of the old tree. Trees live in the wasm heap: few are kept.
 */
const KEPT_TREES = 4
const trees = new Map<string, { readonly language: string; readonly text: string; readonly tree: Tree }>()
const keepTree = (path: string, language: string, text: string, tree: Tree) => {
  const old = trees.get(path)
  trees.delete(path)
  if (old !== undefined && old.tree !== tree) old.tree.delete()
  trees.set(path, { language, text, tree })
  if (trees.size > KEPT_TREES) {
    const [oldest, entry] = trees.entries().next().value!
    trees.delete(oldest)
    entry.tree.delete()
  }
}
const dropTree = (path: string) => {
  trees.get(path)?.tree.delete()
  trees.delete(path)
}

/** Row and column (UTF-16 code units, as web-tree-sitter counts them) of `index` in `text`. */
const pointAt = (text: string, index: number): Point => {
  let row = 0
  for (let at = text.indexOf("\n"); at !== -1 && at < index; at = text.indexOf("\n", at + 1)) row++
  // (`lastIndexOf` with a negative start still looks at index 0.)
  return { row, column: index - (index === 0 ? 0 : text.lastIndexOf("\n", index - 1) + 1) }
}

/** The one edit that turns `before` into `after`: what lies between their common head and tail. */
export const editBetween = (before: string, after: string): Edit => {
  const shorter = Math.min(before.length, after.length)
  let start = 0
  while (start < shorter && before.charCodeAt(start) === after.charCodeAt(start)) start++
  let oldEnd = before.length
  let newEnd = after.length
  while (oldEnd > start && newEnd > start && before.charCodeAt(oldEnd - 1) === after.charCodeAt(newEnd - 1)) {
    oldEnd--
    newEnd--
  }
  return {
    startIndex: start,
    oldEndIndex: oldEnd,
    newEndIndex: newEnd,
    startPosition: pointAt(before, start),
    oldEndPosition: pointAt(before, oldEnd),
    newEndPosition: pointAt(after, newEnd)
  }
}

/**
 * Forget the structures kept, and the tree kept for `path` (every tree without one). For tests:
 * to compare an incremental parse with a fresh one.
 */
export const forgetSyntaxCaches = (path?: string): void => {
  cache.clear()
  for (const kept of path === undefined ? [...trees.keys()] : [path]) dropTree(kept)
}

/** Why the syntax engine gave no structure (for tests and metadata). */
export type Declined = "no-package" | "no-grammar" | "too-large" | "deadline" | "errors"

/** The structure tree-sitter finds, or why it found none. */
export const syntaxAnalysis = Effect.fn("syntaxAnalysis")(
  function*(path: string, text: string, options: SyntaxOptions = {}) {
    const module = yield* loadOptional("effect-read-grammars")
    if (module === undefined) return { declined: "no-package" } as const
    const runtime = runtimeOf(module)
    const language = runtime.languageOf(path, text)
    if (language === undefined || specs[language] === undefined) return { declined: "no-grammar" } as const
    if (text.length > MAX_SYNTAX_BYTES || Buffer.byteLength(text) > MAX_SYNTAX_BYTES) {
      return { declined: "too-large" } as const
    }
    // tree-sitter starts a row at `\n` only; an old Mac file's lone `\r` ends a line for the views.
    // The same length, so the node indices still index `text`.
    if (text.includes("\r")) text = text.replace(/\r(?!\n)/g, "\n")
    const lines = countLines(text)
    if (lines > MAX_SYNTAX_LINES) return { declined: "too-large" } as const
    const analysis = yield* analyse(runtime, path, text, language, lines, options)
    // A `.h` header is C or C++: one the C grammar cannot read (classes, templates) is read as C++.
    if (
      "declined" in analysis && analysis.declined === "errors" && language === "c" && nodePath.extname(path) === ".h"
    ) {
      return yield* analyse(runtime, path, text, "cpp", lines, options)
    }
    return analysis
  }
)

/** The text parsed as `language` (or its answer from the cache), within the deadline. */
const analyse = (
  runtime: Runtime,
  path: string,
  text: string,
  language: string,
  lines: number,
  options: SyntaxOptions
) =>
  Effect.gen(function*() {
    const spec = specs[language]!
    const key = `${language}:${createHash("sha256").update(text).digest("base64")}`
    const cached = cache.get(key)
    if (cached !== undefined) return remember(key, cached)
    const parser = yield* Effect.promise(() => runtime.parser(language))
    // A grammar's first parse runs its wasm before V8 has optimised it (88 ms against 27 ms warm
    // for 5,000 lines of TypeScript on the build machine): it gets four times the deadline.
    const deadlineMs = (options.deadlineMs ?? DEFAULT_DEADLINE_MS) *
      (runtime.parsed.has(language) ? 1 : FIRST_PARSE_ALLOWANCE)
    return yield* Effect.sync(() => {
      const deadline = performance.now() + deadlineMs
      const last = trees.get(path)
      const oldTree = last !== undefined && last.language === language ? last.tree : null
      if (oldTree !== null) oldTree.edit(editBetween(last!.text, text))
      const tree = parser.parse(text, oldTree, { progressCallback: () => performance.now() > deadline })
      runtime.parsed.add(language)
      if (tree === null) {
        // A cancelled parse would resume on the next call; start that one afresh.
        parser.reset()
        dropTree(path)
        return remember(key, { declined: "deadline" })
      }
      keepTree(path, language, text, tree)
      const errors = errorLines(tree.rootNode, lines)
      return remember(
        key,
        errors.lines > Math.max(MIN_ERROR_LINES, lines * MAX_ERROR_SHARE)
          ? { declined: "errors" }
          : { structure: extract(tree.rootNode, text, language, spec, lines, errors.lines) }
      )
    })
  })

/** The structure tree-sitter finds, or undefined (the caller falls back to the indentation engine). */
export const syntaxStructure = (
  path: string,
  text: string,
  options?: SyntaxOptions
): Effect.Effect<FileStructure | undefined> =>
  Effect.map(syntaxAnalysis(path, text, options), (result) => "structure" in result ? result.structure : undefined)

/** The grammars the installed pack has (empty without the package). */
export const shippedGrammars: Effect.Effect<ReadonlyArray<Grammar>> = Effect.map(
  loadOptional("effect-read-grammars"),
  (module) => module === undefined ? [] : runtimeOf(module).grammars
)

/** The parser for a language, loading it (tests: the load-after-parse check). */
export const parserFor = (language: string): Effect.Effect<boolean> =>
  Effect.flatMap(
    loadOptional("effect-read-grammars"),
    (module) =>
      module === undefined
        ? Effect.succeed(false)
        : Effect.promise(() => runtimeOf(module).parser(language).then(() => true))
  )
