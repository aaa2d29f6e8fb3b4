/**
 * The indentation engine (pure): a file's structure from its indentation and brackets, for any
 * language, with no grammar. Codex's rules for indentation (a blank line inherits the indent of
 * the line before it; a tab counts 4) plus bracket matching of `()[]{}` that skips strings and
 * comments, so `"{"` or `// }` never open or close anything.
 *
 * A statement is a line and what continues it: the lines up to the match of a bracket it leaves
 * open, the deeper-indented lines after it, and a closing word at its own indent (`end`, `fi`,
 * `done`, `esac`). A statement of several lines whose last line closes a bracket opened in its
 * header (or is such a closing word, or whose header ends with `:`) has a body: the lines strictly
 * between. Keyword rules name the declarations; containers (class, interface, impl, namespace,
 * trait, module, struct, enum) open to their members. Comments, decorators and attributes directly
 * above a declaration (no blank line between) belong to it.
 *
 * It is a heuristic: a regular expression holding an unbalanced bracket, a heredoc, or code whose
 * indentation lies can mislead it. The syntax engine, when present, is the precise one.
 */
import type { Declaration, FileStructure, LineSpan } from "./declarations.js"

/** A tab counts this many columns, as in Codex. */
export const TAB_WIDTH = 4
/** Header text kept per declaration (the views cut it shorter). */
const HEADER_CHARS = 400
/** Multi-line comments this long or longer are listed for folding. */
export const MIN_COMMENT_LINES = 4

/** How a language writes comments and strings: what the lexer must skip. */
interface Lexicon {
  /** `//` line comments and `/* … *\/` block comments. */
  readonly slash: boolean
  /** `#` line comments: anywhere, only after whitespace, or never. */
  readonly hash: "always" | "spaced" | "never"
  /** A `#` line (preprocessor) carries no brackets (C, C++, C#). */
  readonly preprocessor: boolean
  /** Backticks: JS template literals (`${}` nests), Go raw strings (span lines), or single-line. */
  readonly backtick: "template" | "raw" | "line"
  /** Python's `"""` / `'''` strings, which span lines. */
  readonly triple: boolean
  /** `'` opens a string (JS, Python, …), a char literal only (C, Rust: `'a` is a lifetime), or prose. */
  readonly apostrophe: "string" | "char" | "prose"
  /** JS regular expression literals. */
  readonly regex: boolean
  /** `@decorator` lines attach to the declaration below (not Ruby: `@x` is a variable there). */
  readonly decorators: boolean
}

const C_LIKE: Lexicon = {
  slash: true,
  hash: "never",
  preprocessor: false,
  backtick: "line",
  triple: false,
  apostrophe: "char",
  regex: false,
  decorators: true
}
const JS: Lexicon = { ...C_LIKE, backtick: "template", apostrophe: "string", regex: true }
const HASHED: Lexicon = {
  slash: false,
  hash: "always",
  preprocessor: false,
  backtick: "line",
  triple: false,
  apostrophe: "string",
  regex: false,
  decorators: false
}

const LEXICONS: Record<string, Lexicon> = {
  typescript: JS,
  tsx: JS,
  javascript: JS,
  jsx: JS,
  python: { ...HASHED, triple: true, decorators: true },
  ruby: HASHED,
  bash: { ...HASHED, hash: "spaced" },
  php: { ...C_LIKE, hash: "always", apostrophe: "string" },
  go: { ...C_LIKE, backtick: "raw" },
  rust: C_LIKE,
  java: C_LIKE,
  c: { ...C_LIKE, preprocessor: true, decorators: false },
  cpp: { ...C_LIKE, preprocessor: true, decorators: false },
  csharp: { ...C_LIKE, preprocessor: true },
  kotlin: C_LIKE,
  scala: C_LIKE,
  swift: C_LIKE,
  dart: { ...C_LIKE, apostrophe: "string" },
  css: { ...C_LIKE, slash: true },
  yaml: HASHED,
  toml: HASHED,
  perl: { ...HASHED, hash: "spaced" },
  r: HASHED,
  makefile: HASHED
}

/** Unknown text: comments only where they are unmistakable, apostrophes as prose. */
const UNKNOWN: Lexicon = {
  slash: true,
  hash: "spaced",
  preprocessor: false,
  backtick: "line",
  triple: false,
  apostrophe: "prose",
  regex: false,
  decorators: false
}

