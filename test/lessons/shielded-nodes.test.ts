/**
 * Lesson shielded-nodes, the whole category: a cluster turning Shielded nodes off, and any pool without Secure Boot
 * (a NodePool, a pool inline in a Cluster, the cluster's default pool; Secure Boot off, or unset as GKE's default
 * leaves it) is caught; Secure Boot on in every pool, a removed default pool and an Autopilot cluster are left alone.
 */
import { SHIELDED_NODES_MESSAGES as say, requireShieldedNodes as policy } from "../../policies/requireShieldedNodes";
import { RecordedResource } from "../../scripts/offline/recorder";
import { cluster, tpuPool } from "../support/fixtures";
import { UNKNOWN, check, resource } from "../support/harness";

describe("the rule", () => {
    describe("require-shielded-nodes", () => {
        test("passes shielded nodes with Secure Boot, and GKE's default", async () => {
            expect(await check(policy, [cluster(), cluster({ enableShieldedNodes: undefined }), tpuPool()])).toEqual([]);
        });

        test("fails a cluster turning them off and a pool without Secure Boot", async () => {
            expect(
                await check(policy, [
                    cluster({ enableShieldedNodes: false }),
                    tpuPool({ nodeConfig: { machineType: "ct6e-standard-4t" } }),
                ]),
            ).toEqual([
                { level: "mandatory", resource: "gke", message: "Cluster gke turns Shielded GKE nodes off (enableShieldedNodes false)." },
                {
                    level: "mandatory",
                    resource: "tpu",
                    message: "Node pool tpu does not enable Secure Boot (nodeConfig.shieldedInstanceConfig.enableSecureBoot).",
                },
            ]);
        });

        test("not applicable: other resources", async () => {
            expect(await check(policy, [resource("gcp:compute/network:Network", "vpc", {})])).toEqual([]);
        });

        test("preview: an unknown node config is not a violation", async () => {
            expect((await check(policy, [tpuPool({ nodeConfig: UNKNOWN })]))[0].level).toBe("advisory");
        });
    });
});

describe("every spelling", () => {
    type Obj = Record<string, unknown>;

    const verdict = async (...resources: RecordedResource[]) => (await check(policy, resources)).map((finding) => finding.message);
    const WITHOUT = [{ enableSecureBoot: false }, { enableIntegrityMonitoring: true }, undefined];
    const nodes = (shielded: Obj | undefined) => ({
        machineType: "e2-standard-4",
        ...(shielded ? { shieldedInstanceConfig: shielded } : {}),
    });
    const SECURE = nodes({ enableSecureBoot: true, enableIntegrityMonitoring: true });

    describe("lesson shielded-nodes: every way a node can boot unverified", () => {
        test("caught: Shielded nodes off on the cluster", async () => {
            expect(await verdict(cluster({ enableShieldedNodes: false }))).toEqual([say.cluster("gke")]);
        });

        test("caught: a NodePool, an inline pool or the default pool without Secure Boot", async () => {
            for (const shielded of WITHOUT) {
                expect(await verdict(tpuPool({ nodeConfig: nodes(shielded) }))).toEqual([say.secureBoot("Node pool tpu")]);
                expect(
                    await verdict(
                        cluster({
                            nodePools: [
                                { name: "cpu", nodeConfig: SECURE },
                                { name: "tpu", nodeConfig: nodes(shielded) },
                            ],
                        }),
                    ),
                ).toEqual([say.secureBoot("Cluster gke nodePools[1] (tpu)")]);
                expect(await verdict(cluster({ removeDefaultNodePool: undefined, nodeConfig: nodes(shielded) }))).toEqual([
                    say.secureBoot("Cluster gke default node pool (nodeConfig)"),
                ]);
            }
        });

        test("clean: Secure Boot in every pool, Shielded nodes on or by default, a removed default pool, Autopilot", async () => {
            expect(await verdict(cluster(), tpuPool())).toEqual([]);
            expect(await verdict(cluster({ enableShieldedNodes: undefined, nodePools: [{ nodeConfig: SECURE }] }))).toEqual([]);
            expect(await verdict(cluster({ removeDefaultNodePool: undefined, nodeConfig: SECURE }))).toEqual([]);
            expect(await verdict(cluster({ removeDefaultNodePool: true, nodeConfig: nodes(undefined) }))).toEqual([]);
            expect(await verdict(cluster({ enableAutopilot: true, removeDefaultNodePool: undefined, nodeConfig: undefined }))).toEqual([]);
        });
    });
});
