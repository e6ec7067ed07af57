/**
 * `npm run docs:outputs` writes docs/reference/outputs.md: every stack output the shipped stacks produce, found by
 * running each `Pulumi.<stack>.yaml` offline, with its description from {@link OUTPUT_DESCRIPTIONS} below, the one place
 * outputs are described (index.ts, which returns them, describes none and points here); from the same runs, the README's table of shipped stacks (./stacks.ts) and the exposure tables
 * of docs/explanation/security.md (./exposure.ts). `npm run docs:outputs -- --check` exits 1 when one is stale (`--help` says so); test/scripts/docs/outputs.test.ts fails when an output has no description,
 * a description names no output, or either drifts.
 */
import * as fs from "fs";
import * as path from "path";
import { shippedStacks } from "../affected-stacks";
import { runCli } from "../cli";
import { runOffline } from "../offline/run";
import { exposureMarkdown, withExposureTables } from "./exposure";
import { generatorCli, readIfExists, writeGenerated } from "./generatorCli";
import { StackRun, stacksTable, withStacksTable } from "./stacks";

const ROOT = path.resolve(__dirname, "..", "..");
export const OUTPUTS_PAGE = path.join("docs", "reference", "outputs.md");
/** The security explanation, whose exposure tables ./exposure.ts writes. */
const SECURITY_PAGE = path.join("docs", "explanation", "security.md");

/** Object keys that are names the stack's settings choose, shown as one placeholder. */
const NAMED_KEYS: Record<string, string> = { models: "<service>", members: "<region>" };

/** A fleet member's outputs: those of a single cluster, described once, under its region. */
const MEMBER_PREFIX = "members.<region>.";

/** An output's description: its own, else, for a fleet member's output, the single cluster's of the same name. */
export function outputDescription(at: string): string | undefined {
    return OUTPUT_DESCRIPTIONS[at] ?? (at.startsWith(MEMBER_PREFIX) ? OUTPUT_DESCRIPTIONS[at.slice(MEMBER_PREFIX.length)] : undefined);
}

/** Whether a description's key names a found output, itself or as a fleet member's. */
export function describesFound(key: string, found: ReadonlyMap<string, unknown>): boolean {
    return found.has(key) || found.has(`${MEMBER_PREFIX}${key}`);
}

/** Objects described as a whole: their keys are labels or names, not fields. */
const WHOLE = new Set([
    "tpuNodeSelector",
    "modelRouting.models",
    "models.<service>.curl",
    "models.<service>.coldStart.first",
    "models.<service>.coldStart.warm",
    "models.<service>.coldStart.pessimistic",
]);

