/**
 * effect-read: the Read tool for coding agents, on Effect 3.
 *
 * Each module is exported as a namespace, as in Effect's own libraries:
 * `Read.read`, `Permission.layerRules`, `Workspace.layer`, `MemoryFileSystem.layer`, …
 */
export * as Envelope from "./Envelope.js"
export * as FaultFileSystem from "./FaultFileSystem.js"
export * as FileTime from "./FileTime.js"
export * as LineIndex from "./LineIndex.js"
export * as Lsp from "./Lsp.js"
export * as McpServer from "./McpServer.js"
export * as MemoryFileSystem from "./MemoryFileSystem.js"
export * as OptionalPackages from "./OptionalPackages.js"
export * as Permission from "./Permission.js"
export * as Progress from "./Progress.js"
export * as Read from "./Read.js"
export * as ReadError from "./ReadError.js"
export * as ReadMany from "./ReadMany.js"
export * as ReadResult from "./ReadResult.js"
export * as ReadTool from "./ReadTool.js"
export * as SessionMemory from "./SessionMemory.js"
export * as Sources from "./Sources.js"
export * as Workspace from "./Workspace.js"
