/**
 * The policy verdict of an offline preview: the pack runs in its own process (analyzer.ts) and judges
 * every recorded resource as a real `pulumi preview --policy-pack` would have it judged.
 */
import { PackConfig, PackInfo, PolicyPackProcess, PolicyViolation, resolvePackConfig } from "./analyzer";
import { RecordedResource, SECRET_PLACEHOLDER, isWireSecret } from "./recorder";

/** Every secret string among the resources' wire values, so that no violation message repeats one. */
function secretStrings(resources: readonly RecordedResource[]): string[] {
    const found = new Set<string>();
    const visit = (value: unknown, secret: boolean) => {
        if (typeof value === "string" && secret) {
            found.add(value);
        } else if (Array.isArray(value)) {
            value.forEach((inner) => visit(inner, secret));
        } else if (value !== null && typeof value === "object") {
            Object.values(value).forEach((inner) => visit(inner, secret || isWireSecret(value)));
        }
    };
    resources.forEach((resource) => visit(resource.wire.inputs, false));
    return [...found];
}

/**
 * A secret shorter than this is redacted only where it stands alone, between characters that are not letters, digits or
 * `_`; a longer one wherever it appears. A few characters turn up inside ordinary words and numbers by chance (a secret
 * "s" in "must"), where redacting them would mangle every message; eight or more do not, and inside a longer word
 * (a token in a URL, a password in a connection string) they are still the secret.
 */
export const MIN_EMBEDDED_SECRET_LENGTH = 8;

/** Replaces every occurrence of `secrets` in a text with `[secret]`, in one pass, longest first, short ones only standing alone. */
export function secretRedactor(secrets: readonly string[]): (text: string) => string {
    const escape = (secret: string) => secret.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");
    const alternatives = [...new Set(secrets)]
        .filter((secret) => secret.length > 0)
        .sort((a, b) => b.length - a.length)
        .map((secret) =>
            secret.length >= MIN_EMBEDDED_SECRET_LENGTH ? escape(secret) : `(?<![\\p{L}\\p{N}_])${escape(secret)}(?![\\p{L}\\p{N}_])`,
        );
    if (alternatives.length === 0) {
        return (text) => text;
    }
    const pattern = new RegExp(alternatives.join("|"), "gu");
    return (text) => text.replace(pattern, SECRET_PLACEHOLDER);
}

/** Orders violations so that two runs report them identically. */
function byPolicyAndUrn(a: PolicyViolation, b: PolicyViolation): number {
    return a.policyName.localeCompare(b.policyName) || a.urn.localeCompare(b.urn) || a.message.localeCompare(b.message);
}

/** Diagnostics as the pack returned them, with the URN to report them against when the pack names none. */
interface Diagnostics {
    diagnostics: Parameters<typeof PolicyPackProcess.violation>[0][];
    urn: string;
}

/**
 * A pack's verdict, built as the engine builds it: each resource goes to `Analyze` as it registers (while the program
 * still runs), and the whole stack to `AnalyzeStack` once it is done. The pack is configured first (config validated
 * as the CLI validates it; a {@link PackConfigError} when it is not valid), as soon as it is up.
 */
export class Judgement {
    private readonly configured: Promise<{ pack: PolicyPackProcess; info: PackInfo }>;
    private readonly analyses: Promise<Diagnostics>[] = [];
    private readonly byUrn = new Map<string, RecordedResource>();

    constructor(pack: Promise<PolicyPackProcess>, config: PackConfig, stack: { project: string; stack: string }) {
        this.configured = pack.then(async (started) => {
            const info = await started.info();
            await started.configure(stack, resolvePackConfig(info, config));
            return { pack: started, info };
        });
        // Surfaced by verdict(); a rejection nobody awaits yet must not look like the program's own failure.
        this.configured.catch(() => undefined);
    }

    /** Sends `resource` to `Analyze` once the pack is configured. */
    analyze(resource: RecordedResource): void {
        this.byUrn.set(resource.urn, resource);
        const analysis = this.configured.then(async ({ pack }) => ({
            diagnostics: await pack.analyze(resource, this.byUrn),
            urn: resource.urn,
        }));
        analysis.catch(() => undefined);
        this.analyses.push(analysis);
    }

    /** Analyzes each of `resources` not yet sent, then the whole stack; every violation, with no secret in a message. */
    async verdict(resources: readonly RecordedResource[]): Promise<{ info: PackInfo; violations: PolicyViolation[] }> {
        resources.filter((resource) => !this.byUrn.has(resource.urn)).forEach((resource) => this.analyze(resource));
        const { pack, info } = await this.configured;
        const perResource = await Promise.all(this.analyses);
        const stackWide: Diagnostics = { diagnostics: await pack.analyzeStack([...resources], this.byUrn), urn: "" };
        const redact = secretRedactor(secretStrings(resources));
        const violations = [...perResource, stackWide].flatMap(({ diagnostics, urn }) =>
            diagnostics.map((diagnostic) => PolicyPackProcess.violation(diagnostic, urn, redact)),
        );
        return { info, violations: violations.sort(byPolicyAndUrn) };
    }
}

/** The verdict of a running `pack` over `resources`, all registered already. */
export function judge(
    pack: PolicyPackProcess,
    resources: readonly RecordedResource[],
    config: PackConfig,
    stack: { project: string; stack: string },
): Promise<{ info: PackInfo; violations: PolicyViolation[] }> {
    return new Judgement(Promise.resolve(pack), config, stack).verdict(resources);
}
