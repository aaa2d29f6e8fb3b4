/**
 * What grew between two heap snapshots of one process (`v8.writeHeapSnapshot()`; bench/host.mjs
 * `--snapshots DIR` writes one after the first read and one after the 10,000): the objects of the
 * second that the first did not have (snapshot ids are stable within a process), their bytes by
 * kind and, for V8's code and its metadata, by the script whose function owns them.
 *
 *   node bench/heap-diff.mjs one.heapsnapshot many.heapsnapshot [rows]
 */
import * as fs from "node:fs"

const load = (file) => {
  const snapshot = JSON.parse(fs.readFileSync(file, "utf8"))
  const meta = snapshot.snapshot.meta
  const nodeFields = meta.node_fields.length
  const edgeFields = meta.edge_fields.length
  const [nodeTypes] = meta.node_types
  const [edgeTypes] = meta.edge_types
  const { edges, nodes, strings } = snapshot
  const field = (name) => meta.node_fields.indexOf(name)
  const [TYPE, NAME, SIZE, ID, EDGES] = ["type", "name", "self_size", "id", "edge_count"].map(field)
  const count = nodes.length / nodeFields
  const firstEdge = new Uint32Array(count + 1)
  for (let i = 0, e = 0; i < count; i++) {
    firstEdge[i] = e
    e += nodes[i * nodeFields + EDGES] * edgeFields
  }
  firstEdge[count] = edges.length
  // Who holds each node: the reverse of the edge lists (weak edges left out).
  const holders = Array.from({ length: count }, () => [])
  for (let i = 0; i < count; i++) {
    for (let e = firstEdge[i]; e < firstEdge[i + 1]; e += edgeFields) {
      if (edgeTypes[edges[e]] !== "weak") holders[edges[e + 2] / nodeFields].push(i)
    }
  }
  const edgeNamed = (i, name) => {
    for (let e = firstEdge[i]; e < firstEdge[i + 1]; e += edgeFields) {
      const type = edgeTypes[edges[e]]
      if (type !== "element" && type !== "hidden" && strings[edges[e + 1]] === name) return edges[e + 2] / nodeFields
    }
    return undefined
  }
  return {
    count,
    type: (i) => nodeTypes[nodes[i * nodeFields + TYPE]],
    name: (i) => strings[nodes[i * nodeFields + NAME]],
    size: (i) => nodes[i * nodeFields + SIZE],
    id: (i) => nodes[i * nodeFields + ID],
    holders,
    edgeNamed
  }
}

const [before, after] = [load(process.argv[2]), load(process.argv[3])]
const rows = Number(process.argv[4] ?? 25)
const known = new Set(Array.from({ length: before.count }, (_, i) => before.id(i)))

// The function a piece of code belongs to: the nearest holder with a script (a SharedFunctionInfo).
const scriptOf = (i) => {
  const script = after.edgeNamed(i, "script_or_debug_info")
  return script === undefined ? undefined : String(after.name(script))
}
const ownerScript = (start) => {
  let frontier = [start]
  const seen = new Set(frontier)
  for (let depth = 0; depth < 6 && frontier.length > 0; depth++) {
    const next = []
    for (const i of frontier) {
      for (const holder of after.holders[i]) {
        if (seen.has(holder)) continue
        seen.add(holder)
        const shared = after.type(holder) === "closure" ? after.edgeNamed(holder, "shared") : holder
        const script = shared === undefined ? undefined : scriptOf(shared)
        if (script !== undefined) return script
        if (["code", "hidden", "array"].includes(after.type(holder))) next.push(holder)
      }
    }
    frontier = next
  }
  return undefined
}
const where = (script) =>
  script === undefined ? "(no function)" : script
    .replace(/^file:\/\/.*\/node_modules\/((@[^/]+\/)?[^/]+)\/.*/, "$1")
    .replace(/^file:\/\/.*\/dist\/(.*)/, "effect-read: $1")
    .replace(/^file:\/\/.*\/bench\/(.*)/, "bench: $1")

const kinds = new Map()
const owners = new Map()
let total = 0
const add = (map, key, size) => map.set(key, (map.get(key) ?? 0) + size)
for (let i = 0; i < after.count; i++) {
  if (known.has(after.id(i))) continue
  const type = after.type(i)
  // Native and synthetic nodes are the embedder's graph and the snapshot's roots, not the V8 heap.
  if (type === "native" || type === "synthetic") continue
  const size = after.size(i)
  total += size
  const name = type === "code" || type === "hidden" || type === "object shape"
    ? String(after.name(i)).replace(/^\(code for .*\)$/, "(code for a named function)")
    : type === "object"
    ? String(after.name(i))
    : ""
  add(kinds, `${type}${name === "" ? "" : `: ${name.slice(0, 60)}`}`, size)
  if (type === "code") add(owners, where(ownerScript(i)), size)
}
const kb = (bytes) => `${(bytes / 1024).toFixed(0)} KB`.padStart(9)
const table = (title, map) =>
  [title, ...[...map].sort((a, b) => b[1] - a[1]).slice(0, rows).map(([key, size]) => `${kb(size)}  ${key}`)].join("\n")
console.log(`new objects on the V8 heap: ${kb(total)} (self sizes; what was freed is not subtracted)\n`)
console.log(table("by kind:", kinds))
console.log()
console.log(table("V8 code and its metadata, by the script that owns it:", owners))
