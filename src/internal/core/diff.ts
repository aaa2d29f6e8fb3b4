/**
 * Line diffs: Myers' O(ND) shortest edit script with a bound on its cost, unified-diff text, and
 * the change between what a session was shown of a file and the file now. Pure.
 */

/** A change block: old lines `oldStart`..`oldEnd` become new lines `newStart`..`newEnd` (0-based, end exclusive). */
export interface Block {
  readonly oldStart: number
  readonly oldEnd: number
  readonly newStart: number
  readonly newEnd: number
}

export interface DiffBounds {
  /** Most lines removed plus added; a larger difference is not computed. */
  readonly maxEdits: number
  /** Most comparison steps; a diff that would take more is given up (huge files with scattered changes). */
  readonly maxWork: number
}

/**
 * The change blocks that turn a sequence of `oldLength` items into one of `newLength` (a shortest
 * edit script, deletions before insertions within a block), or `undefined` when more than
 * `maxEdits` items differ or the search passes `maxWork` steps. `equals(i, j)` compares old item
 * `i` with new item `j`. Memory is O(maxEdits²) at most, time O((N + M) · D).
 */
export const diffBlocks = (
  oldLength: number,
  newLength: number,
  equals: (i: number, j: number) => boolean,
  bounds: DiffBounds
): Array<Block> | undefined => {
  // The common head and tail cost one comparison a line; the search runs on the middle only.
  let head = 0
  while (head < oldLength && head < newLength && equals(head, head)) head++
  let tail = 0
  while (tail < oldLength - head && tail < newLength - head && equals(oldLength - 1 - tail, newLength - 1 - tail)) {
    tail++
  }
  const n = oldLength - head - tail
  const m = newLength - head - tail
  if (n === 0 && m === 0) return []
  if (n === 0 || m === 0) {
    return n + m > bounds.maxEdits
      ? undefined
      : [{ oldStart: head, oldEnd: head + n, newStart: head, newEnd: head + m }]
  }
  const limit = Math.min(n + m, bounds.maxEdits)
  const offset = limit + 1
  const v = new Int32Array(2 * limit + 3)
  // trace[d] holds the furthest x on each diagonal k in [-d, d] after d edits.
  const trace: Array<Int32Array> = []
  let work = 0
  let found = -1
  search: for (let d = 0; d <= limit; d++) {
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!)
        ? v[offset + k + 1]!
        : v[offset + k - 1]! + 1
      let y = x - k
      while (x < n && y < m && equals(head + x, head + y)) {
        x++
        y++
        work++
      }
      v[offset + k] = x
      if (x >= n && y >= m) {
        trace.push(v.slice(offset - d, offset + d + 1))
        found = d
        break search
      }
    }
    work += d + 1
    if (work > bounds.maxWork) return undefined
    trace.push(v.slice(offset - d, offset + d + 1))
  }
  if (found < 0) return undefined
  // Walk back from the end: each step is one deletion or insertion, found on the previous trace.
  const edits: Array<Block> = []
  let x = n
  let y = m
  for (let d = found; d > 0; d--) {
    const previous = trace[d - 1]!
    const at = (k: number) => previous[k + d - 1]!
    const k = x - y
    const down = k === -d || (k !== d && at(k - 1) < at(k + 1))
    const previousK = down ? k + 1 : k - 1
    const previousX = at(previousK)
    const previousY = previousX - previousK
    edits.push(
      down
        ? {
          oldStart: head + previousX,
          oldEnd: head + previousX,
          newStart: head + previousY,
          newEnd: head + previousY + 1
        }
        : {
          oldStart: head + previousX,
          oldEnd: head + previousX + 1,
          newStart: head + previousY,
          newEnd: head + previousY
        }
    )
    x = previousX
    y = previousY
  }
  edits.reverse()
  const blocks: Array<Block> = []
  for (const edit of edits) {
    const last = blocks[blocks.length - 1]
    if (last !== undefined && last.oldEnd === edit.oldStart && last.newEnd === edit.newStart) {
      blocks[blocks.length - 1] = {
        oldStart: last.oldStart,
        oldEnd: edit.oldEnd,
        newStart: last.newStart,
        newEnd: edit.newEnd
      }
    } else blocks.push(edit)
  }
  return blocks
}

