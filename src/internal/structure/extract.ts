/**
 * From a tree-sitter tree to the shared `FileStructure`: declarations with their header (up to the
 * body's opener), body (the lines strictly between the opener's line and the closer's line),
 * attached comments and attributes, and children; long comments; lines inside ERROR nodes.
 *
 * Parse errors are local and normal (tree-sitter-typescript cannot parse `in`/`out` variance
 * annotations, #370, which Effect code uses everywhere): a declaration whose body's delimiters
 * are intact stays a declaration with an ERROR inside; one whose delimiters are broken is seen
 * through, its inner declarations still found.
 */
import type { Declaration, FileStructure, LineSpan } from "../core/declarations.js"
import type { LanguageSpec } from "./languages.js"

/** The part of web-tree-sitter's `Node` read here (structural, so no optional package is named). */
export interface SyntaxNode {
  readonly id: number
  readonly type: string
  readonly isNamed: boolean
  readonly isMissing: boolean
  readonly hasError: boolean
  readonly startIndex: number
  readonly endIndex: number
  readonly startPosition: { readonly row: number; readonly column: number }
  readonly endPosition: { readonly row: number; readonly column: number }
  readonly children: ReadonlyArray<SyntaxNode | null>
  readonly childCount: number
  readonly firstChild: SyntaxNode | null
  readonly lastChild: SyntaxNode | null
  readonly previousSibling: SyntaxNode | null
  childForFieldName(name: string): SyntaxNode | null
  descendantsOfType(types: string | Array<string>): Array<SyntaxNode>
}

/** What a field or property declaration names. */
const ELEMENTS = new Set([
  "variable_declarator",
  "property_element",
  "const_element",
  "variable_declaration",
  "variable_name"
])

/** Cut before folding whitespace: a header longer than this is cut anyway by the views. */
const MAX_HEADER_SOURCE = 2000
const MIN_COMMENT_LINES = 4
/** Steps down through same-line openers (`Effect.gen(function*() {`). */
const MAX_OPENER_DEPTH = 6

const FUNCTIONS = new Set([
  "arrow_function",
  "function_expression",
  "function",
  "generator_function",
  "lambda",
  "func_literal",
  "closure_expression"
])
/** Assignment statements whose target a value declaration names: Python's and JavaScript's. */
const ASSIGNMENTS = new Set(["assignment", "assignment_expression"])
/** Expressions wrapping the value a declaration's body is in (`{…} as const`). */
const WRAPPED = new Set([
  "as_expression",
  "satisfies_expression",
  "non_null_expression",
  "parenthesized_expression",
  "await_expression"
])
const DECLARATOR_NAMES = new Set([
  "identifier",
  "field_identifier",
  "type_identifier",
  "qualified_identifier",
  "destructor_name",
  "operator_name",
  "operator_cast",
  "primitive_type"
])

const first = (row: number) => row + 1
/** The last row a node has text on: one ending at column 0 ends on the row before. */
const endRow = (node: SyntaxNode): number =>
  node.endPosition.column === 0 && node.endPosition.row > node.startPosition.row
    ? node.endPosition.row - 1
    : node.endPosition.row

const broken = (node: SyntaxNode | null): boolean => node !== null && (node.type === "ERROR" || node.isMissing)

/**
 * A node's children, each list built once per extraction: web-tree-sitter builds the JS objects
 * again on every `children` call, which dominated the walk.
 */
let memo = new Map<number, { all: ReadonlyArray<SyntaxNode>; named: ReadonlyArray<SyntaxNode> }>()
const childrenMemo = (node: SyntaxNode) => {
  let found = memo.get(node.id)
  if (found === undefined) {
    const all = node.children.filter((child): child is SyntaxNode => child !== null)
    found = { all, named: all.filter((child) => child.isNamed) }
    memo.set(node.id, found)
  }
  return found
}
const childrenOf = (node: SyntaxNode): ReadonlyArray<SyntaxNode> => childrenMemo(node).all
const namedChildren = (node: SyntaxNode): ReadonlyArray<SyntaxNode> => childrenMemo(node).named

/** The declarator inside one: `(*cb)(…)` and `T& f()` hold theirs as a plain child, not in a field. */
const innerDeclarator = (node: SyntaxNode): SyntaxNode | null =>
  node.childForFieldName("declarator") ?? namedChildren(node).find((child) => child.type.endsWith("declarator")) ?? null

