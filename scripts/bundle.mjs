/**
 * The bundled command line: `dist/bin-main.cjs`, the whole command line (from
 * `src/internal/doors/cliMain.ts`) as one CommonJS file (esbuild, minified); `dist/bin.cjs`, the
 * small CommonJS loader that runs it (`src/bin.ts`, the package's `bin`); and `dist/bin.js`, a
 * one-line ES module that runs the loader (written over the file tsc emits). Run after tsc
 * (`npm run build` does both).
 *
 * Why: a start was mostly V8 compiling JavaScript, and Node 20 has no compile cache for ES modules.
 * `bin.cjs` compiles the bundle itself with V8's code cache of an earlier run
 * (src/internal/doors/codeCache.ts), so a start compiles almost nothing. What the common calls do
 * not need (the MCP server, `@effect/cli`, the sources a text read does not use) stays in the file
 * but is neither run nor compiled until a call imports it (esbuild keeps each lazily imported
 * module's code in a function of its own).
 *
 * What stays outside the bundle: packages with native code or a large size that a plain text
 * read never loads (they are imported lazily where they are used), and packages that find their
 * own files on disk. The library (`dist/index.js` and the other modules) is not bundled:
 * importers keep the module layout.
 *
 * `import.meta.url` in a bundled module means the bundle's own URL (`dist/bin-main.cjs`); the
 * modules that locate files next to themselves (`../prompts/read.txt`, the SQLite worker, pdfjs's
 * fonts) are rewritten to the URL their compiled file has in `dist/`, so every relative path still
 * resolves as it does unbundled.
 */
import * as esbuild from "esbuild"
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const src = path.join(root, "src")
// tsc's output (this runs after it): the bundle's text is written as the loader reads it.
const { asciiOnly } = await import(pathToFileURL(path.join(root, "dist", "internal", "doors", "codeCache.js")).href)

/**
 * Loaded lazily (dynamic `import()` or `createRequire`) by the sources that need them. A package a
 * module imports statically (htmlparser2 and Readability for web pages) is bundled instead: left outside,
 * its import would run at every start.
 */
export const external = [
  "better-sqlite3",
  "sharp",
  "pdfjs-dist",
  "@napi-rs/canvas",
  "exceljs",
  "mammoth",
  "typescript-language-server",
  "typescript",
  "effect-read-grammars"
]

/** `import.meta.url` of a module in `src/` → the URL its compiled file has in `dist/`. */
const importMetaUrl = {
  name: "import-meta-url",
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (!args.path.startsWith(src + path.sep)) return undefined
      const text = await fs.promises.readFile(args.path, "utf8")
      if (!text.includes("import.meta.url")) return { contents: text, loader: "ts" }
      const compiled = path.relative(src, args.path).replace(/\.ts$/, ".js").split(path.sep).join("/")
      return {
        contents: text.replaceAll(
          "import.meta.url",
          `new URL(${JSON.stringify(`./${compiled}`)}, import.meta.url).href`
        ),
        loader: "ts"
      }
    })
  }
}

/**
 * Optional packages that bundled code asks for inside a try, at load: `debug` (under file-type)
 * asks for `supports-color` to colour DEBUG output. It is not a dependency;
 * in the bundle it is a module that fails as a missing package does, so the callers take the
 * same fallback without a lookup on disk at every start.
 */
const optionalAbsent = ["supports-color"]
const absent = {
  name: "optional-absent",
  setup(build) {
    build.onResolve({ filter: new RegExp(`^(${optionalAbsent.join("|")})$`) }, (args) => ({
      path: args.path,
      namespace: "absent"
    }))
    build.onLoad({ filter: /.*/, namespace: "absent" }, (args) => ({
      contents: `const error = new Error(${JSON.stringify(`Cannot find module '${args.path}'`)})
error.code = "MODULE_NOT_FOUND"
throw error`,
      loader: "js"
    }))
  }
}

/**
 * Packages `@effect/cli` imports only to parse YAML, TOML and INI files for `Options.fileParse`
 * and `fileSchema`, which no command here uses: in the bundle each is a module that requires the
 * real one at its first call (resolved from `dist/` at run time), so no start-up compiles their
 * ~235 KB for nothing.
 */
const onFirstUse = ["yaml", "toml", "ini"]
const lazy = {
  name: "lazy-on-first-use",
  setup(build) {
    build.onResolve(
      { filter: new RegExp(`^(${onFirstUse.join("|")})$`) },
      (args) => args.namespace === "lazy" ? { path: args.path, external: true } : { path: args.path, namespace: "lazy" }
    )
    build.onLoad({ filter: /.*/, namespace: "lazy" }, (args) => ({
      contents: `let loaded
const load = () => loaded ??= require(${JSON.stringify(args.path)})
export const parse = (...args) => load().parse(...args)
export const stringify = (...args) => load().stringify(...args)
export default { parse, stringify }`,
      loader: "js"
    }))
  }
}

