/**
 * For unit tests of single policies: calls policy objects in this process the way the policy SDK's
 * server does (resource policies per resource, stack policies over the whole stack with parents and
 * dependencies linked, props behind the SDK's unknown-checking proxy, config with the schema's
 * defaults). The offline preview and the pack's integration tests never use this: they run the pack
 * in its own process over the Analyzer protocol (scripts/offline/analyzer.ts).
 */
import { EnforcementLevel, PolicyResource, ResourceValidationPolicy, StackValidationPolicy } from "@pulumi/policy";
import { PolicyViolation } from "../../scripts/offline/analyzer";
import { RecordedResource } from "../../scripts/offline/recorder";

// The analyzer's own unknown handling; the SDK marks it internal, so its types are not published.
const { UnknownValueError, unknownCheckingProxy } = require("@pulumi/policy/proxy") as {
    UnknownValueError: new (...args: never[]) => Error;
    unknownCheckingProxy: <T>(value: T) => T;
};

/** The pack to evaluate. */
export interface PackToEvaluate {
    name: string;
    version: string;
    policies: Array<ResourceValidationPolicy | StackValidationPolicy>;
}

/** Per-policy config: `{ policyName: { enforcementLevel?, ...properties } }`. */
export type PackConfig = Record<string, { enforcementLevel?: EnforcementLevel } & Record<string, unknown>>;

class NotApplicable extends Error {}

function notApplicable(reason?: string): never {
    throw new NotApplicable(reason);
}

function isStackPolicy(policy: ResourceValidationPolicy | StackValidationPolicy): policy is StackValidationPolicy {
    return "validateStack" in policy;
}

/** The policy's config: schema defaults, overlaid with the pack config's properties. */
function configFor(policy: ResourceValidationPolicy | StackValidationPolicy, config: PackConfig): Record<string, unknown> {
    const defaults = Object.fromEntries(
        Object.entries(policy.configSchema?.properties ?? {}).flatMap(([key, schema]) => ("default" in schema ? [[key, schema.default]] : [])),
    );
    const properties = Object.entries(config[policy.name] ?? {}).filter(([key]) => key !== "enforcementLevel");
    return { ...defaults, ...Object.fromEntries(properties) };
}

/** Runs every policy of `pack` over `resources` (the stack resource itself is not analyzed). */
export async function evaluatePolicies(pack: PackToEvaluate, resources: readonly RecordedResource[], config: PackConfig = {}): Promise<PolicyViolation[]> {
    const analyzed = resources.filter((resource) => resource.type !== "pulumi:pulumi:Stack");
    const violations: PolicyViolation[] = [];

    // Stack policies see every resource, linked to its parent and dependencies.
    const stackResources = new Map<string, PolicyResource>(
        analyzed.map((resource) => [
            resource.urn,
            {
                type: resource.type,
                name: resource.name,
                urn: resource.urn,
                props: unknownCheckingProxy(resource.inputs),
                opts: { ...resource.options, parent: resource.parent } as PolicyResource["opts"],
                dependencies: [],
                propertyDependencies: {},
                isType: () => false,
                asType: () => undefined,
            },
        ]),
    );
    for (const resource of analyzed) {
        const policyResource = stackResources.get(resource.urn)!;
        policyResource.parent = resource.parent ? stackResources.get(resource.parent) : undefined;
        policyResource.dependencies = resource.dependencies.flatMap((urn) => stackResources.get(urn) ?? []);
    }

    for (const policy of pack.policies) {
        const enforcementLevel = config[policy.name]?.enforcementLevel ?? policy.enforcementLevel ?? "advisory";
        if (enforcementLevel === "disabled") {
            continue;
        }
        const policyConfig = configFor(policy, config);
        const violation = (level: EnforcementLevel, message: string, urn: string): PolicyViolation => ({
            policyPack: pack.name,
            policyPackVersion: pack.version,
            policyName: policy.name,
            enforcementLevel: level === "remediate" ? "mandatory" : level,
            ...(policy.severity ? { severity: policy.severity } : {}),
            description: policy.description,
            message,
            urn,
        });
        const run = async (urn: string | undefined, validate: (report: (message: string, urn?: string) => void) => unknown) => {
            try {
                await validate((message, reportedUrn) => violations.push(violation(enforcementLevel, message, reportedUrn ?? urn ?? "")));
            } catch (err) {
                if (err instanceof UnknownValueError) {
                    // As the SDK does: an advisory note that the policy could not run, never a violation.
                    violations.push(violation("advisory", `can't run policy '${policy.name}' from policy pack '${pack.name}@v${pack.version}' during preview: ${err.message}`, urn ?? ""));
                } else if (!(err instanceof NotApplicable)) {
                    throw err;
                }
            }
        };

        if (isStackPolicy(policy)) {
            await run(undefined, (report) =>
                policy.validateStack(
                    { resources: [...stackResources.values()], getConfig: <T>() => policyConfig as T, stackTags: new Map(), notApplicable },
                    report,
                ),
            );
            continue;
        }
        const validations = policy.validateResource === undefined ? [] : Array.isArray(policy.validateResource) ? policy.validateResource : [policy.validateResource];
        for (const resource of analyzed) {
            for (const validation of validations) {
                await run(resource.urn, (report) =>
                    validation(
                        {
                            type: resource.type,
                            name: resource.name,
                            urn: resource.urn,
                            props: unknownCheckingProxy(resource.inputs),
                            opts: { ...resource.options, parent: resource.parent } as never,
                            getConfig: <T>() => policyConfig as T,
                            notApplicable,
                            stackTags: new Map(),
                            isType: () => false,
                            asType: () => undefined,
                        },
                        report,
                    ),
                );
            }
        }
    }
    return violations;
}