const EXTENSIONS: Record<string, string> = {
  ts: "typescript",
  mts: "typescript",
  cts: "typescript",
  tsx: "tsx",
  js: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  jsx: "javascript",
  py: "python",
  pyi: "python",
  rb: "ruby",
  rake: "ruby",
  gemspec: "ruby",
  sh: "bash",
  bash: "bash",
  zsh: "bash",
  php: "php",
  go: "go",
  rs: "rust",
  java: "java",
  c: "c",
  h: "c",
  cc: "cpp",
  cpp: "cpp",
  cxx: "cpp",
  hpp: "cpp",
  hh: "cpp",
  hxx: "cpp",
  cs: "csharp",
  kt: "kotlin",
  kts: "kotlin",
  scala: "scala",
  swift: "swift",
  dart: "dart",
  css: "css",
  scss: "css",
  less: "css",
  md: "markdown",
  markdown: "markdown",
  mdx: "markdown",
  json: "json",
  jsonc: "json",
  json5: "json",
  yaml: "yaml",
  yml: "yaml",
  toml: "toml",
  pl: "perl",
  pm: "perl",
  r: "r"
}

/** The language a path is read as, from its extension or name; undefined when unknown. */
export const languageOfPath = (path: string): string | undefined => {
  const name = path.slice(Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\")) + 1).toLowerCase()
  if (name === "makefile" || name === "gnumakefile") return "makefile"
  if (name === "gemfile" || name === "rakefile") return "ruby"
  const dot = name.lastIndexOf(".")
  return dot <= 0 ? undefined : EXTENSIONS[name.slice(dot + 1)]
}

/** The language a shebang line names (`#!/usr/bin/env python3`), if any. */
export const languageOfShebang = (firstLine: string): string | undefined => {
  const match = /^#!\s*\S*?(?:\/env\s+(?:-\S+\s+)*)?\/?([\w.-]+)/.exec(firstLine)
  const program = match?.[1]?.replace(/[\d.]+$/, "")
  if (program === undefined) return undefined
  if (program === "python") return "python"
  if (program === "node" || program === "deno" || program === "bun") return "javascript"
  if (program === "ruby") return "ruby"
  if (program === "bash" || program === "sh" || program === "zsh" || program === "dash") return "bash"
  if (program === "perl") return "perl"
  if (program === "php") return "php"
  return undefined
}

// ---------------------------------------------------------------------------------------------
// Lexing: each line's code with strings and comments blanked out

type LineKind = "blank" | "code" | "comment" | "string"

interface Lexed {
  readonly kinds: Array<LineKind>
  /** The line with string contents and comments replaced by spaces (quotes kept). */
  readonly masked: Array<string>
  /** Effective indent: a blank line inherits the indent of the line before it. */
  readonly indents: Array<number>
  /** Docstrings (a statement that is only a `"""` string) of several lines, 1-based. */
  readonly docstrings: Array<LineSpan>
  /** The line ends inside a string, template or comment that goes on to the next line. */
  readonly open: Array<boolean>
}

type Frame =
  | { readonly kind: "code"; depth: number }
  | { readonly kind: "template" }
  | { readonly kind: "block" }
  | { readonly kind: "triple"; readonly quote: string; readonly start: number; readonly docstring: boolean }
  | { readonly kind: "raw" }

const indentOf = (line: string): number => {
  let width = 0
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i)
    if (c === 32) width++
    else if (c === 9) width += TAB_WIDTH
    else break
  }
  return width
}

const isSpace = (c: string | undefined) => c === " " || c === "\t" || c === "\r" || c === "\f" || c === "\v"
const isWord = (c: string | undefined) => c !== undefined && /[\w$]/.test(c)

/** Characters after which a `/` starts a regular expression rather than a division. */
const REGEX_AFTER = new Set([
  "(",
  ",",
  "=",
  ":",
  "[",
  "!",
  "&",
  "|",
  "?",
  "{",
  "}",
  ";",
  "+",
  "-",
  "*",
  "%",
  "<",
  ">",
  "~",
  "^"
])

/** Words after which a `/` starts a regular expression (`return /x/`). */
const REGEX_AFTER_WORD = new Set(["return", "typeof", "case", "do", "else", "in", "of", "yield", "await", "void"])

/** The identifier that ends just before `i`, whitespace between skipped ("" when none). */
const wordBefore = (line: string, i: number): string => {
  let end = i
  while (end > 0 && /\s/.test(line[end - 1]!)) end--
  let start = end
  while (start > 0 && isWord(line[start - 1])) start--
  return line.slice(start, end)
}

