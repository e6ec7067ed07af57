/**
 * npm run preview:offline on a program this project did not write (test/fixtures/foreign-program, one `mode` per thing such
 * programs use): it previews what a real `pulumi preview` previews, or stops with one line naming the resource and what
 * has no offline answer.
 */
import { INVOKE_TOKENS, defaultInvokeAnswers } from "../../scripts/offline/invokes";
import * as fs from "fs";
import * as http from "http";
import { AddressInfo } from "net";
import * as path from "path";
import { UNKNOWN_VALUE } from "../../scripts/offline/recorder";
import { PreviewReport } from "../../scripts/offline/report";
import { CliRun } from "../cli";
import { ROOT, preview, previewProcess, tempDir } from "./previewCli";

const FOREIGN = path.join(ROOT, "test", "fixtures", "foreign-program");
const KUBERNETES_PROGRAM = path.join(ROOT, "test", "fixtures", "kubernetes-program");
const URN = "urn:pulumi:dev::foreign-program::";

/** The foreign program run in `mode` as the dev stack without a stack file, with its JSON report. */
async function foreign(mode: string, ...args: string[]): Promise<CliRun & { report?: PreviewReport }> {
    const json = path.join(tempDir(), "report.json");
    const run = await preview("--dir", FOREIGN, "--bare-stack", "-c", `mode=${mode}`, "--json", json, ...args);
    return { ...run, report: fs.existsSync(json) ? (JSON.parse(fs.readFileSync(json, "utf8")) as PreviewReport) : undefined };
}

/** The foreign program's "provider-answers" run, once for the file. */
let answers: ReturnType<typeof foreign> | undefined;
const providerAnswers = () => (answers ??= foreign("provider-answers"));

/** The same as its own process: a failed registration reaches the preview as the process's unhandled rejection. */
const foreignProcess = (mode: string) => previewProcess("--dir", FOREIGN, "--bare-stack", "-c", `mode=${mode}`);

/** The section of the tree that lists what was not checked offline. */
const notChecked = (stdout: string) => stdout.split("Not checked offline: ")[1]?.split("\n\n")[0];

