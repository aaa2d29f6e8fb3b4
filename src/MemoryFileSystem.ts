/**
 * An in-memory `@effect/platform` `FileSystem`, built on a fresh memfs `Volume` per layer.
 *
 * It behaves like `NodeFileSystem.layer` for everything a Read tool uses: the same
 * `File.Info`, the same `File` read-position semantics, and the same `PlatformError`s (errno
 * codes are mapped to `SystemError` reasons exactly as `@effect/platform-node` does).
 * `test/FileSystemConformance.test.ts` runs one suite against both layers to keep it so.
 *
 * ```ts
 * import { FileSystem } from "@effect/platform"
 * import { Effect } from "effect"
 * import * as MemoryFileSystem from "./MemoryFileSystem.js"
 *
 * const program = Effect.flatMap(FileSystem.FileSystem, (fs) => fs.readFileString("/repo/link.ts"))
 *
 * program.pipe(Effect.provide(MemoryFileSystem.layer({
 *   "/repo/src/app.ts": "export const a = 1\n",      // parent directories are implicit
 *   "/repo/logo.png": new Uint8Array([0x89, 0x50]),
 *   "/repo/empty": MemoryFileSystem.directory,
 *   "/repo/link.ts": MemoryFileSystem.symlink("src/app.ts")
 * })))
 * ```
 *
 * Paths are POSIX; relative ones resolve against `/`. Where memfs departs from Linux we patch
 * it here (rename over directories, removing symlinks, reads through directory or wrong-mode
 * descriptors, trailing slashes, `mkdir -p` over a file, recursive listings through symlinked
 * directories). What remains different:
 * - no FIFOs, sockets or devices (memfs cannot create them), so `stat` never reports those types;
 * - `dev` is always 0 and directories have size 0 (disks report e.g. 4096);
 * - permission bits are always enforced, as for a non-root user, even when tests run as root;
 * - new files and directories get their mode through a fixed umask of 022;
 * - `watch` relays memfs's notifications a microtask late; as on Node, a "rename" becomes
 *   `Create` or `Remove` by whether the path then exists, and paths are relative to the
 *   watched directory;
 * - `makeTempDirectory` uses `os.tmpdir()` as its default root, created on first use.
 */
import * as PlatformError from "@effect/platform/Error"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { memfs, type Volume } from "memfs"
import * as Crypto from "node:crypto"
import { constants, type StatsBase } from "node:fs"
import * as OS from "node:os"
import * as NodePath from "node:path"

const Path = NodePath.posix

/** A fixture entry: file contents (a string is written as UTF-8), a directory, or a symlink. */
export type Entry =
  | string
  | Uint8Array
  | { readonly _tag: "Directory" }
  | { readonly _tag: "Symlink"; readonly target: string }

/** An (empty) directory fixture entry. */
export const directory: Entry = { _tag: "Directory" }

/** A symlink fixture entry; `target` is stored verbatim, so it may be relative or dangling. */
export const symlink = (target: string): Entry => ({ _tag: "Symlink", target })

/**
 * Builds a `FileSystem` over a fresh volume holding `files` (absolute paths as keys).
 * A malformed fixture (relative key, a file used as a parent directory) is a defect.
 */
export const make = (files: Readonly<Record<string, Entry>>): Effect.Effect<FileSystem.FileSystem> =>
  Effect.sync(() => {
    const { vol } = memfs({}, "/")
    seed(vol, files)
    return makeFileSystem(vol)
  })

/** Each build of the layer (e.g. each `Effect.provide`) starts from a fresh copy of `files`. */
export const layer = (files: Readonly<Record<string, Entry>>): Layer.Layer<FileSystem.FileSystem> =>
  Layer.effect(FileSystem.FileSystem, make(files))

// Node creates files through the process umask; assume the usual 022 so modes look alike.
const createMode = (mode: number) => mode & ~0o022