/**
 * `debug`, which `@tokenizer/inflate` (under file-type: ZIP-based formats) calls with a line of
 * progress when DEBUG asks for it: at load it reads the environment, requires `tty` and makes
 * stderr's stream. In the bundle its importers get a `createDebug` whose loggers load the real
 * one (bundled, from the importer's own resolution) at their first call, so no start pays for it.
 */
const lazyDebug = {
  name: "lazy-debug",
  setup(build) {
    build.onResolve({ filter: /^debug$/ }, (args) =>
      args.namespace === "lazy-debug"
        ? undefined
        : { path: args.importer, namespace: "lazy-debug", pluginData: { resolveDir: args.resolveDir } })
    build.onLoad({ filter: /.*/, namespace: "lazy-debug" }, (args) => ({
      contents: `export default function createDebug(namespace) {
  let real
  return (...args) => (real ??= require("debug")(namespace))(...args)
}`,
      loader: "js",
      resolveDir: args.pluginData.resolveDir
    }))
  }
}

/**
 * The MCP SDK's JSON Schema validator (ajv, ajv-formats, fast-uri: ~190 KB) checks only what a
 * client answers to a form elicitation, yet its server module imports it at load. In the bundle
 * the import is a class that loads the SDK's own validator (its CommonJS build, resolved from
 * `dist/` at run time) at the first schema it is asked to check, so serving MCP starts without
 * compiling ajv.
 */
const lazyValidator = {
  name: "lazy-mcp-validator",
  setup(build) {
    build.onResolve(
      { filter: /^@modelcontextprotocol\/sdk\/validation\/ajv$/ },
      (args) => ({ path: args.path, external: true })
    )
    build.onResolve(
      { filter: /validation\/ajv-provider\.js$/ },
      (args) =>
        args.importer.includes(`${path.sep}@modelcontextprotocol${path.sep}sdk${path.sep}`)
          ? { path: args.path, namespace: "lazy-validator" }
          : undefined
    )
    build.onLoad({ filter: /.*/, namespace: "lazy-validator" }, () => ({
      contents: `let loaded
export class AjvJsonSchemaValidator {
  getValidator(schema) {
    loaded ??= new (require("@modelcontextprotocol/sdk/validation/ajv").AjvJsonSchemaValidator)()
    return loaded.getValidator(schema)
  }
}`,
      loader: "js"
    }))
  }
}

/**
 * Effect's `Utils` asks at load whether V8 keeps a function's frame in a stack trace
 * (`isNotOptimizedAway`: `new Error().stack` includes "effect_internal_function"). That first
 * formatted stack of a run costs ~4 ms in the bundle: V8 finds the line ends of the whole 1.8 MB
 * script and re-parses each frame's function for its positions. In the bundle the same question
 * is asked of the frames' function names (a `prepareStackTrace` for that one stack), which need
 * no position. The text replaced is Effect's own; when it is not found (another Effect), the
 * module is left as it is (test/Cli.test.ts fails, to say so).
 */
export const effectUtilsProbe = {
  original:
    `const isNotOptimizedAway = /*#__PURE__*/standard.effect_internal_function(() => new Error().stack)?.includes("effect_internal_function") === true;`,
  replacement: `const isNotOptimizedAway = /*#__PURE__*/standard.effect_internal_function(() => {
  const prepare = Error.prepareStackTrace;
  Error.prepareStackTrace = (_, frames) => frames.some((frame) => frame.getFunctionName() === "effect_internal_function");
  try {
    return new Error().stack === true;
  } finally {
    Error.prepareStackTrace = prepare;
  }
});`
}
const effectUtils = {
  name: "effect-utils-probe",
  setup(build) {
    build.onLoad({ filter: /[\\/]effect[\\/]dist[\\/]esm[\\/]Utils\.js$/ }, async (args) => {
      const text = await fs.promises.readFile(args.path, "utf8")
      return { contents: text.replace(effectUtilsProbe.original, effectUtilsProbe.replacement), loader: "js" }
    })
  }
}

/**
 * Node built-ins that modules of a plain read import at their top level but use only for some
 * calls: `node:crypto` (@effect/platform-node's file system, for temporary names; the ledger's
 * and session memory's hashes), `node:fs/promises` (file-type's file tokenizer), `node:readline`
 * (the terminal's questions), `node:zlib` (archives, the syntax engine's grammars). Loading them
 * is ~4–5 ms of a start. In the bundle each is a module whose exports are getters of the real
 * one's (their names listed from the Node that builds it), which loads at the first use of any.
 */
export const lazyBuiltins = ["crypto", "fs/promises", "readline", "zlib"]

/** The bundle's stand-in for the built-in `name`: its own export names, each a getter of the real module's. */
export const lazyBuiltinSource = (name) => {
  const names = Object.keys(createRequire(import.meta.url)(`node:${name}`)).filter((key) => key !== "default")
  return `let real
const load = () => real ??= require(${JSON.stringify(`node:${name}`)})
for (const key of ${JSON.stringify(names)}) {
  Object.defineProperty(exports, key, { enumerable: true, get: () => load()[key] })
}`
}

