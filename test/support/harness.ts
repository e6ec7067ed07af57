import { ResourceValidationPolicy, StackValidationPolicy } from "@pulumi/policy";
import { PolicyViolation } from "../../scripts/offline/analyzer";
import { PackConfig, evaluatePolicies } from "./evaluate";
import { RecordedResource, UNKNOWN_VALUE } from "../../scripts/offline/recorder";

/** How the engine marks a value it cannot know during preview. */
export const UNKNOWN = UNKNOWN_VALUE;

/** A resource as a preview records it, in stack `stack`. */
export function resource(
    type: string,
    name: string,
    inputs: Record<string, unknown>,
    extra: { dependencies?: RecordedResource[]; parent?: RecordedResource; provider?: RecordedResource; stack?: string } = {},
): RecordedResource {
    return {
        type,
        name,
        urn: `urn:pulumi:${extra.stack ?? "prod"}::project::${type}::${name}`,
        custom: true,
        ...(extra.parent ? { parent: extra.parent.urn } : {}),
        ...(extra.provider ? { provider: `${extra.provider.urn}::${extra.provider.name}-id` } : {}),
        inputs,
        wire: { inputs, outputs: inputs },
        dependencies: (extra.dependencies ?? []).map((dependency) => dependency.urn),
        options: {},
    };
}

/** A Kubernetes object recorded under its `kubernetes:<apiVersion>:<kind>` type token. */
export function kube(
    apiVersion: string,
    kind: string,
    name: string,
    body: Record<string, unknown>,
    extra?: Parameters<typeof resource>[3],
): RecordedResource {
    const typeVersion = apiVersion.includes("/") ? apiVersion : `core/${apiVersion}`;
    return resource(`kubernetes:${typeVersion}:${kind}`, name, { apiVersion, kind, ...body }, extra);
}

/** What one policy reports over `resources`: violations as `[level] message`, with the URN's resource name. */
export async function check(
    policy: ResourceValidationPolicy | StackValidationPolicy,
    resources: RecordedResource[],
    config: PackConfig = {},
): Promise<Array<{ level: PolicyViolation["enforcementLevel"]; message: string; resource: string }>> {
    const violations = await evaluatePolicies({ name: "test-pack", version: "0.0.1", policies: [policy] }, resources, config);
    return violations.map((violation) => ({
        level: violation.enforcementLevel,
        message: violation.message,
        resource: violation.urn.split("::").pop() ?? "",
    }));
}
