/**
 * The structure views of a text (outline, summary, block) and the syntactic widening of a
 * range, rendered in the file layout: the text is read a page at a time through the source's
 * pager (files, archive members, web pages alike), up to the views' caps, then handed to the
 * engine and to the pure views of `core/structureViews.ts`.
 */
import * as Effect from "effect/Effect"
import type { PageLimitsShape } from "../../Limits.js"
import { StructureDefaults } from "../../Limits.js"
import { InvalidParams, OffsetOutOfRange } from "../../ReadError.js"
import type { ReadResult } from "../../ReadResult.js"
import type { FileStructure } from "../core/declarations.js"
import { plainStructure } from "../core/headings.js"
import { header, PREVIEW_LINES } from "../core/render.js"
import {
  blockAt,
  commentAt,
  describeDeclaration,
  numberedLine,
  outline,
  statementAt,
  summary,
  syntaxContext,
  type ViewResult
} from "../core/structureViews.js"
import { structureOf } from "../structure/engine.js"

/** The most lines and bytes a structure view reads: a larger text is read by offset/limit or its tail. */
export const MAX_STRUCTURE_LINES = 20_000
export const MAX_STRUCTURE_BYTES = 2 * 1024 * 1024

/**
 * The structure of the lines: the best engine by the path (`structureOf`); a text whose name
 * tells nothing is read as the source made it (`hint`: Markdown or JSON).
 */
const structureOfLines = (path: string, lines: ReadonlyArray<string>, hint: string | undefined) =>
  Effect.map(
    // Each line ends with its terminator: joined without the last one, a last blank line is lost.
    structureOf(path, lines.length === 0 ? "" : `${lines.join("\n")}\n`),
    (structure) => structure.language === undefined && hint !== undefined ? plainStructure(lines, hint) : structure
  )
import { type PageAt, SCAN_BYTES, SCAN_LINES, type ViewSource } from "./pages.js"

/** What a source made of a text with no telling name: web pages and documents are Markdown or JSON. */
const hintOf = (source: { readonly kind: string; readonly metadata: object }): string | undefined => {
  if (source.kind !== "web" && source.kind !== "document") return undefined
  const mime = String((source.metadata as { readonly mime?: unknown }).mime ?? "")
  return /json/.test(mime) ? "json" : /text\/plain/.test(mime) ? undefined : "markdown"
}

export type StructureView = "outline" | "summary" | "block"

/** The text's lines, a page at a time, while within the caps; `undefined` past them. */
export const collectLines = <E, R>(pageAt: PageAt<E, R>) =>
  Effect.gen(function*() {
    const lines: Array<string> = []
    for (;;) {
      // Whole lines: the engines must see the text as it is, not lines cut for display (a string
      // past 2,000 characters cut off its closing quote, and the block around it ended early).
      const page = yield* pageAt({
        offset: lines.length + 1,
        limit: SCAN_LINES,
        column: 1,
        maxBytes: SCAN_BYTES,
        maxLineLength: MAX_STRUCTURE_BYTES
      })
      for (const line of page.lines) lines.push(line)
      // The bytes read, not the lines' lengths: a page's lines are cut at 2,000 characters, so a
      // 3 MB one-line bundle summed to 2 KB and was outlined from its first 2,000 characters.
      if (lines.length > MAX_STRUCTURE_LINES || page.position > MAX_STRUCTURE_BYTES) return undefined
      if (page.stoppedBy === "eof" || page.lines.length === 0) return lines
    }
  })

const overCap = `over the structure views' cap (${MAX_STRUCTURE_LINES.toLocaleString("en-US")} lines or ${
  MAX_STRUCTURE_BYTES / 1024 / 1024
} MiB)`

/** Where a summary row or a numbered line starts: its first line number. */
const rowStart = (row: string): number => Number(/^(\d+)/.exec(row)?.[1] ?? 0)

const metadataOf = (structure: FileStructure, view: string, counts?: ViewResult["counts"]) => ({
  structure: {
    view,
    engine: structure.engine,
    language: structure.language,
    lines: structure.lines,
    declarations: counts?.declarations ?? 0,
    spans: counts?.spans ?? 0,
    elidedLines: counts?.elidedLines ?? 0,
    ...(view === "outline" && counts?.levels !== undefined
      ? { levels: counts.levels, depth: counts.depth ?? counts.levels, folded: counts.folded ?? 0 }
      : {})
  }
})

/**
 * The block of a line: the declaration around it (`levels` climbs further out) or, outside any,
 * the statement that holds it; a block longer than a page is shown as its own summary.
 */
