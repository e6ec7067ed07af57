import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { MIN_EMBEDDED_SECRET_LENGTH, secretRedactor } from "../../scripts/offline/policies";
import { SECURE_PLACEHOLDER, loadProject } from "../../scripts/offline/project";
import {
    InvokeFailure,
    NoOfflineAnswer,
    ResourceRecorder,
    SECRET_PLACEHOLDER,
    UNKNOWN_VALUE,
    plainValue,
} from "../../scripts/offline/recorder";
import { displayType } from "../../scripts/offline/report";
import { INVOKE_TOKENS, PLACEHOLDER_AWS_ACCOUNT, defaultInvokeAnswers } from "../../scripts/offline/invokes";

const SIG = "4dabf18193072939515e22adb298388d";

describe("plainValue", () => {
    test("secrets become [secret], resource references their URN, unknowns stay the SDK's marker", () => {
        expect(
            plainValue({
                token: { [SIG]: "1b47061264138c4ac30d75fd1eb44270", value: "hf_abc" },
                cluster: { [SIG]: "5cf8f73096256a8f31e491e813e4eb8e", urn: "urn:pulumi:dev::p::gcp:container/cluster:Cluster::c", id: "c" },
                list: [{ [SIG]: "1b47061264138c4ac30d75fd1eb44270", value: ["a"] }, UNKNOWN_VALUE],
                plain: { nested: 1 },
            }),
        ).toEqual({
            token: SECRET_PLACEHOLDER,
            cluster: "urn:pulumi:dev::p::gcp:container/cluster:Cluster::c",
            list: [SECRET_PLACEHOLDER, UNKNOWN_VALUE],
            plain: { nested: 1 },
        });
    });
});

describe("ResourceRecorder", () => {
    /** A stand-in for the SDK's MockMonitor: its own URNs (the parent's last type, the stack's kept), and invoke errors by token. */
    const innerMonitor = (errors: Record<string, unknown>) => ({
        resources: new Map<string, { urn: string }>(),
        registerResource(req: { getType(): string; getName(): string }, callback: (err: unknown, response: unknown) => void) {
            let urn = `urn:pulumi:dev::p::pulumi:pulumi:Stack$${req.getType()}::${req.getName()}`;
            this.resources.set(urn, { urn });
            callback(null, { getUrn: () => urn, setUrn: (engine: string) => (urn = engine), getObject: () => undefined });
        },
        invoke(req: { getTok(): string }, callback: (err: unknown, response: unknown) => void) {
            callback(errors[req.getTok()], undefined);
        },
    });
    const registration = {
        getType: () => "random:index/randomString:RandomString",
        getName: () => "role",
        getParent: () => "urn:pulumi:dev::p::pulumi:pulumi:Stack::p-dev",
        getCustom: () => true,
        getObject: () => undefined,
        getProvider: () => "",
        getRemote: () => false,
        getDependenciesList: () => [],
        getIgnorechangesList: () => [],
        getProtect: () => false,
        getDeletebeforereplace: () => false,
        getCustomtimeouts: () => undefined,
        getAliasesList: () => [],
        getAdditionalsecretoutputsList: () => [],
        getReplaceonchangesList: () => [],
    };
    const invoke = (recorder: ResourceRecorder, tok: string) =>
        new Promise<unknown>((resolve) => recorder.monitor.invoke({ getTok: () => tok }, (err) => resolve(err)));

    test("the inner monitor knows a resource by the engine's URN, which a resource reference carries and getResource asks for", () => {
        const inner = innerMonitor({});
        const recorder = new ResourceRecorder(inner as never, new Set());
        recorder.monitor.registerResource(registration as never, () => undefined);
        expect([...inner.resources.keys()]).toEqual(["urn:pulumi:dev::p::random:index/randomString:RandomString::role"]);
        expect(inner.resources.get(recorder.resources[0].urn)).toEqual({ urn: recorder.resources[0].urn });
    });

    test("an invoke's error reaches the SDK with details it shows; each one without an offline answer is kept as unanswered, in order", async () => {
        const unanswered = new NoOfflineAnswer("the offline preview has no answer for x:y:z");
        const recorder = new ResourceRecorder(
            innerMonitor({
                plain: new Error("unknown resource urn:a"),
                gcp: new InvokeFailure("googleapi: 404"),
                none: unanswered,
            }) as never,
            new Set(),
        );
        const plain = await invoke(recorder, "plain");
        expect(plain).toBeInstanceOf(InvokeFailure);
        expect((plain as InvokeFailure).details).toBe("unknown resource urn:a");
        expect(((await invoke(recorder, "gcp")) as InvokeFailure).details).toBe("googleapi: 404");
        expect(recorder.unanswered).toEqual([]);
        expect(await invoke(recorder, "none")).toBe(unanswered);
        expect(await invoke(recorder, "none")).toBe(unanswered);
        expect(recorder.unanswered).toEqual([unanswered, unanswered]);
    });
});

