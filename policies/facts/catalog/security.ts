/**
 * Who may reach the Gateway: Cloud Armor on GKE's load balancer, Identity-Aware Proxy, Google ID tokens under Istio,
 * vLLM's own key, Model Armor, the HTTPS listeners and which GatewayClasses are internal.
 */

/**
 * Cloud Armor on GKE's regional Application Load Balancer: what one regional policy's rules allow, and where the stack's
 * rules sit. Source: {@link SOURCES.cloudArmorRegional}.
 */
export const CLOUD_ARMOR = {
    /** A rule's `match.config.srcIpRanges` holds at most this many ranges; longer allowlists take several rules. */
    maxSrcIpRangesPerRule: 10,
    /** The default rule's priority, the lowest there is; it matches every request (`srcIpRanges: ["*"]`). */
    defaultRulePriority: 2147483647,
    /** The stack's first allowlist rule; the next ones follow one apart. */
    firstAllowRulePriority: 1000,
    /** What the default rule does to a request from outside the allowlist. */
    denyAction: "deny(403)",
    /** What a client over its rate gets. */
    exceedAction: "deny(429)",
} as const;

/**
 * How GKE's Gateway asks Identity-Aware Proxy to check a backend's callers: the role that lets a principal through and the
 * key of the OAuth client secret GCPBackendPolicy reads. Sources: {@link SOURCES.iap}, {@link SOURCES.gcpBackendPolicySecurity}.
 */
export const IAP = {
    accessorRole: "roles/iap.httpsResourceAccessor",
    /** GCPBackendPolicy's `iap.oauth2ClientSecret` names a Secret in its namespace; GKE reads the client secret from this key. */
    clientSecretKey: "key",
    /** The header that carries IAP's token when `Authorization` carries the model server's key. */
    tokenHeader: "Proxy-Authorization",
    /**
     * Where IAP sends a caller without credentials whose client follows redirects (a GET that accepts HTML): a 302 to
     * Google's sign-in; an API call, a POST among them, gets 401. Source: {@link SOURCES.iapUnauthenticated}.
     */
    signIn: { status: 302, location: "https://accounts.google.com/" },
} as const;

/** Google identities, as Istio's RequestAuthentication checks their ID tokens. Source: {@link SOURCES.googleIdToken}. */
export const GOOGLE_ID_TOKEN = {
    issuer: "https://accounts.google.com",
    jwksUri: "https://www.googleapis.com/oauth2/v3/certs",
    /** The header the token comes in, so that `Authorization` stays the model server's key. */
    header: "Proxy-Authorization",
    prefix: "Bearer ",
} as const;

/**
 * vLLM's own key check: the environment variable it reads, and the only path prefixes it guards. It compares the path
 * vLLM routes (percent-decoded once, not normalised) with `startsWith`, skips OPTIONS, and answers 401 `{"error":
 * "Unauthorized"}`; every other path answers without the key. Source: {@link SOURCES.vllmApiKey}.
 */
export const VLLM_API_KEY = {
    env: "VLLM_API_KEY",
    guardedPrefixes: ["/v1", "/v2", "/inference", "/cohere"],
} as const;

/**
 * The prefixes of vLLM's API the Gateway routes to a model server, besides its health check: `/v1`, the OpenAI-compatible
 * API, every path of which the key guards. Each routed prefix costs the route template two of Gateway API's 16 rules (a
 * URLRewrite rule takes one match, and a service has two prefixes); vLLM's other guarded prefixes serve nothing `/v1`
 * lacks for this stack (`/v2/rerank` is also `/v1/rerank`; `/inference/v1/generate` takes token IDs, not a prompt) and
 * stay unrouted.
 */
export const ROUTED_VLLM_PREFIXES: readonly string[] = ["/v1"];

/**
 * Model Armor behind GKE's Gateway: the regions that serve it, its API, the service agent that calls it for the load
 * balancer and the roles Google's guide grants that agent, and the extension's fixed fields. Source: {@link SOURCES.modelArmor}.
 */
export const MODEL_ARMOR = {
    regions: [
        "asia-southeast1",
        "asia-south1",
        "us-central1",
        "us-east1",
        "us-east4",
        "us-west1",
        "europe-west1",
        "europe-west2",
        "europe-west3",
        "europe-west4",
    ],
    api: "modelarmor.googleapis.com",
    /** The regional endpoint a GCPTrafficExtension calls. */
    serviceName: (region: string) => `modelarmor.${region}.rep.googleapis.com`,
    /** The Service Extensions service agent, which calls Model Armor for the load balancer. */
    serviceAgent: (projectNumber: string) => `serviceAccount:service-${projectNumber}@gcp-sa-dep.iam.gserviceaccount.com`,
    serviceAgentRoles: [
        "roles/container.admin",
        "roles/modelarmor.calloutUser",
        "roles/serviceusage.serviceUsageConsumer",
        "roles/modelarmor.user",
    ],
    supportedEvents: ["RequestHeaders", "RequestBody", "ResponseHeaders", "ResponseBody", "RequestTrailers", "ResponseTrailers"],
    /**
     * How long the load balancer waits for Model Armor on each message of the stream. The extension fails closed, so a
     * slower answer fails the request (a 500, or a reset stream once the response has begun): the longest wait
     * GCPTrafficExtension takes (10 ms to 10 s, 1 s by default), as Google's ai-on-gke Model Armor example sets it; a
     * completion already takes seconds. Source: {@link SOURCES.modelArmorTimeout}.
     */
    timeout: "10s",
} as const satisfies Record<string, unknown>;

/** The Gateway's listeners once it serves HTTPS: plain HTTP only redirects. Source: {@link SOURCES.gatewayTls}. */
export const GATEWAY_LISTENERS = {
    http: { name: "http", port: 80 },
    https: { name: "https", port: 443 },
    redirectStatusCode: 301,
} as const;

/**
 * GKE's internal GatewayClasses: their load balancer has a VPC address only. Every other class is external. Source:
 * {@link SOURCES.gkeGatewayClasses}.
 */
export const INTERNAL_GATEWAY_CLASSES: readonly string[] = ["gke-l7-rilb", "gke-l7-rilb-mc", "gke-l7-cross-regional-internal-managed-mc"];