const blockView = (
  structure: FileStructure,
  lines: ReadonlyArray<string>,
  path: string,
  line: number,
  levels: number,
  budget: number,
  caps: PageLimitsShape
) => {
  const block = blockAt(structure, line, levels)
  const statement = block === undefined ? statementAt(lines, line, structure.language) : undefined
  const comment = block === undefined && statement === undefined
    ? commentAt(lines, line, structure.language)
    : undefined
  const span = block?.span ?? statement ?? comment
  if (span === undefined) {
    return {
      lead: `(Line ${line} is blank, between statements: no block holds it. Read around it with offset=${
        Math.max(1, line - 10)
      } limit=20.)`,
      rows: [] as ReadonlyArray<string>,
      footer: undefined,
      span: undefined,
      summarised: undefined
    }
  }
  const what = block !== undefined
    ? describeDeclaration(block.declaration)
    : statement !== undefined
    ? "statement"
    : "comment"
  const rows = lines.slice(span.start - 1, span.end).map((text, i) =>
    numberedLine(span.start + i, text, caps.lineLength)
  )
  const bytes = rows.reduce((sum, row) => sum + Buffer.byteLength(row) + 1, 0)
  const outer = block !== undefined && blockAt(structure, line, levels + 1)?.declaration !== block.declaration
  const more = outer ? ` levels=${levels + 1} shows the declaration around it.` : ""
  if (rows.length <= caps.lines && bytes <= budget) {
    return {
      lead: `(Block: ${what}, lines ${span.start}-${span.end} of ${lines.length}.)`,
      rows,
      footer: `(End of block: lines ${span.start}-${span.end} of ${lines.length}.${more})`,
      span,
      summarised: undefined
    }
  }
  // Longer than a page: the block's own summary, its members' bodies hidden.
  const inner: FileStructure = {
    ...structure,
    declarations: block?.declaration.children ?? [],
    comments: structure.comments.filter((comment) => span.start <= comment.start && comment.end <= span.end)
  }
  const shown = summary(inner, lines, { path, maxBytes: budget, page: caps })
  return {
    lead:
      `(Block: ${what}, lines ${span.start}-${span.end} of ${lines.length}; longer than a page, so this is its ${shown.view}.)`,
    rows: shown.view === "summary"
      ? shown.rows.filter((row) => rowStart(row) >= span.start && rowStart(row) <= span.end)
      : shown.rows,
    footer: shown.footer,
    span,
    summarised: shown
  }
}

/** An outline, a summary or a block of the text, in the file layout. */
export const presentStructure = <E, R>(
  options: ViewSource<E, R>,
  view: StructureView,
  budget: number,
  caps: PageLimitsShape
): Effect.Effect<ReadResult, E | InvalidParams | OffsetOutOfRange, R> =>
  Effect.gen(function*() {
    const { params, path, selection } = options
    const anchor = selection.ranges[0]?.start ?? params.offset
    if (view === "block" && (anchor === undefined || anchor < 1)) {
      return yield* new InvalidParams({
        reason: `view "block" shows the declaration around a line: give that line as offset (or use ${path}:N:block)`
      })
    }
    return yield* structureResult(options, view, budget, caps, yield* collectLines(options.pageAt), undefined)
  })

/**
 * The outline in place of a first page a page would cut (the host's `StructureDefaults`);
 * `undefined` when the text is over the views' caps, so the page is shown after all.
 */
export const outlineInstead = <E, R>(options: ViewSource<E, R>, budget: number, caps: PageLimitsShape) =>
  Effect.gen(function*() {
    const lines = yield* collectLines(options.pageAt)
    if (lines === undefined) return undefined
    return yield* structureResult(
      { ...options, params: {} },
      "outline",
      budget,
      caps,
      lines,
      "it is longer than a page, so this is its outline instead of its first lines"
    )
  })

