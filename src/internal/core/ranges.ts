/**
 * Inclusive line ranges (`start`-`end`, 1-based): merged and clipped. One definition for the
 * selector (`:5-9,7-20`), the ledger's coverage and the session's memory. Pure.
 */

/** Lines `start`..`end`, 1-based and inclusive; `end` undefined runs on (to the page limit). */
export interface LineRange {
  readonly start: number
  readonly end: number | undefined
}

/** A range of lines with a known end. */
export interface ClosedRange {
  readonly start: number
  readonly end: number
}

/** Ranges sorted and merged: overlapping or adjacent ones join (an open end swallows what follows). */
export function mergeRanges(ranges: ReadonlyArray<ClosedRange>): Array<ClosedRange>
export function mergeRanges(ranges: ReadonlyArray<LineRange>): Array<LineRange>
export function mergeRanges(ranges: ReadonlyArray<LineRange>): Array<LineRange> {
  const sorted = [...ranges].sort((a, b) => a.start - b.start)
  const merged: Array<LineRange> = []
  for (const range of sorted) {
    const last = merged[merged.length - 1]
    if (last !== undefined && (last.end === undefined || range.start <= last.end + 1)) {
      merged[merged.length - 1] = {
        start: last.start,
        end: last.end === undefined || range.end === undefined ? undefined : Math.max(last.end, range.end)
      }
    } else {
      merged.push({ start: range.start, end: range.end })
    }
  }
  return merged
}

/** Lines `start`-`end` kept up to `lastShown`; ranges past it dropped (`undefined`: all kept). */
export const clipRanges = <T extends ClosedRange>(ranges: ReadonlyArray<T>, lastShown: number | undefined): Array<T> =>
  lastShown === undefined
    ? [...ranges]
    : ranges.filter((range) => range.start <= lastShown).map((range) => ({
      ...range,
      end: Math.min(range.end, lastShown)
    }))
