/**
 * What Istio's AuthorizationPolicies at a Gateway do to someone the program does not know, as Istio evaluates them:
 * each rule's sources, operations and conditions, for a stranger without a token and one holding any token an
 * accepted issuer gives. Source: {@link SOURCES.istioAuthorization}.
 */
import { ISTIO } from "../catalog";
import { GatewayPods, PlacedAuthorizationPolicy, appliesToGateway, opensToInternet } from "./access";
import { KubeProps } from "./objects";

/**
 * Someone the program does not know, as Istio's AuthorizationPolicies see them: no mesh identity (mTLS), an address no
 * allowlist names, any header they like; `anonymous` sends no token, `tokenHolder` a token the stack's
 * RequestAuthentication accepts (an issuer such as accounts.google.com gives anyone one) with no particular claim.
 */
type Outsider = "anonymous" | "tokenHolder";

/** Whether a rule (or part of one) matches an outsider: yes, no, or what the pack cannot tell; with what made it match. */
interface OutsiderMatch {
    matches: boolean | "unknown";
    /** It matched through a range that names every address (0.0.0.0/0). */
    openRange: boolean;
    /** Header values written in the program that it compares (anyone can send them). */
    literalHeaders: string[];
}

const YES: OutsiderMatch = { matches: true, openRange: false, literalHeaders: [] };
const NO: OutsiderMatch = { matches: false, openRange: false, literalHeaders: [] };
const UNKNOWN: OutsiderMatch = { matches: "unknown", openRange: false, literalHeaders: [] };

/** All of `parts` must match (a source's fields, a rule's from, to and when). */
function all(parts: readonly OutsiderMatch[]): OutsiderMatch {
    const matches = parts.some((part) => part.matches === false)
        ? false
        : parts.some((part) => part.matches === "unknown")
          ? "unknown"
          : true;
    return {
        matches,
        openRange: matches === true && parts.some((part) => part.openRange),
        literalHeaders: matches === false ? [] : parts.flatMap((part) => part.literalHeaders),
    };
}

/** One of `parts` must match (a rule's `from` entries); the plainest match is the one reported. */
function any(parts: readonly OutsiderMatch[]): OutsiderMatch {
    const matching = parts.filter((part) => part.matches === true);
    if (matching.length > 0) {
        return matching.find((part) => !part.openRange && part.literalHeaders.length === 0) ?? matching[0];
    }
    return parts.some((part) => part.matches === "unknown") ? UNKNOWN : NO;
}

