/**
 * Turning what the filesystem says into what the model reads.
 */
import type { PlatformError } from "@effect/platform/Error"
import { ReadFailed } from "../../ReadError.js"

/** Missing, or a path that runs through a regular file (ENOTDIR): both mean "not there". */
export const isNotFound = (error: PlatformError): boolean =>
  error._tag === "SystemError" &&
  (error.reason === "NotFound" || (error.reason === "BadResource" && /ENOTDIR/.test(error.description ?? "")))

const codeOf = (error: PlatformError): string | undefined => /\b(E[A-Z]{2,})\b/.exec(error.description ?? "")?.[1]

const reasons: Record<string, string> = {
  PermissionDenied: "permission denied by the operating system (EACCES)",
  Busy: "the file is busy",
  TimedOut: "the operation timed out",
  BadResource: "the path cannot be read as a file or directory",
  NotFound: "the path does not exist"
}

/** Codes whose reason (often `Unknown`) says too little. */
const codes: Record<string, string> = {
  ELOOP: "too many levels of symbolic links (ELOOP)",
  ENAMETOOLONG: "the path is too long (ENAMETOOLONG)",
  EIO: "an input/output error (EIO)",
  EMFILE: "too many files are open in this process (EMFILE)",
  ENFILE: "too many files are open on this system (ENFILE)",
  EPERM: "operation not permitted (EPERM)"
}

export const fromPlatformError = (path: string, error: PlatformError): ReadFailed => {
  const code = codeOf(error)
  if (error._tag === "SystemError") {
    const reason = (code === undefined ? undefined : codes[code]) ?? reasons[error.reason] ??
      `${error.reason}${code ? ` (${code})` : ""}`
    return new ReadFailed({
      path,
      reason,
      code: code ?? (error.reason === "PermissionDenied" ? "EACCES" : error.reason)
    })
  }
  return new ReadFailed({ path, reason: error.description ?? error.message })
}
