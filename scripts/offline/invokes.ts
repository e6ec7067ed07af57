/**
 * What the offline preview answers when a program calls a provider function (an invoke), derived
 * from the catalog so that the answers look like GCP's on a project where the stack can run: every
 * API enabled, release channels whose defaults in every location are above the GKE floors (a fleet's
 * too), the TPU v6e machine types offered in exactly the zones the catalog lists, and model buckets
 * with uniform bucket-level access.
 * A test or a caller can answer any token differently.
 */
import { createHash } from "crypto";
import { GKE_TPU_V6E_ZONES, GKE_VERSION, MULTI_CLUSTER_INFERENCE, RELEASE_CHANNELS, TPU_V6E_MACHINE_TYPES } from "@gke-tpu-inference/facts";
import { compareGkeVersions, parseGkeVersion } from "@gke-tpu-inference/facts";
import { MACHINE_TYPE } from "../../components/settings/cluster";
import { parseObjects } from "./expand";
import { NoOfflineAnswer } from "./recorder";

/** An answer to one invoke: the function's result for its arguments. */
export type InvokeAnswer = (args: Record<string, unknown>) => Record<string, unknown>;

/** An invoke a program made, as the JSON report records it. */
export interface RecordedInvoke {
    token: string;
    args: Record<string, unknown>;
}

export { InvokeFailure } from "./recorder";

export const INVOKE_TOKENS = {
    engineVersions: "gcp:container/getEngineVersions:getEngineVersions",
    machineTypes: "gcp:compute/getMachineTypes:getMachineTypes",
    projectService: "gcp:projects/getProjectService:getProjectService",
    project: "gcp:organizations/getProject:getProject",
    bucket: "gcp:storage/getBucket:getBucket",
    /** The Kubernetes SDK's v1 ConfigFile and ConfigGroup parse YAML through the provider. */
    yamlDecode: "kubernetes:yaml:decode",
    /** The Kubernetes SDK's v3 Chart has the provider run `helm template`. */
    helmTemplate: "kubernetes:helm:template",
    /** The Kubernetes SDK's v1 kustomize Directory has the provider run kustomize. */
    kustomizeDirectory: "kubernetes:kustomize:directory",
    /** AWS's identity functions, which EKS programs (and @pulumi/eks, @pulumi/awsx) call before anything else. */
    awsRegion: "aws:index/getRegion:getRegion",
    awsCallerIdentity: "aws:index/getCallerIdentity:getCallerIdentity",
    awsPartition: "aws:index/getPartition:getPartition",
    awsAvailabilityZones: "aws:index/getAvailabilityZones:getAvailabilityZones",
} as const;

/** The AWS account the offline preview answers as: AWS's documentation example account, no one's. */
export const PLACEHOLDER_AWS_ACCOUNT = "123456789012";

/** `floor` moved up by `minor` minor versions and `patch` patches: a version GKE would offer above it. */
function above(floor: string, minor: number, patch: number): string {
    const [major, floorMinor, floorPatch, build] = parseGkeVersion(floor)!;
    return minor > 0 ? `${major}.${floorMinor + minor}.${patch}-gke.${build}` : `${major}.${floorMinor}.${floorPatch + patch}-gke.${build}`;
}

/** Defaults per channel above every floor a cluster of the stack meets (a fleet's the newest), the newest on RAPID. */
function channelDefaults(): Record<string, string> {
    const [floor] = [GKE_VERSION.floor, MULTI_CLUSTER_INFERENCE.minimumGkeVersion].sort((a, b) => compareGkeVersions(b, a));
    const versions: Record<string, string> = {
        STABLE: above(floor, 0, 1),
        REGULAR: above(floor, 0, 2),
        RAPID: above(floor, 1, 1),
    };
    return Object.fromEntries(RELEASE_CHANNELS.map((channel) => [channel, versions[channel]]));
}

/** The name a Compute Engine list filter such as `name = "ct6e-standard-4t"` asks for, if it asks for one. */
function filteredName(filter: unknown): string | undefined {
    return typeof filter === "string" ? /\bname\s*=\s*"?([a-z0-9-]+)"?/.exec(filter)?.[1] : undefined;
}

/**
 * The default answers. `project` is the provider's project for invokes that name none; `awsRegion` the AWS provider's
 * region (aws:region), which AWS's identity functions answer with, shaped as @pulumi/aws's results (GetRegionResult,
 * GetCallerIdentityResult, GetPartitionResult, GetAvailabilityZonesResult).
 */