/** A 53-bit hash of a line (cyrb53): lines are compared by hash before their text is at hand. */
export const hashLine = (text: string): number => {
  let h1 = 0xdeadbeef
  let h2 = 0x41c6ce57
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    h1 = Math.imul(h1 ^ c, 2654435761)
    h2 = Math.imul(h2 ^ c, 1597334677)
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909)
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909)
  return 4294967296 * (2097151 & h2) + (h1 >>> 0)
}

/** The text of a file as lines: split at `\n`, `\r\n` or a lone `\r`; a final terminator starts no extra line. */
export const splitLines = (text: string): Array<string> => {
  if (text.length === 0) return []
  const lines = text.split(/\r\n|\r|\n/)
  if (lines[lines.length - 1] === "") lines.pop()
  return lines
}

export interface UnifiedOptions {
  /** Unchanged lines shown around each change (3, as `diff -u`). */
  readonly context: number
  /** May old line `i` (0-based) appear as context? Hunks never reach past a line that may not. */
  readonly contextAllowed?: ((i: number) => boolean) | undefined
  /** The line numbers of the texts' first lines, when they are excerpts of files (1 by default). */
  readonly oldFirst?: number | undefined
  readonly newFirst?: number | undefined
}

/**
 * Unified-diff hunks (`@@ -a,b +c,d @@` and their lines) for `blocks` between two texts;
 * `oldLine`/`newLine` give the lines by 0-based index. Hunks closer than twice the context join.
 */
export const unifiedHunks = (
  blocks: ReadonlyArray<Block>,
  oldLength: number,
  oldLine: (i: number) => string,
  newLine: (j: number) => string,
  options: UnifiedOptions
): Array<string> => {
  const allowed = options.contextAllowed ?? (() => true)
  const out: Array<string> = []
  let i = 0
  while (i < blocks.length) {
    // The blocks of one hunk: the gap of unchanged lines between them is short and all allowed.
    let j = i
    while (j + 1 < blocks.length) {
      const gapStart = blocks[j]!.oldEnd
      const gapEnd = blocks[j + 1]!.oldStart
      let ok = gapEnd - gapStart <= 2 * options.context
      for (let line = gapStart; ok && line < gapEnd; line++) ok = allowed(line)
      if (!ok) break
      j++
    }
    const first = blocks[i]!
    const last = blocks[j]!
    let before = 0
    while (before < options.context && first.oldStart - before - 1 >= 0 && allowed(first.oldStart - before - 1)) {
      before++
    }
    const previousEnd = i > 0 ? blocks[i - 1]!.oldEnd : 0
    before = Math.min(before, first.oldStart - previousEnd)
    let after = 0
    const nextStart = j + 1 < blocks.length ? blocks[j + 1]!.oldStart : Infinity
    while (
      after < options.context && last.oldEnd + after < Math.min(nextStart, oldLength) && allowed(last.oldEnd + after)
    ) {
      after++
    }
    const body: Array<string> = []
    for (let line = first.oldStart - before; line < first.oldStart; line++) body.push(` ${oldLine(line)}`)
    for (let b = i; b <= j; b++) {
      const block = blocks[b]!
      for (let line = block.oldStart; line < block.oldEnd; line++) body.push(`-${oldLine(line)}`)
      for (let line = block.newStart; line < block.newEnd; line++) body.push(`+${newLine(line)}`)
      const gapEnd = b < j ? blocks[b + 1]!.oldStart : block.oldEnd + after
      for (let line = block.oldEnd; line < gapEnd; line++) body.push(` ${oldLine(line)}`)
    }
    const oldStart = first.oldStart - before
    const oldCount = last.oldEnd + after - oldStart
    const newStart = first.newStart - before
    const newCount = last.newEnd + after - newStart
    out.push(
      `@@ -${range(oldStart + (options.oldFirst ?? 1) - 1, oldCount)} +${
        range(newStart + (options.newFirst ?? 1) - 1, newCount)
      } @@`,
      ...body
    )
    i = j + 1
  }
  return out
}

