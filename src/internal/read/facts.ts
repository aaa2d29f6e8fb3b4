/**
 * What is known of a regular file before a source is chosen (its first bytes sniffed), and the
 * refusal when no source claims it.
 */
import type { File } from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import { BinaryFile } from "../../ReadError.js"
import { binarySignature, describeBinary, textUntilNul } from "../core/binary.js"
import { detectOnce, isUtf8 } from "../core/encoding.js"
import type { Selection } from "../core/selector.js"
import { sniff } from "../io/sniff.js"
import type { FileFacts, Params } from "../sources/types.js"
import type { Target } from "./access.js"

/** What the first bytes say, for the sources' `claims`. */
export const factsOf = (
  target: Target,
  info: File.Info,
  head: Uint8Array,
  request: Params,
  selection: Selection,
  inner: string | undefined,
  extension: string
) =>
  Effect.map(
    head.length === 0
      ? Effect.succeed(undefined)
      : Effect.promise(() => sniff(head)),
    (sniffed) => {
      const size = Number(info.size)
      const detected = detectOnce(head, head.length >= size)
      // A named encoding overrules the NUL heuristic, never a recognised binary format.
      const binary = request.encoding === undefined
        ? detected._tag === "Binary" || (sniffed !== undefined && detected.fallback)
        : binarySignature(head) !== undefined || (sniffed !== undefined && detected._tag === "Binary")
      const facts: FileFacts = {
        target,
        info,
        extension,
        head,
        sniffed: sniffed === undefined ? undefined : { mime: sniffed.mime, ext: sniffed.ext },
        text: head.length > 0 && detected._tag === "Text" && !detected.fallback,
        binary,
        params: request,
        selection,
        inner
      }
      return facts
    }
  )

/**
 * The binary refusal: what the file looks like, so the model can act on it. `textFirst`: where the
 * text the file starts with met a NUL byte (`nulAt`) and that text as sampled, when it was found
 * past `facts.head` (by default it is looked for in the head); the refusal then says how to read
 * the file as text anyway.
 */
export const refuseBinary = (
  facts: FileFacts,
  textFirst?: { readonly nulAt: number; readonly text: Uint8Array }
) => {
  const inHead = textUntilNul(facts.head)
  const found = textFirst ??
    (inHead === undefined ? undefined : { nulAt: inHead, text: facts.head.subarray(0, inHead) })
  const text = found?.text
  return Effect.fail(
    new BinaryFile({
      path: facts.target.absolute,
      description: describeBinary(facts.sniffed, facts.head, facts.extension, {
        nulAt: found?.nulAt,
        // A named encoding overrules the NUL heuristic (not a signature or a sniffed format).
        readAsText: text === undefined || facts.params.encoding !== undefined
          ? undefined
          : isUtf8(text, false)
          ? `encoding "utf-8" reads it as text anyway`
          : `naming its encoding (e.g. encoding "windows-1252") reads it as text anyway`
      }),
      size: Number(facts.info.size)
    })
  )
}
