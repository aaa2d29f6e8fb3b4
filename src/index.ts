/**
 * effect-read: the Read tool for coding agents, on Effect 3.
 *
 * Each module is exported as a namespace, as in Effect's own libraries:
 * `Read.read`, `Permission.layerRules`, `Workspace.layer`, …
 *
 * The modules that need an optional peer are their own entry points, so importing this one loads
 * none of them: `effect-read/ReadTool` and `effect-read/McpServer` (`@effect/ai`, and the MCP SDK
 * for the server), `effect-read/MemoryFileSystem` (memfs), `effect-read/SqliteFileTime`
 * (`@effect/sql-sqlite-node`), `effect-read/LanguageServer`.
 */
export * as Anchors from "./Anchors.js"
export * as Envelope from "./Envelope.js"
export * as FaultFileSystem from "./FaultFileSystem.js"
export * as FileIndex from "./FileIndex.js"
export * as FileTime from "./FileTime.js"
export * as Instructions from "./Instructions.js"
export * as Limits from "./Limits.js"
export * as LineIndex from "./LineIndex.js"
export * as Lsp from "./Lsp.js"
export * as ModelInput from "./ModelInput.js"
export * as ModelResult from "./ModelResult.js"
export * as OptionalPackages from "./OptionalPackages.js"
export * as Permission from "./Permission.js"
export * as Progress from "./Progress.js"
export * as Read from "./Read.js"
export * as ReadError from "./ReadError.js"
export * as ReadMany from "./ReadMany.js"
export * as ReadResult from "./ReadResult.js"
export * as SessionMemory from "./SessionMemory.js"
export * as Sources from "./Sources.js"
export * as Workspace from "./Workspace.js"
