/**
 * The structure of a text file as the structure views see it (outline, summary, block, syntax
 * context): its declarations, with their header, body and attached comments, and the long
 * comments a summary may fold. Engines produce it — the syntax engine (tree-sitter, from an
 * optional package) or the indentation engine in the core — and the views are pure functions
 * over it and the file's lines, so every engine gets the same views, footers and caps.
 *
 * Line numbers are 1-based and ranges inclusive, as the model reads them.
 */

/** Lines `start` to `end`, both included. */
export interface LineSpan {
  readonly start: number
  readonly end: number
}

export interface Declaration {
  /** What it is, in words the model knows: "function", "method", "class", "interface", "heading", "key", … */
  readonly kind: string
  /** Its name when it has one ("run", "UserService", "## Install", "dependencies"). */
  readonly name: string | undefined
  /**
   * All its lines, from its first attached comment, decorator or attribute (no blank line between
   * them and the declaration) to its last line.
   */
  readonly span: LineSpan
  /** The first line of the declaration itself, after what is attached above it. */
  readonly headerLine: number
  /**
   * Its header as one line, up to and including the body's opener (`export function f(x: T): R {`),
   * whitespace runs folded to one space; the views cut it to their own width.
   */
  readonly header: string
  /**
   * The lines strictly inside its body, between the line that opens it and the line that closes
   * it; what a summary may hide. Undefined when it has no body (a field, a type alias on one line).
   */
  readonly body: LineSpan | undefined
  /**
   * A class, interface, impl, trait, namespace or module: a summary opens its body one level, so
   * its members stay visible with their own bodies hidden.
   */
  readonly container: boolean
  /** Declarations inside its body, in order. */
  readonly children: ReadonlyArray<Declaration>
}

export interface FileStructure {
  /** Which engine found it; metadata names it. */
  readonly engine: "syntax" | "indentation" | "headings" | "keys"
  /** The language or format it was read as ("typescript", "python", "markdown", "json", …). */
  readonly language: string | undefined
  /** Lines in the file. */
  readonly lines: number
  /** The top-level declarations, in order; children nest. Spans of siblings never overlap. */
  readonly declarations: ReadonlyArray<Declaration>
  /**
   * Comments of several lines outside any body a summary would hide (doc comments, block
   * comments): a summary folds one of 4 or more lines to its first sentence.
   */
  readonly comments: ReadonlyArray<LineSpan>
  /** Lines inside syntax-error regions (0 for engines without a parser). */
  readonly errorLines: number
}
