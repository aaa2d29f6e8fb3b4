/**
 * Fault injection for any `@effect/platform` `FileSystem` (Node's, `MemoryFileSystem`, yours):
 * a layer that wraps the filesystem in context and follows a fault plan — fail the Nth call of
 * an operation with a platform error, return short reads, truncate, rewrite, replace or append
 * to a file after its Nth read, make entries vanish or appear while a directory is listed — and
 * counts the descriptors it opened and closed.
 *
 * ```ts
 * import * as Path from "@effect/platform/Path"
 * import { Layer } from "effect"
 * import { FaultFileSystem, MemoryFileSystem } from "effect-read"
 *
 * // The log is truncated to nothing right after its first chunk was read.
 * const plan = [FaultFileSystem.Truncate.make({ afterRead: 1, size: 0 })]
 * const filesystem = FaultFileSystem.layer(plan).pipe(
 *   Layer.provideMerge(Layer.merge(MemoryFileSystem.layer({ "/repo/app.log": "…" }), Path.layer))
 * )
 * ```
 *
 * A plan is a list of faults (plain tagged data: write it by hand, or generate it with
 * `arbitrary`, so a failing property shrinks to a minimal plan). Each fault counts the calls it
 * matches (its operation, and its `path` when given: the path as passed to the call, or for a
 * `File`'s operations the path it was opened with) and acts on the `nth` one; a mutation
 * (`Truncate`, `Rewrite`, `Replace`, `Append`, `Vanish`, `Appear`) acts once.
 *
 * Errors are the `SystemError`s `@effect/platform-node` produces for the same errno: the same
 * `reason` (`NotFound`, `PermissionDenied`, `Busy`, `BadResource`, else `Unknown`) and a
 * `description` worded as Node's (`EIO: i/o error, read`). Mutations go through the wrapped
 * filesystem directly, so they are neither counted nor faulted.
 */
import * as PlatformError from "@effect/platform/Error"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"

// == the plan

/**
 * What a fault can target: the `FileSystem`'s methods by name (`makeTempDirectoryScoped` counts
 * as `makeTempDirectory`, `exists` calls `access`, `readFileString` calls `readFile`, `stream`
 * opens and reads), and a `File`'s: `read` (also `readAlloc`), `write` (also `writeAll`),
 * `fstat` (its `stat`), `ftruncate` (its `truncate`) and `sync`.
 */
export const Operation = Schema.Literal(
  "access",
  "chmod",
  "chown",
  "copy",
  "copyFile",
  "link",
  "makeDirectory",
  "makeTempDirectory",
  "makeTempFile",
  "open",
  "readDirectory",
  "readFile",
  "readLink",
  "realPath",
  "remove",
  "rename",
  "stat",
  "symlink",
  "truncate",
  "utimes",
  "writeFile",
  "read",
  "write",
  "fstat",
  "ftruncate",
  "sync"
)
export type Operation = typeof Operation.Type

/** The errno codes a `Fail` can raise. */
export const ErrorCode = Schema.Literal(
  "EIO",
  "EACCES",
  "EPERM",
  "ENOENT",
  "ENOTDIR",
  "ELOOP",
  "EMFILE",
  "ENFILE",
  "ENOSPC",
  "EBUSY"
)
export type ErrorCode = typeof ErrorCode.Type

const Nth = Schema.Int.annotations({ description: "1-based: the first matching call is 1" })
const Bytes = Schema.Union(Schema.String, Schema.Uint8ArrayFromSelf)

/** The `nth` matching call of `operation` (and the `times - 1` after it) fails with `code`. */
export const Fail = Schema.TaggedStruct("Fail", {
  operation: Operation,
  nth: Nth,
  code: ErrorCode,
  times: Schema.optional(Schema.Int),
  path: Schema.optional(Schema.String)
})
export type Fail = typeof Fail.Type

/** The `nth` read (and the `times - 1` after it) returns at most `bytes` bytes (at least 1). */
export const ShortRead = Schema.TaggedStruct("ShortRead", {
  nth: Nth,
  bytes: Schema.Int,
  times: Schema.optional(Schema.Int),
  path: Schema.optional(Schema.String)
})
export type ShortRead = typeof ShortRead.Type