const lazyBuiltin = {
  name: "lazy-builtins",
  setup(build) {
    const filter = new RegExp(`^(node:)?(${lazyBuiltins.map((n) => n.replace("/", "\\/")).join("|")})$`)
    build.onResolve({ filter }, (args) =>
      args.namespace === "lazy-builtin"
        ? { path: args.path, external: true }
        : { path: args.path.replace(/^node:/, ""), namespace: "lazy-builtin" })
    build.onLoad({ filter: /.*/, namespace: "lazy-builtin" }, (args) => ({
      contents: lazyBuiltinSource(args.path),
      loader: "js"
    }))
  }
}

/**
 * The bundle as `bin.cjs` compiles it: a function of CommonJS's five names and the importer of
 * packages outside the bundle (src/internal/io/importPackage.ts), one expression, in ASCII
 * (`asciiOnly`), under a first line with the content hash of everything after it, which keys its
 * code cache (src/internal/doors/codeCache.ts).
 */
const wrap = (text) => {
  const body = asciiOnly(
    `(function (exports, require, module, __filename, __dirname, __bundleImport) {"use strict";${text}\n})\n`
  )
  return `//# effect-read ${crypto.createHash("sha256").update(body).digest("hex").slice(0, 32)}\n${body}`
}

/**
 * A script compiled with `vm.Script` cannot run `import()` without an experimental Node option,
 * and loses it when compiled from a code cache: packages outside the bundle are imported by
 * `bin.cjs` (beside the bundle, so they resolve from the same place), which hands its importer to
 * the bundle as `__bundleImport`.
 */
const importPackage = {
  name: "import-package",
  setup(build) {
    build.onLoad({ filter: /[\\/]internal[\\/]io[\\/]importPackage\.ts$/ }, () => ({
      contents: "export const importPackage = (specifier) => __bundleImport(specifier)",
      loader: "js"
    }))
  }
}

/** `dist/bin.js`: the loader, for `node dist/bin.js` (README, `npm start`) and importers of the ES module. */
const shim = `#!/usr/bin/env node
// effect-read's command is bin.cjs (package.json's \`bin\`, written by scripts/bundle.mjs): this runs it.
import "./bin.cjs"
`

export const bundle = async (outdir = path.join(root, "dist"), options = {}) => {
  // Earlier builds' bundles (and the chunked ES build before the code cache) are stale.
  for (const name of fs.readdirSync(outdir)) {
    if (/^bin-.*\.(c?js|map)$/.test(name)) fs.rmSync(path.join(outdir, name))
  }
  const main = await esbuild.build({
    entryPoints: [path.join(src, "internal", "doors", "cliMain.ts")],
    outfile: path.join(outdir, "bin-main.cjs"),
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    external,
    plugins: [importPackage, importMetaUrl, absent, lazy, lazyDebug, lazyValidator, effectUtils, lazyBuiltin],
    // The bundle's own URL: what the modules that find files beside themselves start from.
    define: { "import.meta.url": "__bundleUrl" },
    banner: { js: "var __bundleUrl=require(\"node:url\").pathToFileURL(__filename).href;" },
    legalComments: "none",
    minify: true,
    logLevel: "warning",
    metafile: true,
    write: false,
    ...options
  })
  for (const file of main.outputFiles) {
    fs.writeFileSync(file.path, file.path.endsWith(".cjs") ? wrap(file.text) : file.contents)
  }
  // The loader: bin.ts with the small modules it imports, one CommonJS file (the package's `bin`).
  await esbuild.build({
    entryPoints: [path.join(src, "bin.ts")],
    outfile: path.join(outdir, "bin.cjs"),
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    plugins: [importMetaUrl],
    // This file's directory and URL (package.json is found from the URL).
    define: { "import.meta.dirname": "__dirname", "import.meta.url": "__binUrl" },
    banner: { js: "\"use strict\";var __binUrl=require(\"node:url\").pathToFileURL(__filename).href;" },
    logLevel: "warning"
  })
  fs.chmodSync(path.join(outdir, "bin.cjs"), 0o755)
  // `node dist/bin.js` (tsc's ES module of bin.ts, replaced): runs the loader.
  fs.writeFileSync(path.join(outdir, "bin.js"), shim, { mode: 0o755 })
  return main
}

// `node scripts/bundle.mjs [outdir]`: into `dist/` (after tsc) or another directory (the tests' copy).
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const outdir = process.argv[2] !== undefined && !process.argv[2].startsWith("--")
    ? path.resolve(process.argv[2])
    : path.join(root, "dist")
  const result = await bundle(outdir)
  // tsc's source map of the unbundled bin.js would point the bundle's lines at the wrong code.
  fs.rmSync(path.join(outdir, "bin.js.map"), { force: true })
  if (process.argv.includes("--analyze")) console.log(await esbuild.analyzeMetafile(result.metafile))
}
