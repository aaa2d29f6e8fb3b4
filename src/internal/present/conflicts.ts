/**
 * The `conflicts` view of a text: its unresolved merge-conflict regions, paged over regions.
 */
import * as Effect from "effect/Effect"
import type { PageLimitsShape } from "../../Limits.js"
import { InvalidParams } from "../../ReadError.js"
import type { ReadResult } from "../../ReadResult.js"
import { ConflictScanner, describeRegion } from "../core/conflicts.js"
import { cappedAt } from "../core/lines.js"
import { header, PREVIEW_LINES } from "../core/render.js"
import { eachLine, type PresentOptions } from "./pages.js"

/**
 * The `conflicts` view: each unresolved merge-conflict region under a heading that says its lines,
 * its sides' labels and whether it is well formed, then its numbered lines; a footer counts them.
 * Regions nested in another are shown within it and get their own heading. Paged over regions as
 * an outline is over declarations: `offset` and `limit` count regions, a page holds whole
 * regions up to the byte cap, and the footer says where to continue.
 */
export const presentConflicts = <E, R>(options: PresentOptions<E, R>, budget: number, caps: PageLimitsShape) =>
  Effect.gen(function*() {
    const { params, path } = options
    const scanner = new ConflictScanner()
    const totalLines = yield* eachLine(options.pageAt, (number, line) => scanner.push(number, line))
    const regions = scanner.end()
    const offset = Math.max(1, params.offset ?? 1)
    const limit = Math.max(1, params.limit ?? caps.lines)
    if (regions.length > 0 && offset > regions.length) {
      return yield* new InvalidParams({
        reason:
          `offset ${offset} is past the last conflict region (${regions.length}); the conflicts view's offset and limit count regions`
      })
    }
    const body: Array<string> = []
    const shownLines: Array<string> = []
    const spans: Array<{ readonly start: number; readonly end: number }> = []
    let remaining = budget
    let shownRegions = 0
    let linesCut = 0
    let stoppedBy: "end" | "limit" | "bytes" = "end"
    /** A region too long for a page by itself: the last of its lines shown. */
    let cutAfter: number | undefined
    /** The last line shown: a region nested in one already shown has its lines there. */
    let shownTo = 0
    for (let i = offset - 1; i < regions.length; i++) {
      if (shownRegions >= limit) {
        stoppedBy = "limit"
        break
      }
      const region = regions[i]!
      const heading = `Conflict ${i + 1} of ${regions.length}: ${describeRegion(region)}`
      const headingBytes = Buffer.byteLength(heading) + 1 + (shownRegions > 0 ? 1 : 0)
      if (remaining - headingBytes <= 0 && shownRegions > 0) {
        stoppedBy = "bytes"
        break
      }
      const mark = body.length
      if (shownRegions > 0) body.push("")
      body.push(heading)
      remaining -= headingBytes
      if (region.start <= shownTo) {
        shownRegions++
        continue
      }
      const size = region.end - region.start + 1
      const page = yield* options.pageAt({
        offset: region.start,
        limit: size,
        column: 1,
        maxBytes: Math.max(1, remaining),
        maxLineLength: caps.lineLength
      })
      if (page.lines.length < size && shownRegions > 0) {
        // Not whole on this page: the next page starts with it.
        body.length = mark
        stoppedBy = "bytes"
        break
      }
      body.push(...page.rendered)
      shownLines.push(...page.lines)
      linesCut += page.linesCut
      remaining -= page.rendered.reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0)
      shownRegions++
      if (page.lines.length > 0) {
        spans.push({ start: page.offset, end: page.offset + page.lines.length - 1 })
        shownTo = page.offset + page.lines.length - 1
      }
      if (page.lines.length < size) {
        stoppedBy = "bytes"
        cutAfter = region.start + page.lines.length - 1
        break
      }
    }
    const last = offset - 1 + shownRegions
    const malformed = regions.filter((region) => region.malformed !== undefined).length
    const listed = regions.filter((region) => region.depth === 0).slice(0, 6).map((region) =>
      `${region.start}-${region.end}`
    )
    const more = regions.filter((region) => region.depth === 0).length > listed.length ? ", …" : ""
    const cut = cutAfter === undefined
      ? ""
      : `; conflict ${last} is longer than a page: read the rest of it with ${path}:${cutAfter + 1}-${
        regions[last - 1]!.end
      }`
    const span = `Showing conflict regions ${offset}-${last} of ${regions.length}${cut}.${
      last < regions.length ? ` Use offset=${last + 1} to continue.` : ""
    }`
    const footer = regions.length === 0
      ? `(No unresolved merge conflicts: no <<<<<<< marker at the start of any of the ${totalLines} lines.)`
      : stoppedBy === "bytes"
      ? `(${cappedAt(caps.bytes)}. ${span})`
      : stoppedBy === "limit"
      ? `(${span})`
      : `(${regions.length} unresolved merge-conflict region${
        regions.length === 1 ? "" : "s"
      } in ${totalLines} lines, at lines ${listed.join(", ")}${more}${
        malformed === 0 ? "" : `; ${malformed} malformed`
      }.)`
    const output = [
      ...(options.note === undefined ? [] : [options.note]),
      header(path, "file"),
      ...body,
      ...(body.length === 0 ? [] : [""]),
      footer,
      "</content>"
    ].join("\n")
    const result: ReadResult = {
      title: options.title,
      output,
      metadata: {
        kind: options.kind,
        path,
        preview: shownLines.slice(0, PREVIEW_LINES).join("\n"),
        truncated: stoppedBy !== "end" || linesCut > 0,
        ...(last < regions.length ? { nextOffset: last + 1 } : {}),
        ...(spans.length > 0
          ? { startLine: spans[0]!.start, endLine: spans[spans.length - 1]!.end, ranges: spans }
          : {}),
        totalLines,
        ...(linesCut > 0 ? { linesCut } : {}),
        conflicts: { regions: regions.length, malformed },
        ...options.metadata
      }
    }
    return result
  })
