/**
 * Unresolved git merge conflicts in a text: the regions between `<<<<<<<` and `>>>>>>>` markers,
 * with their optional diff3 base (`|||||||`) and the `=======` that parts ours from theirs.
 *
 * A marker is a run of one character (`<`, `|`, `=`, `>`) at the start of a line, at least 7 long
 * (git's default `conflict-marker-size`), followed by the end of the line or, for all but `=`, a
 * space and a label. A region's markers share one length, so a region written with longer
 * markers (`merge.conflictStyle` with `conflict-marker-size`, or the recursive merge's inner
 * conflicts) holds regions with shorter ones: those are reported as nested in it. Markers of
 * another length inside a region are its content. Git does not care about the file's syntax,
 * so neither does this: markers inside a Markdown code fence are markers.
 *
 * Pure and incremental: feed lines in order (`push`), then `end()`; only open regions are held.
 */

export type Side = "ours" | "base" | "theirs"

export interface ConflictRegion {
  /** Lines of the `<<<<<<<` and the `>>>>>>>` markers (`end` is the last line seen when unterminated). */
  readonly start: number
  readonly end: number
  /** The marker length (7 unless written with another `conflict-marker-size`). */
  readonly size: number
  /** The labels after the markers (`HEAD`, `feature/x`, a commit), when there are any. */
  readonly labels: {
    readonly ours: string | undefined
    readonly base: string | undefined
    readonly theirs: string | undefined
  }
  /** Lines of the `|||||||` and `=======` markers, when seen. */
  readonly baseMarker: number | undefined
  readonly separator: number | undefined
  /** How deep it sits in other regions (0: top level). */
  readonly depth: number
  /** Why the region is not a well-formed conflict, when it is not (no `=======`, or no `>>>>>>>`). */
  readonly malformed: string | undefined
}

interface Open {
  readonly start: number
  readonly size: number
  readonly depth: number
  ours: string | undefined
  base: string | undefined
  baseMarker: number | undefined
  separator: number | undefined
}

const MIN_SIZE = 7
const MARKER = /^([<|=>])\1{6,}(?=$|[ \t\r])(?:[ \t](.*?))?\r?$/

/** The marker on a line: its character, length and label. */
export const markerOf = (
  line: string
): { readonly char: "<" | "|" | "=" | ">"; readonly size: number; readonly label: string | undefined } | undefined => {
  const match = MARKER.exec(line)
  if (match === null) return undefined
  const char = match[1] as "<" | "|" | "=" | ">"
  let size = 0
  while (line[size] === char) size++
  if (size < MIN_SIZE) return undefined
  const label = match[2]?.trim()
  // `=======` carries no label: text after it makes it an ordinary line (a setext heading, a rule).
  if (char === "=" && label !== undefined && label.length > 0) return undefined
  return { char, size, label: label === undefined || label.length === 0 ? undefined : label }
}

export class ConflictScanner {
  private readonly stack: Array<Open> = []
  private readonly regions: Array<ConflictRegion> = []
  private last = 0

  /** The line numbered `number` (1-based, in order). */
  push(number: number, line: string): void {
    this.last = number
    const marker = markerOf(line)
    if (marker === undefined) return
    if (marker.char === "<") {
      // Only a shorter opener nests: one as long starts a new region, so the open one never ended.
      while (this.stack.length > 0 && this.stack[this.stack.length - 1]!.size <= marker.size) {
        this.unterminated(this.stack.pop()!, number)
      }
      this.stack.push({
        start: number,
        size: marker.size,
        depth: this.stack.length,
        ours: marker.label,
        base: undefined,
        baseMarker: undefined,
        separator: undefined
      })
      return
    }
    // A marker that belongs to an enclosing region closes the regions nested in it, unterminated.
    const owner = this.ownerOf(marker.size)
    if (owner === undefined) return
    while (this.stack.length - 1 > owner) this.unterminated(this.stack.pop()!, number)
    const open = this.stack[owner]!
    if (marker.char === "|") {
      if (open.baseMarker === undefined && open.separator === undefined) {
        open.baseMarker = number
        open.base = marker.label
      }
    } else if (marker.char === "=") {
      if (open.separator === undefined) open.separator = number
    } else {
      this.stack.pop()
      this.close(
        open,
        number,
        open.separator === undefined ? `no ${"=".repeat(open.size)} between ours and theirs` : undefined,
        marker.label
      )
    }
  }

  /** The text ended: regions still open are unterminated. */
  end(): ReadonlyArray<ConflictRegion> {
    while (this.stack.length > 0) {
      const open = this.stack.pop()!
      this.close(open, this.last, `no closing ${">".repeat(open.size)} before the end of the text`)
    }
    return [...this.regions].sort((a, b) => a.start - b.start)
  }

  private unterminated(open: Open, next: number): void {
    this.close(open, next - 1, `no closing ${">".repeat(open.size)} before line ${next}`)
  }

  /** The open region whose markers are `size` long, innermost first. */
  private ownerOf(size: number): number | undefined {
    for (let i = this.stack.length - 1; i >= 0; i--) {
      if (this.stack[i]!.size === size) return i
    }
    return undefined
  }

  private close(open: Open, end: number, malformed: string | undefined, theirs?: string): void {
    this.regions.push({
      start: open.start,
      end,
      size: open.size,
      labels: { ours: open.ours, base: open.base, theirs },
      baseMarker: open.baseMarker,
      separator: open.separator,
      depth: open.depth,
      malformed
    })
  }
}

/** The conflict regions of a text's lines (line 1 first), in the order they start. */
export const findConflicts = (lines: Iterable<string>): ReadonlyArray<ConflictRegion> => {
  const scanner = new ConflictScanner()
  let number = 0
  for (const line of lines) scanner.push(++number, line)
  return scanner.end()
}

/** How a region reads in the heading above its lines. */
export const describeRegion = (region: ConflictRegion): string => {
  const label = (side: Side, text: string | undefined) => `${side}${text === undefined ? "" : ` ${text}`}`
  const sides = [
    label("ours", region.labels.ours),
    ...(region.baseMarker === undefined ? [] : [label("base", region.labels.base)]),
    ...(region.separator === undefined && region.malformed !== undefined ? [] : [label("theirs", region.labels.theirs)])
  ]
  return [
    `lines ${region.start}-${region.end}`,
    region.baseMarker === undefined ? "2-way" : "3-way (diff3)",
    sides.join(", "),
    ...(region.depth > 0 ? [`nested ${region.depth} deep`] : []),
    ...(region.malformed === undefined ? [] : [`malformed: ${region.malformed}`])
  ].join("; ")
}
