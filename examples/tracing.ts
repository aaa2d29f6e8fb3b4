/**
 * The tracing example of docs/api.md, type-checked in CI: the API example's program with its spans
 * exported over OTLP by `@effect/opentelemetry` (dev dependencies here, for this check).
 */
import * as NodeSdk from "@effect/opentelemetry/NodeSdk"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http"
import { BatchSpanProcessor } from "@opentelemetry/sdk-trace-base"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { FileTime, Lsp, Permission, Read, Workspace } from "../src/index.js"

const SessionLive = Layer.mergeAll(
  Workspace.layer({ directory: process.cwd(), sessionId: "session-1" }),
  Permission.layerAllowAll,
  Lsp.layerNoop,
  FileTime.layerMemory
).pipe(Layer.provideMerge(NodeContext.layer))

const program = Read.read({ filePath: "README.md", limit: 20 }).pipe(
  Effect.flatMap((result) => Console.log(result.output))
)

// Spans go to an OTLP collector (Jaeger, Tempo, Honeycomb…), http://localhost:4318 by default.
const TracingLive = NodeSdk.layer(() => ({
  resource: { serviceName: "my-agent" },
  spanProcessor: new BatchSpanProcessor(new OTLPTraceExporter())
}))

program.pipe(Effect.provide(SessionLive), Effect.provide(TracingLive), NodeRuntime.runMain)