/** `start,count` as unified diffs write it: 1-based; an empty range names the line before it. */
const range = (start: number, count: number): string =>
  count === 0 ? `${start},0` : count === 1 ? `${start + 1}` : `${start + 1},${count}`

/** The lines of `old` with unified-diff `hunks` applied; throws when a hunk does not fit. */
export const applyHunks = (old: ReadonlyArray<string>, hunks: ReadonlyArray<string>): Array<string> => {
  const out: Array<string> = []
  let at = 0
  let h = 0
  while (h < hunks.length) {
    const header = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@$/.exec(hunks[h]!)
    if (header === null) throw new Error(`not a hunk header: ${hunks[h]}`)
    const count = header[2] === undefined ? 1 : Number(header[2])
    const start = count === 0 ? Number(header[1]) : Number(header[1]) - 1
    if (start < at) throw new Error(`hunk at ${start + 1} overlaps the one before`)
    out.push(...old.slice(at, start))
    at = start
    h++
    while (h < hunks.length && !hunks[h]!.startsWith("@@")) {
      const line = hunks[h]!
      const text = line.slice(1)
      if (line[0] === "+") out.push(text)
      else {
        if (old[at] !== text) throw new Error(`line ${at + 1} does not match the hunk`)
        if (line[0] === " ") out.push(text)
        at++
      }
      h++
    }
  }
  out.push(...old.slice(at))
  return out
}

/** What the session was shown of a version of a file. */
export interface SeenVersion {
  /** `hashLine` of every line of that version (its whole text). */
  readonly hashes: ArrayLike<number>
  /** The shown lines' text, by 1-based line number. */
  readonly lines: ReadonlyMap<number, string>
}

/** The file now: its lines and their `hashLine`s. */
export interface NowVersion {
  readonly lines: ReadonlyArray<string>
  readonly hashes: ArrayLike<number>
}

export interface ChangeLimits extends DiffBounds {
  /** A diff is shown only when at most this many shown lines were removed plus added. */
  readonly maxDiffLines: number
  /** … and its text is at most this many UTF-16 code units. */
  readonly maxDiffChars: number
  readonly context: number
}

export type Change =
  /** No line differs: line endings, a byte-order mark or the final newline changed. */
  | { readonly _tag: "NoLineChanged" }
  /** More differs than the bounds allow computing. */
  | { readonly _tag: "TooDifferent"; readonly oldLines: number; readonly newLines: number }
  | {
    readonly _tag: "Lines"
    /** Lines removed and added where the session was shown every line the change touches. */
    readonly removed: number
    readonly added: number
    /** Lines removed and added elsewhere (not shown, or a change reaching past what was shown). */
    readonly outsideRemoved: number
    readonly outsideAdded: number
    /** Hunks for the shown lines' changes, when small enough to show (else undefined). */
    readonly hunks: ReadonlyArray<string> | undefined
  }

/**
 * How the file changed since the session was shown `seen`: the line diff of the two versions
 * (by hash, bounded), split into changes within the lines the session was shown — a change whose
 * old lines were all shown, or an insertion between two shown lines (or at the file's edge next
 * to one) — and changes elsewhere. Hunks cover the first kind only, with context from the shown
 * lines, so applying them to what the session saw gives the file's new text there.
 */
