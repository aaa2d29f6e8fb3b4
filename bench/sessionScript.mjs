/**
 * The scripted agent session of bench/session.mjs, playable on any backend (one runtime, or
 * replicas in processes of their own: bench/replicas.mjs): its project, its script of reads,
 * edits and host events, and the checks of every stub and change notice against a model of what
 * is in the context.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { applyHunks } from "../dist/internal/core/diff.js"

const sourceLine = (i) => `export const value${i} = compute(${i}, "${"x".repeat(i % 40)}") // line ${i}`
const files = {}
for (let f = 0; f < 20; f++) {
  const lines = 40 + ((f * 37) % 160)
  files[`src/module${f}.ts`] = Array.from({ length: lines }, (_, i) => sourceLine(i + 1)).join("\n") + "\n"
}
files["AGENTS.md"] = "# Rules\nRun the tests before you finish.\n"
files["README.md"] = Array.from({ length: 120 }, (_, i) => `Paragraph ${i + 1} of the readme.`).join("\n") + "\n"
/** Write the project under `root` as it is before a session (again: a session edits it). */
export const writeProject = (root) => {
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true })
    fs.writeFileSync(path.join(root, name), content)
  }
}

/** The script: reads, edits and host events, as an agent session goes. */
export const script = () => {
  const steps = []
  const read = (filePath) => steps.push({ read: filePath })
  const m = (i) => `src/module${i}.ts`
  // Orientation: instructions, readme, the modules.
  read("AGENTS.md")
  read("README.md")
  for (let i = 0; i < 10; i++) read(m(i))
  // Work on module3 and module7: re-reads of unchanged files, narrower looks, an edit between.
  read(m(3))
  read(`${m(3)}:10-30`)
  read(m(7))
  read(m(3))
  steps.push({ edit: m(3) })
  read(m(3))
  read(m(3))
  read(`${m(7)}:1-20`)
  steps.push({ edit: m(7), line: 12 })
  read(m(7))
  for (let i = 0; i < 5; i++) read(m(i))
  read("AGENTS.md")
  // The host compacts the conversation: nothing is held any more.
  steps.push({ compacted: true })
  read(m(3))
  read(m(7))
  read(m(3))
  read(m(7))
  read("README.md:1-40")
  // An edit outside the lines the session was shown: told, not shown.
  steps.push({ edit: "README.md", line: 90 })
  read("README.md:1-40")
  for (let i = 10; i < 16; i++) read(m(i))
  steps.push({ mark: true })
  read(m(16))
  read(m(17))
  steps.push({ rewound: true })
  read(m(16))
  read(m(17))
  read(m(16))
  steps.push({ edit: m(12) })
  read(m(12))
  read(m(12))
  read(m(10))
  read(m(11))
  read(m(13))
  read(m(3))
  read("AGENTS.md")
  read(m(7))
  read(m(14))
  read(m(15))
  read(m(10))
  steps.push({ edit: m(11), line: 3 })
  read(m(11))
  read(`${m(12)}:1-30`)
  read(m(18))
  read(m(19))
  read(`${m(18)}:5-25`)
  read(m(19))
  return steps
}

/**
 * Play the script on `backend` — `read(filePath)` → `{ output, metadata }`, `compacted()`,
 * `mark()` → a mark, `rewound(mark)`, each a promise — in the project at `root`, checking every
 * stub and notice against the model of the context. `memory`: does the backend remember (else no
 * notice is expected).
 */
export const playScript = async (root, backend, memory) => {
  let bytes = 0
  let reads = 0
  let stubs = 0
  const wrong = []
  // The context model: per file, the lines shown since the last compaction, with the content seen.
  let context = new Map()
  // Per file, the whole text of the version the session last saw (since the last compaction).
  let lastSeen = new Map()
  let marked
  let markedSeen
  let markSeq = 0
  let edits = 0
  const notices = { total: 0, diffs: 0, outside: 0, countsOnly: 0, wrong: [], missed: [] }
  // Time in `read` only (not the script's own checks).
  let readMs = 0
  for (const step of script()) {
    if (step.edit !== undefined) {
      const file = path.join(root, step.edit)
      if (step.line === undefined) fs.appendFileSync(file, `// edit ${++edits}\n`)
      else {
        const lines = fs.readFileSync(file, "utf8").split("\n")
        lines[step.line - 1] += ` // edit ${++edits}`
        fs.writeFileSync(file, lines.join("\n"))
      }
    } else if (step.compacted) {
      context = new Map()
      lastSeen = new Map()
      await backend.compacted()
    } else if (step.mark) {
      marked = new Map([...context].map(([k, v]) => [k, new Map(v)]))
      markedSeen = new Map(lastSeen)
      markSeq = await backend.mark()
    } else if (step.rewound) {
      context = marked
      lastSeen = markedSeen
      await backend.rewound(markSeq)
    } else {
      const started = performance.now()
      const result = await backend.read(step.read)
      readMs += performance.now() - started
      reads++
      bytes += Buffer.byteLength(result.output)
      const meta = result.metadata
      const currentText = fs.readFileSync(meta.path, "utf8")
      const current = currentText.split("\n")
      const held = context.get(meta.path) ?? new Map()
      // Instruction files are outside session memory: always shown whole, never a notice.
      const before = step.read.endsWith("AGENTS.md") ? undefined : lastSeen.get(meta.path)
      const changedSince = memory && before !== undefined && before !== currentText
      if (meta.changed !== undefined) {
        notices.total++
        if (!changedSince) notices.wrong.push(`${step.read}: a notice, but unchanged since the last read`)
        else if (meta.changed.diff) {
          notices.diffs++
          const lines = result.output.split("\n")
          const hunks = lines.slice(3, lines.findIndex((line) => line.startsWith("<path>")))
          const seen = before.replace(/\n$/, "").split("\n")
          try {
            const applied = applyHunks(seen, hunks)
            const elsewhere = meta.changed.outsideRemoved + meta.changed.outsideAdded > 0
            if (!elsewhere && applied.join("\n") !== currentText.replace(/\n$/, "")) {
              notices.wrong.push(`${step.read}: the diff does not give the file now`)
            }
          } catch (error) {
            notices.wrong.push(`${step.read}: the diff does not apply to what was seen (${error.message})`)
          }
        } else if (meta.changed.removed === 0 && meta.changed.added === 0) notices.outside++
        else notices.countsOnly++
      } else if (changedSince && !meta.unchanged) notices.missed.push(step.read)
      if (!meta.unchanged) lastSeen.set(meta.path, currentText)
      if (meta.unchanged) {
        stubs++
        for (let line = meta.startLine; line <= meta.endLine; line++) {
          if (held.get(line) !== current[line - 1]) {
            wrong.push(`${step.read} line ${line}`)
            break
          }
        }
      } else {
        for (let line = meta.startLine; line <= meta.endLine; line++) held.set(line, current[line - 1])
        context.set(meta.path, held)
      }
    }
  }
  return { reads, bytes, stubs, wrong, notices, readMs }
}

/** The script's backend for one runtime holding `Read`'s services and a `SessionMemory` (session "bench"). */
export const runtimeBackend = async (runtime, Read, SessionMemory) => {
  const mem = await runtime.runPromise(SessionMemory.SessionMemory)
  return {
    read: (filePath) => runtime.runPromise(Read.read({ filePath })),
    compacted: () => runtime.runPromise(mem.compacted("bench")),
    mark: () => runtime.runPromise(mem.mark("bench")),
    rewound: (mark) => runtime.runPromise(mem.rewound("bench", mark))
  }
}
