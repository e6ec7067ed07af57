import * as pulumi from "@pulumi/pulumi";
import {
    GKE_TPU_V6E_ZONES,
    GKE_VERSION,
    MULTI_CLUSTER_INFERENCE,
    RELEASE_CHANNELS,
    compareGkeVersions,
    regionOfZone,
} from "@gke-tpu-inference/facts";
import { Preflight, PreflightError, isExactGkeVersion, passOrThrow, readLiveFacts } from "../../../components/infrastructure/preflight";
import { ProjectApis } from "../../../components/infrastructure/projectApis";
import { parseSettings } from "../../../components/settings/stack";
import { Settings } from "../../../components/settings/stack";
import { INVOKE_TOKENS, InvokeAnswer, defaultInvokeAnswers, disabledServiceAnswer } from "../../../scripts/offline/invokes";
import { PROJECT, record } from "../../harness";
import { parse } from "../settings/parse";

const settings = parseSettings(PROJECT, () => undefined, "acme-inference");

/** Runs the preflight with the Kubernetes Engine API disabled at preview, and settles the container API's gate. */
async function deferredContainerGate(answers: Record<string, InvokeAnswer>): Promise<{ outcome: unknown; invokes: string[] }> {
    let outcome: unknown;
    const graph = await record(
        async () => {
            const preflight = (await readLiveFacts(settings, PROJECT, true))(
                new ProjectApis("apis", { project: settings.project, manage: true }),
            );
            const [service, gate] = preflight.prerequisites("container");
            expect(service).toBeInstanceOf(pulumi.Resource);
            // The gate is the check as an Output: it settles once the API's service exists.
            outcome = await (gate as unknown as { promise(): Promise<unknown> }).promise().then(
                (resources) => resources,
                (err: Error) => err,
            );
        },
        {},
        { invokes: { [INVOKE_TOKENS.projectService]: disabledServiceAnswer("acme-inference", ["container.googleapis.com"]), ...answers } },
    );
    return { outcome, invokes: graph.recording.invokes.map((invoke) => invoke.token) };
}

describe("readLiveFacts", () => {
    test("a check whose API is still disabled at preview runs after the stack enables the API; the gate then resolves to the API's service", async () => {
        const { outcome, invokes } = await deferredContainerGate({});
        expect(outcome).toEqual([expect.any(pulumi.Resource)]);
        expect(invokes.filter((token) => token === INVOKE_TOKENS.engineVersions)).toHaveLength(1);
    });
});

/** A fleet of `members` (each `{region, tpuCapacity?}`), the Gateway in the first member's region. */
function fleetSettings(members: Array<{ region: string; tpuCapacity?: unknown[] }>): Settings {
    return parse({
        gatewayHostname: "inference.fleet.internal",
        fleet: JSON.stringify({ configRegion: members[0].region, members }),
    });
}

/** us-east5 on demand in both of its v6e zones, us-south1 in its first: the shipped fleet's plan. */
const TWO_MEMBERS = fleetSettings([
    { region: "us-east5", tpuCapacity: [{ type: "on-demand", zones: ["us-east5-a", "us-east5-b"] }] },
    { region: "us-south1" },
]);

/**
 * The preflight of `checked` with every API enabled, and what it read: its Preflight (answered by `answers` over the
 * offline preview's), the message it stopped with, and each invoke as `token args`.
 */
async function preflightOf(
    checked: Settings,
    answers: Record<string, InvokeAnswer> = {},
): Promise<{ preflight?: Preflight; failure?: string; invokes: string[] }> {
    let preflight: Preflight | undefined;
    let failure: string | undefined;
    const graph = await record(
        async () => {
            try {
                preflight = (await readLiveFacts(checked, PROJECT, true))(
                    new ProjectApis("apis", { project: checked.project, manage: true, fleet: checked.fleet !== undefined }),
                );
            } catch (err) {
                expect(err).toBeInstanceOf(PreflightError);
                failure = (err as Error).message;
            }
        },
        {},
        { invokes: answers },
    );
    const invokes = graph.recording.invokes
        .filter((invoke) => invoke.token !== INVOKE_TOKENS.projectService)
        .map((invoke) => `${invoke.token} ${JSON.stringify(invoke.args)}`);
    return { preflight, failure, invokes: invokes.sort() };
}

/** An answer of getEngineVersions: `defaults` in `region`, the offline preview's elsewhere. */
function engineVersionsIn(region: string, defaults: Record<string, string>): Record<string, InvokeAnswer> {
    const offline = defaultInvokeAnswers("acme-inference")[INVOKE_TOKENS.engineVersions];
    return {
        [INVOKE_TOKENS.engineVersions]: (args) =>
            args.location === region ? { ...offline(args), releaseChannelDefaultVersion: defaults } : offline(args),
    };
}

