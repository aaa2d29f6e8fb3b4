import { execFileSync } from "node:child_process"
import type { TestProject } from "vitest/node"

declare module "vitest" {
  export interface ProvidedContext {
    /** A PostgreSQL server the suite may create databases on; undefined: the PostgreSQL parts do not run. */
    readonly pgUrl: string | undefined
  }
}

/**
 * The CLI tests run `node dist/bin.js` as users do: build it first (tsc, then the bundled bin and the
 * guarded entry points, as `npm run build` does) so it is never stale. Then better-sqlite3's addon
 * (`scripts/sqlite.mjs`: built from source when it is missing, which needs a C++ toolchain).
 *
 * PostgreSQL for the store's suites: the server named by `EFFECT_READ_TEST_PG_URL` (what `.ci/run`
 * exports after `scripts/pg-test.sh start`); without it, one started here with that script and
 * stopped after the run. In CI (`CI=true`) the URL must be given: the run fails rather than skip
 * the PostgreSQL parts. Locally, when the script cannot start a server (no postgresql-15 and no
 * root to install it), the PostgreSQL parts are left out with a note; `EFFECT_READ_TEST_PG=off`
 * leaves them out on purpose.
 */
export default function setup(project: TestProject): (() => void) | undefined {
  execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"], { stdio: "inherit" })
  execFileSync(process.execPath, ["scripts/bundle.mjs"], { stdio: "inherit" })
  execFileSync(process.execPath, ["scripts/entries.mjs"], { stdio: "inherit" })
  // better-sqlite3's addon, built from source the first time (npm install leaves it unbuilt).
  execFileSync(process.execPath, ["scripts/sqlite.mjs"], { stdio: "inherit" })

  const given = process.env.EFFECT_READ_TEST_PG_URL
  if (given !== undefined && given !== "") {
    project.provide("pgUrl", given)
    return undefined
  }
  if (process.env.CI === "true") {
    throw new Error(
      "CI=true but EFFECT_READ_TEST_PG_URL is not set: .ci/run starts PostgreSQL with scripts/pg-test.sh and exports it"
    )
  }
  if (process.env.EFFECT_READ_TEST_PG === "off") {
    project.provide("pgUrl", undefined)
    return undefined
  }
  let started: string
  try {
    started = execFileSync("bash", ["scripts/pg-test.sh", "start"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"]
    })
  } catch {
    console.warn(
      "PostgreSQL could not be started (scripts/pg-test.sh start): the PostgreSQL parts of the suite do not run"
    )
    project.provide("pgUrl", undefined)
    return undefined
  }
  const [url, dir] = started.trim().split(" ")
  project.provide("pgUrl", url)
  return () => {
    execFileSync("bash", ["scripts/pg-test.sh", "stop", dir!], { stdio: "inherit" })
  }
}
