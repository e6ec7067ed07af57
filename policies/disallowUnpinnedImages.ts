import { ResourceValidationPolicy } from "@pulumi/policy";
import { KubeProps, containersOf, imageTag, isMovingTag, isPinnedImage, PolicyText, policyText, readKnown } from "./facts";
import { isHelmChart, isKubernetesKind, kindOfType } from "./support/resources";

/** What the policy reports of `name`'s image at `path`. */
export const PINNED_IMAGE_MESSAGES = {
    unpinned: (name: string, path: string, image: string) =>
        `${name} ${path} runs image ${image}, which is not pinned to a version tag or digest.`,
    pulledAlways: (name: string, path: string, image: string) =>
        `${name} ${path} runs image ${image} with imagePullPolicy Always: every start takes whatever the moving tag points at then; pin a version tag or digest.`,
    runtimeVersion: (name: string, path: string, version: string) =>
        `${name} ${path} sets runtimeVersion ${JSON.stringify(version)}, which KServe makes the tag of its serving runtime's image: it is not pinned to a version.`,
    modelcar: (name: string, path: string, uri: string) =>
        `${name} ${path} pulls model ${uri} as an image (KServe's modelcar), which is not pinned to a version tag or digest.`,
    chartValues: (name: string, path: string, image: string) =>
        `${name} ${path} sets image ${image} in its chart's values, which is not pinned to a version tag or digest.`,
    kserveConfig: (name: string, path: string, image: string) =>
        `${name} ${path} makes KServe run image ${image} in every model pod it injects it into, which is not pinned to a version tag or digest.`,
};

/**
 * KServe's facts: an `oci://` model URI is pulled as an image, the URI without its scheme (kserve v0.20.0
 * pkg/utils/storage.go:600, the modelcar container; pkg/constants/constants.go:204 OciURIPrefix); the controller reads
 * the images it injects (storage initializer, agent, router, …) from the `image` of each JSON value of its ConfigMap
 * `inferenceservice-config` (pkg/constants/constants.go:63; pkg/types/config.go:27; an explainer's image takes
 * `defaultImageVersion` as its tag, pkg/apis/serving/v1beta1/configmap.go:72-77).
 */
const KSERVE_GROUP = "serving.kserve.io";
const KSERVE_CONFIG_MAP = "inferenceservice-config";
const OCI_PREFIX = "oci://";
const MODEL_URI_KEYS = ["uri", "storageUri"];

/** Every `oci://` model URI inside a KServe object, with where it sits. */
function ociModelUris(value: unknown, path: string): Array<{ path: string; uri: string }> {
    if (value === null || typeof value !== "object") {
        return [];
    }
    if (Array.isArray(value)) {
        return value.flatMap((item, index) => ociModelUris(item, `${path}[${index}]`));
    }
    return Object.entries(value as KubeProps).flatMap(([key, child]) =>
        MODEL_URI_KEYS.includes(key) && typeof child === "string" && child.startsWith(OCI_PREFIX)
            ? [{ path: `${path}.${key}`, uri: child }]
            : ociModelUris(child, `${path}.${key}`),
    );
}

/** Every image KServe's ConfigMap names (`data.<key>.image`, with an explainer's `defaultImageVersion` as its tag). */
function kserveConfigImages(data: KubeProps | undefined): Array<{ path: string; image: string }> {
    const found: Array<{ path: string; image: string }> = [];
    const visit = (value: unknown, path: string) => {
        if (value === null || typeof value !== "object") {
            return;
        }
        const record = value as KubeProps;
        if (typeof record.image === "string") {
            const versioned =
                imageTag(record.image) === undefined && typeof record.defaultImageVersion === "string"
                    ? `${record.image}:${record.defaultImageVersion}`
                    : record.image;
            found.push({ path: `${path}.image`, image: versioned });
        }
        for (const [key, child] of Object.entries(record)) {
            visit(child, `${path}.${key}`);
        }
    };
    for (const [key, text] of Object.entries(data ?? {})) {
        try {
            visit(typeof text === "string" ? JSON.parse(text) : undefined, `data.${key}`);
        } catch {
            // A value that is not JSON names no image KServe reads.
        }
    }
    return found;
}

/**
 * The images a chart's values name with a tag of their own: `{repository, tag}` (the charts' common shape, which their
 * templates join as `repository:tag`) and strings that carry a tag (`ollama/ollama:rocm`). An image without a tag in the
 * values takes the chart's default, which its pinned version fixes; that is left to the chart.
 */
