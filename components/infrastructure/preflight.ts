/**
 * Facts only GCP knows, read before any resource is registered: which of the stack's APIs the project
 * has enabled, whether the release channel's default GKE version meets the floor, whether the
 * zone offers the TPU machine type, and whether a `gs://` model's bucket allows a folder-scoped grant. Every problem is reported at once, one line each.
 *
 * A check needs its API enabled. On a new project the stack enables the APIs itself, so a check whose
 * API is still disabled at preview runs during `pulumi up`, right after the API is enabled, and every
 * resource that calls that API waits for it: nothing is created through the API before its check passed.
 */
import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";
import {
    GKE_TPU_V6E_ZONES,
    GKE_VERSION,
    PROJECT_APIS,
    ProjectApi,
    RELEASE_CHANNELS,
    compareGkeVersions,
    parseGkeVersion,
    stackApis,
} from "@gke-tpu-inference/facts";
import { parseGsUri } from "../lib/gcsUri";
import { planZones } from "../settings/capacity";
import { Settings } from "../settings/stack";
import { ProjectApis } from "./projectApis";

/** Raised when the project or GCP refuses what the settings ask for; its message is the whole diagnosis, one line per problem. */
export class PreflightError extends pulumi.RunError {
    constructor(readonly problems: readonly string[]) {
        super(problems.join("\n"));
        this.name = "PreflightError";
    }
}

/** `pass` when there are no problems; otherwise every problem at once, as one {@link PreflightError}. */
export function passOrThrow<T>(problems: readonly string[], pass: T): T {
    if (problems.length > 0) {
        throw new PreflightError(problems);
    }
    return pass;
}

/** Whether `version` is an exact GKE version (`1.34.0-gke.1626000`), which {@link compareGkeVersions} compares. */
export function isExactGkeVersion(version: string): boolean {
    return parseGkeVersion(version)?.length === 4;
}

/** One fact read from GCP and judged against the settings: each run gives one line per problem, none when the fact fits. */
interface LiveCheck {
    /** The API the read calls. */
    api: ProjectApi;
    run(): Promise<string[]>;
    /** The same check as an Output, read once `dependsOn` exists. */
    runAfter(dependsOn: pulumi.Resource[]): pulumi.Output<string[]>;
}

/** A check from a read in both forms (a Promise now, an Output later) and the judgement of its result. */
function liveCheck<R>(
    api: ProjectApi,
    read: () => Promise<R>,
    readAfter: (dependsOn: pulumi.Resource[]) => pulumi.Output<R>,
    problems: (result: R) => string[],
): LiveCheck {
    return { api, run: async () => problems(await read()), runAfter: (dependsOn) => readAfter(dependsOn).apply(problems) };
}

function releaseChannelCheck(settings: Settings, namespace: string): LiveCheck {
    const args = { project: settings.project, location: settings.region };
    return liveCheck(
        "container",
        () => gcp.container.getEngineVersions(args),
        (dependsOn) => gcp.container.getEngineVersionsOutput(args, { dependsOn }),
        (result) => {
            const defaults = result.releaseChannelDefaultVersion ?? {};
            const channelDefault = defaults[settings.releaseChannel];
            if (
                channelDefault !== undefined &&
                isExactGkeVersion(channelDefault) &&
                compareGkeVersions(channelDefault, GKE_VERSION.floor) >= 0
            ) {
                return [];
            }
            const fitting = RELEASE_CHANNELS.filter(
                (channel) => isExactGkeVersion(defaults[channel] ?? "") && compareGkeVersions(defaults[channel], GKE_VERSION.floor) >= 0,
            );
            const current = channelDefault === undefined ? "offers no default version" : `creates clusters at ${channelDefault}`;
            return [
                `${namespace}:releaseChannel = ${JSON.stringify(settings.releaseChannel)} ${current} in ${settings.region}, below ${GKE_VERSION.floor}, ` +
                    `the first GKE version that installs the InferencePool inference.networking.k8s.io/v1 CRD itself; allowed: ` +
                    (fitting.length > 0
                        ? fitting.map((channel) => `${channel} (default ${defaults[channel]})`).join(", ")
                        : `none today in ${settings.region}`),
            ];
        },
    );
}

/** Whether `zone` (the stack's, or another zone of the TPU plan) offers `machineType` today: GCP lists the machine types each zone has. */
function machineTypeCheck(
    settings: Settings,
    namespace: string,
    key: string,
    machineType: string,
    allowed: string,
    zone = settings.zone,
): LiveCheck {
    const args = { project: settings.project, zone, filter: `name = "${machineType}"` };
    const where =
        zone === settings.zone ? `${namespace}:zone = ${JSON.stringify(zone)}` : `${JSON.stringify(zone)} of ${namespace}:tpuCapacity`;
    return liveCheck(
        "compute",
        () => gcp.compute.getMachineTypes(args),
        (dependsOn) => gcp.compute.getMachineTypesOutput(args, { dependsOn }),
        (result) =>
            result.machineTypes.some((offered) => offered.name === machineType)
                ? []
                : [
                      `${where} does not offer ${namespace}:${key} = ${JSON.stringify(machineType)} today (GCP lists no such machine type there); ` +
                          `allowed: ${allowed}`,
                  ],
    );
}

/**
 * Whether the bucket of each `gs://` model lets the stack scope the server's read grant to the model's folder: IAM
 * conditions on a bucket need uniform bucket-level access. Source: {@link SOURCES.gcsConditionsNeedUniformAccess} in the facts.
 */
