/**
 * Structure without a grammar for prose and data (pure): Markdown headings (engine "headings") and
 * the keys of JSON, YAML and TOML to a fixed depth (engine "keys"), as the same `FileStructure`
 * the code engines give, so the outline, summary and block views work on them unchanged.
 *
 * - Markdown: ATX (`## Install`) and setext (a line underlined with `===` or `---`) headings,
 *   outside fenced code (```` ``` ```` / `~~~`) and a leading `---` front matter. A heading's lines
 *   run to the next heading of the same or a higher level; deeper headings nest inside it.
 * - JSON: a tolerant scanner (strings, escapes, `//` and `/* *\/` comments, trailing commas, a
 *   broken tail) over the text; keys of the top-level object and of the objects in it.
 * - YAML: `key:` lines by indentation (block scalars and comments skipped), two levels.
 * - TOML: `[table]` and `[[array]]` headers with their keys, and the keys before the first table.
 */
import type { Declaration, FileStructure, LineSpan } from "./declarations.js"
import { indentationStructure } from "./indentation.js"

/** Keys this deep are listed (1: the top level; 2: the keys inside those). */
export const KEY_DEPTH = 2

const HEADER_CHARS = 400

const fold = (text: string): string => {
  const folded = text.trim().replace(/\s+/g, " ")
  return folded.length > HEADER_CHARS ? folded.slice(0, HEADER_CHARS) : folded
}

/** The last line at or before `end` that is not blank, but not before `start`. */
const trimBlank = (lines: ReadonlyArray<string>, start: number, end: number): number => {
  let last = end
  while (last > start && (lines[last - 1] ?? "").trim() === "") last--
  return last
}

interface Draft {
  readonly kind: string
  readonly name: string | undefined
  readonly start: number
  /** Lines the header takes (a setext heading: 2). */
  readonly headerLines: number
  end: number
  /** Where the body ends when not at `end` (a JSON value's closing bracket line stays out of it). */
  bodyEnd?: number
  readonly header: string
  readonly level: number
  readonly children: Array<Draft>
}

/** Drafts to declarations: the body is what follows the header; a draft with children opens. */
const finish = (drafts: ReadonlyArray<Draft>): Array<Declaration> =>
  siblings(drafts).map((draft) => {
    const bodyStart = draft.start + draft.headerLines
    const bodyEnd = draft.bodyEnd ?? draft.end
    const body = draft.headerLines > 0 && bodyStart <= bodyEnd ? { start: bodyStart, end: bodyEnd } : undefined
    const inside = body === undefined
      ? []
      : draft.children.filter((child) => child.start >= body.start && child.end <= body.end)
    return {
      kind: draft.kind,
      name: draft.name,
      span: { start: draft.start, end: draft.end },
      headerLine: draft.start,
      header: draft.header,
      body,
      container: inside.length > 0,
      children: finish(inside)
    }
  })

/** Siblings whose lines never overlap: a key on the line another ended on (minified JSON) is left out. */
const siblings = (drafts: ReadonlyArray<Draft>): Array<Draft> => {
  const out: Array<Draft> = []
  for (const draft of drafts) {
    if (out.length === 0 || draft.start > out[out.length - 1]!.end) out.push(draft)
  }
  return out
}

// ---------------------------------------------------------------------------------------------
// Markdown

