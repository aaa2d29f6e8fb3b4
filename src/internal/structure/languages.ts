/**
 * What the syntax engine looks for in each grammar's tree: which node types are declarations and
 * what to call them, which open one level (containers), which wrap a declaration (`export`,
 * decorators, templates), which are seen through (preprocessor conditionals, `extern "C"`), which
 * attach above a declaration (comments, decorators, attributes) and which hold a body.
 * Node type names are the grammars' own (tree-sitter-<lang> `node-types.json`).
 */

export interface LanguageSpec {
  /** Declaration node type → the kind the model reads. */
  readonly declarations: Readonly<Record<string, string>>
  /** Declaration node types whose body opens one level (members stay visible). */
  readonly containers: ReadonlySet<string>
  /** Nodes that wrap one declaration; the span is the wrapper's, kind, name and body the inner one's. */
  readonly wrappers: ReadonlySet<string>
  /** Nodes whose children are read as if they were at this level. */
  readonly transparent: ReadonlySet<string>
  /** Comments: attach above a declaration, and fold in a summary when long. */
  readonly comments: ReadonlySet<string>
  /** Decorators, attributes and annotations: attach above a declaration. */
  readonly attributes: ReadonlySet<string>
  /**
   * Statements declaring values (`const x = …`, `X = {…}`): declarations at module, namespace or
   * class level only, never inside a function.
   */
  readonly values: Readonly<Record<string, string>>
  /** Only multi-line value statements count (languages where one-line assignments abound). */
  readonly multiLineValuesOnly?: boolean
  /** Node types that can be a body when the declaration names none (`body` field). */
  readonly bodies: ReadonlySet<string>
  /** Top-level calls whose last argument is a function (`describe("x", () => {…})`) are blocks. */
  readonly callBlocks?: boolean
  /** A string statement at the top of a module or class body is its doc comment (Python). */
  readonly docStrings?: boolean
  /**
   * C and C++: a `declaration` or `field_declaration` is a function when its declarator is one,
   * a struct, union or enum when its type has a body, and a field only in a C++ class (Java's
   * and C#'s `field_declaration` are plain fields).
   */
  readonly cDeclarators?: boolean
  /** Keys of a data format down to this depth, instead of declarations. */
  readonly keyDepth?: number
}

const set = (...names: ReadonlyArray<string>): ReadonlySet<string> => new Set(names)

const typescript: LanguageSpec = {
  declarations: {
    function_declaration: "function",
    generator_function_declaration: "function",
    function_signature: "function",
    class_declaration: "class",
    abstract_class_declaration: "class",
    interface_declaration: "interface",
    enum_declaration: "enum",
    type_alias_declaration: "type",
    module: "namespace",
    internal_module: "namespace",
    method_definition: "method",
    method_signature: "method",
    abstract_method_signature: "method",
    public_field_definition: "field",
    field_definition: "field",
    property_signature: "property",
    construct_signature: "constructor"
  },
  containers: set(
    "class_declaration",
    "abstract_class_declaration",
    "interface_declaration",
    "module",
    "internal_module"
  ),
  wrappers: set("export_statement", "ambient_declaration"),
  transparent: set(),
  comments: set("comment"),
  attributes: set("decorator"),
  values: { lexical_declaration: "const", variable_declaration: "var", expression_statement: "variable" },
  bodies: set("statement_block", "class_body", "interface_body", "object_type", "enum_body"),
  callBlocks: true
}

const python: LanguageSpec = {
  declarations: { function_definition: "function", class_definition: "class" },
  containers: set("class_definition"),
  wrappers: set("decorated_definition"),
  // Definitions under `if sys.version_info …:` or `try: … except ImportError:` (compatibility
  // modules). Function bodies are never walked, so a `block` seen here is such a branch's.
  transparent: set(
    "if_statement",
    "elif_clause",
    "else_clause",
    "try_statement",
    "except_clause",
    "finally_clause",
    "block"
  ),
  comments: set("comment"),
  attributes: set("decorator"),
  values: { expression_statement: "variable" },
  multiLineValuesOnly: true,
  bodies: set("block"),
  docStrings: true
}

const go: LanguageSpec = {
  // An interface's methods: `method_elem` in tree-sitter-go 0.25, `method_spec` before.
  declarations: {
    function_declaration: "function",
    method_declaration: "method",
    type_declaration: "type",
    method_elem: "method",
    method_spec: "method"
  },
  containers: set("type_declaration"),
  wrappers: set(),
  transparent: set(),
  comments: set("comment"),
  attributes: set(),
  values: { const_declaration: "const", var_declaration: "var" },
  bodies: set("block", "field_declaration_list", "interface_type")
}

const rust: LanguageSpec = {
  declarations: {
    function_item: "function",
    function_signature_item: "function",
    struct_item: "struct",
    union_item: "union",
    enum_item: "enum",
    trait_item: "trait",
    impl_item: "impl",
    mod_item: "module",
    macro_definition: "macro",
    type_item: "type",
    const_item: "const",
    static_item: "static",
    foreign_mod_item: "extern"
  },
  containers: set("struct_item", "union_item", "trait_item", "impl_item", "mod_item", "foreign_mod_item"),
  wrappers: set(),
  transparent: set(),
  comments: set("line_comment", "block_comment"),
  attributes: set("attribute_item", "inner_attribute_item"),
  values: {},
  bodies: set(
    "block",
    "declaration_list",
    "field_declaration_list",
    "enum_variant_list",
    "ordered_field_declaration_list"
  )
}

