/**
 * What is known of a regular file before a source is chosen (its first bytes sniffed), and the
 * refusal when no source claims it.
 */
import type { File } from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import { BinaryFile } from "../../ReadError.js"
import { binarySignature, describeBinary } from "../core/binary.js"
import { detectOnce } from "../core/encoding.js"
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

/** The binary refusal: what the file looks like, so the model can act on it. */
export const refuseBinary = (facts: FileFacts) =>
  Effect.fail(
    new BinaryFile({
      path: facts.target.absolute,
      description: describeBinary(facts.sniffed, facts.head, facts.extension),
      size: Number(facts.info.size)
    })
  )
