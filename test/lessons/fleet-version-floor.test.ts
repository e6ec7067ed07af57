/**
 * Lesson fleet-version-floor, the whole category: a cluster registered to a fleet (a GKE Hub Membership naming it by
 * resource link or waiting for it, or its own `fleet` block) in a stack that serves multi-cluster inference (a Gateway
 * of a multi-cluster class, or an exported InferencePool) is caught when it asks for a version below the floor exactly
 * or by an alias (mandatory), and reported as unjudged when GKE picks its version at creation (advisory); a cluster
 * outside the fleet, or a stack without multi-cluster inference, is left alone. The comparator reads GKE's version
 * strings and aliases.
 */
import * as gcp from "@pulumi/gcp";
import * as k8s from "@pulumi/kubernetes";
import { MULTI_CLUSTER_INFERENCE, compareGkeVersions, gkeVersionStanding, parseGkeVersion } from "../../policies/facts";
import { belowFloorMessage, requireFleetGkeVersionFloor } from "../../policies/requireFleetGkeVersionFloor";
import { requireKnownFleetGkeVersion, unjudgedVersionMessage } from "../../policies/requireKnownFleetGkeVersion";
import { RecordedResource } from "../../scripts/offline/recorder";
import { cluster as clusterFixture } from "../support/fixtures";
import { UNKNOWN, check, kube, resource } from "../support/harness";
import { summaryOf, verdict as packVerdict } from "../support/pack";
import { useWorkerPack } from "../workerPack";

type Obj = Record<string, unknown>;

const FLOOR = MULTI_CLUSTER_INFERENCE.minimumGkeVersion;
const cluster = (props: Obj = {}, name = "east") =>
    resource("gcp:container/cluster:Cluster", name, { ...clusterFixture().wire.inputs, name, ...props });
const membership = (
    target: RecordedResource,
    resourceLink: unknown = `//container.googleapis.com/projects/acme/locations/us-east5/clusters/${String(target.inputs.name)}`,
) =>
    resource(
        "gcp:gkehub/membership:Membership",
        `${target.name}-membership`,
        { membershipId: target.name, endpoint: { gkeCluster: { resourceLink } } },
        { dependencies: [target] },
    );
const MC_GATEWAY = kube("gateway.networking.k8s.io/v1", "Gateway", "fleet", {
    metadata: { name: "fleet", namespace: "llm-inference" },
    spec: { gatewayClassName: MULTI_CLUSTER_INFERENCE.gatewayClass },
});
const EXPORTED = kube("inference.networking.k8s.io/v1", "InferencePool", "pool", {
    metadata: { name: "qwen-fleet", namespace: "llm-inference", annotations: { "networking.gke.io/export": "True" } },
    spec: { selector: { matchLabels: { app: "qwen" } } },
});

const both = async (resources: RecordedResource[]) =>
    [...(await check(requireFleetGkeVersionFloor, resources)), ...(await check(requireKnownFleetGkeVersion, resources))].map(
        (finding) => `${finding.level} @${finding.resource}: ${finding.message}`,
    );

describe("GKE version strings", () => {
    test("parses exact versions and aliases, nothing else", () => {
        expect(parseGkeVersion("1.34.1-gke.1127000")).toEqual([1, 34, 1, 1127000]);
        expect(parseGkeVersion("1.34.1")).toEqual([1, 34, 1]);
        expect(parseGkeVersion("1.34")).toEqual([1, 34]);
        for (const other of ["latest", "-", "", "1", "1.34.1-gke", "v1.34.1", "1.34.1-gke.1127000.1"]) {
            expect(parseGkeVersion(other)).toBeUndefined();
        }
    });

    test("compares exact versions by number, not as text", () => {
        expect(compareGkeVersions("1.34.1-gke.1127000", "1.34.1-gke.1127000")).toBe(0);
        expect(compareGkeVersions("1.34.1-gke.999999", "1.34.1-gke.1127000")).toBeLessThan(0);
        expect(compareGkeVersions("1.34.10-gke.1", "1.34.9-gke.9999999")).toBeGreaterThan(0);
        expect(compareGkeVersions("1.100.0-gke.1", "1.99.0-gke.1")).toBeGreaterThan(0);
        expect(() => compareGkeVersions("1.34", "1.34.0-gke.1")).toThrow('not a GKE version: "1.34"');
    });

    test.each([
        ["1.34.1-gke.1127000", "meets"],
        ["1.34.1-gke.1200000", "meets"],
        ["1.34.2-gke.1", "meets"],
        ["1.35", "meets"],
        ["1.34.2", "meets"],
        ["latest", "meets"],
        ["1.34.1-gke.1126999", "below"],
        ["1.34.0-gke.9999999", "below"],
        ["1.33", "below"],
        ["1.34.0", "below"],
        ["1.9", "below"],
        ["1.34", "undecided"],
        ["1.34.1", "undecided"],
        ["", "undecided"],
        ["-", "undecided"],
        [undefined, "undecided"],
        ["stable", "unknown"],
    ])("%s against the floor: %s", (version, standing) => {
        expect(gkeVersionStanding(version, FLOOR)).toBe(standing);
    });
});

