import { errorOf, parse, problemsOf } from "./parse";

describe("settings validation names the key, the value and what is allowed", () => {
    test.each<[string, Record<string, string>, string]>([
        [
            "zone without GKE TPU v6e",
            { zone: "us-central1-a" },
            'gke-tpu-inference:zone = "us-central1-a" is not a zone where GKE offers TPU v6e node pools (TPU VM zones differ); ' +
                "allowed: europe-west4-a, us-central1-b, us-east1-d, us-east5-a, us-east5-b, us-south1-a, us-south1-b",
        ],
        [
            "zone outside the region",
            { zone: "us-east5-a", region: "europe-west4" },
            'gke-tpu-inference:zone = "us-east5-a" is not in gke-tpu-inference:region = "europe-west4"; allowed: europe-west4-a',
        ],
        [
            "region without any TPU v6e zone",
            { region: "asia-east1" },
            'gke-tpu-inference:zone = "europe-west4-a" is not in gke-tpu-inference:region = "asia-east1"; allowed: none (no GKE TPU v6e zone is in asia-east1)',
        ],
        [
            "inverted system pool bounds",
            { systemMinNodes: "5", systemMaxNodes: "2" },
            "gke-tpu-inference:systemMinNodes = 5 is greater than gke-tpu-inference:systemMaxNodes = 2; allowed: systemMinNodes <= systemMaxNodes",
        ],
        [
            "empty system pool",
            { systemMinNodes: "0" },
            'gke-tpu-inference:systemMinNodes = "0" is not a whole number from 1 to 1000; allowed: 1 to 1000 (GKE\'s nodes per node pool zone)',
        ],
        [
            "malformed CIDR",
            { podCidr: "10.4.0.0/33" },
            'gke-tpu-inference:podCidr = "10.4.0.0/33" is not an IPv4 CIDR block like 10.0.0.0/20; allowed: an IPv4 CIDR block like 10.0.0.0/20 in a private range',
        ],
        [
            "octet over 255",
            { nodeCidr: "10.0.256.0/24" },
            'gke-tpu-inference:nodeCidr = "10.0.256.0/24" is not an IPv4 CIDR block like 10.0.0.0/20; allowed: an IPv4 CIDR block like 10.0.0.0/20 in a private range',
        ],
        [
            "CIDR with host bits",
            { nodeCidr: "10.0.0.1/20" },
            'gke-tpu-inference:nodeCidr = "10.0.0.1/20" has host bits set; the network address is 10.0.0.0/20; allowed: an IPv4 CIDR block like 10.0.0.0/20 in a private range',
        ],
        [
            "overlapping CIDRs",
            { serviceCidr: "10.4.16.0/20" },
            'gke-tpu-inference:serviceCidr = "10.4.16.0/20" overlaps gke-tpu-inference:podCidr = "10.4.0.0/14"; allowed: disjoint ranges for nodeCidr, podCidr, serviceCidr, proxyOnlyCidr, masterCidr',
        ],
        [
            "proxy-only subnet overlapping the nodes",
            { proxyOnlyCidr: "10.0.8.0/23" },
            'gke-tpu-inference:proxyOnlyCidr = "10.0.8.0/23" overlaps gke-tpu-inference:nodeCidr = "10.0.0.0/20"; allowed: disjoint ranges for nodeCidr, podCidr, serviceCidr, proxyOnlyCidr, masterCidr',
        ],
        [
            "proxy-only subnet too small",
            { proxyOnlyCidr: "10.9.0.0/27" },
            'gke-tpu-inference:proxyOnlyCidr = "10.9.0.0/27" is too small for a proxy-only subnet; allowed: a prefix of /26 or larger (/23 recommended)',
        ],
        [
            "control plane range overlapping the pods",
            { masterCidr: "10.4.0.0/28" },
            'gke-tpu-inference:masterCidr = "10.4.0.0/28" overlaps gke-tpu-inference:podCidr = "10.4.0.0/14"; allowed: disjoint ranges for nodeCidr, podCidr, serviceCidr, proxyOnlyCidr, masterCidr',
        ],
        [
            "control plane range that is not a /28",
            { masterCidr: "172.16.0.0/24" },
            'gke-tpu-inference:masterCidr = "172.16.0.0/24" is not a /28 in the RFC 1918 ranges; allowed: a private /28 such as 172.16.0.0/28',
        ],
        [
            "authorized networks that are not a list",
            { masterAuthorizedNetworks: "203.0.113.0/24" },
            'gke-tpu-inference:masterAuthorizedNetworks = "203.0.113.0/24" is not a list of CIDR strings; allowed: e.g. ["203.0.113.0/24"]',
        ],
        [
            "authorized network that is not a CIDR",
            { masterAuthorizedNetworks: '["office"]' },
            'gke-tpu-inference:masterAuthorizedNetworks[0] = "office" is not an IPv4 CIDR block like 10.0.0.0/20; allowed: an IPv4 CIDR block like 203.0.113.0/24',
        ],
        [
            "unknown release channel",
            { releaseChannel: "EXTENDED" },
            'gke-tpu-inference:releaseChannel = "EXTENDED" is not a GKE release channel; allowed: RAPID, REGULAR, STABLE',
        ],
        [
            "non-boolean deletion protection",
            { deletionProtection: "yes" },
            'gke-tpu-inference:deletionProtection = "yes" is not a boolean; allowed: true, false',
        ],
    ])("%s", (_case, values, message) => {
        expect(errorOf(values)).toBe(message);
    });
});

