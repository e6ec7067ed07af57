import { ResourceValidationPolicy } from "@pulumi/policy";
import { isKubernetesKind } from "./support/resources";

/** Seed 003, Pattern 1 summary: KServe expects an RSA CA; an ECDSA CA certificate had to be recreated as RSA 2048. */
export const requireRsaCaCertificates: ResourceValidationPolicy = {
    name: "require-rsa-ca-certificates",
    description: "A cert-manager CA certificate must use an RSA key, because KServe expects an RSA CA.",
    enforcementLevel: "mandatory",
    severity: "high",
    remediationSteps: "Set spec.privateKey.algorithm to RSA with size 2048 (or larger) on certificates with isCA: true.",
    validateResource: (args, reportViolation) => {
        if (!isKubernetesKind(args.type, "cert-manager.io", "Certificate") || args.props.spec?.isCA !== true) {
            return;
        }
        // cert-manager's default algorithm is RSA.
        const algorithm = args.props.spec?.privateKey?.algorithm ?? "RSA";
        if (algorithm !== "RSA") {
            reportViolation(`CA certificate ${args.props.metadata?.name} has key algorithm ${algorithm}; KServe expects an RSA CA.`);
        }
    },
};
