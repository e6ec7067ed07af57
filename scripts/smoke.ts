/**
 * `npm run smoke -- --stack NAME | --outputs FILE [options]`: after `pulumi up`, checks every model service through the
 * Gateway and, reading the cluster, that its route and policies took. `--help` lists the options and exit codes.
 */
import { gatewayProviderFromOutputs } from "./cluster/checks";
import { GatewayClient, GatewayCredentials, readCaFile } from "./cluster/gatewayRequest";
import type { ClusterReader } from "./cluster/kube";
import { ModelRouting, modelRoutingFromOutputs } from "./cluster/modelRouting";
import { MEMBER_CONTEXT_OPTIONS, memberContexts } from "./cluster/fleet";
import { FleetOutput, OutputsSource, STACK_OUTPUT_OPTIONS, fleetFromOutputs, readStackOutputs } from "./cluster/stackOutputs";
import { CliContext, CliError, CliSpec, CliValues, EXIT, runCli, seconds, timeLimitOptions } from "./cli";
import { CheckStatus, ReportedCheck, checksJson, formatChecks } from "./cli/checks";
import { credentialsFrom, runAccessChecks, runOutsideChecks } from "./smoke/access";
import { ClusterTargets, runClusterChecks } from "./smoke/cluster";
import { runFleetClusterChecks, runRegionChecks } from "./smoke/fleet";
import { CheckResult, ServiceEndpoint, SmokeOptions, runModelRouting, runSmoke } from "./smoke/requests";

export { credentialsFrom, runAccessChecks, runOutsideChecks } from "./smoke/access";
export { ClusterTargets, runClusterChecks } from "./smoke/cluster";
export { CheckResult, ServiceEndpoint, SmokeOptions, runModelRouting, runSmoke } from "./smoke/requests";

/** What the smoke test checks, from the stack's outputs. */
export interface StackTargets {
    services: Record<string, ServiceEndpoint>;
    /** Absent when the outputs do not say where the objects are: the cluster checks are skipped. */
    cluster?: ClusterTargets;
    /** Pattern 2's one endpoint, when the stack routes by the body's model. */
    modelRouting?: ModelRouting;
    /** What a caller presents, from the environment or the stack's `access` output; absent for a stack without access control. */
    credentials?: GatewayCredentials;
    /** The `caCertificateCommand` output, when the stack's own CA signs the Gateway's certificate: no system trusts it. */
    caCertificateCommand?: string;
    /** The `access.identity` output: what a caller presents besides its address and key. */
    identity?: string;
    /** A fleet stack's members and config region: its clusters are each member's, its Gateway the config cluster's. */
    fleet?: FleetOutput;
}

/** One check as `--json` prints it. */
export interface SmokeCheck {
    status: CheckStatus;
    /** The model service, or `cluster`. */
    area: string;
    check: string;
    /** What the last try saw. */
    message: string;
    /** Absent for a check not tried. */
    attempts?: number;
}

/** The results as `--json` and the report give them. */
export function smokeChecks(results: CheckResult[]): SmokeCheck[] {
    return results.map((result) => ({
        status: result.skipped ? "SKIPPED" : result.ok ? "OK" : "FAIL",
        area: result.service,
        check: result.check,
        message: result.detail,
        ...(result.skipped ? {} : { attempts: result.attempts }),
    }));
}

/** The line the report gives the cluster checks when they are not run, and why. */
const clusterChecksSkipped = (why: string): SmokeCheck => ({ status: "SKIPPED", area: "cluster", check: "cluster checks", message: why });

/** One check as the report shows it: how many tries it took, when more than one, beside the check. */
export function reportedCheck(check: SmokeCheck): ReportedCheck {
    const tries = check.attempts !== undefined && check.attempts > 1 ? ` (${check.attempts} tries)` : "";
    return { status: check.status, area: check.area, subject: `${check.check}${tries}`, message: check.message };
}

