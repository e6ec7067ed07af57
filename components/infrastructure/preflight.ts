/**
 * Facts only GCP knows, read before any resource is registered: which of the stack's APIs the project
 * has enabled, whether the release channel's default GKE version meets the floors in each cluster's region, whether
 * each zone of each cluster's TPU plan offers the TPU machine type, and whether a `gs://` model's bucket allows a
 * folder-scoped grant. A fleet is checked member by member. Every problem is reported at once, one line each.
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
    MULTI_CLUSTER_INFERENCE,
    PROJECT_APIS,
    ProjectApi,
    RELEASE_CHANNELS,
    compareGkeVersions,
    parseGkeVersion,
    stackApis,
} from "@gke-tpu-inference/facts";
import { parseGsUri } from "../lib/gcsUri";
import { planZones } from "../settings/capacityOrder";
import { memberKey } from "../settings/fleet";
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

/** What a check read from GCP, and the problems it found with it (none when the fact fits). */
interface Judged<R> {
    found: R;
    problems: string[];
}

/** One fact read from GCP and judged against the settings. */
interface LiveCheck<R = unknown> {
    /** The API the read calls. */
    api: ProjectApi;
    run(): Promise<Judged<R>>;
    /** The same check as an Output, read once `dependsOn` exists. */
    runAfter(dependsOn: pulumi.Resource[]): pulumi.Output<Judged<R>>;
}

/** A check from a read in both forms (a Promise now, an Output later) and the judgement of its result. */
function liveCheck<R>(
    api: ProjectApi,
    read: () => Promise<R>,
    readAfter: (dependsOn: pulumi.Resource[]) => pulumi.Output<R>,
    problems: (result: R) => string[],
): LiveCheck<R> {
    const judge = (found: R): Judged<R> => ({ found, problems: problems(found) });
    return { api, run: async () => judge(await read()), runAfter: (dependsOn) => readAfter(dependsOn).apply(judge) };
}

/** A cluster the checks look at, the stack's or a fleet member's, with the settings that place it as messages name them. */
interface CheckedCluster {
    region: string;
    zone: string;
    tpu: Settings["tpu"];
    /** How a message names one of the cluster's TPU zones: the setting that puts a pool there. */
    zoneSetting(zone: string): string;
    /** A fleet member's region setting, `<namespace>:fleet.members[<i>].region`. */
    regionSetting?: string;
}

/** The clusters the stack builds: its own, or each fleet member's (the stack's `zone` and `region` then place none). */
function checkedClusters(settings: Settings, namespace: string): CheckedCluster[] {
    const key = (name: string) => `${namespace}:${name}`;
    if (settings.fleet === undefined) {
        return [
            {
                region: settings.region,
                zone: settings.zone,
                tpu: settings.tpu,
                zoneSetting: (zone) =>
                    zone === settings.zone
                        ? `${key("zone")} = ${JSON.stringify(zone)}`
                        : `${JSON.stringify(zone)} of ${key("tpuCapacity")}`,
            },
        ];
    }
    return settings.fleet.members.map((member, index) => ({
        ...member,
        zoneSetting: (zone) =>
            zone === member.zone
                ? `${memberKey(key, index, "zone")} = ${JSON.stringify(zone)}`
                : `${JSON.stringify(zone)} of ${memberKey(key, index, "tpuCapacity")}`,
        regionSetting: memberKey(key, index, "region"),
    }));
}

/** A GKE version a cluster must be at least, and why. */
interface GkeFloor {
    version: string;
    why: string;
}

/** The floors every cluster meets; a fleet's clusters also GKE's multi-cluster Inference Gateway's. */
function gkeFloors(fleet: boolean): GkeFloor[] {
    return [
        {
            version: GKE_VERSION.floor,
            why: "the first GKE version that installs the InferencePool inference.networking.k8s.io/v1 CRD itself",
        },
        ...(fleet
            ? [
                  {
                      version: MULTI_CLUSTER_INFERENCE.minimumGkeVersion,
                      why: "the first GKE version GKE's multi-cluster Inference Gateway supports on every cluster of its fleet",
                  },
              ]
            : []),
    ];
}

/** Whether `version` is an exact GKE version at or above every floor. */
function meetsFloors(version: string | undefined, floors: readonly GkeFloor[]): version is string {
    return version !== undefined && isExactGkeVersion(version) && floors.every((floor) => compareGkeVersions(version, floor.version) >= 0);
}

/** GKE's versions in the cluster's region: the release channel's default, which creates the cluster, must meet `floors`. */
function releaseChannelCheck(
    settings: Settings,
    namespace: string,
    cluster: CheckedCluster,
    floors: readonly GkeFloor[],
): LiveCheck<gcp.container.GetEngineVersionsResult> {
    const { region } = cluster;
    const args = { project: settings.project, location: region };
    return liveCheck(
        "container",
        () => gcp.container.getEngineVersions(args),
        (dependsOn) => gcp.container.getEngineVersionsOutput(args, { dependsOn }),
        (result) => {
            const defaults = result.releaseChannelDefaultVersion ?? {};
            const channelDefault = defaults[settings.releaseChannel];
            if (meetsFloors(channelDefault, floors)) {
                return [];
            }
            const missed = floors.filter((floor) => !meetsFloors(channelDefault, [floor]));
            const fitting = RELEASE_CHANNELS.filter((channel) => meetsFloors(defaults[channel], floors));
            const current = channelDefault === undefined ? "offers no default version" : `creates clusters at ${channelDefault}`;
            return [
                `${namespace}:releaseChannel = ${JSON.stringify(settings.releaseChannel)} ${current} in ${region}` +
                    (cluster.regionSetting === undefined ? "" : ` (${cluster.regionSetting})`) +
                    `, below ${missed.map((floor) => `${floor.version}, ${floor.why}`).join(", and ")}; allowed: ` +
                    (fitting.length > 0
                        ? fitting.map((channel) => `${channel} (default ${defaults[channel]})`).join(", ")
                        : `none today in ${region}`),
            ];
        },
    );
}

