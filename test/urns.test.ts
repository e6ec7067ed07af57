/**
 * Rename safety: a resource's URN is its identity in the stack's state, derived from its type, its name and its
 * parents' types. A change that alters one makes `pulumi up` delete the old resource and create a new one (for the
 * cluster, the VPC and the TPU pool, a rebuild of the platform) unless the resource declares the old URN in
 * `aliases`. This snapshot of the shipped stacks' URNs changes only on purpose: update it with `npx jest -u`
 * together with the aliases that keep the old resources, and list the moved URNs below.
 */
import * as fs from "fs";
import * as path from "path";
import { FROZEN_TYPE_TOKENS } from "../components/lib/typeTokens";
import { shippedRun } from "./shippedStacks";

describe.each(["dev", "prod", "fleet"])("the %s stack's URNs", (stack) => {
    test("are the ones its state holds", async () => {
        const run = await shippedRun(stack);
        expect(run.resources.map((resource) => resource.urn).sort()).toMatchSnapshot();
    });
});

/** The component that took in the TPU pools and the ComputeClass, which were the stack's own children before it. */
const TPU_CAPACITY = "gke-tpu-inference:platform:TpuCapacity";

/**
 * The URNs the shipped stacks' states held before TpuCapacity adopted their TPU resources. Each resource now under it
 * aliases its former URN, and the engine derives its children's aliases (test/components/platform/tpuCapacity.test.ts).
 */
const FORMER_TPU_URNS: Record<string, string[]> = {
    dev: [
        "gke-tpu-inference:tpu:TpuNodePool$gcp:container/nodePool:NodePool::tpu-inference-tpu-pool",
        "gke-tpu-inference:tpu:TpuNodePool::tpu-inference-tpu",
    ],
    prod: [
        "gke-tpu-inference:platform:TpuComputeClass$gke-tpu-inference:platform:WebhookGate$kubernetes:batch/v1:Job::tpu-inference-tpu-served-probe",
        "gke-tpu-inference:platform:TpuComputeClass$gke-tpu-inference:platform:WebhookGate$kubernetes:core/v1:ConfigMap::tpu-inference-tpu-served-probes",
        "gke-tpu-inference:platform:TpuComputeClass$gke-tpu-inference:platform:WebhookGate$kubernetes:core/v1:ServiceAccount::tpu-inference-tpu-served-probe",
        "gke-tpu-inference:platform:TpuComputeClass$gke-tpu-inference:platform:WebhookGate$kubernetes:rbac.authorization.k8s.io/v1:ClusterRole::tpu-inference-tpu-served-probe",
        "gke-tpu-inference:platform:TpuComputeClass$gke-tpu-inference:platform:WebhookGate$kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding::tpu-inference-tpu-served-probe",
        "gke-tpu-inference:platform:TpuComputeClass$gke-tpu-inference:platform:WebhookGate::tpu-inference-tpu-served",
        "gke-tpu-inference:platform:TpuComputeClass$kubernetes:cloud.google.com/v1:ComputeClass::tpu-inference-tpu-class",
        "gke-tpu-inference:platform:TpuComputeClass::tpu-inference-tpu",
        "gke-tpu-inference:tpu:TpuNodePool$gcp:container/nodePool:NodePool::tpu-inference-spot-pool",
        "gke-tpu-inference:tpu:TpuNodePool$gcp:container/nodePool:NodePool::tpu-inference-tpu-pool",
        "gke-tpu-inference:tpu:TpuNodePool::tpu-inference-spot",
        "gke-tpu-inference:tpu:TpuNodePool::tpu-inference-tpu",
    ],
};

describe.each(["dev", "prod"])("the %s stack's TPU resources under TpuCapacity", (stack) => {
    test("are its former URNs with the component's qualifier: the ones each aliases", async () => {
        const run = await shippedRun(stack);
        const prefix = `urn:pulumi:${stack}::gke-tpu-inference::`;
        const moved = run.resources.filter((resource) => resource.urn.includes(`${TPU_CAPACITY}$`));
        expect(moved.map((resource) => resource.urn.replace(`${TPU_CAPACITY}$`, "")).sort()).toEqual(
            FORMER_TPU_URNS[stack].map((urn) => `${prefix}${urn}`).sort(),
        );
        // Nothing of the former layout remains beside them: no resource both moved and stayed.
        expect(run.resources.filter((resource) => FORMER_TPU_URNS[stack].some((urn) => resource.urn === `${prefix}${urn}`))).toEqual([]);
    });
});

/** Every `.ts` file under `dir`, relative to the repository's root. */
function sources(dir: string): string[] {
    return fs
        .readdirSync(path.join(__dirname, "..", dir), { withFileTypes: true })
        .flatMap((entry) =>
            entry.isDirectory() ? sources(`${dir}/${entry.name}`) : entry.name.endsWith(".ts") ? [`${dir}/${entry.name}`] : [],
        );
}

describe("component type tokens", () => {
    // Each component class and the token its constructor hands `super`.
    const declared = sources("components").flatMap((file) =>
        [
            ...fs
                .readFileSync(path.join(__dirname, "..", file), "utf8")
                .matchAll(
                    /class (\w+) extends pulumi\.ComponentResource[\s\S]*?super\(\s*("gke-tpu-inference:[^"]+"|FROZEN_TYPE_TOKENS\.\w+)/g,
                ),
        ].map(([, className, token]) => ({ folder: path.basename(path.dirname(file)), className, token })),
    );

    test("each names its folder as its module (gke-tpu-inference:<folder>:<Class>), but for the frozen ones", () => {
        // Every component of the program: the checker reads them all.
        expect(declared).toHaveLength(
            sources("components").filter((file) =>
                /extends pulumi\.ComponentResource/.test(fs.readFileSync(path.join(__dirname, "..", file), "utf8")),
            ).length,
        );
        const literal = declared.filter(({ token }) => token.startsWith('"'));
        expect(literal.filter(({ folder, className, token }) => JSON.parse(token) !== `gke-tpu-inference:${folder}:${className}`)).toEqual(
            [],
        );
    });

    test("the frozen ones are the infrastructure components' modules from before that folder, each used by its own class", () => {
        expect(FROZEN_TYPE_TOKENS).toEqual({
            ProjectApis: "gke-tpu-inference:project:ProjectApis",
            Network: "gke-tpu-inference:network:Network",
            GkeCluster: "gke-tpu-inference:cluster:GkeCluster",
            TpuNodePool: "gke-tpu-inference:tpu:TpuNodePool",
            ModelStore: "gke-tpu-inference:storage:ModelStore",
        });
        const frozen = declared.filter(({ token }) => token.startsWith("FROZEN_TYPE_TOKENS."));
        expect(frozen.map(({ folder, className, token }) => `${folder} ${className} ${token}`).sort()).toEqual(
            Object.keys(FROZEN_TYPE_TOKENS)
                .map((name) => `infrastructure ${name} FROZEN_TYPE_TOKENS.${name}`)
                .sort(),
        );
    });
});
