/**
 * Test wiring: the `read` layers over a real temp directory (Node) or over MemoryFileSystem.
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { afterAll, expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import { spawn, type SpawnOptions } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import * as FileTime from "../../src/FileTime.js"
import * as Lsp from "../../src/Lsp.js"
import * as MemoryFileSystem from "../../src/MemoryFileSystem.js"
import * as Permission from "../../src/Permission.js"
import type { MetadataFields, ReadResult } from "../../src/ReadResult.js"
import * as Workspace from "../../src/Workspace.js"

export interface LayerOptions {
  readonly directory?: string
  readonly worktree?: string
  readonly permission?: Layer.Layer<Permission.Permission>
  readonly sessionId?: string
}

const services = (root: string, options: LayerOptions) =>
  Layer.mergeAll(
    Workspace.layer({
      directory: options.directory ?? root,
      worktree: options.worktree ?? root,
      sessionId: options.sessionId ?? "test"
    }),
    options.permission ?? Permission.layerAllowAll,
    Lsp.layerRecording
  )

/** Node filesystem over `root` (a real directory). */
export const nodeLayer = (root: string, options: LayerOptions = {}) => {
  const platform = Layer.merge(NodeFileSystem.layer, NodePath.layer)
  return Layer.mergeAll(services(root, options), FileTime.layerMemory).pipe(Layer.provideMerge(platform))
}

/** MemoryFileSystem holding `files`, with the project at `/project`. */
export const memoryLayer = (
  files: Readonly<Record<string, MemoryFileSystem.Entry>>,
  options: LayerOptions = {}
) => {
  const platform = Layer.merge(MemoryFileSystem.layer(files), Path.layer)
  return Layer.mergeAll(services("/project", options), FileTime.layerMemory).pipe(Layer.provideMerge(platform))
}

/** A fresh real temp directory (its real path, so symlinked /tmp does not confuse checks). */
export const tempDir = (prefix = "effect-read-"): string =>
  fs.realpathSync(fs.mkdtempSync(nodePath.join(os.tmpdir(), prefix)))

/**
 * `project(files)`: a fresh real temp directory holding `files`; every one made is removed after
 * the test file's tests.
 */
export const projectDirs = () => {
  const roots: Array<string> = []
  afterAll(() => {
    for (const root of roots) fs.rmSync(root, { recursive: true, force: true })
  })
  return (files: Readonly<Record<string, string | Uint8Array>> = {}): string => {
    const root = tempDir()
    roots.push(root)
    writeTree(root, files)
    return root
  }
}

/** Write files under `root` (creating parents); string or bytes. */
export const writeTree = (root: string, files: Readonly<Record<string, string | Uint8Array>>): void => {
  for (const [name, content] of Object.entries(files)) {
    const full = nodePath.join(root, name)
    fs.mkdirSync(nodePath.dirname(full), { recursive: true })
    fs.writeFileSync(full, content)
  }
}

/**
 * Count the bytes `read` pulls from files, through a wrapper around whatever FileSystem is
 * provided. `wrap` the effect to measure; `stats.bytes` is the running total.
 */
export const countingReads = () => {
  const stats = { bytes: 0, ranges: [] as Array<readonly [number, number]> }
  const wrap = <A, E, R>(self: Effect.Effect<A, E, R>) =>
    Effect.flatMap(FileSystem.FileSystem, (original) =>
      Effect.provideService(self, FileSystem.FileSystem, {
        ...original,
        open: (path, options) =>
          Effect.map(original.open(path, options), (file) => {
            // Where the next read starts, for `ranges` (seeks from the start and reads move it).
            let position = 0
            // Delegate explicitly: the Node File keeps its position on the original object.
            return {
              ...file,
              // `stat` lives on the Node File's prototype, which a spread does not copy.
              stat: file.stat,
              seek: (offset, from) =>
                Effect.tap(
                  file.seek(offset, from),
                  () =>
                    Effect.sync(() => void (position = from === "start" ? Number(offset) : position + Number(offset)))
                ),
              read: (buffer: Uint8Array) =>
                Effect.tap(file.read(buffer), (n) =>
                  Effect.sync(() => {
                    stats.bytes += Number(n)
                    stats.ranges.push([position, position + Number(n)])
                    position += Number(n)
                  }))
            } as FileSystem.File
          })
      }))
  return { stats, wrap }
}

/**
 * A listing of `total` entries capped at 50 KB a page, read page by page from offset 1 until its
 * footer gives no next offset: every page within 50 KB, the first cut short of `total` with the
 * next offset after it. Returns the first page, how many entries it shows, and every line that
 * `isEntry` picks from all the pages, in order.
 */