/** After the `afterRead`-th read, the file that was read is truncated to `size` bytes (never grown). */
export const Truncate = Schema.TaggedStruct("Truncate", {
  afterRead: Nth,
  size: Schema.Int,
  path: Schema.optional(Schema.String)
})
export type Truncate = typeof Truncate.Type

/**
 * After the `afterRead`-th read, the file that was read is rewritten in place (same inode, as
 * an editor that truncates and writes does): with `content`, or else with `rewritten(its bytes,
 * size)`.
 */
export const Rewrite = Schema.TaggedStruct("Rewrite", {
  afterRead: Nth,
  size: Schema.optional(Schema.Int),
  content: Schema.optional(Bytes),
  path: Schema.optional(Schema.String)
})
export type Rewrite = typeof Rewrite.Type

/**
 * After the `afterRead`-th read, the file that was read is replaced by rename (a new inode, as
 * log rotation or an atomic save does) holding `content`, or else `rewritten(its bytes, size)`.
 * Descriptors already open keep reading the old file.
 */
export const Replace = Schema.TaggedStruct("Replace", {
  afterRead: Nth,
  size: Schema.optional(Schema.Int),
  content: Schema.optional(Bytes),
  path: Schema.optional(Schema.String)
})
export type Replace = typeof Replace.Type

/**
 * After the `afterRead`-th read, bytes are appended to the file that was read (a log being
 * written): `content`, or else `rewritten(its bytes, size)`.
 */
export const Append = Schema.TaggedStruct("Append", {
  afterRead: Nth,
  size: Schema.optional(Schema.Int),
  content: Schema.optional(Bytes),
  path: Schema.optional(Schema.String)
})
export type Append = typeof Append.Type

/**
 * After the `nth` listing (`readDirectory`), entries it returned are removed (recursively)
 * before the caller sees the names: those in `names`, or else the first `count` listed.
 */
export const Vanish = Schema.TaggedStruct("Vanish", {
  nth: Nth,
  count: Schema.Int,
  names: Schema.optional(Schema.Array(Schema.String)),
  path: Schema.optional(Schema.String)
})
export type Vanish = typeof Vanish.Type

/**
 * After the `nth` listing, `count` new files (`fault-appeared-1`, …) appear in the directory,
 * too late to be in the names returned.
 */
export const Appear = Schema.TaggedStruct("Appear", {
  nth: Nth,
  count: Schema.Int,
  path: Schema.optional(Schema.String)
})
export type Appear = typeof Appear.Type

export const Fault = Schema.Union(Fail, ShortRead, Truncate, Rewrite, Replace, Append, Vanish, Appear)
export type Fault = typeof Fault.Type

/** A fault plan: every fault in it applies, each counting its own calls. */
export const Plan = Schema.Array(Fault)
export type Plan = typeof Plan.Type

// == errors

/** libuv's wording, so a fault reads like the real error. */
const uvMessages: Record<ErrorCode, string> = {
  EIO: "i/o error",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  ENOENT: "no such file or directory",
  ENOTDIR: "not a directory",
  ELOOP: "too many symbolic links encountered",
  EMFILE: "too many open files",
  ENFILE: "file table overflow",
  ENOSPC: "no space left on device",
  EBUSY: "resource busy or locked"
}

/** `@effect/platform-node`'s table (`handleErrnoException`). */
const reasonOf = (code: ErrorCode): PlatformError.SystemErrorReason =>
  code === "ENOENT"
    ? "NotFound"
    : code === "EACCES"
    ? "PermissionDenied"
    : code === "EBUSY"
    ? "Busy"
    : code === "ENOTDIR" || code === "ELOOP"
    ? "BadResource"
    : "Unknown"

const syscalls: Partial<Record<Operation, string>> = {
  readDirectory: "scandir",
  readFile: "open",
  readLink: "readlink",
  realPath: "lstat",
  remove: "rm",
  utimes: "utime",
  ftruncate: "ftruncate",
  sync: "fsync",
  makeTempDirectory: "mkdtemp",
  makeTempFile: "mkdtemp",
  makeDirectory: "mkdir"
}