/** What each output, and each field of a structured output, is. Keys are paths as {@link outputPaths} writes them. */
export const OUTPUT_DESCRIPTIONS: Record<string, string> = {
    access: "Who the Gateway lets in and how a caller gets each credential ([security](../explanation/security.md)).",
    "access.apiKey": "The key every model server requires as `Authorization: Bearer <key>`; a secret, shown with `--show-secrets`.",
    "access.apiKeyCommand": "The command that puts the key in `$API_KEY`, as the curl commands read it.",
    "access.identity": "What a caller presents besides its address (`gatewayIdentity`): `api-key`, `iap` or `google-id-token`.",
    "access.publicToInternet": "Whether `allowedSourceRanges` holds 0.0.0.0/0: the whole internet reaches the Gateway.",
    "access.rateLimitPerMinute": "Requests per minute one client address may send before it gets HTTP 429 (`gatewayRateLimit`).",
    "access.reachableFrom":
        "The client ranges let in (`allowedSourceRanges`); `nobody` while it is empty, when the Gateway refuses every request; a fleet's: the VPC network, its Gateway's load balancer being internal.",
    caCertificateCommand:
        "When the stack's own CA signs the Gateway's certificate: the command that writes that CA to `ca.crt` for `curl --cacert`.",
    caIssuerName: "The CA ClusterIssuer (RSA 2048, self-signed root) that signs the certificates KServe asks for.",
    clusterName: "Name of the regional GKE cluster.",
    configRegion: "A fleet's: the member region whose cluster holds the multi-cluster Gateway (`fleet.configRegion`).",
    dashboardUrl:
        "The stack's Cloud Monitoring dashboard: per model service requests, time to first token, tokens, queue, KV cache, prefix-cache hits, the EPP's decisions, replicas.",
    gateway: "Where the inference Gateway is, for `npm run smoke` and `npm run doctor`.",
    "gateway.name": "Name of the Gateway (`gatewayName`).",
    "gateway.namespace": "Namespace of the Gateway (`gatewayNamespace`).",
    gatewayAddress: "The Gateway's address: the regional load balancer's reserved IP.",
    gatewayAddresses:
        "A fleet's: the multi-cluster Gateway's addresses, one per member region, as GKE reports them once it has programmed the Gateway (ephemeral, internal); point `gatewayHostname` at them.",
    gatewayClass: "GatewayClass of the inference Gateway.",
    gatewayProvider: "What serves the Gateway: `gke` or `istio`.",
    gatewayUrl: "`https://<gatewayHostname or gatewayAddress>`: HTTPS only; plain HTTP redirects here.",
    kubeconfigCommand: "The `gcloud container clusters get-credentials` command that points kubectl at the cluster.",
    members:
        "A fleet's: per member region, its cluster, TPU zone, capacity plan and bill, each as a single cluster's output of the same name.",
    "members.<region>": "One member of the fleet.",
    modelBucket: "The bucket of staged weights and the XLA compilation cache; absent when nothing is staged or cached.",
    modelRouting: "With `bodyBasedRouting` only: one OpenAI-compatible endpoint for every model service, which the body's `model` picks.",
    "modelRouting.curl": "A chat completion through the router, ready to paste.",
    "modelRouting.models": "Every name a client may send as `model`, and the model service it reaches.",
    "modelRouting.url": "`https://<gateway>/v1`: the root the router serves.",
    models: "Per model service (keyed by its `name`): its URL through the Gateway and requests to paste.",
    "models.<service>": "One model service.",
    "models.<service>.baseUrl": "`https://<gateway>/<servingNamespace>/<name>`: the service's own path through the Gateway.",
    "models.<service>.coldStart": "Estimated seconds from pod creation to Ready, per phase, and the startup budget derived from them.",
    "models.<service>.coldStart.first":
        "The first start: seconds per phase (`imagePull`, `weights`, `serverStart`, `compile`, `groupFormation` on a multi-host slice) and `total`.",
    "models.<service>.coldStart.pessimistic":
        "A pessimistic start (each throughput at a quarter, each duration four times, no compilation cache, no image streaming), with the same phases.",
    "models.<service>.coldStart.startupBudgetSeconds":
        "The startup probe's window: twice the first start and at least the pessimistic one, in whole minutes, at least 10.",
    "models.<service>.coldStart.warm": "A warm start (weights in the bucket, compilation cache filled), with the same phases.",
    "models.<service>.curl": "`models` and `completions`: curl commands to paste, with the CA and `$API_KEY` (`access.apiKeyCommand`).",
    "models.<service>.modelName": "The name clients send as `model`.",
    "models.<service>.pattern": "`pattern1` or `pattern3`.",
    "models.<service>.replicas": "Fixed replicas; for an autoscaled service, its minimum.",
    region: "Region of the cluster and the network.",
    servingNamespace: "Namespace of the model services.",
    tpuCapacityPlan: "The TPU capacity plan (`tpuCapacity`): how the stack buys TPU VMs and in which order GKE tries each way.",
    "tpuCapacityPlan.computeClass":
        "With two options or more: the ComputeClass whose priorities name the options' node pools in order; the services' pods select it.",
    "tpuCapacityPlan.ceilingNodes":
        "The most TPU VMs the plan's pools hold at once, every pool's maximum (each option in each of its zones): a rollout's surge pod spills onto the next pool when the first is full.",
    "tpuCapacityPlan.options":
        "Each pool in the order GKE tries it (an option in several zones is a pool in each, ordered by `tpuCapacityOrder`): `option`, `zone`, `nodePool`, `minNodes`, `maxNodes`, the `reservation` or flex-start `maxRunDurationSeconds` it takes, its `limits`, on a multi-host slice before a later option `scaleUpWaitMinutes` (the longest GKE waits on it before trying the next), and `usdPerHour` of the services' busy VMs if all came from it (`unknown` without a catalogued rate).",
    tpuHourlyCost:
        "Estimated TPU bill per hour at the node count the configuration implies (none when paused), as a range over the plan's options.",
    "tpuHourlyCost.atCeiling":
        "Every pool of the plan full, each option in each of its zones at `tpuMaxNodes` (none when paused): the most the plan can bill at once.",
    "tpuHourlyCost.atCeiling.chips": "TPU chips with every pool full.",
    "tpuHourlyCost.atCeiling.nodes": "TPU VMs with every pool full.",
    "tpuHourlyCost.atCeiling.usdPerHour":
        "USD per hour with every pool full, each at its option's rate (one rate per option, the same in every zone), summed over the pools whose option has a known rate (`unknownRates` names the others); absent when none has one.",
    "tpuHourlyCost.atMaximum":
        "With autoscaled services only: the same bill with every one at its maximum (`nodes`, `chips`, `usdPerHour`).",
    "tpuHourlyCost.atMaximum.chips": "TPU chips at the maximum.",
    "tpuHourlyCost.atMaximum.nodes": "TPU VMs at the maximum.",
    "tpuHourlyCost.atMaximum.usdPerHour": "USD per hour at the maximum, from the plan's cheapest to its dearest option with a known rate.",
    "tpuHourlyCost.atMaximum.usdPerHour.cheapest": "USD per hour at the maximum from the cheapest option.",
    "tpuHourlyCost.atMaximum.usdPerHour.cheapestOption": "The cheapest option with a known rate.",
    "tpuHourlyCost.atMaximum.usdPerHour.dearest": "USD per hour at the maximum from the dearest option.",
    "tpuHourlyCost.atMaximum.usdPerHour.dearestOption": "The dearest option with a known rate.",
    "tpuHourlyCost.chips": "TPU chips billed.",
    "tpuHourlyCost.nodes": "TPU VMs billed: one per replica (times the slice's hosts), at least `tpuMinNodes`.",
    "tpuHourlyCost.rates":
        "Each option's rate, in the plan's order: `option`, `usdPerChipHour` (absent where no source gives a v6e rate), `basis`, `source` and the date it was last `reviewed`.",
    "tpuHourlyCost.unknownRates":
        "The options the range leaves out for want of a catalogued rate (spot, flex-start), when the plan has any.",
    "tpuHourlyCost.usdPerHour":
        "USD per hour with autoscaled services at their minimum, from the plan's cheapest to its dearest option with a known rate (absent when none has one).",
    "tpuHourlyCost.usdPerHour.cheapest": "USD per hour from the cheapest option.",
    "tpuHourlyCost.usdPerHour.cheapestOption": "The cheapest option with a known rate.",
    "tpuHourlyCost.usdPerHour.dearest": "USD per hour from the dearest option.",
    "tpuHourlyCost.usdPerHour.dearestOption": "The dearest option with a known rate.",
    tpuNodePoolName: "Name of the TPU v6e node pool of the capacity plan's first option.",
    tpuNodeSelector:
        "The node labels a TPU pod must select: accelerator `tpu-v6e-slice` and the pool's topology, and with a plan of several options the ComputeClass (`cloud.google.com/compute-class`).",
    tpuPoolAutoscaling: "The autoscaler bounds of the first option's TPU pool (each option's: `tpuCapacityPlan.options`).",
    "tpuPoolAutoscaling.maxNodes": "The pool's ceiling (`tpuMaxNodes`).",
    "tpuPoolAutoscaling.minNodes": "The pool's floor: `tpuMinNodes`, 0 when paused.",
    "tpuPoolAutoscaling.paused": "Whether the stack is paused.",
    tpuZone: "Zone of the TPU node pool.",
};

