/**
 * `import()` of an installed package, by name. The one place the code that may run bundled imports a
 * package outside the bundle: the bundled bin (`dist/bin-main.cjs`, a script V8 compiles from its
 * code cache) cannot run `import()` itself, so `scripts/bundle.mjs` replaces this module with one
 * that calls the importer `bin.cjs` hands the bundle. Unbundled, it is Node's `import()`.
 */
export const importPackage = (specifier: string): Promise<unknown> => import(specifier)
