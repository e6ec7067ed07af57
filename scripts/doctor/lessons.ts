/**
 * The field reports' lessons, as `npm run doctor` names them: where each was learned (seed and issue), what it
 * taught in one line, and the fix in this stack's terms. A check that fails names one of these, or none when
 * the failure is not one the field reports met.
 */
import {
    GATEWAY_CLASSES,
    GKE_VERSION,
    IMAGES,
    KSERVE,
    MINIMUM_INFERENCE_BACKEND_TIMEOUT_SECONDS,
    MINIMUM_TPU_STARTUP_SECONDS,
    TPU_NODE,
    VLLM_PORT,
} from "@gke-tpu-inference/facts";

/** One lesson. */
export interface Lesson {
    /** Where it was learned: the seed file's number and the issue in it. */
    source: string;
    /** What it taught, in one line. */
    title: string;
    /** What to do, in this stack's terms. */
    fix: string;
}

export const LESSONS = {
    gatewayApiDisabled: {
        source: "seed 003 #3",
        title: "GKE's Gateway API controller is off by default: no GatewayClass, the Gateway stays Unknown",
        fix: "`pulumi up` turns it on (cluster gatewayApiConfig CHANNEL_STANDARD); on a cluster made elsewhere: gcloud container clusters update CLUSTER --gateway-api=standard, then wait for the GatewayClasses (up to 45 minutes)",
    },
    globalGatewayClass: {
        source: "seed 003 #1",
        title: "only regional GatewayClasses serve InferencePool backends; a global one gets an address and never a healthy backend",
        fix: `set gatewayClass to ${GATEWAY_CLASSES.regional.join(" or ")} and run \`pulumi up\``,
    },
    routeTimeouts: {
        source: "seed 003 #4",
        title: 'GKE refuses HTTPRoute timeouts ("Error GWCER104: HTTPRoute is misconfigured, err: Timeouts are not supported.")',
        fix: `the serving namespace's ${KSERVE.routerRouteConfigName} (this stack's, without timeouts) must be the one KServe reads; \`pulumi up\` restores it; remove timeouts from any baseRef or service route`,
    },
    inferencePoolGroup: {
        source: "seed 003 #4 (KServe's InferencePool group migration)",
        title: "KServe's first route names the alpha InferencePool group; it moves to inference.networking.k8s.io once the Gateway rejects the old group",
        fix: `give KServe a minute to move the route; if it stays, check that GKE installed the v1 InferencePool CRD (GKE ${GKE_VERSION.floor} or later)`,
    },
    healthChecks: {
        source: "seed 003 #5, #13",
        title: "without a HealthCheckPolicy GKE probes / (and HTTPS where the Service says so): every backend UNHEALTHY while the pods are Ready",
        fix: `a HealthCheckPolicy per backend: type HTTP, requestPath /health, port ${VLLM_PORT} (this stack creates them; \`pulumi up\` restores them)`,
    },
    backendTimeout: {
        source: "GCP's 30 s default backend timeout",
        title: "long generations are cut at 30 s without a GCPBackendPolicy timeout",
        fix: `a GCPBackendPolicy on the InferencePool with timeoutSec of at least ${MINIMUM_INFERENCE_BACKEND_TIMEOUT_SECONDS} (this stack's is longer; \`pulumi up\` restores it)`,
    },
    httpsAppProtocol: {
        source: "seeds 001, 003 #6/#15",
        title: "a Service saying appProtocol https makes GKE speak TLS to vLLM, which serves HTTP: WRONG_VERSION_NUMBER",
        fix: "leave KServe's EnableTLS off and route /health and /v1/models to this stack's plain-HTTP -http Service (`pulumi up`)",
    },
    lwsMissing: {
        source: "seed 003 #7",
        title: 'KServe needs LeaderWorkerSet installed first ("no matches for kind LeaderWorkerSet")',
        fix: "install LeaderWorkerSet before KServe and the model services (this stack's platform layer does; `pulumi up`)",
    },
    platformControllers: {
        source: "seed 003 #7",
        title: "KServe, LeaderWorkerSet and cert-manager must be installed and running before any model service",
        fix: "`pulumi up` installs a missing chart; a failing controller's Deployment conditions and pod logs say why",
    },
    rsaCa: {
        source: "seed 003, Pattern 1 summary",
        title: "KServe expects an RSA CA; an ECDSA CA had to be recreated as RSA 2048",
        fix: "recreate the CA Certificate with privateKey.algorithm RSA, size 2048 (this stack's CA is; `pulumi up` restores it)",
    },
    tpuSelector: {
        source: "seed 003 #2",
        title: "TPU pods schedule only where the selector names GKE's own TPU labels (tpu-v6e-slice, the slice topology) in a zone with GKE TPU v6e pools",
        fix: `select ${TPU_NODE.acceleratorLabel} and ${TPU_NODE.topologyLabel} as the TPU pool's nodes carry them (this stack derives them from the pool; \`pulumi up\`)`,
    },
    capacity: {
        source: "seed 003 #2",
        title: "GKE may have no TPU v6e capacity in the zone (GCE_STOCKOUT, ZONE_RESOURCE_POOL_EXHAUSTED)",
        fix: "wait and retry, or set tpuProvisioning to a reservation (tpuReservation) or spot, or move to another supported zone",
    },
    vllmFlag: {
        source: "seed 003 #12",
        title: 'vLLM exits on a flag it does not know ("api_server.py: error: unrecognized arguments: --prefix-cache-block-size=16")',
        fix: "remove the flag from the model's extraArgs (the pack's disallow-gpu-only-vllm-flags names the known ones)",
    },
    startupBudget: {
        source: "seed 003 #8",
        title: "a TPU pod needs 4–6 minutes (download, TPU start, XLA compilation) before vLLM answers; a shorter startup budget restarts it forever",
        fix: `let the startup probe allow at least ${MINIMUM_TPU_STARTUP_SECONDS} s (this stack's builder does; the pack's enforce-tpu-startup-budget checks it)`,
    },
    eppAlpn: {
        source: "seed 000",
        title: "an EPP serving TLS without ALPN h2 cannot be reached by Envoy's ext_proc: routing silently stops",
        fix: `use the pinned endpoint picker image (${IMAGES.endpointPicker}) or another at or above the ALPN fix`,
    },
    prefixCacheZero: {
        source: "seed 000",
        title: "prefix-cache hits stuck at zero while prompts arrive: requests are not reaching the replica that holds their prefix",
        fix: "check the EPP's check above (ALPN, Ready) and that the service runs Pattern 3's prefix-cache scorer",
    },
} as const satisfies Record<string, Lesson>;

export type LessonId = keyof typeof LESSONS;
