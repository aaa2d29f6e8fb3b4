/**
 * SQLite databases: tables, schemas, rows, pages and read-only queries. (Being implemented.)
 */
import * as Effect from "effect/Effect"
import { DatabaseError } from "../../ReadError.js"
import type { ContainerRequest } from "./types.js"

export const readDatabase = (request: ContainerRequest) =>
  Effect.fail(new DatabaseError({ path: request.target.absolute, reason: "SQLite databases are not supported yet" }))
