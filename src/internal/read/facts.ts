/**
 * What is known of a regular file before a source is chosen, and the refusal when no source
 * claims it.
 */
import * as Effect from "effect/Effect"
import { BinaryFile } from "../../ReadError.js"
import { describeBinary } from "../core/binary.js"
import type { FileFacts } from "../sources/types.js"

/** The binary refusal: what the file looks like, so the model can act on it. */
export const refuseBinary = (facts: FileFacts) =>
  Effect.fail(
    new BinaryFile({
      path: facts.target.absolute,
      description: describeBinary(facts.sniffed, facts.head, facts.extension),
      size: Number(facts.info.size)
    })
  )
