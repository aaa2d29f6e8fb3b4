/**
 * One HTTP GET with Node's own client, bounded: the connection goes only to addresses checked
 * beforehand (a `lookup` that answers with them, so a second DNS answer cannot swap in another
 * address), the body is read as a stream and abandoned past the byte limit, and compressed
 * bodies are inflated with an output cap. Redirects are returned, not followed: the caller
 * re-asks and re-checks every hop.
 */
import * as Effect from "effect/Effect"
import * as Http from "node:http"
import * as Https from "node:https"
import type { LookupFunction } from "node:net"
import * as Zlib from "node:zlib"
import { FetchFailed, formatBytes } from "../../ReadError.js"

export interface Address {
  readonly address: string
  readonly family: 4 | 6
}

export type Outcome =
  | { readonly _tag: "Redirect"; readonly status: number; readonly location: string }
  | {
    readonly _tag: "Response"
    readonly status: number
    readonly statusText: string
    readonly contentType: string | undefined
    /** The body, decompressed. */
    readonly body: Uint8Array
    /** Body bytes on the wire (before decompression). */
    readonly received: number
  }

const REDIRECTS = new Set([301, 302, 303, 307, 308])

const USER_AGENT = "effect-read (a coding agent's Read tool)"
const ACCEPT =
  "text/html,application/xhtml+xml,application/json;q=0.9,text/*;q=0.8,image/*;q=0.6,application/pdf;q=0.6,*/*;q=0.1"

/** Answers every lookup with the addresses checked beforehand. */
const pinnedLookup = (addresses: ReadonlyArray<Address>): LookupFunction => (_hostname, options, callback) => {
  if (options.all === true) {
    ;(callback as (error: null, addresses: ReadonlyArray<Address>) => void)(null, addresses)
  } else {
    const first = (options.family === 4 || options.family === 6
      ? addresses.find((a) => a.family === options.family)
      : undefined) ?? addresses[0]!
    callback(null, first.address, first.family)
  }
}

/** A zlib stream's header says zlib-wrapped deflate; servers also send raw deflate as `deflate`. */
const isZlibWrapped = (bytes: Uint8Array): boolean =>
  bytes.length >= 2 && (bytes[0]! & 0x0f) === 8 && ((bytes[0]! << 8) | bytes[1]!) % 31 === 0

type Inflate = (buffer: Buffer, options: Zlib.ZlibOptions | Zlib.BrotliOptions, callback: Zlib.CompressCallback) => void

const inflaters: Readonly<Record<string, (bytes: Buffer) => Inflate>> = {
  gzip: () => Zlib.gunzip,
  "x-gzip": () => Zlib.gunzip,
  deflate: (bytes) => isZlibWrapped(bytes) ? Zlib.inflate : Zlib.inflateRaw,
  br: () => Zlib.brotliDecompress
}

const failure = (url: URL, problem: FetchFailed["problem"], reason: string, status?: number) =>
  new FetchFailed({ url: url.href, problem, reason, ...(status === undefined ? {} : { status }) })

const networkReason = (error: unknown): string => {
  const code = typeof error === "object" && error !== null && "code" in error ? String(error.code) : undefined
  const message = error instanceof Error ? error.message : String(error)
  return code !== undefined && !message.includes(code) ? `${message} (${code})` : message
}

const tooLarge = (url: URL, maxBytes: number, what: string) =>
  failure(
    url,
    "too-large",
    `the ${what} is larger than the ${formatBytes(maxBytes)} limit for web pages; reading stopped there`
  )

/** GET `url`, connecting only to `addresses`. Interrupting it destroys the request. */
export const get = (
  url: URL,
  addresses: ReadonlyArray<Address>,
  maxBytes: number
): Effect.Effect<Outcome, FetchFailed> =>
  Effect.async<Outcome, FetchFailed>((resume) => {
    const client = url.protocol === "https:" ? Https : Http
    let done = false
    const finish = (outcome: Effect.Effect<Outcome, FetchFailed>) => {
      if (done) return
      done = true
      resume(outcome)
    }
    const request = client.request(url, {
      method: "GET",
      agent: false,
      lookup: pinnedLookup(addresses),
      headers: { "user-agent": USER_AGENT, accept: ACCEPT, "accept-encoding": "gzip, deflate, br" }
    })
    request.on("error", (error) => finish(Effect.fail(failure(url, "network", networkReason(error)))))
    request.on("response", (response) => {
      const status = response.statusCode ?? 0
      const location = response.headers.location
      if (REDIRECTS.has(status) && location !== undefined) {
        finish(Effect.succeed({ _tag: "Redirect", status, location }))
        return request.destroy()
      }
      const declared = Number(response.headers["content-length"])
      if (Number.isFinite(declared) && declared > maxBytes) {
        finish(Effect.fail(tooLarge(url, maxBytes, `response (${formatBytes(declared)})`)))
        return request.destroy()
      }
      const chunks: Array<Buffer> = []
      let received = 0
      response.on("data", (chunk: Buffer) => {
        received += chunk.length
        if (received > maxBytes) {
          // Settle first: destroying emits "aborted" at once.
          finish(Effect.fail(tooLarge(url, maxBytes, "response")))
          return request.destroy()
        }
        chunks.push(chunk)
      })
      response.on("error", (error) => finish(Effect.fail(failure(url, "network", networkReason(error)))))
      response.on("aborted", () =>
        finish(Effect.fail(failure(url, "network", "the connection closed before the body ended"))))
      response.on("end", () => {
        const raw = Buffer.concat(chunks)
        const encoding = String(response.headers["content-encoding"] ?? "identity").trim().toLowerCase()
        const contentType = response.headers["content-type"]
        const respond = (body: Uint8Array) =>
          finish(Effect.succeed({
            _tag: "Response",
            status,
            statusText: response.statusMessage ?? "",
            contentType,
            body,
            received
          }))
        if (encoding === "identity" || encoding === "" || raw.length === 0) {
          return respond(raw)
        }
        const inflater = inflaters[encoding]
        if (inflater === undefined) {
          return finish(
            Effect.fail(
              failure(
                url,
                "content-type",
                `the body is compressed as "${encoding}", which is not supported (gzip, deflate and br are)`
              )
            )
          )
        }
        inflater(raw)(raw, { maxOutputLength: maxBytes }, (error, inflated) => {
          if (error === null) {
            return respond(inflated)
          }
          finish(Effect.fail(
            error instanceof RangeError || (error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE"
              ? tooLarge(url, maxBytes, `${encoding}-compressed response once decompressed`)
              : failure(url, "network", `the ${encoding} body could not be decompressed (${networkReason(error)})`)
          ))
        })
      })
    })
    request.end()
    return Effect.sync(() => {
      done = true
      request.destroy()
    })
  })