function chartValueImages(
    values: unknown,
    path: string,
    depth = 0,
    underImage = false,
): Array<{ path: string; image: string; tag?: string }> {
    if (depth > 12 || values === null || typeof values !== "object") {
        return [];
    }
    // Values a preview does not know yet (a cluster's endpoint, another resource's name) are read around.
    const known = (read: () => unknown) => readKnown(read).value;
    if (Array.isArray(values)) {
        return Array.from({ length: values.length }, (_, index) =>
            chartValueImages(
                known(() => values[index]),
                `${path}[${index}]`,
                depth + 1,
                underImage,
            ),
        ).flat();
    }
    const record = Object.fromEntries(Object.keys(values).map((key) => [key, known(() => (values as KubeProps)[key])])) as KubeProps;
    // An empty tag is the chart's default (its appVersion, which its pinned version fixes); a tag without a repository
    // under an image key sets the chart's own image's tag.
    const tagged = (typeof record.tag === "string" && record.tag !== "") || typeof record.tag === "number";
    // Charts name the repository `repository`, or, under an image key, `name` (JupyterHub's singleuser.image).
    const repository: unknown = record.repository ?? (underImage ? record.name : undefined);
    const own =
        tagged && typeof repository === "string"
            ? [{ path: `${path}.tag`, image: `${repository}:${record.tag}` }]
            : tagged && underImage && repository === undefined
              ? [{ path: `${path}.tag`, image: `the chart's own image at tag ${record.tag}`, tag: String(record.tag) }]
              : [];
    return [
        ...own,
        ...Object.entries(record).flatMap(([key, child]) => {
            // A string under a key that says image (`image`, `sidecarImage`, `images.<name>`).
            const image = underImage || /image/i.test(key);
            return typeof child === "string" && image && IMAGE_WITH_TAG.test(child)
                ? [{ path: `${path}.${key}`, image: child }]
                : chartValueImages(child, `${path}.${key}`, depth + 1, image);
        }),
    ];
}

/** A string that names an image with a tag: `name:tag`, the tag after the last path segment. */
const IMAGE_WITH_TAG = /^[\w.-]+(?::\d+)?(?:\/[\w.-]+)*:[\w][\w.-]*$/;

/** True when `image` floats: no tag, a moving tag, no well-formed digest. Go templates (a chart's values) are left to the chart. */
const floats = (image: unknown): image is string => typeof image === "string" && !image.includes("{{") && !isPinnedImage(image);

/**
 * Judges an image wherever a program names one: every container of every workload, custom resources' pod templates and
 * containers, KServe's `oci://` model URIs (modelcars) and the images its ConfigMap makes it inject.
 */
export const disallowUnpinnedImages: ResourceValidationPolicy & PolicyText = {
    ...policyText(
        "pinned-images",
        "disallow-unpinned-images",
        "Every container image must be pinned to a version tag or a digest, never a moving tag (`latest`, a branch) or no tag.",
    ),
    enforcementLevel: "mandatory",
    severity: "high",
    validateResource: (args, reportViolation) => {
        const kind = kindOfType(args.type);
        for (const { path, container } of containersOf(kind, args.props)) {
            if (floats(container.image)) {
                const tag = imageTag(container.image);
                const always = container.imagePullPolicy === "Always" && tag !== undefined && isMovingTag(tag);
                reportViolation(
                    (always ? PINNED_IMAGE_MESSAGES.pulledAlways : PINNED_IMAGE_MESSAGES.unpinned)(args.name, path, container.image),
                );
            }
            // A predictor's model spec (facts/judgements/workloads.ts isPredictorExtension) without an image of its own.
            const version: unknown = container.runtimeVersion;
            if (container.image === undefined && typeof version === "string" && isMovingTag(version)) {
                reportViolation(PINNED_IMAGE_MESSAGES.runtimeVersion(args.name, path, version));
            }
        }
        if (kind.group === KSERVE_GROUP) {
            for (const { path, uri } of ociModelUris(args.props.spec, "spec")) {
                if (floats(uri.slice(OCI_PREFIX.length))) {
                    reportViolation(PINNED_IMAGE_MESSAGES.modelcar(args.name, path, uri));
                }
            }
        }
        if (isHelmChart(args.type)) {
            for (const { path, image, tag } of chartValueImages(readKnown(() => args.props.values).value, "values")) {
                if (tag !== undefined ? isMovingTag(tag) : floats(image)) {
                    reportViolation(PINNED_IMAGE_MESSAGES.chartValues(args.name, path, image));
                }
            }
        }
        const configMap = isKubernetesKind(args.type, "", "ConfigMap") || isKubernetesKind(args.type, "", "ConfigMapPatch");
        if (configMap && readKnown(() => args.props.metadata?.name).value === KSERVE_CONFIG_MAP) {
            for (const { path, image } of kserveConfigImages(args.props.data)) {
                if (floats(image)) {
                    reportViolation(PINNED_IMAGE_MESSAGES.kserveConfig(args.name, path, image));
                }
            }
        }
    },
};
