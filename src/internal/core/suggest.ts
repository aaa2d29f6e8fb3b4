/**
 * What to offer when a path is not found: near names in the same directory, and the one entry
 * a path means when it differs only by Unicode normalisation or look-alike characters. Pure.
 */

export const MAX_SUGGESTIONS = 3
/** Shorter names contain or are contained in too much to be a useful hint. */
const MIN_CONTAINED_LENGTH = 3

const stemOf = (name: string): string => {
  const dot = name.lastIndexOf(".")
  return dot > 0 ? name.slice(0, dot) : name
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/

/**
 * Fold what differs between a name typed by a model and the one on disk without being a
 * different name: NFC vs NFD, non-breaking and narrow spaces (macOS screenshots), curly quotes.
 */
export const foldName = (name: string): string =>
  // Printable ASCII has nothing to fold (and recovery folds every name of a workspace).
  PRINTABLE_ASCII.test(name) ? name : name
    .normalize("NFC")
    .replace(/[\u00a0\u2007\u2009\u202f]/g, " ")
    .replace(/[\u2018\u2019\u201a\u201b\u2032]/g, "'")
    .replace(/[\u201c\u201d\u201e\u201f\u2033]/g, "\"")

/**
 * What names are compared by: folded and lower-cased. An index that keeps names may keep this
 * too (`FileIndex.layerCached` does), so a miss does not fold every name of a workspace again.
 */
export const foldKey = (name: string): string => foldName(name).toLowerCase()

/** The single entry that folds to the same name as `name`, if exactly one does. */
export const equivalentEntry = (name: string, entries: ReadonlyArray<string>): string | undefined => {
  const target = foldName(name)
  const matches = entries.filter((entry) => entry !== name && foldName(entry) === target)
  return matches.length === 1 ? matches[0] : undefined
}

/**
 * Edits a typo may have in a name, by the length of its stem: none below 3 characters (`a.ts`
 * is not `b.ts`), one up to 5 (`scr` is `src`), two up to 11, three beyond.
 */
export const maxEdits = (name: string): number => {
  const stem = stemOf(name).length
  return stem < 3 ? 0 : stem <= 5 ? 1 : stem <= 11 ? 2 : 3
}

/**
 * The edit distance between `a` and `b` counting insertions, deletions, substitutions and
 * transpositions of neighbours (optimal string alignment), or `max + 1` as soon as it is known
 * to exceed `max`. Compares UTF-16 code units.
 */
export const editDistance = (a: string, b: string, max: number): number => distanceWith(rowsFor(b.length))(a, b, max)

/** Three rows of `width + 1` cells: two back (for transpositions), the previous one, the current one. */
const rowsFor = (width: number) => [0, 1, 2].map(() => new Int32Array(width + 1))

/** `editDistance` over reused rows (grown when a longer name comes): no allocation per name. */
const distanceWith = (initial: Array<Int32Array>) => {
  let rows = initial
  return (a: string, b: string, max: number): number => {
    if (Math.abs(a.length - b.length) > max) return max + 1
    if (a === b) return 0
    if (rows[0]!.length < b.length + 1) rows = rowsFor(b.length)
    let [before, previous, current] = rows as [Int32Array, Int32Array, Int32Array]
    for (let j = 0; j <= b.length; j++) previous[j] = j
    for (let i = 1; i <= a.length; i++) {
      current[0] = i
      let rowMin = i
      const ai = a.charCodeAt(i - 1)
      for (let j = 1; j <= b.length; j++) {
        const bj = b.charCodeAt(j - 1)
        let value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (ai === bj ? 0 : 1))
        if (i > 1 && j > 1 && ai === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === bj) {
          value = Math.min(value, before[j - 2]! + 1)
        }
        current[j] = value
        if (value < rowMin) rowMin = value
      }
      // Every later row only grows from this one's smallest value.
      if (rowMin > max) return max + 1
      ;[before, previous, current] = [previous, current, before]
    }
    return Math.min(previous[b.length]!, max + 1)
  }
}

/** How much an entry's name resembles a wanted name. */
export interface Resemblance {
  /**
   * 0: the same name but for case or look-alikes; 1: the same stem; 2: a typo away (see
   * `maxEdits`); 3: one contains the other.
   */
  readonly rank: 0 | 1 | 2 | 3
  /** Within a rank, closer is better: edits for a typo, the difference in length otherwise. */
  readonly distance: number
}

/**
 * How an entry resembles `name` (case-insensitively, look-alikes folded), or undefined when it
 * does not: the same name, the same stem with another extension, a typo away, or a name
 * containing it or contained in it. The name itself, exactly, does not resemble itself.
 * Prepared once per wanted name: recovery asks it of every name in a workspace. `folded`, when
 * given, is `foldKey(entry)` already computed.
 */
