import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";
import { CLOUD_ARMOR, GCP_NAME_RULES, IAP } from "@gke-tpu-inference/facts";
import { StackNames } from "../lib/names";
import { GatewayAccessSettings } from "../settings/gateway";

/** Arguments of {@link GkeGatewayAccess}. */
export interface GkeGatewayAccessArgs {
    project: string;
    /** The cluster's region: a regional load balancer takes a regional security policy. */
    region: string;
    /** Who may reach the models, validated by the settings. */
    access: GatewayAccessSettings;
    /** Stack-qualified names for the policy. */
    names: StackNames;
    /** The Compute Engine API enabled. */
    dependsOn: pulumi.Input<pulumi.Resource>[];
}

/** The rules of the inference policy: the allowlist in rules of at most ten ranges, each throttling per client address, then deny. */
export function securityPolicyRules(access: Pick<GatewayAccessSettings, "allowedSourceRanges" | "rateLimitPerMinute">) {
    const chunks: string[][] = [];
    for (let start = 0; start < access.allowedSourceRanges.length; start += CLOUD_ARMOR.maxSrcIpRangesPerRule) {
        chunks.push(access.allowedSourceRanges.slice(start, start + CLOUD_ARMOR.maxSrcIpRangesPerRule));
    }
    return [
        // `throttle` lets a request under the rate through (conformAction allow) and refuses the rest: allowlist and rate limit in one.
        ...chunks.map((srcIpRanges, index) => ({
            priority: CLOUD_ARMOR.firstAllowRulePriority + index,
            action: "throttle",
            description: "Allowed source ranges, rate-limited per client address",
            match: { versionedExpr: "SRC_IPS_V1", config: { srcIpRanges } },
            rateLimitOptions: {
                conformAction: "allow",
                exceedAction: CLOUD_ARMOR.exceedAction,
                enforceOnKey: "IP",
                rateLimitThreshold: { count: access.rateLimitPerMinute, intervalSec: 60 },
            },
        })),
        {
            priority: CLOUD_ARMOR.defaultRulePriority,
            action: CLOUD_ARMOR.denyAction,
            description: "Default: deny every other source",
            match: { versionedExpr: "SRC_IPS_V1", config: { srcIpRanges: ["*"] } },
        },
    ];
}

/**
 * Access control on GKE's regional Application Load Balancer: a regional Cloud Armor policy (the allowed source ranges,
 * throttled per client address, and a default deny) that every backend's GCPBackendPolicy names, and, with IAP, the
 * principals that may pass it. Sources: `SOURCES.cloudArmorRegional` and `SOURCES.iap` in the catalog.
 */
export class GkeGatewayAccess extends pulumi.ComponentResource {
    /** The policy's name, for `GCPBackendPolicy.spec.default.securityPolicy`. */
    public readonly securityPolicyName: pulumi.Output<string>;

    constructor(name: string, args: GkeGatewayAccessArgs, opts?: pulumi.ComponentResourceOptions) {
        super("gke-tpu-inference:gateway:GkeGatewayAccess", name, {}, opts);
        const policy = new gcp.compute.RegionSecurityPolicy(
            `${name}-policy`,
            {
                project: args.project,
                region: args.region,
                name: args.names.name("inference", GCP_NAME_RULES.compute),
                description: "Who may reach the inference Gateway's backends",
                type: "CLOUD_ARMOR",
                rules: securityPolicyRules(args.access),
            },
            { parent: this, dependsOn: args.dependsOn },
        );
        // GKE names a Gateway's backend services itself, so the grant is the project's.
        for (const [index, member] of args.access.identity === "iap" ? args.access.allowedIdentities.entries() : []) {
            new gcp.iap.WebIamMember(
                `${name}-iap-${index}`,
                { project: args.project, role: IAP.accessorRole, member },
                { parent: this, dependsOn: args.dependsOn },
            );
        }
        this.securityPolicyName = policy.name;
        this.registerOutputs({ securityPolicyName: this.securityPolicyName });
    }
}