/** Characters the lexer must look at in code; every other one is plain code. */
const SPECIAL = new Uint8Array(128)
for (const c of "/#\"'`{}$ \t\r") SPECIAL[c.charCodeAt(0)] = 1

/** A line with the ranges `[from, to)` replaced by spaces. */
const maskOf = (line: string, ranges: ReadonlyArray<number>): string => {
  if (ranges.length === 0) return line
  let out = ""
  let at = 0
  for (let k = 0; k < ranges.length; k += 2) {
    const from = Math.max(ranges[k]!, at)
    const to = Math.min(ranges[k + 1]!, line.length)
    if (to <= from) continue
    out += line.slice(at, from) + " ".repeat(to - from)
    at = to
  }
  return out + line.slice(at)
}

const lex = (lines: ReadonlyArray<string>, lexicon: Lexicon): Lexed => {
  const kinds: Array<LineKind> = []
  const masked: Array<string> = []
  const indents: Array<number> = []
  const docstrings: Array<LineSpan> = []
  const open: Array<boolean> = []
  const stack: Array<Frame> = [{ kind: "code", depth: 0 }]
  let previousIndent = 0
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n]!
    const ranges: Array<number> = []
    let code = false
    let comment = false
    let string = false
    const blank = (from: number, to: number) => {
      if (to > from) ranges.push(from, to)
    }
    /**
     * The last significant code character before `i`, for the regex rule: walked back from `i`
     * over whitespace and the blanked ranges (masking the whole prefix at each `/` made a
     * minified line quadratic: 1.4 s for pdf.js's 1 MB worker).
     */
    const before = (i: number): string | undefined => {
      let range = ranges.length - 2
      for (let k = i - 1; k >= 0; k--) {
        while (range >= 0 && ranges[range]! > k) range -= 2
        if (range >= 0 && k < ranges[range + 1]!) {
          k = ranges[range]!
          continue
        }
        if (!/\s/.test(line[k]!)) return line[k]
      }
      return undefined
    }
    let i = 0
    const first = line.search(/\S/)
    if (first === -1 && stack.length === 1) {
      kinds.push("blank")
      masked.push(line)
      indents.push(previousIndent)
      open.push(false)
      continue
    }
    if (lexicon.preprocessor && stack.length === 1 && line[first] === "#") {
      // A directive: its brackets (`#define X {`) are not the code's.
      kinds.push("code")
      masked.push(maskOf(line, [first + 1, line.length]))
      previousIndent = indentOf(line)
      indents.push(previousIndent)
      open.push(false)
      continue
    }
    while (i < line.length) {
      const top = stack[stack.length - 1]!
      if (top.kind === "block") {
        const close = line.indexOf("*/", i)
        const end = close === -1 ? line.length : close + 2
        blank(i, end)
        comment = true
        i = end
        if (close !== -1) stack.pop()
        continue
      }
      if (top.kind === "triple") {
        const close = line.indexOf(top.quote, i)
        blank(i, close === -1 ? line.length : close)
        string = true
        i = close === -1 ? line.length : close + 3
        if (close !== -1) {
          stack.pop()
          if (n > top.start && top.docstring) docstrings.push({ start: top.start + 1, end: n + 1 })
        }
        continue
      }
      if (top.kind === "raw") {
        const close = line.indexOf("`", i)
        blank(i, close === -1 ? line.length : close)
        string = true
        if (close === -1) i = line.length
        else {
          stack.pop()
          i = close + 1
        }
        continue
      }
      const c = line[i]!
      if (top.kind === "template") {
        if (c === "\\") {
          blank(i, i + 2)
          i += 2
        } else if (c === "`") {
          stack.pop()
          i++
        } else if (c === "$" && line[i + 1] === "{") {
          blank(i, i + 2)
          stack.push({ kind: "code", depth: 0 })
          i += 2
        } else {
          const from = i
          while (i < line.length && line[i] !== "`" && line[i] !== "\\" && line[i] !== "$") i++
          if (i === from) i++
          blank(from, i)
          string = true
        }
        continue
      }
      // Code.
      const code0 = line.charCodeAt(i)
      if (code0 < 128 && SPECIAL[code0] === 0) {
        code = true
        i++
        continue
      }
      if (isSpace(c)) {
        i++
        continue
      }
      const next = line[i + 1]
      if (lexicon.slash && c === "/" && next === "/") {
        blank(i, line.length)
        comment = true
        break
      }
      if (lexicon.slash && c === "/" && next === "*") {
        blank(i, i + 2)
        stack.push({ kind: "block" })
        comment = true
        i += 2
        continue
      }
      if (
        c === "#" && lexicon.hash !== "never" && !(lexicon.slash && next === "[") &&
        (lexicon.hash === "always" || i === 0 || isSpace(line[i - 1]) || line[i - 1] === ";")
      ) {
        blank(i, line.length)
        comment = true
        break
      }
      if (lexicon.triple && (c === "\"" || c === "'") && line.startsWith(c.repeat(3), i)) {
        stack.push({ kind: "triple", quote: c.repeat(3), start: n, docstring: !code })
        i += 3
        code = true
        continue
      }
      if (c === "\"" || (c === "'" && (lexicon.apostrophe !== "prose" || !isWord(line[i - 1])))) {
        if (c === "'" && lexicon.apostrophe === "char" && !/^'(?:\\.[^']{0,9}|[^\\'])'/.test(line.slice(i, i + 14))) {
          // A lifetime or label (`'a`), not a char literal.
          code = true
          i++
          continue
        }
        let k = i + 1
        while (k < line.length && line[k] !== c) k += line[k] === "\\" ? 2 : 1
        blank(i + 1, Math.min(k, line.length))
        code = true
        i = k + 1
        continue
      }
      if (c === "`") {
        code = true
        if (lexicon.backtick === "template") {
          stack.push({ kind: "template" })
          i++
        } else if (lexicon.backtick === "raw") {
          stack.push({ kind: "raw" })
          i++
        } else {
          const close = line.indexOf("`", i + 1)
          blank(i + 1, close === -1 ? line.length : close)
          i = close === -1 ? line.length : close + 1
        }
        continue
      }
      if (lexicon.regex && c === "/") {
        const prev = before(i)
        const word = REGEX_AFTER_WORD.has(wordBefore(line, i))
        if (prev === undefined || REGEX_AFTER.has(prev) || word) {
          let k = i + 1
          let inClass = false
          while (k < line.length) {
            const d = line[k]!
            if (d === "\\") k += 2
            else if (d === "/" && !inClass) break
            else {
              if (d === "[") inClass = true
              else if (d === "]") inClass = false
              k++
            }
          }
          if (k < line.length) {
            blank(i + 1, k)
            code = true
            i = k + 1
            continue
          }
        }
      }
      if (top.kind === "code" && stack.length > 1) {
        // Inside a template's `${ … }`: its closing brace returns to the template.
        if (c === "{") top.depth++
        else if (c === "}") {
          if (top.depth === 0) {
            blank(i, i + 1)
            stack.pop()
            i++
            code = true
            continue
          }
          top.depth--
        }
      }
      code = true
      i++
    }
    const kind: LineKind = code ? "code" : comment ? "comment" : string ? "string" : first === -1 ? "blank" : "code"
    kinds.push(kind)
    masked.push(kind === "code" ? maskOf(line, ranges) : "")
    open.push(stack.length > 1)
    if (kind === "blank") indents.push(previousIndent)
    else {
      previousIndent = indentOf(line)
      indents.push(previousIndent)
    }
  }
  return { kinds, masked, indents, docstrings, open }
}

