/**
 * The optional packages some sources need, loaded on first use: sharp (decoding and fitting
 * images), pdfjs-dist (PDF text), mammoth (.docx), exceljs (.xlsx). The default install has none
 * of them; `read` works without them and says what to install when a file needs one.
 *
 * `OptionalPackages` is a `Context.Reference`: the default loads each package with `import()`;
 * `layerWithout(names)` makes the named ones missing (for tests, or a host that must not load
 * native code), exactly as if they were not installed.
 */
import * as Context from "effect/Context"
import * as Layer from "effect/Layer"

/**
 * The module each optional package gives `read`, typed loosely so that our declarations name no
 * optional package (a host without it still type-checks); the source using it knows its type.
 */
export interface Modules {
  readonly sharp: { readonly default: unknown }
}

export type PackageName = keyof Modules

/** What each package is for, as the model and the user read it. */
export const purposes: Readonly<Record<PackageName, string>> = {
  sharp: "decoding, checking and resizing images"
}

/** A package is not installed (or `layerWithout` made it missing). */
export class PackageNotInstalled extends Error {
  constructor(readonly packageName: PackageName, cause?: unknown) {
    super(`the optional package ${packageName} is not installed`, { cause })
  }
}

export interface OptionalPackagesShape {
  readonly load: <K extends PackageName>(name: K) => Promise<Modules[K]>
}

const importers: { readonly [K in PackageName]: () => Promise<Modules[K]> } = {
  sharp: () => import("sharp")
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
  return { load }
}

const shared = nodeLoader()

export class OptionalPackages extends Context.Reference<OptionalPackages>()("effect-read/OptionalPackages", {
  defaultValue: (): OptionalPackagesShape => shared
}) {}

/** The named packages are missing, the others load as usual. */
export const layerWithout = (names: ReadonlyArray<PackageName>): Layer.Layer<never> =>
  Layer.succeed(OptionalPackages, {
    load: (name) => names.includes(name) ? Promise.reject(new PackageNotInstalled(name)) : shared.load(name)
  })