describe("values the cloud or the cluster would refuse", () => {
    test.each<[string, Record<string, string>, string]>([
        [
            "a loopback range",
            { nodeCidr: "127.0.0.0/24" },
            'gke-tpu-inference:nodeCidr = "127.0.0.0/24" overlaps 127.0.0.0/8, loopback (RFC 1122), which GCP refuses for subnets; allowed: an IPv4 CIDR block like 10.0.0.0/20 in a private range',
        ],
        [
            "a link-local range",
            { podCidr: "169.254.0.0/16" },
            'gke-tpu-inference:podCidr = "169.254.0.0/16" overlaps 169.254.0.0/16, link-local (RFC 3927), which GCP refuses for subnets; allowed: an IPv4 CIDR block like 10.0.0.0/20 in a private range',
        ],
        [
            "a multicast range",
            { serviceCidr: "224.0.0.0/20" },
            'gke-tpu-inference:serviceCidr = "224.0.0.0/20" overlaps 224.0.0.0/4, multicast (RFC 5771), which GCP refuses for subnets; allowed: an IPv4 CIDR block like 10.0.0.0/20 in a private range',
        ],
        [
            "the current network",
            { nodeCidr: "0.0.0.0/20" },
            'gke-tpu-inference:nodeCidr = "0.0.0.0/20" overlaps 0.0.0.0/8, the current network (RFC 1122), which GCP refuses for subnets; allowed: an IPv4 CIDR block like 10.0.0.0/20 in a private range',
        ],
        [
            "Private Google Access's addresses",
            { nodeCidr: "199.36.153.0/24" },
            'gke-tpu-inference:nodeCidr = "199.36.153.0/24" overlaps 199.36.153.4/30, Private Google Access\'s virtual IPs, which GCP refuses for subnets; allowed: an IPv4 CIDR block like 10.0.0.0/20 in a private range',
        ],
        [
            "Docker's bridge",
            { serviceCidr: "172.17.0.0/20" },
            'gke-tpu-inference:serviceCidr = "172.17.0.0/20" overlaps 172.17.0.0/16, Docker\'s default bridge, which GKE nodes use; allowed: an IPv4 CIDR block like 10.0.0.0/20 in a private range',
        ],
        [
            "a public range",
            { nodeCidr: "8.8.0.0/20" },
            expect.stringContaining(
                'gke-tpu-inference:nodeCidr = "8.8.0.0/20" is a public range; allowed: a private range within 10.0.0.0/8',
            ) as unknown as string,
        ],
        [
            "a subnet smaller than GCP allows",
            { nodeCidr: "10.0.0.0/30" },
            'gke-tpu-inference:nodeCidr = "10.0.0.0/30" is too small for nodes; allowed: a prefix from /8 to /29',
        ],
        [
            "a Pod range smaller than one node's",
            { podCidr: "10.4.0.0/25" },
            'gke-tpu-inference:podCidr = "10.4.0.0/25" is too small for Pods; allowed: a prefix from /9 to /24',
        ],
        [
            "a Pod range larger than GKE takes",
            { podCidr: "10.0.0.0/8", nodeCidr: "172.20.0.0/20", serviceCidr: "172.21.0.0/20", proxyOnlyCidr: "172.22.0.0/23" },
            'gke-tpu-inference:podCidr = "10.0.0.0/8" is too large for Pods; allowed: a prefix from /9 to /24',
        ],
        [
            "a Service range smaller than GKE takes",
            { serviceCidr: "10.8.0.0/29" },
            'gke-tpu-inference:serviceCidr = "10.8.0.0/29" is too small for Services; allowed: a prefix from /16 to /28',
        ],
        [
            "a control plane range outside RFC 1918",
            { masterCidr: "100.64.0.0/28" },
            'gke-tpu-inference:masterCidr = "100.64.0.0/28" is not a /28 in the RFC 1918 ranges; allowed: a private /28 such as 172.16.0.0/28',
        ],
        [
            "a number JavaScript cannot hold",
            { systemMaxNodes: "9007199254740993" },
            'gke-tpu-inference:systemMaxNodes = "9007199254740993" is not a whole number JavaScript holds exactly; allowed: 1 to 1000 (GKE\'s nodes per node pool zone)',
        ],
        [
            "a machine type that is not one",
            { systemMachineType: "e2 standard 4" },
            'gke-tpu-inference:systemMachineType = "e2 standard 4" is not a Compute Engine machine type name; allowed: a type such as e2-standard-4, n2-highmem-8 or custom-4-16384',
        ],
        [
            "a TPU machine type for the system pool",
            { systemMachineType: "ct6e-standard-4t" },
            'gke-tpu-inference:systemMachineType = "ct6e-standard-4t" is a TPU machine type, whose taint keeps the platform\'s pods off it; allowed: a CPU machine type such as e2-standard-4',
        ],
    ])("%s", (_, values, message) => {
        expect(problemsOf(values)).toEqual([message]);
    });

    test.each<[string, Record<string, string>]>([
        ["shared address space", { nodeCidr: "100.64.0.0/20" }],
        ["class E for Pods", { podCidr: "240.0.0.0/14" }],
        ["a custom machine type with extended memory", { systemMachineType: "n2-custom-4-32768-ext" }],
        ["an E2 shared-core custom type", { systemMachineType: "e2-custom-small-4096" }],
        ["a machine type with a suffix", { systemMachineType: "c3-standard-4-lssd" }],
        ["a shared-core type", { systemMachineType: "e2-medium" }],
    ])("valid and unusual: %s", (_, values) => {
        expect(() => parse(values)).not.toThrow();
    });
});
