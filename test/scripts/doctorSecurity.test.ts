/** The doctor's security checks, over recorded states of a stack that controls access (its outputs carry `access`). */
import { runDoctor, targetsFromOutputs } from "../../scripts/doctor/diagnose";
import { clusterState } from "../fakeCluster";
import { memoryReader } from "../memoryCluster";
import { NOW, finding } from "./doctorStates";

const OUTPUTS = {
    servingNamespace: "llm-inference",
    gateway: { namespace: "inference-gateway", name: "inference-gateway" },
    models: { "qwen2-3b": { pattern: "pattern1" } },
};
const SECURITY_CHECKS = [
    "Gateway certificate issued",
    "HTTPS listener serves the certificate",
    "security policy attached",
    "rate limit present",
    "Model Armor extension accepted",
];
const security = async (outputs: object, ...overlays: string[]) =>
    (await runDoctor(memoryReader(clusterState(...overlays)), targetsFromOutputs(outputs), NOW))
        .filter((diagnosis) => SECURITY_CHECKS.includes(diagnosis.check))
        .map((diagnosis) => [...finding(diagnosis), diagnosis.evidence]);

describe("the doctor's security checks", () => {
    test("the outputs' access turns them on, and its screening the Model Armor check", () => {
        expect(targetsFromOutputs({ ...OUTPUTS, access: { identity: "api-key" } }).security).toEqual({ modelArmor: false });
        expect(targetsFromOutputs({ ...OUTPUTS, access: { screening: "Model Armor, failing closed" } }).security).toEqual({
            modelArmor: true,
        });
        expect(targetsFromOutputs(OUTPUTS).security).toBeUndefined();
    });

    test("a stack without access control in its outputs is not checked", async () => {
        expect(await security(OUTPUTS, "doctor/secure")).toEqual([]);
    });

    test("GKE, secure: the certificate issued and served, Cloud Armor on both backends, its rate limit, Model Armor accepted", async () => {
        expect(await security({ ...OUTPUTS, access: { screening: "Model Armor, failing closed" } }, "doctor/secure")).toEqual([
            [
                "OK",
                "Certificate inference-gateway/inference-gateway-tls",
                "Gateway certificate issued",
                undefined,
                "Secret inference-gateway-tls: Ready=True (Ready: Certificate is up to date and has not expired)",
            ],
            [
                "OK",
                "Gateway inference-gateway/inference-gateway",
                "HTTPS listener serves the certificate",
                undefined,
                "listener https (inference-gateway-tls): Programmed=True (Programmed); ResolvedRefs=True (ResolvedRefs)",
            ],
            [
                "OK",
                "GCPBackendPolicy llm-inference/qwen2-3b-inference-pool",
                "security policy attached",
                undefined,
                "securityPolicy tpu-inference-gateway-access; GCPBackendPolicy qwen2-3b-inference-pool: Attached=True (Attached: Policy attached)",
            ],
            [
                "OK",
                "GCPBackendPolicy llm-inference/qwen2-3b-http",
                "security policy attached",
                undefined,
                "securityPolicy tpu-inference-gateway-access; GCPBackendPolicy qwen2-3b-http: Attached=True (Attached: Policy attached)",
            ],
            [
                "OK",
                "Cloud Armor tpu-inference-gateway-access",
                "rate limit present",
                undefined,
                "its allow rules are throttle rules (per client address); the cluster does not show them: gcloud compute security-policies describe NAME --region REGION",
            ],
            [
                "OK",
                "GCPTrafficExtension inference-gateway/inference-gateway-model-armor",
                "Model Armor extension accepted",
                undefined,
                "Accepted=True (Accepted)",
            ],
        ]);
    });

    test("GKE, the certificate not issued: the Certificate and the listener fail with their conditions", async () => {
        const failing = (await security({ ...OUTPUTS, access: {} }, "doctor/secure", "doctor/certificate-not-ready")).filter(
            ([status]) => status !== "OK",
        );
        expect(failing).toEqual([
            [
                "FAIL",
                "Certificate inference-gateway/inference-gateway-tls",
                "Gateway certificate issued",
                "open-endpoint",
                "Ready=False (DoesNotExist: Issuing certificate as Secret does not exist)",
            ],
            [
                "FAIL",
                "Gateway inference-gateway/inference-gateway",
                "HTTPS listener serves the certificate",
                "open-endpoint",
                "listener https (inference-gateway-tls): Programmed=False (Invalid)",
            ],
        ]);
    });

    test("GKE, a backend without Cloud Armor, one not attached, Model Armor refused; the pre-security Gateway serves no HTTPS", async () => {
        const failing = (
            await security(
                { ...OUTPUTS, access: { screening: "Model Armor, failing closed" } },
                "doctor/secure",
                "doctor/security-policy-missing",
            )
        ).filter(([status]) => status !== "OK");
        expect(failing).toEqual([
            [
                "FAIL",
                "GCPBackendPolicy llm-inference/qwen2-3b-inference-pool",
                "security policy attached",
                "open-endpoint",
                "securityPolicy tpu-inference-gateway-access; GCPBackendPolicy qwen2-3b-inference-pool: Attached=False (Invalid: securityPolicy tpu-inference-gateway-access not found in region us-east5)",
            ],
            [
                "FAIL",
                "GCPBackendPolicy llm-inference/qwen2-3b-http",
                "security policy attached",
                "open-endpoint",
                "names no securityPolicy and no IAP for qwen2-3b-http",
            ],
            [
                "FAIL",
                "GCPTrafficExtension inference-gateway/inference-gateway-model-armor",
                "Model Armor extension accepted",
                "open-endpoint",
                "Accepted=False (Invalid: service account lacks roles/modelarmor.calloutUser)",
            ],
        ]);
        expect((await security({ ...OUTPUTS, access: {} })).filter(([status]) => status !== "OK")).toEqual([
            [
                "FAIL",
                "Gateway inference-gateway/inference-gateway",
                "HTTPS listener serves the certificate",
                "open-endpoint",
                "no HTTPS listener: requests and completions cross the network in clear text",
            ],
            [
                "FAIL",
                "GCPBackendPolicy llm-inference/qwen2-3b-inference-pool",
                "security policy attached",
                "open-endpoint",
                "names no securityPolicy and no IAP for qwen2-3b-inference-pool",
            ],
            [
                "FAIL",
                "GCPBackendPolicy llm-inference/qwen2-3b-http",
                "security policy attached",
                "open-endpoint",
                "no GCPBackendPolicy targets qwen2-3b-http",
            ],
            [
                "FAIL",
                "Cloud Armor",
                "rate limit present",
                "open-endpoint",
                "no backend names a Cloud Armor policy, where the stack's rate limit lives",
            ],
        ]);
    });

    test("Istio, secure: the AuthorizationPolicy on the Gateway and its rate limit; opened to the internet it warns, without the filter it fails", async () => {
        const istio = ["doctor/secure", "doctor/istio-healthy", "doctor/istio-secure"];
        const outputs = { ...OUTPUTS, gatewayProvider: "istio", access: {} };
        expect(
            (await security(outputs, ...istio)).filter(
                ([, , check]) => check === "security policy attached" || check === "rate limit present",
            ),
        ).toEqual([
            [
                "OK",
                "AuthorizationPolicy inference-gateway/inference-gateway-allowed-sources",
                "security policy attached",
                undefined,
                "AuthorizationPolicies on Gateway inference-gateway refuse an unknown source",
            ],
            [
                "OK",
                "EnvoyFilter inference-gateway/inference-gateway-client-rate-limit",
                "rate limit present",
                undefined,
                "local_ratelimit on Gateway inference-gateway",
            ],
        ]);
        expect((await security(outputs, ...istio, "doctor/istio-open")).filter(([status]) => status !== "OK")).toEqual([
            [
                "WARN",
                "AuthorizationPolicy inference-gateway/inference-gateway-allowed-sources",
                "security policy attached",
                undefined,
                "AuthorizationPolicy inference-gateway-allowed-sources lets every address in (0.0.0.0/0)",
            ],
            [
                "FAIL",
                "Gateway inference-gateway/inference-gateway",
                "rate limit present",
                "open-endpoint",
                "no EnvoyFilter puts envoy.filters.http.local_ratelimit on the Gateway",
            ],
        ]);
    });
});
