/**
 * A model server's start read off what the program emits: the startup probe's window on the container that serves, the
 * waits before it (the pessimistic start the service carries, and on a multi-host slice the Ray group's timeout in the
 * namespace's preset), and how long `pulumi up` waits for Ready.
 */
import { COLD_START_PESSIMISTIC_ANNOTATION, KSERVE, TPU_MULTI_HOST } from "@gke-tpu-inference/facts";
import { TPU_NODE_PROVISIONING_SECONDS } from "../components/serving/coldStart";
import { RecordedResource } from "../scripts/offline/recorder";

type Probe = { periodSeconds: number; failureThreshold: number; initialDelaySeconds?: number };
type Service = {
    metadata: { name: string; namespace: string; annotations: Record<string, string> };
    spec: { template: { containers: Array<{ startupProbe?: Probe }> }; worker?: unknown };
};

/** The leader's wait for its group, as the preset's command sets it: the script counts polls of 5 s, each also running `ray.init()`. */
function rayGroupWait(resources: readonly RecordedResource[], namespace: string): number | undefined {
    const preset = resources.find(
        (resource) =>
            resource.type === "kubernetes:serving.kserve.io/v1alpha2:LLMInferenceServiceConfig" &&
            (resource.inputs as { metadata: { name: string; namespace: string } }).metadata.name === KSERVE.pipelineParallelConfigName &&
            (resource.inputs as { metadata: { namespace: string } }).metadata.namespace === namespace,
    );
    const command = JSON.stringify((preset?.inputs as { spec?: unknown } | undefined)?.spec ?? "");
    const timeout = /--ray_init_timeout=(\d+)/.exec(command)?.[1];
    return timeout === undefined ? undefined : 2 * Number(timeout);
}

/** One line per model service whose start could outlast its startup probe or `pulumi up`'s wait. */
export function startPathProblems(resources: readonly RecordedResource[]): string[] {
    const problems: string[] = [];
    for (const resource of resources.filter(
        (candidate) => candidate.type === "kubernetes:serving.kserve.io/v1alpha2:LLMInferenceService",
    )) {
        const { metadata, spec } = resource.inputs as Service;
        const probe = spec.template.containers[0].startupProbe!;
        const window = (probe.initialDelaySeconds ?? 0) + probe.periodSeconds * probe.failureThreshold;
        const pessimistic = Number(metadata.annotations[COLD_START_PESSIMISTIC_ANNOTATION]);
        if (!(window >= pessimistic)) {
            problems.push(`${metadata.name}: the startup probe allows ${window} s, less than its pessimistic start of ${pessimistic} s`);
        }
        if (spec.worker !== undefined) {
            const wait = rayGroupWait(resources, metadata.namespace);
            if (wait === undefined || wait !== 2 * TPU_MULTI_HOST.rayGroupTimeoutSeconds || pessimistic < wait) {
                problems.push(
                    `${metadata.name}: the preset's Ray wait (${wait} s at most) is not the one its pessimistic start of ${pessimistic} s counts`,
                );
            }
        }
        const ready = Number(metadata.annotations["pulumi.com/timeoutSeconds"]);
        if (!(ready >= TPU_NODE_PROVISIONING_SECONDS + window)) {
            problems.push(
                `${metadata.name}: pulumi up waits ${ready} s for Ready, less than TPU provisioning and the ${window} s startup window`,
            );
        }
    }
    return problems;
}
