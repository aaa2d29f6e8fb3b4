/**
 * Our own `package.json`, read in this one place: the version the doors report (`--version`, the
 * MCP server's `serverInfo`) and the ranges of our optional peers.
 */
import { readFileSync } from "node:fs"

interface PackageJson {
  readonly version: string
  readonly peerDependencies?: Readonly<Record<string, string>>
}

/** Beside `src/` and `dist/` alike: this file is `<root>/{src,dist}/internal/doors/packageJson.*`. */
export const packageJson: PackageJson = JSON.parse(
  readFileSync(new URL("../../../package.json", import.meta.url), "utf8")
)

/** The version of this package, as published. */
export const version: string = packageJson.version