export const changeSince = (seen: SeenVersion, now: NowVersion, limits: ChangeLimits): Change => {
  const oldLength = seen.hashes.length
  const newLength = now.hashes.length
  const blocks = diffBlocks(oldLength, newLength, (i, j) => seen.hashes[i] === now.hashes[j], limits)
  if (blocks === undefined) return { _tag: "TooDifferent", oldLines: oldLength, newLines: newLength }
  if (blocks.length === 0) return { _tag: "NoLineChanged" }
  const shown = (i: number) => seen.lines.has(i + 1)
  const within = (block: Block): boolean => {
    if (block.oldEnd > block.oldStart) {
      for (let line = block.oldStart; line < block.oldEnd; line++) if (!shown(line)) return false
      return true
    }
    // An insertion between old lines oldStart - 1 and oldStart (0-based).
    return (block.oldStart === 0 || shown(block.oldStart - 1)) &&
      (block.oldStart === oldLength || shown(block.oldStart))
  }
  const inside = blocks.filter(within)
  const outside = blocks.filter((block) => !within(block))
  const count = (list: ReadonlyArray<Block>, side: "old" | "new") =>
    list.reduce(
      (sum, block) => sum + (side === "old" ? block.oldEnd - block.oldStart : block.newEnd - block.newStart),
      0
    )
  const removed = count(inside, "old")
  const added = count(inside, "new")
  let hunks: Array<string> | undefined
  if (inside.length > 0 && removed + added <= limits.maxDiffLines && shownTextsMatch(blocks, seen, now)) {
    // Context never reaches into a change left out, nor across an insertion left out: the
    // hunks' line numbers and context would no longer describe the file now.
    const barred = new Set<number>()
    for (const block of outside) {
      for (let line = block.oldStart; line < block.oldEnd; line++) barred.add(line)
      if (block.oldEnd === block.oldStart) barred.add(block.oldStart - 1)
    }
    hunks = unifiedHunks(inside, oldLength, (i) => seen.lines.get(i + 1)!, (j) => now.lines[j]!, {
      context: limits.context,
      contextAllowed: (i) => shown(i) && !barred.has(i)
    })
    const chars = hunks.reduce((sum, line) => sum + line.length + 1, 0)
    if (chars > limits.maxDiffChars) hunks = undefined
  }
  return {
    _tag: "Lines",
    removed,
    added,
    outsideRemoved: count(outside, "old"),
    outsideAdded: count(outside, "new"),
    hunks
  }
}

/**
 * Every shown line the diff keeps (outside all blocks) has the same text now, not only the same
 * hash: otherwise (a hash collision) hunks built from the shown text would not apply.
 */
const shownTextsMatch = (blocks: ReadonlyArray<Block>, seen: SeenVersion, now: NowVersion): boolean => {
  for (const [line, text] of seen.lines) {
    const i = line - 1
    // The last block starting at or before i.
    let low = 0
    let high = blocks.length - 1
    let found = -1
    while (low <= high) {
      const mid = (low + high) >> 1
      if (blocks[mid]!.oldStart <= i) {
        found = mid
        low = mid + 1
      } else high = mid - 1
    }
    const block = found < 0 ? undefined : blocks[found]!
    if (block !== undefined && i < block.oldEnd) continue
    const j = block === undefined ? i : i - block.oldEnd + block.newEnd
    if (now.lines[j] !== text) return false
  }
  return true
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`

/**
 * The notice that leads a read of a changed file, and the diff after it (unified, against what the
 * session was shown) when there is one. `path` labels the diff.
 */
export const changeNotice = (path: string, change: Change): Array<string> => {
  switch (change._tag) {
    case "NoLineChanged":
      return [
        "(Changed since your last read: no line's text differs; only line endings, a byte-order mark, the final newline or text past the line-length cut.)"
      ]
    case "TooDifferent":
      return [
        `(Changed since your last read: too different to compare; it had ${
          plural(change.oldLines, "line")
        }, now ${change.newLines}.)`
      ]
    case "Lines": {
      const inside = change.removed + change.added > 0
      const outside = change.outsideRemoved + change.outsideAdded > 0
      const counts = (removed: number, added: number) => `${plural(removed, "line")} removed, ${added} added`
      const parts = [
        ...(inside ? [`${counts(change.removed, change.added)} in the lines you were shown`] : []),
        ...(outside
          ? [
            `${counts(change.outsideRemoved, change.outsideAdded)} ${
              inside ? "elsewhere" : "outside the lines you were shown, which are unchanged"
            }`
          ]
          : [])
      ]
      if (change.hunks === undefined) {
        return [`(Changed since your last read: ${parts.join("; ")}${inside ? "; too many to show as a diff" : ""}.)`]
      }
      return [
        `(Changed since your last read: ${parts.join("; ")}. The diff against what you were shown:)`,
        `--- ${path} (your last read)`,
        `+++ ${path} (now)`,
        ...change.hunks
      ]
    }
  }
}

/** The notice when the two versions are not compared line by line (`why`: too large to keep, another encoding …). */
export const uncomparedNotice = (why: string): string => `(Changed since your last read; ${why}.)`
