/**
 * The SQLite ledger example of docs/session-memory.md, type-checked in CI: the ledger in its own
 * SQLite file, or over a SqlClient the host already has.
 */
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as Layer from "effect/Layer"
import * as SqliteFileTime from "../src/SqliteFileTime.js"

const filename = "/var/lib/agent/effect-read.db"

// Instead of FileTime.layerMemory (needs a FileSystem, as the memory ledger does):
const LedgerLive = SqliteFileTime.layer({ filename: "/var/lib/agent/effect-read.db" }) // the directory must exist
// Or over a SqlClient you already have (tables of your own beside it):
const OnYourClient = SqliteFileTime.layerClient.pipe(Layer.provide(SqliteClient.layer({ filename })))

export const ledgers = [LedgerLive, OnYourClient]
