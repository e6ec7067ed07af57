/** IPv4 CIDR arithmetic for validating the network plan before anything is created. */
import { IPV4_RANGES } from "@gke-tpu-inference/facts";

/** An IPv4 range as unsigned 32-bit first and last addresses. */
export interface Ipv4Range {
    readonly cidr: string;
    readonly prefixLength: number;
    readonly first: number;
    readonly last: number;
}

const CIDR_PATTERN = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/;

/**
 * Parses `a.b.c.d/n`. Returns a reason instead of a range when the text is not a network
 * address GCP would accept (octets over 255, prefix over 32, or host bits set).
 */
export function parseCidr(cidr: string): Ipv4Range | string {
    const match = CIDR_PATTERN.exec(cidr);
    if (!match) {
        return "is not an IPv4 CIDR block like 10.0.0.0/20";
    }
    const octets = match.slice(1, 5).map(Number);
    const prefixLength = Number(match[5]);
    if (octets.some((octet) => octet > 255) || prefixLength > 32) {
        return "is not an IPv4 CIDR block like 10.0.0.0/20";
    }
    const address = octets.reduce((acc, octet) => acc * 256 + octet, 0);
    const size = 2 ** (32 - prefixLength);
    if (address % size !== 0) {
        const network = address - (address % size);
        return `has host bits set; the network address is ${formatIpv4(network)}/${prefixLength}`;
    }
    return { cidr, prefixLength, first: address, last: address + size - 1 };
}

/** True when the two ranges share at least one address. */
export function overlaps(a: Ipv4Range, b: Ipv4Range): boolean {
    return a.first <= b.last && b.first <= a.last;
}

function formatIpv4(address: number): string {
    return [24, 16, 8, 0].map((shift) => Math.floor(address / 2 ** shift) % 256).join(".");
}

/** The `index`-th range of `prefixLength` counted from `range`'s first address: within it when it is larger, past it otherwise. */
export function nthRange(range: Ipv4Range, prefixLength: number, index: number): Ipv4Range {
    const size = 2 ** (32 - prefixLength);
    const first = range.first + index * size;
    return { cidr: `${formatIpv4(first)}/${prefixLength}`, prefixLength, first, last: first + size - 1 };
}

/** True when `inner` lies wholly within `outer`. */
export function contains(outer: Ipv4Range, inner: Ipv4Range): boolean {
    return outer.first <= inner.first && inner.last <= outer.last;
}

function range(cidr: string): Ipv4Range {
    return parseCidr(cidr) as Ipv4Range;
}

/**
 * Why GCP or GKE would refuse `network` as one of the stack's ranges, or undefined: a prohibited range (loopback,
 * link-local, multicast…), a range every GKE cluster must avoid, or a public range (the stack's ranges are private).
 */
export function networkRangeProblem(network: Ipv4Range): string | undefined {
    const prohibited = IPV4_RANGES.prohibited.find((candidate) => overlaps(range(candidate.cidr), network));
    if (prohibited) {
        return `overlaps ${prohibited.cidr}, ${prohibited.name}, which GCP refuses for subnets`;
    }
    const avoided = IPV4_RANGES.avoided.find((candidate) => overlaps(range(candidate.cidr), network));
    if (avoided) {
        return `overlaps ${avoided.cidr}, ${avoided.name}`;
    }
    if (!IPV4_RANGES.private.some((candidate) => contains(range(candidate.cidr), network))) {
        return `is a public range; allowed: a private range within ${IPV4_RANGES.private.map((candidate) => candidate.cidr).join(", ")}`;
    }
    return undefined;
}

/** True when `network` lies within the RFC 1918 ranges. */
export function isRfc1918(network: Ipv4Range): boolean {
    return IPV4_RANGES.rfc1918.some((cidr) => contains(range(cidr), network));
}
