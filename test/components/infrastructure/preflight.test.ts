import * as pulumi from "@pulumi/pulumi";
import { PreflightError, isExactGkeVersion, passOrThrow, readLiveFacts } from "../../../components/infrastructure/preflight";
import { ProjectApis } from "../../../components/infrastructure/projectApis";
import { parseSettings } from "../../../components/settings/stack";
import { INVOKE_TOKENS, InvokeAnswer, disabledServiceAnswer } from "../../../scripts/offline/invokes";
import { PROJECT, record } from "../../harness";

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