/** An answer of getMachineTypes: the offline preview's, but `zone` lists nothing. */
function nothingOfferedIn(zone: string): Record<string, InvokeAnswer> {
    const offline = defaultInvokeAnswers("acme-inference")[INVOKE_TOKENS.machineTypes];
    return { [INVOKE_TOKENS.machineTypes]: (args) => (args.zone === zone ? { ...offline(args), machineTypes: [] } : offline(args)) };
}

const TPU_ZONES_ALLOWED = `allowed: a zone that offers it, among those where GKE runs TPU v6e node pools: ${GKE_TPU_V6E_ZONES.join(", ")}`;
const FLEET_FLOOR_WHY = "the first GKE version GKE's multi-cluster Inference Gateway supports on every cluster of its fleet";

describe("readLiveFacts on a fleet: each member's region and zones, not the stack's", () => {
    test("reads GKE's versions in each member's region and the machine types in each zone of each member's plan, none in the stack's own zone", async () => {
        const { failure, invokes } = await preflightOf(TWO_MEMBERS);
        expect(failure).toBeUndefined();
        const machineType = (name: string, zone: string) =>
            `${INVOKE_TOKENS.machineTypes} ${JSON.stringify({ filter: `name = "${name}"`, project: "acme-inference", zone })}`;
        expect(invokes).toEqual(
            [
                `${INVOKE_TOKENS.engineVersions} {"location":"us-east5","project":"acme-inference"}`,
                `${INVOKE_TOKENS.engineVersions} {"location":"us-south1","project":"acme-inference"}`,
                machineType("ct6e-standard-4t", "us-east5-a"),
                machineType("ct6e-standard-4t", "us-east5-b"),
                machineType("ct6e-standard-4t", "us-south1-a"),
                machineType("e2-standard-4", "us-east5-a"),
                machineType("e2-standard-4", "us-south1-a"),
            ].sort(),
        );
    });

    test("a member zone that does not offer the TPU machine type is named by the member's setting: its zone, or its tpuCapacity", async () => {
        expect((await preflightOf(TWO_MEMBERS, nothingOfferedIn("us-east5-b"))).failure).toBe(
            '"us-east5-b" of gke-tpu-inference:fleet.members[0].tpuCapacity does not offer gke-tpu-inference:tpuMachineType = "ct6e-standard-4t" today (GCP lists no such machine type there); ' +
                TPU_ZONES_ALLOWED,
        );
        expect((await preflightOf(TWO_MEMBERS, nothingOfferedIn("us-south1-a"))).failure!.split("\n")).toEqual([
            'gke-tpu-inference:fleet.members[1].zone = "us-south1-a" does not offer gke-tpu-inference:tpuMachineType = "ct6e-standard-4t" today (GCP lists no such machine type there); ' +
                TPU_ZONES_ALLOWED,
            'gke-tpu-inference:fleet.members[1].zone = "us-south1-a" does not offer gke-tpu-inference:systemMachineType = "e2-standard-4" today (GCP lists no such machine type there); ' +
                "allowed: a machine type the region's zones offer, such as e2-standard-4",
        ]);
        // The stack's own zone places no cluster of a fleet: nothing there is read, so nothing there can stop it.
        expect((await preflightOf(TWO_MEMBERS, nothingOfferedIn(TWO_MEMBERS.zone))).failure).toBeUndefined();
    });

    test("a member's channel default below GKE's multi-cluster floor stops a fleet, naming the member and the channels that meet both floors; one cluster runs there", async () => {
        const between = "1.34.1-gke.1000000";
        expect(compareGkeVersions(between, GKE_VERSION.floor)).toBeGreaterThan(0);
        expect(compareGkeVersions(between, MULTI_CLUSTER_INFERENCE.minimumGkeVersion)).toBeLessThan(0);
        const answers = engineVersionsIn("us-south1", { STABLE: "1.33.5-gke.1080000", REGULAR: between, RAPID: "1.35.0-gke.1100000" });
        expect((await preflightOf(TWO_MEMBERS, answers)).failure).toBe(
            `gke-tpu-inference:releaseChannel = "REGULAR" creates clusters at ${between} in us-south1 (gke-tpu-inference:fleet.members[1].region), ` +
                `below ${MULTI_CLUSTER_INFERENCE.minimumGkeVersion}, ${FLEET_FLOOR_WHY}; allowed: RAPID (default 1.35.0-gke.1100000)`,
        );
        // One cluster in us-south1 needs only the InferencePool's floor.
        const single = parse({ zone: "us-south1-a" });
        expect((await preflightOf(single, answers)).failure).toBeUndefined();
    });

    test("a member's channel default below both floors names both", async () => {
        const answers = engineVersionsIn("us-east5", { REGULAR: "1.33.5-gke.1080000" });
        expect((await preflightOf(TWO_MEMBERS, answers)).failure).toBe(
            'gke-tpu-inference:releaseChannel = "REGULAR" creates clusters at 1.33.5-gke.1080000 in us-east5 (gke-tpu-inference:fleet.members[0].region), ' +
                `below ${GKE_VERSION.floor}, the first GKE version that installs the InferencePool inference.networking.k8s.io/v1 CRD itself, and ` +
                `${MULTI_CLUSTER_INFERENCE.minimumGkeVersion}, ${FLEET_FLOOR_WHY}; allowed: none today in us-east5`,
        );
    });

    test("gives each member's channel default, as read at preview: the exact version its cluster is created at", async () => {
        const answers = engineVersionsIn("us-south1", { REGULAR: "1.35.0-gke.1100000" });
        const { preflight } = await preflightOf(TWO_MEMBERS, answers);
        const offline = defaultInvokeAnswers("acme-inference")[INVOKE_TOKENS.engineVersions]({ location: "us-east5" });
        expect(preflight!.channelDefaultVersion("us-east5")).toBe((offline.releaseChannelDefaultVersion as Record<string, string>).REGULAR);
        expect(preflight!.channelDefaultVersion("us-south1")).toBe("1.35.0-gke.1100000");
        expect(() => preflight!.channelDefaultVersion("europe-west4")).toThrow("no cluster of the stack is in europe-west4");
    });

    test("the offline preview's answers pass a fleet of every v6e region, in every v6e zone, on every release channel", async () => {
        const regions = [...new Set(GKE_TPU_V6E_ZONES.map(regionOfZone))];
        const members = regions.map((region) => ({
            region,
            tpuCapacity: [{ type: "on-demand", zones: GKE_TPU_V6E_ZONES.filter((zone) => regionOfZone(zone) === region) }],
        }));
        for (const releaseChannel of RELEASE_CHANNELS) {
            const fleet = { ...fleetSettings(members), releaseChannel };
            const { failure, invokes } = await preflightOf(fleet);
            expect({ releaseChannel, failure }).toEqual({ releaseChannel, failure: undefined });
            const zonesRead = invokes
                .filter((invoke) => invoke.startsWith(INVOKE_TOKENS.machineTypes) && invoke.includes("ct6e"))
                .map((invoke) => JSON.parse(invoke.slice(INVOKE_TOKENS.machineTypes.length + 1)).zone);
            expect(zonesRead.sort()).toEqual([...GKE_TPU_V6E_ZONES].sort());
        }
    });
});

