/**
 * Entry points that need an optional peer (`effect-read/ReadTool` needs `@effect/ai`, …) are
 * loaded through `loadWithPeers` (dist/entries/*.js, written by scripts/entries.mjs): a host
 * without the peer gets an error that names the package and the command that installs it,
 * not Node's bare `ERR_MODULE_NOT_FOUND` from inside our files.
 */
import { packageJson } from "./packageJson.js"

const peerRanges = (): Readonly<Record<string, string>> => packageJson.peerDependencies ?? {}

/** The package a failed import could not find (`Cannot find package 'x'`), if that was the failure. */
export const missingPackage = (error: unknown): string | undefined => {
  const code = (error as { readonly code?: unknown } | null)?.code
  if (code !== "ERR_MODULE_NOT_FOUND" && code !== "MODULE_NOT_FOUND") return undefined
  return /Cannot find (?:package|module) '((?:@[^/']+\/)?[^/'.][^/']*)'/.exec(String((error as Error).message))?.[1]
}

/** An entry point's optional peer is not installed. */
export class MissingPeer extends Error {
  readonly code = "ERR_EFFECT_READ_MISSING_PEER"
  constructor(readonly entry: string, readonly packageName: string, cause: unknown) {
    const range = peerRanges()[packageName]
    super(
      `${entry} needs the optional peer dependency ${packageName}, which is not installed: npm install ${packageName}${
        range === undefined ? "" : `@${range}`
      }`,
      { cause }
    )
    this.name = "MissingPeer"
  }
}

/** `load()`, or `MissingPeer` when it fails because one of `peers` is not installed. */
export const loadWithPeers = async <M>(
  entry: string,
  peers: ReadonlyArray<string>,
  load: () => Promise<M>
): Promise<M> => {
  try {
    return await load()
  } catch (error) {
    const missing = missingPackage(error)
    if (missing !== undefined && peers.includes(missing)) throw new MissingPeer(entry, missing, error)
    throw error
  }
}