// ---------------------------------------------------------------------------------------------
// Brackets

const CLOSERS: Record<string, string> = { ")": "(", "]": "[", "}": "{" }

interface Brackets {
  /** Per line: the line that closes its outermost bracket left open at the end of the line, and that bracket. */
  readonly openTo: Array<number | undefined>
  readonly openChar: Array<string | undefined>
  /** Per line: when the line's code starts with a closing bracket, the line of its opener. */
  readonly closesFrom: Array<number | undefined>
}

const matchBrackets = (masked: ReadonlyArray<string>): Brackets => {
  const openTo: Array<number | undefined> = new Array(masked.length).fill(undefined)
  const openChar: Array<string | undefined> = new Array(masked.length).fill(undefined)
  const closesFrom: Array<number | undefined> = new Array(masked.length).fill(undefined)
  const stack: Array<{ readonly char: string; readonly line: number; outer: boolean }> = []
  for (let n = 0; n < masked.length; n++) {
    const line = masked[n]!
    let leading = true
    let lowest = stack.length
    for (let i = 0; i < line.length; i++) {
      const code = line.charCodeAt(i)
      if (code === 40 || code === 91 || code === 123) {
        stack.push({ char: line[i]!, line: n, outer: false })
        leading = false
      } else if (code === 41 || code === 93 || code === 125) {
        // Tolerant: a closer pops to its opener when the opener is on the stack, else it is ignored.
        const want = CLOSERS[line[i]!]
        let k = stack.length - 1
        while (k >= 0 && stack[k]!.char !== want) k--
        if (k >= 0) {
          for (let j = k; j < stack.length; j++) {
            const popped = stack[j]!
            if (popped.outer) openTo[popped.line] = n
          }
          if (leading && stack[k]!.line < n) closesFrom[n] = stack[k]!.line
          stack.length = k
          lowest = Math.min(lowest, k)
        }
        leading = false
      } else if (code !== 32 && code !== 9) leading = false
    }
    // Entries above the lowest depth the line reached were all opened on it; the first is its outermost.
    if (stack.length > lowest) {
      const outer = stack[lowest]!
      outer.outer = true
      openChar[n] = outer.char
    }
  }
  return { openTo, openChar, closesFrom }
}

