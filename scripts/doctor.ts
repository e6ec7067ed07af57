/**
 * `npm run doctor -- [--stack NAME | --outputs FILE] [--context KUBECONTEXT] [--namespace NS] [--service NAME] [--json FILE]
 *  [--metrics URL [--metrics-window 15m]]`
 *
 * Diagnoses a deployed stack from the live cluster (kubeconfig as kubectl resolves it: `KUBECONFIG`, else ~/.kube/config, its
 * current context unless `--context` names one) and names the field-report lesson behind each failure. With `--stack` (or
 * `--outputs`, that command's JSON in a file) the stack's outputs say where to look; without, every LLMInferenceService the
 * context can list is checked. `--metrics` reads prefix-cache counters from a Prometheus query API or a vLLM pod's
 * `/metrics`, with the bearer token in `DOCTOR_METRICS_TOKEN` when the endpoint wants one. One line per check; exit 1 when
 * any check fails, 0 otherwise, 2 on a usage error or an unreachable cluster. Read-only: it never changes the cluster.
 */
import * as fs from "fs";
import type { ObjectReader } from "./cluster/kube";
import { parseCliArgs, runCli, usageError } from "./cli";
import { readStackOutputs } from "./cluster/stackOutputs";
import { DoctorTargets, runDoctor, targetsFromOutputs } from "./doctor/diagnose";
import { isScrapeUrl } from "./doctor/metrics";
import { expand, formatDiagnoses } from "./doctor/report";

const USAGE =
    "usage: npm run doctor -- [--stack NAME | --outputs FILE] [--context KUBECONTEXT] [--namespace NS] [--service NAME] [--json FILE] [--metrics URL [--metrics-window 15m]]";

/** The environment variable holding the metrics endpoint's bearer token. */
export const METRICS_TOKEN_ENV = "DOCTOR_METRICS_TOKEN";

async function main(argv: string[]): Promise<number> {
    const values = parseCliArgs(
        argv,
        {
            stack: { type: "string" },
            outputs: { type: "string" },
            context: { type: "string" },
            namespace: { type: "string", multiple: true },
            service: { type: "string", multiple: true },
            json: { type: "string" },
            metrics: { type: "string" },
            "metrics-window": { type: "string", default: "15m" },
            help: { type: "boolean", default: false },
        },
        USAGE,
    );
    if (!values) {
        return 2;
    }
    if (values.help) {
        process.stdout.write(`${USAGE}\n`);
        return 0;
    }
    if (values.stack !== undefined && values.outputs !== undefined) {
        return usageError("give --stack or --outputs, not both", USAGE);
    }
    if (values.metrics !== undefined && !URL.canParse(values.metrics)) {
        return usageError("--metrics is not a URL", USAGE);
    }
    if (values.metrics !== undefined && (new URL(values.metrics).username || new URL(values.metrics).password)) {
        // Never echoed: the URL carries a credential.
        return usageError(`--metrics must not carry credentials; put a bearer token in ${METRICS_TOKEN_ENV}`, USAGE);
    }
    if (!/^\d+[smhd]$/.test(values["metrics-window"])) {
        return usageError(`--metrics-window ${JSON.stringify(values["metrics-window"])} is not a Prometheus duration such as 15m`, USAGE);
    }
    let targets: DoctorTargets = {};
    let reader: ObjectReader;
    try {
        if (values.stack !== undefined || values.outputs !== undefined) {
            targets = targetsFromOutputs(readStackOutputs({ stack: values.stack, file: values.outputs }));
        }
        // Loaded here, where it runs: the Kubernetes client is an ES module (see cluster/kube.ts).
        const { ClusterReader } = await import("./cluster/kube");
        reader = ClusterReader.fromDefault(values.context);
    } catch (err) {
        process.stderr.write(`error: ${(err as Error).message}\n`);
        return 2;
    }
    if (values.namespace) {
        targets = { ...targets, namespaces: values.namespace };
    }
    if (values.service) {
        targets = { ...targets, services: Object.fromEntries(values.service.map((name) => [name, targets.services?.[name] ?? {}])) };
    }
    const metrics = values.metrics
        ? { url: values.metrics, token: process.env[METRICS_TOKEN_ENV] || undefined, window: values["metrics-window"] }
        : undefined;
    if (metrics && isScrapeUrl(metrics.url) && Object.keys(targets.services ?? {}).length !== 1) {
        return usageError("a /metrics URL is one vLLM pod's: name its service with --service", USAGE);
    }
    let diagnoses;
    try {
        diagnoses = await runDoctor(reader, targets, { metrics });
    } catch (err) {
        process.stderr.write(`error: cannot read the cluster: ${(err as Error).message}\n`);
        return 2;
    }
    process.stdout.write(`${formatDiagnoses(diagnoses)}\n`);
    if (values.json !== undefined) {
        fs.writeFileSync(values.json, `${JSON.stringify({ diagnoses: diagnoses.map(expand) }, null, 2)}\n`);
    }
    return diagnoses.some((diagnosis) => diagnosis.status === "FAIL") ? 1 : 0;
}

if (require.main === module) {
    runCli(main);
}
