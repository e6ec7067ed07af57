/**
 * `npm run doctor -- [--stack NAME | --outputs FILE] [options]`: diagnoses a deployed stack from the live cluster and
 * names the field-report lesson behind each failure. `--help` lists the options and exit codes. Read-only: it never
 * changes the cluster.
 */
import * as fs from "fs";
import { CliContext, CliError, CliSpec, CliValues, EXIT, runCli, seconds, timeLimitOptions } from "./cli";
import { checksJson, formatChecks } from "./cli/checks";
import { GatewayClient, GatewayCredentials } from "./cluster/gatewayRequest";
import { MEMBER_CONTEXT_OPTIONS, memberContexts } from "./cluster/fleet";
import { STACK_OUTPUT_OPTIONS, fleetFromOutputs, readStackOutputs } from "./cluster/stackOutputs";
import { DoctorTargets, runDoctor, targetsFromOutputs } from "./doctor/diagnose";
import { runFleetDoctor } from "./doctor/fleet";
import { MetricsSource, isScrapeUrl } from "./doctor/metrics";
import { jsonCheck, reportedCheck } from "./doctor/report";

/** The environment variable holding the metrics endpoint's bearer token. */
export const METRICS_TOKEN_ENV = "DOCTOR_METRICS_TOKEN";

const OPTIONS = {
    ...STACK_OUTPUT_OPTIONS,
    context: { type: "string", value: "KUBECONTEXT", description: "the kubeconfig context to read (its current context by default)" },
    ...MEMBER_CONTEXT_OPTIONS,
    namespace: { type: "string", multiple: true, value: "NS", description: "check the model services in NS only (repeatable)" },
    service: { type: "string", multiple: true, value: "NAME", description: "check the model service NAME only (repeatable)" },
    metrics: {
        type: "string",
        value: "URL",
        description: `read prefix-cache counters from a Prometheus query API or one vLLM pod's /metrics, with the bearer token in ${METRICS_TOKEN_ENV} when it wants one`,
    },
    "metrics-window": {
        type: "string",
        value: "DURATION",
        default: "15m",
        description: "how far back --metrics looks, as a Prometheus duration",
    },
    cacert: {
        type: "string",
        value: "FILE",
        description:
            "trust the Gateway's certificate by this CA; by default, for a stack whose own CA signs it, the CA in the certificate's Secret",
    },
    verbose: { type: "boolean", short: "v", description: "list the passing checks too" },
    json: { type: "boolean", description: "print one JSON document of every check on stdout instead of the report" },
    ...timeLimitOptions({ requestTimeout: 10, deadline: 120 }),
} as const;

export const DOCTOR_CLI: CliSpec<typeof OPTIONS> = {
    script: "doctor",
    synopsis: "[--stack NAME | --outputs FILE] [options]",
    description:
        "Diagnoses a deployed stack from the live cluster, read with the kubeconfig as kubectl resolves it (KUBECONFIG, else " +
        "~/.kube/config), and names the field-report lesson behind each failure and what to do. The stack's outputs say where " +
        "to look; without them every LLMInferenceService the context can list is checked. Failures come first, grouped by the " +
        "part of the stack they concern, then a line of counts. For a fleet stack, every member's cluster (each through its " +
        "own context) and the config cluster's multi-cluster Gateway and imports, each line marked with its region. Read-only: " +
        "it never changes the cluster.",
    options: OPTIONS,
    examples: [
        "npm run doctor -- --stack dev",
        "npm run doctor -- --context my-gke-context --namespace llm-inference --verbose",
        "npm run doctor -- --stack fleet --member-context us-south1=south",
    ],
    exitCodes: [
        [EXIT.ok, "no check failed (warnings and skipped checks allowed)"],
        [EXIT.failed, "a check failed"],
        [
            EXIT.usage,
            "a usage error, or the outputs or the cluster could not be read (no Pulumi CLI, no kubeconfig, unreachable, TLS, 401 or 403)",
        ],
        [EXIT.timedOut, "the API server did not answer within --request-timeout, or the doctor did not finish within --deadline"],
    ],
};

/** What to check, and where prefix-cache metrics come from. */
export interface DoctorPlan {
    targets: DoctorTargets;
    metrics?: MetricsSource;
    /** What requests through the Gateway trust and present: `--cacert`, and the caller's key and token (`API_KEY`, `ID_TOKEN`). */
    gatewayClient: GatewayClient;
}