/** The last element that passes (ES2022 has no `findLast`). */
const findLast = <A>(items: ReadonlyArray<A>, test: (item: A) => boolean): A | undefined => {
  for (let index = items.length - 1; index >= 0; index--) if (test(items[index]!)) return items[index]
  return undefined
}

interface Body {
  /** Where the header ends: just after the opener (`{`, `(`, `:`). */
  readonly headerEnd: number
  readonly span: LineSpan | undefined
  /** The body's delimiters are there (not ERROR, not inserted by error recovery). */
  readonly intact: boolean
  readonly node: SyntaxNode
}

class Extractor {
  private readonly commentSpans: Array<LineSpan> = []
  private readonly lineStarts: Array<number>

  constructor(
    private readonly text: string,
    private readonly spec: LanguageSpec
  ) {
    const starts = [0]
    for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) starts.push(at + 1)
    this.lineStarts = starts
  }

  get comments(): ReadonlyArray<LineSpan> {
    return this.commentSpans
  }

  /** End of the text of the given row (before its line break). */
  private rowEnd(row: number): number {
    const next = this.lineStarts[row + 1]
    if (next === undefined) return this.text.length
    return this.text.charCodeAt(next - 2) === 13 ? next - 2 : next - 1
  }

  private source(node: SyntaxNode): string {
    return this.text.slice(node.startIndex, Math.min(node.endIndex, node.startIndex + MAX_HEADER_SOURCE))
  }

  /** A name as one line: C++ writes `Foo<T>::` above the method's name, Python unpacks over lines. */
  private nameText(node: SyntaxNode): string {
    return this.source(node).replace(/\s+/g, " ").trim()
  }

  private header(start: number, end: number): string {
    return this.text.slice(start, Math.min(end, start + MAX_HEADER_SOURCE)).replace(/\s+/g, " ").trim()
  }

  // --- bodies --------------------------------------------------------------------------------

  /** The body a node's delimiters enclose: `{ … }`, `( … )`, `: block`, `… end`. */
  private bodyFrom(node: SyntaxNode, owner: SyntaxNode): Body {
    const open = node.firstChild
    const close = node.lastChild
    let openerRow: number
    let headerEnd: number
    if (open !== null && !open.isNamed) {
      openerRow = endRow(open)
      headerEnd = open.endIndex
    } else {
      let before = node.previousSibling
      // A comment between the header and the body (`def f():  # why`) is not the opener.
      while (before !== null && this.spec.comments.has(before.type)) before = before.previousSibling
      openerRow = before === null ? node.startPosition.row - 1 : endRow(before)
      headerEnd = before === null ? node.startIndex : before.endIndex
    }
    let closerRow: number
    const ownerClose = owner.lastChild
    if (close !== null && !close.isNamed && close !== open) closerRow = close.startPosition.row
    else if (ownerClose !== null && !ownerClose.isNamed && ownerClose.startIndex >= node.endIndex) {
      closerRow = ownerClose.startPosition.row
    } else closerRow = endRow(node) + 1
    const start = first(openerRow + 1)
    const end = first(closerRow - 1)
    const intact = !broken(open) && !broken(close) && !broken(ownerClose)
    return { headerEnd, span: start <= end ? { start, end } : undefined, intact, node }
  }

  /** Down through values whose body opens on the same line (`Effect.gen(function*() {`). */
  private innermost(body: Body, owner: SyntaxNode): Body {
    let current = body
    for (let depth = 0; depth < MAX_OPENER_DEPTH && current.span !== undefined; depth++) {
      const inner = namedChildren(current.node).at(-1)
      if (inner === undefined) break
      const openerRow = current.span.start - 2
      const closerRow = current.span.end
      if (inner.startPosition.row !== openerRow || endRow(inner) !== closerRow) break
      const next = this.valueBody(inner, owner)
      if (next === undefined || next.span === undefined || !next.intact) break
      current = next
    }
    return current
  }

  /** The body of a value: a function's block, a call's arguments, an object or array literal. */
  private valueBody(value: SyntaxNode, owner: SyntaxNode): Body | undefined {
    let node: SyntaxNode | null = value
    for (let depth = 0; node !== null && WRAPPED.has(node.type) && depth < MAX_OPENER_DEPTH; depth++) {
      node = node.type === "parenthesized_expression" ? node : (namedChildren(node)[0] ?? null)
      if (node?.type === "parenthesized_expression") break
    }
    if (node === null || node.startPosition.row === endRow(node)) return undefined
    if (FUNCTIONS.has(node.type)) {
      const body = node.childForFieldName("body")
      return body === null
        ? undefined
        : this.valueBody(body, owner) ?? (body.firstChild?.isNamed === false ? this.bodyFrom(body, owner) : undefined)
    }
    if (node.type === "call_expression" || node.type === "new_expression" || node.type === "call") {
      const args = node.childForFieldName("arguments")
      return args === null || args.startPosition.row === endRow(args) ? undefined : this.bodyFrom(args, node)
    }
    const open = node.firstChild
    if (open !== null && !open.isNamed && node.lastChild !== null && !node.lastChild.isNamed) {
      return this.bodyFrom(node, node)
    }
    return undefined
  }

  /** The body of a declaration, when it has one. */
  private bodyOf(node: SyntaxNode): Body | undefined {
    let body = node.childForFieldName("body")
    if (body === null) {
      switch (node.type) {
        case "type_declaration": {
          const type = namedChildren(node).find((child) => child.type === "type_spec")?.childForFieldName("type")
          if (type == null) return undefined
          if (type.type === "struct_type") {
            body = namedChildren(type).find((child) => child.type === "field_declaration_list") ?? null
          } // Its `{`, not the `interface` keyword, opens the body (the header ends at the brace).
          else if (type.type === "interface_type") return this.groupBody(type, "{", "}")
          else return undefined
          break
        }
        case "type_definition":
        case "declaration":
        case "field_declaration": {
          body = node.childForFieldName("type")?.childForFieldName("body") ?? null
          break
        }
        case "const_declaration":
        case "var_declaration":
          // Go: `const ( … )`.
          return this.groupBody(node, "(", ")")
        case "lexical_declaration":
        case "variable_declaration":
        case "expression_statement":
        case "const_item":
        case "static_item": {
          const value = this.valueOf(node)
          if (value === undefined) return undefined
          const found = this.valueBody(value, node)
          return found === undefined ? undefined : this.innermost(found, node)
        }
        case "type_alias_declaration": {
          const value = node.childForFieldName("value")
          return value === null ? undefined : this.valueBody(value, node)
        }
        default:
          body = findLast(namedChildren(node), (child) => this.spec.bodies.has(child.type)) ?? null
          // Rust's `macro_rules! m { … }` delimits its rules itself.
          if (body === null) return this.groupBody(node, "{", "}")
      }
    }
    if (body === null) return undefined
    return this.bodyFrom(body, node)
  }

  /** A body between two of the declaration's own tokens (Go's `const ( … )`). */
  private groupBody(node: SyntaxNode, opener: string, closer: string): Body | undefined {
    const children = childrenOf(node)
    const open = children.find((child) => !child.isNamed && child.type === opener)
    const close = findLast(children, (child) => !child.isNamed && child.type === closer)
    if (open === undefined || close === undefined) return undefined
    const start = first(endRow(open) + 1)
    const end = first(close.startPosition.row - 1)
    return {
      headerEnd: open.endIndex,
      span: start <= end ? { start, end } : undefined,
      intact: !open.isMissing && !close.isMissing,
      node
    }
  }

  /** The value a value statement declares (its first declarator's), if it declares one. */
  private valueOf(node: SyntaxNode): SyntaxNode | undefined {
    if (node.type === "expression_statement") {
      const assignment = namedChildren(node)[0]
      return assignment !== undefined && ASSIGNMENTS.has(assignment.type)
        ? assignment.childForFieldName("right") ?? undefined
        : undefined
    }
    if (node.type === "const_item" || node.type === "static_item") return node.childForFieldName("value") ?? undefined
    const declarator = namedChildren(node).find((child) => child.type === "variable_declarator")
    return declarator?.childForFieldName("value") ?? undefined
  }

  // --- names and kinds -------------------------------------------------------------------------

  private nameOf(node: SyntaxNode): string | undefined {
    const name = node.childForFieldName("name")
    if (name !== null) return this.nameText(name)
    switch (node.type) {
      case "lexical_declaration":
      case "variable_declaration": {
        const declarator = namedChildren(node).find((child) => child.type === "variable_declarator")
        const id = declarator?.childForFieldName("name")
        return id == null ? undefined : this.nameText(id)
      }
      case "expression_statement": {
        const left = namedChildren(node)[0]?.childForFieldName("left")
        return left == null ? undefined : this.nameText(left)
      }
      case "type_declaration":
      case "const_declaration":
      case "var_declaration": {
        const spec = namedChildren(node).find((child) => child.type.endsWith("_spec"))
        // PHP's `const A = 0;` is a const_declaration too, of const_elements.
        if (spec === undefined) return this.elementName(node)
        const id = spec.childForFieldName("name")
        return id == null ? undefined : this.nameText(id)
      }
      case "impl_item": {
        const type = node.childForFieldName("type")
        const trait = node.childForFieldName("trait")
        if (type === null) return undefined
        return trait === null ? this.nameText(type) : `${this.nameText(trait)} for ${this.nameText(type)}`
      }
      case "type_definition": {
        const declarator = node.childForFieldName("declarator")
        return declarator === null ? undefined : this.declaratorName(declarator)
      }
      default: {
        const declarator = node.childForFieldName("declarator")
        if (declarator !== null) return this.declaratorName(declarator)
        // JavaScript's class fields: `s;`, `#index = 0;`.
        const property = node.childForFieldName("property")
        if (property !== null) return this.nameText(property)
        const type = node.childForFieldName("type")
        if (type !== null && type.childForFieldName("name") !== null) return this.nameOf(type)
        return this.elementName(node)
      }
    }
  }

  /** Fields, properties and constants: `public $x = null;`, `private int x, y;`, `const A = 0;`. */
  private elementName(node: SyntaxNode): string | undefined {
    let element = namedChildren(node).find((child) => ELEMENTS.has(child.type))
    if (element === undefined) return undefined
    // C#'s `int x = 1;` holds its type before the declarator.
    if (element.type === "variable_declaration") {
      element = namedChildren(element).find((child) => child.type === "variable_declarator") ?? element
    }
    const named = element.childForFieldName("name") ?? namedChildren(element)[0] ?? element
    return this.nameText(named)
  }

  /** C and C++: the name inside `*f(int)`, `Foo::bar() const`, `x[3] = …`. */
  private declaratorName(declarator: SyntaxNode): string | undefined {
    let node: SyntaxNode | null = declarator
    for (let depth = 0; node !== null && depth < 8; depth++) {
      if (DECLARATOR_NAMES.has(node.type)) return this.nameText(node)
      node = innerDeclarator(node) ?? namedChildren(node).find((child) => DECLARATOR_NAMES.has(child.type)) ?? null
    }
    return undefined
  }

  private isPrototype(node: SyntaxNode): boolean {
    let declarator = node.childForFieldName("declarator")
    for (let depth = 0; declarator !== null && depth < 8; depth++) {
      if (declarator.type === "function_declarator") return true
      declarator = innerDeclarator(declarator)
    }
    return false
  }

  /** The kind of a declaration node in its place, or undefined when it is not one. */
  private kindOf(node: SyntaxNode, level: Level): string | undefined {
    const kind = this.spec.declarations[node.type]
    if (kind !== undefined) {
      switch (node.type) {
        case "declaration":
        case "field_declaration": {
          if (this.spec.cDeclarators !== true) return kind
          if (this.isPrototype(node)) return level.inType ? "method" : "function"
          if (node.type === "field_declaration" && this.spec.declarations.class_specifier === undefined) {
            return undefined
          }
          const type = node.childForFieldName("type")
          if (type !== null && type.childForFieldName("body") !== null) return this.spec.declarations[type.type]
          return node.type === "field_declaration" && level.inType ? "field" : undefined
        }
        case "struct_specifier":
        case "union_specifier":
        case "enum_specifier":
          return node.childForFieldName("body") === null ? undefined : kind
        case "type_declaration": {
          const type = namedChildren(node).find((child) => child.type === "type_spec")?.childForFieldName("type")?.type
          return type === "struct_type" ? "struct" : type === "interface_type" ? "interface" : kind
        }
        default:
          return kind === "function" && level.inType ? "method" : kind
      }
    }
    if (level.inFunction) return undefined
    const value = this.spec.values[node.type]
    if (value === undefined) return undefined
    if (node.type === "expression_statement") {
      const assignment = namedChildren(node)[0]
      if (assignment === undefined || !ASSIGNMENTS.has(assignment.type)) return undefined
      if (assignment.type === "assignment_expression") {
        // JavaScript: `exports.f = function …`, `Foo.prototype.m = …`, `module.exports = {…}` of
        // several lines; one-line assignments are statements, not declarations.
        if (node.startPosition.row === endRow(node)) return undefined
        const right = assignment.childForFieldName("right")
        return right !== null && FUNCTIONS.has(right.type) ? "function" : value
      }
    }
    if (this.spec.multiLineValuesOnly === true && node.startPosition.row === endRow(node)) return undefined
    if (node.type === "lexical_declaration") return node.firstChild?.type === "let" ? "let" : "const"
    return value
  }

  // --- declarations ----------------------------------------------------------------------------

  /** Where a declaration's own text starts: after the decorators, attributes and comments it holds. */
  private headerStart(node: SyntaxNode): SyntaxNode {
    for (const child of childrenOf(node)) {
      if (this.spec.attributes.has(child.type) || this.spec.comments.has(child.type)) continue
      if (child.type === "modifiers") {
        // (A comment after an annotation, `@SuppressWarnings("serial") // why`, sits among them.)
        const own = childrenOf(child).find((part) =>
          !/annotation$/.test(part.type) && !this.spec.comments.has(part.type)
        )
        if (own === undefined) continue
        return own
      }
      return child
    }
    return node
  }

  /** The declaration a wrapper holds (`export …`, `@decorator def …`, `template<…> …`). */
  private unwrap(node: SyntaxNode): SyntaxNode | undefined {
    const inner = node.childForFieldName("declaration") ?? node.childForFieldName("definition")
    if (inner !== null) return inner
    return findLast(
      namedChildren(node),
      (child) =>
        this.spec.declarations[child.type] !== undefined || this.spec.values[child.type] !== undefined ||
        this.spec.wrappers.has(child.type)
    )
  }

  private declaration(outer: SyntaxNode, level: Level, attachedFrom: number | undefined): Declaration | undefined {
    if (outer.type === "export_statement" && outer.childForFieldName("declaration") === null) {
      const value = outer.childForFieldName("value")
      if (value !== null && childrenOf(outer).some((child) => child.type === "default")) {
        return this.defaultExport(outer, value, level, attachedFrom)
      }
    }
    let node = outer
    for (let depth = 0; this.spec.wrappers.has(node.type) && depth < 4; depth++) {
      const inner = this.unwrap(node)
      if (inner === undefined) return undefined
      node = inner
    }
    // `namespace N { … }` at the top of a TypeScript file is an expression statement.
    if (node.type === "expression_statement" && namedChildren(node)[0]?.type === "internal_module") {
      node = namedChildren(node)[0]!
    }
    const kind = this.kindOf(node, level)
    if (kind === undefined) return undefined
    const body = this.bodyOf(node)
    if (body !== undefined && !body.intact) return undefined
    const own = this.headerStart(outer === node ? node : outer)
    const headerRow = own.startPosition.row
    const headerEnd = body !== undefined ? body.headerEnd : Math.min(node.endIndex, this.rowEnd(headerRow))
    const container = body?.span !== undefined && this.spec.containers.has(node.type)
    const children = body === undefined || body.span === undefined
      ? []
      : container
      ? this.level(body.node, {
        inType: kind !== "namespace" && kind !== "module",
        inFunction: false,
        depth: level.depth + 1
      }, true)
      : []
    return {
      kind,
      name: this.nameOf(node),
      span: { start: first(attachedFrom ?? outer.startPosition.row), end: first(endRow(outer)) },
      headerLine: first(headerRow),
      header: this.header(own.startIndex, headerEnd),
      body: body?.span,
      container,
      children
    }
  }

  /**
   * `export default function () {…}`, `export default class {…}`, `export default defineConfig({…})`:
   * a value with no declaration around it, named `default` (zod's locales end with one).
   */
  private defaultExport(
    outer: SyntaxNode,
    value: SyntaxNode,
    level: Level,
    attachedFrom: number | undefined
  ): Declaration | undefined {
    const kind = FUNCTIONS.has(value.type) ? "function" : value.type === "class" ? "class" : "export"
    const found = kind === "class" ? this.bodyOf(value) : this.valueBody(value, outer)
    const body = found === undefined || kind === "class" ? found : this.innermost(found, outer)
    if (body !== undefined && !body.intact) return undefined
    const own = this.headerStart(outer)
    const headerEnd = body !== undefined ? body.headerEnd : Math.min(outer.endIndex, this.rowEnd(own.startPosition.row))
    const container = kind === "class" && body?.span !== undefined
    return {
      kind,
      name: "default",
      span: { start: first(attachedFrom ?? outer.startPosition.row), end: first(endRow(outer)) },
      headerLine: first(own.startPosition.row),
      header: this.header(own.startIndex, headerEnd),
      body: body?.span,
      container,
      children: container
        ? this.level(body!.node, { inType: true, inFunction: false, depth: level.depth + 1 }, true)
        : []
    }
  }

  /** `describe("x", () => { … })`: a block named after its callee, with the calls inside as children. */
  private callBlock(node: SyntaxNode, level: Level, attachedFrom: number | undefined): Declaration | undefined {
    const call = namedChildren(node)[0]
    if (call?.type !== "call_expression" || node.startPosition.row === endRow(node)) return undefined
    const args = call.childForFieldName("arguments")
    const callback = args === null ? undefined : namedChildren(args).at(-1)
    if (callback === undefined || !FUNCTIONS.has(callback.type)) return undefined
    const block = callback.childForFieldName("body")
    if (block === null || block.type !== "statement_block") return undefined
    const body = this.bodyFrom(block, block)
    if (!body.intact || body.span === undefined) return undefined
    const callee = call.childForFieldName("function")
    const label = namedChildren(args!).find((arg) => arg.type === "string" || arg.type === "template_string")
    const name = [callee === null ? "" : this.nameText(callee), label === undefined ? "" : this.nameText(label)].filter(
      (part) => part !== ""
    ).join(" ")
    return {
      kind: "call",
      name: name === "" ? undefined : name.slice(0, 160),
      span: { start: first(attachedFrom ?? node.startPosition.row), end: first(endRow(node)) },
      headerLine: first(node.startPosition.row),
      header: this.header(node.startIndex, body.headerEnd),
      body: body.span,
      container: false,
      children: this.level(block, { inType: false, inFunction: true, depth: level.depth + 1, calls: true })
    }
  }

  /**
   * Comments the parser put just before a body that has no opening token, between its header
   * and its first member: tree-sitter-python (and -ruby) make `# why` above a class's first
   * method a child of the class, not of its block. They lead the body, as they read. The row of
   * the header's last token comes too: a comment on it trails the header.
   */
  private leadingComments(
    node: SyntaxNode
  ): { readonly comments: ReadonlyArray<SyntaxNode>; readonly headerRow: number } {
    const comments: Array<SyntaxNode> = []
    if (node.firstChild === null || !node.firstChild.isNamed) return { comments, headerRow: -1 }
    let before = node.previousSibling
    while (before !== null && this.spec.comments.has(before.type)) {
      comments.unshift(before)
      before = before.previousSibling
    }
    return { comments, headerRow: before === null ? -1 : endRow(before) }
  }

  /**
   * The declarations directly in a node (a file, a class body, a namespace), with attached lines;
   * `body`: the node is a declaration's body, which the comments just before it may lead.
   */
  level(node: SyntaxNode, level: Level, body = false): Array<Declaration> {
    const found: Array<Declaration> = []
    const leading = body ? this.leadingComments(node) : { comments: [], headerRow: -1 }
    /** First row of the run of comments and attributes directly above, or undefined. */
    let attachedFrom: number | undefined
    let attachedEnd = -2
    let previousEnd = leading.headerRow
    let commentRun: LineSpan | undefined
    const closeRun = () => {
      if (commentRun !== undefined && commentRun.end - commentRun.start + 1 >= MIN_COMMENT_LINES) {
        this.commentSpans.push(commentRun)
      }
      commentRun = undefined
    }
    const children = leading.comments.length === 0 ? childrenOf(node) : [...leading.comments, ...childrenOf(node)]
    for (const [index, child] of children.entries()) {
      const start = child.startPosition.row
      const end = endRow(child)
      const isComment = this.spec.comments.has(child.type)
      if (isComment || this.spec.attributes.has(child.type)) {
        if (isComment) {
          if (start !== end) {
            closeRun()
            // A fold hides whole lines: not a first or last line the comment shares with code
            // (` */const A = …` after a minified bundle's licence).
            const from = start <= previousEnd ? start + 1 : start
            const to = children[index + 1]?.startPosition.row === end ? end - 1 : end
            if (to - from + 1 >= MIN_COMMENT_LINES) this.commentSpans.push({ start: first(from), end: first(to) })
          } else if (start > previousEnd) {
            if (commentRun !== undefined && commentRun.end === start) {
              commentRun = { start: commentRun.start, end: first(start) }
            } else {
              closeRun()
              commentRun = { start: first(start), end: first(start) }
            }
          }
        }
        // A comment on the line where code ends belongs to that code, not to what follows.
        if (start <= previousEnd) continue
        if (attachedFrom === undefined || start > attachedEnd + 1) attachedFrom = start
        attachedEnd = end
        continue
      }
      closeRun()
      if (this.spec.docStrings === true && this.isDocString(child, children, index)) {
        if (end - start + 1 >= MIN_COMMENT_LINES) this.commentSpans.push({ start: first(start), end: first(end) })
        previousEnd = end
        attachedFrom = undefined
        continue
      }
      const attached = attachedFrom !== undefined && attachedEnd + 1 >= start ? attachedFrom : undefined
      attachedFrom = undefined
      if (this.spec.transparent.has(child.type)) {
        const inners = this.level(child, level)
        // A comment just above a branch's block (Python's `else:` then `# why`) leads its first declaration.
        const lead = inners[0]
        if (attached !== undefined && lead !== undefined && lead.span.start === first(start)) {
          inners[0] = { ...lead, span: { start: first(attached), end: lead.span.end } }
        }
        for (const inner of inners) {
          const before = found.at(-1)
          if (before === undefined || inner.span.start > before.span.end) found.push(inner)
        }
        previousEnd = end
        continue
      }
      const declaration = child.type === "ERROR"
        ? undefined
        : level.calls === true ||
            (this.spec.callBlocks === true && level.depth === 0 && child.type === "expression_statement")
        ? this.callBlock(child, level, attached) ??
          (level.calls === true ? undefined : this.declaration(child, level, attached))
        : this.declaration(child, level, attached)
      const last = found.at(-1)
      if (declaration !== undefined && (last === undefined || declaration.span.start > last.span.end)) {
        found.push(declaration)
      } else if (declaration === undefined && (child.type === "ERROR" || (child.hasError && level.depth === 0))) {
        // A statement broken around its delimiters: its declarations are still there.
        for (const inner of this.level(child, level)) {
          const before = found.at(-1)
          if (before === undefined || inner.span.start > before.span.end) found.push(inner)
        }
      }
      previousEnd = end
    }
    closeRun()
    return found
  }

  private isDocString(child: SyntaxNode, children: ReadonlyArray<SyntaxNode>, index: number): boolean {
    // A string statement first in a module or class body, after comments only.
    return child.type === "expression_statement" && namedChildren(child)[0]?.type === "string" &&
      namedChildren(child).length === 1 &&
      children.slice(0, index).every((before) => this.spec.comments.has(before.type) || !before.isNamed)
  }

  // --- data formats ----------------------------------------------------------------------------

  /** JSON, YAML and TOML: keys down to the spec's depth, a nested mapping as the body. */
  keys(node: SyntaxNode, depth: number): Array<Declaration> {
    const found: Array<Declaration> = []
    const visit = (parent: SyntaxNode) => {
      for (const child of namedChildren(parent)) {
        const list = depth === 0 && LIST.test(child.type)
        const entries = list ? this.items(child, depth) : [this.keyEntry(child, depth)]
        for (const entry of entries) {
          // Siblings never overlap: a key on the line another ended on (minified JSON) is left out.
          if (entry !== undefined && (found.length === 0 || entry.span.start > found.at(-1)!.span.end)) {
            found.push(entry)
          }
        }
        if (!list && entries[0] === undefined && !/pair|comment|sequence|array/.test(child.type)) visit(child)
      }
    }
    visit(node)
    return found
  }

  /**
   * A document that is a list (a JSON array, a YAML sequence): its items that hold keys, each
   * named by its index in the list, with its keys below it. Items that are plain values are not
   * declarations.
   */
  private items(list: SyntaxNode, depth: number): Array<Declaration | undefined> {
    const elements = namedChildren(list).filter((child) => !this.spec.comments.has(child.type))
    return elements.map((element, index) => {
      const mapping = keysHolder(element)
      return mapping === undefined ? undefined : this.entry(element, mapping, `[${index}]`, "item", depth)
    })
  }

  private keyEntry(node: SyntaxNode, depth: number): Declaration | undefined {
    let key: SyntaxNode | null = null
    let value: SyntaxNode | null = null
    let kind = "key"
    if (node.type === "pair" || node.type === "block_mapping_pair" || node.type === "flow_pair") {
      key = node.childForFieldName("key") ?? namedChildren(node)[0] ?? null
      value = node.childForFieldName("value") ?? (namedChildren(node).length > 1 ? namedChildren(node).at(-1)! : null)
    } else if (node.type === "table" || node.type === "table_array_element") {
      key = namedChildren(node).find((child) => /key/.test(child.type)) ?? null
      value = node
      kind = "table"
    } else return undefined
    if (key === null) return undefined
    return this.entry(node, value, this.nameText(key).replace(/^["']|["']$/g, ""), kind, depth)
  }

  /** A data declaration: `node`'s lines, its header up to `value`'s opening delimiter, `value`'s keys below. */
  private entry(
    node: SyntaxNode,
    value: SyntaxNode | null,
    name: string,
    kind: string,
    depth: number
  ): Declaration {
    const max = this.spec.keyDepth ?? 0
    const start = node.startPosition.row
    const end = endRow(node)
    let body: LineSpan | undefined
    let headerEnd = this.rowEnd(start)
    let children: Array<Declaration> = []
    // Keys the header shows whole (on its line, before any delimiter) are not rows of their own.
    let shownInHeader = first(start)
    if (value !== null && end > start) {
      if (kind === "table") {
        body = { start: first(start + 1), end: first(end) }
      } else {
        const open = value.firstChild
        const close = value.lastChild
        const delimited = open !== null && !open.isNamed && close !== null && !close.isNamed && value.type !== "string"
        const bodyStart = delimited ? first(endRow(open) + 1) : first(start + 1)
        const bodyEnd = delimited ? first(close.startPosition.row - 1) : first(end)
        if (bodyStart <= bodyEnd) body = { start: bodyStart, end: bodyEnd }
        if (delimited) {
          headerEnd = open.endIndex
          shownInHeader = start
        }
      }
      if (depth + 1 < max && body !== undefined) {
        children = this.keys(value, depth + 1).filter((child) => child.span.start > shownInHeader)
      }
    }
    return {
      kind,
      name,
      span: { start: first(start), end: first(end) },
      headerLine: first(start),
      header: this.header(node.startIndex, Math.max(node.startIndex, Math.min(headerEnd, node.endIndex))),
      body,
      // A list's item is open in a summary, as a class is: its keys shown, their values folded.
      container: kind === "item",
      children
    }
  }
}

interface Level {
  /** Inside a class-like body: functions are methods. */
  readonly inType: boolean
  /** Inside a function: values are locals, not declarations. */
  readonly inFunction: boolean
  readonly depth: number
  /** Inside a call block: only nested call blocks count. */
  readonly calls?: boolean
}

/** A list in a data format: JSON's array, YAML's block and flow sequences. */
const LIST = /^(?:array|block_sequence|flow_sequence)$/

/** The mapping an item of a list is, through YAML's item and node wrappers; undefined for a plain value. */
const keysHolder = (node: SyntaxNode): SyntaxNode | undefined => {
  if (/^(?:object|block_mapping|flow_mapping)$/.test(node.type)) return node
  if (/^(?:block_sequence_item|block_node|flow_node)$/.test(node.type)) {
    for (const child of namedChildren(node)) {
      const found = keysHolder(child)
      if (found !== undefined) return found
    }
  }
  return undefined
}

/** Lines in ERROR nodes (each counted once) and how many ERROR nodes there are. */
export const errorLines = (root: SyntaxNode, lines: number): { readonly lines: number; readonly nodes: number } => {
  if (!root.hasError) return { lines: 0, nodes: 0 }
  const marked = new Uint8Array(lines + 1)
  const errors = root.type === "ERROR" ? [root] : root.descendantsOfType("ERROR")
  for (const node of errors) {
    const last = Math.min(endRow(node), marked.length - 1)
    for (let row = node.startPosition.row; row <= last; row++) marked[row] = 1
  }
  let count = 0
  for (const mark of marked) count += mark
  return { lines: count, nodes: errors.length }
}

export const countLines = (text: string): number => {
  if (text.length === 0) return 0
  let count = 1
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) count++
  return text.endsWith("\n") ? count - 1 : count
}

/** The file's structure from its tree. */
export const extract = (
  root: SyntaxNode,
  text: string,
  language: string,
  spec: LanguageSpec,
  lines: number,
  errors: number
): FileStructure => {
  const extractor = new Extractor(text, spec)
  memo = new Map()
  let declarations: ReadonlyArray<Declaration>
  try {
    declarations = spec.keyDepth !== undefined
      ? extractor.keys(root, 0)
      : extractor.level(root, { inType: false, inFunction: false, depth: 0 })
  } finally {
    memo = new Map()
  }
  const comments = [...extractor.comments].sort((a, b) => a.start - b.start)
  return { engine: "syntax", language, lines, declarations, comments, errorLines: errors }
}