describe("AWS's identity functions, which EKS programs call before anything else", () => {
    test("are answered from the stack's aws:region, as @pulumi/aws shapes them, for a placeholder account", () => {
        const answers = defaultInvokeAnswers("acme", "eu-west-1");
        expect(answers[INVOKE_TOKENS.awsRegion]({})).toEqual({
            id: "eu-west-1",
            name: "eu-west-1",
            region: "eu-west-1",
            description: "eu-west-1",
            endpoint: "ec2.eu-west-1.amazonaws.com",
        });
        expect(answers[INVOKE_TOKENS.awsRegion]({ region: "us-west-2" }).name).toBe("us-west-2");
        expect(answers[INVOKE_TOKENS.awsCallerIdentity]({})).toEqual({
            id: PLACEHOLDER_AWS_ACCOUNT,
            accountId: PLACEHOLDER_AWS_ACCOUNT,
            arn: `arn:aws:iam::${PLACEHOLDER_AWS_ACCOUNT}:user/offline-preview`,
            userId: "AIDAOFFLINEPREVIEW",
        });
        expect(answers[INVOKE_TOKENS.awsPartition]({}).partition).toBe("aws");
        expect(answers[INVOKE_TOKENS.awsAvailabilityZones]({}).names).toEqual(["eu-west-1a", "eu-west-1b", "eu-west-1c"]);
        // Without aws:region, AWS's default region.
        expect(defaultInvokeAnswers("acme")[INVOKE_TOKENS.awsRegion]({}).name).toBe("us-east-1");
    });
});

describe("secrets in policy messages", () => {
    // A one-letter secret, a short one and a long one, as a stack's secret inputs can hold them.
    const redact = secretRedactor(["s", "hunter2", "hf_0123456789abcdef"]);

    test("a secret is redacted where it stands alone, the long one inside a word too", () => {
        expect(
            redact(
                "Secret env HF_TOKEN holds hf_0123456789abcdef; the password is hunter2, the suffix s; url https://u:hf_0123456789abcdef@host",
            ),
        ).toBe("Secret env HF_TOKEN holds [secret]; the password is [secret], the suffix [secret]; url https://u:[secret]@host");
        expect(redact("tokenhf_0123456789abcdefX")).toBe("token[secret]X");
    });

    test("a message that only contains a short secret inside its words is left whole", () => {
        const message = "Deployment qwen must set resources; hunter22 is not hunter2x";
        expect(redact(message)).toBe(message);
        expect("hunter2".length).toBeLessThan(MIN_EMBEDDED_SECRET_LENGTH);
        expect("hf_0123456789abcdef".length).toBeGreaterThanOrEqual(MIN_EMBEDDED_SECRET_LENGTH);
    });

    test("a longer secret containing a shorter one is redacted whole, in one pass; no secrets leave text as it is", () => {
        expect(secretRedactor(["pass", "pass-phrase-long"])("pass-phrase-long and pass")).toBe("[secret] and [secret]");
        expect(secretRedactor(["a.b"])("a.b axb")).toBe("[secret] axb");
        expect(secretRedactor([])("must")).toBe("must");
    });
});

describe("displayType", () => {
    test.each([
        ["gcp:compute/network:Network", "gcp:compute:Network"],
        ["gcp:projects/iAMMember:IAMMember", "gcp:projects:IAMMember"],
        ["kubernetes:core/v1:Namespace", "kubernetes:core/v1:Namespace"],
        ["pulumi:providers:kubernetes", "pulumi:providers:kubernetes"],
    ])("%s → %s", (type, shown) => expect(displayType(type)).toBe(shown));
});