describe("the rule", () => {
    describe("require-fleet-gke-version-floor", () => {
        test("fails a fleet cluster asking for an older version, against the cluster", async () => {
            const east = cluster({ minMasterVersion: "1.33.5-gke.2072000" });
            expect(await check(requireFleetGkeVersionFloor, [east, membership(east), MC_GATEWAY])).toEqual([
                {
                    level: "mandatory",
                    resource: "east",
                    message: `Cluster east is registered to a fleet that serves multi-cluster inference but asks for GKE 1.33.5-gke.2072000 (minMasterVersion), below ${FLOOR}, the first version GKE's multi-cluster Inference Gateway supports; set minMasterVersion to ${FLOOR} or later.`,
                },
            ]);
        });

        test("passes one at the floor", async () => {
            const east = cluster({ minMasterVersion: FLOOR });
            expect(await both([east, membership(east), MC_GATEWAY])).toEqual([]);
        });

        test("not applicable: no multi-cluster inference, or no fleet", async () => {
            const east = cluster({ minMasterVersion: "1.30" });
            expect(await both([east, membership(east)])).toEqual([]);
            expect(await both([east, MC_GATEWAY])).toEqual([]);
        });

        test("preview: a version unknown is not reported as below the floor (the advisory policy says it could not judge it)", async () => {
            const east = cluster({ minMasterVersion: UNKNOWN });
            expect(await check(requireFleetGkeVersionFloor, [east, membership(east), MC_GATEWAY])).toEqual([]);
            expect(await check(requireKnownFleetGkeVersion, [east, membership(east), MC_GATEWAY])).toEqual([
                {
                    level: "advisory",
                    resource: "east",
                    message: `Cluster east is registered to a fleet that serves multi-cluster inference and asks for a GKE version (minMasterVersion) that this preview cannot know yet, a value the program reads during the update: the pack cannot tell whether it is at least ${FLOOR}, the first version GKE's multi-cluster Inference Gateway supports. Check it (gcloud container get-server-config --location LOCATION), or set minMasterVersion to ${FLOOR} or later.`,
                },
            ]);
        });
    });

    describe("require-known-fleet-gke-version", () => {
        test("reports a fleet cluster left to its release channel's default, advisory, saying what could not be judged", async () => {
            const east = cluster({ releaseChannel: { channel: "RAPID" } });
            expect(await check(requireKnownFleetGkeVersion, [east, membership(east), EXPORTED])).toEqual([
                {
                    level: "advisory",
                    resource: "east",
                    message: `Cluster east is registered to a fleet that serves multi-cluster inference and sets no minMasterVersion, so GKE creates it at the default version of release channel RAPID, known only then: the pack cannot tell whether it is at least ${FLOOR}, the first version GKE's multi-cluster Inference Gateway supports. Check it (gcloud container get-server-config --location LOCATION), or set minMasterVersion to ${FLOOR} or later.`,
                },
            ]);
        });
    });
});

