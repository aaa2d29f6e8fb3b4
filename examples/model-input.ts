/**
 * The "what the model can take" example of docs/images.md, type-checked in CI: a host whose model
 * cannot see images gives it the tool description and the reads that fit (images described in
 * words, PDFs as text), and looks closer at a screenshot, or at a PDF's pages, for a model that can.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { FileTime, Lsp, ModelInput, Permission, Read, Workspace } from "../src/index.js"
import * as ReadTool from "../src/ReadTool.js"

const SessionLive = Layer.mergeAll(
  Workspace.layer({ directory: process.cwd() }),
  Permission.layerAllowAll,
  Lsp.layerNoop,
  FileTime.layerMemory
).pipe(Layer.provideMerge(NodeContext.layer))

const program = Effect.gen(function*() {
  const described = yield* Read.read({ filePath: "shot.png" }).pipe(Effect.provide(ModelInput.layerTextOnly)) // a text-only model
  const pdfText = yield* Read.read({ filePath: "report.pdf" }).pipe(
    Effect.provideService(ModelInput.ModelInput, { images: true, pdfs: false })
  ) // images, no PDFs
  const pages = yield* Read.read({ filePath: "report.pdf:pages=3-4", pageImages: true })
  const toolkit = ReadTool.toolkitFor("standard", ModelInput.textOnly) // its description
  const closer = yield* Read.read({ filePath: "shot.png", region: { x: 1200, y: 40, width: 640, height: 360 } }) // a part, in original pixels
  const frame = yield* Read.read({ filePath: "spinner.gif", frame: 3 })
  const full = yield* Read.read({ filePath: "shot.png", fullResolution: true })
  yield* Console.log(
    described.output,
    pdfText.output,
    pages.output,
    toolkit.tools.read.description,
    closer.output,
    frame.output,
    full.output
  )
})

program.pipe(Effect.provide(SessionLive), NodeRuntime.runMain)