describe("loadProject", () => {
    function project(files: Record<string, string>): string {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "project-"));
        for (const [name, text] of Object.entries({ "index.ts": "export {};\n", ...files })) {
            fs.writeFileSync(path.join(dir, name), text);
        }
        return dir;
    }

    test("project defaults, stack values and overrides layer like the CLI; structured values arrive as JSON", () => {
        const dir = project({
            "Pulumi.yaml": [
                "name: p",
                "runtime: {name: nodejs, options: {typescript: true}}",
                "config:",
                "  a: one",
                "  b: {type: integer, default: 2}",
                "  aws:region: {value: eu-west-1}",
            ].join("\n"),
            "Pulumi.s.yaml": ["config:", "  p:b: 3", "  c: {secure: AAAA}", "  d: [1, {secure: BBBB}]", "  e: true"].join("\n"),
        });
        const run = loadProject(dir, "s", ["a=override", "other:key=x=y"]);
        expect(run.config).toEqual({
            "p:a": "override",
            "p:b": "3",
            "aws:region": "eu-west-1",
            "p:c": SECURE_PLACEHOLDER,
            "p:d": JSON.stringify([1, SECURE_PLACEHOLDER]),
            "p:e": "true",
            "other:key": "x=y",
        });
        expect(run.secretKeys).toEqual(["p:c", "p:d"]);
        expect(run.main).toBe(path.join(dir, "index.ts"));
        expect(run.hasStackFile).toBe(true);
    });

    test("the entry point follows Pulumi.yaml's main, then package.json's main", () => {
        const dir = project({ "Pulumi.yaml": "name: p\nruntime: nodejs\nmain: src/\n" });
        fs.mkdirSync(path.join(dir, "src"));
        fs.writeFileSync(path.join(dir, "src", "index.ts"), "export {};\n");
        expect(loadProject(dir, "dev", [], [], true).main).toBe(path.join(dir, "src", "index.ts"));
        const withPackage = project({
            "Pulumi.yaml": "name: p\nruntime: nodejs\n",
            "package.json": '{"main": "program.ts"}',
            "program.ts": "export {};\n",
        });
        expect(loadProject(withPackage, "dev", [], [], true).main).toBe(path.join(withPackage, "program.ts"));
    });

    test("errors name the file and the problem", () => {
        expect(() => loadProject(project({ "Pulumi.yaml": "name: p\nruntime: python\n" }), "dev", [])).toThrow(
            /Pulumi\.yaml: runtime is "python"; the offline preview runs nodejs \(TypeScript\) programs only$/,
        );
        expect(() => loadProject(project({ "Pulumi.yaml": "runtime: nodejs\n" }), "dev", [])).toThrow(
            /Pulumi\.yaml: missing project name$/,
        );
        expect(() => loadProject(project({ "Pulumi.yaml": "name: p\nruntime: nodejs\n" }), "dev", ["novalue"], [], true)).toThrow(
            '--config "novalue" is not key=value',
        );
    });

    test("a project name must be one the Pulumi CLI takes; a template's unsubstituted ${PROJECT} says to substitute it", () => {
        const named = (name: string) => () =>
            loadProject(project({ "Pulumi.yaml": `name: ${JSON.stringify(name)}\nruntime: nodejs\n` }), "dev", [], [], true);
        expect(named("${PROJECT}")).toThrow(
            /Pulumi\.yaml: project name "\$\{PROJECT\}" is a template's placeholder: substitute the template's placeholders \(\$\{PROJECT\}, \$\{DESCRIPTION\}\) first, as pulumi new does$/,
        );
        expect(named("my app")).toThrow(
            'Pulumi.yaml: project name "my app": project names may only contain alphanumerics, hyphens, underscores, and periods',
        );
        expect(named("a".repeat(101))).toThrow(
            `Pulumi.yaml: project name "${"a".repeat(101)}": project names are limited to 100 characters`,
        );
        for (const name of ["gke-tpu-inference", "My_App.v2", "9lives", "-x", "a".repeat(100)]) {
            expect(named(name)().projectName).toBe(name);
        }
    });

    test("the ESC environments a stack file imports: a list, or an inline definition's imports (with options) and values", () => {
        const environment = (stackFile: string) =>
            loadProject(project({ "Pulumi.yaml": "name: p\nruntime: nodejs\n", "Pulumi.dev.yaml": stackFile }), "dev", []).environment;
        expect(environment("environment:\n  - acme/shared\n  - acme/dev\n")).toEqual(["acme/shared", "acme/dev"]);
        expect(environment("environment:\n  imports:\n    - acme/shared\n    - acme/dev: {merge: false}\n  values:\n    a: b\n")).toEqual([
            "acme/shared",
            "acme/dev",
            "inline values",
        ]);
        expect(environment("config: {}\n")).toEqual([]);
    });

    test("a stack without its file is an error naming the stacks there, unless it is meant to be bare", () => {
        const dir = project({
            "Pulumi.yaml": "name: p\nruntime: nodejs\n",
            "Pulumi.dev.yaml": "config: {}\n",
            "Pulumi.prod.yaml": "config: {}\n",
        });
        const command = `npm run preview:offline -- --dir ${path.relative(process.cwd(), dir)}`;
        expect(() => loadProject(dir, "staging", [])).toThrow(
            `stack "staging" has no Pulumi.staging.yaml in ${dir} (stacks there: dev, prod); preview a stack it has: ${command} --stack dev, or this one on the project's defaults and --config alone: ${command} --stack staging --bare-stack`,
        );
        expect(loadProject(dir, "staging", [], [], true).hasStackFile).toBe(false);
        // A program with no stack file at all, previewed as the README's first --dir example does.
        const bare = project({ "Pulumi.yaml": "name: p\nruntime: nodejs\n" });
        const bareCommand = `npm run preview:offline -- --dir ${path.relative(process.cwd(), bare)}`;
        expect(() => loadProject(bare, "dev", [])).toThrow(
            `stack "dev" has no Pulumi.dev.yaml in ${bare} (stacks there: none); preview this one on the project's defaults and --config alone: ${bareCommand} --stack dev --bare-stack`,
        );
        // Pulumi.yaml's stackConfigDir moves the stack files.
        const moved = project({ "Pulumi.yaml": "name: p\nruntime: nodejs\nstackConfigDir: stacks\n" });
        fs.mkdirSync(path.join(moved, "stacks"));
        fs.writeFileSync(path.join(moved, "stacks", "Pulumi.dev.yaml"), "config:\n  p:a: here\n");
        expect(loadProject(moved, "dev", []).config["p:a"]).toBe("here");
    });

    test("YAML merge keys are resolved as the Pulumi CLI resolves them", () => {
        const dir = project({
            "Pulumi.yaml": "name: p\nruntime: nodejs\n",
            "Pulumi.dev.yaml": [
                "base: &base",
                "  image: vllm/vllm-tpu:v0.27.0",
                "  maxModelLen: 2048",
                "config:",
                "  p:models:",
                "    - <<: *base",
                "      name: qwen",
                "    - <<: *base",
                "      name: qwen-long",
                "      maxModelLen: 8192",
            ].join("\n"),
        });
        // The anchor's own top-level key is not a stack file key, so it is reported; the merge is still read.
        expect(() => loadProject(dir, "dev", [])).toThrow('Pulumi.dev.yaml: "base" is not a stack file key');
        const anchored = project({
            "Pulumi.yaml": "name: p\nruntime: nodejs\n",
            "Pulumi.dev.yaml": [
                "config:",
                "  p:defaults: &base",
                "    image: vllm/vllm-tpu:v0.27.0",
                "    maxModelLen: 2048",
                "  p:models:",
                "    - <<: *base",
                "      name: qwen",
                "    - <<: *base",
                "      name: qwen-long",
                "      maxModelLen: 8192",
            ].join("\n"),
        });
        expect(JSON.parse(loadProject(anchored, "dev", []).config["p:models"])).toEqual([
            { image: "vllm/vllm-tpu:v0.27.0", maxModelLen: 2048, name: "qwen" },
            { image: "vllm/vllm-tpu:v0.27.0", maxModelLen: 8192, name: "qwen-long" },
        ]);
    });

    test("the stack file's top-level keys, and typed project config, are checked as the CLI checks them; every problem at once", () => {
        const dir = project({
            "Pulumi.yaml": [
                "name: p",
                "runtime: nodejs",
                "config:",
                "  count: {type: integer, default: 1}",
                "  models: {type: array, items: {type: object}, default: []}",
                "  required: {type: string}",
                "  token: {type: string, secret: true}",
            ].join("\n"),
            "Pulumi.dev.yaml": ["confg:", "  p:count: 3", "config:", "  p:count: three", "  p:models: [1, 2]", "  p:token: plain"].join(
                "\n",
            ),
        });
        let message = "";
        try {
            loadProject(dir, "dev", []);
        } catch (err) {
            message = (err as Error).message;
        }
        expect(message.split("\n")).toEqual([
            'Pulumi.dev.yaml: "confg" is not a stack file key, so the Pulumi CLI ignores it and everything under it; allowed: secretsprovider, encryptedkey, encryptionsalt, config, environment; did you mean "config"?',
            "Stack 'dev' with configuration key 'count' must be of type 'integer'",
            "Stack 'dev' with configuration key 'models' must be of type 'array<object>'",
            "Stack 'dev' is missing configuration value 'required'",
            "Stack 'dev' with configuration key 'token' must be encrypted as it's secret",
        ]);
        // A structured key set with --config is JSON, like `pulumi config set --json`.
        const typed = project({
            "Pulumi.yaml": "name: p\nruntime: nodejs\nconfig:\n  models: {type: array, items: {type: object}, default: []}\n",
            "Pulumi.dev.yaml": "config: {}\n",
        });
        expect(loadProject(typed, "dev", ['models=[{"name": "qwen"}]']).config["p:models"]).toBe('[{"name":"qwen"}]');
    });
});