const seed = (vol: Volume, files: Readonly<Record<string, Entry>>) => {
  // Sorted: parents before children, and the same volume (inode numbers) whatever the key order.
  for (const [path, entry] of Object.entries(files).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)) {
    if (!Path.isAbsolute(path)) {
      throw new globalThis.Error(`MemoryFileSystem: fixture paths must be absolute, got "${path}"`)
    }
    vol.mkdirSync(Path.dirname(path), { recursive: true, mode: createMode(0o777) })
    if (typeof entry === "string" || entry instanceof Uint8Array) {
      vol.writeFileSync(path, entry, { mode: createMode(0o666) })
    } else if (entry._tag === "Directory") {
      vol.mkdirSync(path, { recursive: true, mode: createMode(0o777) })
    } else {
      vol.symlinkSync(entry.target, path)
    }
  }
}

// == errors

interface ErrnoException extends globalThis.Error {
  readonly code: string
  readonly syscall?: string
}

const isErrnoException = (u: unknown): u is ErrnoException =>
  u instanceof globalThis.Error && typeof (u as { code?: unknown }).code === "string" &&
  // Node throws these synchronously for invalid arguments, which Effect reports as BadArgument.
  !(u instanceof TypeError) && !(u instanceof RangeError)

// The table of @effect/platform-node-shared's `handleErrnoException`: keep both layers in step.
const reasons: Readonly<Record<string, PlatformError.SystemErrorReason>> = {
  ENOENT: "NotFound",
  EACCES: "PermissionDenied",
  EEXIST: "AlreadyExists",
  EISDIR: "BadResource",
  ENOTDIR: "BadResource",
  EBUSY: "Busy",
  ELOOP: "BadResource"
}

const toPlatformError =
  (method: string, pathOrDescriptor: string | number) => (cause: unknown): PlatformError.PlatformError =>
    isErrnoException(cause)
      ? new PlatformError.SystemError({
        reason: reasons[cause.code] ?? "Unknown",
        module: "FileSystem",
        method,
        pathOrDescriptor,
        syscall: cause.syscall,
        description: cause.message,
        cause
      })
      : new PlatformError.BadArgument({ module: "FileSystem", method, cause })

const descriptions = {
  EBADF: "bad file descriptor",
  EEXIST: "file already exists",
  EINVAL: "invalid argument",
  EISDIR: "illegal operation on a directory",
  ENOTDIR: "not a directory",
  ENOTEMPTY: "directory not empty"
} as const

/** An error shaped like the one Node throws, for the cases memfs lets through. */
const errno = (code: keyof typeof descriptions, syscall: string, path?: string, dest?: string): ErrnoException =>
  Object.assign(
    new globalThis.Error(
      `${code}: ${descriptions[code]}, ${syscall}${path === undefined ? "" : ` '${path}'`}${
        dest === undefined ? "" : ` -> '${dest}'`
      }`
    ),
    { code, syscall }
  )

const attempt = <A>(method: string, pathOrDescriptor: string | number, f: () => A) =>
  Effect.try({ try: f, catch: toPlatformError(method, pathOrDescriptor) })

// == stat

const makeFileInfo = (stat: StatsBase<number>): FileSystem.File.Info => ({
  type: stat.isFile()
    ? "File"
    : stat.isDirectory()
    ? "Directory"
    : stat.isSymbolicLink()
    ? "SymbolicLink"
    : stat.isBlockDevice()
    ? "BlockDevice"
    : stat.isCharacterDevice()
    ? "CharacterDevice"
    : stat.isFIFO()
    ? "FIFO"
    : stat.isSocket()
    ? "Socket"
    : "Unknown",
  mtime: Option.fromNullable(stat.mtime),
  atime: Option.fromNullable(stat.atime),
  birthtime: Option.fromNullable(stat.birthtime),
  dev: stat.dev,
  rdev: Option.fromNullable(stat.rdev),
  ino: Option.fromNullable(stat.ino),
  mode: stat.mode,
  nlink: Option.fromNullable(stat.nlink),
  uid: Option.fromNullable(stat.uid),
  gid: Option.fromNullable(stat.gid),
  size: FileSystem.Size(stat.size),
  blksize: Option.map(Option.fromNullable(stat.blksize), FileSystem.Size),
  blocks: Option.fromNullable(stat.blocks)
})

// == file

/** An open descriptor; position handling is copied from the Node layer's `File`. */
class MemoryFile implements FileSystem.File {
  readonly [FileSystem.FileTypeId]: FileSystem.FileTypeId = FileSystem.FileTypeId

