/**
 * The structure views as pure functions over a `FileStructure` and the file's lines: the outline
 * (one row per declaration), the summary (the file with bodies elided, keeping the `N: text`
 * contract), the block around a line, and a range widened to whole statements. Every engine gets
 * the same rows, footers and caps; the caller renders them and puts the counts in metadata.
 *
 * A summary row is either a kept line, `N: text` exactly as a page shows it, or a folded span,
 * `A-B: text`, whose range names every line it hides, so the rows cover lines 1..N once each.
 */
import type { Declaration, FileStructure, LineSpan } from "./declarations.js"
import { statementsOf } from "./indentation.js"
import type { Statement } from "./indentation.js"
import { cappedAt, cutLine, DEFAULT_PAGE, lineCutSuffix, MAX_LINE_LENGTH, type PageCaps } from "./lines.js"

/** An outline row shows this much of a declaration's header. */
export const OUTLINE_HEADER_CHARS = 160
/** A body shorter than this stays in a summary: hiding it would save little and cost a read. */
export const MIN_BODY_LINES = 4
/** A comment this long or longer folds to its first sentence in a summary. */
export const MIN_FOLDED_COMMENT_LINES = 4
/** Syntax context adds at most this many lines on each side of a range. */
export const MAX_CONTEXT_LINES = 20

export interface ViewCounts {
  readonly engine: FileStructure["engine"]
  readonly language: string | undefined
  /** Lines in the file. */
  readonly lines: number
  /** Declarations in the structure (all depths). */
  readonly declarations: number
  /** Folded spans in a summary (0 for an outline). */
  readonly spans: number
  /** Lines a summary hides (0 for an outline). */
  readonly elidedLines: number
  /** An outline: the levels shown, the levels its declarations nest to, and the declarations folded away. */
  readonly levels?: number | undefined
  readonly depth?: number | undefined
  readonly folded?: number | undefined
  /** An outline: the rows of the levels shown (what `offset`/`limit` count). */
  readonly shownRows?: number | undefined
}