/** The `SystemError` `@effect/platform-node` would produce for `code` in `operation`. */
export const systemError = (
  code: ErrorCode,
  operation: Operation,
  pathOrDescriptor: string | number
): PlatformError.SystemError => {
  const syscall = syscalls[operation] ?? operation
  const description = `${code}: ${uvMessages[code]}, ${syscall}${
    typeof pathOrDescriptor === "string" ? ` '${pathOrDescriptor}'` : ""
  }`
  const cause = Object.assign(new Error(description), {
    code,
    syscall,
    ...(typeof pathOrDescriptor === "string" ? { path: pathOrDescriptor } : {})
  })
  return new PlatformError.SystemError({
    reason: reasonOf(code),
    module: "FileSystem",
    method: fileMethods[operation] ?? operation,
    pathOrDescriptor,
    syscall,
    description,
    cause
  })
}

const fileMethods: Partial<Record<Operation, string>> = { fstat: "stat", ftruncate: "truncate" }

// == rewriting

const defaultBase = new TextEncoder().encode("rewritten by FaultFileSystem\n")

/**
 * What `Rewrite`, `Replace` and `Append` write when the fault has no `content`: `original` with every
 * ASCII letter moved one on (`a`→`b`, `z`→`a`, `Z`→`A`), so lines keep their lengths but no
 * line reads the same, then cut to `size` bytes or repeated up to it.
 */
export const rewritten = (original: Uint8Array, size: number): Uint8Array => {
  const base = original.length === 0 ? defaultBase : original
  const out = new Uint8Array(Math.max(0, size))
  for (let i = 0; i < out.length; i++) {
    const byte = base[i % base.length]!
    out[i] = byte >= 0x61 && byte <= 0x7a
      ? 0x61 + (byte - 0x61 + 1) % 26
      : byte >= 0x41 && byte <= 0x5a
      ? 0x41 + (byte - 0x41 + 1) % 26
      : byte
  }
  return out
}

const bytesOf = (content: string | Uint8Array): Uint8Array =>
  typeof content === "string" ? new TextEncoder().encode(content) : content

// == the layer

/** What the layer saw. */
export interface Stats {
  /** Files opened (successful `open` calls). */
  readonly opened: number
  /** Of those, closed (their scope's finalizer ran). */
  readonly closed: number
  /** Paths of the files still open, one per descriptor. */
  readonly open: ReadonlyArray<string>
  /** Calls per operation. */
  readonly calls: Readonly<Partial<Record<Operation, number>>>
  /** The faults that acted, in order (a `Fail` or `ShortRead` once per call it changed). */
  readonly fired: ReadonlyArray<Fault>
}

export interface FaultFileSystem {
  /** The wrapped filesystem: provide it as `FileSystem.FileSystem`. */
  readonly fileSystem: FileSystem.FileSystem
  /** The counters so far. */
  readonly stats: Effect.Effect<Stats>
}

type Mutation = Truncate | Rewrite | Replace | Append

const isMutation = (fault: Fault): fault is Mutation =>
  fault._tag === "Truncate" || fault._tag === "Rewrite" || fault._tag === "Replace" || fault._tag === "Append"

const operationOf = (fault: Fault): Operation =>
  fault._tag === "Fail"
    ? fault.operation
    : fault._tag === "Vanish" || fault._tag === "Appear"
    ? "readDirectory"
    : "read"

/**
 * Wrap `underlying` so it follows `plan` (`make` does this to the `FileSystem` in context). Each
 * wrapper has its own counters: build one per test case.
 */
