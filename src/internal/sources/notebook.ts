/**
 * Jupyter notebooks as numbered text with cell markers. (Being implemented.)
 */
import * as Effect from "effect/Effect"
import { ConversionFailed } from "../../ReadError.js"
import type { FileRequest } from "./types.js"

export const readNotebook = (request: FileRequest) =>
  Effect.fail(new ConversionFailed({ path: request.target.absolute, format: "ipynb", reason: "not supported yet" }))
