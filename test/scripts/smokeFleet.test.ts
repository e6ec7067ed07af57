import * as http from "http";
import { AddressInfo } from "net";
import type { FleetOutput } from "../../scripts/cluster/stackOutputs";
import { runFleetClusterChecks, runRegionChecks } from "../../scripts/smoke/fleet";
import { clusterState } from "../fakeCluster";
import { memoryReader } from "../memoryCluster";

const FAST = { attempts: 2, intervalMs: 10, requestTimeoutMs: 2000 };
const member = (region: string) => ({
    clusterName: `tpu-inference-fleet-${region}`,
    kubeconfigCommand: `gcloud container clusters get-credentials tpu-inference-fleet-${region} --region ${region} --project acme`,
});
const TARGETS = { servingNamespace: "llm-inference", gateway: { namespace: "inference-gateway", name: "inference-gateway" } };

describe("npm run smoke against a fleet", () => {
    test("the cluster side: each member's twin pool exported, the config cluster's route and policies on the import", async () => {
        const fleet: FleetOutput = {
            configRegion: "us-east5",
            members: { "us-east5": member("us-east5"), "us-south1": member("us-south1") },
        };
        const south = clusterState("fleet/member").filter((object) => object.metadata?.name !== "qwen2-3b-fleet");
        const readers = {
            "us-east5": memoryReader(clusterState("fleet/member", "fleet/config")),
            "us-south1": memoryReader(south),
        };
        const results = await runFleetClusterChecks(readers, fleet, ["qwen2-3b"], TARGETS, { ...FAST, attempts: 1 });
        expect(results.map((result) => [result.check, result.ok, result.detail])).toEqual([
            ["us-east5 exports qwen2-3b-fleet", true, "InferencePool llm-inference/qwen2-3b-fleet: networking.gke.io/export=True"],
            [
                "us-south1 exports qwen2-3b-fleet",
                false,
                "InferencePool llm-inference/qwen2-3b-fleet does not exist: the config cluster gets no import of qwen2-3b from this member",
            ],
            ["HTTPRoute to the import accepted", true, "Accepted=True (Accepted), ResolvedRefs=True (ResolvedRefs)"],
            [
                "HealthCheckPolicy on the import attached",
                true,
                "HealthCheckPolicy qwen2-3b-fleet: Attached=True (Attached: Policy attached)",
            ],
            ["GCPBackendPolicy on the import attached", true, "GCPBackendPolicy qwen2-3b-fleet: Attached=True (Attached: Policy attached)"],
        ]);
    });

    test("/health through each of the Gateway's addresses: the URL's host replaced by the address; one without a backend fails", async () => {
        const seen: string[] = [];
        const server = http.createServer((req, res) => {
            seen.push(`${req.headers.host?.split(":")[0]} ${req.url}`);
            res.writeHead(req.headers.host?.startsWith("127.0.0.1") ? 200 : 503).end();
        });
        await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
        const { port } = server.address() as AddressInfo;
        try {
            const fleet: FleetOutput = {
                configRegion: "us-east5",
                members: { "us-east5": member("us-east5"), "us-south1": member("us-south1") },
                // The fake answers 503 to any host but 127.0.0.1: the second frontend reaches no backend.
                gatewayAddresses: ["127.0.0.1", "localhost"],
            };
            const results = await runRegionChecks(
                { qwen: { baseUrl: `http://localhost:${port}/llm-inference/qwen`, modelName: "Qwen/Qwen2.5-3B-Instruct" } },
                fleet,
                FAST,
            );
            expect(results).toEqual([
                {
                    service: "qwen",
                    check: "/health through 127.0.0.1",
                    ok: true,
                    attempts: 1,
                    detail: `GET http://127.0.0.1:${port}/llm-inference/qwen/health: HTTP 200`,
                },
                {
                    service: "qwen",
                    check: "/health through localhost",
                    ok: false,
                    attempts: 2,
                    detail: `GET http://localhost:${port}/llm-inference/qwen/health: HTTP 503`,
                },
            ]);
            expect(seen.filter((request) => request.startsWith("127.0.0.1"))).toEqual(["127.0.0.1 /llm-inference/qwen/health"]);
        } finally {
            await new Promise((resolve) => server.close(resolve));
        }
    });
});