/** The `models` output of a stack, as `pulumi stack output --json` prints the stack's outputs. */
export function servicesFromOutputs(outputs: unknown): Record<string, ServiceEndpoint> {
    const models = (outputs as { models?: unknown } | undefined)?.models;
    if (models === null || typeof models !== "object" || Object.keys(models).length === 0) {
        throw new CliError("the stack has no model services in its `models` output");
    }
    for (const [name, service] of Object.entries(models as Record<string, Partial<ServiceEndpoint>>)) {
        if (typeof service.baseUrl !== "string" || typeof service.modelName !== "string") {
            throw new CliError(`models.${name} lacks baseUrl or modelName`);
        }
    }
    return models as Record<string, ServiceEndpoint>;
}

/** What to check, from the stack's outputs: the services, and where their objects are when the outputs say. */
export function targetsFromOutputs(outputs: unknown, env: NodeJS.ProcessEnv = {}): StackTargets {
    const { servingNamespace, gateway } = (outputs ?? {}) as {
        servingNamespace?: unknown;
        gateway?: { namespace?: unknown; name?: unknown };
    };
    const cluster =
        typeof servingNamespace === "string" && typeof gateway?.namespace === "string" && typeof gateway?.name === "string"
            ? {
                  servingNamespace,
                  gateway: { namespace: gateway.namespace, name: gateway.name },
                  ...(gatewayProviderFromOutputs(outputs) ? { gatewayProvider: gatewayProviderFromOutputs(outputs) } : {}),
              }
            : undefined;
    const modelRouting = modelRoutingFromOutputs(outputs);
    const fleet = fleetFromOutputs(outputs as Record<string, unknown> | undefined);
    return {
        services: servicesFromOutputs(outputs),
        ...(fleet ? { fleet } : {}),
        ...(cluster ? { cluster } : {}),
        ...(modelRouting ? { modelRouting } : {}),
        ...((outputs as { access?: unknown } | undefined)?.access !== undefined ? { credentials: credentialsFrom(outputs, env) } : {}),
        ...(typeof (outputs as { access?: { identity?: unknown } } | undefined)?.access?.identity === "string"
            ? { identity: (outputs as { access: { identity: string } }).access.identity }
            : {}),
        ...(typeof (outputs as { caCertificateCommand?: unknown } | undefined)?.caCertificateCommand === "string"
            ? { caCertificateCommand: (outputs as { caCertificateCommand: string }).caCertificateCommand }
            : {}),
    };
}

/**
 * How smoke's requests reach the Gateway: the credentials, trusting `ca` (the PEM of `--cacert`). A stack whose own CA
 * signs the Gateway's certificate needs `--cacert`: without it every HTTPS check would fail on the certificate, and an
 * `--outside` run could not tell the Gateway refusing from this machine refusing its certificate.
 */
export function smokeClient(
    targets: Pick<StackTargets, "credentials" | "caCertificateCommand" | "services">,
    ca: string | undefined,
): GatewayClient {
    const https = Object.values(targets.services).some((service) => service.baseUrl.startsWith("https://"));
    if (ca === undefined && https && targets.caCertificateCommand !== undefined) {
        throw new CliError(
            `the stack's own CA signs the Gateway's certificate, which no system trusts: run ${targets.caCertificateCommand}, then pass --cacert ca.crt`,
        );
    }
    return { credentials: targets.credentials ?? {}, ...(ca !== undefined ? { ca } : {}) };
}

const TIME_LIMITS = timeLimitOptions({ requestTimeout: 120, deadline: 600 });

const OPTIONS = {
    ...STACK_OUTPUT_OPTIONS,
    context: { type: "string", value: "KUBECONTEXT", description: "the kubeconfig context to read (its current context by default)" },
    ...MEMBER_CONTEXT_OPTIONS,
    "http-only": { type: "boolean", description: "check through the Gateway only, not the cluster's routes and policies" },
    attempts: { type: "string", value: "N", default: "30", description: "tries per check: a fresh service may still be loading" },
    interval: { type: "string", value: "SECONDS", default: "10", description: "the pause between two tries" },
    verbose: { type: "boolean", short: "v", description: "list the passing checks too" },
    json: { type: "boolean", description: "print one JSON document of every check on stdout instead of the report" },
    cacert: {
        type: "string",
        value: "FILE",
        description: "trust the Gateway's certificate by this CA (the stack's own: its caCertificateCommand output writes ca.crt)",
    },
    outside: {
        type: "boolean",
        description:
            "run from an address outside allowedSourceRanges (a Cloud Shell, say): every service must refuse even a request with credentials",
    },
    ...TIME_LIMITS,
    "request-timeout": {
        ...TIME_LIMITS["request-timeout"],
        // The Gateway's answer is what smoke checks: its timeout fails that try of the check, as any wrong answer does.
        description:
            "the longest wait for one answer: the API server's ends the run with exit code 3, the Gateway's fails that try of its check",
    },
} as const;

