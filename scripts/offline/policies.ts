/**
 * The policy verdict of an offline preview: the pack runs in its own process (analyzer.ts) and judges
 * every recorded resource as a real `pulumi preview --policy-pack` would have it judged.
 */
import { PackConfig, PackInfo, PolicyPackProcess, PolicyViolation, resolvePackConfig } from "./analyzer";
import { RecordedResource, isWireSecret } from "./recorder";

/** Every secret string among the resources' wire values, so that no violation message repeats one. */
function secretStrings(resources: readonly RecordedResource[]): string[] {
    const found = new Set<string>();
    const visit = (value: unknown, secret: boolean) => {
        if (typeof value === "string" && secret && value.length > 0) {
            found.add(value);
        } else if (Array.isArray(value)) {
            value.forEach((inner) => visit(inner, secret));
        } else if (value !== null && typeof value === "object") {
            Object.values(value).forEach((inner) => visit(inner, secret || isWireSecret(value)));
        }
    };
    resources.forEach((resource) => visit(resource.wire.inputs, false));
    return [...found].sort((a, b) => b.length - a.length);
}

/** Orders violations so that two runs report them identically. */
function byPolicyAndUrn(a: PolicyViolation, b: PolicyViolation): number {
    return a.policyName.localeCompare(b.policyName) || a.urn.localeCompare(b.urn) || a.message.localeCompare(b.message);
}

/**
 * Configures `pack` (config validated first; a {@link PackConfigError} when it is not valid) and runs `Analyze` on
 * every resource and `AnalyzeStack` on the whole stack.
 */
export async function judge(
    pack: PolicyPackProcess,
    resources: readonly RecordedResource[],
    config: PackConfig,
    stack: { project: string; stack: string },
): Promise<{ info: PackInfo; violations: PolicyViolation[] }> {
    const info = await pack.info();
    await pack.configure(stack, resolvePackConfig(info, config));
    const byUrn = new Map(resources.map((resource) => [resource.urn, resource]));
    const secrets = secretStrings(resources);
    const redact = (text: string) => secrets.reduce((out, secret) => out.split(secret).join("[secret]"), text);
    const perResource = await Promise.all(
        resources.map(async (resource) =>
            (await pack.analyze(resource, byUrn)).map((diagnostic) => PolicyPackProcess.violation(diagnostic, resource.urn, redact)),
        ),
    );
    const stackWide = (await pack.analyzeStack([...resources], byUrn)).map((diagnostic) =>
        PolicyPackProcess.violation(diagnostic, "", redact),
    );
    return { info, violations: [...perResource.flat(), ...stackWide].sort(byPolicyAndUrn) };
}