export function defaultInvokeAnswers(project: string, awsRegion = "us-east-1"): Record<string, InvokeAnswer> {
    const region = (args: Record<string, unknown>) => String(args.region ?? awsRegion);
    return {
        [INVOKE_TOKENS.awsRegion]: (args) => ({
            id: region(args),
            name: region(args),
            region: region(args),
            description: region(args),
            endpoint: `ec2.${region(args)}.amazonaws.com`,
        }),
        [INVOKE_TOKENS.awsCallerIdentity]: () => ({
            id: PLACEHOLDER_AWS_ACCOUNT,
            accountId: PLACEHOLDER_AWS_ACCOUNT,
            arn: `arn:aws:iam::${PLACEHOLDER_AWS_ACCOUNT}:user/offline-preview`,
            userId: "AIDAOFFLINEPREVIEW",
        }),
        [INVOKE_TOKENS.awsPartition]: () => ({
            id: "aws",
            partition: "aws",
            dnsSuffix: "amazonaws.com",
            reverseDnsPrefix: "com.amazonaws",
        }),
        [INVOKE_TOKENS.awsAvailabilityZones]: (args) => ({
            id: region(args),
            region: region(args),
            names: ["a", "b", "c"].map((zone) => `${region(args)}${zone}`),
            zoneIds: ["az1", "az2", "az3"].map((zone) => `${region(args).replace(/-/g, "")}-${zone}`),
            groupNames: [region(args)],
        }),
        [INVOKE_TOKENS.engineVersions]: (args) => {
            const defaults = channelDefaults();
            // versionPrefix keeps only the versions it starts (TPGB data_source_google_container_engine_versions.go:113-135).
            const prefix = typeof args.versionPrefix === "string" ? args.versionPrefix : "";
            const versions = [...new Set(Object.values(defaults))]
                .filter((version) => version.startsWith(prefix))
                .sort((a, b) => compareGkeVersions(b, a));
            if (versions.length === 0) {
                throw new NoOfflineAnswer(
                    `the offline preview knows GKE's versions only as its release channels' defaults (${[...new Set(Object.values(defaults))].join(", ")}), and none starts with versionPrefix ${JSON.stringify(prefix)}`,
                );
            }
            return {
                id: `projects/${args.project ?? project}/locations/${args.location}`,
                project: args.project ?? project,
                location: args.location,
                releaseChannelDefaultVersion: defaults,
                releaseChannelLatestVersion: defaults,
                releaseChannelUpgradeTargetVersion: defaults,
                defaultClusterVersion: defaults.REGULAR,
                latestMasterVersion: versions[0],
                latestNodeVersion: versions[0],
                validMasterVersions: versions,
                validNodeVersions: versions,
            };
        },
        [INVOKE_TOKENS.machineTypes]: (args) => {
            const zone = String(args.zone);
            const wanted = filteredName(args.filter);
            // TPU types where the catalog says; any well-formed CPU type, whose list the offline preview cannot know (a real preview asks GCP).
            const cpu = wanted !== undefined && MACHINE_TYPE.test(wanted) && !wanted.startsWith("ct") ? [wanted] : [];
            const offered = [...(GKE_TPU_V6E_ZONES.includes(zone) ? Object.keys(TPU_V6E_MACHINE_TYPES) : []), ...cpu];
            return {
                id: `projects/${args.project ?? project}/zones/${zone}/machineTypes`,
                project: args.project ?? project,
                zone,
                filter: args.filter,
                machineTypes: offered
                    .filter((name) => wanted === undefined || name === wanted)
                    .map((name) => ({
                        name,
                        deprecateds: [],
                        selfLink: `https://www.googleapis.com/compute/v1/projects/${args.project ?? project}/zones/${zone}/machineTypes/${name}`,
                    })),
            };
        },
        [INVOKE_TOKENS.yamlDecode]: (args) => ({ result: parseObjects(String(args.text ?? "")) }),
        // Nothing is rendered offline; the chart or kustomization is then reported as not rendered.
        [INVOKE_TOKENS.helmTemplate]: () => ({ result: [] }),
        [INVOKE_TOKENS.kustomizeDirectory]: () => ({ result: [] }),
        // A project number is twelve digits; this one is derived from the project ID so that it is stable.
        [INVOKE_TOKENS.project]: (args) => {
            const projectId = String(args.projectId ?? project);
            const number = String((parseInt(createHash("sha256").update(projectId).digest("hex").slice(0, 10), 16) % 9e11) + 1e11);
            return { id: `projects/${projectId}`, projectId, number, name: projectId };
        },
        // A model's own bucket, as a team that keeps weights in Cloud Storage would have it: uniform bucket-level access on.
        [INVOKE_TOKENS.bucket]: (args) => ({
            id: String(args.name),
            name: args.name,
            url: `gs://${args.name}`,
            selfLink: `https://www.googleapis.com/storage/v1/b/${args.name}`,
            uniformBucketLevelAccess: true,
        }),
        [INVOKE_TOKENS.projectService]: (args) => ({
            id: `${args.project ?? project}/${args.service}`,
            project: args.project ?? project,
            service: args.service,
            disableOnDestroy: false,
            disableDependentServices: false,
            checkIfServiceHasUsageOnDestroy: false,
            deletionPolicy: "DELETE",
        }),
    };
}

/** The answer GCP's data source gives for a service the project has not enabled: no id and no service read back. */
export function disabledServiceAnswer(project: string, disabled: readonly string[]): InvokeAnswer {
    const enabled = defaultInvokeAnswers(project)[INVOKE_TOKENS.projectService];
    return (args) => (disabled.includes(String(args.service)) ? { project: args.project ?? project } : enabled(args));
}
