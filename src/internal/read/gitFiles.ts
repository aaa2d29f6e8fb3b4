/**
 * The paths git knows in a work tree — tracked, and untracked ones `.gitignore` does not hide —
 * streamed from `git ls-files -z` one at a time, so nothing but what the caller keeps is held.
 * Cheaper than walking: git reads its index, and `.gitignore` is already applied. The two are
 * separate runs, so a caller can take the index's paths while git still walks for the others.
 */
import * as Effect from "effect/Effect"
import { spawn } from "node:child_process"

export type GitListing =
  /** git listed every path (or `visit` asked to stop early: see `stopped`). */
  | { readonly _tag: "Listed"; readonly count: number; readonly stopped: boolean }
  /** git is missing, failed, or this is no work tree: nothing it printed can be trusted to be whole. */
  | { readonly _tag: "Failed"; readonly reason: string }

/**
 * Which paths: those in git's index (read from one file: fast), or the untracked ones
 * `.gitignore` does not hide (git walks the work tree for them: most of the cost).
 */
export type GitPaths = "cached" | "others"

const ARGS: Record<GitPaths, ReadonlyArray<string>> = {
  cached: ["-c", "core.quotepath=off", "ls-files", "-z", "--cached"],
  others: ["-c", "core.quotepath=off", "ls-files", "-z", "--others", "--exclude-standard"]
}

/**
 * Run `git ls-files` in `directory` for `paths`, calling `visit` with each path (relative to
 * `directory`, `/`-separated, sorted); `visit` returns false to stop (git is then killed).
 * Interrupting kills git. The caller bounds the time (`Effect.timeout`).
 */
export const listGitFiles = (
  directory: string,
  paths: GitPaths,
  visit: (relative: string) => boolean
): Effect.Effect<GitListing> =>
  Effect.async<GitListing>((resume) => {
    let count = 0
    let stopped = false
    let settled = false
    const done = (listing: GitListing) => {
      if (settled) return
      settled = true
      resume(Effect.succeed(listing))
    }
    let child: ReturnType<typeof spawn>
    try {
      child = spawn("git", ARGS[paths], {
        cwd: directory,
        stdio: ["ignore", "pipe", "ignore"],
        // Never take the index lock, never prompt, whatever the user's configuration.
        env: { ...process.env, GIT_OPTIONAL_LOCKS: "0", GIT_TERMINAL_PROMPT: "0" }
      })
    } catch (error) {
      done({ _tag: "Failed", reason: String(error) })
      return
    }
    // A path may be split across chunks: the bytes after the last NUL wait for the next one.
    // Each chunk's whole paths are decoded at once (UTF-8 never holds a NUL inside a character).
    let pending: Buffer = Buffer.alloc(0)
    child.stdout!.on("data", (chunk: Buffer) => {
      if (stopped) return
      const data = pending.length === 0 ? chunk : Buffer.concat([pending, chunk])
      const last = data.lastIndexOf(0)
      if (last === -1) {
        pending = Buffer.from(data)
        return
      }
      const text = data.toString("utf8", 0, last)
      pending = last + 1 === data.length ? Buffer.alloc(0) : Buffer.from(data.subarray(last + 1))
      let start = 0
      for (;;) {
        const end = text.indexOf("\0", start)
        const line = end === -1 ? text.slice(start) : text.slice(start, end)
        if (line !== "") {
          count++
          if (!visit(line)) {
            stopped = true
            child.kill()
            return
          }
        }
        if (end === -1) break
        start = end + 1
      }
    })
    child.on("error", (error) => done({ _tag: "Failed", reason: error.message }))
    child.on("close", (code) => {
      if (stopped) done({ _tag: "Listed", count, stopped: true })
      else if (code === 0) done({ _tag: "Listed", count, stopped: false })
      else done({ _tag: "Failed", reason: `git ls-files exited with ${code}` })
    })
    return Effect.sync(() => {
      settled = true
      child.kill()
    })
  })
