/**
 * The first `count` items of an order without sorting them all: a page at the start of a
 * 100,000-entry listing needs its 2,000 names in order, not the other 98,000 (quickselect to
 * set the first `count` apart, then a sort of those alone).
 */

/**
 * `items`' first `count` in `compare`'s order: `[...items].sort(compare).slice(0, count)`, in
 * O(n + count log count) comparisons on average. `compare` must be a total order (no two distinct
 * items equal), as the listing's is.
 */
export const firstInOrder = <A>(
  items: ReadonlyArray<A>,
  count: number,
  compare: (a: A, b: A) => number
): Array<A> => {
  const n = items.length
  if (count <= 0) return []
  // Past a quarter of them, a sort of all is as cheap.
  if (count * 4 >= n) return [...items].sort(compare).slice(0, count)
  const work = [...items]
  let low = 0
  let high = n - 1
  // Hoare's selection: after it, work[0..count) holds the `count` smallest, in no order.
  while (low < high) {
    // Median of three: sorted or reversed input is not the worst case.
    const mid = low + ((high - low) >> 1)
    if (compare(work[mid]!, work[low]!) < 0) swap(work, mid, low)
    if (compare(work[high]!, work[low]!) < 0) swap(work, high, low)
    if (compare(work[high]!, work[mid]!) < 0) swap(work, high, mid)
    const pivot = work[mid]!
    let i = low
    let j = high
    while (i <= j) {
      while (compare(work[i]!, pivot) < 0) i++
      while (compare(work[j]!, pivot) > 0) j--
      if (i <= j) swap(work, i++, j--)
    }
    if (count - 1 <= j) high = j
    else if (count - 1 >= i) low = i
    else break
  }
  work.length = count
  return work.sort(compare)
}

const swap = <A>(items: Array<A>, i: number, j: number): void => {
  const held = items[i]!
  items[i] = items[j]!
  items[j] = held
}