export const resemblanceTo = (name: string): (entry: string, folded?: string) => Resemblance | undefined => {
  const lower = foldKey(name)
  const stem = stemOf(lower)
  const max = maxEdits(lower)
  const distance = distanceWith(rowsFor(lower.length + max))
  // Letters counted (the bag distance, a lower bound of the edit distance): most names of a
  // workspace are rejected in one pass, without the quadratic table.
  const counts = new Int32Array(128)
  let ascii = true
  for (let i = 0; i < lower.length; i++) {
    const code = lower.charCodeAt(i)
    if (code < 128) counts[code]!++
    else ascii = false
  }
  const scratch = new Int32Array(128)
  const mayBeTypo = (other: string): boolean => {
    if (!ascii) return true
    scratch.set(counts)
    let over = 0
    for (let i = 0; i < other.length; i++) {
      const code = other.charCodeAt(i)
      if (code >= 128) return true
      if (scratch[code]!-- <= 0) over++
    }
    // Letters of `other` not in `lower`, and of `lower` not in `other`: an edit mends at most one of each.
    const missing = lower.length - (other.length - over)
    return over <= max && missing <= max
  }
  return (entry, folded) => {
    if (entry === name) return undefined
    const other = folded ?? foldKey(entry)
    const lengths = Math.abs(other.length - lower.length)
    if (other === lower) return { rank: 0, distance: lengths }
    if (stem.length > 0 && other.startsWith(stem) && stemOf(other) === stem) return { rank: 1, distance: lengths }
    if (max > 0 && lengths <= max && mayBeTypo(other)) {
      const edits = distance(lower, other, max)
      if (edits <= max) return { rank: 2, distance: edits }
    }
    if (
      Math.min(other.length, lower.length) >= MIN_CONTAINED_LENGTH && (other.includes(lower) || lower.includes(other))
    ) {
      return { rank: 3, distance: lengths }
    }
    return undefined
  }
}

/** `resemblanceTo(name)(entry)`. */
export const resemblance = (name: string, entry: string): Resemblance | undefined => resemblanceTo(name)(entry)

/**
 * Up to three entries that look like what `name` meant, best first: the same name but for
 * case, or the same stem with another extension; then names a typo away, fewest edits first;
 * then names containing it or contained in it (case-insensitively), closest in length first.
 */
export const suggestEntries = (
  name: string,
  entries: ReadonlyArray<string>,
  count = MAX_SUGGESTIONS
): ReadonlyArray<string> => {
  const ranked: Array<{ entry: string; rank: number; distance: number }> = []
  const resembles = resemblanceTo(name)
  for (const entry of entries) {
    const found = resembles(entry)
    // In one directory, a case variant and another extension rank alike.
    if (found !== undefined) ranked.push({ entry, rank: found.rank === 0 ? 1 : found.rank, distance: found.distance })
  }
  ranked.sort((a, b) => a.rank - b.rank || a.distance - b.distance || compareNames(a.entry, b.entry))
  return ranked.slice(0, count).map((r) => r.entry)
}

/**
 * The entries a missing directory component may have meant, best first (up to three): the
 * same name but for case or look-alikes, then names a typo away. Never a mere containment or
 * another extension: a directory is recovered only from a near miss.
 */
export const nearEntries = (name: string, entries: ReadonlyArray<string>): ReadonlyArray<string> => {
  const ranked: Array<{ entry: string; rank: number; distance: number }> = []
  const resembles = resemblanceTo(name)
  for (const entry of entries) {
    const found = resembles(entry)
    if (found !== undefined && (found.rank === 0 || found.rank === 2)) ranked.push({ entry, ...found })
  }
  ranked.sort((a, b) => a.rank - b.rank || a.distance - b.distance || compareNames(a.entry, b.entry))
  return ranked.slice(0, MAX_SUGGESTIONS).map((r) => r.entry)
}

/** Case-insensitive order, ties broken by the exact name so the order is total. */
export const compareNames = (a: string, b: string): number => {
  const la = a.toLowerCase()
  const lb = b.toLowerCase()
  return la < lb ? -1 : la > lb ? 1 : a < b ? -1 : a > b ? 1 : 0
}

/**
 * The names an index keeps, arranged so that those which may resemble a wanted name are found
 * without asking of each (a miss in a long-lived server then costs lookups, not a pass over
 * every name of the workspace). Built once per listing from the names and their `foldKey`s.
 */
