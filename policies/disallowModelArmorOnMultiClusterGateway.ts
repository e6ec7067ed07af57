import { StackValidationPolicy } from "@pulumi/policy";
import { MULTI_CLUSTER_INFERENCE, callsModelArmor, isMultiClusterGatewayClass, targetsGateway, PolicyText, policyText } from "./facts";
import { isKubernetesKind, namespaceOf, objectKey } from "./support/resources";
import { gatewaysByKey } from "./support/stack";

/** The service extensions that can call Model Armor. */
const EXTENSION_KINDS = ["GCPTrafficExtension", "GCPRoutingExtension"];

/** The report on extension `extension` (kind and `namespace/name`), which calls Model Armor on Gateway `gateway` of multi-cluster class `className`. */
export function modelArmorOnMultiClusterMessage(extension: string, gateway: string, className: string): string {
    return (
        `${extension} calls Model Armor on Gateway ${gateway} of class "${className}"; ${MULTI_CLUSTER_INFERENCE.unsupported.modelArmor}, ` +
        `so no prompt or response would be screened. Remove the extension from the multi-cluster Gateway, and screen prompts elsewhere.`
    );
}

/** An extension attaches to the Gateways its targetRefs name in its own namespace (GKE's extensions name no other). */
export const disallowModelArmorOnMultiClusterGateway: StackValidationPolicy & PolicyText = {
    ...policyText(
        "multi-cluster-model-armor",
        "disallow-model-armor-on-multi-cluster-gateway",
        "A service extension that calls Model Armor must not attach to a Gateway of a multi-cluster GatewayClass.",
    ),
    enforcementLevel: "mandatory",
    severity: "critical",
    validateStack: (args, reportViolation) => {
        const extensions = args.resources.filter(
            (resource) =>
                EXTENSION_KINDS.some((kind) => isKubernetesKind(resource.type, "networking.gke.io", kind)) &&
                callsModelArmor(resource.props),
        );
        if (extensions.length === 0) {
            args.notApplicable("no service extension calls Model Armor");
        }
        const gateways = [...gatewaysByKey(args.resources).entries()].filter(([, gateway]) =>
            isMultiClusterGatewayClass(gateway.className),
        );
        for (const extension of extensions) {
            for (const [key, gateway] of gateways) {
                if (
                    namespaceOf(gateway.resource) === namespaceOf(extension) &&
                    targetsGateway(extension.props, gateway.resource.props.metadata?.name)
                ) {
                    reportViolation(
                        modelArmorOnMultiClusterMessage(`${extension.props.kind} ${objectKey(extension)}`, key, gateway.className),
                        extension.urn,
                    );
                }
            }
        }
    },
};