function isObject(value: unknown): value is Record<string, unknown> {
    return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Every output path of one stack's outputs: each key, and each field of a structured value, by dotted path. */
export function outputPaths(outputs: Record<string, unknown>): string[] {
    const paths: string[] = [];
    const walk = (value: unknown, at: string, key: string): void => {
        paths.push(at);
        if (!isObject(value) || WHOLE.has(at)) {
            return;
        }
        for (const [child, childValue] of Object.entries(value)) {
            walk(childValue, `${at}.${NAMED_KEYS[key] ?? child}`, child);
        }
    };
    for (const [key, value] of Object.entries(outputs)) {
        if (NAMED_KEYS[key] && isObject(value)) {
            paths.push(key);
            for (const [, entry] of Object.entries(value)) {
                walk(entry, `${key}.${NAMED_KEYS[key]}`, NAMED_KEYS[key]);
            }
        } else {
            walk(value, key, key);
        }
    }
    return [...new Set(paths)];
}

/** For each output path, the shipped stacks that have it. */
export function pathsByStack(outputs: Record<string, Record<string, unknown>>): Map<string, string[]> {
    const found = new Map<string, string[]>();
    for (const [stack, stackOutputs] of Object.entries(outputs).sort(([a], [b]) => a.localeCompare(b))) {
        for (const at of outputPaths(stackOutputs)) {
            found.set(at, [...(found.get(at) ?? []), stack]);
        }
    }
    return found;
}

/** The outputs page for the shipped stacks' outputs, keyed by stack. */
export function outputsMarkdown(outputs: Record<string, Record<string, unknown>>): string {
    const stacks = Object.keys(outputs).sort();
    const found = pathsByStack(outputs);
    const rows = [...found.keys()].sort().map((at) => {
        const where = found.get(at)!;
        const shown = where.length === stacks.length ? "all" : where.join(", ");
        return `| \`${at}\` | ${shown} | ${(outputDescription(at) ?? "(no description)").replace(/\|/g, "\\|")} |`;
    });
    return [
        "# Stack outputs",
        "",
        "For anyone using a deployed stack or scripting against it: every output `pulumi stack output` shows, and what it holds.",
        "",
        "<!-- generated by npm run docs:outputs from the shipped stacks' offline previews and scripts/docs/outputs.ts; edit the descriptions there -->",
        "",
        "`pulumi stack output --json` prints them all; `pulumi stack output models --json` the model services alone. A field of a",
        "structured output is written as its path (`models.<service>.baseUrl`). The second column names the shipped stacks",
        `(${stacks.map((stack) => `\`Pulumi.${stack}.yaml\``).join(", ")}) whose offline preview has it.`,
        "",
        "| output | stacks | what it holds |",
        "|---|---|---|",
        ...rows,
        "",
        "`npm run smoke` and `npm run doctor` read these outputs (or a file of them, `--outputs FILE`).",
        "",
    ].join("\n");
}

/** Every shipped stack, run offline: its outputs and how many resources it would create. */
export async function shippedRuns(): Promise<Record<string, StackRun>> {
    const runs: Record<string, StackRun> = {};
    for (const stack of shippedStacks(ROOT)) {
        const run = await runOffline(ROOT, stack);
        runs[stack] = { outputs: run.outputs, resources: run.resources.length, recorded: run.resources };
    }
    return runs;
}

/** Each generated file with what it should hold. */
export function expectedFiles(runs: Record<string, StackRun>): Array<{ file: string; expected: string }> {
    const outputs = Object.fromEntries(Object.entries(runs).map(([stack, run]) => [stack, run.outputs]));
    const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
    const security = fs.readFileSync(path.join(ROOT, SECURITY_PAGE), "utf8");
    const recorded = Object.fromEntries(Object.entries(runs).map(([stack, run]) => [stack, run.recorded]));
    return [
        { file: OUTPUTS_PAGE, expected: outputsMarkdown(outputs) },
        { file: "README.md", expected: withStacksTable(readme, stacksTable(runs)) },
        { file: SECURITY_PAGE, expected: withExposureTables(security, exposureMarkdown(recorded)) },
    ];
}

export const OUTPUTS_DOCS_CLI = generatorCli(
    "docs:outputs",
    `${OUTPUTS_PAGE}, the README's table of shipped stacks and the exposure tables of ${SECURITY_PAGE}, from each shipped stack run offline`,
);

if (require.main === module) {
    runCli(OUTPUTS_DOCS_CLI, async (values, cli) => {
        const files = expectedFiles(await shippedRuns()).map(({ file, expected }) => ({
            file,
            expected,
            current: readIfExists(path.join(ROOT, file)),
        }));
        return writeGenerated(ROOT, OUTPUTS_DOCS_CLI.script, files, Boolean(values.check), cli.print);
    });
}