export interface NameTable {
  /** Each folded key, its names' positions. */
  readonly byFolded: ReadonlyMap<string, ReadonlyArray<number>>
  /** Each folded stem (the key without its extension), its names' positions. */
  readonly byStem: ReadonlyMap<string, ReadonlyArray<number>>
  /** By the folded key's length, the names' positions. */
  readonly byLength: ReadonlyArray<ReadonlyArray<number>>
  /** Per name, the classes of characters its folded key has (see `classMask`). */
  readonly classes: Int32Array
  /** Every folded key, each followed by NUL (no name holds one): searched for containment. */
  readonly joined: string
  /** Where each key starts in `joined`. */
  readonly starts: Int32Array
}

/**
 * A character's class for `classMask`: 26 letters, digits, and five catch-alls. Distinct
 * characters sharing a class only weaken the bound built on it, never break it.
 */
const classOf = (code: number): number =>
  code >= 97 && code <= 122
    ? code - 97
    : code >= 48 && code <= 57
    ? 26
    : code === 46
    ? 27
    : code === 45 || code === 95
    ? 28
    : 29 + (code % 3)

/** The classes of characters `key` has, one bit each. */
const classMask = (key: string): number => {
  let mask = 0
  for (let i = 0; i < key.length; i++) mask |= 1 << classOf(key.charCodeAt(i))
  return mask
}

/** Set bits. */
const bitCount = (mask: number): number => {
  let n = mask - ((mask >>> 1) & 0x55555555)
  n = (n & 0x33333333) + ((n >>> 2) & 0x33333333)
  return (((n + (n >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24
}

const push = <K>(map: Map<K, Array<number>>, key: K, at: number) => {
  const list = map.get(key)
  if (list === undefined) map.set(key, [at])
  else list.push(at)
}

/** Arrange `folded` (the `foldKey`s of an index's names, by position) for `namesLike`. */
export const nameTable = (folded: ReadonlyArray<string>): NameTable => {
  const byFolded = new Map<string, Array<number>>()
  const byStem = new Map<string, Array<number>>()
  const byLength: Array<Array<number>> = []
  const classes = new Int32Array(folded.length)
  const starts = new Int32Array(folded.length)
  let offset = 0
  for (let i = 0; i < folded.length; i++) {
    const key = folded[i]!
    push(byFolded, key, i)
    push(byStem, stemOf(key), i)
    ;(byLength[key.length] ??= []).push(i)
    classes[i] = classMask(key)
    starts[i] = offset
    offset += key.length + 1
  }
  return { byFolded, byStem, byLength, classes, joined: folded.map((key) => `${key}\0`).join(""), starts }
}

/** The position of the key `joined` holds at `offset`. */
const keyAt = (starts: Int32Array, offset: number): number => {
  let low = 0
  let high = starts.length - 1
  while (low < high) {
    const mid = (low + high + 1) >> 1
    if (starts[mid]! <= offset) low = mid
    else high = mid - 1
  }
  return low
}

/**
 * The positions of the names that may equal `wanted` but for case and look-alikes or resemble
 * it (`resemblanceTo`): a superset of what it accepts, each once, in order. Found by lookups:
 * the folded key and the stem; for a typo, the names within `maxEdits` in length whose classes
 * of characters differ by no more than as many (an edit adds at most one, and takes away at most
 * one); names containing it, by a search of the joined keys; names it contains, by its substrings.
 */
export const namesLike = (table: NameTable, wanted: string): ReadonlyArray<number> => {
  const lower = foldKey(wanted)
  const found = new Set<number>()
  const add = (positions: ReadonlyArray<number> | undefined) => {
    if (positions !== undefined) { for (const at of positions) found.add(at) }
  }
  add(table.byFolded.get(lower))
  const stem = stemOf(lower)
  if (stem.length > 0) add(table.byStem.get(stem))
  const max = maxEdits(lower)
  if (max > 0) {
    const mask = classMask(lower)
    for (let length = Math.max(0, lower.length - max); length <= lower.length + max; length++) {
      for (const at of table.byLength[length] ?? []) {
        const other = table.classes[at]!
        if (bitCount(other & ~mask) <= max && bitCount(mask & ~other) <= max) found.add(at)
      }
    }
  }
  if (lower.length >= MIN_CONTAINED_LENGTH) {
    for (let offset = table.joined.indexOf(lower); offset !== -1; offset = table.joined.indexOf(lower, offset + 1)) {
      found.add(keyAt(table.starts, offset))
    }
    for (let length = MIN_CONTAINED_LENGTH; length < lower.length; length++) {
      for (let from = 0; from + length <= lower.length; from++) {
        add(table.byFolded.get(lower.slice(from, from + length)))
      }
    }
  }
  return [...found].sort((a, b) => a - b)
}
