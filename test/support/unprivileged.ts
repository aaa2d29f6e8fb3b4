/**
 * Running the CLI as an unprivileged user, for the tests that need the operating system to refuse
 * a read (EACCES): root reads anything, so as root the CLI runs as uid/gid 65534 (nobody).
 *
 * nobody cannot enter the clone when it sits in a private directory (`mktemp -d` makes mode 700),
 * so it cannot load `dist/bin.cjs` nor anything in `node_modules`. As root, the CLI is therefore
 * bundled (scripts/bundle.mjs, as published) into a fresh temp directory that everyone can enter,
 * with the files it reads next to itself (`package.json`, `prompts/`), and run from there. The
 * heavy packages a text read never loads stay outside the bundle, as in the published bin.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

export interface UnprivilegedCli {
  /** The bin to run with `process.execPath`. */
  readonly bin: string
  /** Spawn options: the uid and gid to run as (empty when we are not root). */
  readonly asUser: { readonly uid?: number; readonly gid?: number }
}

const NOBODY = 65534

let cached: UnprivilegedCli | undefined

export const unprivilegedCli = (): UnprivilegedCli => {
  if (cached !== undefined) return cached
  if (process.getuid?.() !== 0) return (cached = { bin: path.resolve("dist/bin.cjs"), asUser: {} })
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "effect-read-cli-")))
  fs.chmodSync(dir, 0o755)
  fs.mkdirSync(path.join(dir, "dist"))
  fs.mkdirSync(path.join(dir, "prompts"))
  fs.copyFileSync("package.json", path.join(dir, "package.json"))
  for (const file of fs.readdirSync("prompts")) {
    fs.copyFileSync(path.join("prompts", file), path.join(dir, "prompts", file))
  }
  // The published layout: the loader and the bundle it runs (scripts/bundle.mjs).
  execFileSync(process.execPath, ["scripts/bundle.mjs", path.join(dir, "dist")], { stdio: "inherit" })
  const bin = path.join(dir, "dist", "bin.cjs")
  for (const entry of [dir, path.join(dir, "dist"), path.join(dir, "prompts")]) fs.chmodSync(entry, 0o755)
  for (
    const file of [
      bin,
      path.join(dir, "dist", "bin.js"),
      path.join(dir, "dist", "bin-main.cjs"),
      path.join(dir, "package.json"),
      ...fs.readdirSync(path.join(dir, "prompts")).map((f) => path.join(dir, "prompts", f))
    ]
  ) {
    fs.chmodSync(file, 0o644)
  }
  process.once("exit", () => fs.rmSync(dir, { recursive: true, force: true }))
  return (cached = { bin, asUser: { uid: NOBODY, gid: NOBODY } })
}
