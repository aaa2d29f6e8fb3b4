/**
 * Which IP addresses a web read may connect to without asking (SSRF). Pure: an address string
 * in, its class out. Everything that is not the public internet has a class naming why — the
 * error message shows it — and IPv6 forms that carry an IPv4 address (mapped, NAT64, 6to4) are
 * judged by the IPv4 address they carry.
 */
import * as Net from "node:net"

export type AddressClass =
  | "public"
  | "private"
  | "loopback"
  | "link-local"
  | "unique-local"
  | "shared (CGNAT)"
  | "multicast"
  | "unspecified"
  | "reserved"

/** `a.b.c.d` as a 32-bit number, or undefined when it is not a dotted IPv4 address. */
const ipv4Number = (address: string): number | undefined => {
  if (!Net.isIPv4(address)) return undefined
  return address.split(".").reduce((n, part) => n * 256 + Number(part), 0)
}

const inV4 = (n: number, base: string, bits: number): boolean => {
  const start = ipv4Number(base)!
  const size = 2 ** (32 - bits)
  return n >= start && n < start + size
}

const classifyV4 = (n: number): AddressClass => {
  if (inV4(n, "0.0.0.0", 8)) return "unspecified"
  if (inV4(n, "127.0.0.0", 8)) return "loopback"
  if (inV4(n, "10.0.0.0", 8) || inV4(n, "172.16.0.0", 12) || inV4(n, "192.168.0.0", 16)) return "private"
  if (inV4(n, "169.254.0.0", 16)) return "link-local"
  if (inV4(n, "100.64.0.0", 10)) return "shared (CGNAT)"
  if (inV4(n, "224.0.0.0", 4)) return "multicast"
  // IETF protocol assignments, documentation, benchmarking, 240/4 and broadcast.
  if (
    inV4(n, "192.0.0.0", 24) || inV4(n, "192.0.2.0", 24) || inV4(n, "198.18.0.0", 15) ||
    inV4(n, "198.51.100.0", 24) || inV4(n, "203.0.113.0", 24) || inV4(n, "240.0.0.0", 4)
  ) return "reserved"
  return "public"
}

/** An IPv6 address as eight 16-bit groups (a trailing dotted IPv4 part and a zone accepted). */
export const ipv6Groups = (address: string): ReadonlyArray<number> | undefined => {
  const bare = address.replace(/%.*$/, "")
  if (!Net.isIPv6(bare)) return undefined
  let text = bare.toLowerCase()
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)
  if (dotted !== null) {
    const n = ipv4Number(dotted[1]!)
    if (n === undefined) return undefined
    text = `${text.slice(0, dotted.index)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`
  }
  const [head, tail] = text.includes("::") ? text.split("::") as [string, string] : [text, undefined]
  const parse = (part: string) => part === "" ? [] : part.split(":").map((group) => parseInt(group, 16))
  const front = parse(head)
  if (tail === undefined) return front.length === 8 ? front : undefined
  const back = parse(tail)
  return [...front, ...Array<number>(8 - front.length - back.length).fill(0), ...back]
}

const v4Of = (high: number, low: number): number => high * 65536 + low

const classifyV6 = (g: ReadonlyArray<number>): AddressClass => {
  const zeros = (from: number, to: number) => g.slice(from, to).every((group) => group === 0)
  if (zeros(0, 8)) return "unspecified"
  if (zeros(0, 7) && g[7] === 1) return "loopback"
  // ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible, deprecated), 64:ff9b::a.b.c.d (NAT64).
  if (zeros(0, 5) && (g[5] === 0xffff || g[5] === 0)) return classifyV4(v4Of(g[6]!, g[7]!))
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return classifyV4(v4Of(g[6]!, g[7]!))
  // 6to4: 2002:AABB:CCDD::/48 routes to a.b.c.d.
  if (g[0] === 0x2002) return classifyV4(v4Of(g[1]!, g[2]!))
  const first = g[0]!
  if ((first & 0xfe00) === 0xfc00) return "unique-local"
  if ((first & 0xffc0) === 0xfe80) return "link-local"
  // Site-local (fec0::/10, deprecated) was the old private range.
  if ((first & 0xffc0) === 0xfec0) return "private"
  if ((first & 0xff00) === 0xff00) return "multicast"
  // Documentation (2001:db8::/32), Teredo (2001::/32, tunnels to any IPv4), discard (100::/64).
  if ((first === 0x2001 && (g[1] === 0xdb8 || g[1] === 0)) || (first === 0x100 && zeros(1, 4))) return "reserved"
  return "public"
}

/** The class of an IP address (IPv4 dotted or IPv6), or undefined when it is not one. */
export const classifyAddress = (address: string): AddressClass | undefined => {
  const v4 = ipv4Number(address)
  if (v4 !== undefined) return classifyV4(v4)
  const groups = ipv6Groups(address)
  return groups === undefined ? undefined : classifyV6(groups)
}

/** A URL's host as an address string when it is a literal IP (`[::1]` → `::1`), else undefined. */
export const literalAddress = (hostname: string): string | undefined => {
  const bare = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname
  return Net.isIP(bare) === 0 ? undefined : bare
}
