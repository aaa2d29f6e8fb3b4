/**
 * The optional packages some sources need, loaded on first use: sharp (decoding and fitting
 * images), pdfjs-dist (PDF text; with its optional dependency @napi-rs/canvas, PDF pages as
 * images), mammoth (.docx), exceljs (.xlsx), better-sqlite3 (SQLite
 * databases), effect-read-grammars (the tree-sitter runtime and grammars of the syntax engine behind
 * outlines, summaries and block reads). The default install has none of them; `read` works without them and says what to
 * install when a file needs one (`MissingPackage`), or does what it can without (an image or a
 * PDF is still attached).
 *
 * `OptionalPackages` is a `Context.Reference`: the default loads each package with `import()`;
 * `layerWithout(names)` makes the named ones missing (for tests, or a host that must not load
 * native code), exactly as if they were not installed.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { createRequire } from "node:module"
import { importPackage } from "./internal/io/importPackage.js"

/**
 * The module each optional package gives `read`, typed loosely so that our declarations name no
 * optional package (a host without it still type-checks); the source using it knows its type.
 */
export interface Modules {
  readonly sharp: { readonly default: unknown }
  readonly "pdfjs-dist": { readonly getDocument: unknown }
  /** A canvas for Node (pdfjs-dist's optional dependency): PDF pages rendered as images. */
  readonly "@napi-rs/canvas": { readonly createCanvas: unknown }
  readonly mammoth: { readonly default: unknown }
  readonly exceljs: { readonly default: unknown }
  /** The driver's constructor, and where it is (the query process loads it from there). */
  readonly "better-sqlite3": { readonly default: unknown; readonly path: string }
  /** web-tree-sitter's `Parser` and `Language`, and where the grammars are (internal/structure/syntax.ts). */
  readonly "effect-read-grammars": {
    readonly Parser: unknown
    readonly Language: unknown
    readonly grammarsDirectory: string
    readonly manifest: unknown
  }
}

export type PackageName = keyof Modules

/** What each package is for, as the model and the user read it. */
export const purposes: Readonly<Record<PackageName, string>> = {
  sharp: "decoding, checking and resizing images",
  "pdfjs-dist": "extracting the text of a PDF",
  "@napi-rs/canvas": "rendering PDF pages as images",
  mammoth: "converting a .docx document to text",
  exceljs: "converting an .xlsx workbook to text",
  "better-sqlite3": "reading a SQLite database",
  "effect-read-grammars": "syntax-aware outlines, summaries and blocks of source files"
}

/** A package is not installed (or `layerWithout` made it missing). */
export class PackageNotInstalled extends Error {
  constructor(readonly packageName: PackageName, cause?: unknown) {
    super(`the optional package ${packageName} is not installed`, { cause })
  }
}

export interface OptionalPackagesShape {
  readonly load: <K extends PackageName>(name: K) => Promise<Modules[K]>
  /**
   * Is the package there, without loading it (the tool's description names only what can be
   * read)? A loader without it is taken to have every package.
   */
  readonly installed?: ((name: PackageName) => boolean) | undefined
}

/** Where each package is found, resolved (not loaded) to see whether it is installed. */
const specifiers: { readonly [K in PackageName]: string } = {
  sharp: "sharp",
  "pdfjs-dist": "pdfjs-dist/legacy/build/pdf.mjs",
  "@napi-rs/canvas": "@napi-rs/canvas",
  mammoth: "mammoth",
  exceljs: "exceljs",
  "better-sqlite3": "better-sqlite3",
  "effect-read-grammars": "effect-read-grammars"
}

const resolvable = (name: PackageName): boolean => {
  try {
    createRequire(import.meta.url).resolve(specifiers[name])
    return true
  } catch {
    return false
  }
}

const importers: { readonly [K in PackageName]: () => Promise<Modules[K]> } = {
  sharp: () => importPackage(specifiers.sharp) as Promise<Modules["sharp"]>,
  "pdfjs-dist": () => importPackage(specifiers["pdfjs-dist"]) as Promise<Modules["pdfjs-dist"]>,
  "@napi-rs/canvas": () => importPackage(specifiers["@napi-rs/canvas"]) as Promise<Modules["@napi-rs/canvas"]>,
  mammoth: () => importPackage(specifiers.mammoth) as Promise<Modules["mammoth"]>,
  exceljs: () => importPackage(specifiers.exceljs) as Promise<Modules["exceljs"]>,
  "better-sqlite3": () => import("./internal/sources/database/driver.js").then((driver) => driver.loadDriver()),
  "effect-read-grammars": () =>
    importPackage(specifiers["effect-read-grammars"]) as Promise<Modules["effect-read-grammars"]>
}

const notFound = (error: unknown): boolean => {
  const code = (error as { readonly code?: unknown } | null)?.code
  return code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND"
}

/** `import()` once per package; a missing package becomes `PackageNotInstalled`. */
export const nodeLoader = (): OptionalPackagesShape => {
  const loaded = new Map<PackageName, Promise<unknown>>()
  const load = <K extends PackageName>(name: K): Promise<Modules[K]> => {
    let module = loaded.get(name)
    if (module === undefined) {
      module = importers[name]().catch((error: unknown) => {
        loaded.delete(name)
        throw notFound(error) ? new PackageNotInstalled(name, error) : error
      })
      loaded.set(name, module)
    }
    return module as Promise<Modules[K]>
  }
  const found = new Map<PackageName, boolean>()
  const installed = (name: PackageName): boolean => {
    let there = found.get(name)
    if (there === undefined) found.set(name, there = resolvable(name))
    return there
  }
  return { load, installed }
}

const shared = nodeLoader()

export class OptionalPackages extends Context.Reference<OptionalPackages>()("effect-read/OptionalPackages", {
  defaultValue: (): OptionalPackagesShape => shared
}) {}

/** The named packages are missing, the others load as usual. */
export const layerWithout = (names: ReadonlyArray<PackageName>): Layer.Layer<never> =>
  Layer.succeed(OptionalPackages, {
    load: (name) => names.includes(name) ? Promise.reject(new PackageNotInstalled(name)) : shared.load(name),
    installed: (name) => !names.includes(name) && shared.installed!(name)
  })

/** The optional packages that are installed, as the loader in force says (without loading them). */
export const installed: Effect.Effect<ReadonlyArray<PackageName>> = Effect.map(
  OptionalPackages,
  (packages) => (Object.keys(specifiers) as Array<PackageName>).filter((name) => packages.installed?.(name) ?? true)
)

/**
 * The package's module, or `undefined` when it is not installed (any other failure to load it is
 * a defect: a broken install is not a missing one).
 */
export const loadOptional = <K extends PackageName>(name: K): Effect.Effect<Modules[K] | undefined> =>
  Effect.flatMap(
    OptionalPackages,
    (packages) =>
      Effect.promise(() =>
        packages.load(name).then((module) => module as Modules[K] | undefined, (error: unknown) => {
          if (error instanceof PackageNotInstalled) return undefined
          throw error
        })
      )
  )
