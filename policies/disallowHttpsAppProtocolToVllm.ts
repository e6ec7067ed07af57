import { ResourceValidationPolicy } from "@pulumi/policy";
import { Props, isKubernetesKind } from "./support";

/**
 * Seeds 001 and 003, issues #6 and #15: KServe's Service said `appProtocol: https`, GKE's
 * Gateway spoke TLS to an HTTP-only vLLM, and /health and /v1/models failed through the
 * Gateway with WRONG_VERSION_NUMBER.
 */
export const disallowHttpsAppProtocolToVllm: ResourceValidationPolicy = {
    name: "disallow-https-app-protocol-to-vllm",
    description: "A Service in front of LLMInferenceService workload pods must not declare HTTPS, because vLLM serves plain HTTP and GKE's Gateway follows appProtocol.",
    enforcementLevel: "mandatory",
    severity: "high",
    remediationSteps: "Give the Service port appProtocol http (and a name other than https), or route non-inference paths to a plain-HTTP Service you own.",
    validateResource: (args, reportViolation) => {
        if (!isKubernetesKind(args.type, "", "Service") || args.props.spec?.selector?.["app.kubernetes.io/part-of"] !== "llminferenceservice") {
            return;
        }
        for (const port of (args.props.spec?.ports ?? []) as Props[]) {
            const appProtocol = String(port.appProtocol ?? "").toLowerCase();
            if (appProtocol === "https" || (port.appProtocol === undefined && port.name === "https")) {
                reportViolation(
                    `Service ${args.props.metadata?.name} port ${port.port} declares ${port.appProtocol !== undefined ? `appProtocol ${port.appProtocol}` : `name "https"`} in front of vLLM, which serves plain HTTP; GKE's Gateway would speak TLS to it.`,
                );
            }
        }
    },
};