export const SMOKE_CLI: CliSpec<typeof OPTIONS> = {
    script: "smoke",
    synopsis: "--stack NAME | --outputs FILE [options]",
    description:
        "After pulumi up: for every model service in the stack's models output, checks through the Gateway that /health " +
        "answers, /v1/models lists the model and a one-token /v1/completions succeeds; with Pattern 2, that every model name " +
        "at the Gateway's root reaches its own service; then, reading the cluster (kubeconfig as kubectl resolves it), that " +
        "KServe's HTTPRoute moved to the v1 InferencePool group, the Gateway accepted it, and GKE attached its health checks " +
        "and backend policy (Istio: TLS to the EPP). Each check is retried: a fresh service may still be loading. For a fleet " +
        "stack: the same requests through the fleet's URL and /health through the Gateway's address in each member region, " +
        "then each member's exported pool and, in the config cluster, the route to each import and its policies. The fleet's " +
        "Gateway is internal (GKE's cross-regional internal class): run smoke from a machine inside the fleet's VPC.",
    options: OPTIONS,
    examples: [
        "npm run smoke -- --stack dev --cacert ca.crt",
        "npm run smoke -- --outputs outputs.json --http-only --attempts 3 --interval 5",
        "npm run smoke -- --stack dev --cacert ca.crt --outside",
    ],
    exitCodes: [
        [EXIT.ok, "every check passed"],
        [EXIT.failed, "a check failed after its tries (a Gateway that did not answer within --request-timeout included)"],
        [
            EXIT.usage,
            "a usage error, or the outputs or the cluster could not be read (no Pulumi CLI, no kubeconfig, unreachable, TLS, 401 or 403)",
        ],
        [EXIT.timedOut, "the API server did not answer within --request-timeout, or the smoke test did not finish within --deadline"],
    ],
};

/** How hard to try, from the command line; the waits between tries must fit in the deadline. */
export function smokeOptions(
    values: Pick<CliValues<typeof OPTIONS>, "attempts" | "interval" | "request-timeout" | "deadline">,
): SmokeOptions {
    const attempts = Number(values.attempts);
    const interval = Number(values.interval);
    if (!Number.isInteger(attempts) || attempts < 1) {
        throw new CliError(`--attempts ${JSON.stringify(values.attempts)} is not a whole number of tries above 0`);
    }
    if (!Number.isFinite(interval) || interval < 0) {
        throw new CliError(`--interval ${JSON.stringify(values.interval)} is not a number of seconds, 0 or more`);
    }
    const waits = (attempts - 1) * interval;
    const deadline = seconds("--deadline", values.deadline);
    if (waits >= deadline) {
        throw new CliError(
            `--attempts ${attempts} tries --interval ${interval} s apart wait ${waits} s, which does not fit in --deadline ${deadline}: lower one, or raise --deadline`,
        );
    }
    return { attempts, intervalMs: interval * 1000, requestTimeoutMs: seconds("--request-timeout", values["request-timeout"]) * 1000 };
}

/** What to check, from the stack's outputs: one of `--stack` and `--outputs` is needed. */
export async function smokeTargets(source: OutputsSource, env: NodeJS.ProcessEnv = process.env): Promise<StackTargets> {
    const outputs = await readStackOutputs(source, env);
    if (outputs === undefined) {
        throw new CliError("give --stack NAME or --outputs FILE: the stack's outputs say what to check");
    }
    return targetsFromOutputs(outputs, env);
}

/** The exit code of a report: 1 when a check failed; a skipped check fails nothing. */
export function smokeExitCode(checks: readonly SmokeCheck[]): number {
    return checks.some((check) => check.status === "FAIL") ? EXIT.failed : EXIT.ok;
}