export interface ViewResult {
  /** What was produced: a summary over a page becomes an outline. */
  readonly view: "outline" | "summary"
  /** The line that leads the rows, when the view has one. */
  readonly header: string | undefined
  readonly rows: ReadonlyArray<string>
  readonly footer: string
  readonly counts: ViewCounts
  /** An outline page asked to start past the last declaration (the caller says so as it does for files). */
  readonly pastEnd: boolean
}

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`

const rangeOf = (span: LineSpan): string => span.start === span.end ? `${span.start}` : `${span.start}-${span.end}`

const encoder = new TextEncoder()
const byteLength = (text: string): number => {
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) > 0x7f) return encoder.encode(text).length
  }
  return text.length
}

/** A kept line exactly as a page renders it: `N: text`, cut at `MAX_LINE_LENGTH` with the pager's notice. */
export const numberedLine = (line: number, text: string, maxLineLength: number = MAX_LINE_LENGTH): string => {
  if (text.length <= maxLineLength) return `${line}: ${text}`
  const kept = cutLine(text, maxLineLength)
  return `${line}: ${kept}${lineCutSuffix(maxLineLength, line, 1 + kept.length)}`
}

/** Text cut to `max` characters, ending in `…` when cut. */
const clip = (text: string, max: number): string => text.length <= max ? text : `${cutLine(text, max - 1)}…`

/** Declarations depth first, with their depth. */
const flatten = (
  declarations: ReadonlyArray<Declaration>,
  depth = 0,
  out: Array<readonly [Declaration, number]> = []
): Array<readonly [Declaration, number]> => {
  for (const declaration of declarations) {
    out.push([declaration, depth])
    flatten(declaration.children, depth + 1, out)
  }
  return out
}

const countOf = (structure: FileStructure, spans = 0, elidedLines = 0): ViewCounts => ({
  engine: structure.engine,
  language: structure.language,
  lines: structure.lines,
  declarations: flatten(structure.declarations).length,
  spans,
  elidedLines
})

// ---------------------------------------------------------------------------------------------
// Outline

/** A default outline aims at about this many rows: deeper levels fold when more would show. */
export const OUTLINE_ROWS = 250
/**
 * A default outline goes a level deeper while it would show fewer rows than this, so a file
 * wrapped in one namespace or module shows what the wrapper holds, not the wrapper alone.
 */
export const OUTLINE_MIN_ROWS = 10

export interface OutlineOptions {
  readonly path: string
  /** First row shown, 1-based, among the rows of the levels shown (default 1). */
  readonly offset?: number | undefined
  /** Most rows shown (default: the rows a default outline aims for, or a page's lines with `levels`). */
  readonly limit?: number | undefined
  /** Most bytes of rows (default: a page's bytes). */
  readonly maxBytes?: number | undefined
  /** The page caps in force (`PageLimits`; default 2000 lines, 2000 characters, 50 KB). */
  readonly page?: PageCaps | undefined
  /** Said in the header after the counts (why an outline was shown instead of a summary). */
  readonly because?: string | undefined
  /**
   * Depth shown: 1 the outermost declarations only, 2 with their members, … Default: the deepest
   * level whose rows fit `rows` and the page (at least one with `OUTLINE_MIN_ROWS` rows).
   */
  readonly levels?: number | undefined
  /** Only the declarations inside these lines (`PATH:A-B:outline`); depth counts from the outermost of them. */
  readonly range?: LineSpan | undefined
  /** The rows a default outline aims for (default `OUTLINE_ROWS`). */
  readonly rows?: number | undefined
}

/** One row of an outline: a declaration, its depth (0 outermost) and how many declarations nest in it. */
export interface OutlineEntry {
  readonly declaration: Declaration
  readonly depth: number
  readonly inside: number
}

/**
 * The declarations an outline covers, depth first: all of them, or those whose lines lie inside
 * `range` (one that only overlaps it is passed through, its members inside counted from depth 0).
 */
export const outlineEntries = (
  declarations: ReadonlyArray<Declaration>,
  range?: LineSpan | undefined
): Array<OutlineEntry> => {
  const out: Array<{ declaration: Declaration; depth: number; inside: number }> = []
  const visit = (level: ReadonlyArray<Declaration>, depth: number): number => {
    let count = 0
    for (const declaration of level) {
      const { span } = declaration
      if (range !== undefined && (span.end < range.start || span.start > range.end)) continue
      if (range === undefined || (range.start <= span.start && span.end <= range.end)) {
        const entry = { declaration, depth, inside: 0 }
        out.push(entry)
        entry.inside = visit(declaration.children, depth + 1)
        count += 1 + entry.inside
      } else {
        count += visit(declaration.children, depth)
      }
    }
    return count
  }
  visit(declarations, 0)
  return out
}

/** The lines that hold a declaration's members: what `PATH:A-B:outline` expands it with. */
export const membersSpan = (declaration: Declaration): LineSpan | undefined => {
  const { children } = declaration
  if (children.length === 0) return undefined
  return { start: children[0]!.span.start, end: children[children.length - 1]!.span.end }
}

/** One outline row: the declaration's lines and its header, two spaces per depth. */
export const outlineRow = (declaration: Declaration, depth: number): string =>
  `${"  ".repeat(depth)}${rangeOf(declaration.span)}: ${clip(declaration.header, OUTLINE_HEADER_CHARS)}`

/** A row that hides the declarations nested in it says how many, and the selector that shows them. */
const foldedRow = (entry: OutlineEntry): string => {
  const members = membersSpan(entry.declaration)!
  return `${
    outlineRow(entry.declaration, entry.depth)
  }  (+${entry.inside} inside: :${members.start}-${members.end}:outline)`
}

/** The row of an entry when `levels` are shown: folded when it is at the last level and holds more. */
const rowAt = (entry: OutlineEntry, levels: number): string =>
  entry.depth === levels - 1 && entry.inside > 0 ? foldedRow(entry) : outlineRow(entry.declaration, entry.depth)

/**
 * The levels a default outline shows: the deepest whose rows fit `rows` and `maxBytes` (1 when
 * even the outermost do not), then deeper while fewer than `OUTLINE_MIN_ROWS` (at most `rows`)
 * would show.
 */
export const defaultLevels = (entries: ReadonlyArray<OutlineEntry>, rows: number, maxBytes: number): number => {
  const depth = entries.reduce((deepest, entry) => Math.max(deepest, entry.depth + 1), 0)
  const counts: Array<number> = []
  const bytes: Array<number> = []
  for (let levels = 1; levels <= depth; levels++) {
    let count = 0
    let size = 0
    for (const entry of entries) {
      if (entry.depth >= levels) continue
      count++
      size += byteLength(rowAt(entry, levels)) + 1
    }
    counts[levels] = count
    bytes[levels] = size
  }
  let levels = 1
  while (levels < depth && counts[levels + 1]! <= rows && bytes[levels + 1]! <= maxBytes) levels++
  while (levels < depth && counts[levels]! < Math.min(OUTLINE_MIN_ROWS, rows)) levels++
  return levels
}

export const outline = (
  structure: FileStructure,
  _lines: ReadonlyArray<string>,
  options: OutlineOptions
): ViewResult => {
  const entries = outlineEntries(structure.declarations, options.range)
  const depth = entries.reduce((deepest, entry) => Math.max(deepest, entry.depth + 1), 0)
  const page = options.page ?? DEFAULT_PAGE
  const maxBytes = options.maxBytes ?? page.bytes
  const aim = Math.max(1, Math.min(options.rows ?? OUTLINE_ROWS, page.lines))
  const levels = options.levels ?? defaultLevels(entries, aim, maxBytes)
  const shown = levels >= depth ? entries : entries.filter((entry) => entry.depth < levels)
  const folded = levels < depth
  const hidden = entries.length - shown.length
  const offset = Math.max(1, options.offset ?? 1)
  const limit = Math.max(1, options.limit ?? (options.levels === undefined ? aim : page.lines))
  const because = options.because === undefined ? "" : `; ${options.because}`
  const where = options.range === undefined
    ? options.path
    : `${options.path}, lines ${rangeOf(options.range)}`
  const levelsShown = levels === 1 ? `level 1 of ${depth}` : `levels 1-${levels} of ${depth}`
  const foldNote = folded
    ? ` Showing ${levelsShown}: a row ending (+N inside: :A-B:outline) hides N deeper declarations, which that selector after the path shows; levels=${
      levels + 1
    } shows one level more.`
    : ""
  const header = entries.length === 0
    ? `(Outline of ${where}: no declarations found in ${
      options.range === undefined ? plural(structure.lines, "line") : "them"
    }${because}. Read it with offset/limit.)`
    : `(Outline of ${where}: ${plural(entries.length, "declaration")} in ${
      options.range === undefined ? plural(structure.lines, "line") : "them"
    }${because}. Read one with offset/limit or ${options.path}:A-B.${foldNote})`
  const rows: Array<string> = []
  let bytes = 0
  let stoppedBy: "limit" | "bytes" | "end" = "end"
  for (let i = offset - 1; i < shown.length; i++) {
    if (rows.length >= limit) {
      stoppedBy = "limit"
      break
    }
    const row = rowAt(shown[i]!, levels)
    const size = byteLength(row) + 1
    if (rows.length > 0 && bytes + size > maxBytes) {
      stoppedBy = "bytes"
      break
    }
    rows.push(row)
    bytes += size
  }
  const last = offset - 1 + rows.length
  const depthNote = folded ? `, ${levelsShown}` : ""
  const span = `Showing declarations ${offset}-${last} of ${shown.length}${depthNote}. Use offset=${
    last + 1
  } to continue.`
  const footer = stoppedBy === "bytes"
    ? `(${cappedAt(page.bytes)}. ${span})`
    : stoppedBy === "limit"
    ? `(${span})`
    : folded
    ? `(End of outline - ${shown.length} of ${plural(entries.length, "declaration")}, ${levelsShown}; ${
      plural(hidden, "deeper one")
    } folded into the rows marked +N inside. levels=${levels + 1} shows one level more.)`
    : `(End of outline - total ${plural(entries.length, "declaration")})`
  return {
    view: "outline",
    header,
    rows,
    footer,
    counts: {
      ...countOf(structure),
      declarations: entries.length,
      levels: Math.min(levels, depth),
      depth,
      folded: hidden,
      shownRows: shown.length
    },
    pastEnd: shown.length > 0 && offset > shown.length
  }
}

// ---------------------------------------------------------------------------------------------
// Summary

export interface SummaryOptions {
  readonly path: string
  /** Most rows before the summary becomes an outline (default: a page's lines). */
  readonly maxRows?: number | undefined
  /** Most bytes of rows before the summary becomes an outline (default: a page's bytes). */
  readonly maxBytes?: number | undefined
  /** The page caps in force (`PageLimits`; default 2000 lines, 2000 characters, 50 KB). */
  readonly page?: PageCaps | undefined
  /**
   * When the summary becomes an outline: the declaration it starts at and how many it shows, so
   * that its footer's `offset=N` pages it (a summary that fits a page has nothing to page).
   */
  readonly offset?: number | undefined
  readonly limit?: number | undefined
  /** When the summary becomes an outline: its levels and the rows it aims for (as `OutlineOptions`). */
  readonly levels?: number | undefined
  readonly outlineRows?: number | undefined
}

/** A folded span: one row for lines `from`..`to`. */
interface Fold {
  readonly from: number
  readonly to: number
  readonly text: string
  /** Lines whose text the row does not show. */
  readonly hidden: number
}

/** A closing line with nothing but the closer: `}`, `};`, `})`, `]`, `end`, `fi`. */
const CLOSER_ONLY = /^(?:[)\]}]+[;,)\]}]*|end[;.]?|fi|done|esac|endif;?|endforeach;?|endwhile;?|endfor;?)$/

const bodyFold = (declaration: Declaration, body: LineSpan, lines: ReadonlyArray<string>, lineLength: number): Fold => {
  const opener = body.start - 1
  const closer = body.end + 1
  const openerText = clip((lines[opener - 1] ?? "").trimEnd(), lineLength)
  const closerText = closer <= declaration.span.end ? (lines[closer - 1] ?? "").trim() : undefined
  const hidden = body.end - body.start + 1
  return closerText !== undefined && CLOSER_ONLY.test(closerText)
    ? { from: opener, to: closer, text: `${openerText} … ${closerText}`, hidden }
    : { from: opener, to: body.end, text: `${openerText} …`, hidden }
}

/** The comment's markers, as it opens and closes. */
const commentMarkers = (first: string, last: string): { readonly open: string; readonly close: string } => {
  const open = /^\s*(\/\*\*|\/\*|\/\/\/|\/\/!|\/\/|#+|"""|'''|--|;+)/.exec(first)?.[1] ?? ""
  const close = open.startsWith("/*")
    ? "*/"
    : open === "\"\"\"" || open === "'''"
    ? (last.trimEnd().endsWith(open) ? open : "")
    : ""
  return { open, close }
}

/** The first sentence of a comment's text, markers stripped. */
export const firstSentence = (text: ReadonlyArray<string>): string => {
  const words: Array<string> = []
  const stripped = text.map((raw) =>
    raw
      .replace(/^\s*(?:\/\*\*?|\*\/|\*(?!\/)|\/\/[/!]?|#+!?|"""|'''|--|;+)/, "")
      .replace(/\s*(?:\*\/|"""|''')\s*$/, "")
      .trim()
  )
  for (const line of stripped) {
    if (line === "" || line.startsWith("@")) {
      if (words.length > 0) break
      continue
    }
    words.push(line)
    const joined = words.join(" ")
    const stop = /[.!?](?=\s|$)/.exec(joined)
    if (stop !== null) return clip(joined.slice(0, stop.index + 1), OUTLINE_HEADER_CHARS)
  }
  // Only tags (`@since 3.4.0`): the first of them says what the comment is.
  return clip(words.length > 0 ? words.join(" ") : stripped.find((line) => line !== "") ?? "", OUTLINE_HEADER_CHARS)
}

const commentFold = (span: LineSpan, lines: ReadonlyArray<string>): Fold => {
  const text = lines.slice(span.start - 1, span.end)
  const first = text[0] ?? ""
  const indent = /^\s*/.exec(first)![0]
  const { close, open } = commentMarkers(first, text[text.length - 1] ?? "")
  const sentence = firstSentence(text)
  // `/** Sentence. … */`, `# Sentence. …`, `"""Sentence. … """`, as such comments are written.
  const space = open === "" || sentence === "" || open.endsWith(open[0]!.repeat(3)) && /["']/.test(open) ? "" : " "
  const head = `${indent}${open}${space}${sentence}`
  const tail = close === "" ? "" : ` ${close}`
  return { from: span.start, to: span.end, text: `${head} …${tail}`, hidden: span.end - span.start + 1 }
}

