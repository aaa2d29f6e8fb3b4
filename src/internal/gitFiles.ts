/**
 * The paths git knows in a work tree — tracked, plus untracked ones `.gitignore` does not hide —
 * streamed from `git ls-files -z` one at a time, so nothing but what the caller keeps is held.
 * Cheaper than walking: git reads its index, and `.gitignore` is already applied.
 */
import * as Effect from "effect/Effect"
import { spawn } from "node:child_process"

export type GitListing =
  /** git listed every path (or `visit` asked to stop early: see `stopped`). */
  | { readonly _tag: "Listed"; readonly count: number; readonly stopped: boolean }
  /** git is missing, failed, or this is no work tree: nothing it printed can be trusted to be whole. */
  | { readonly _tag: "Failed"; readonly reason: string }

const ARGS = ["-c", "core.quotepath=off", "ls-files", "-z", "--cached", "--others", "--exclude-standard"]

/**
 * Run `git ls-files` in `directory`, calling `visit` with each path (relative to `directory`,
 * `/`-separated); `visit` returns false to stop (git is then killed). Interrupting kills git.
 * The caller bounds the time (`Effect.timeout`).
 */
export const listGitFiles = (directory: string, visit: (relative: string) => boolean): Effect.Effect<GitListing> =>
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
      child = spawn("git", ARGS, {
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
    let pending: Buffer = Buffer.alloc(0)
    child.stdout!.on("data", (chunk: Buffer) => {
      if (stopped) return
      const data = pending.length === 0 ? chunk : Buffer.concat([pending, chunk])
      let start = 0
      for (let end = data.indexOf(0, start); end !== -1; end = data.indexOf(0, start)) {
        count++
        if (!visit(data.toString("utf8", start, end))) {
          stopped = true
          child.kill()
          return
        }
        start = end + 1
      }
      pending = start === data.length ? Buffer.alloc(0) : Buffer.from(data.subarray(start))
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
