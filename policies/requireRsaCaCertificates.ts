import { ResourceValidationPolicy } from "@pulumi/policy";
import { PolicyText, policyText } from "./facts";
import { isKubernetesKind } from "./support/resources";

/** What the policy reports of CA certificate `name`. */
export const RSA_CA_MESSAGES = {
    notRsa: (name: unknown, algorithm: unknown) => `CA certificate ${name} has key algorithm ${algorithm}; KServe expects an RSA CA.`,
};

export const requireRsaCaCertificates: ResourceValidationPolicy & PolicyText = {
    ...policyText("rsa-ca", "require-rsa-ca-certificates", "A cert-manager CA certificate must use an RSA key."),
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