export const readCappedListing = <E, R>(
  readAt: (offset: number) => Effect.Effect<ReadResult, E, R>,
  total: number,
  isEntry: (line: string) => boolean
) =>
  Effect.gen(function*() {
    const first = yield* readAt(1)
    const shown = fieldsOf(first).endLine!
    expect(shown).toBeLessThan(total)
    expect(first.metadata).toMatchObject({ truncated: true, nextOffset: shown + 1, totalLines: total })
    const listed: Array<string> = []
    let offset: number | undefined = 1
    while (offset !== undefined) {
      const page: ReadResult = yield* readAt(offset)
      expect(Buffer.byteLength(page.output)).toBeLessThanOrEqual(50 * 1024)
      listed.push(...page.output.split("\n").filter(isEntry))
      offset = fieldsOf(page).nextOffset
    }
    return { first, shown, listed }
  })

/** A ustar archive of text members, written header by header (no tar library involved). */
export const ustar = (members: ReadonlyArray<{ readonly name: string; readonly content: string }>): Uint8Array => {
  const blocks: Array<Buffer> = []
  for (const { content, name } of members) {
    const header = Buffer.alloc(512)
    header.write(name, 0)
    header.write("0000644\0", 100)
    header.write("0000000\0", 108)
    header.write("0000000\0", 116)
    header.write(`${Buffer.byteLength(content).toString(8).padStart(11, "0")}\0`, 124)
    header.write("00000000000\0", 136)
    header.write("        ", 148)
    header.write("0", 156)
    header.write("ustar\0", 257)
    header.write("00", 263)
    let sum = 0
    for (const byte of header) sum += byte
    header.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148)
    const body = Buffer.alloc(Math.ceil(Buffer.byteLength(content) / 512) * 512)
    body.write(content)
    blocks.push(header, body)
  }
  blocks.push(Buffer.alloc(1024))
  return new Uint8Array(Buffer.concat(blocks))
}

/** What a finished child process said: its exit code (null when killed), stdout and stderr. */
export interface Finished {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/**
 * Runs a command to its end without blocking the test worker (a synchronous spawn stalls the
 * worker's messages to vitest, which under load fails the run with "Timeout calling onTaskUpdate").
 * `input` is written to stdin, which is then closed.
 */
export const runProcess = (
  command: string,
  args: ReadonlyArray<string>,
  options: SpawnOptions & { readonly input?: string } = {}
): Promise<Finished> =>
  new Promise((resolve, reject) => {
    const { input = "", ...spawnOptions } = options
    const child = spawn(command, args, { ...spawnOptions, stdio: "pipe" })
    let stdout = ""
    let stderr = ""
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, stdout, stderr }))
    child.stdin!.on("error", () => {}) // a child that exits before reading its input
    child.stdin!.end(input)
  })

/** Warnings logged while `self` runs (each message's first part), beside its value. */
export const withWarnings = <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const warnings: Array<string> = []
    const logger = Logger.make(({ logLevel, message }) => {
      if (logLevel._tag === "Warning") warnings.push(String(Array.isArray(message) ? message[0] : message))
    })
    const value = yield* self.pipe(Effect.provide(Logger.replace(Logger.defaultLogger, logger)))
    return { value, warnings }
  })

/**
 * A result's metadata with every kind's fields readable (absent where its kind has none): tests know
 * what they read. Not named `meta`: vite's SSR transform takes the `meta` of `import.meta` in a
 * file that imports a `meta` for that import, and fails to load the file.
 */
export function fieldsOf(result: { readonly metadata: ReadResult["metadata"] }): MetadataFields
export function fieldsOf(result: { readonly metadata?: ReadResult["metadata"] | undefined }): MetadataFields | undefined
export function fieldsOf(
  result: { readonly metadata?: ReadResult["metadata"] | undefined }
): MetadataFields | undefined {
  return result.metadata
}

/**
 * Six-line files that the session-memory models edit: `write(file, line)` replaces that line with
 * the file's next edit (counted in `version`, which the models key what they hold by);
 * `write(file, undefined)` writes the file fresh. Every file is written fresh at the start.
 */
export const editableFiles = (paths: ReadonlyArray<string>) => {
  const version = paths.map(() => 0)
  const write = (file: number, line: number | undefined) => {
    const lines = Array.from({ length: 6 }, (_, i) => `file ${file} line ${i + 1}`)
    if (line !== undefined) lines[line - 1] = `file ${file} edit ${++version[file]!}`
    fs.writeFileSync(paths[file]!, lines.join("\n") + "\n")
  }
  paths.forEach((_, file) => write(file, undefined))
  return { version, write }
}