describe("readLiveFacts on a fleet whose Kubernetes Engine API is disabled at preview", () => {
    test("each member's channel default is read once the API is enabled, once per region however many read it", async () => {
        let versions: unknown[] = [];
        const graph = await record(
            async () => {
                const preflight = (await readLiveFacts(TWO_MEMBERS, PROJECT, true))(
                    new ProjectApis("apis", { project: TWO_MEMBERS.project, manage: true, fleet: true }),
                );
                const gates = preflight.prerequisites("container");
                versions = await Promise.all(
                    ["us-east5", "us-south1"].map((region) =>
                        (pulumi.output(preflight.channelDefaultVersion(region)) as unknown as { promise(): Promise<unknown> }).promise(),
                    ),
                );
                expect(gates).toHaveLength(3);
            },
            {},
            { invokes: { [INVOKE_TOKENS.projectService]: disabledServiceAnswer("acme-inference", ["container.googleapis.com"]) } },
        );
        const offline = defaultInvokeAnswers("acme-inference")[INVOKE_TOKENS.engineVersions]({}).releaseChannelDefaultVersion as Record<
            string,
            string
        >;
        expect(versions).toEqual([offline.REGULAR, offline.REGULAR]);
        expect(
            graph.recording.invokes.filter((invoke) => invoke.token === INVOKE_TOKENS.engineVersions).map((invoke) => invoke.args.location),
        ).toEqual(["us-east5", "us-south1"]);
    });
});

describe("passOrThrow", () => {
    test("passes the value through when nothing is wrong, and throws every problem at once otherwise", () => {
        expect(passOrThrow([], "services")).toBe("services");
        let error: unknown;
        try {
            passOrThrow(["first problem", "second problem"], "services");
        } catch (err) {
            error = err;
        }
        expect(error).toBeInstanceOf(PreflightError);
        expect((error as PreflightError).message).toBe("first problem\nsecond problem");
        expect((error as PreflightError).problems).toEqual(["first problem", "second problem"]);
    });
});

describe("isExactGkeVersion", () => {
    test("an exact version, not an alias GKE resolves (the facts' comparator orders exact versions only)", () => {
        expect(isExactGkeVersion("1.34.0-gke.1626000")).toBe(true);
        expect(["1.34", "1.34.0", "latest", "", "1.34.0-gke."].map(isExactGkeVersion)).toEqual([false, false, false, false, false]);
    });
});