/** The key (`API_KEY`, else `access.apiKey` when the outputs were read with their secrets) and the ID token (`ID_TOKEN`); each only when given. */
function doctorCredentials(outputs: Record<string, unknown> | undefined, env: NodeJS.ProcessEnv): GatewayCredentials {
    const fromOutputs = (outputs?.access as { apiKey?: unknown } | undefined)?.apiKey;
    const apiKey = env.API_KEY || (typeof fromOutputs === "string" && fromOutputs !== "[secret]" ? fromOutputs : undefined);
    return { ...(apiKey ? { apiKey } : {}), ...(env.ID_TOKEN ? { idToken: env.ID_TOKEN } : {}) };
}

/** The CA file's PEM, or a usage error naming it. */
function readCa(file: string): string {
    try {
        return fs.readFileSync(file, "utf8");
    } catch (err) {
        throw new CliError(`--cacert ${file}: ${(err as Error).message}`);
    }
}

/**
 * What to check, from the stack's outputs narrowed to the namespaces and services the command line names, and where
 * `--metrics` reads from; refused (a usage error) before the cluster is read.
 */
export function doctorPlan(
    values: Pick<CliValues<typeof OPTIONS>, "metrics" | "metrics-window" | "namespace" | "service" | "cacert">,
    outputs: Record<string, unknown> | undefined,
    env: NodeJS.ProcessEnv = process.env,
): DoctorPlan {
    const gatewayClient: GatewayClient = {
        credentials: doctorCredentials(outputs, env),
        ...(values.cacert !== undefined ? { ca: readCa(values.cacert) } : {}),
    };
    const fromOutputs = outputs ? targetsFromOutputs(outputs) : {};
    const targets: DoctorTargets = {
        ...fromOutputs,
        ...(values.namespace ? { namespaces: values.namespace } : {}),
        ...(values.service
            ? { services: Object.fromEntries(values.service.map((name) => [name, fromOutputs.services?.[name] ?? {}])) }
            : {}),
    };
    const url = values.metrics;
    if (url === undefined) {
        return { targets, gatewayClient };
    }
    if (!URL.canParse(url)) {
        throw new CliError("--metrics is not a URL");
    }
    if (new URL(url).username || new URL(url).password) {
        // Never echoed: the URL carries a credential.
        throw new CliError(`--metrics must not carry credentials; put a bearer token in ${METRICS_TOKEN_ENV}`);
    }
    const window = values["metrics-window"];
    if (!/^\d+[smhd]$/.test(window)) {
        throw new CliError(`--metrics-window ${JSON.stringify(window)} is not a Prometheus duration such as 15m`);
    }
    if (isScrapeUrl(url) && Object.keys(targets.services ?? {}).length !== 1) {
        throw new CliError("a /metrics URL is one vLLM pod's: name its service with --service");
    }
    return { targets, metrics: { url, token: env[METRICS_TOKEN_ENV] || undefined, window }, gatewayClient };
}

async function main(values: CliValues<typeof OPTIONS>, cli: CliContext): Promise<number> {
    const requestTimeout = seconds("--request-timeout", values["request-timeout"]);
    if (values.stack !== undefined) {
        cli.progress.step(`reading the outputs of stack ${values.stack} (pulumi stack output)`);
    }
    const outputs = await readStackOutputs(values);
    const fleet = fleetFromOutputs(outputs);
    const { targets, metrics, gatewayClient } = doctorPlan(values, outputs);
    if (fleet && values.context !== undefined) {
        throw new CliError("--context names one cluster: give each member of the fleet with --member-context REGION=KUBECONTEXT");
    }
    if (!fleet && values["member-context"] !== undefined) {
        throw new CliError("--member-context is for a fleet stack's outputs; give one cluster with --context");
    }
    // Loaded here, where it runs: the Kubernetes client is an ES module (see cluster/kube.ts).
    const { ClusterReader } = await import("./cluster/kube");
    const options = { metrics, gatewayClient };
    let diagnoses;
    if (fleet) {
        const readers = Object.fromEntries(
            Object.entries(memberContexts(fleet, values["member-context"])).map(([region, context]) => [
                region,
                ClusterReader.fromDefault(context, requestTimeout),
            ]),
        );
        diagnoses = await runFleetDoctor(readers, fleet, targets, { ...options, onStep: (step) => cli.progress.step(step) });
    } else {
        const reader = ClusterReader.fromDefault(values.context, requestTimeout);
        diagnoses = await runDoctor(reader, targets, { ...options, onStep: (step) => cli.progress.step(`${step} (${reader.server})`) });
    }
    cli.print(
        values.json
            ? checksJson(diagnoses.map(jsonCheck))
            : formatChecks("doctor", diagnoses.map(reportedCheck), { verbose: Boolean(values.verbose), terminal: cli.stdout }),
    );
    return diagnoses.some((diagnosis) => diagnosis.status === "FAIL") ? EXIT.failed : EXIT.ok;
}

if (require.main === module) {
    runCli(DOCTOR_CLI, main);
}
