/**
 * Shortcuts taken where the `FileSystem` in context does what `@effect/platform-node`'s does
 * (made patient or not): its descriptors are the kernel's, and Node's native calls answer as it
 * would in fewer thread-pool round trips. An operation replaced by another filesystem (in
 * memory, fault-injecting, counting) goes the service's way.
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { realpath } from "node:fs"
import { unwrapPatient } from "./descriptors.js"

let node: FileSystem.FileSystem | undefined

/**
 * Whether `fs`'s `operation` is Node's own: the layer's operations are module functions, the
 * same in every layer built, so a patient wrapper or a spread copy that kept it is recognised,
 * and one that replaced it (to count, inject faults, or stand in memory) is not.
 */
const isNodes = (fs: FileSystem.FileSystem, operation: "open" | "readDirectory" | "realPath"): boolean => {
  node ??= Effect.runSync(Effect.provide(FileSystem.FileSystem, NodeFileSystem.layer))
  return unwrapPatient(fs)[operation] === node[operation]
}

/** Whether `fs` lists directories as Node does (so Node's own directory walk may stand in for it). */
export const isNodeFileSystem = (fs: FileSystem.FileSystem): boolean => isNodes(fs, "readDirectory")

/** Whether the descriptors `fs` opens are the kernel's (so `/proc/self/fd` names what they hold). */
export const opensKernelDescriptors = (fs: FileSystem.FileSystem): boolean => isNodes(fs, "open")

// Windows' native real path (`GetFinalPathNameByHandle`) resolves subst drives and mapped shares
// to their targets, where the JavaScript one keeps them, and is not tested here: there, the
// service's way.
const nativeAgrees = process.platform !== "win32"

const nativeRealPath = (path: string): Effect.Effect<Option.Option<string>> =>
  Effect.async((resume) => {
    try {
      realpath.native(path, (error, resolved) => resume(Effect.succeed(error ? Option.none() : Option.some(resolved))))
    } catch {
      // Node refuses some paths before any system call (a NUL byte, from an archive member's
      // name): no such path, as the service's way says of it.
      resume(Effect.succeed(Option.none()))
    }
  })

/**
 * The real path of an absolute, normalised `path`, or none when it cannot be resolved. On Node's
 * filesystem one `realpath(3)` call: the service's `realPath` is Node's JavaScript `realpath`,
 * which `lstat`s every component of the path in turn (five round trips for `/a/b/c/d/e`).
 */
export const realPathOf = (fs: FileSystem.FileSystem, path: string): Effect.Effect<Option.Option<string>> =>
  isNodes(fs, "realPath") && nativeAgrees ? nativeRealPath(path) : Effect.option(fs.realPath(path))
