/**
 * Documents converted to text: PDF (with page selection), .docx, .xlsx, .pptx, .epub, .odt. (Being implemented.)
 */
import * as Effect from "effect/Effect"
import { ConversionFailed } from "../../ReadError.js"
import type { FileRequest } from "./types.js"

/** Extensions converted to text. */
export const documentExtensions: ReadonlySet<string> = new Set([".docx", ".xlsx", ".pptx", ".epub", ".odt"])

export const readDocument = (request: FileRequest) =>
  Effect.fail(new ConversionFailed({ path: request.target.absolute, format: "document", reason: "not supported yet" }))