  private readonly semaphore = Effect.unsafeMakeSemaphore(1)
  private position = 0n
  private readonly readable: boolean
  private readonly writable: boolean
  private readonly append: boolean

  constructor(
    private readonly vol: Volume,
    readonly fd: FileSystem.File.Descriptor,
    flag: FileSystem.OpenFlag,
    private readonly isDirectory: boolean
  ) {
    this.readable = flag === "r" || flag.endsWith("+")
    this.writable = flag !== "r"
    this.append = flag.startsWith("a")
  }

  get stat() {
    return attempt("stat", this.fd, () => makeFileInfo(this.vol.fstatSync(this.fd)))
  }

  get sync() {
    return attempt("sync", this.fd, () => this.vol.fsyncSync(this.fd))
  }

  seek(offset: FileSystem.SizeInput, from: FileSystem.SeekMode) {
    const offsetSize = FileSystem.Size(offset)
    return this.semaphore.withPermits(1)(Effect.sync(() => {
      this.position = from === "start" ? offsetSize : this.position + offsetSize
    }))
  }

  // memfs ignores the open mode and reads directories as empty files; Node fails.
  private readAt(buffer: Uint8Array): number {
    if (!this.readable) throw errno("EBADF", "read")
    if (this.isDirectory) throw errno("EISDIR", "read")
    return this.vol.readSync(this.fd, buffer, 0, buffer.length, Number(this.position))
  }

  private writeAt(buffer: Uint8Array): number {
    if (!this.writable) throw errno("EBADF", "write")
    return this.vol.writeSync(this.fd, buffer, 0, buffer.length, this.append ? undefined : Number(this.position))
  }

  read(buffer: Uint8Array) {
    return this.semaphore.withPermits(1)(
      Effect.map(attempt("read", this.fd, () => this.readAt(buffer)), (bytesRead) => {
        const sizeRead = FileSystem.Size(bytesRead)
        this.position = this.position + sizeRead
        return sizeRead
      })
    )
  }

  readAlloc(size: FileSystem.SizeInput) {
    return this.semaphore.withPermits(1)(
      attempt("readAlloc", this.fd, (): Option.Option<Uint8Array> => {
        const buffer = Buffer.alloc(Number(size))
        const bytesRead = this.readAt(buffer)
        if (bytesRead === 0) return Option.none()
        this.position = this.position + BigInt(bytesRead)
        // Copy a short read, as Node does, so the result does not pin the whole buffer.
        return Option.some(bytesRead === buffer.length ? buffer : Buffer.from(buffer.subarray(0, bytesRead)))
      })
    )
  }

  truncate(length?: FileSystem.SizeInput) {
    return this.semaphore.withPermits(1)(
      Effect.map(
        attempt("truncate", this.fd, () => {
          // memfs truncates through read-only descriptors; ftruncate(2) refuses.
          if (!this.writable) throw errno("EINVAL", "ftruncate")
          this.vol.ftruncateSync(this.fd, length ? Number(length) : undefined)
        }),
        () => {
          const len = BigInt(length ?? 0)
          if (!this.append && this.position > len) this.position = len
        }
      )
    )
  }

  write(buffer: Uint8Array) {
    return this.semaphore.withPermits(1)(
      Effect.map(attempt("write", this.fd, () => this.writeAt(buffer)), (bytesWritten) => {
        const sizeWritten = FileSystem.Size(bytesWritten)
        if (!this.append) this.position = this.position + sizeWritten
        return sizeWritten
      })
    )
  }

  writeAll(buffer: Uint8Array) {
    // memfs writes the whole buffer in one call, so no short-write loop; a zero-byte write
    // (an empty buffer) still fails with WriteZero, as on Node.
    return this.semaphore.withPermits(1)(
      Effect.flatMap(attempt("writeAll", this.fd, () => this.writeAt(buffer)), (bytesWritten) => {
        if (bytesWritten === 0) {
          return Effect.fail(
            new PlatformError.SystemError({
              module: "FileSystem",
              method: "writeAll",
              reason: "WriteZero",
              pathOrDescriptor: this.fd,
              description: "write returned 0 bytes written"
            })
          )
        }
        if (!this.append) this.position = this.position + BigInt(bytesWritten)
        return Effect.void
      })
    )
  }
}

// == file system

