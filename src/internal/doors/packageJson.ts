/**
 * Our own `package.json`, read in this one place: the version the doors report (`--version`, the
 * MCP server's `serverInfo`) and the ranges of our optional peers.
 */
import { readFileSync } from "node:fs"

interface PackageJson {
  readonly name?: string
  readonly version: string
  readonly peerDependencies?: Readonly<Record<string, string>>
}

/**
 * The nearest `package.json` named `effect-read` above this module: `src/internal/doors/` in a
 * clone, `dist/internal/doors/` when installed, or wherever a bundler put this code (a bundle
 * beside a copy of the package file, as the tests' single-file CLI is).
 */
const find = (): PackageJson => {
  let directory = new URL(".", import.meta.url)
  for (let depth = 0; depth < 6; depth++) {
    try {
      const found = JSON.parse(readFileSync(new URL("package.json", directory), "utf8")) as PackageJson
      if (found.name === "effect-read") return found
    } catch {
      // No package file here, or not ours: look further up.
    }
    directory = new URL("..", directory)
  }
  return { version: "unknown" }
}

export const packageJson: PackageJson = find()

/** The version of this package, as published. */
export const version: string = packageJson.version
