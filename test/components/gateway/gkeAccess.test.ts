import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";
import { GkeGatewayAccess, securityPolicyRules } from "../../../components/gateway/gkeAccess";
import { record, testProvider } from "../../harness";
import { TEST_ACCESS, TEST_GCP, testGkeInstall } from "./gatewayArgs";

const DENY_ALL = {
    priority: 2147483647,
    action: "deny(403)",
    description: "Default: deny every other source",
    match: { versionedExpr: "SRC_IPS_V1", config: { srcIpRanges: ["*"] } },
};

const throttle = (priority: number, srcIpRanges: string[], count = 600) => ({
    priority,
    action: "throttle",
    description: "Allowed source ranges, rate-limited per client address",
    match: { versionedExpr: "SRC_IPS_V1", config: { srcIpRanges } },
    rateLimitOptions: {
        conformAction: "allow",
        exceedAction: "deny(429)",
        enforceOnKey: "IP",
        rateLimitThreshold: { count, intervalSec: 60 },
    },
});

describe("GkeGatewayAccess", () => {
    test("no allowed range: the default rule denies everything", () => {
        expect(securityPolicyRules({ allowedSourceRanges: [], rateLimitPerMinute: 600 })).toEqual([DENY_ALL]);
    });

    test("ranges in rules of at most ten, each throttling per client address, before the default deny", () => {
        const ranges = Array.from({ length: 11 }, (_, index) => `198.51.100.${index}/32`);
        expect(securityPolicyRules({ allowedSourceRanges: ranges, rateLimitPerMinute: 120 })).toEqual([
            throttle(1000, ranges.slice(0, 10), 120),
            throttle(1001, ranges.slice(10), 120),
            DENY_ALL,
        ]);
    });

    test("a regional CLOUD_ARMOR policy in the cluster's region after the Compute Engine API; IAP grants for each principal", async () => {
        const graph = await record(() => {
            const api = new gcp.projects.Service("compute-api", { project: "acme-inference", service: "compute.googleapis.com" });
            new GkeGatewayAccess("access", {
                project: "acme-inference",
                region: "europe-west4",
                access: {
                    ...TEST_ACCESS,
                    identity: "iap",
                    iapClientId: "1-a.apps.googleusercontent.com",
                    allowedIdentities: ["user:me@example.com"],
                },
                names: TEST_GCP.names,
                dependsOn: [api],
            });
        });
        const policy = graph.get("gcp:compute/regionSecurityPolicy:RegionSecurityPolicy", "access-policy");
        expect(policy.inputs).toEqual({
            project: "acme-inference",
            region: "europe-west4",
            name: "tpu-inference-test-inference",
            description: "Who may reach the inference Gateway's backends",
            type: "CLOUD_ARMOR",
            rules: [throttle(1000, ["203.0.113.0/24"]), DENY_ALL],
        });
        expect(graph.dependencyNames(policy)).toEqual(["gcp:projects/service:Service compute-api"]);
        expect(graph.get("gcp:iap/webIamMember:WebIamMember", "access-iap-0").inputs).toEqual({
            project: "acme-inference",
            role: "roles/iap.httpsResourceAccessor",
            member: "user:me@example.com",
        });
    });

    test("with IAP each backend policy names the OAuth client, whose secret is a Pulumi secret in a Secret beside it", async () => {
        const graph = await record(() => {
            const provider = testProvider();
            const installed = testGkeInstall(provider, {
                access: { identity: "iap", iapClientId: "1-a.apps.googleusercontent.com", allowedIdentities: ["user:me@example.com"] },
                iapClientSecret: pulumi.secret("s3cret"),
            });
            installed.addServiceObjects(
                "qwen",
                {
                    namespace: "models",
                    inferencePool: { group: "inference.networking.k8s.io", kind: "InferencePool", name: "qwen-inference-pool" },
                    httpServiceName: "qwen-http",
                    eppServiceName: "qwen-epp-service",
                },
                { provider },
            );
        });
        const secret = graph.get("kubernetes:core/v1:Secret", "qwen-iap-client");
        expect(secret.inputs).toEqual({
            apiVersion: "v1",
            kind: "Secret",
            metadata: { name: "qwen-http-iap-client", namespace: "models" },
            type: "Opaque",
            // A Pulumi secret end to end: the preview shows the placeholder only.
            stringData: "[secret]",
        });
        expect(JSON.stringify(secret.inputs)).not.toContain("s3cret");
        const http = graph.get("kubernetes:networking.gke.io/v1:GCPBackendPolicy", "qwen-http-backend");
        expect((http.inputs.spec as { default: unknown }).default).toEqual({
            securityPolicy: "tpu-inference-test-inference",
            iap: { enabled: true, clientID: "1-a.apps.googleusercontent.com", oauth2ClientSecret: { name: "qwen-http-iap-client" } },
        });
    });
});