export const makeWith = (
  underlying: FileSystem.FileSystem,
  path: Path.Path,
  plan: Plan
): FaultFileSystem => {
  const counts = plan.map(() => 0)
  const calls: Partial<Record<Operation, number>> = {}
  const fired: Array<Fault> = []
  const open: Array<string> = []
  let opened = 0
  let closed = 0

  /** Count this call for every fault it matches; the faults whose turn it is. */
  const turn = (operation: Operation, target: string) => {
    calls[operation] = (calls[operation] ?? 0) + 1
    const due: Array<Fault> = []
    plan.forEach((fault, i) => {
      if (operationOf(fault) !== operation || (fault.path !== undefined && fault.path !== target)) return
      const n = ++counts[i]!
      const first = isMutation(fault) ? fault.afterRead : fault.nth
      const times = fault._tag === "Fail" || fault._tag === "ShortRead" ? Math.max(1, fault.times ?? 1) : 1
      if (n >= first && n < first + times) due.push(fault)
    })
    return due
  }

  const failureOf = (due: ReadonlyArray<Fault>, operation: Operation, subject: string | number) => {
    const fail = due.find((fault): fault is Fail => fault._tag === "Fail")
    if (fail === undefined) return undefined
    fired.push(fail)
    return systemError(fail.code, operation, subject)
  }

  /** An operation that can only fail. */
  const guard = <A, E, R>(
    operation: Operation,
    target: string,
    self: Effect.Effect<A, E, R>,
    subject: string | number = target
  ): Effect.Effect<A, E | PlatformError.SystemError, R> =>
    Effect.suspend((): Effect.Effect<A, E | PlatformError.SystemError, R> => {
      const error = failureOf(turn(operation, target), operation, subject)
      return error === undefined ? self : Effect.fail(error)
    })

  const quietly = <A, E>(self: Effect.Effect<A, E>) =>
    self.pipe(
      Effect.asVoid,
      Effect.catchAllCause((cause) => Effect.logDebug("FaultFileSystem: a mutation could not be applied", cause))
    )

  /** Truncate, rewrite or replace `target` now. */
  const mutate = (fault: Mutation, target: string) =>
    Effect.gen(function*() {
      fired.push(fault)
      if (fault._tag === "Truncate") {
        const info = yield* underlying.stat(target)
        return yield* underlying.truncate(target, Math.max(0, Math.min(fault.size, Number(info.size))))
      }
      const content = fault.content !== undefined
        ? bytesOf(fault.content)
        : rewritten(yield* underlying.readFile(target), fault.size ?? Number((yield* underlying.stat(target)).size))
      if (fault._tag === "Rewrite") return yield* underlying.writeFile(target, content)
      if (fault._tag === "Append") return yield* underlying.writeFile(target, content, { flag: "a" })
      const aside = `${target}.fault-replacement`
      yield* underlying.writeFile(aside, content)
      yield* underlying.rename(aside, target)
    }).pipe(quietly)

  const listingChanges = (due: ReadonlyArray<Fault>, directory: string, names: ReadonlyArray<string>) =>
    Effect.forEach(due, (fault) => {
      if (fault._tag === "Vanish") {
        fired.push(fault)
        const gone = fault.names ?? names.slice(0, Math.max(0, fault.count))
        return Effect.forEach(
          gone,
          (name) => quietly(underlying.remove(path.join(directory, name), { recursive: true }))
        )
      }
      if (fault._tag === "Appear") {
        fired.push(fault)
        return Effect.forEach(
          Array.from({ length: Math.max(0, fault.count) }, (_, k) => `fault-appeared-${k + 1}`),
          (name) => quietly(underlying.writeFile(path.join(directory, name), new TextEncoder().encode(`${name}\n`)))
        )
      }
      return Effect.void
    }, { discard: true })

  /** A read of `file` (opened at `target`): fails, comes up short, or mutates the file after. */
  const reading = <A>(
    target: string,
    fd: number,
    run: (limit: number | undefined) => Effect.Effect<A, PlatformError.PlatformError>
  ) =>
    Effect.suspend((): Effect.Effect<A, PlatformError.PlatformError> => {
      const due = turn("read", target)
      const error = failureOf(due, "read", fd)
      if (error !== undefined) return Effect.fail(error)
      const short = due.find((fault): fault is ShortRead => fault._tag === "ShortRead")
      if (short !== undefined) fired.push(short)
      const mutations = due.filter(isMutation)
      return run(short === undefined ? undefined : Math.max(1, short.bytes)).pipe(
        Effect.tap(() => Effect.forEach(mutations, (fault) => mutate(fault, target), { discard: true }))
      )
    })

  // Delegate every member explicitly: Node's File keeps `stat` on its prototype and its
  // position on the instance, which a spread would lose.
  const wrapFile = (file: FileSystem.File, target: string): FileSystem.File => ({
    [FileSystem.FileTypeId]: FileSystem.FileTypeId,
    fd: file.fd,
    stat: guard("fstat", target, Effect.suspend(() => file.stat), file.fd),
    seek: (offset, from) => file.seek(offset, from),
    sync: guard("sync", target, Effect.suspend(() => file.sync), file.fd),
    read: (buffer) =>
      reading(target, file.fd, (limit) => file.read(limit === undefined ? buffer : buffer.subarray(0, limit))),
    readAlloc: (size) =>
      reading(target, file.fd, (limit) => file.readAlloc(limit === undefined ? size : Math.min(Number(size), limit))),
    truncate: (length) => guard("ftruncate", target, file.truncate(length), file.fd),
    write: (buffer) => guard("write", target, file.write(buffer), file.fd),
    writeAll: (buffer) => guard("write", target, file.writeAll(buffer), file.fd)
  })

  const openFile = (target: string, options?: FileSystem.OpenFileOptions) =>
    guard(
      "open",
      target,
      Effect.gen(function*() {
        let file: FileSystem.File | undefined
        // Added before the open, so it runs after the underlying close.
        yield* Effect.addFinalizer(() =>
          Effect.sync(() => {
            if (file === undefined) return
            closed++
            open.splice(open.indexOf(target), 1)
          })
        )
        file = yield* underlying.open(target, options)
        opened++
        open.push(target)
        return wrapFile(file, target)
      })
    )

  const readDirectory = (target: string, options?: FileSystem.ReadDirectoryOptions) =>
    Effect.suspend((): Effect.Effect<Array<string>, PlatformError.PlatformError> => {
      const due = turn("readDirectory", target)
      const error = failureOf(due, "readDirectory", target)
      if (error !== undefined) return Effect.fail(error)
      return Effect.tap(underlying.readDirectory(target, options), (names) => listingChanges(due, target, names))
    })

  const fileSystem = FileSystem.make({
    access: (target, options) => guard("access", target, underlying.access(target, options)),
    chmod: (target, mode) => guard("chmod", target, underlying.chmod(target, mode)),
    chown: (target, uid, gid) => guard("chown", target, underlying.chown(target, uid, gid)),
    copy: (from, to, options) => guard("copy", from, underlying.copy(from, to, options)),
    copyFile: (from, to) => guard("copyFile", from, underlying.copyFile(from, to)),
    link: (from, to) => guard("link", from, underlying.link(from, to)),
    makeDirectory: (target, options) => guard("makeDirectory", target, underlying.makeDirectory(target, options)),
    makeTempDirectory: (options) =>
      guard("makeTempDirectory", options?.directory ?? "", underlying.makeTempDirectory(options)),
    makeTempDirectoryScoped: (options) =>
      guard("makeTempDirectory", options?.directory ?? "", underlying.makeTempDirectoryScoped(options)),
    makeTempFile: (options) => guard("makeTempFile", options?.directory ?? "", underlying.makeTempFile(options)),
    makeTempFileScoped: (options) =>
      guard("makeTempFile", options?.directory ?? "", underlying.makeTempFileScoped(options)),
    open: openFile,
    readDirectory,
    readFile: (target) => guard("readFile", target, underlying.readFile(target)),
    readLink: (target) => guard("readLink", target, underlying.readLink(target)),
    realPath: (target) => guard("realPath", target, underlying.realPath(target)),
    remove: (target, options) => guard("remove", target, underlying.remove(target, options)),
    rename: (from, to) => guard("rename", from, underlying.rename(from, to)),
    stat: (target) => guard("stat", target, underlying.stat(target)),
    symlink: (from, to) => guard("symlink", to, underlying.symlink(from, to)),
    truncate: (target, length) => guard("truncate", target, underlying.truncate(target, length)),
    utimes: (target, atime, mtime) => guard("utimes", target, underlying.utimes(target, atime, mtime)),
    watch: (target, options) => underlying.watch(target, options),
    writeFile: (target, data, options) => guard("writeFile", target, underlying.writeFile(target, data, options))
  })

  const stats = Effect.sync((): Stats => ({
    opened,
    closed,
    open: [...open],
    calls: { ...calls },
    fired: [...fired]
  }))
  return { fileSystem, stats }
}

