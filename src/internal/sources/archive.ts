/**
 * Archives (`.zip`, `.tar`, `.tar.gz`/`.tgz`): listings and members. (Being implemented.)
 */
import * as Effect from "effect/Effect"
import { ArchiveError } from "../../ReadError.js"
import type { ContainerRequest } from "./types.js"

export const readArchive = (request: ContainerRequest) =>
  Effect.fail(new ArchiveError({ path: request.target.absolute, reason: "Archives are not supported yet" }))
