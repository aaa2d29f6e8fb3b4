/** The parts of scripts/bundle.mjs that test/Bundle.test.ts checks. */
export declare const external: ReadonlyArray<string>
export declare const effectUtilsProbe: { readonly original: string; readonly replacement: string }
export declare const lazyBuiltins: ReadonlyArray<string>
export declare const lazyBuiltinSource: (name: string) => string
export declare const bundle: (outdir?: string, options?: Record<string, unknown>) => Promise<unknown>
