/**
 * For unit tests of single policies: calls policy objects in this process the way the policy SDK's
 * server does (resource validations per resource with its inputs, then stack validations over every
 * resource's outputs with parents and dependencies linked; props deserialized by the SDK and behind its
 * unknown-checking proxy; config with the schema's defaults). The offline preview and the pack's integration tests never use this: they run the pack
 * in its own process over the Analyzer protocol (scripts/offline/analyzer.ts).
 */
import { EnforcementLevel, PolicyResource, ResourceValidationPolicy, StackValidationPolicy } from "@pulumi/policy";
import { PolicyViolation } from "../../scripts/offline/analyzer";
import { RecordedResource } from "../../scripts/offline/recorder";

// The analyzer's own unknown handling and deserialization; the SDK marks them internal, so their types are not published.
const { UnknownValueError, unknownCheckingProxy } = require("@pulumi/policy/proxy") as {
    UnknownValueError: new (...args: never[]) => Error;
    unknownCheckingProxy: <T>(value: T) => T;
};
const { deserializeProperties } = require("@pulumi/policy/deserialize") as {
    deserializeProperties: (struct: { toJavaScript(): Record<string, unknown> }, proxySecrets: boolean) => Record<string, unknown>;
};

/** The pack to evaluate. */
export interface PackToEvaluate {
    name: string;
    version: string;
    policies: Array<ResourceValidationPolicy | StackValidationPolicy>;
}

/** Per-policy config: `{ policyName: { enforcementLevel?, ...properties } }`. */
export type PackConfig = Record<string, { enforcementLevel?: EnforcementLevel } & Record<string, unknown>>;

// Named as the SDK names its own, which the pack's guard (policies/pack.ts) lets through.
class NotApplicableError extends Error {}

function notApplicable(reason?: string): never {
    throw new NotApplicableError(reason);
}

function isStackPolicy(policy: ResourceValidationPolicy | StackValidationPolicy): policy is StackValidationPolicy {
    return "validateStack" in policy && typeof policy.validateStack === "function";
}

/** The policy's config: schema defaults, overlaid with the pack config's properties. */
function configFor(policy: ResourceValidationPolicy | StackValidationPolicy, config: PackConfig): Record<string, unknown> {
    const defaults = Object.fromEntries(
        Object.entries(policy.configSchema?.properties ?? {}).flatMap(([key, schema]) =>
            "default" in schema ? [[key, schema.default]] : [],
        ),
    );
    const properties = Object.entries(config[policy.name] ?? {}).filter(([key]) => key !== "enforcementLevel");
    return { ...defaults, ...Object.fromEntries(properties) };
}

/** Props as the SDK's server builds them: the wire values deserialized by the SDK itself (secrets become plain values), behind its unknown-checking proxy. */
function sdkProps(wire: Record<string, unknown>): Record<string, unknown> {
    // The engine's wire format has no undefined: a property set to undefined is absent.
    const struct = JSON.parse(JSON.stringify(wire)) as Record<string, unknown>;
    return unknownCheckingProxy(deserializeProperties({ toJavaScript: () => struct }, false));
}

/**
 * Runs every policy of `pack` over `resources` in the SDK's order: `Analyze` (every policy with a validateResource,
 * for each resource), then `AnalyzeStack` (every policy with a validateStack). The stack resource is not analyzed.
 */
export async function evaluatePolicies(
    pack: PackToEvaluate,
    resources: readonly RecordedResource[],
    config: PackConfig = {},
): Promise<PolicyViolation[]> {
    const analyzed = resources.filter((resource) => resource.type !== "pulumi:pulumi:Stack");
    const violations: PolicyViolation[] = [];
    const enabled = pack.policies.filter(
        (policy) => (config[policy.name]?.enforcementLevel ?? policy.enforcementLevel ?? "advisory") !== "disabled",
    );

    const run = async (
        policy: ResourceValidationPolicy | StackValidationPolicy,
        urn: string | undefined,
        validate: (report: (message: string, urn?: string) => void) => unknown,
    ) => {
        const enforcementLevel = config[policy.name]?.enforcementLevel ?? policy.enforcementLevel ?? "advisory";
        const violation = (level: EnforcementLevel, message: string, reportedUrn: string): PolicyViolation => ({
            policyPack: pack.name,
            policyPackVersion: pack.version,
            policyName: policy.name,
            enforcementLevel: level === "remediate" ? "mandatory" : level,
            ...(policy.severity ? { severity: policy.severity } : {}),
            description: policy.description,
            message,
            urn: reportedUrn,
        });
        try {
            await validate(
                (message: string | { message: string; urn?: string; enforcementLevel?: EnforcementLevel }, reportedUrn?: string) =>
                    violations.push(
                        typeof message === "object"
                            ? // As the SDK takes a violation object: its own level and URN, its message whole (which the pack writes with the description first).
                              violation(
                                  message.enforcementLevel ?? enforcementLevel,
                                  message.message.replace(`${policy.description}\n`, ""),
                                  message.urn ?? urn ?? "",
                              )
                            : violation(enforcementLevel, message, reportedUrn ?? urn ?? ""),
                    ),
            );
        } catch (err) {
            if (err instanceof UnknownValueError) {
                // As the SDK does: an advisory note that the policy could not run, never a violation.
                violations.push(
                    violation(
                        "advisory",
                        `can't run policy '${policy.name}' from policy pack '${pack.name}@v${pack.version}' during preview: ${err.message}`,
                        urn ?? "",
                    ),
                );
            } else if (!(err instanceof NotApplicableError)) {
                throw err;
            }
        }
    };

    // As the engine describes a resource's explicit provider: its type, name, URN and inputs.
    const providerOf = (resource: RecordedResource) => {
        const urn = resource.provider?.split("::").slice(0, -1).join("::");
        const provider = resources.find((candidate) => candidate.urn === urn);
        return provider
            ? { provider: { type: provider.type, name: provider.name, urn: provider.urn, props: sdkProps(provider.wire.inputs) } }
            : {};
    };

    for (const resource of analyzed) {
        for (const policy of enabled) {
            const validations =
                !("validateResource" in policy) || policy.validateResource === undefined
                    ? []
                    : Array.isArray(policy.validateResource)
                      ? policy.validateResource
                      : [policy.validateResource];
            for (const validation of validations) {
                await run(policy, resource.urn, (report) =>
                    validation(
                        {
                            type: resource.type,
                            name: resource.name,
                            urn: resource.urn,
                            props: sdkProps(resource.wire.inputs),
                            opts: { ...resource.options, parent: resource.parent } as never,
                            ...providerOf(resource),
                            getConfig: <T>() => configFor(policy, config) as T,
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

    // Stack policies see every resource's outputs, linked to its parent and dependencies.
    const stackResources = new Map<string, PolicyResource>(
        analyzed.map((resource) => [
            resource.urn,
            {
                type: resource.type,
                name: resource.name,
                urn: resource.urn,
                props: sdkProps(resource.wire.outputs),
                opts: { ...resource.options, parent: resource.parent } as PolicyResource["opts"],
                ...providerOf(resource),
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
    for (const policy of enabled.filter(isStackPolicy)) {
        await run(policy, undefined, (report) =>
            policy.validateStack(
                {
                    resources: [...stackResources.values()],
                    getConfig: <T>() => configFor(policy, config) as T,
                    stackTags: new Map(),
                    notApplicable,
                },
                report,
            ),
        );
    }
    return violations;
}
