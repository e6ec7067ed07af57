/**
 * What a Cloud Armor security policy does to a client the program does not know: GCP evaluates its rules by priority,
 * lowest first, and the first whose match holds decides; a policy always has a default rule at the lowest priority that
 * matches every address, which allows when the program gives none. A rule matches by `srcIpRanges` or by a CEL
 * expression over the request (`inIpRange(origin.ip, '…')` and the other attributes of Cloud Armor's rules language),
 * which is evaluated here with Buf's CEL interpreter for an address that no range of the policy names. Sources:
 * `SOURCES.cloudArmorRegional` and `SOURCES.cloudArmorRules` in the catalog.
 */
import { CelScalar, celFunc, isCelError, run } from "@bufbuild/cel";
import { PolicyResource } from "@pulumi/policy";
import { CLOUD_ARMOR, ipv4InRange, opensToInternet } from "../facts";
import { Props } from "./resources";

/** Security policy types: regional and global, whose rules may also be resources of their own. */
const POLICY_TYPES = ["gcp:compute/regionSecurityPolicy:RegionSecurityPolicy", "gcp:compute/securityPolicy:SecurityPolicy"];
const RULE_TYPES = ["gcp:compute/regionSecurityPolicyRule:RegionSecurityPolicyRule", "gcp:compute/securityPolicyRule:SecurityPolicyRule"];

/** Addresses of documentation networks and a public resolver: one that no range of a policy names plays "anyone". */
const OUTSIDERS = ["203.0.113.77", "198.51.100.77", "192.0.2.77", "8.8.8.8"];

/** What a policy does to anyone the program does not know. */
export interface CloudArmorVerdict {
    /**
     * `restricts`: a rule denies them. `opens`: a rule allows every address by name (`*`, 0.0.0.0/0, or an expression
     * that holds for any address): the program chose to let the internet in. `guardsNothing`: nothing denies them, only
     * the default rule's allow (a policy with no rules, or only allowlists that are not followed by a deny).
     * `unknown`: an expression reads what a preview cannot know (a header, a region, a value not known yet).
     */
    verdict: "restricts" | "opens" | "guardsNothing" | "unknown";
    /** The rule that decides, for messages. */
    rule: string;
    /** A rule throttles or bans clients by rate. */
    rateLimited: boolean;
}

const policiesOfStack = new WeakMap<PolicyResource[], Map<string, { resource: PolicyResource; rules: Props[] }>>();

/** The security policies of the stack by their GCP name, with the rules that belong to each (inline and separate); built once per stack. */
export function securityPolicies(resources: PolicyResource[]): Map<string, { resource: PolicyResource; rules: Props[] }> {
    const known = policiesOfStack.get(resources);
    if (known !== undefined) {
        return known;
    }
    const policies = new Map<string, { resource: PolicyResource; rules: Props[] }>();
    policiesOfStack.set(resources, policies);
    for (const resource of resources.filter((candidate) => POLICY_TYPES.includes(candidate.type))) {
        if (typeof resource.props.name === "string") {
            policies.set(resource.props.name, { resource, rules: Array.isArray(resource.props.rules) ? [...resource.props.rules] : [] });
        }
    }
    for (const rule of resources.filter((candidate) => RULE_TYPES.includes(candidate.type))) {
        const owner = policies.get(String(rule.props.securityPolicy).split("/").pop()!);
        owner?.rules.push(rule.props);
    }
    return policies;
}

/** The literal addresses and ranges a policy's rules name. */
function namedRanges(rules: readonly Props[]): string[] {
    return rules.flatMap((rule) => [
        ...((rule.match?.config?.srcIpRanges ?? []) as unknown[]).map(String),
        ...(String(rule.match?.expr?.expression ?? "").match(/\d{1,3}(\.\d{1,3}){3}(\/\d{1,2})?/g) ?? []),
    ]);
}

const IN_IP_RANGE = celFunc("inIpRange", [CelScalar.STRING, CelScalar.STRING], CelScalar.BOOL, (address, range) =>
    ipv4InRange(address, range),
);

/** Whether a rule matches a request from `address`; undefined when its expression reads what is not known. */
function ruleMatches(rule: Props, address: string): boolean | undefined {
    if (rule.match?.expr?.expression !== undefined) {
        const result = run(String(rule.match.expr.expression), { origin: { ip: address } }, { funcs: [IN_IP_RANGE] });
        return typeof result === "boolean" && !isCelError(result) ? result : undefined;
    }
    const ranges: unknown[] = rule.match?.config?.srcIpRanges ?? [];
    return ranges.some((range) => range === "*" || (typeof range === "string" && ipv4InRange(address, range)));
}

/** True for an action that lets a matched request through (throttle and rate-based ban let it through under the rate). */
function allows(action: unknown): boolean {
    return action === "allow" || action === "throttle" || action === "rate_based_ban";
}

/** What a policy's rules (`rules`, inline and separate) do to a client the program does not know. */
export function cloudArmorVerdict(rules: readonly Props[]): CloudArmorVerdict {
    // A rule in preview mode only logs what it would do: "the specified action is not enforced" (@pulumi/gcp 9.37.0
    // types/input.d.ts RegionSecurityPolicyRule preview).
    const ordered = rules.filter((rule) => rule.preview !== true).sort((a, b) => Number(a.priority ?? 0) - Number(b.priority ?? 0));
    const rateLimited = rules.some((rule) => rule.action === "throttle" || rule.action === "rate_based_ban");
    const named = namedRanges(rules);
    const outsider = OUTSIDERS.find((address) => !named.some((range) => range !== "0.0.0.0/0" && ipv4InRange(address, range)));
    if (outsider === undefined) {
        return { verdict: "unknown", rule: "every address this check plays names a range of the policy", rateLimited };
    }
    for (const rule of ordered) {
        const matches = ruleMatches(rule, outsider);
        const where = `the rule at priority ${rule.priority ?? "(none)"}`;
        if (matches === undefined) {
            if (!allows(rule.action)) {
                // A deny can only refuse: someone it does not match (a request without the attack it looks for, from
                // another region) goes on to the next rule.
                continue;
            }
            return { verdict: "unknown", rule: `${where}, whose expression reads more than the client's address`, rateLimited };
        }
        if (!matches) {
            continue;
        }
        if (!allows(rule.action)) {
            return { verdict: "restricts", rule: where, rateLimited };
        }
        const explicit =
            Number(rule.priority) !== CLOUD_ARMOR.defaultRulePriority &&
            (opensToInternet(rule.match?.config?.srcIpRanges ?? []) || rule.match?.expr?.expression !== undefined);
        return { verdict: explicit ? "opens" : "guardsNothing", rule: where, rateLimited };
    }
    return { verdict: "guardsNothing", rule: "GCP's default rule, which allows as the policy sets none", rateLimited };
}