async function main(values: CliValues<typeof OPTIONS>, cli: CliContext): Promise<number> {
    // First: a CA file that cannot be used is a usage error, not a failure of every HTTPS check later.
    const ca = values.cacert !== undefined ? readCaFile(values.cacert) : undefined;
    if (values.stack !== undefined) {
        cli.progress.step(`reading the outputs of stack ${values.stack} (pulumi stack output)`);
    }
    const targets = await smokeTargets(values);
    const options: SmokeOptions = {
        ...smokeOptions(values),
        onRetry: (text) => cli.progress.step(text),
        client: smokeClient(targets, ca),
    };
    if (values.outside) {
        cli.progress.step(`checking that ${Object.keys(targets.services).join(", ")} refuse this address`);
        const refused = await runOutsideChecks(targets.services, options);
        const checks = smokeChecks(refused);
        cli.print(
            values.json
                ? checksJson(checks)
                : formatChecks("smoke", checks.map(reportedCheck), { verbose: Boolean(values.verbose), terminal: cli.stdout }),
        );
        return smokeExitCode(checks);
    }
    const fleet = targets.fleet;
    if (fleet && values.context !== undefined) {
        throw new CliError("--context names one cluster: give each member of the fleet with --member-context REGION=KUBECONTEXT");
    }
    let readers: Record<string, ClusterReader> | undefined;
    if (fleet && !values["http-only"] && targets.cluster) {
        const { ClusterReader } = await import("./cluster/kube");
        readers = Object.fromEntries(
            Object.entries(memberContexts(fleet, values["member-context"])).map(([region, context]) => [
                region,
                ClusterReader.fromDefault(context, options.requestTimeoutMs / 1000),
            ]),
        );
    }
    let reader: ClusterReader | undefined;
    if (!fleet && !values["http-only"] && targets.cluster) {
        // Loaded here, where it runs: the Kubernetes client is an ES module (see cluster/kube.ts).
        reader = (await import("./cluster/kube")).ClusterReader.fromDefault(values.context, options.requestTimeoutMs / 1000);
    }
    const services = Object.keys(targets.services);
    cli.progress.step(`checking ${services.join(", ")} through the Gateway: /health, /v1/models, /v1/completions`);
    const results = await runSmoke(targets.services, options);
    if (targets.credentials !== undefined) {
        cli.progress.step("checking that a request without credentials and plain HTTP are refused");
        results.push(...(await runAccessChecks(targets.services, options, targets.identity)));
    }
    if (targets.modelRouting) {
        cli.progress.step(`asking each model name at the Gateway's root: ${Object.keys(targets.modelRouting.models).join(", ")}`);
        results.push(...(await runModelRouting(targets.modelRouting, options)));
    }
    if (fleet) {
        cli.progress.step(
            `checking /health through the Gateway's address in ${Object.keys(fleet.gatewayAddresses ?? {}).join(", ") || "no region"}`,
        );
        results.push(...(await runRegionChecks(targets.services, fleet, options)));
    }
    if (readers && fleet && targets.cluster) {
        cli.progress.step(
            `reading the exported pools of ${Object.keys(fleet.members).join(", ")} and the imports in ${fleet.configRegion}`,
        );
        results.push(...(await runFleetClusterChecks(readers, fleet, services, targets.cluster, options)));
    }
    if (reader && targets.cluster) {
        cli.progress.step(`reading the routes and policies of ${services.join(", ")} (${reader.server})`);
        results.push(...(await runClusterChecks(reader, services, targets.cluster, options)));
    }
    const skipped = values["http-only"]
        ? [clusterChecksSkipped("--http-only checks through the Gateway only")]
        : targets.cluster
          ? []
          : [clusterChecksSkipped("the outputs name no servingNamespace and gateway")];
    const checks = [...smokeChecks(results), ...skipped];
    cli.print(
        values.json
            ? checksJson(checks)
            : formatChecks("smoke", checks.map(reportedCheck), { verbose: Boolean(values.verbose), terminal: cli.stdout }),
    );
    return smokeExitCode(checks);
}

if (require.main === module) {
    runCli(SMOKE_CLI, main);
}
