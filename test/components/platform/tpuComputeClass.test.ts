import { parse } from "yaml";
import { TpuComputeClass } from "../../../components/platform/tpuComputeClass";
import { CrdValidator } from "../../crds";
import { record, testProvider } from "../../harness";

const POOL_SCHEDULING = {
    nodeSelector: { "cloud.google.com/gke-tpu-accelerator": "tpu-v6e-slice", "cloud.google.com/gke-tpu-topology": "2x2" },
    tolerations: [{ key: "google.com/tpu", operator: "Equal" as const, value: "present", effect: "NoSchedule" }],
    chipsPerVm: 4,
    hostsPerSlice: 1,
};

async function classFor(rungs: ConstructorParameters<typeof TpuComputeClass>[1]["rungs"]) {
    let computeClass: TpuComputeClass | undefined;
    const graph = await record(() => {
        computeClass = new TpuComputeClass("tpu-inference-tpu", {
            provider: testProvider(),
            className: "tpu-inference-tpu",
            rungs,
            poolScheduling: POOL_SCHEDULING,
        });
    });
    return {
        resource: graph.get("kubernetes:cloud.google.com/v1:ComputeClass", "tpu-inference-tpu-class"),
        computeClass: computeClass!,
        graph,
    };
}

describe("TpuComputeClass", () => {
    test("lists the pools in the plan's order, one per priority, creates none of its own and never scales up outside them", async () => {
        const { resource, graph } = await classFor([
            { nodePoolName: "pool-reservation", capacity: { type: "reservation", name: "trillium" } },
            { nodePoolName: "pool-flex", capacity: { type: "flex-start", maxRunDurationSeconds: 604800 } },
            { nodePoolName: "pool-spot", capacity: { type: "spot" } },
        ]);
        expect(resource.inputs).toEqual({
            apiVersion: "cloud.google.com/v1",
            kind: "ComputeClass",
            metadata: { name: "tpu-inference-tpu" },
            spec: {
                priorities: [{ nodepools: ["pool-reservation"] }, { nodepools: ["pool-flex"] }, { nodepools: ["pool-spot"] }],
                nodePoolAutoCreation: { enabled: false },
                whenUnsatisfiable: "DoNotScaleUp",
            },
        });
        // GKE's autoscaler installs the CRD, up to an hour into a new cluster: the class waits for a probe that the API
        // server takes a class, and for nothing else.
        expect(graph.dependencyNames(resource)).toEqual(["kubernetes:batch/v1:Job tpu-inference-tpu-served-probe"]);
        const probe = graph.get("kubernetes:batch/v1:Job", "tpu-inference-tpu-served-probe").inputs as {
            metadata: { namespace: string; annotations: Record<string, string> };
            spec: { backoffLimit: number };
        };
        expect([probe.metadata.namespace, probe.metadata.annotations["pulumi.com/timeoutSeconds"], probe.spec.backoffLimit]).toEqual([
            "default",
            "4200",
            16,
        ]);
        const probed = graph.get("kubernetes:core/v1:ConfigMap", "tpu-inference-tpu-served-probes").inputs as {
            data: Record<string, string>;
        };
        const probeClass = parse(probed.data["probe-0.yaml"]) as Record<string, unknown>;
        // A class of another name, never the stack's: a dry run of the class itself would fail once it exists.
        expect(probeClass).toEqual(expect.objectContaining({ kind: "ComputeClass", metadata: { name: "tpu-inference-tpu-probe" } }));
        expect([...new CrdValidator().errors(resource.inputs), ...new CrdValidator().errors(probeClass)]).toEqual([]);
    });

    test("pods select the class and tolerate its taint, and spot's when the plan has spot; never flex-start's", async () => {
        const { computeClass } = await classFor([
            { nodePoolName: "a", capacity: { type: "flex-start", maxRunDurationSeconds: 3600 } },
            { nodePoolName: "b", capacity: { type: "spot" } },
        ]);
        expect(computeClass.scheduling).toEqual({
            nodeSelector: {
                "cloud.google.com/gke-tpu-accelerator": "tpu-v6e-slice",
                "cloud.google.com/gke-tpu-topology": "2x2",
                "cloud.google.com/compute-class": "tpu-inference-tpu",
            },
            tolerations: [
                { key: "google.com/tpu", operator: "Equal", value: "present", effect: "NoSchedule" },
                { key: "cloud.google.com/compute-class", operator: "Equal", value: "tpu-inference-tpu", effect: "NoSchedule" },
                { key: "cloud.google.com/gke-spot", operator: "Equal", value: "true", effect: "NoSchedule" },
            ],
            chipsPerVm: 4,
            hostsPerSlice: 1,
        });
        const withoutSpot = await classFor([
            { nodePoolName: "a", capacity: { type: "on-demand" } },
            { nodePoolName: "b", capacity: { type: "any-reservation" } },
        ]);
        expect(withoutSpot.computeClass.scheduling.tolerations.map((toleration) => toleration.key)).toEqual([
            "google.com/tpu",
            "cloud.google.com/compute-class",
        ]);
    });

    test("a plan of one pool takes no class", async () => {
        await expect(classFor([{ nodePoolName: "a", capacity: { type: "on-demand" } }])).rejects.toThrow(
            "TpuComputeClass tpu-inference-tpu orders 1 node pool; a ComputeClass is only for a plan of two pools or more",
        );
    });
});
