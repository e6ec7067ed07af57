import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { CliError } from "../../scripts/cli";
import { formatChecks } from "../../scripts/cli/checks";
import { plainTerminal } from "../../scripts/cli/terminal";
import type { FleetOutput } from "../../scripts/cluster/stackOutputs";
import { DoctorTargets } from "../../scripts/doctor/diagnose";
import { runFleetDoctor } from "../../scripts/doctor/fleet";
import { reportedCheck } from "../../scripts/doctor/report";
import { memberContexts } from "../../scripts/cluster/fleet";
import { fleetFromOutputs } from "../../scripts/cluster/stackOutputs";
import { runCli } from "../cli";
import { clusterState, fakeCluster, writeStackOutputs } from "../fakeCluster";
import { memoryReader } from "../memoryCluster";
import { NOW } from "./doctorStates";

/** A fleet of two members, us-east5 holding the multi-cluster Gateway, as the fleet stack's outputs give it. */
const FLEET: FleetOutput = {
    configRegion: "us-east5",
    members: {
        "us-east5": {
            clusterName: "tpu-inference-fleet-us-east5",
            kubeconfigCommand: "gcloud container clusters get-credentials tpu-inference-fleet-us-east5 --region us-east5 --project acme",
            tpuCapacityPlan: { options: [{ option: "on-demand", nodePool: "tpu-inference-dev-tpu" }] },
        },
        "us-south1": {
            clusterName: "tpu-inference-fleet-us-south1",
            kubeconfigCommand: "gcloud container clusters get-credentials tpu-inference-fleet-us-south1 --region us-south1 --project acme",
            tpuCapacityPlan: { options: [{ option: "on-demand", nodePool: "tpu-inference-dev-tpu" }] },
        },
    },
};
const TARGETS: DoctorTargets = {
    namespaces: ["llm-inference"],
    gateway: { namespace: "inference-gateway", name: "inference-gateway" },
    services: { "qwen2-3b": { pattern: "pattern1" } },
};

/** The report a user reads over the recorded states of the config cluster and of us-south1. */
async function fleetReport(south: string[], config: string[] = [], verbose = false) {
    const readers = {
        "us-east5": memoryReader(clusterState("fleet/member", "fleet/config", ...config)),
        "us-south1": memoryReader(clusterState("fleet/member", ...south)),
    };
    const diagnoses = await runFleetDoctor(readers, FLEET, TARGETS, NOW);
    return formatChecks("doctor", diagnoses.map(reportedCheck), { verbose, terminal: plainTerminal(400) }).split("\n");
}

/** The lines of a verbose report that the fleet adds or changes: everything but the platform checks a stack always had. */
const fleetLines = (report: string[]) =>
    report.filter(
        (line) =>
            /multi-cluster|per region|Gateway programmed|TPU capacity|exported|import|service ready|^us-|^doctor/.test(line) &&
            !/CRD installed/.test(line),
    );

const WAITING =
    "InferencePoolReady=False (WaitingForGateway: Inference Pool llm-inference/qwen2-3b-inference-pool exists but no Gateway controller has accepted it yet): expected without a route (a fleet member's service is routed by the config cluster's Gateway)";