const makeFileSystem = (vol: Volume): FileSystem.FileSystem => {
  const statOrUndefined = (path: string) => {
    try {
      return vol.statSync(path)
    } catch {
      return undefined
    }
  }
  const lstatOrUndefined = (path: string) => {
    try {
      return vol.lstatSync(path)
    } catch {
      return undefined
    }
  }
  const readdir = (path: string) => vol.readdirSync(path) as Array<string>

  /** Runs a path operation; memfs ignores a trailing slash, which must name a directory. */
  const run = <A>(method: string, path: string, f: () => A) =>
    attempt(method, path, () => {
      if (path.length > 1 && path.endsWith("/") && statOrUndefined(path)?.isDirectory() === false) {
        throw errno("ENOTDIR", "stat", path)
      }
      return f()
    })

  // Node lists through symlinked directories too; memfs does not. Unlike Linux, which stops
  // a symlink cycle after ~40 levels with ELOOP, a cycle is not entered at all.
  const readDirectoryRecursive = (root: string) => {
    const names: Array<string> = []
    const visit = (relative: string, ancestors: ReadonlySet<string>) => {
      for (const name of readdir(Path.join(root, relative))) {
        const child = relative === "" ? name : `${relative}/${name}`
        names.push(child)
        const path = Path.join(root, child)
        if (statOrUndefined(path)?.isDirectory()) {
          const real = vol.realpathSync(path) as string
          if (!ancestors.has(real)) visit(child, new Set(ancestors).add(real))
        }
      }
    }
    visit("", new Set([vol.realpathSync(root) as string]))
    return names
  }

  // memfs's `rm` follows symlinks and fails on dangling ones; remove the link itself, like Node.
  const removeSync = (path: string, options?: FileSystem.RemoveOptions): void => {
    let stat
    try {
      stat = vol.lstatSync(path)
    } catch (error) {
      // `force` forgives a missing path only, as in Node.
      if (options?.force && isErrnoException(error) && error.code === "ENOENT") return
      throw error
    }
    if (!stat.isDirectory()) {
      vol.unlinkSync(path)
    } else if (!options?.recursive) {
      vol.rmSync(path) // throws ERR_FS_EISDIR, just as Node's rm does
    } else {
      for (const name of readdir(path)) removeSync(Path.join(path, name), { recursive: true })
      vol.rmdirSync(path)
    }
  }
  const remove = (method: string) => (path: string, options?: FileSystem.RemoveOptions) =>
    run(method, path, () => removeSync(path, options))

  // memfs renames over anything; POSIX rename(2) refuses these.
  const checkRename = (oldPath: string, newPath: string) => {
    const from = lstatOrUndefined(oldPath)
    const to = lstatOrUndefined(newPath)
    if (from === undefined || to === undefined) {
      if (from?.isDirectory() && isInside(oldPath, newPath)) throw errno("EINVAL", "rename", oldPath, newPath)
      return
    }
    if (from.isDirectory()) {
      if (!to.isDirectory()) throw errno("ENOTDIR", "rename", oldPath, newPath)
      if (isInside(oldPath, newPath)) throw errno("EINVAL", "rename", oldPath, newPath)
      if (!isSame(oldPath, newPath) && readdir(newPath).length > 0) {
        throw errno("ENOTEMPTY", "rename", oldPath, newPath)
      }
    } else if (to.isDirectory()) {
      throw errno("EISDIR", "rename", oldPath, newPath)
    }
  }

  const makeTempDirectory = (method: string) => (options?: FileSystem.MakeTempDirectoryOptions) =>
    Effect.suspend(() => {
      const directory = options?.directory !== undefined ? Path.join(options.directory, ".") : OS.tmpdir()
      const prefix = options?.prefix ? Path.join(directory, options.prefix) : directory + "/"
      return attempt(method, prefix, () => {
        // Node's temp root always exists; ours appears on first use.
        if (options?.directory === undefined) vol.mkdirSync(directory, { recursive: true, mode: 0o777 })
        const path = vol.mkdtempSync(prefix) as string
        vol.chmodSync(path, 0o700) // mkdtemp(3) creates 0700, memfs 0777
        return path
      })
    })

  const open = (method: string) => (path: string, options?: FileSystem.OpenFileOptions) => {
    const flag = options?.flag ?? "r"
    return Effect.acquireRelease(
      run(method, path, () => {
        const fd = vol.openSync(path, flag, createMode(options?.mode ?? 0o666))
        return new MemoryFile(vol, FileSystem.FileDescriptor(fd), flag, vol.fstatSync(fd).isDirectory())
      }),
      (file) => Effect.orDie(attempt(method, file.fd, () => vol.closeSync(file.fd)))
    )
  }

  const makeTempFile = (method: string) => (options?: FileSystem.MakeTempFileOptions) =>
    Effect.flatMap(makeTempDirectory(method)(options), (directory) => {
      const path = Path.join(directory, Crypto.randomBytes(6).toString("hex") + (options?.suffix ?? ""))
      return Effect.as(Effect.scoped(open(method)(path, { flag: "w+" })), path)
    })

  const stat = Effect.fn("MemoryFileSystem.stat")((path: string) =>
    run("stat", path, () => makeFileInfo(vol.statSync(path)))
  )

  return FileSystem.make({
    access: Effect.fn("MemoryFileSystem.access")((path: string, options?: FileSystem.AccessFileOptions) =>
      run("access", path, () =>
        vol.accessSync(
          path,
          constants.F_OK | (options?.readable ? constants.R_OK : 0) | (options?.writable ? constants.W_OK : 0)
        ))
    ),
    chmod: Effect.fn("MemoryFileSystem.chmod")((path: string, mode: number) =>
      run("chmod", path, () => vol.chmodSync(path, mode))
    ),
    chown: Effect.fn("MemoryFileSystem.chown")((path: string, uid: number, gid: number) =>
      run("chown", path, () => vol.chownSync(path, uid, gid))
    ),
    copy: Effect.fn("MemoryFileSystem.copy")((fromPath: string, toPath: string, options?: FileSystem.CopyOptions) =>
      run("copy", fromPath, () =>
        vol.cpSync(fromPath, toPath, {
          force: options?.overwrite ?? false,
          preserveTimestamps: options?.preserveTimestamps ?? false,
          recursive: true
        }))
    ),
    copyFile: Effect.fn("MemoryFileSystem.copyFile")((fromPath: string, toPath: string) =>
      run("copyFile", fromPath, () => vol.copyFileSync(fromPath, toPath))
    ),
    link: Effect.fn("MemoryFileSystem.link")((fromPath: string, toPath: string) =>
      run("link", fromPath, () => vol.linkSync(fromPath, toPath))
    ),
    makeDirectory: Effect.fn("MemoryFileSystem.makeDirectory")(
      (path: string, options?: FileSystem.MakeDirectoryOptions) =>
        run("makeDirectory", path, () => {
          // memfs lets `mkdir -p` pass over an existing file; Node fails with EEXIST.
          if (options?.recursive && statOrUndefined(path)?.isDirectory() === false) throw errno("EEXIST", "mkdir", path)
          vol.mkdirSync(path, { recursive: options?.recursive ?? false, mode: createMode(options?.mode ?? 0o777) })
        })
    ),
    makeTempDirectory: Effect.fn("MemoryFileSystem.makeTempDirectory")(makeTempDirectory("makeTempDirectory")),
    makeTempDirectoryScoped: Effect.fn("MemoryFileSystem.makeTempDirectoryScoped")(
      (options?: FileSystem.MakeTempDirectoryOptions) =>
        Effect.acquireRelease(
          makeTempDirectory("makeTempDirectoryScoped")(options),
          (directory) => Effect.orDie(remove("makeTempDirectoryScoped")(directory, { recursive: true }))
        )
    ),
    makeTempFile: Effect.fn("MemoryFileSystem.makeTempFile")(makeTempFile("makeTempFile")),
    makeTempFileScoped: Effect.fn("MemoryFileSystem.makeTempFileScoped")(
      (options?: FileSystem.MakeTempFileOptions) =>
        Effect.acquireRelease(
          makeTempFile("makeTempFileScoped")(options),
          (file) => Effect.orDie(remove("makeTempFileScoped")(Path.dirname(file), { recursive: true }))
        )
    ),
    open: Effect.fn("MemoryFileSystem.open")(open("open")),
    readDirectory: Effect.fn("MemoryFileSystem.readDirectory")(
      (path: string, options?: FileSystem.ReadDirectoryOptions) =>
        run("readDirectory", path, () => options?.recursive ? readDirectoryRecursive(path) : readdir(path))
    ),
    readFile: Effect.fn("MemoryFileSystem.readFile")((path: string) =>
      run("readFile", path, (): Uint8Array => vol.readFileSync(path) as Buffer)
    ),
    readLink: Effect.fn("MemoryFileSystem.readLink")((path: string) =>
      run("readLink", path, () => vol.readlinkSync(path) as string)
    ),
    // Not `run`: Node's realpath also accepts "file/" and returns "file".
    realPath: Effect.fn("MemoryFileSystem.realPath")((path: string) =>
      attempt("realPath", path, () => vol.realpathSync(path) as string)
    ),
    remove: Effect.fn("MemoryFileSystem.remove")(remove("remove")),
    rename: Effect.fn("MemoryFileSystem.rename")((oldPath: string, newPath: string) =>
      run("rename", oldPath, () => {
        checkRename(oldPath, newPath)
        vol.renameSync(oldPath, newPath)
      })
    ),
    stat,
    // Like Node's, errors name the target as the path.
    symlink: Effect.fn("MemoryFileSystem.symlink")((target: string, path: string) =>
      attempt("symlink", target, () => vol.symlinkSync(target, path))
    ),
    truncate: Effect.fn("MemoryFileSystem.truncate")((path: string, length?: FileSystem.SizeInput) =>
      run("truncate", path, () => vol.truncateSync(path, length !== undefined ? Number(length) : undefined))
    ),
    // "utime" is the method name the Node layer reports.
    utimes: Effect.fn("MemoryFileSystem.utimes")((path: string, atime: Date | number, mtime: Date | number) =>
      run("utime", path, () => vol.utimesSync(path, atime, mtime))
    ),
    watch: (path, options) => Stream.unwrap(Effect.map(stat(path), (info) => watch(vol, path, info, options))),
    writeFile: Effect.fn("MemoryFileSystem.writeFile")(
      (path: string, data: Uint8Array, options?: FileSystem.WriteFileOptions) =>
        run("writeFile", path, () =>
          vol.writeFileSync(path, data, {
            flag: options?.flag ?? "w",
            mode: createMode(options?.mode ?? 0o666)
          }))
    )
  })
}