const java: LanguageSpec = {
  declarations: {
    class_declaration: "class",
    interface_declaration: "interface",
    enum_declaration: "enum",
    record_declaration: "record",
    annotation_type_declaration: "annotation",
    method_declaration: "method",
    constructor_declaration: "constructor",
    compact_constructor_declaration: "constructor",
    field_declaration: "field",
    constant_declaration: "constant"
  },
  containers: set("class_declaration", "interface_declaration", "record_declaration", "annotation_type_declaration"),
  wrappers: set(),
  transparent: set(),
  comments: set("line_comment", "block_comment"),
  attributes: set(),
  values: {},
  bodies: set("class_body", "interface_body", "enum_body", "block", "constructor_body", "annotation_type_body")
}

const cDeclarations = {
  function_definition: "function",
  struct_specifier: "struct",
  union_specifier: "union",
  enum_specifier: "enum",
  type_definition: "typedef",
  declaration: "declaration",
  preproc_function_def: "macro",
  preproc_def: "macro"
}

const c: LanguageSpec = {
  declarations: cDeclarations,
  containers: set("struct_specifier", "union_specifier", "type_definition"),
  wrappers: set(),
  transparent: set(
    "preproc_ifdef",
    "preproc_if",
    "preproc_else",
    "preproc_elif",
    "preproc_elifdef",
    "linkage_specification",
    "declaration_list"
  ),
  comments: set("comment"),
  attributes: set(),
  values: {},
  bodies: set("compound_statement", "field_declaration_list", "enumerator_list"),
  cDeclarators: true
}

const cpp: LanguageSpec = {
  ...c,
  declarations: {
    ...cDeclarations,
    class_specifier: "class",
    namespace_definition: "namespace",
    concept_definition: "concept",
    alias_declaration: "type",
    field_declaration: "field"
  },
  containers: set("struct_specifier", "union_specifier", "type_definition", "class_specifier", "namespace_definition"),
  wrappers: set("template_declaration"),
  bodies: set("compound_statement", "field_declaration_list", "enumerator_list", "declaration_list")
}

const csharp: LanguageSpec = {
  declarations: {
    namespace_declaration: "namespace",
    file_scoped_namespace_declaration: "namespace",
    class_declaration: "class",
    struct_declaration: "struct",
    interface_declaration: "interface",
    record_declaration: "record",
    enum_declaration: "enum",
    delegate_declaration: "delegate",
    method_declaration: "method",
    constructor_declaration: "constructor",
    destructor_declaration: "destructor",
    operator_declaration: "operator",
    conversion_operator_declaration: "operator",
    property_declaration: "property",
    indexer_declaration: "indexer",
    event_declaration: "event",
    field_declaration: "field",
    local_function_statement: "function"
  },
  containers: set(
    "namespace_declaration",
    "class_declaration",
    "struct_declaration",
    "interface_declaration",
    "record_declaration"
  ),
  wrappers: set(),
  transparent: set("declaration_list"),
  comments: set("comment"),
  attributes: set("attribute_list"),
  values: {},
  bodies: set("declaration_list", "block", "accessor_list", "enum_member_declaration_list")
}

const ruby: LanguageSpec = {
  declarations: {
    class: "class",
    module: "module",
    method: "method",
    singleton_method: "method",
    singleton_class: "class"
  },
  containers: set("class", "module", "singleton_class"),
  wrappers: set(),
  transparent: set(),
  comments: set("comment"),
  attributes: set(),
  values: {},
  bodies: set("body_statement")
}

const php: LanguageSpec = {
  declarations: {
    function_definition: "function",
    class_declaration: "class",
    interface_declaration: "interface",
    trait_declaration: "trait",
    enum_declaration: "enum",
    namespace_definition: "namespace",
    method_declaration: "method",
    property_declaration: "property",
    const_declaration: "const"
  },
  containers: set("class_declaration", "interface_declaration", "trait_declaration", "namespace_definition"),
  wrappers: set(),
  // Polyfills: `if (!function_exists('f')) { function f() {…} }`. Function bodies are never
  // walked, so a `compound_statement` seen here is such a branch's.
  transparent: set("if_statement", "else_if_clause", "else_clause", "compound_statement", "colon_block"),
  comments: set("comment"),
  attributes: set("attribute_list"),
  values: {},
  bodies: set("compound_statement", "declaration_list", "enum_declaration_list")
}

const bash: LanguageSpec = {
  declarations: { function_definition: "function" },
  containers: set(),
  wrappers: set(),
  transparent: set(),
  comments: set("comment"),
  attributes: set(),
  values: {},
  bodies: set("compound_statement", "subshell")
}

const data = (depth: number): LanguageSpec => ({
  declarations: {},
  containers: set(),
  wrappers: set(),
  transparent: set(),
  comments: set("comment"),
  attributes: set(),
  values: {},
  bodies: set(),
  keyDepth: depth
})

export const specs: Readonly<Record<string, LanguageSpec>> = {
  typescript,
  tsx: typescript,
  javascript: typescript,
  python,
  go,
  rust,
  java,
  c,
  cpp,
  csharp,
  ruby,
  php,
  bash,
  json: data(2),
  yaml: data(2),
  toml: data(2)
}
