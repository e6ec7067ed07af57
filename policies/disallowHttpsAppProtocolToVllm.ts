import { StackValidationPolicy } from "@pulumi/policy";
import { httpsDeclaration, portsToPlainHttpVllm } from "./facts";
import { isKubernetesKind, namespaceOf } from "./support/resources";
import { stackVllmPods } from "./support/workloads";

/**
 * Seeds 001 and 003, issues #6 and #15: KServe's Service said `appProtocol: https`, GKE's
 * Gateway spoke TLS to an HTTP-only vLLM, and /health and /v1/models failed through the
 * Gateway with WRONG_VERSION_NUMBER. GKE takes a port's protocol from its appProtocol, or
 * from its name when appProtocol is unset.
 */
export const disallowHttpsAppProtocolToVllm: StackValidationPolicy = {
    name: "disallow-https-app-protocol-to-vllm",
    description:
        "A Service in front of pods that serve vLLM over plain HTTP must not declare HTTPS, because GKE's Gateway follows the port's appProtocol (or its name) and would speak TLS to it.",
    enforcementLevel: "mandatory",
    severity: "high",
    remediationSteps:
        "Give the Service port appProtocol http (and a name other than https), or route non-inference paths to a plain-HTTP Service you own.",
    validateStack: (args, reportViolation) => {
        const vllmPods = stackVllmPods(args.resources);
        for (const service of args.resources.filter((resource) => isKubernetesKind(resource.type, "", "Service"))) {
            for (const port of portsToPlainHttpVllm(service.props, namespaceOf(service), vllmPods)) {
                const https = httpsDeclaration(port);
                if (https !== undefined) {
                    reportViolation(
                        `Service ${service.props.metadata?.name} port ${port.port} declares ${https} in front of vLLM, which serves plain HTTP; GKE's Gateway would speak TLS to it.`,
                        service.urn,
                    );
                }
            }
        }
    },
};
