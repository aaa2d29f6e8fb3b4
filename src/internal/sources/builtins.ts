/**
 * The sources `read` ships with, in the order the registry asks them. Each is a light value:
 * its `claims` looks only at the facts; its `read` loads the implementation on first use, so a
 * plain text read never loads the archive, database or document code.
 *
 * The rules, stated once:
 * - The path as written wins over any selector or container split (`core/resolve.ts`).
 * - Content beats extension: `sniffed` comes from magic bytes; a name only narrows.
 * - A `.db` is a database only with the SQLite header; a `.zip` holding plain text is text.
 * - A PDF is attached, unless the request asks for lines or pages of its text, or the host or the
 *   model takes no PDF files (`HostMedia`, `ModelInput`); with `pageImages` its pages are
 *   attached as images.
 * - What no source claims is refused as binary, saying what it looks like.
 */
import * as Effect from "effect/Effect"
import { fileURLToPath } from "node:url"
import { HostMedia } from "../../Limits.js"
import { ModelInput } from "../../ModelInput.js"
import {
  ARCHIVE_CONTAINER,
  archiveExtension,
  DATABASE_CONTAINER,
  databaseExtension,
  isSqliteHeader,
  looksLikeArchive
} from "../core/containers.js"
import { mediaExtensions, mediaKind } from "../core/media.js"
import { documentExtensions } from "./document/limits.js"
import type * as TextSource from "./text.js"
import type { FileFacts, FileSource, SchemeSource } from "./types.js"

export const database: FileSource = {
  _tag: "FileSource",
  name: "database",
  container: DATABASE_CONTAINER,
  claims: (facts) => databaseExtension.test(facts.target.absolute) && isSqliteHeader(facts.head),
  read: (request) =>
    Effect.flatMap(
      Effect.promise(() => import("./database.js")),
      (m) => m.readDatabase({ ...request, inner: request.inner ?? "" })
    )
}

export const archive: FileSource = {
  _tag: "FileSource",
  name: "archive",
  container: ARCHIVE_CONTAINER,
  // Anything named like an archive is one (or gets the archive reader's account of why it is
  // not), except a file that holds plain text.
  claims: (facts) =>
    archiveExtension.test(facts.target.absolute) &&
    (facts.inner !== undefined || looksLikeArchive(facts.target.absolute, facts.head) || !facts.text),
  read: (request) =>
    Effect.flatMap(
      Effect.promise(() => import("./archive.js")),
      (m) => m.readArchive({ ...request, inner: request.inner ?? "" })
    )
}

/** A page or line selector, a tail, a view, or offset/limit: the request asks for a PDF's text. */
const asksForText = ({ params, selection }: FileFacts): boolean =>
  selection.pages !== undefined || selection.raw || selection.ranges.length > 0 || selection.tail !== undefined ||
  selection.view !== undefined || params.view !== undefined || params.offset !== undefined || params.limit !== undefined

/**
 * A PDF: its pages as images when asked (`pageImages`); its text when the request asks for text
 * or the host or the model takes no PDF files (`HostMedia`, `ModelInput`); else the attachment.
 */
export const pdfText: FileSource = {
  _tag: "FileSource",
  name: "pdf-text",
  claims: ({ sniffed }) => sniffed?.mime === "application/pdf",
  read: (request) =>
    request.params.pageImages === true
      ? Effect.flatMap(Effect.promise(() => import("./pdfPages.js")), (m) => m.readPdfPageImages(request))
      : Effect.flatMap(Effect.zip(HostMedia, ModelInput), ([host, input]) =>
        asksForText(request) || host.pdf === "text" || !input.pdfs
          ? Effect.flatMap(
            Effect.promise(() =>
              import("./document.js")
            ),
            (m) => m.readDocument(request)
          )
          : Effect.flatMap(Effect.promise(() => import("./media.js")), (m) => m.readMedia(request)))
}

export const media: FileSource = {
  _tag: "FileSource",
  name: "media",
  claims: ({ extension, sniffed }) =>
    (sniffed !== undefined && mediaKind(sniffed.mime) !== undefined) || mediaExtensions.has(extension),
  read: (request) => Effect.flatMap(Effect.promise(() => import("./media.js")), (m) => m.readMedia(request))
}

export const notebook: FileSource = {
  _tag: "FileSource",
  name: "notebook",
  claims: ({ extension, selection }) => extension === ".ipynb" && !selection.raw,
  read: (request) => Effect.flatMap(Effect.promise(() => import("./notebook.js")), (m) => m.readNotebook(request))
}

export const document: FileSource = {
  _tag: "FileSource",
  name: "document",
  claims: ({ extension }) => documentExtensions.has(extension),
  read: (request) => Effect.flatMap(Effect.promise(() => import("./document.js")), (m) => m.readDocument(request))
}

/** The text source's module once loaded: most reads are text, and need not wait on `import()` again. */
let textModule: typeof TextSource | undefined

export const text: FileSource = {
  _tag: "FileSource",
  name: "text",
  claims: (facts) => !facts.binary,
  read: (request) =>
    textModule !== undefined
      ? textModule.readText(request)
      : Effect.flatMap(Effect.promise(() => import("./text.js")), (m) => {
        textModule = m
        return m.readText(request)
      })
}

/** `file:///abs/path` is that path, selectors and containers included. */
export const fileUrl: SchemeSource = {
  _tag: "SchemeSource",
  name: "file-url",
  schemes: ["file"],
  toPath: fileURLToPath
}

/** `http://` and `https://`: web pages, fetched under the `webfetch` permission. */
export const web: SchemeSource = {
  _tag: "SchemeSource",
  name: "web",
  schemes: ["http", "https"],
  read: (request) => Effect.flatMap(Effect.promise(() => import("./web.js")), (m) => m.readWebScheme(request))
}

export const defaults: ReadonlyArray<FileSource | SchemeSource> = [
  database,
  archive,
  pdfText,
  media,
  notebook,
  document,
  text,
  fileUrl,
  web
]