// ---------------------------------------------------------------------------------------------
// Statements: a line and what continues it

/** A statement found by the scan; lines 0-based. */
export interface Statement {
  /** First attached line (comment, decorator, attribute) or `start`. */
  readonly attached: number
  readonly start: number
  readonly end: number
  /** The last header line: the line that opens the body. */
  readonly opener: number
  /** Lines strictly inside the body, 0-based inclusive; undefined when none. */
  readonly body: { readonly start: number; readonly end: number } | undefined
  readonly children: ReadonlyArray<Statement>
}

/** Words that close a block at its header's indent (Ruby, Bash, Lua, PHP alternative syntax). */
const CLOSER_WORD = /^(?:end|fi|done|esac|endif|endfor|endforeach|endwhile|endswitch|endfunction)\b/
/** Words that go on with the statement above at its own indent. */
const CONTINUATION_WORD = /^(?:else|elif|elsif|except|finally|rescue|ensure|when|catch|then|do|where)\b/

interface Scanner {
  readonly lexicon: Lexicon
  readonly lx: Lexed
  readonly br: Brackets
}

/** A line that only decorates or annotates the declaration below it. */
const isAttribute = (text: string, lexicon: Lexicon): boolean =>
  (lexicon.decorators && text.startsWith("@") && !text.startsWith("@interface")) ||
  /^#!?\[/.test(text) ||
  /^template\s*</.test(text) ||
  (lexicon === LEXICONS.csharp && /^\[.*\]$/.test(text))