const structureResult = <E, R>(
  options: ViewSource<E, R>,
  view: StructureView,
  budget: number,
  caps: PageLimitsShape,
  lines: ReadonlyArray<string> | undefined,
  because: string | undefined
): Effect.Effect<ReadResult, InvalidParams | OffsetOutOfRange> =>
  Effect.gen(function*() {
    const { params, path, selection } = options
    const anchor = selection.ranges[0]?.start ?? params.offset
    const lead = options.note === undefined ? [] : [options.note]
    const result = (output: ReadonlyArray<string>, metadata: Record<string, unknown>, shown: ReadonlyArray<string>) => {
      const value: ReadResult = {
        title: options.title,
        output: [...lead, header(path, "file"), ...output, "</content>"].join("\n"),
        metadata: {
          kind: options.kind,
          path,
          preview: shown.slice(0, PREVIEW_LINES).join("\n"),
          truncated: false,
          ...metadata,
          ...options.metadata
        } as ReadResult["metadata"]
      }
      return value
    }
    if (lines === undefined) {
      return result(
        [
          `(The ${view} view is for texts up to ${MAX_STRUCTURE_LINES.toLocaleString("en-US")} lines and ${
            MAX_STRUCTURE_BYTES / 1024 / 1024
          } MiB; this one is ${
            overCap.replace("over the structure views' cap ", "larger ")
          }. Read it by offset/limit, or its end with offset=-200.)`
        ],
        { truncated: true },
        []
      )
    }
    const structure = yield* structureOfLines(path, lines, hintOf(options))
    const { outlineRows } = yield* StructureDefaults
    if (view === "block") {
      if (anchor! > lines.length && !(lines.length === 0 && anchor === 1)) {
        return yield* new OffsetOutOfRange({ path, offset: anchor!, totalLines: lines.length, unit: "lines" })
      }
      const block = blockView(structure, lines, path, anchor!, params.levels ?? 1, budget, caps)
      const shown = block.span === undefined ? [] : lines.slice(block.span.start - 1, block.span.end)
      return result(
        [block.lead, ...block.rows, ...(block.footer === undefined ? [] : ["", block.footer])],
        {
          ...(block.span === undefined || block.summarised !== undefined
            ? {}
            : { startLine: block.span.start, endLine: block.span.end }),
          totalLines: lines.length,
          ...metadataOf(structure, block.summarised?.view ?? "block", block.summarised?.counts),
          // A block shown as its summary goes on with its lines, read a page at a time.
          ...(block.summarised === undefined || block.span === undefined ? {} : {
            truncated: true,
            next: {
              filePath: path,
              offset: block.span.start,
              limit: block.span.end - block.span.start + 1,
              ...(params.encoding === undefined ? {} : { encoding: params.encoding })
            }
          })
        },
        shown
      )
    }
    const range = view === "outline" ? selection.ranges[0] : undefined
    const shown = view === "outline"
      ? outline(structure, lines, {
        path,
        offset: params.offset,
        limit: params.limit,
        maxBytes: budget,
        because,
        page: caps,
        levels: params.levels,
        rows: outlineRows,
        range: range === undefined ? undefined : { start: range.start, end: range.end ?? range.start }
      })
      : summary(structure, lines, {
        path,
        maxBytes: budget,
        offset: params.offset,
        limit: params.limit,
        page: caps,
        levels: params.levels,
        outlineRows
      })
    const rowsOf = shown.counts.shownRows ?? shown.counts.declarations
    if (shown.pastEnd) {
      return yield* new InvalidParams({
        reason:
          `offset ${params.offset} is past the last row of the outline (${rowsOf}); an outline's offset and limit count its rows (declarations of the levels shown)`
      })
    }
    const last = (params.offset ?? 1) - 1 + shown.rows.length
    const more = shown.view === "outline" && last < rowsOf
    return result(
      [...(shown.header === undefined ? [] : [shown.header]), ...shown.rows, "", shown.footer],
      {
        totalLines: lines.length,
        truncated: more || (shown.view === "outline" && (shown.counts.folded ?? 0) > 0),
        ...(more ? { nextOffset: last + 1 } : {}),
        ...metadataOf(structure, shown.view, shown.counts)
      },
      shown.rows
    )
  })

/**
 * `context: "syntax"`: each range widened to the statements or declarations it cuts (at most
 * 20 lines each side), with the sentences that say which lines were added.
 */
export const widenBySyntax = <E, R>(
  options: ViewSource<E, R>,
  ranges: ReadonlyArray<{ readonly start: number; readonly end: number | undefined }>,
  limit: number
) =>
  Effect.gen(function*() {
    const lines = yield* collectLines(options.pageAt)
    if (lines === undefined) {
      return { ranges, notices: [`(No lines added as context: the text is ${overCap}.)`] }
    }
    const structure = yield* structureOfLines(options.path, lines, hintOf(options))
    const widened: Array<{ readonly start: number; readonly end: number }> = []
    const notices: Array<string> = []
    for (const range of ranges) {
      const end = Math.min(lines.length, range.end ?? range.start + limit - 1)
      if (range.start > lines.length) {
        widened.push({ start: range.start, end: range.end ?? range.start })
        continue
      }
      const context = syntaxContext(structure, lines, range.start, end)
      widened.push({ start: context.from, end: context.to })
      notices.push(context.footer)
    }
    return { ranges: widened, notices }
  })
