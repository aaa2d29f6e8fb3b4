/**
 * Diagnostics on read (opt-in: the `diagnostics` parameter, or `DiagnosticsOnRead.severity` for
 * every read): after a text file's page, what its language server finds wrong in it — errors, and
 * warnings when asked — with their line numbers, capped in count and bytes. The read waits for
 * them at most `DiagnosticsOnRead.wait`, and says so when the server did not answer in time;
 * files no server knows (or a layer without diagnostics: `Lsp.layerNoop`) get nothing.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { type Diagnostic, Lsp } from "../../Lsp.js"
import type { ReadResult } from "../../ReadResult.js"

/** Lives in `Limits` with the other tunables (`Limits.layer({ diagnostics: { severity: "errors" } })`). */
import { DiagnosticsOnRead } from "../../Limits.js"
export { DiagnosticsOnRead, type DiagnosticsOnReadShape } from "../../Limits.js"

const rank = { error: 0, warning: 1, information: 2, hint: 3 } as const

const lineOf = (diagnostic: Diagnostic): string => {
  const origin = [diagnostic.source, diagnostic.code].filter((part) => part !== undefined).join(" ")
  // One line each: a multi-line message (TypeScript's chains) is joined.
  const message = diagnostic.message.split(/\r?\n/).map((line) => line.trim()).filter((line) => line.length > 0).join(
    " "
  )
  return `${diagnostic.line}:${diagnostic.column}: ${diagnostic.severity}${
    origin === "" ? "" : ` (${origin})`
  }: ${message}`
}

/** The diagnostics block for `found` (errors, and warnings when asked), capped; pure. */
export const renderDiagnostics = (
  found: ReadonlyArray<Diagnostic>,
  severity: "errors" | "warnings",
  limits: { readonly maxCount: number; readonly maxBytes: number }
) => {
  const wanted = found
    .filter((diagnostic) =>
      diagnostic.severity === "error" || (severity === "warnings" && diagnostic.severity === "warning")
    )
    .sort((a, b) => rank[a.severity] - rank[b.severity] || a.line - b.line || a.column - b.column)
  const errors = wanted.filter((diagnostic) => diagnostic.severity === "error").length
  const warnings = wanted.length - errors
  const counted = severity === "errors"
    ? `${errors} ${errors === 1 ? "error" : "errors"}`
    : `${errors} ${errors === 1 ? "error" : "errors"}, ${warnings} ${warnings === 1 ? "warning" : "warnings"}`
  const lines: Array<string> = []
  let bytes = 0
  for (const diagnostic of wanted) {
    if (lines.length === limits.maxCount) break
    let line = lineOf(diagnostic)
    const room = limits.maxBytes - bytes
    if (Buffer.byteLength(line) + 1 > room) {
      if (room < 80) break
      line = `${line.slice(0, room - 20)}… (cut)`
    }
    bytes += Buffer.byteLength(line) + 1
    lines.push(line)
  }
  const more = wanted.length - lines.length
  const head = wanted.length === 0
    ? `(Diagnostics from the language server: no ${severity === "errors" ? "errors" : "errors or warnings"}.)`
    : `(Diagnostics from the language server: ${counted}${
      more > 0 ? `; the first ${lines.length} shown` : ""
    }. Line:column, as numbered above.)`
  return { text: [head, ...lines].join("\n"), errors, warnings, shown: lines.length }
}

/**
 * `result` with its file's diagnostics after the page, when asked for (`severity`) and the file
 * is text a language server knows; never later than `DiagnosticsOnRead.wait`.
 */
export const appendDiagnostics = (severity: "errors" | "warnings" | undefined, result: ReadResult) =>
  Effect.gen(function*() {
    const settings = yield* DiagnosticsOnRead
    const wanted = severity ?? settings.severity
    // A text file's (a web page is kind "web"): the language server knows files, not URLs.
    if (wanted === undefined || result.metadata.kind !== "text") return result
    const lsp = yield* Lsp
    if (lsp.diagnostics === undefined) {
      // Asked for by the model, with no language server to ask: said, so that silence is not "no errors".
      if (severity === undefined) return result
      const note = "(Diagnostics: no language server runs for this session, so none can be shown.)"
      const none: ReadResult = { ...result, output: `${result.output}\n\n${note}` }
      return none
    }
    const found = yield* lsp.diagnostics(result.metadata.path, { timeout: settings.wait })
    if (found._tag === "Unknown") return result
    if (found._tag === "Unavailable") {
      // Asked for by the model: told why there are none. The host's default for every read stays quiet.
      if (severity === undefined) return result
      const unavailable: ReadResult = {
        ...result,
        output:
          `${result.output}\n\n(Diagnostics: the language server for this file is not available: ${found.reason}.)`
      }
      return unavailable
    }
    if (found._tag === "TimedOut") {
      // Said, so that silence is not read as "no errors".
      const note = `(Diagnostics: the language server did not answer within ${
        Duration.format(Duration.decode(settings.wait))
      }.)`
      const late: ReadResult = {
        ...result,
        output: `${result.output}\n\n${note}`,
        metadata: { ...result.metadata, diagnostics: { errors: 0, warnings: 0, shown: 0, timedOut: true } }
      }
      return late
    }
    const block = renderDiagnostics(found.diagnostics, wanted, settings)
    const appended: ReadResult = {
      ...result,
      output: `${result.output}\n\n${block.text}`,
      metadata: {
        ...result.metadata,
        diagnostics: { errors: block.errors, warnings: block.warnings, shown: block.shown }
      }
    }
    return appended
  })
