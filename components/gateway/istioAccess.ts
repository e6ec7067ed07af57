import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { GOOGLE_ID_TOKEN } from "@gke-tpu-inference/facts";
import { GatewayAccessSettings } from "../settings/gateway";
import { GATEWAY_HTTP_FILTERS_MATCH, gatewayTargetRef } from "./targets";

/** The Gateway, as Istio's policies target it. */
export interface IstioGatewayRef {
    namespace: pulumi.Input<string>;
    name: string;
}

/** Arguments of {@link IstioGatewayAccess}. */
export interface IstioGatewayAccessArgs {
    /** Provider of the target cluster. */
    provider: k8s.Provider;
    gateway: IstioGatewayRef;
    /** Who may reach the models, validated by the settings. */
    access: GatewayAccessSettings;
    /** The audience a caller's Google ID token names (`google-id-token`): the Gateway's HTTPS URL. */
    audience: pulumi.Input<string>;
    /** Istio's CRDs, which the policies need. */
    crds: pulumi.Input<pulumi.Resource>;
}

/** Per-client buckets on one Gateway replica: at most this many client addresses are tracked at once (least recently used go first). */
const MAX_TRACKED_CLIENTS = 10000;

/** The name of the ConfigMap whose `service` overlay Istio merges into the Gateway's Service. */
export function serviceOverlayName(gateway: string): string {
    return `${gateway}-service`;
}

/**
 * The Gateway's Service overlay: the client's own address kept (`externalTrafficPolicy: Local`), so that the
 * AuthorizationPolicy's `ipBlocks` see it, and the load balancer's firewall opened to the allowed ranges only. With no
 * range, no firewall range is set (Kubernetes reads an empty list as "any"); the AuthorizationPolicy then refuses all.
 */
export function serviceOverlay(ranges: readonly string[]): string {
    const lines = ["spec:", "  externalTrafficPolicy: Local"];
    if (ranges.length > 0) {
        lines.push("  loadBalancerSourceRanges:", ...ranges.map((range) => `  - ${range}`));
    }
    return `${lines.join("\n")}\n`;
}

/** The AuthorizationPolicy's spec: ALLOW from the ranges (and, with `google-id-token`, for the listed Google principals); nothing else passes. */
export function authorizationSpec(
    gateway: string,
    access: Pick<GatewayAccessSettings, "allowedSourceRanges" | "identity" | "allowedIdentities">,
) {
    const targetRefs = [gatewayTargetRef(gateway)];
    if (access.allowedSourceRanges.length === 0) {
        // An ALLOW policy that matches nothing: every request is refused.
        return { targetRefs, action: "ALLOW" };
    }
    const byToken = access.identity === "google-id-token";
    const source = {
        ipBlocks: [...access.allowedSourceRanges],
        ...(byToken ? { requestPrincipals: [`${GOOGLE_ID_TOKEN.issuer}/*`] } : {}),
    };
    const emails = access.allowedIdentities.map((principal) => principal.slice(principal.indexOf(":") + 1));
    return {
        targetRefs,
        action: "ALLOW",
        rules: [{ from: [{ source }], ...(byToken ? { when: [{ key: "request.auth.claims[email]", values: emails }] } : {}) }],
    };
}

/** The rate limit's EnvoyFilter priority: above every other INSERT_FIRST filter the stack writes (the router's is 0). */
export const RATE_LIMIT_FILTER_PRIORITY = 10;