/** Wrap the `FileSystem` in context so it follows `plan`; `stats` reads the counters. */
export const make = (plan: Plan): Effect.Effect<FaultFileSystem, never, FileSystem.FileSystem | Path.Path> =>
  Effect.map(
    Effect.all([FileSystem.FileSystem, Path.Path]),
    ([underlying, path]) => makeWith(underlying, path, plan)
  )

/** The `FileSystem` in context, following `plan` (use `make` to read the counters). */
export const layer = (plan: Plan): Layer.Layer<FileSystem.FileSystem, never, FileSystem.FileSystem | Path.Path> =>
  Layer.effect(FileSystem.FileSystem, Effect.map(make(plan), (faults) => faults.fileSystem))

// == generated plans

/** The operations a read goes through: what `arbitrary` targets by default. */
export const readOperations: ReadonlyArray<Operation> = [
  "open",
  "read",
  "fstat",
  "stat",
  "readDirectory",
  "readFile",
  "realPath",
  "readLink",
  "access"
]

export interface ArbitraryOptions {
  /** Operations a `Fail` may target (default `readOperations`). */
  readonly operations?: ReadonlyArray<Operation>
  /** Codes a `Fail` may raise (default: all of `ErrorCode`). */
  readonly codes?: ReadonlyArray<ErrorCode>
  /** Fault kinds to draw (default: all). */
  readonly kinds?: ReadonlyArray<Fault["_tag"]>
  /** Faults target one of these paths, or any path (default: any). */
  readonly paths?: ReadonlyArray<string>
  /** Largest `nth` / `afterRead` (default 6). */
  readonly maxNth?: number
  /** Most faults in a plan (default 3). */
  readonly maxFaults?: number
  /** Largest size for `Truncate`, `Rewrite`, `Replace`, `Append` (default 64 KiB). */
  readonly maxSize?: number
  /** Largest `count` for `Vanish` and `Appear` (default 4). */
  readonly maxCount?: number
}

