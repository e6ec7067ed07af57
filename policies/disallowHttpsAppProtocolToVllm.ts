import { StackValidationPolicy } from "@pulumi/policy";
import { httpsDeclaration, PolicyText, policyText, portsToPlainHttpVllm } from "./facts";
import { isKubernetesKind, namespaceOf } from "./support/resources";
import { stackVllmPods } from "./support/workloads";

/** The report on port `port` of Service `service`, which declares TLS (`https`) in front of plain-HTTP vLLM. */
export function httpsToVllmMessage(service: string, port: unknown, https: string): string {
    return `Service ${service} port ${port} declares ${https} in front of vLLM, which serves plain HTTP; GKE's Gateway would speak TLS to it.`;
}

export const disallowHttpsAppProtocolToVllm: StackValidationPolicy & PolicyText = {
    ...policyText(
        "https-app-protocol",
        "disallow-https-app-protocol-to-vllm",
        "A Service in front of pods that serve vLLM over plain HTTP must not declare HTTPS, by its port's appProtocol or, without one, its name.",
    ),
    enforcementLevel: "mandatory",
    severity: "high",
    validateStack: (args, reportViolation) => {
        const vllmPods = stackVllmPods(args.resources);
        for (const service of args.resources.filter((resource) => isKubernetesKind(resource.type, "", "Service"))) {
            for (const port of portsToPlainHttpVllm(service.props, namespaceOf(service), vllmPods)) {
                const https = httpsDeclaration(port);
                if (https !== undefined) {
                    reportViolation(httpsToVllmMessage(service.props.metadata?.name, port.port, https), service.urn);
                }
            }
        }
    },
};
