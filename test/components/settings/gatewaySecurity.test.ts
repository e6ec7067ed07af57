import { parse, problemsOf } from "./parse";

const IAP = {
    gatewayIdentity: "iap",
    iapClientId: "123456789012-abc123.apps.googleusercontent.com",
    iapClientSecret: "s3cret",
    allowedIdentities: '["user:me@example.com"]',
};

describe("the Gateway's security settings: one message each, naming the key, the value and what is allowed", () => {
    test.each<[string, Record<string, string>, string]>([
        [
            "a range that is not a CIDR",
            { allowedSourceRanges: '["my-office"]' },
            'gke-tpu-inference:allowedSourceRanges[0] = "my-office" is not an IPv4 CIDR block like 10.0.0.0/20; allowed: an IPv4 CIDR block like 203.0.113.0/24',
        ],
        [
            "a range with host bits",
            { allowedSourceRanges: '["203.0.113.7/24"]' },
            'gke-tpu-inference:allowedSourceRanges[0] = "203.0.113.7/24" has host bits set; the network address is 203.0.113.0/24; allowed: an IPv4 CIDR block like 203.0.113.0/24',
        ],
        [
            "a prefix longer than 32",
            { allowedSourceRanges: '["10.0.0.0/33"]' },
            'gke-tpu-inference:allowedSourceRanges[0] = "10.0.0.0/33" is not an IPv4 CIDR block like 10.0.0.0/20; allowed: an IPv4 CIDR block like 203.0.113.0/24',
        ],
        [
            "an address with host bits under a short prefix (refused, not widened: 10.0.0.1/8 would let in all of 10.0.0.0/8)",
            { allowedSourceRanges: '["10.0.0.1/8"]' },
            'gke-tpu-inference:allowedSourceRanges[0] = "10.0.0.1/8" has host bits set; the network address is 10.0.0.0/8; allowed: an IPv4 CIDR block like 203.0.113.0/24',
        ],
        [
            "an IPv6 range (the Gateway's reserved address and Istio's load balancer are IPv4)",
            { allowedSourceRanges: '["2001:db8::/32"]' },
            'gke-tpu-inference:allowedSourceRanges[0] = "2001:db8::/32" is not an IPv4 CIDR block like 10.0.0.0/20; allowed: an IPv4 CIDR block like 203.0.113.0/24',
        ],
        [
            "a hostname that is not a DNS name",
            { gatewayHostname: "llm_server.example.com" },
            'gke-tpu-inference:gatewayHostname = "llm_server.example.com" is not a DNS name; allowed: a lowercase DNS name like llm.example.com (no wildcard, no IP address)',
        ],
        [
            "a hostname with a scheme",
            { gatewayHostname: "https://llm.example.com" },
            'gke-tpu-inference:gatewayHostname = "https://llm.example.com" is not a DNS name; allowed: a lowercase DNS name like llm.example.com (no wildcard, no IP address)',
        ],
        [
            "ranges that are not a list",
            { allowedSourceRanges: "203.0.113.0/24" },
            'gke-tpu-inference:allowedSourceRanges = "203.0.113.0/24" is not a list of CIDR strings; allowed: e.g. ["203.0.113.0/24"]',
        ],
        [
            "a rate of zero",
            { gatewayRateLimit: "0" },
            'gke-tpu-inference:gatewayRateLimit = "0" is not a whole number from 1 to 1000000; allowed: 1 to 1000000 (requests per client address per minute)',
        ],
        [
            "a hostname with a wildcard",
            { gatewayHostname: "*.example.com" },
            'gke-tpu-inference:gatewayHostname = "*.example.com" is not a DNS name; allowed: a lowercase DNS name like llm.example.com (no wildcard, no IP address)',
        ],
        [
            "an IP address as the hostname",
            { gatewayHostname: "203.0.113.7" },
            'gke-tpu-inference:gatewayHostname = "203.0.113.7" is not a DNS name; allowed: a lowercase DNS name like llm.example.com (no wildcard, no IP address)',
        ],
        [
            "an issuer without a hostname",
            { gatewayCertificateIssuer: "letsencrypt" },
            'gke-tpu-inference:gatewayCertificateIssuer = "letsencrypt" has no name to sign: gke-tpu-inference:gatewayHostname is empty, and an issuer of your own (ACME, say) signs DNS names; allowed: a gatewayHostname like llm.example.com (or no gatewayCertificateIssuer: the stack\'s CA signs the address)',
        ],
        [
            "an issuer and a Secret of one's own",
            { gatewayCertificateIssuer: "letsencrypt", gatewayHostname: "llm.example.com", gatewayTlsSecret: "mine" },
            'gke-tpu-inference:gatewayCertificateIssuer = "letsencrypt" and gke-tpu-inference:gatewayTlsSecret = "mine" are two sources of the Gateway\'s certificate; allowed: one of them (or neither: the stack\'s CA)',
        ],
        [
            "an unknown identity check",
            { gatewayIdentity: "basic-auth" },
            'gke-tpu-inference:gatewayIdentity = "basic-auth" is not an identity check; allowed: api-key, iap, google-id-token',
        ],
        [
            "IAP behind Istio",
            { ...IAP, gatewayProvider: "istio" },
            'gke-tpu-inference:gatewayIdentity = "iap" is checked by GKE\'s Gateway, but gke-tpu-inference:gatewayProvider = "istio"; allowed: api-key, google-id-token (or gatewayProvider gke)',
        ],
        [
            "Google ID tokens at GKE's Gateway",
            { gatewayIdentity: "google-id-token", allowedIdentities: '["user:me@example.com"]' },
            'gke-tpu-inference:gatewayIdentity = "google-id-token" is checked by Istio\'s Gateway, but gke-tpu-inference:gatewayProvider = "gke"; allowed: api-key, iap (or gatewayProvider istio)',
        ],
        [
            "an identity check that lets nobody in",
            { ...IAP, allowedIdentities: "[]" },
            'gke-tpu-inference:allowedIdentities = [] lets nobody through gke-tpu-inference:gatewayIdentity = "iap"; allowed: the principals to let in, e.g. ["serviceAccount:caller@my-project.iam.gserviceaccount.com"]',
        ],
        [
            "principals with the key only",
            { allowedIdentities: '["user:me@example.com"]' },
            'gke-tpu-inference:allowedIdentities = ["user:me@example.com"] is read only by an identity check, but gke-tpu-inference:gatewayIdentity = "api-key"; allowed: [] (or gatewayIdentity iap on gke, google-id-token on istio)',
        ],
        [
            "a principal that is not one",
            { ...IAP, allowedIdentities: '["me@example.com"]' },
            'gke-tpu-inference:allowedIdentities[0] = "me@example.com" is not a principal; allowed: user:EMAIL or serviceAccount:EMAIL',
        ],
        [
            "IAP without its OAuth client",
            { ...IAP, iapClientId: "" },
            'gke-tpu-inference:iapClientId = "" leaves gke-tpu-inference:gatewayIdentity = "iap" without its OAuth client, which GKE\'s Gateway requires and no program can create; allowed: the client ID from APIs & Services > Credentials (see docs/explanation/security.md)',
        ],
        [
            "an OAuth client without IAP",
            { iapClientId: "123456789012-abc123.apps.googleusercontent.com" },
            'gke-tpu-inference:iapClientId = "123456789012-abc123.apps.googleusercontent.com" is read only by IAP, but gke-tpu-inference:gatewayIdentity = "api-key"; allowed: "" (or gatewayIdentity iap)',
        ],
        [
            "an OAuth client ID that is not one",
            { ...IAP, iapClientId: "my-client" },
            'gke-tpu-inference:iapClientId = "my-client" is not an OAuth client ID; allowed: <number>-<id>.apps.googleusercontent.com',
        ],
        [
            "IAP without the client's secret",
            { ...IAP, iapClientSecret: undefined as unknown as string },
            'gke-tpu-inference:iapClientSecret is not set, and gke-tpu-inference:gatewayIdentity = "iap" needs the OAuth client\'s secret; allowed: a secret, set with `pulumi config set --secret iapClientSecret <SECRET>`',
        ],
        [
            "Model Armor behind Istio",
            { modelArmor: "true", gatewayProvider: "istio" },
            'gke-tpu-inference:modelArmor = true screens traffic through an extension only GKE\'s Gateway calls, but gke-tpu-inference:gatewayProvider = "istio"; allowed: false (or gatewayProvider gke)',
        ],
        [
            "Model Armor where it is not served",
            { modelArmor: "true", zone: "us-east5-b" },
            "gke-tpu-inference:modelArmor = true, but Model Armor does not serve the stack's region us-east5; allowed: false, or a zone in asia-southeast1, asia-south1, us-central1, us-east1, us-east4, us-west1, europe-west1, europe-west2, europe-west3, europe-west4",
        ],
    ])("%s", (_case, values, message) => {
        expect(problemsOf(values)).toEqual([message]);
    });

    test("the client's secret in plain text is refused without showing it", () => {
        const problems = problemsOf(IAP, { keys: Object.keys(IAP).map((key) => `gke-tpu-inference:${key}`), secretKeys: [] });
        expect(problems).toEqual([
            "gke-tpu-inference:iapClientSecret is set in plain text; allowed: a secret, set with `pulumi config set --secret iapClientSecret <VALUE>` (the value is not shown here)",
        ]);
        expect(problems.join("\n")).not.toContain("s3cret");
    });

    test("valid choices per provider: IAP on GKE, Google ID tokens behind Istio, Model Armor where it is served", () => {
        expect(parse(IAP).gateway.access).toEqual({
            allowedSourceRanges: [],
            rateLimitPerMinute: 600,
            identity: "iap",
            iapClientId: "123456789012-abc123.apps.googleusercontent.com",
            allowedIdentities: ["user:me@example.com"],
            modelArmor: false,
        });
        expect(
            parse({
                gatewayProvider: "istio",
                gatewayIdentity: "google-id-token",
                allowedIdentities: '["serviceAccount:a@b.iam.gserviceaccount.com"]',
            }).gateway.access.identity,
        ).toBe("google-id-token");
        expect(parse({ modelArmor: "true", zone: "us-central1-b" }).gateway.access.modelArmor).toBe(true);
        expect(parse({ gatewayCertificateIssuer: "letsencrypt", gatewayHostname: "llm.example.com" }).gateway).toEqual(
            expect.objectContaining({ certificateIssuer: "letsencrypt", hostname: "llm.example.com" }),
        );
    });
});