/** The local rate limit: one token bucket per client address on each Gateway replica, ahead of every other HTTP filter. */
export function rateLimitSpec(gateway: string, perMinute: number) {
    const bucket = { max_tokens: perMinute, tokens_per_fill: perMinute, fill_interval: "60s" };
    const always = { default_value: { numerator: 100, denominator: "HUNDRED" } };
    return {
        targetRefs: [gatewayTargetRef(gateway)],
        // Before the body-based router's and the EPP's ext_proc filters, so that a refused request costs them nothing: Istio
        // applies EnvoyFilters in ascending priority and each INSERT_FIRST goes to the front, so the last applied runs
        // first; the router's filter has the default priority 0 (SOURCES.istioEnvoyFilterOrder in the catalog).
        priority: RATE_LIMIT_FILTER_PRIORITY,
        configPatches: [
            {
                applyTo: "HTTP_FILTER",
                match: GATEWAY_HTTP_FILTERS_MATCH,
                patch: {
                    operation: "INSERT_FIRST",
                    value: {
                        name: "envoy.filters.http.local_ratelimit",
                        typed_config: {
                            "@type": "type.googleapis.com/envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit",
                            stat_prefix: "inference_client_rate_limit",
                            token_bucket: bucket,
                            filter_enabled: { runtime_key: "inference_client_rate_limit_enabled", ...always },
                            filter_enforced: { runtime_key: "inference_client_rate_limit_enforced", ...always },
                            rate_limits: [{ actions: [{ remote_address: {} }] }],
                            // A wildcard entry (a key, no value): one bucket per client address.
                            descriptors: [{ entries: [{ key: "remote_address" }], token_bucket: bucket }],
                            max_dynamic_descriptors: MAX_TRACKED_CLIENTS,
                            always_consume_default_token_bucket: false,
                        },
                    },
                },
            },
        ],
    };
}

/**
 * Access control at Istio's Gateway: its load balancer's firewall opened to the allowed ranges with the client address
 * kept (a Service overlay the Gateway's `parametersRef` names), an AuthorizationPolicy that allows those ranges only (and,
 * with `google-id-token`, only the listed Google principals, whose ID token a RequestAuthentication checks), and a local
 * rate limit per client address. Sources: `SOURCES.istioAuthorization`, `SOURCES.istioServiceOverlay` and
 * `SOURCES.istioLocalRateLimit` in the catalog.
 */
export class IstioGatewayAccess extends pulumi.ComponentResource {
    constructor(name: string, args: IstioGatewayAccessArgs, opts?: pulumi.ComponentResourceOptions) {
        super("gke-tpu-inference:gateway:IstioGatewayAccess", name, {}, opts);
        const { gateway, access } = args;
        const childOpts = { parent: this, provider: args.provider };
        const afterCrds = { ...childOpts, dependsOn: [args.crds] };
        const metadata = (suffix: string) => ({ name: `${gateway.name}-${suffix}`, namespace: gateway.namespace });

        new k8s.core.v1.ConfigMap(
            `${name}-service`,
            {
                metadata: { name: serviceOverlayName(gateway.name), namespace: gateway.namespace },
                data: { service: serviceOverlay(access.allowedSourceRanges) },
            },
            childOpts,
        );
        if (access.identity === "google-id-token") {
            new k8s.apiextensions.CustomResource(
                `${name}-jwt`,
                {
                    apiVersion: "security.istio.io/v1",
                    kind: "RequestAuthentication",
                    metadata: metadata("google-id-token"),
                    spec: {
                        targetRefs: [gatewayTargetRef(gateway.name)],
                        jwtRules: [
                            {
                                issuer: GOOGLE_ID_TOKEN.issuer,
                                jwksUri: GOOGLE_ID_TOKEN.jwksUri,
                                audiences: [args.audience],
                                // Authorization stays vLLM's key.
                                fromHeaders: [{ name: GOOGLE_ID_TOKEN.header, prefix: GOOGLE_ID_TOKEN.prefix }],
                            },
                        ],
                    },
                },
                afterCrds,
            );
        }
        new k8s.apiextensions.CustomResource(
            `${name}-allow`,
            {
                apiVersion: "security.istio.io/v1",
                kind: "AuthorizationPolicy",
                metadata: metadata("allowed-sources"),
                spec: authorizationSpec(gateway.name, access),
            },
            afterCrds,
        );
        new k8s.apiextensions.CustomResource(
            `${name}-rate-limit`,
            {
                apiVersion: "networking.istio.io/v1alpha3",
                kind: "EnvoyFilter",
                metadata: metadata("client-rate-limit"),
                spec: rateLimitSpec(gateway.name, access.rateLimitPerMinute),
            },
            afterCrds,
        );
        this.registerOutputs({});
    }
}
