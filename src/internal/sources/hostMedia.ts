/**
 * What the host can carry to its model besides text. A library host on `@effect/ai` puts a
 * PDF into the prompt as a file part (OpenAI and Anthropic both take PDFs), so a PDF is attached
 * by default; a door whose hosts mostly cannot (MCP: text and image blocks are all a host is
 * sure to pass on) asks for the PDF's text instead, which `read` then pages like any document.
 */
import * as Context from "effect/Context"

export interface HostMediaShape {
  /** `"attach"`: a PDF is an attachment (unless lines or pages are asked for); `"text"`: its text. */
  readonly pdf: "attach" | "text"
}

export class HostMedia extends Context.Reference<HostMedia>()("effect-read/HostMedia", {
  defaultValue: (): HostMediaShape => ({ pdf: "attach" })
}) {}