/** A top-level statement that imports, by language (`import(…)` in JavaScript is a call, not one). */
const IMPORT_LINE: Readonly<Record<string, RegExp>> = {
  typescript: /^import\b(?!\s*[(.])/,
  tsx: /^import\b(?!\s*[(.])/,
  javascript: /^import\b(?!\s*[(.])/,
  python: /^(?:import|from)\s/,
  go: /^import\b/,
  rust: /^(?:pub(?:\([^)]*\))?\s+)?use\s/
}

/** Lines scanned past the last import line (a multi-line import is shorter). */
const IMPORT_SLACK = 200

/**
 * Runs of imports: top-level import statements with only blank lines (and the comments above
 * them) between, as the indentation engine cuts statements. A run keeps its first and last lines
 * and hides the ones between as `A-B: …` when they are at least `MIN_BODY_LINES`, as a body
 * is hidden, so the reader sees where the imports are without reading each one (a Go
 * `import ( … )` block is a run of its own).
 */
const importFolds = (structure: FileStructure, lines: ReadonlyArray<string>): Array<Fold> => {
  const pattern = structure.language === undefined ? undefined : IMPORT_LINE[structure.language]
  if (pattern === undefined) return []
  let lastImport = lines.length - 1
  while (lastImport >= 0 && !pattern.test(lines[lastImport]!)) lastImport--
  if (lastImport < 0) return []
  // Statements past the last import line are not looked at: cut there, with room for its own lines.
  const scanned = lines.length <= lastImport + IMPORT_SLACK ? lines : lines.slice(0, lastImport + IMPORT_SLACK)
  const folds: Array<Fold> = []
  let run: { readonly start: number; end: number } | undefined
  const close = () => {
    // 0-based lines; the fold hides the lines strictly between the run's first and last.
    if (run !== undefined && run.end - run.start - 1 >= MIN_BODY_LINES) {
      folds.push({ from: run.start + 2, to: run.end, text: "…", hidden: run.end - run.start - 1 })
    }
    run = undefined
  }
  for (const statement of statementsOf(scanned, structure.language)) {
    if (!pattern.test(lines[statement.start]!)) {
      close()
      continue
    }
    if (run !== undefined && lines.slice(run.end + 1, statement.attached).every((line) => line.trim() === "")) {
      run.end = statement.end
    } else {
      close()
      run = { start: statement.start, end: statement.end }
    }
  }
  close()
  return folds
}

/** What a summary folds: bodies of declarations (containers open), then long comments outside them, then import runs. */
const foldsOf = (structure: FileStructure, lines: ReadonlyArray<string>, lineLength: number): Array<Fold> => {
  const folds: Array<Fold> = []
  const visit = (declaration: Declaration) => {
    const body = declaration.body
    if (declaration.container) {
      declaration.children.forEach(visit)
      return
    }
    if (body !== undefined && body.end - body.start + 1 >= MIN_BODY_LINES && body.start > 1) {
      folds.push(bodyFold(declaration, body, lines, lineLength))
    }
  }
  structure.declarations.forEach(visit)
  folds.sort((a, b) => a.from - b.from)
  const bodies = folds.slice()
  const overlaps = (span: LineSpan) => bodies.some((fold) => fold.from <= span.end && span.start <= fold.to)
  let lastEnd = 0
  for (const comment of [...structure.comments].sort((a, b) => a.start - b.start)) {
    if (comment.end - comment.start + 1 < MIN_FOLDED_COMMENT_LINES) continue
    if (comment.start <= lastEnd || comment.end > lines.length || overlaps(comment)) continue
    folds.push(commentFold(comment, lines))
    lastEnd = comment.end
  }
  folds.push(...importFolds(structure, lines))
  // Rows must partition the file: drop any fold that would overlap one kept before it.
  folds.sort((a, b) => a.from - b.from || b.to - a.to)
  const kept: Array<Fold> = []
  for (const fold of folds) {
    if (fold.from < 1 || fold.to > lines.length || fold.to < fold.from) continue
    if (kept.length > 0 && fold.from <= kept[kept.length - 1]!.to) continue
    kept.push(fold)
  }
  return kept
}

/** The ranges a footer names: the three largest folds, in file order. */
const namedRanges = (folds: ReadonlyArray<Fold>): Array<string> =>
  [...folds]
    .sort((a, b) => b.hidden - a.hidden || a.from - b.from)
    .slice(0, 3)
    .sort((a, b) => a.from - b.from)
    .map((fold) => `${fold.from}-${fold.to}`)

export const summary = (
  structure: FileStructure,
  lines: ReadonlyArray<string>,
  options: SummaryOptions
): ViewResult => {
  const page = options.page ?? DEFAULT_PAGE
  const folds = foldsOf(structure, lines, page.lineLength)
  const maxRows = options.maxRows ?? page.lines
  const maxBytes = options.maxBytes ?? page.bytes
  const rows: Array<string> = []
  let bytes = 0
  let next = 0
  for (let line = 1; line <= lines.length; line++) {
    const fold = folds[next]
    const row = fold !== undefined && fold.from === line
      ? `${fold.from}-${fold.to}: ${fold.text}`
      : numberedLine(line, lines[line - 1]!, page.lineLength)
    if (fold !== undefined && fold.from === line) {
      line = fold.to
      next++
    }
    rows.push(row)
    bytes += byteLength(row) + 1
  }
  if (rows.length > maxRows || bytes > maxBytes) {
    return outline(structure, lines, {
      path: options.path,
      offset: options.offset,
      // A page of `maxRows` rows when the caller set one; else the outline's own page.
      limit: options.limit ?? options.maxRows,
      levels: options.levels,
      rows: Math.min(options.outlineRows ?? OUTLINE_ROWS, maxRows),
      maxBytes,
      page,
      because: `its summary (${plural(rows.length, "row")}, ${
        Math.ceil(bytes / 1024)
      } KB) is longer than a page, so this is the outline`
    })
  }
  const elided = folds.reduce((sum, fold) => sum + fold.hidden, 0)
  const footer = folds.length === 0
    ? `(Summary: nothing to elide; all ${plural(lines.length, "line")} shown.)`
    : `(Summary: ${elided} of ${plural(lines.length, "line")} elided in ${
      plural(folds.length, "span")
    }. Elided spans are hidden, not empty: read them with offset/limit or ${options.path}:${
      namedRanges(folds).join(",")
    }.)`
  return {
    view: "summary",
    header: undefined,
    rows,
    footer,
    counts: countOf(structure, folds.length, elided),
    pastEnd: false
  }
}

// ---------------------------------------------------------------------------------------------
// Block

export interface Block {
  readonly declaration: Declaration
  /** Its lines, attached comments, decorators and attributes included. */
  readonly span: LineSpan
  /** `(Block: method run, lines 14-23 of 200.)` */
  readonly header: string
}

/** What a declaration is called in a sentence: `method run`, `class Foo`, `block`. */
export const describeDeclaration = (declaration: Declaration): string =>
  declaration.name === undefined ? declaration.kind : `${declaration.kind} ${declaration.name}`

/**
 * The declaration around `line`: the innermost one whose lines hold it, or the one `levels - 1`
 * further out (`levels` 1 is the innermost; past the outermost it stays there). Undefined when
 * the line is in no declaration.
 */
export const blockAt = (structure: FileStructure, line: number, levels = 1): Block | undefined => {
  const path: Array<Declaration> = []
  let level = structure.declarations
  for (;;) {
    const found = level.find((d) => d.span.start <= line && line <= d.span.end)
    if (found === undefined) break
    path.push(found)
    level = found.children
  }
  if (path.length === 0) return undefined
  const declaration = path[Math.max(0, path.length - Math.max(1, levels))]!
  return {
    declaration,
    span: declaration.span,
    header: `(Block: ${
      describeDeclaration(declaration)
    }, lines ${declaration.span.start}-${declaration.span.end} of ${structure.lines}.)`
  }
}

const spanOfStatement = (statement: Statement): LineSpan => ({ start: statement.attached + 1, end: statement.end + 1 })

/**
 * The top-level statement that holds `line` (with the comments directly above it), by the
 * indentation engine's rules: the fallback of a block read when the line is in no declaration.
 * Undefined on a blank line between statements.
 */
export const statementAt = (lines: ReadonlyArray<string>, line: number, language?: string): LineSpan | undefined => {
  const found = statementsOf(lines, language).find((statement) =>
    statement.attached + 1 <= line && line <= statement.end + 1
  )
  return found === undefined ? undefined : spanOfStatement(found)
}

/**
 * The comment lines around `line` that no top-level statement holds (a licence header, a note
 * with a blank line below it): what a block read shows there instead of calling the line blank.
 * Undefined on a blank line or a line a statement holds.
 */
export const commentAt = (lines: ReadonlyArray<string>, line: number, language?: string): LineSpan | undefined => {
  if ((lines[line - 1] ?? "").trim() === "") return undefined
  let start = 1
  let end = lines.length
  for (const statement of statementsOf(lines, language)) {
    const span = spanOfStatement(statement)
    if (span.start <= line && line <= span.end) return undefined
    if (span.end < line) start = span.end + 1
    else {
      end = span.start - 1
      break
    }
  }
  // The run of lines that are not blank, between the statements before and after it.
  let from = line
  while (from > start && lines[from - 2]!.trim() !== "") from--
  let to = line
  while (to < end && lines[to]!.trim() !== "") to++
  return { start: from, end: to }
}

// ---------------------------------------------------------------------------------------------
// Syntax context

export interface SyntaxContext {
  /** The widened range. */
  readonly from: number
  readonly to: number
  /** Lines added before and after the range asked for. */
  readonly before: LineSpan | undefined
  readonly after: LineSpan | undefined
  /** The sentence that says which lines were added and why. */
  readonly footer: string
}

interface Unit {
  readonly span: LineSpan
  readonly what: string
}

const unitsOf = (structure: FileStructure, lines: ReadonlyArray<string>): Array<Unit> => {
  const units: Array<Unit> = flatten(structure.declarations).map(([declaration]) => ({
    span: declaration.span,
    what: describeDeclaration(declaration)
  }))
  const visit = (statements: ReadonlyArray<Statement>) => {
    for (const statement of statements) {
      if (statement.end > statement.attached) units.push({ span: spanOfStatement(statement), what: "statement" })
      visit(statement.children)
    }
  }
  if (structure.engine === "syntax" || structure.engine === "indentation") {
    visit(statementsOf(lines, structure.language))
  }
  return units
}

/**
 * The range `from`..`to` widened to whole statements: back to the start of the outermost
 * declaration or statement around `from` that starts at most 20 lines above, and on to the end
 * of the outermost one around `to` that ends at most 20 lines below; with the footer that says so.
 */
export const syntaxContext = (
  structure: FileStructure,
  lines: ReadonlyArray<string>,
  from: number,
  to: number
): SyntaxContext => {
  const units = unitsOf(structure, lines)
  let start: Unit | undefined
  let end: Unit | undefined
  let far: Unit | undefined
  for (const unit of units) {
    const { span } = unit
    if (span.start < from && from <= span.end) {
      if (from - span.start <= MAX_CONTEXT_LINES) {
        if (start === undefined || span.start < start.span.start) start = unit
      } else far ??= unit
    }
    if (span.start <= to && to < span.end) {
      if (span.end - to <= MAX_CONTEXT_LINES) {
        if (end === undefined || span.end > end.span.end) end = unit
      } else far ??= unit
    }
  }
  const before = start === undefined ? undefined : { start: start.span.start, end: from - 1 }
  const after = end === undefined ? undefined : { start: to + 1, end: end.span.end }
  const reasons = start !== undefined && end !== undefined && start.what === end.what
    ? `the start and end of the enclosing ${start.what}`
    : [
      ...(start === undefined ? [] : [`the start of the enclosing ${start.what}`]),
      ...(end === undefined ? [] : [`the end of the enclosing ${end.what}`])
    ].join(" and ")
  const added = [before, after].filter((span) => span !== undefined)
  const word = added.length === 1 && added[0]!.start === added[0]!.end ? "Line" : "Lines"
  const footer = added.length > 0
    ? `(${word} ${added.map(rangeOf).join(" and ")} added as context: ${reasons}.)`
    : far !== undefined
    ? `(No lines added as context: the enclosing ${far.what} (lines ${far.span.start}-${far.span.end}) reaches more than ${MAX_CONTEXT_LINES} lines past lines ${from}-${to}.)`
    : `(No lines added as context: lines ${rangeOf({ start: from, end: to })} already hold whole statements.)`
  return { from: before?.start ?? from, to: after?.end ?? to, before, after, footer }
}
