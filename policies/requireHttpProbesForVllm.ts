import { ResourceValidationPolicy } from "@pulumi/policy";
import {
    knownWords,
    LLM_INFERENCE_SERVICE,
    LLM_INFERENCE_SERVICE_CONFIG,
    VLLM_HEALTH_PATH,
    containersOf,
    isKind,
    isVllmContainer,
    PolicyText,
    policyText,
    vllmGuardedPrefix,
    vllmRequiresApiKey,
    vllmServesTls,
} from "./facts";
import { kindOfType } from "./support/resources";

const PROBES = ["startupProbe", "livenessProbe", "readinessProbe"] as const;

/** What the policy reports of probe `probe` of container `path` of `name`. */
export const HTTP_PROBE_MESSAGES = {
    wrongScheme: (name: string, path: string, probe: string, scheme: string) =>
        `${name} ${path} ${probe} uses scheme ${scheme}, but vLLM serves plain HTTP.`,
    guardedPath: (name: string, path: string, probe: string, probePath: string) =>
        `${name} ${path} ${probe} gets ${probePath}, which vLLM refuses with 401 without the API key this container requires, and the kubelet sends no Authorization header: probe ${VLLM_HEALTH_PATH}, which vLLM answers without the key.`,
};

/** True when a probe sends its own Authorization header (httpGet.httpHeaders), so vLLM's key check is not a refusal by default. */
function sendsAuthorization(httpGet: Record<string, unknown>): boolean {
    const headers: unknown = httpGet.httpHeaders;
    return (
        Array.isArray(headers) &&
        headers.some((header: { name?: unknown }) => typeof header?.name === "string" && header.name.toLowerCase() === "authorization")
    );
}

/**
 * Catches a probe over HTTPS to a vLLM that serves plain HTTP, and an httpGet probe under a prefix vLLM's API key
 * guards when the container requires a key (on its command line or in VLLM_API_KEY; a key that could only come from
 * envFrom is not seen, so it is not judged). A KServe container that sets no command runs the command of KServe's
 * template (kserve v0.20.0 config/llmisvcconfig/config-llm-template.yaml: vllm serve with --ssl-certfile when KServe's
 * global EnableTLS is on, the container's args appended), so whether it serves TLS is KServe's setting, which the
 * program does not show: its probes' scheme is not judged.
 */
export const requireHttpProbesForVllm: ResourceValidationPolicy & PolicyText = {
    ...policyText(
        "http-probes",
        "require-http-probes-for-vllm",
        "A vLLM container must be probed the way it answers the kubelet: over HTTP unless it serves TLS, and outside the paths its API key guards, or its pods never become Ready.",
    ),
    enforcementLevel: "mandatory",
    severity: "high",
    validateResource: (args, reportViolation) => {
        const kind = kindOfType(args.type);
        for (const at of containersOf(kind, args.props)) {
            if (!isVllmContainer(at, kind)) {
                continue;
            }
            const templateCommand =
                (isKind(kind, LLM_INFERENCE_SERVICE) || isKind(kind, LLM_INFERENCE_SERVICE_CONFIG)) &&
                knownWords(() => at.container.command).length === 0;
            const plainHttp = !templateCommand && !vllmServesTls(at.container);
            let keyed: boolean | undefined;
            for (const probe of PROBES) {
                const httpGet = at.container[probe]?.httpGet;
                const scheme = httpGet?.scheme;
                // KServe's templates choose the scheme with a Go template at reconcile time.
                if (plainHttp && typeof scheme === "string" && !scheme.includes("{{") && scheme.toUpperCase() !== "HTTP") {
                    reportViolation(HTTP_PROBE_MESSAGES.wrongScheme(args.name, at.path, probe, scheme));
                }
                const path = httpGet?.path;
                if (
                    typeof path !== "string" ||
                    path.includes("{{") ||
                    vllmGuardedPrefix(path) === undefined ||
                    sendsAuthorization(httpGet)
                ) {
                    continue;
                }
                keyed ??= vllmRequiresApiKey(at.container);
                if (keyed) {
                    reportViolation(HTTP_PROBE_MESSAGES.guardedPath(args.name, at.path, probe, path));
                }
            }
        }
    },
};
