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
    if (Math.min(other.length, lower.length) >= MIN_CONTAINED_LENGTH && (other.includes(lower) || lower.includes(other))) {
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
export const suggestEntries = (name: string, entries: ReadonlyArray<string>, count = MAX_SUGGESTIONS): ReadonlyArray<string> => {
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