/** A list field's strings. */
function strings(value: unknown): string[] {
    return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

/** True when a request principal pattern (`iss/sub`, `*`, `iss/*`) takes any subject: a token holder matches it. */
const takesAnySubject = (principal: string) => principal === "*" || principal.endsWith("*");

/** How an address allowlist (`values`) or blocklist (`notValues`) treats an outsider's address. */
function byAddress(values: unknown, excluded: boolean): OutsiderMatch {
    const ranges = strings(values);
    if (excluded) {
        return opensToInternet(ranges) ? NO : YES;
    }
    return opensToInternet(ranges) ? { ...YES, openRange: true } : NO;
}

/** How one field of a rule's `source` treats an outsider (istio/api authorization_policy.proto Source). */
function sourceField(field: string, value: unknown, who: Outsider): OutsiderMatch {
    switch (field) {
        case "principals":
        case "namespaces":
        case "serviceAccounts":
            // Mesh identities, which only an mTLS peer has.
            return strings(value).length > 0 ? NO : YES;
        case "notPrincipals":
        case "notNamespaces":
        case "notServiceAccounts":
            return YES;
        case "requestPrincipals":
            return who === "tokenHolder" && strings(value).some(takesAnySubject) ? YES : strings(value).length > 0 ? NO : YES;
        case "notRequestPrincipals":
            return who === "anonymous" || !strings(value).some(takesAnySubject) ? YES : NO;
        case "ipBlocks":
        case "remoteIpBlocks":
            return byAddress(value, false);
        case "notIpBlocks":
        case "notRemoteIpBlocks":
            return byAddress(value, true);
        default:
            return UNKNOWN;
    }
}

/**
 * How one `when` condition treats an outsider (istio 1.29.6 pilot/pkg/security/authz/model/model.go: its keys; each
 * condition is ANDed to the rule). In an ALLOW rule it matches where the outsider can meet it (send the header, aim at
 * the port); in a DENY rule only where every such outsider meets it, for a DENY refuses only the requests it matches
 * (https://istio.io/latest/docs/tasks/security/authorization/authz-deny/).
 */
function condition(when: KubeProps, who: Outsider, action: string): OutsiderMatch {
    const key = String(when?.key);
    const excluded = when?.notValues !== undefined && when?.values === undefined;
    const values = excluded ? when.notValues : when?.values;
    const deny = action === "DENY";
    if (key === "remote.ip" || key === "source.ip") {
        return byAddress(values, excluded);
    }
    if (key.startsWith("request.headers[")) {
        // The outsider chooses its headers: it sends a literal a rule lets in, and leaves out one a rule refuses.
        return deny ? NO : excluded ? YES : { ...YES, literalHeaders: strings(values).map((value) => `${key.slice(16, -1)}: ${value}`) };
    }
    if (key.startsWith("request.auth.")) {
        // A token's issuer alone names anyone holding one; any other claim, principal, audience or presenter names someone.
        const issuerOnly = key === "request.auth.claims[iss]";
        if (excluded) {
            // Without a token nothing is listed; a holder of an accepted issuer's token is listed under the issuer.
            return who === "tokenHolder" && issuerOnly ? NO : YES;
        }
        return who === "tokenHolder" && issuerOnly ? YES : NO;
    }
    if (key === "source.principal" || key === "source.namespace") {
        return excluded ? YES : NO;
    }
    if (key.startsWith("destination.") || key === "connection.sni" || key.startsWith("request.regex.") || key.startsWith("experimental.")) {
        // What the request is aimed at, not who sends it: the outsider can aim at it, or elsewhere.
        return deny ? NO : YES;
    }
    return UNKNOWN;
}

/** True when a DENY rule's `to` covers every request (no operation, or one that names no path, method, host or port, or every path). */
function coversEveryRequest(to: unknown): boolean {
    return (
        !Array.isArray(to) ||
        to.length === 0 ||
        to.some((entry: KubeProps) => {
            const operation: KubeProps = entry?.operation ?? {};
            const paths = strings(operation.paths);
            return (
                Object.keys(operation).every((field) => field === "paths") &&
                (paths.length === 0 || paths.some((p) => p === "*" || p === "/*"))
            );
        })
    );
}

/** How a rule treats an outsider: its sources (any of them), its operations and its conditions (all). */
function ruleMatch(rule: KubeProps, who: Outsider, action: string): OutsiderMatch {
    const froms: KubeProps[] = Array.isArray(rule?.from) ? rule.from : [];
    const from =
        froms.length === 0
            ? YES
            : any(
                  froms.map((entry) =>
                      all(Object.entries((entry?.source ?? {}) as KubeProps).map(([field, value]) => sourceField(field, value, who))),
                  ),
              );
    // An ALLOW rule's operations say which requests it lets through, some of which an outsider sends; a DENY rule
    // refuses the outsider only if it covers every request.
    const to = action === "DENY" && !coversEveryRequest(rule?.to) ? NO : YES;
    const conditions = (Array.isArray(rule?.when) ? rule.when : []).map((entry: KubeProps) => condition(entry, who, action));
    return all([from, to, ...conditions]);
}

/** What Istio decides for one outsider, and the policy that decides it. */
interface OutsiderDecision {
    decision: "allowed" | "denied" | "unknown";
    deciding?: PlacedAuthorizationPolicy;
    match?: OutsiderMatch;
}

/** Istio's order for one outsider: a matching DENY rule refuses; with no ALLOW policy everything passes; else only what an ALLOW rule matches. */
function decide(applying: readonly PlacedAuthorizationPolicy[], who: Outsider): OutsiderDecision {
    const action = (policy: PlacedAuthorizationPolicy) => policy.props.spec?.action ?? "ALLOW";
    const rulesOf = (policy: PlacedAuthorizationPolicy): KubeProps[] =>
        Array.isArray(policy.props.spec?.rules) ? policy.props.spec.rules : [];
    const denying = applying.filter((policy) => action(policy) === "DENY");
    const denied = denying.find((policy) => rulesOf(policy).some((rule) => ruleMatch(rule, who, "DENY").matches === true));
    if (denied !== undefined) {
        return { decision: "denied", deciding: denied };
    }
    const uncertainDeny = denying.find((policy) => rulesOf(policy).some((rule) => ruleMatch(rule, who, "DENY").matches === "unknown"));
    const allowing = applying.filter((policy) => action(policy) === "ALLOW");
    if (allowing.length === 0) {
        return uncertainDeny ? { decision: "unknown", deciding: uncertainDeny } : { decision: "allowed" };
    }
    const matches = allowing.flatMap((policy) => rulesOf(policy).map((rule) => ({ policy, match: ruleMatch(rule, who, "ALLOW") })));
    const plainest = any(matches.map(({ match }) => match));
    const allowed = matches.find(({ match }) => match === plainest && match.matches === true);
    if (allowed !== undefined) {
        return uncertainDeny
            ? { decision: "unknown", deciding: uncertainDeny }
            : { decision: "allowed", deciding: allowed.policy, match: allowed.match };
    }
    const uncertain = matches.find(({ match }) => match.matches === "unknown");
    return uncertain ? { decision: "unknown", deciding: uncertain.policy } : { decision: "denied", deciding: allowing[0] };
}

/**
 * The JWT issuers a Gateway's RequestAuthentications accept, as far as a stranger is concerned: `public`, one that gives
 * anyone a token ({@link ISTIO}.publicTokenIssuers) or one the program does not show; `private` only the program's own;
 * `none`, no RequestAuthentication in the program.
 */
export type TokenIssuers = "public" | "private" | "none";

/** Which issuers RequestAuthentications accept ({@link TokenIssuers}), from their `jwtRules[].issuer`. */
export function tokenIssuers(requestAuthentications: readonly KubeProps[]): TokenIssuers {
    if (requestAuthentications.length === 0) {
        return "none";
    }
    const issuers = requestAuthentications.flatMap((authentication) =>
        (Array.isArray(authentication.spec?.jwtRules) ? (authentication.spec.jwtRules as KubeProps[]) : []).map((rule) => rule?.issuer),
    );
    return issuers.some((issuer) => typeof issuer !== "string" || (ISTIO.publicTokenIssuers as readonly string[]).includes(issuer))
        ? "public"
        : "private";
}

/** What Istio's AuthorizationPolicies at a Gateway do to someone the program does not know. */
export interface IstioAuthorization {
    /**
     * `restricts`: they refuse the outsider. `opens`: an ALLOW rule lets every address in by name (0.0.0.0/0).
     * `guardsNothing`: nothing refuses the outsider (no ALLOW policy, an ALLOW rule with no source, a header value the
     * program writes), or anyone holding a token of the accepted issuers with no claim condition (`through: "token"`).
     * `unknown`: what decides is not in the program (a CUSTOM policy's external authorizer) or not judged here.
     */
    verdict: "restricts" | "opens" | "guardsNothing" | "unknown";
    deciding?: PlacedAuthorizationPolicy;
    /** How the outsider gets in when they do: as anyone, with any token, or by sending a header value the program writes. */
    through?: "anyone" | "token" | "header";
    literalHeaders: string[];
    /** Every request must carry a token whose claims the policies check. */
    identity: boolean;
}

/**
 * What Istio's AuthorizationPolicies do at Gateway `gateway` (its props) of `namespace` to someone the program does not
 * know, as Istio evaluates them: CUSTOM policies first (an external authorizer, which the program does not show), then
 * DENY (a matching rule refuses), then ALLOW (with none, everything passes; else only what one ALLOW rule matches: the
 * policies are a union). Sources: {@link SOURCES.istioAuthorization}.
 */
export function istioAuthorizationVerdict(
    policies: readonly PlacedAuthorizationPolicy[],
    gateway: KubeProps,
    namespace: string,
    pods?: GatewayPods,
    tokens: TokenIssuers = "public",
): IstioAuthorization {
    const applying = policies.filter((policy) => appliesToGateway(policy, gateway, namespace, pods));
    const anonymous = decide(applying, "anonymous");
    // A stranger holds a token only from an issuer that gives anyone one: where the program shows only its own issuers,
    // none. Without a RequestAuthentication in the program, one may be applied elsewhere (the mesh's root namespace),
    // with an issuer the pack cannot see: counted as one that gives anyone a token.
    const tokenHolder = tokens === "private" ? anonymous : decide(applying, "tokenHolder");
    const identity = anonymous.decision === "denied" && tokenHolder.decision === "denied" && applying.some(asksForToken);
    if (anonymous.decision === "denied" && tokenHolder.decision === "denied") {
        return { verdict: "restricts", deciding: tokenHolder.deciding, literalHeaders: [], identity };
    }
    const custom = applying.find((policy) => policy.props.spec?.action === "CUSTOM");
    if (custom !== undefined) {
        return { verdict: "unknown", deciding: custom, literalHeaders: [], identity };
    }
    for (const [outsider, through] of [
        [anonymous, "anyone"],
        [tokenHolder, "token"],
    ] as const) {
        if (outsider.decision === "unknown") {
            return { verdict: "unknown", deciding: outsider.deciding, literalHeaders: [], identity };
        }
        if (outsider.decision === "allowed") {
            const headers = outsider.match?.literalHeaders ?? [];
            return {
                verdict: outsider.match?.openRange ? "opens" : "guardsNothing",
                deciding: outsider.deciding,
                through: headers.length > 0 ? "header" : through,
                literalHeaders: headers,
                identity,
            };
        }
    }
    return { verdict: "restricts", deciding: tokenHolder.deciding, literalHeaders: [], identity };
}

/** Why an outsider gets through Istio's AuthorizationPolicies (verdict guardsNothing), for messages; `policy` names the deciding one. */
export function istioOpenReason(authorization: IstioAuthorization, policy: string | undefined): string {
    if (authorization.through === "token") {
        const admitting =
            policy === undefined
                ? "its AuthorizationPolicies refuse only requests without a token, so they admit"
                : `AuthorizationPolicy ${policy} admits`;
        return `${admitting} anyone holding a token its RequestAuthentication accepts, with no condition on its claims but the issuer (an issuer such as accounts.google.com gives anyone one)`;
    }
    if (policy === undefined) {
        return "no ALLOW AuthorizationPolicy applies to it, no DENY rule refuses an unknown source";
    }
    switch (authorization.through) {
        case "header":
            return `AuthorizationPolicy ${policy} lets in whoever sends ${authorization.literalHeaders.join(", ")}, a value written in the program, which anyone who reads the program or the stack's state can send`;
        default:
            return `AuthorizationPolicy ${policy} allows requests from any source (Istio allows what any ALLOW policy matches)`;
    }
}

/** True when a policy's ALLOW rules ask for a token (a request principal, or a condition on the token's claims). */
function asksForToken(policy: PlacedAuthorizationPolicy): boolean {
    const rules: KubeProps[] = Array.isArray(policy.props.spec?.rules) ? policy.props.spec.rules : [];
    return rules.some(
        (rule) =>
            (Array.isArray(rule?.from) ? rule.from : []).some((from: KubeProps) => strings(from?.source?.requestPrincipals).length > 0) ||
            (Array.isArray(rule?.when) ? rule.when : []).some((entry: KubeProps) => String(entry?.key).startsWith("request.auth.")),
    );
}
