import { execFileSync } from "node:child_process"

/**
 * The CLI tests run `node dist/bin.js` as users do: build it first (tsc, then the bundled bin and the
 * guarded entry points, as `npm run build` does) so it is never stale.
 */
export default function setup(): void {
  execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"], { stdio: "inherit" })
  execFileSync(process.execPath, ["scripts/bundle.mjs"], { stdio: "inherit" })
  execFileSync(process.execPath, ["scripts/entries.mjs"], { stdio: "inherit" })
}
