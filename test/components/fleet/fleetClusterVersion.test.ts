/**
 * The shipped fleet's clusters ask for the version their release channel creates them at, as the preview read it, so
 * that the pack can judge each against GKE's multi-cluster floor: the offline preview of the stack reports nothing.
 */
import { RecordedResource } from "../../../scripts/offline/recorder";
import { OfflineRun } from "../../../scripts/offline/run";
import { INVOKE_TOKENS, defaultInvokeAnswers } from "../../../scripts/offline/invokes";
import { shippedRun } from "../../shippedStacks";
import { asFindings, summary } from "../../support/pack";
import { evaluatePack } from "../../support/wholePack";

const CLUSTER = "gcp:container/cluster:Cluster";

describe("the shipped fleet stack's clusters", () => {
    let run: OfflineRun;
    let clusters: RecordedResource[];
    beforeAll(async () => {
        run = await shippedRun("fleet");
        clusters = run.resources.filter((resource) => resource.type === CLUSTER);
    });

    test("each asks for its release channel's default in its region, as the preview read it, and ignores later defaults", () => {
        const defaults = (location: string) =>
            defaultInvokeAnswers(run.project.config["gcp:project"])[INVOKE_TOKENS.engineVersions]({ location })
                .releaseChannelDefaultVersion as Record<string, string>;
        expect(clusters.map((cluster) => [cluster.name, cluster.inputs.location, cluster.inputs.minMasterVersion])).toEqual([
            ["tpu-inference-us-east5-cluster", "us-east5", defaults("us-east5").REGULAR],
            ["tpu-inference-us-south1-cluster", "us-south1", defaults("us-south1").REGULAR],
        ]);
        for (const cluster of clusters) {
            expect(cluster.inputs.releaseChannel).toEqual({ channel: "REGULAR" });
            expect(cluster.options.ignoreChanges).toEqual(["initialNodeCount", "nodeConfig", "minMasterVersion"]);
        }
    });

    // That the pack, in its own process, reports nothing on the stack as it ships, not even an advisory, is
    // test/pack/shippedCharts.test.ts's, for every shipped stack.
    test("without the version the pack could not judge them: one advisory per cluster", async () => {
        // The pack reads what the engine hands it: the wire form of the inputs and outputs.
        const unversion = (props: Record<string, unknown>) =>
            Object.fromEntries(Object.entries(props).filter(([key]) => key !== "minMasterVersion"));
        const unversioned = run.resources.map((resource) =>
            resource.type === CLUSTER
                ? { ...resource, wire: { inputs: unversion(resource.wire.inputs), outputs: unversion(resource.wire.outputs) } }
                : resource,
        );
        expect(summary(asFindings(await evaluatePack(unversioned)))).toEqual([
            "advisory require-known-fleet-gke-version @tpu-inference-us-east5-cluster",
            "advisory require-known-fleet-gke-version @tpu-inference-us-south1-cluster",
        ]);
    });
});
