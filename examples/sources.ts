/**
 * The registry example of docs/sources.md, type-checked in CI.
 */
import * as Effect from "effect/Effect"
import { Read, Sources } from "../src/index.js"

// A source for files no default claims (binary `.parquet`): after the defaults is enough.
const parquet = Sources.fileSource({
  name: "parquet",
  claims: (facts) => facts.extension === ".parquet",
  read: (request) =>
    Sources.textResult({
      path: request.target.absolute,
      text: `${request.info.size} bytes of Parquet\n`,
      params: request.params,
      selection: request.selection
    })
})

// `skill://review` is `skills/review/SKILL.md`: a scheme that names local files goes through the
// whole pipeline (permissions, containers, selectors: `skill://review:5-9`).
export const skills = Sources.schemeSource({
  name: "skills",
  schemes: ["skill"],
  toPath: (input) => {
    const [name, ...rest] = input.slice("skill://".length).split(":")
    return [`skills/${name}/SKILL.md`, ...rest].join(":")
  }
})

// `memory://todo` answers with content: numbered, selectable and capped like a file.
const notes: Record<string, string> = { todo: "buy milk\nship it\n" }
const memory = Sources.schemeSource({
  name: "memory",
  schemes: ["memory"],
  read: (request) =>
    Sources.textResult({
      path: request.url,
      text: notes[request.url.slice(9)] ?? "",
      params: request.params,
      selection: request.selection
    })
})

export const WithMine = Sources.layer([skills, memory, ...Sources.defaults, parquet])
// No web pages in this session:
export const Offline = Sources.layer(Sources.defaults.filter((source) => source.name !== "web"))

// Provided next to the session's services (see the API example):
export const reviewSkill = Read.read({ filePath: "skill://review:1-20" }).pipe(Effect.provide(WithMine))