const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/
const FENCE = /^ {0,3}(`{3,}|~{3,})/
/** HTML blocks that run to their closing tag whatever lines they hold (CommonMark's kinds 1 and 2). */
const HTML_BLOCK = /^ {0,3}(?:<(pre|script|style|textarea)(?:[\s>]|$)|<!--)/i
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/

/** Markdown headings as declarations (engine "headings"). */
export const headingsStructure = (lines: ReadonlyArray<string>): FileStructure => {
  const headings: Array<
    { readonly line: number; readonly level: number; readonly text: string; readonly size: number }
  > = []
  let fence: string | undefined
  /** The text that ends the HTML block we are in (`</pre>`, `-->`). */
  let html: string | undefined
  let start = 0
  if (lines[0]?.trim() === "---") {
    // Front matter: up to the next `---` (or `...`), when there is one.
    const close = lines.findIndex((line, i) => i > 0 && (line.trim() === "---" || line.trim() === "..."))
    if (close > 0) start = close + 1
  }
  for (let i = start; i < lines.length; i++) {
    const line = lines[i]!
    const fenceMatch = FENCE.exec(line)
    if (fence !== undefined) {
      if (fenceMatch !== null && fenceMatch[1]![0] === fence[0] && fenceMatch[1]!.length >= fence.length) {
        if (line.trim() === fenceMatch[1]) fence = undefined
      }
      continue
    }
    if (html !== undefined) {
      if (line.toLowerCase().includes(html)) html = undefined
      continue
    }
    // A backtick fence's info string holds no backtick: "```code``` text" is inline code.
    if (fenceMatch !== null && !(fenceMatch[1]![0] === "`" && line.slice(fenceMatch[0].length).includes("`"))) {
      fence = fenceMatch[1]
      continue
    }
    const block = HTML_BLOCK.exec(line)
    if (block !== null) {
      const close = block[1] === undefined ? "-->" : `</${block[1].toLowerCase()}>`
      // The closing text may be on the opening line itself (`<!-- note -->`).
      if (!line.toLowerCase().includes(close, block[0].length)) html = close
      continue
    }
    const atx = ATX.exec(line)
    if (atx !== null) {
      headings.push({ line: i + 1, level: atx[1]!.length, text: (atx[2] ?? "").trim(), size: 1 })
      continue
    }
    const next = lines[i + 1]
    if (
      next !== undefined && line.trim() !== "" && SETEXT.test(next) && !/^ {0,3}(?:[-*+>]|\d+[.)])\s/.test(line) &&
      !/^ {4}/.test(line)
    ) {
      headings.push({ line: i + 1, level: next.trim()[0] === "=" ? 1 : 2, text: line.trim(), size: 2 })
      i++
    }
  }
  const roots: Array<Draft> = []
  const stack: Array<Draft> = []
  for (const [k, heading] of headings.entries()) {
    // Its lines run to the next heading of the same or a higher level.
    let end = lines.length
    for (let j = k + 1; j < headings.length; j++) {
      if (headings[j]!.level <= heading.level) {
        end = headings[j]!.line - 1
        break
      }
    }
    const draft: Draft = {
      kind: "heading",
      name: `${"#".repeat(heading.level)} ${heading.text}`.trimEnd(),
      start: heading.line,
      headerLines: heading.size,
      end: trimBlank(lines, heading.line + heading.size - 1, end),
      header: fold(heading.size === 2 ? heading.text : lines[heading.line - 1]!),
      level: heading.level,
      children: []
    }
    while (stack.length > 0 && stack[stack.length - 1]!.level >= heading.level) stack.pop()
    const parent = stack[stack.length - 1]
    if (parent === undefined) roots.push(draft)
    else parent.children.push(draft)
    stack.push(draft)
  }
  return {
    engine: "headings",
    language: "markdown",
    lines: lines.length,
    declarations: finish(roots),
    comments: [],
    errorLines: 0
  }
}

// ---------------------------------------------------------------------------------------------
// JSON

/** A tolerant JSON scanner: keys of objects to `KEY_DEPTH`, with the lines their values take. */
const jsonKeys = (lines: ReadonlyArray<string>): Array<Draft> => {
  const text = lines.join("\n")
  let at = 0
  let line = 1
  const advance = (to: number) => {
    for (let k = at; k < to && k < text.length; k++) if (text.charCodeAt(k) === 10) line++
    at = Math.min(to, text.length)
  }
  const skipSpace = () => {
    for (;;) {
      const c = text[at]
      if (c === " " || c === "\t" || c === "\r" || c === "\n" || c === ",") advance(at + 1)
      else if (c === "/" && text[at + 1] === "/") {
        const end = text.indexOf("\n", at)
        advance(end === -1 ? text.length : end)
      } else if (c === "/" && text[at + 1] === "*") {
        const end = text.indexOf("*/", at + 2)
        advance(end === -1 ? text.length : end + 2)
      } else return
    }
  }
  /** Past a string that starts at `at`; its text. */
  const readString = (): string => {
    const quote = text[at]!
    let k = at + 1
    while (k < text.length && text[k] !== quote && text[k] !== "\n") k += text[k] === "\\" ? 2 : 1
    const value = text.slice(at + 1, Math.min(k, text.length))
    advance(k + 1)
    return value
  }
  /** Past a value of any depth, without recording anything (iterative: deep nesting is fine). */
  const skipValue = () => {
    let depth = 0
    do {
      skipSpace()
      const c = text[at]
      if (c === undefined) return
      if (c === "\"" || c === "'") readString()
      else if (c === "{" || c === "[") {
        depth++
        advance(at + 1)
      } else if (c === "}" || c === "]") {
        if (depth === 0) return
        depth--
        advance(at + 1)
      } else if (c === ":") advance(at + 1)
      else {
        const match = /^[^\s,:{}[\]"']+/.exec(text.slice(at, at + 256))
        advance(at + (match === null ? 1 : match[0].length))
      }
    } while (depth > 0)
  }
  const header = (from: number) => fold(lines[from - 1] ?? "")
  /** The members of the object or array at `at` (its opener), as drafts at `level`. */
  const members = (level: number): Array<Draft> => {
    const opener = text[at]
    advance(at + 1)
    const out: Array<Draft> = []
    let index = 0
    for (;;) {
      skipSpace()
      const c = text[at]
      if (c === undefined) return out
      if ((opener === "{" && c === "}") || (opener === "[" && c === "]")) {
        advance(at + 1)
        return out
      }
      if (c === "}" || c === "]") {
        // A closer of the other kind: broken input; leave this level.
        return out
      }
      const start = line
      let name: string
      if (opener === "{") {
        name = c === "\"" || c === "'" ? readString() : (/^[^\s:,{}[\]]+/.exec(text.slice(at, at + 256))?.[0] ?? "")
        if (c !== "\"" && c !== "'") advance(at + Math.max(1, name.length))
        skipSpace()
        if (text[at] === ":") advance(at + 1)
        skipSpace()
      } else name = `[${index}]`
      index++
      const value = text[at]
      const nested = value === "{" || value === "["
      if (opener === "[" && !nested) {
        skipValue()
        continue
      }
      const children = nested && level < KEY_DEPTH ? members(level + 1) : (skipValue(), [])
      // The closing bracket's line, when it starts with it, closes the body rather than ending it.
      const closed = nested && /^\s*[}\]]/.test(lines[line - 1] ?? "")
      out.push({
        kind: opener === "{" ? "key" : "item",
        name,
        start,
        headerLines: nested && line > start ? 1 : 0,
        end: line,
        ...(closed ? { bodyEnd: line - 1 } : {}),
        header: header(start),
        level,
        children
      })
    }
  }
  skipSpace()
  const top = text[at]
  if (top !== "{" && top !== "[") return []
  return members(1)
}

// ---------------------------------------------------------------------------------------------
// YAML

const YAML_KEY = /^(\s*)(?:-\s+)?("(?:[^"\\]|\\.)*"|'[^']*'|[^\s#'"{[\]},&*!|>%@`-][^#]*?|-[^\s#][^#]*?)\s*:(?:\s|$)/

const yamlKeys = (lines: ReadonlyArray<string>): Array<Draft> => {
  const indentOf = (text: string) => /^\s*/.exec(text)![0].replace(/\t/g, "    ").length
  const significant = (text: string) => text.trim() !== "" && !text.trim().startsWith("#")
  const keys: Array<{ readonly line: number; readonly indent: number; readonly name: string }> = []
  let scalar: number | undefined
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i]!
    if (!significant(text)) continue
    const indent = indentOf(text)
    if (scalar !== undefined) {
      if (indent > scalar) continue
      scalar = undefined
    }
    if (/^(?:---|\.\.\.)(?:\s|$)/.test(text)) continue
    const match = YAML_KEY.exec(text)
    if (match === null) continue
    // `- key:` puts the key two columns in.
    const keyIndent = text.indexOf(match[2]!, match[1]!.length)
    keys.push({ line: i + 1, indent: keyIndent, name: match[2]!.replace(/^["']|["']$/g, "") })
    // A block scalar (`key: |`) holds text, not keys.
    if (/:\s*[|>][-+0-9]*\s*(?:#.*)?$/.test(text)) scalar = indent
  }
  /** The last line of the key at `k`: before the next line at its indent or less (blank lines trimmed). */
  const endOf = (k: number): number => {
    const key = keys[k]!
    let end = lines.length
    for (let i = key.line; i < lines.length; i++) {
      const text = lines[i]!
      if (!significant(text)) continue
      const indent = indentOf(text)
      const item = /^\s*-\s/.test(text) && indent === key.indent - 2
      if (indent < key.indent || (indent === key.indent && !/^\s*-\s/.test(text)) || item) {
        end = i
        break
      }
    }
    return trimBlank(lines, key.line, end)
  }
  const build = (from: number, to: number, level: number): Array<Draft> => {
    const out: Array<Draft> = []
    let base: number | undefined
    for (let k = from; k < to; k++) {
      const key = keys[k]!
      base ??= key.indent
      if (key.indent !== base) continue
      let next = k + 1
      while (next < to && keys[next]!.indent > key.indent) next++
      out.push({
        kind: "key",
        name: key.name,
        start: key.line,
        headerLines: 1,
        end: endOf(k),
        header: fold(lines[key.line - 1]!),
        level,
        children: level < KEY_DEPTH ? build(k + 1, next, level + 1) : []
      })
      k = next - 1
    }
    return out
  }
  return build(0, keys.length, 1)
}

// ---------------------------------------------------------------------------------------------
// TOML

const TOML_TABLE = /^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$/
const TOML_KEY = /^\s*("(?:[^"\\]|\\.)*"|'[^']*'|[\w.-]+(?:\s*\.\s*[\w-]+)*)\s*=/

/** The last line of a TOML value that starts on `line` (0-based): multi-line arrays, tables and strings. */
const tomlValueEnd = (lines: ReadonlyArray<string>, line: number): number => {
  const first = lines[line]!
  const value = first.slice(first.indexOf("=") + 1)
  const triple = /("""|''')/.exec(value)
  if (triple !== null && value.indexOf(triple[1]!, triple.index + 3) === -1) {
    for (let i = line + 1; i < lines.length; i++) if (lines[i]!.includes(triple[1]!)) return i
    return lines.length - 1
  }
  let depth = 0
  for (let i = line; i < lines.length; i++) {
    const text = i === line ? value : lines[i]!
    let quote: string | undefined
    for (let k = 0; k < text.length; k++) {
      const c = text[k]!
      if (quote !== undefined) {
        if (c === "\\" && quote === "\"") k++
        else if (c === quote) quote = undefined
      } else if (c === "\"" || c === "'") quote = c
      else if (c === "#") break
      else if (c === "[" || c === "{") depth++
      else if (c === "]" || c === "}") depth--
    }
    if (depth <= 0) return i
  }
  return lines.length - 1
}

const tomlKeys = (lines: ReadonlyArray<string>): Array<Draft> => {
  const out: Array<Draft> = []
  let table: Draft | undefined
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i]!
    const header = TOML_TABLE.exec(text)
    if (header !== null && !TOML_KEY.test(text)) {
      table = {
        kind: header[1] === "[[" ? "array of tables" : "table",
        name: header[2]!,
        start: i + 1,
        headerLines: 1,
        end: i + 1,
        header: fold(text),
        level: 1,
        children: []
      }
      out.push(table)
      continue
    }
    const key = TOML_KEY.exec(text)
    if (key === null) {
      if (table !== undefined && text.trim() !== "") table.end = i + 1
      continue
    }
    const end = tomlValueEnd(lines, i)
    const draft: Draft = {
      kind: "key",
      name: key[1]!.replace(/^["']|["']$/g, ""),
      start: i + 1,
      headerLines: 1,
      end: end + 1,
      header: fold(text),
      level: table === undefined ? 1 : 2,
      children: []
    }
    if (table === undefined) out.push(draft)
    else {
      table.children.push(draft)
      table.end = end + 1
    }
    i = end
  }
  return out
}

/** Keys a summary never hides: a key with keys inside opens, a key with a value has no body. */
const finishKeys = (drafts: ReadonlyArray<Draft>): Array<Declaration> =>
  siblings(drafts).map((draft) => {
    // Keys past a line that ended this one (broken indentation) are not its children.
    const inside = draft.children.filter((child) => child.start > draft.start && child.end <= draft.end)
    return {
      kind: draft.kind,
      name: draft.name,
      span: { start: draft.start, end: draft.end },
      headerLine: draft.start,
      header: draft.header,
      body: inside.length > 0 ? { start: draft.start + 1, end: draft.end } : undefined,
      container: inside.length > 0,
      children: finishKeys(inside)
    }
  })

/** Keys of a JSON, YAML or TOML file to `KEY_DEPTH` (engine "keys"). */
export const keysStructure = (lines: ReadonlyArray<string>, language: "json" | "yaml" | "toml"): FileStructure => ({
  engine: "keys",
  language,
  lines: lines.length,
  // YAML and TOML have no closing token to anchor a fold: their keys are listed, never hidden.
  declarations: language === "json"
    ? finish(jsonKeys(lines))
    : finishKeys(language === "yaml" ? yamlKeys(lines) : tomlKeys(lines)),
  comments: [],
  errorLines: 0
})

/**
 * The structure of a file without a grammar: headings for Markdown, keys for JSON, YAML and TOML,
 * the indentation engine for everything else (code in any language, or unknown text).
 */
export const plainStructure = (lines: ReadonlyArray<string>, language: string | undefined): FileStructure =>
  language === "markdown"
    ? headingsStructure(lines)
    : language === "json" || language === "yaml" || language === "toml"
    ? keysStructure(lines, language)
    : indentationStructure(lines, language)

export type { LineSpan }
