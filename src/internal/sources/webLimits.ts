/**
 * The bounds of fetching a web page, in a module of their own: `Read` re-exports them without
 * loading the web source (htmlparser2, Readability, our markdown writer) on start.
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"

export interface WebLimitsShape {
  /** Time the network part of a read may take in all (DNS, connecting, every hop, the body); not time spent asking permission. */
  readonly timeout: Duration.DurationInput
  /** Largest body read, after decompression; reading stops there. */
  readonly maxBytes: number
  /** Redirects followed before giving up. */
  readonly maxRedirects: number
  /**
   * How long a fetched page is kept for reads that continue it (an offset, a range, a tail), so
   * its pages come from one response (default 10 minutes; 0 keeps none). A read from its start
   * always fetches anew.
   */
  readonly keepFor?: Duration.DurationInput | undefined
}

/**
 * The bounds of fetching a web page (default 30 s, 10 MB, 5 redirects, pages kept 10 minutes for
 * continued reads). Override with
 * `Effect.provideService(WebLimits, { timeout: "10 seconds", maxBytes: 1_000_000, maxRedirects: 2 })`.
 */
export class WebLimits extends Context.Reference<WebLimits>()("effect-read/WebLimits", {
  defaultValue: (): WebLimitsShape => ({
    timeout: Duration.seconds(30),
    maxBytes: 10 * 1024 * 1024,
    maxRedirects: 5,
    keepFor: Duration.minutes(10)
  })
}) {}
