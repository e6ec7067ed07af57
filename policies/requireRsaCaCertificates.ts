import { ResourceValidationPolicy } from "@pulumi/policy";
import { policyText } from "./facts";
import { isKubernetesKind } from "./support/resources";

/** What the policy reports of CA certificate `name`. */
export const RSA_CA_MESSAGES = {
    notRsa: (name: unknown, algorithm: unknown) => `CA certificate ${name} has key algorithm ${algorithm}; KServe expects an RSA CA.`,
};

/** Enforces lesson rsa-ca (policies/facts/lessons). */
export const requireRsaCaCertificates: ResourceValidationPolicy = {
    ...policyText("require-rsa-ca-certificates", "A cert-manager CA certificate must use an RSA key."),
    enforcementLevel: "mandatory",
    severity: "high",
    validateResource: (args, reportViolation) => {
        if (!isKubernetesKind(args.type, "cert-manager.io", "Certificate") || args.props.spec?.isCA !== true) {
            return;
        }
        // cert-manager's default algorithm is RSA.
        const algorithm = args.props.spec?.privateKey?.algorithm ?? "RSA";
        if (algorithm !== "RSA") {
            reportViolation(RSA_CA_MESSAGES.notRsa(args.props.metadata?.name, algorithm));
        }
    },
};
