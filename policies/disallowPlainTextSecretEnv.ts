import { ResourceValidationPolicy } from "@pulumi/policy";
import { Props, containersOf } from "./support";

/** Environment variable names that hold credentials. */
const CREDENTIAL_NAME = /(TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIALS?)$/i;

/**
 * Security baseline, and the seed manifests' HF_TOKEN: a credential written into a pod spec
 * sits in plain text in the object, in Pulumi's state and in every preview; it belongs in a
 * Kubernetes Secret filled from a Pulumi secret and referenced with secretKeyRef.
 */
export const disallowPlainTextSecretEnv: ResourceValidationPolicy = {
    name: "disallow-plain-text-secret-env",
    description: "A container must read credentials (tokens, passwords, keys) from a Secret reference, never from a literal environment value.",
    enforcementLevel: "mandatory",
    severity: "high",
    remediationSteps:
        "Store the value with `pulumi config set --secret`, write it into a Kubernetes Secret, and reference it with env[].valueFrom.secretKeyRef.",
    validateResource: (args, reportViolation) => {
        for (const { path, container } of containersOf(args.type, args.props)) {
            for (const variable of (container.env ?? []) as Props[]) {
                if (CREDENTIAL_NAME.test(String(variable.name)) && variable.value !== undefined && variable.valueFrom === undefined) {
                    reportViolation(`${args.name} ${path} sets ${variable.name} to a literal value; read it from a Secret with valueFrom.secretKeyRef.`);
                }
            }
        }
    },
};