describe("npm run doctor across a fleet, over recorded states", () => {
    test("a healthy fleet of two members: the config cluster's Gateway, import, route and policies; each member's export and capacity", async () => {
        expect(await fleetReport([])).toEqual(["doctor: 0 failed, 68 OK", ""]);
        expect(fleetLines(await fleetReport([], [], true))).toEqual([
            "us-east5: multi-cluster Gateway",
            "    OK      Gateway inference-gateway/inference-gateway: multi-cluster GatewayClass: class gke-l7-cross-regional-internal-managed-mc",
            "    OK      Gateway inference-gateway/inference-gateway: Gateway programmed: Programmed=True (Programmed)",
            "    OK      Gateway inference-gateway/inference-gateway: Gateway address per region: 10.10.0.50, 10.20.0.50 for 2 regions (us-east5, us-south1)",
            "    OK      GCPInferencePoolImport llm-inference/qwen2-3b-fleet: import present: read as networking.gke.io/v1 (CRD gcpinferencepoolimports.networking.gke.io): status.controllers[0].parents[0].conditions: Accepted=True (Accepted)",
            "    OK      GCPInferencePoolImport llm-inference/qwen2-3b-fleet: exported by every member: status.controllers[0].exportingClusters: tpu-inference-fleet-us-east5, tpu-inference-fleet-us-south1",
            "    OK      HTTPRoute llm-inference/qwen2-3b-fleet: route to the import accepted: Accepted=True (Accepted), ResolvedRefs=True (ResolvedRefs)",
            "    OK      HealthCheckPolicy llm-inference/qwen2-3b-fleet: import health check attached: HealthCheckPolicy qwen2-3b-fleet: Attached=True (Attached: Policy attached)",
            "    OK      GCPBackendPolicy llm-inference/qwen2-3b-fleet: import backend policy attached: GCPBackendPolicy qwen2-3b-fleet: Attached=True (Attached: Policy attached)",
            "us-east5: TPU capacity",
            "    OK      us-east5: TPU capacity: 1 TPU node",
            "us-east5: fleet export",
            "    OK      InferencePool llm-inference/qwen2-3b-fleet: pool exported: InferencePool llm-inference/qwen2-3b-fleet: networking.gke.io/export=True",
            "us-east5: Gateway",
            "us-east5: CRDs",
            "us-east5: controllers",
            "us-east5: cert-manager",
            "us-east5: model service llm-inference/qwen2-3b",
            `    OK      LLMInferenceService llm-inference/qwen2-3b: service ready: ${WAITING}`,
            "us-south1: TPU capacity",
            "    OK      us-south1: TPU capacity: 1 TPU node",
            "us-south1: fleet export",
            "    OK      InferencePool llm-inference/qwen2-3b-fleet: pool exported: InferencePool llm-inference/qwen2-3b-fleet: networking.gke.io/export=True",
            "us-south1: Gateway",
            "us-south1: CRDs",
            "us-south1: controllers",
            "us-south1: cert-manager",
            "us-south1: model service llm-inference/qwen2-3b",
            `    OK      LLMInferenceService llm-inference/qwen2-3b: service ready: ${WAITING}`,
            "doctor: 0 failed, 68 OK",
        ]);
    });

    test("us-south1 out of TPU capacity: named as such with GKE's reason, the lesson and the next step; the rest of the fleet passes", async () => {
        expect(await fleetReport(["fleet/no-capacity"], ["fleet/import-one-member"])).toEqual([
            "us-east5: multi-cluster Gateway",
            "    FAIL    GCPInferencePoolImport llm-inference/qwen2-3b-fleet: exported by every member: status.controllers[0].exportingClusters: tpu-inference-fleet-us-east5: not us-south1",
            "            lesson   : A pool exported from some members only, or an import no member exports: the fleet serves from fewer regions than it runs (docs/lessons.md#fleet-exports)",
            "            next step: the missing regions' `pool exported` and `TPU capacity` lines say why",
            "",
            "us-south1: TPU capacity",
            "    FAIL    us-south1: TPU capacity: none: no TPU node; Pod llm-inference/qwen2-3b-kserve-6c8f9d7b54-x2x4p Pending: FailedScaleUp: Node scale up in zones us-south1-a associated with this pod failed: GCE out of resources. Pod is at risk of not being scheduled. (stockout: the zone has no free TPU v6e capacity of this option)",
            "            lesson   : GKE may have no TPU v6e capacity in the zone (GCE_STOCKOUT, ZONE_RESOURCE_POOL_EXHAUSTED) (docs/lessons.md#tpu-capacity)",
            "            next step: the fleet serves from its other regions meanwhile; the ComputeClass moves to the next option after GKE's backoff; add a flex-start or spot option to tpuCapacity, or move to another v6e zone",
            "",
            "us-south1: model service llm-inference/qwen2-3b",
            "    FAIL    LLMInferenceService llm-inference/qwen2-3b: service ready: MainWorkloadReady=False (MinimumReplicasUnavailable: Deployment does not have minimum availability.)",
            "            next step: the checks below name the part that is not ready",
            "    FAIL    Pod llm-inference/qwen2-3b-kserve-6c8f9d7b54-x2x4p: pod scheduled: FailedScaleUp: Node scale up in zones us-south1-a associated with this pod failed: GCE out of resources. Pod is at risk of not being scheduled. (stockout: the zone has no free TPU v6e capacity of this option)",
            "            lesson   : GKE may have no TPU v6e capacity in the zone (GCE_STOCKOUT, ZONE_RESOURCE_POOL_EXHAUSTED) (docs/lessons.md#tpu-capacity)",
            "            next step: the ComputeClass moves to the next option after GKE's backoff; add a flex-start or spot option to tpuCapacity, or move to another v6e zone",
            "",
            "doctor: 4 failed, 63 OK",
            "",
        ]);
    });

    test("a member whose twin pool lost its export annotation, or lacks it: a failure naming the fix", async () => {
        const readers = {
            "us-east5": memoryReader(clusterState("fleet/member", "fleet/config")),
            "us-south1": memoryReader(
                clusterState("fleet/member").map((object) =>
                    object.metadata?.name === "qwen2-3b-fleet" ? { ...object, metadata: { ...object.metadata, annotations: {} } } : object,
                ),
            ),
        };
        const failed = (await runFleetDoctor(readers, FLEET, TARGETS, NOW)).filter((diagnosis) => diagnosis.status !== "OK");
        expect(failed).toEqual([
            {
                status: "FAIL",
                area: "us-south1: fleet export",
                check: "pool exported",
                object: "InferencePool llm-inference/qwen2-3b-fleet",
                evidence: 'InferencePool llm-inference/qwen2-3b-fleet: networking.gke.io/export is not set, not "True"',
                lesson: "fleet-exports",
                fix: "run `pulumi up`: the stack's twin pool carries networking.gke.io/export; an annotation put on KServe's own pool by hand is lost on KServe's next update of it",
            },
        ]);
    });

    test("a service with a route that waits for its Gateway is still a failure: only an unrouted one is expected to", async () => {
        const routed = clusterState("fleet/member").map((object) =>
            object.kind === "LLMInferenceService" ? { ...object, spec: { ...(object.spec as object), router: { route: {} } } } : object,
        );
        const diagnoses = await runFleetDoctor(
            { "us-east5": memoryReader(clusterState("fleet/member", "fleet/config")), "us-south1": memoryReader(routed) },
            FLEET,
            TARGETS,
            NOW,
        );
        expect(
            diagnoses
                .filter((diagnosis) => diagnosis.status === "FAIL")
                .map((diagnosis) => [diagnosis.area, diagnosis.check, diagnosis.evidence]),
        ).toEqual([
            ["us-south1: Gateway", "Gateway exists", "not found"],
            [
                "us-south1: model service llm-inference/qwen2-3b",
                "service ready",
                "InferencePoolReady=False (WaitingForGateway: Inference Pool llm-inference/qwen2-3b-inference-pool exists but no Gateway controller has accepted it yet)",
            ],
            ["us-south1: model service llm-inference/qwen2-3b", "route exists", "KServe has not created the route"],
        ]);
    });
});