/** Serves `body` over HTTP on a loopback port for the test, or refuses connections on one: the URL either way. */
async function serve(body?: string): Promise<{ url: string; close: () => void }> {
    const server = http.createServer((_, response) => response.end(body));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/greeting.yaml`;
    if (body === undefined) {
        // A port nothing listens on any more.
        await new Promise((resolve) => server.close(resolve));
    }
    return { url, close: () => server.close() };
}

describe("a program's identity is a local backend's", () => {
    test("pulumi.getOrganization() is the local backend's organization, beside the project and stack", async () => {
        const run = await foreign("identity");
        expect(run.status).toBe(0);
        expect(run.report!.outputs).toEqual({ organization: "organization", project: "foreign-program", stack: "dev" });
    });
});

describe("inputs as a provider's Check returns them, which the engine hands the pack", () => {
    test("a GCP resource that takes a name and sets none gets the provider's auto-name; one that takes none gets none", async () => {
        const run = await providerAnswers();
        expect(run.status).toBe(0);
        const inputs = (name: string) => run.report!.steps.find((step) => step.urn.endsWith(`::${name}`))!.newState.inputs;
        expect(inputs("armor")).toEqual({ region: "europe-west4", type: "CLOUD_ARMOR", name: run.report!.outputs.armor });
        expect(run.report!.outputs.armor).toMatch(/^armor-[0-9a-f]{7}$/);
        expect(inputs("viewer")).not.toHaveProperty("name");
    });
});

describe("another stack's outputs, which have no offline answer", () => {
    test("read as a plain value, they stop the run in one line naming the reference and the output", async () => {
        const run = await foreign("stack-value");
        expect(run.status).toBe(2);
        expect(run.stderr).toBe(
            'error: StackReference network reads output "networkName" with requireOutputValue: another stack\'s outputs have no offline answer; read it with getOutput (an Output the preview keeps unknown), or pass the value as configuration\n',
        );
    });
});

describe("what a program reads", () => {
    test("a resource read by its ID is the one it names; GKE's versions keep only those of a versionPrefix, and none of them has no offline answer", async () => {
        const run = await providerAnswers();
        expect(run.status).toBe(0);
        expect(run.report!.outputs).toMatchObject({
            network: "shared-vpc",
            link: "https://www.googleapis.com/compute/v1/projects/host/global/networks/shared-vpc",
            cluster: "https://container.googleapis.com/v1/projects/host/locations/europe-west4/clusters/shared",
            latest: expect.stringMatching(/^1\.\d+\.\d+-gke\.\d+$/),
        });
        const answer = defaultInvokeAnswers("p")[INVOKE_TOKENS.engineVersions];
        expect(() => answer({ location: "europe-west4", versionPrefix: "1.2." })).toThrow(
            /^the offline preview knows GKE's versions only as its release channels' defaults \([^)]+\), and none starts with versionPrefix "1\.2\."$/,
        );
    });
});

describe("secrets", () => {
    test("an output the provider marks secret is shown as a secret, in the tree and the report", async () => {
        const run = await providerAnswers();
        expect(run.status).toBe(0);
        expect(run.stdout).toMatch(/password\s*: \[secret\]/);
        expect(run.report!.outputs.password).toBe("[secret]");
    });
});

describe("what no offline preview sees, said beside a clean verdict", () => {
    test("a Helm release's objects (no preview registers them) and what the program builds from another stack's outputs", async () => {
        const run = await foreign("other-stacks");
        expect(run.status).toBe(0);
        expect(notChecked(run.stdout)).toBe(
            [
                "the objects of 2 components, each with why (most a real preview renders, and the pack then judges):",
                "    kubernetes:helm.sh/v3:Release nim (nim-llm): a Helm release is installed as one resource: no preview, pulumi's or this one, shows the pack the objects its chart makes",
                "    pulumi:pulumi:StackReference infra: the outputs of stack acme/infra/prod are unknown offline: whatever the program builds from them inside an apply is not previewed or judged",
            ].join("\n"),
        );
        expect(run.stdout).toContain(
            "✅ gke-tpu-inference@v0.1.0  (over what was previewed; the objects of 2 components not checked offline, listed above)",
        );
    });
});

describe("the gcp:project placeholder note", () => {
    test("is left out for a program that uses no GCP", async () => {
        for (const run of [await foreign("identity"), await preview("--dir", KUBERNETES_PROGRAM, "--bare-stack")]) {
            expect(run.status).toBe(0);
            expect(run.stdout).not.toContain("gcp:project");
        }
    });

    test("is shown for a program that calls a GCP function, and the placeholder is the project it sees", async () => {
        const run = await foreign("gcp-function");
        expect(run.stdout).toContain(
            'note: gcp:project is not set: using the placeholder "offline-preview-project" (pulumi up needs `pulumi config set gcp:project <PROJECT_ID>`)\n',
        );
        expect(run.report!.invokes).toEqual([{ token: "gcp:organizations/getProject:getProject", args: {} }]);
    });
});

describe("a stack file's ESC environment", () => {
    test("is named in one note: its values are not available offline", async () => {
        const run = await preview("--dir", FOREIGN, "--stack", "esc");
        expect(run.status).toBe(0);
        expect(run.stdout.split("\n").filter((line) => line.startsWith("note: "))).toEqual([
            "note: Pulumi.esc.yaml's ESC environment (acme/shared) is not read: its values need Pulumi Cloud; set the configuration the program needs from it with --config (or --secret)",
        ]);
    });

    test("a stack file without one gets no such note", async () => {
        const run = await preview("--dir", KUBERNETES_PROGRAM, "--stack", "secrets");
        expect(run.status).toBe(0);
        expect(run.stdout).not.toContain("ESC");
    });
});

describe("a multi-language (remote) component", () => {
    test("takes a resource as input and its outputs flow on as unknown; it is listed as not rendered, a component of the program's own is not", async () => {
        const run = await foreign("remote");
        expect(run.stderr).toBe("");
        expect(run.status).toBe(0);
        const steps = new Map(run.report!.steps.map((step) => [step.urn, step.newState]));
        const cluster = steps.get(`${URN}eks:index:Cluster::cluster`)!;
        // The resource reference reaches the component as its URN, the engine's.
        expect(cluster.inputs).toEqual({ role: `${URN}random:index/randomString:RandomString::role` });
        expect(steps.get(`${URN}pulumi:providers:kubernetes::cluster`)!.inputs).toEqual({ kubeconfig: UNKNOWN_VALUE });
        expect(steps.get(`${URN}kubernetes:core/v1:Namespace::apps`)!.provider).toMatch(
            new RegExp(`^${URN}pulumi:providers:kubernetes::cluster::`),
        );
        // Unknown as pulumi preview shows it; the JSON keeps the marker pulumi preview --json writes.
        expect(run.stdout).toContain("Outputs:\n    kubeconfig: [unknown]\n    roleLength: 8\n");
        expect(run.report!.outputs).toEqual({ kubeconfig: UNKNOWN_VALUE, roleLength: 8 });
        expect(notChecked(run.stdout)).toBe(
            [
                "the objects of 1 component, each with why (most a real preview renders, and the pack then judges):",
                "    eks:index:Cluster cluster: a multi-language component: its provider constructs its resources, which the offline preview does not run",
            ].join("\n"),
        );
        expect(run.report!.unrenderedCharts.map((component) => component.name)).toEqual(["cluster"]);
    });

    test("a method its provider runs stops the preview in one line naming the method and the component", async () => {
        const run = foreignProcess("method");
        expect(run.status).toBe(2);
        expect(run.stdout).toBe("");
        expect(run.stderr).toBe(
            "error: the offline preview has no answer for eks:index:Cluster/getKubeconfig on eks:index:Cluster cluster, a method its provider runs\n",
        );
    });
});

describe("the Kubernetes SDK's v1 components", () => {
    test("a Helm v3 chart's object is unknown and the chart not rendered; a config group's object is read; the rest previews", async () => {
        const run = await foreign("chart");
        expect(run.status).toBe(0);
        expect(run.stdout).toContain('Outputs:\n    clusterIP: [unknown]\n    greeting : "hello"\n');
        expect(run.stdout).toMatch(/ \+ {3}├─ kubernetes:core\/v1:Namespace +after +create/);
        expect(notChecked(run.stdout)).toBe(
            [
                "the objects of 1 component, each with why (most a real preview renders, and the pack then judges):",
                "    kubernetes:helm.sh/v3:Chart web: Helm charts are rendered by the Kubernetes provider, which the offline preview does not run",
            ].join("\n"),
        );
    });

    test("a ConfigFile whose URL does not answer is named with its URL as not read, its objects unknown; the rest previews", async () => {
        const { url } = await serve();
        const run = await foreign("config-file", "-c", `url=${url}`);
        expect(run.status).toBe(0);
        expect(run.stdout).toContain("Outputs:\n    greeting: [unknown]\n");
        expect(run.stdout).toMatch(/ \+ {3}├─ kubernetes:core\/v1:Namespace +after +create/);
        expect(notChecked(run.stdout)).toBe(
            [
                "the objects of 1 component, each with why (most a real preview renders, and the pack then judges):",
                `    kubernetes:yaml:ConfigFile remote: fetching ${url} failed (connect ECONNREFUSED ${new URL(url).host}), so the offline preview could not read its objects`,
            ].join("\n"),
        );
    });

    test("a ConfigFile nothing waits for, whose URL fails only after the program's code has returned, is named as not read", async () => {
        // Accepts, then hangs up a while later: the failure arrives after the program's last registration.
        const server = http.createServer((request) => setTimeout(() => request.socket.destroy(), 300));
        await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
        const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/late.yaml`;
        try {
            const run = await foreign("config-file-alone", "-c", `url=${url}`);
            expect(run.status).toBe(0);
            expect(notChecked(run.stdout)).toBe(
                [
                    "the objects of 1 component, each with why (most a real preview renders, and the pack then judges):",
                    `    kubernetes:yaml:ConfigFile remote: fetching ${url} failed (other side closed), so the offline preview could not read its objects`,
                ].join("\n"),
            );
        } finally {
            server.close();
        }
    });

    test("a ConfigFile whose URL answers registers its objects, as the program reads them", async () => {
        const server = await serve("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: greeting\ndata:\n  greeting: hi\n");
        try {
            const run = await foreign("config-file", "-c", `url=${server.url}`);
            expect(run.status).toBe(0);
            expect(run.stdout).toContain('Outputs:\n    greeting: "hi"\n');
            expect(run.stdout).toMatch(
                / \+ {3}└─ kubernetes:yaml:ConfigFile +remote +create\n \+ {6}└─ kubernetes:core\/v1:ConfigMap +greeting +create\n/,
            );
            expect(notChecked(run.stdout)).toBeUndefined();
        } finally {
            server.close();
        }
    });
});

describe("a provider function the offline preview has no answer for", () => {
    test("stops the preview in one line: the resources it failed and the function, once", async () => {
        const run = foreignProcess("function");
        expect(run.status).toBe(2);
        expect(run.stderr).toMatch(
            /^error: gcp:compute\/network:Network a, b could not register: the offline preview has no answer for gcp:compute\/getZones:getZones; known: [^\n]*\n$/,
        );
        expect(run.stderr.match(/no answer/g)).toHaveLength(1);
        expect(run.stderr).not.toContain("error serializing property");
    });
});