function modelBucketChecks(settings: Settings, namespace: string): LiveCheck[] {
    return settings.models.flatMap((model, index) => {
        if (!model.modelUri.startsWith("gs://")) {
            return [];
        }
        const { bucket, prefix } = parseGsUri(model.modelUri);
        const setting = `${namespace}:models[${index}].modelUri = ${JSON.stringify(model.modelUri)}`;
        type Read = { uniformBucketLevelAccess?: boolean } | { failure: string };
        const read = (): Promise<Read> =>
            gcp.storage.getBucket({ name: bucket }).then(
                (found) => found,
                (err: Error) => ({ failure: String((err as { details?: string }).details ?? err.message).split("\n")[0] }),
            );
        return [
            liveCheck<Read>(
                "storage",
                read,
                (dependsOn) => gcp.storage.getBucketOutput({ name: bucket }, { dependsOn }),
                (found) =>
                    "failure" in found
                        ? [
                              `${setting}: bucket ${bucket} cannot be read (${found.failure}); allowed: a bucket the stack's credentials may read (storage.buckets.get), holding the model under ${prefix}/`,
                          ]
                        : found.uniformBucketLevelAccess
                          ? []
                          : [
                                `${setting}: bucket ${bucket} does not use uniform bucket-level access, and without it IAM cannot limit the server's read grant to ${prefix}/; ` +
                                    `allowed: a bucket with uniform bucket-level access (gcloud storage buckets update gs://${bucket} --uniform-bucket-level-access), or a copy of the model in one`,
                            ],
            ),
        ];
    });
}

/** Whether `project` has `service` enabled: the data source reads the service back, with an id, only when it is. */
async function isEnabled(project: string, service: string): Promise<boolean> {
    const result = await gcp.projects.getProjectService({ project, service });
    return Boolean(result.id) && result.service === service;
}

/** What resources wait for, per API, once the live facts are known. */
export interface Preflight {
    /**
     * What a resource that calls `api` must depend on: the service that enables it and, when one of the API's
     * checks could not run at preview because the API was still disabled, that check.
     */
    prerequisites(api: ProjectApi): pulumi.Input<pulumi.Resource>[];
}

/**
 * Reads the live facts and stops with every problem at once. Call it before registering any resource;
 * pass the stack's {@link ProjectApis} to the returned function to get each API's prerequisites.
 *
 * @param namespace the project's config namespace, for messages
 * @param manageApis whether the stack enables the APIs itself (else each must already be enabled)
 * @param fleet whether the stack builds a fleet, which calls the fleet's APIs too
 */
export async function readLiveFacts(
    settings: Settings,
    namespace: string,
    manageApis: boolean,
    fleet = false,
): Promise<(apis: ProjectApis) => Preflight> {
    const apiEntries = stackApis(fleet).map((api): [ProjectApi, string] => [api, PROJECT_APIS[api]]);
    let states: boolean[];
    try {
        states = await Promise.all(apiEntries.map(([, service]) => isEnabled(settings.project, service)));
    } catch (err) {
        throw new PreflightError([
            `reading the enabled APIs of project ${settings.project} failed (${(err as Error).message.split("\n")[0]}); ` +
                "the stack needs serviceusage.googleapis.com and cloudresourcemanager.googleapis.com enabled and permission to read the project's services (docs/getting-started.md#deploy-for-real)",
        ]);
    }
    const enabled = new Set(apiEntries.filter((_, index) => states[index]).map(([api]) => api));
    const problems: string[] = [];
    const disabled = apiEntries.filter(([api]) => !enabled.has(api)).map(([, service]) => service);
    if (!manageApis && disabled.length > 0) {
        problems.push(
            `${namespace}:manageProjectApis = false but project ${settings.project} has not enabled ${disabled.join(", ")}; ` +
                `allowed: enable them (gcloud services enable ${disabled.join(" ")} --project ${settings.project}) or set manageProjectApis to true`,
        );
    }

    const checks = [
        releaseChannelCheck(settings, namespace),
        // Every zone of the TPU plan: each holds a pool of the machine type.
        ...planZones(settings.tpu.capacity).map((zone) =>
            machineTypeCheck(
                settings,
                namespace,
                "tpuMachineType",
                settings.tpu.machineType,
                `a zone that offers it, among those where GKE runs TPU v6e node pools: ${GKE_TPU_V6E_ZONES.join(", ")}`,
                zone,
            ),
        ),
        // The system pool spreads over the region's zones; the TPU zone is one of them, and a typo is missing from all.
        machineTypeCheck(
            settings,
            namespace,
            "systemMachineType",
            settings.systemPool.machineType,
            "a machine type the region's zones offer, such as e2-standard-4",
        ),
        ...modelBucketChecks(settings, namespace),
    ];
    const deferred = checks.filter((check) => !enabled.has(check.api));
    const results = await Promise.all(checks.filter((check) => enabled.has(check.api)).map((check) => check.run()));
    passOrThrow([...problems, ...results.flat()], undefined);
    for (const check of deferred) {
        void pulumi.log.info(
            `${PROJECT_APIS[check.api]} is not enabled yet: its checks run during the update, once the stack has enabled it, before anything calls it`,
        );
    }

    return (apis) => {
        // One deferred read per API, however many resources wait for it.
        const byApi = new Map<ProjectApi, pulumi.Input<pulumi.Resource>[]>();
        return {
            prerequisites(api: ProjectApi) {
                if (!byApi.has(api)) {
                    const services = apis.dependencies(api);
                    const gates = deferred
                        .filter((check) => check.api === api)
                        .map((check) => check.runAfter(services).apply((found) => passOrThrow(found, services)));
                    byApi.set(api, [...services, ...gates] as pulumi.Input<pulumi.Resource>[]);
                }
                return byApi.get(api)!;
            },
        };
    };
}