describe("a fleet's members on the command line", () => {
    test("each member's context: gcloud's gke_<project>_<region>_<cluster>, or --member-context REGION=KUBECONTEXT", () => {
        expect(memberContexts(FLEET)).toEqual({
            "us-east5": "gke_acme_us-east5_tpu-inference-fleet-us-east5",
            "us-south1": "gke_acme_us-south1_tpu-inference-fleet-us-south1",
        });
        expect(memberContexts(FLEET, ["us-south1=south"])["us-south1"]).toBe("south");
        expect(() => memberContexts(FLEET, ["europe-west4=west"])).toThrow(
            new CliError("--member-context europe-west4: the fleet has no member there; its members: us-east5, us-south1"),
        );
        expect(() => memberContexts(FLEET, ["us-south1"])).toThrow(new CliError('--member-context "us-south1" is not REGION=KUBECONTEXT'));
    });

    test("the fleet output read, or refused naming the field", () => {
        expect(fleetFromOutputs({ models: {} })).toBeUndefined();
        expect(fleetFromOutputs({ ...FLEET })).toEqual(FLEET);
        expect(() => fleetFromOutputs({ ...FLEET, configRegion: "europe-west4" })).toThrow(
            new CliError(
                "the stack's configRegion output is not one of the members (us-east5, us-south1): not the outputs of a fleet stack of this program",
            ),
        );
        expect(() => fleetFromOutputs({ ...FLEET, members: { "us-east5": { clusterName: "c" } } })).toThrow(
            new CliError(
                "the stack's members.us-east5 output is not a member with clusterName and kubeconfigCommand: not the outputs of a fleet stack of this program",
            ),
        );
    });

    test("the doctor CLI reads every member through its own context, read-only; --context is refused for a fleet", async () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "doctor-fleet-"));
        const east = await fakeCluster(clusterState("fleet/member", "fleet/config"), dir, "gke_acme_us-east5_tpu-inference-fleet-us-east5");
        const south = await fakeCluster(clusterState("fleet/member", "fleet/no-capacity"), dir, "south");
        try {
            const outputs = writeStackOutputs(path.join(dir, "outputs.json"), {
                models: { "qwen2-3b": { pattern: "pattern1" } },
                ...FLEET,
            });
            const env = { KUBECONFIG: [east.kubeconfigFile, south.kubeconfigFile].join(path.delimiter) };
            const run = await runCli("doctor.ts", ["--outputs", outputs, "--member-context", "us-south1=south", "--json"], env);
            expect(run.status).toBe(1);
            const report = JSON.parse(run.stdout) as {
                summary: Record<string, number>;
                checks: Array<{ area: string; check: string; status: string }>;
            };
            expect(report.checks.filter((check) => check.status !== "OK").map((check) => [check.area, check.check])).toEqual([
                ["us-south1: TPU capacity", "TPU capacity"],
                ["us-south1: model service llm-inference/qwen2-3b", "service ready"],
                ["us-south1: model service llm-inference/qwen2-3b", "pod scheduled"],
            ]);
            expect([...east.requests, ...south.requests].every((request) => request.startsWith("GET "))).toBe(true);
            const refused = await runCli("doctor.ts", ["--outputs", outputs, "--context", "south"], env);
            expect([refused.status, refused.stderr.trim()]).toEqual([
                2,
                "error: --context names one cluster: give each member of the fleet with --member-context REGION=KUBECONTEXT",
            ]);
        } finally {
            await Promise.all([east.close(), south.close()]);
        }
    });
});
