/**
 * What to offer when a path is not found: near names in the same directory, and the one entry
 * a path means when it differs only by Unicode normalisation or look-alike characters.
 */

export const MAX_SUGGESTIONS = 3
/** Shorter names contain or are contained in too much to be a useful hint. */
const MIN_CONTAINED_LENGTH = 3

const stemOf = (name: string): string => {
  const dot = name.lastIndexOf(".")
  return dot > 0 ? name.slice(0, dot) : name
}

/**
 * Fold what differs between a name typed by a model and the one on disk without being a
 * different name: NFC vs NFD, non-breaking and narrow spaces (macOS screenshots), curly quotes.
 */
export const foldName = (name: string): string =>
  name
    .normalize("NFC")
    .replace(/[\u00a0\u2007\u2009\u202f]/g, " ")
    .replace(/[\u2018\u2019\u201a\u201b\u2032]/g, "'")
    .replace(/[\u201c\u201d\u201e\u201f\u2033]/g, "\"")

/** The single entry that folds to the same name as `name`, if exactly one does. */
export const equivalentEntry = (name: string, entries: ReadonlyArray<string>): string | undefined => {
  const target = foldName(name)
  const matches = entries.filter((entry) => entry !== name && foldName(entry) === target)
  return matches.length === 1 ? matches[0] : undefined
}

/** How much an entry's name resembles a wanted name. */
export interface Resemblance {
  /** 0: the same name but for case or look-alikes; 1: the same stem; 2: one contains the other. */
  readonly rank: 0 | 1 | 2
  /** Difference in length: closer is better. */
  readonly distance: number
}

/**
 * How `entry` resembles `name` (case-insensitively, look-alikes folded), or undefined when it
 * does not: the same name, the same stem with another extension, or a name containing it or
 * contained in it. The name itself, exactly, does not resemble itself.
 */
export const resemblance = (name: string, entry: string): Resemblance | undefined => {
  const lower = foldName(name).toLowerCase()
  const other = foldName(entry).toLowerCase()
  if (entry === name) return undefined
  const distance = Math.abs(other.length - lower.length)
  if (other === lower) return { rank: 0, distance }
  const stem = stemOf(lower)
  if (stem.length > 0 && stemOf(other) === stem) return { rank: 1, distance }
  if (Math.min(other.length, lower.length) >= MIN_CONTAINED_LENGTH && (other.includes(lower) || lower.includes(other))) {
    return { rank: 2, distance }
  }
  return undefined
}

/**
 * Up to three entries that look like what `name` meant, best first: the same stem with
 * another extension, then names containing it or contained in it (case-insensitively),
 * closest in length first.
 */
export const suggestEntries = (name: string, entries: ReadonlyArray<string>): ReadonlyArray<string> => {
  const ranked: Array<{ entry: string; rank: number; distance: number }> = []
  for (const entry of entries) {
    const found = resemblance(name, entry)
    // In one directory, a case variant and another extension rank alike.
    if (found !== undefined) ranked.push({ entry, rank: found.rank === 2 ? 1 : 0, distance: found.distance })
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
