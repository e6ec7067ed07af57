/**
 * The live facts the program reads at preview (GKE's versions, the zones' machine types, the model buckets, the state of
 * the project's APIs), through the whole program: each stops it before any resource, with one line naming the setting.
 */
import { INVOKE_TOKENS, InvokeFailure, disabledServiceAnswer } from "../scripts/offline/invokes";
import { programFailure, runProgram } from "./harness";

describe("live facts read at preview", () => {
    const engineVersions = (defaults: Record<string, string>) => ({
        [INVOKE_TOKENS.engineVersions]: () => ({ releaseChannelDefaultVersion: defaults }),
    });

    test("a release channel whose default is below the floor stops the program with the channel, its default and the floor", async () => {
        const message = await programFailure(() =>
            runProgram(
                { releaseChannel: "STABLE" },
                { invokes: engineVersions({ STABLE: "1.33.5-gke.1080000", REGULAR: "1.34.1-gke.1431000", RAPID: "1.35.0-gke.1100000" }) },
            ),
        );
        expect(message).toBe(
            'gke-tpu-inference:releaseChannel = "STABLE" creates clusters at 1.33.5-gke.1080000 in europe-west4, below 1.34.0-gke.1626000, ' +
                "the first GKE version that installs the InferencePool inference.networking.k8s.io/v1 CRD itself; allowed: RAPID (default 1.35.0-gke.1100000), REGULAR (default 1.34.1-gke.1431000)",
        );
    });

    test("a patch below the floor within the same minor counts as below it", async () => {
        const message = await programFailure(() => runProgram({}, { invokes: engineVersions({ REGULAR: "1.34.0-gke.1500000" }) }));
        expect(message).toBe(
            'gke-tpu-inference:releaseChannel = "REGULAR" creates clusters at 1.34.0-gke.1500000 in europe-west4, below 1.34.0-gke.1626000, ' +
                "the first GKE version that installs the InferencePool inference.networking.k8s.io/v1 CRD itself; allowed: none today in europe-west4",
        );
    });

    /** An answer of getMachineTypes from a zone that lists exactly `names`. */
    const zoneOffering =
        (...names: string[]) =>
        (args: Record<string, unknown>) => ({
            machineTypes: names.filter((name) => String(args.filter) === `name = "${name}"`).map((name) => ({ name })),
        });

    test("a zone that does not offer the TPU machine type stops the program with the zone, the machine type and the catalog's zones", async () => {
        const message = await programFailure(() =>
            runProgram({ zone: "us-east5-a" }, { invokes: { [INVOKE_TOKENS.machineTypes]: zoneOffering("e2-standard-4") } }),
        );
        expect(message).toBe(
            'gke-tpu-inference:zone = "us-east5-a" does not offer gke-tpu-inference:tpuMachineType = "ct6e-standard-4t" today (GCP lists no such machine type there); ' +
                "allowed: a zone that offers it, among those where GKE runs TPU v6e node pools: europe-west4-a, us-central1-b, us-east1-d, us-east5-a, us-east5-b, us-south1-a, us-south1-b",
        );
    });

    test("every zone of the TPU plan is checked: another zone that does not offer the TPU machine type stops the program, named as a zone of tpuCapacity", async () => {
        const offeredInA = (args: Record<string, unknown>) =>
            zoneOffering("ct6e-standard-4t", "e2-standard-4")(args.zone === "us-east5-a" ? args : { ...args, filter: "none" });
        const tpuCapacity = JSON.stringify([{ type: "on-demand", zones: ["us-east5-a", "us-east5-b"] }]);
        const message = await programFailure(() =>
            runProgram({ zone: "us-east5-a", tpuCapacity }, { invokes: { [INVOKE_TOKENS.machineTypes]: offeredInA } }),
        );
        expect(message).toBe(
            '"us-east5-b" of gke-tpu-inference:tpuCapacity does not offer gke-tpu-inference:tpuMachineType = "ct6e-standard-4t" today (GCP lists no such machine type there); ' +
                "allowed: a zone that offers it, among those where GKE runs TPU v6e node pools: europe-west4-a, us-central1-b, us-east1-d, us-east5-a, us-east5-b, us-south1-a, us-south1-b",
        );
        // The same plan where both zones offer it runs.
        await expect(
            runProgram(
                { zone: "us-east5-a", tpuCapacity },
                { invokes: { [INVOKE_TOKENS.machineTypes]: zoneOffering("ct6e-standard-4t", "e2-standard-4") } },
            ),
        ).resolves.toBeDefined();
    });

    test("a system machine type GCP does not list there (a typo that looks like a type) stops the program", async () => {
        const message = await programFailure(() =>
            runProgram(
                { systemMachineType: "e2-standrd-4" },
                { invokes: { [INVOKE_TOKENS.machineTypes]: zoneOffering("ct6e-standard-4t", "e2-standard-4") } },
            ),
        );
        expect(message).toBe(
            'gke-tpu-inference:zone = "europe-west4-a" does not offer gke-tpu-inference:systemMachineType = "e2-standrd-4" today (GCP lists no such machine type there); ' +
                "allowed: a machine type the region's zones offer, such as e2-standard-4",
        );
    });

    const OWN_BUCKET_MODEL = {
        models: '[{"name": "mine", "pattern": "pattern1", "modelUri": "gs://team-models/llama/8b", "weightsGb": 16, "layers": 32}]',
    };

    test("a gs:// model in a bucket without uniform bucket-level access stops the program: no grant could be scoped to its folder", async () => {
        const message = await programFailure(() =>
            runProgram(OWN_BUCKET_MODEL, {
                invokes: { [INVOKE_TOKENS.bucket]: (args) => ({ name: args.name, uniformBucketLevelAccess: false }) },
            }),
        );
        expect(message).toBe(
            'gke-tpu-inference:models[0].modelUri = "gs://team-models/llama/8b": bucket team-models does not use uniform bucket-level access, and without it IAM cannot limit the server\'s read grant to llama/8b/; ' +
                "allowed: a bucket with uniform bucket-level access (gcloud storage buckets update gs://team-models --uniform-bucket-level-access), or a copy of the model in one",
        );
    });

    test("a gs:// model whose bucket cannot be read stops the program with GCP's reason", async () => {
        const message = await programFailure(() =>
            runProgram(OWN_BUCKET_MODEL, {
                invokes: {
                    [INVOKE_TOKENS.bucket]: () => {
                        throw new InvokeFailure("googleapi: Error 404: The specified bucket does not exist., notFound");
                    },
                },
            }),
        );
        expect(message).toBe(
            'gke-tpu-inference:models[0].modelUri = "gs://team-models/llama/8b": bucket team-models cannot be read (googleapi: Error 404: The specified bucket does not exist., notFound); ' +
                "allowed: a bucket the stack's credentials may read (storage.buckets.get), holding the model under llama/8b/",
        );
    });

    test("with manageProjectApis off, disabled APIs are named with the command that enables them; every problem comes at once", async () => {
        const message = await programFailure(() =>
            runProgram(
                { manageProjectApis: "false" },
                {
                    invokes: {
                        [INVOKE_TOKENS.projectService]: disabledServiceAnswer("acme-inference", [
                            "networkservices.googleapis.com",
                            "monitoring.googleapis.com",
                        ]),
                        ...engineVersions({ REGULAR: "1.33.5-gke.1080000" }),
                    },
                },
            ),
        );
        expect(message.split("\n")).toEqual([
            "gke-tpu-inference:manageProjectApis = false but project acme-inference has not enabled networkservices.googleapis.com, monitoring.googleapis.com; " +
                "allowed: enable them (gcloud services enable networkservices.googleapis.com monitoring.googleapis.com --project acme-inference) or set manageProjectApis to true",
            'gke-tpu-inference:releaseChannel = "REGULAR" creates clusters at 1.33.5-gke.1080000 in europe-west4, below 1.34.0-gke.1626000, ' +
                "the first GKE version that installs the InferencePool inference.networking.k8s.io/v1 CRD itself; allowed: none today in europe-west4",
        ]);
    });

    test("with manageProjectApis off and every API enabled, nothing enables an API and nothing waits for one", async () => {
        const unmanaged = await runProgram({ manageProjectApis: "false" });
        expect(unmanaged.ofType("gcp:projects/service:Service")).toEqual([]);
        expect(unmanaged.dependencyNames(unmanaged.get("gcp:compute/network:Network", "tpu-inference-vpc"))).toEqual([]);
    });

    test("an API the stack enables itself is checked once it is enabled, and whatever calls the API waits for both", async () => {
        const passing = await runProgram(
            {},
            { invokes: { [INVOKE_TOKENS.projectService]: disabledServiceAnswer("acme-inference", ["container.googleapis.com"]) } },
        );
        expect(passing.dependencyNames(passing.get("gcp:container/cluster:Cluster", "tpu-inference-cluster"))).toContain(
            "gcp:projects/service:Service tpu-inference-container",
        );
        expect(passing.recording.invokes.filter((invoke) => invoke.token === INVOKE_TOKENS.engineVersions)).toHaveLength(1);
    });

    test("an API state that cannot be read stops the program saying what the stack needs", async () => {
        const message = await programFailure(() =>
            runProgram(
                {},
                {
                    invokes: {
                        [INVOKE_TOKENS.projectService]: () => {
                            throw Object.assign(
                                new Error("googleapi: Error 403: Cloud Resource Manager API has not been used in project 1234"),
                                {
                                    details: "googleapi: Error 403: Cloud Resource Manager API has not been used in project 1234",
                                },
                            );
                        },
                    },
                },
            ),
        );
        expect(message).toBe(
            "reading the enabled APIs of project acme-inference failed (googleapi: Error 403: Cloud Resource Manager API has not been used in project 1234); " +
                "the stack needs serviceusage.googleapis.com and cloudresourcemanager.googleapis.com enabled and permission to read the project's services (docs/getting-started.md#deploy-for-real)",
        );
    });
});