const resolve = (path: string) => Path.resolve("/", path)
const isSame = (a: string, b: string) => resolve(a) === resolve(b)
const isInside = (parent: string, child: string) => resolve(child).startsWith(resolve(parent) + "/")

// Mirrors the Node layer's `fs.watch` stream, where a "rename" becomes Create or Remove by
// whether the path exists. memfs notifies synchronously, before an unlink takes effect, so
// events are delivered in order once the current operation has finished (a microtask later).
// Node checks the reported relative name against the process cwd; we use the watched directory.
const watch = (vol: Volume, path: string, info: FileSystem.File.Info, options?: FileSystem.WatchOptions) => {
  const base = info.type === "Directory" ? path : Path.dirname(path)
  return Stream.asyncScoped<FileSystem.WatchEvent, PlatformError.PlatformError>((emit) =>
    Effect.acquireRelease(
      Effect.sync(() => {
        const pending: Array<readonly [event: string, filename: string]> = []
        const flush = () => {
          for (const [event, filename] of pending.splice(0)) {
            emit.single(
              event === "change"
                ? FileSystem.WatchEventUpdate({ path: filename })
                : vol.existsSync(Path.join(base, filename))
                ? FileSystem.WatchEventCreate({ path: filename })
                : FileSystem.WatchEventRemove({ path: filename })
            )
          }
        }
        const watcher = vol.watch(path, { recursive: options?.recursive ?? false }, (event, filename) => {
          if (filename && pending.push([event, filename]) === 1) queueMicrotask(flush)
        })
        watcher.on("error", (cause) =>
          emit.fail(
            new PlatformError.SystemError({
              module: "FileSystem",
              reason: "Unknown",
              method: "watch",
              pathOrDescriptor: path,
              cause
            })
          ))
        watcher.on("close", () => emit.end())
        return watcher
      }),
      (watcher) => Effect.sync(() => watcher.close())
    )
  )
}