const scan = (s: Scanner, from: number, to: number): Array<Statement> => {
  const { br, lexicon, lx } = s
  const out: Array<Statement> = []
  let attach: number | undefined
  let i = from
  while (i <= to) {
    const kind = lx.kinds[i]
    if (kind === "blank") {
      attach = undefined
      i++
      continue
    }
    if (kind === "comment" || kind === "string") {
      attach ??= i
      i++
      continue
    }
    const start = i
    const startIndent = lx.indents[start]!
    let end = start
    let cur = start
    for (;;) {
      // A string, template or comment left open carries the statement on.
      if (lx.open[cur] && cur < to) {
        end = Math.max(end, cur + 1)
        cur = cur + 1
        continue
      }
      const match = br.openTo[cur]
      if (match !== undefined && match > end && end < to) {
        end = Math.min(match, to)
        cur = end
        continue
      }
      let next = end + 1
      while (next <= to && lx.kinds[next] === "blank") next++
      if (next > to) break
      if (
        lx.kinds[next] === "comment" && end > start && lx.indents[next]! < lx.indents[end]! &&
        lx.indents[next]! <= startIndent &&
        br.closesFrom[end] === undefined && !CLOSER_WORD.test(lx.masked[end]!.trim())
      ) {
        // A comment dedented out of a body the code below it goes on with (commented-out code at
        // column 0) does not end the body; after a closing `}` or `end`, the statement is over.
        let code = next
        while (code <= to && (lx.kinds[code] === "blank" || lx.kinds[code] === "comment")) code++
        if (code <= to && lx.kinds[code] === "code" && lx.indents[code]! > startIndent) {
          end = cur = code
          continue
        }
      }
      const text = lx.masked[next]!.trim()
      if (lx.indents[next]! > startIndent) {
        end = cur = next
        continue
      }
      if (lx.indents[next] === startIndent && lx.kinds[next] === "code") {
        if (
          CONTINUATION_WORD.test(text) || (text.startsWith("{") && lexicon.slash) ||
          (lexicon.preprocessor && end === start && /[\w*&]$/.test(lx.masked[end]!.trimEnd()) &&
            /^[A-Za-z_][\w:~]*\s*\(/.test(text) && !/^\s*#/.test(lx.masked[end]!))
        ) {
          // (C and C++ write a function's return type on the line above its name.)
          end = cur = next
          continue
        }
        if (CLOSER_WORD.test(text) && !lexicon.slash) end = next
      }
      break
    }
    const text = lx.masked[start]!.trim()
    if (isAttribute(text, lexicon) && end < to && lx.kinds[end + 1] !== "blank") {
      // A decorator or attribute: it belongs to what follows.
      attach ??= start
      i = end + 1
      continue
    }
    out.push(statement(s, attach ?? start, start, end))
    attach = undefined
    i = end + 1
  }
  return out
}

/** Where a statement's header ends and its body lies. */
const statement = (s: Scanner, attached: number, start: number, end: number): Statement => {
  const { br, lx } = s
  // The header runs on through parameter lists and brackets that close before the end.
  let opener = start
  while (br.openTo[opener] !== undefined && br.openTo[opener]! < end && br.openChar[opener] !== "{") {
    opener = br.openTo[opener]!
  }
  let body: Statement["body"]
  const closesFrom = br.closesFrom[end]
  const closing = lx.masked[end]!.trim()
  if (end > start && br.openTo[opener] === end) {
    // The bracket the header leaves open closes on the last line (`}`, or `… 0}` after data).
    body = opener + 1 <= end - 1 ? { start: opener + 1, end: end - 1 } : undefined
  } else if (end > start && closesFrom !== undefined && closesFrom >= opener) {
    // Ends with the closer of a bracket opened in the header (or an Allman `{` line).
    if (br.openChar[opener] === undefined) opener = closesFrom
    body = opener + 1 <= end - 1 ? { start: opener + 1, end: end - 1 } : undefined
  } else if (end > start && CLOSER_WORD.test(closing) && lx.indents[end] === lx.indents[start]) {
    body = opener + 1 <= end - 1 ? { start: opener + 1, end: end - 1 } : undefined
  } else if (end > opener && lx.masked[opener]!.trimEnd().endsWith(":")) {
    // A Python (or YAML-like) header: the deeper-indented run is its body.
    body = { start: opener + 1, end }
  }
  const children = body === undefined ? [] : scan(s, body.start, body.end)
  return { attached, start, end, opener, body, children }
}

// ---------------------------------------------------------------------------------------------
// Names and kinds

const MODIFIER =
  /^(?:export|default|declare|public|private|protected|internal|static|abstract|async|final|override|readonly|virtual|sealed|partial|pub(?:\s*\([\w\s:]*\))?|unsafe|extern(?:\s+"[^"]*")?|inline|open|data|local|synchronized|native|transient|volatile|typedef|fileprivate|mutating|constexpr|const(?=\s+(?:fn|enum)\b)|new(?=\s+[\w$]+\s*\())\s+/

/** Control words that look like a call or a method header but are neither. */
const CONTROL = new Set([
  "if",
  "for",
  "while",
  "switch",
  "catch",
  "return",
  "with",
  "match",
  "foreach",
  "elif",
  "else",
  "do",
  "try",
  "until",
  "unless",
  "case",
  "when",
  "sizeof",
  "typeof",
  "new",
  "throw",
  "await",
  "yield",
  "assert",
  "print",
  "echo",
  "not",
  "and",
  "or",
  "in",
  "of",
  "super",
  "this",
  "function",
  "lock",
  "using",
  "fixed",
  "defer",
  "go",
  "select"
])

export interface Classified {
  readonly kind: string
  readonly name: string | undefined
  readonly container: boolean
  /** A declaration keyword: worth a row even on one line. */
  readonly declares: boolean
}

const FUNCTION_KINDS = new Set([
  "function",
  "method",
  "class",
  "interface",
  "struct",
  "enum",
  "trait",
  "impl",
  "module",
  "namespace",
  "macro",
  "record",
  "object",
  "union"
])

/** Kind and name of a declaration from its header line (keyword rules; "block" when none fits). */
export const classify = (header: string, inContainer: boolean, language?: string): Classified => {
  let text = header.trim()
  for (let previous = ""; previous !== text;) {
    previous = text
    text = text.replace(MODIFIER, "")
  }
  const found = (kind: string, name: string | undefined, container = false, declares = true): Classified => ({
    kind,
    name: name === undefined || name === "" ? undefined : name.trim(),
    container,
    declares
  })
  const fn = inContainer ? "method" : "function"
  let m: RegExpExecArray | null
  if ((m = /^function\b\s*\*?\s*([\w$]+)?/.exec(text))) return found("function", m[1])
  if ((m = /^class\s*<<\s*(\w+)/.exec(text))) return found("class", m[1], true)
  if ((m = /^(?:abstract\s+)?class\b\s*([\w$]+)?/.exec(text))) return found("class", m[1], true)
  if ((m = /^@?interface\s+([\w$]+)/.exec(text))) return found("interface", m[1], true)
  if ((m = /^namespace\b\s*([\w$.:\\]+)?/.exec(text))) return found("namespace", m[1], true)
  if ((m = /^module\s+([\w$.:"'/@-]+)/.exec(text))) return found("module", m[1]!.replace(/^["']|["']$/g, ""), true)
  if ((m = /^mod\s+(\w+)/.exec(text))) return found("module", m[1], true)
  if (/^global\s*\{/.test(text)) return found("namespace", "global", true)
  // `struct point {` declares a struct; `struct point origin = {` declares a variable of one.
  if (
    (m = /^(enum|struct|union)\b(?:\s+(?:class|struct)\b)?\s*([\w$]+)?\s*(.*)$/.exec(text)) &&
    !/^(?!where\b)[\w$*&]/.test(m[3]!)
  ) return found(m[1]!, m[2], true)
  if ((m = /^trait\s+([\w$]+)/.exec(text))) return found("trait", m[1], true)
  if ((m = /^impl\b\s*(?:<[^>]*>\s*)?([^{]*?)\s*(?:\{|\bwhere\b|$)/.exec(text))) return found("impl", m[1], true)
  if ((m = /^record\s+([\w$]+)/.exec(text))) return found("record", m[1], true)
  if ((m = /^object\s+([\w$]+)/.exec(text))) return found("object", m[1], true)
  if ((m = /^type\s+([\w$]+)\s+(struct|interface)\b/.exec(text))) return found(m[2]!, m[1], true)
  if ((m = /^type\s+([\w$]+)/.exec(text))) return found("type", m[1])
  if ((m = /^def\s+(?:self\.)?([\w$]+[?!=]?)/.exec(text))) return found(fn, m[1])
  if ((m = /^fn\s+([\w$]+)/.exec(text))) return found(fn, m[1])
  if ((m = /^func\s+(\([^)]*\)\s*)?([\w$]+)/.exec(text))) return found(m[1] ? "method" : "function", m[2])
  if ((m = /^macro_rules!\s*([\w$]+)/.exec(text))) return found("macro", m[1])
  if (
    (m = /^(?:const|let|var|val)\s+([\w$]+)\s*(?::[^=]*)?=\s*(?:async\s+)?(?:function\b|[\w$]+\s*=>|(?=[(<].*=>))/
      .exec(text))
  ) return found("function", m[1])
  if ((m = /^(const|let|var|val)\s+([\w$]+)?/.exec(text))) return found(m[1]!, m[2])
  if (/^(?:import|from|use|using|package|require|require_relative|include|extern\s+crate)\b/.test(text)) {
    return found("import", undefined, false, false)
  }
  if ((m = /^(?:get|set)\s+([\w$]+)\s*\(/.exec(text))) return found("method", m[1])
  if (language === "bash" && (m = /^(?:function\s+)?([\w.:-]+)\s*\(\s*\)/.exec(text))) return found("function", m[1])
  if ((m = /^function\s+([\w.:-]+)/.exec(text))) return found("function", m[1])
  m = /^((?:[\w$.<>[\],:*&?~]+\s+)*?)[*&]*([\w$~]+|\[[^\]]+\])\s*(?:<[^()=]*>)?\s*\(/.exec(text)
  if (m && !CONTROL.has(m[2]!) && !(m[1] ?? "").split(/\s+/).some((word) => CONTROL.has(word))) {
    if (inContainer) return found("method", m[2])
    if ((m[1] ?? "").trim() !== "") return found("function", m[2])
    return found("call", m[2], false, false)
  }
  if (inContainer && (m = /^([\w$]+|"[^"]*"|'[^']*'|\[[^\]]+\])\s*\??\s*[:=]/.exec(text))) {
    return found("property", m[1], false, false)
  }
  return found("block", undefined, false, false)
}

// ---------------------------------------------------------------------------------------------
// The structure

/** Whitespace runs folded to one space, cut to what a header may need. */
const foldHeader = (parts: ReadonlyArray<string>): string => {
  const text = parts.map((part) => part.trim()).filter((part) => part !== "").join(" ").replace(/\s+/g, " ")
  return text.length > HEADER_CHARS ? text.slice(0, HEADER_CHARS) : text
}

const declarationsOf = (
  lines: ReadonlyArray<string>,
  statements: ReadonlyArray<Statement>,
  where: "top" | "container" | "body",
  language: string | undefined
): Array<Declaration> =>
  statements.flatMap((st): Array<Declaration> => {
    // Inside a function's body only nested functions and types count, and they have bodies.
    if (where === "body" && st.body === undefined) return []
    // Without a body, the statement is its own header (a type union over several lines).
    const headerLines = lines.slice(st.start, (st.body === undefined ? Math.min(st.end, st.start + 8) : st.opener) + 1)
    const header = foldHeader(headerLines)
    // A statement that is only a string (a docstring) is no declaration.
    if (/^[rbuf]*["'`]/i.test(lines[st.start]!.trim()) && st.body === undefined) return []
    const c = classify(header, where === "container", language)
    const multi = st.end > st.start
    const keep = where === "body"
      ? FUNCTION_KINDS.has(c.kind)
      : multi || c.declares || (where === "container" && c.kind === "method")
    const container = c.container && st.body !== undefined
    const children = st.body === undefined
      ? []
      : declarationsOf(lines, st.children, container ? "container" : "body", language)
    if (!keep) return where === "body" ? children : []
    return [{
      kind: c.kind,
      name: c.name,
      span: { start: st.attached + 1, end: st.end + 1 },
      headerLine: st.start + 1,
      header,
      body: st.body === undefined ? undefined : { start: st.body.start + 1, end: st.body.end + 1 },
      container,
      children
    }]
  })

/** Hidden by a summary: bodies of declarations that are not containers. */
const hiddenBodies = (declarations: ReadonlyArray<Declaration>): Array<LineSpan> =>
  declarations.flatMap((d) => d.container ? hiddenBodies(d.children) : d.body === undefined ? [] : [d.body])

const scannerOf = (lines: ReadonlyArray<string>, language: string | undefined): Scanner => {
  const lexicon = (language === undefined ? undefined : LEXICONS[language]) ?? UNKNOWN
  const lx = lex(lines, lexicon)
  return { lexicon, lx, br: matchBrackets(lx.masked) }
}

/** Every statement of the file as the indentation engine sees it, nested by body (0-based lines). */
export const statementsOf = (lines: ReadonlyArray<string>, language?: string): ReadonlyArray<Statement> =>
  lines.length === 0 ? [] : scan(scannerOf(lines, language), 0, lines.length - 1)

/** The file's structure from indentation and brackets (see the module comment for the rules). */
export const indentationStructure = (lines: ReadonlyArray<string>, language?: string): FileStructure => {
  if (lines.length === 0) {
    return { engine: "indentation", language, lines: 0, declarations: [], comments: [], errorLines: 0 }
  }
  const scanner = scannerOf(lines, language)
  const statements = scan(scanner, 0, lines.length - 1)
  const declarations = declarationsOf(lines, statements, "top", language)
  const hidden = hiddenBodies(declarations)
  const inside = (span: LineSpan) => hidden.some((h) => h.start <= span.start && span.end <= h.end)
  const { kinds } = scanner.lx
  const comments: Array<LineSpan> = [...scanner.lx.docstrings]
  for (let n = 0; n < kinds.length; n++) {
    if (kinds[n] !== "comment") continue
    let end = n
    while (end + 1 < kinds.length && kinds[end + 1] === "comment") end++
    comments.push({ start: n + 1, end: end + 1 })
    n = end
  }
  return {
    engine: "indentation",
    language,
    lines: lines.length,
    declarations,
    comments: comments
      .filter((span) => span.end - span.start + 1 >= MIN_COMMENT_LINES && !inside(span))
      .sort((a, b) => a.start - b.start),
    errorLines: 0
  }
}
