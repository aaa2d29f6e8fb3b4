/** How the bench's tables show durations, sizes and ratios (`run.mjs`, `recovery.mjs`, `structure.mjs`). */

/** Milliseconds, with the precision their size deserves; "—" for a value not measured. */
export const ms = (v) =>
  !Number.isFinite(v)
    ? "—"
    : v >= 1000
    ? `${(v / 1000).toFixed(2)} s`
    : v >= 100
    ? `${v.toFixed(0)} ms`
    : v >= 10
    ? `${v.toFixed(1)} ms`
    : v >= 1
    ? `${v.toFixed(2)} ms`
    : `${v.toFixed(3)} ms`

/** A fraction as a percentage. */
export const pct = (v) => (Number.isFinite(v) ? `${(v * 100).toFixed(1)} %` : "—")

/** Megabytes, whole. */
export const mb = (v) => (v === undefined || !Number.isFinite(v) ? "—" : `${v.toFixed(0)} MB`)

/** `a / b`, or NaN when either is missing or `b` is not positive. */
export const ratio = (a, b) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? a / b : NaN)

/** A ratio as `N×`. */
export const x = (v) =>
  !Number.isFinite(v)
    ? "—"
    : v >= 100
    ? `${v.toFixed(0)}×`
    : v >= 10
    ? `${v.toFixed(1)}×`
    : v >= 0.1
    ? `${v.toFixed(2)}×`
    : `${v.toPrecision(2)}×`