/** Whether `zone` of the cluster offers `machineType` today: GCP lists the machine types each zone has. */
function machineTypeCheck(
    settings: Settings,
    namespace: string,
    cluster: CheckedCluster,
    key: string,
    machineType: string,
    allowed: string,
    zone = cluster.zone,
): LiveCheck {
    const args = { project: settings.project, zone, filter: `name = "${machineType}"` };
    return liveCheck(
        "compute",
        () => gcp.compute.getMachineTypes(args),
        (dependsOn) => gcp.compute.getMachineTypesOutput(args, { dependsOn }),
        (result) =>
            result.machineTypes.some((offered) => offered.name === machineType)
                ? []
                : [
                      `${cluster.zoneSetting(zone)} does not offer ${namespace}:${key} = ${JSON.stringify(machineType)} today (GCP lists no such machine type there); ` +
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

/** What resources wait for, per API, once the live facts are known, and the facts the checks passed. */
export interface Preflight {
    /**
     * What a resource that calls `api` must depend on: the service that enables it and, when one of the API's
     * checks could not run at preview because the API was still disabled, that check.
     */
    prerequisites(api: ProjectApi): pulumi.Input<pulumi.Resource>[];
    /**
     * The exact GKE version the release channel creates a cluster at in `region` (the stack's, or a fleet member's), which
     * the checks found to meet the cluster's floors: known at preview, unless the Kubernetes Engine API was still disabled.
     */
    channelDefaultVersion(region: string): pulumi.Input<string>;
}

/**
 * Reads the live facts and stops with every problem at once. Call it before registering any resource;
 * pass the stack's {@link ProjectApis} to the returned function to get each API's prerequisites.
 *
 * @param namespace the project's config namespace, for messages
 * @param manageApis whether the stack enables the APIs itself (else each must already be enabled)
 */
export async function readLiveFacts(settings: Settings, namespace: string, manageApis: boolean): Promise<(apis: ProjectApis) => Preflight> {
    const fleet = settings.fleet !== undefined;
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

    const clusters = checkedClusters(settings, namespace);
    const floors = gkeFloors(fleet);
    const versionChecks = new Map(clusters.map((cluster) => [cluster.region, releaseChannelCheck(settings, namespace, cluster, floors)]));
    const checks: LiveCheck[] = [
        ...versionChecks.values(),
        ...clusters.flatMap((cluster) => [
            // Every zone of the cluster's TPU plan: each holds a pool of the machine type.
            ...planZones(cluster.tpu.capacity).map((zone) =>
                machineTypeCheck(
                    settings,
                    namespace,
                    cluster,
                    "tpuMachineType",
                    cluster.tpu.machineType,
                    `a zone that offers it, among those where GKE runs TPU v6e node pools: ${GKE_TPU_V6E_ZONES.join(", ")}`,
                    zone,
                ),
            ),
            // The system pool spreads over the region's zones; the TPU zone is one of them, and a typo is missing from all.
            machineTypeCheck(
                settings,
                namespace,
                cluster,
                "systemMachineType",
                settings.systemPool.machineType,
                "a machine type the region's zones offer, such as e2-standard-4",
            ),
        ]),
        ...modelBucketChecks(settings, namespace),
    ];
    const deferred = checks.filter((check) => !enabled.has(check.api));
    const judged = new Map(
        await Promise.all(checks.filter((check) => enabled.has(check.api)).map(async (check) => [check, await check.run()] as const)),
    );
    passOrThrow([...problems, ...[...judged.values()].flatMap((result) => result.problems)], undefined);
    for (const api of new Set(deferred.map((check) => check.api))) {
        void pulumi.log.info(
            `${PROJECT_APIS[api]} is not enabled yet: its checks run during the update, once the stack has enabled it, before anything calls it`,
        );
    }

    return (apis) => {
        // One deferred read per check, however many resources wait for it or read what it found.
        const later = new Map<LiveCheck, pulumi.Output<unknown>>();
        /** What a check whose API was disabled at preview found, once the stack has enabled the API and the check passed. */
        const passedLater = <R>(check: LiveCheck<R>): pulumi.Output<R> => {
            if (!later.has(check)) {
                later.set(
                    check,
                    check.runAfter(apis.dependencies(check.api)).apply(({ found, problems }) => passOrThrow(problems, found)),
                );
            }
            return later.get(check) as pulumi.Output<R>;
        };
        const byApi = new Map<ProjectApi, pulumi.Input<pulumi.Resource>[]>();
        return {
            prerequisites(api: ProjectApi) {
                if (!byApi.has(api)) {
                    const services = apis.dependencies(api);
                    const gates = deferred.filter((check) => check.api === api).map((check) => passedLater(check).apply(() => services));
                    byApi.set(api, [...services, ...gates] as pulumi.Input<pulumi.Resource>[]);
                }
                return byApi.get(api)!;
            },
            channelDefaultVersion(region: string) {
                const check = versionChecks.get(region);
                if (check === undefined) {
                    throw new Error(`no cluster of the stack is in ${region}`);
                }
                // Once the check passed, the channel's default is an exact version that meets the floors.
                const version = (result: gcp.container.GetEngineVersionsResult) =>
                    result.releaseChannelDefaultVersion[settings.releaseChannel];
                const found = judged.get(check)?.found as gcp.container.GetEngineVersionsResult | undefined;
                return found !== undefined ? version(found) : passedLater(check).apply(version);
            },
        };
    };
}