describe("every spelling", () => {
    /** How a cluster is registered to the fleet: the resource link by name, or unknown at preview (the cluster it waits for), or its own block. */
    const REGISTRATIONS: Array<[string, (props: Obj) => RecordedResource[]]> = [
        ["a Membership naming it", (props) => [cluster(props), membership(cluster(props))]],
        ["a Membership whose link is unknown at preview", (props) => [cluster(props), membership(cluster(props), UNKNOWN)]],
        ["its fleet block", (props) => [cluster({ ...props, fleet: { project: "acme" } })]],
    ];
    /** What makes the stack serve multi-cluster inference. */
    const USES: Array<[string, RecordedResource[]]> = [
        ...MULTI_CLUSTER_INFERENCE.gatewayClasses.map((className): [string, RecordedResource[]] => [
            `a Gateway of ${className}`,
            [
                kube("gateway.networking.k8s.io/v1", "Gateway", "fleet", {
                    metadata: { name: "fleet" },
                    spec: { gatewayClassName: className },
                }),
            ],
        ]),
        ["an exported InferencePool", [EXPORTED]],
    ];

    describe("lesson fleet-version-floor: every fleet cluster below, or not known to meet, the floor", () => {
        describe.each(REGISTRATIONS)("registered by %s", (_, registered) => {
            test.each(USES)("in a stack with %s", async (__, uses) => {
                const at = (props: Obj) => both([...registered(props), ...uses]);
                for (const version of ["1.33.5-gke.2072000", "1.34.1-gke.1126999", "1.33", "1.34.0"]) {
                    expect(await at({ minMasterVersion: version })).toEqual([`mandatory @east: ${belowFloorMessage("east", version)}`]);
                }
                for (const version of [FLOOR, "1.35", "latest"]) {
                    expect(await at({ minMasterVersion: version })).toEqual([]);
                }
                for (const [props, version, channel] of [
                    [{ releaseChannel: { channel: "REGULAR" } }, undefined, "REGULAR"],
                    [{ releaseChannel: undefined }, undefined, undefined],
                    [{ minMasterVersion: "-" }, "-", undefined],
                    [{ minMasterVersion: "1.34" }, "1.34", undefined],
                    [{ minMasterVersion: "1.34.1" }, "1.34.1", undefined],
                    [{ minMasterVersion: "stable" }, "stable", undefined],
                ] as Array<[Obj, string | undefined, string | undefined]>) {
                    expect(await at({ releaseChannel: undefined, ...props })).toEqual([
                        `advisory @east: ${unjudgedVersionMessage("east", version, channel)}`,
                    ]);
                }
            });
        });

        test("the messages say how the version was asked for", () => {
            expect(unjudgedVersionMessage("east", "1.34", undefined)).toContain(
                'asks for GKE "1.34" (minMasterVersion), an alias GKE resolves to its newest 1.34 patch only when it creates the cluster',
            );
            expect(unjudgedVersionMessage("east", "stable", undefined)).toContain(
                'asks for GKE "stable" (minMasterVersion), which is no GKE version or version alias',
            );
            expect(unjudgedVersionMessage("east", undefined, undefined)).toContain(
                "sets no minMasterVersion, so GKE creates it at the default version of its release channel, known only then",
            );
        });

        test("not this lesson's: a cluster outside the fleet, a Membership of another cluster, a fleet without multi-cluster inference", async () => {
            const east = cluster({ minMasterVersion: "1.30" });
            const south = cluster({ minMasterVersion: FLOOR }, "south");
            expect(await both([east, south, membership(south), MC_GATEWAY])).toEqual([]);
            expect(
                await both([
                    east,
                    membership(east),
                    kube("gateway.networking.k8s.io/v1", "Gateway", "g", {
                        metadata: { name: "g" },
                        spec: { gatewayClassName: "gke-l7-rilb" },
                    }),
                ]),
            ).toEqual([]);
        });
    });
});

describe("through the pack", () => {
    const pack = useWorkerPack();

    test("a member below the floor is mandatory, one left to its channel advisory", async () => {
        const findings = await packVerdict(pack(), () => {
            for (const [name, minMasterVersion] of [
                ["east", "1.33"],
                ["south", undefined],
            ]) {
                const member = new gcp.container.Cluster(name!, {
                    name,
                    location: "us-east5",
                    minMasterVersion,
                    releaseChannel: { channel: "REGULAR" },
                });
                new gcp.gkehub.Membership(`${name}-membership`, {
                    membershipId: name!,
                    endpoint: { gkeCluster: { resourceLink: member.id.apply((id) => `//container.googleapis.com/${id}`) } },
                });
            }
            new k8s.apiextensions.CustomResource("gateway", {
                apiVersion: "gateway.networking.k8s.io/v1",
                kind: "Gateway",
                metadata: { name: "fleet", namespace: "llm-inference" },
                spec: {
                    gatewayClassName: MULTI_CLUSTER_INFERENCE.gatewayClass,
                    listeners: [{ name: "https", protocol: "HTTPS", port: 443 }],
                },
            });
        });
        expect(summaryOf("require-fleet-gke-version-floor", findings)).toEqual(["mandatory require-fleet-gke-version-floor @east"]);
        expect(summaryOf("require-known-fleet-gke-version", findings)).toEqual(["advisory require-known-fleet-gke-version @south"]);
    });
});
