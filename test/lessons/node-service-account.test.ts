/**
 * Lesson node-service-account, the whole category: nodes left to the Compute Engine default service account (no
 * account, empty, `default`, `<project number>-compute@developer.gserviceaccount.com`) in a NodePool, a pool inline in
 * a Cluster or the cluster's default pool (its nodeConfig) are caught; a dedicated account everywhere, a default pool
 * removed at creation (as the other node policies judge it) and Autopilot are left alone.
 */
import {
    NODE_SERVICE_ACCOUNT_MESSAGES as say,
    disallowDefaultComputeServiceAccount as policy,
} from "../../policies/disallowDefaultComputeServiceAccount";
import { RecordedResource } from "../../scripts/offline/recorder";
import { cluster, tpuPool } from "../support/fixtures";
import { check } from "../support/harness";

describe("every spelling", () => {
    const verdict = async (...resources: RecordedResource[]) => (await check(policy, resources)).map((finding) => finding.message);
    const DEFAULTS = [undefined, "", "default", "123456789012-compute@developer.gserviceaccount.com"];
    const DEDICATED = [
        "nodes@acme.iam.gserviceaccount.com",
        "gke-nodes@acme-prod.iam.gserviceaccount.com",
        // A project's own account whose name merely ends in "compute".
        "tpu-compute@acme.iam.gserviceaccount.com",
    ];
    const nodes = (serviceAccount: string | undefined) => ({
        machineType: "e2-standard-4",
        ...(serviceAccount !== undefined ? { serviceAccount } : {}),
    });

    describe("lesson node-service-account: every way nodes run as Compute Engine's default account", () => {
        test.each(DEFAULTS)("caught: %p in a NodePool, an inline pool and the cluster's default pool", async (account) => {
            expect(await verdict(tpuPool({ nodeConfig: nodes(account) }))).toEqual([say.defaultAccount("Node pool tpu")]);
            expect(await verdict(cluster({ removeDefaultNodePool: undefined, nodeConfig: nodes(account) }))).toEqual([
                say.defaultAccount("Cluster gke default node pool (nodeConfig)"),
            ]);
            expect(
                await verdict(
                    cluster({
                        nodePools: [
                            { name: "cpu", nodeConfig: nodes(DEDICATED[0]) },
                            { name: "tpu", nodeConfig: nodes(account) },
                        ],
                    }),
                ),
            ).toEqual([say.defaultAccount("Cluster gke nodePools[1] (tpu)")]);
        });

        test("caught: a pool without nodeConfig at all", async () => {
            expect(await verdict(tpuPool({ nodeConfig: undefined }))).toEqual([say.defaultAccount("Node pool tpu")]);
            expect(await verdict(cluster({ removeDefaultNodePool: false, nodeConfig: undefined }))).toEqual([
                say.defaultAccount("Cluster gke default node pool (nodeConfig)"),
            ]);
            // Pools inline in the cluster replace its default pool.
            expect(await verdict(cluster({ removeDefaultNodePool: undefined, nodeConfig: undefined, nodePools: [{}] }))).toEqual([
                say.defaultAccount("Cluster gke nodePools[0]"),
            ]);
        });

        test.each(DEFAULTS)("clean: %p as the nodeConfig of a default pool removed at creation", async (account) => {
            expect(await verdict(cluster({ removeDefaultNodePool: true, nodeConfig: nodes(account) }))).toEqual([]);
        });

        test.each(DEDICATED)("clean: %s everywhere; Autopilot", async (account) => {
            expect(
                await verdict(
                    tpuPool({ nodeConfig: nodes(account) }),
                    cluster({ nodeConfig: nodes(account), nodePools: [{ nodeConfig: nodes(account) }] }),
                ),
            ).toEqual([]);
            expect(await verdict(cluster({ enableAutopilot: true, nodeConfig: undefined }))).toEqual([]);
        });
    });
});