/**
 * Plans drawn by fast-check (`effect/FastCheck`): use it in `it.prop` and a failure shrinks to a
 * minimal plan (fewer faults, earlier calls, smaller sizes). Rewrites, replacements and appends
 * carry no `content`: they write `rewritten(…)`, so a plan prints short.
 */
export const arbitrary = (options: ArbitraryOptions = {}): FastCheck.Arbitrary<Plan> => {
  const fc = FastCheck
  const nth = fc.integer({ min: 1, max: options.maxNth ?? 6 })
  const size = fc.integer({ min: 0, max: options.maxSize ?? 64 * 1024 })
  const count = fc.integer({ min: 1, max: options.maxCount ?? 4 })
  const path = options.paths === undefined || options.paths.length === 0
    ? fc.constant(undefined)
    : fc.option(fc.constantFrom(...options.paths), { nil: undefined })
  const at = <A extends object>(arb: FastCheck.Arbitrary<A>) =>
    fc.tuple(arb, path).map(([fault, p]) => (p === undefined ? fault : { ...fault, path: p }))
  const kinds: Record<Fault["_tag"], FastCheck.Arbitrary<Fault>> = {
    Fail: at(fc.record({
      operation: fc.constantFrom(...(options.operations ?? readOperations)),
      nth,
      code: fc.constantFrom(...(options.codes ?? ErrorCode.literals)),
      times: fc.integer({ min: 1, max: 3 })
    })).map((fields) => Fail.make(fields)),
    ShortRead: at(fc.record({ nth, bytes: fc.integer({ min: 1, max: 4096 }), times: fc.integer({ min: 1, max: 4 }) }))
      .map((fields) => ShortRead.make(fields)),
    Truncate: at(fc.record({ afterRead: nth, size })).map((fields) => Truncate.make(fields)),
    Rewrite: at(fc.record({ afterRead: nth, size })).map((fields) => Rewrite.make(fields)),
    Replace: at(fc.record({ afterRead: nth, size })).map((fields) => Replace.make(fields)),
    Append: at(fc.record({ afterRead: nth, size })).map((fields) => Append.make(fields)),
    Vanish: at(fc.record({ nth, count })).map((fields) => Vanish.make(fields)),
    Appear: at(fc.record({ nth, count })).map((fields) => Appear.make(fields))
  }
  const chosen = options.kinds ?? (Object.keys(kinds) as Array<Fault["_tag"]>)
  return fc.array(fc.oneof(...chosen.map((kind) => kinds[kind])), { maxLength: options.maxFaults ?? 3 })
}

/** A plan as one line of JSON, contents abbreviated: for test output and issue reports. */
export const format = (plan: Plan): string =>
  JSON.stringify(plan.map((fault) =>
    "content" in fault && fault.content !== undefined
      ? { ...fault, content: `<${bytesOf(fault.content).length} bytes>` }
      : fault
  ))
