/**
 * What `npm run smoke` checks is refused: a request without credentials, plain HTTP, and with `--outside` every request
 * from outside `allowedSourceRanges`; and the credentials a caller presents.
 */
import { IAP } from "@gke-tpu-inference/facts";
import { CliError } from "../cli";
import { GatewayClient, GatewayCredentials, TRUST_THE_STACK_CA, gatewayRequest, isTlsVerificationError } from "../cluster/gatewayRequest";
import { CheckResult, ServiceEndpoint, SmokeOptions, retried } from "./requests";

/** Statuses that say the Gateway or the server refused the caller. */
const REFUSED = [401, 403];

/**
 * What must be refused from the operator's own network: a request without credentials (401 or 403; behind IAP, `identity`
 * `iap`, also its 302 to Google's sign-in), and plain HTTP, which only redirects to HTTPS. Each is one try: a refusal does not depend on the service having started.
 */
export async function runAccessChecks(
    services: Record<string, ServiceEndpoint>,
    options: SmokeOptions,
    identity?: string,
): Promise<CheckResult[]> {
    const once = { ...options, attempts: 1 };
    const anonymous: GatewayClient = { ...options.client, credentials: {} };
    const perService = await Promise.all(
        Object.entries(services).map(([service, endpoint]) => {
            const url = `${endpoint.baseUrl}/v1/models`;
            const checks = [
                retried(service, "refused without credentials", once, async () => {
                    const response = await gatewayRequest(url, { method: "GET" }, anonymous, options.requestTimeoutMs);
                    // IAP sends a caller without credentials to Google's sign-in rather than refusing it outright.
                    const signIn =
                        identity === "iap" && response.status === IAP.signIn.status && response.location?.startsWith(IAP.signIn.location);
                    return REFUSED.includes(response.status) || signIn
                        ? { ok: true, detail: signIn ? `HTTP ${response.status} to IAP's sign-in` : `HTTP ${response.status}` }
                        : {
                              ok: false,
                              detail: `GET ${url} without credentials: HTTP ${response.status}, not 401 or 403${identity === "iap" ? " or IAP's redirect to sign-in" : ""}`,
                          };
                }),
            ];
            if (url.startsWith("https://")) {
                const plain = url.replace(/^https:/, "http:");
                checks.push(
                    retried(service, "plain HTTP redirects to HTTPS", once, async () => {
                        const response = await gatewayRequest(plain, { method: "GET" }, anonymous, options.requestTimeoutMs);
                        return response.location?.startsWith("https://") && [301, 302, 308].includes(response.status)
                            ? { ok: true, detail: `HTTP ${response.status} to ${response.location}` }
                            : { ok: false, detail: `GET ${plain}: HTTP ${response.status}, not a redirect to https` };
                    }),
                );
            }
            return Promise.all(checks);
        }),
    );
    return perService.flat();
}

/**
 * `--outside`, run from an address outside `allowedSourceRanges`: every service refuses even a request with
 * credentials, with 403 (Cloud Armor, Istio's policy) or no connection at all (the load balancer's firewall).
 */
export async function runOutsideChecks(services: Record<string, ServiceEndpoint>, options: SmokeOptions): Promise<CheckResult[]> {
    const once = { ...options, attempts: 1 };
    return Promise.all(
        Object.entries(services).map(([service, endpoint]) =>
            retried(service, "refused outside the allowed ranges", once, async () => {
                const url = `${endpoint.baseUrl}/v1/models`;
                try {
                    const response = await gatewayRequest(
                        url,
                        { method: "GET" },
                        options.client ?? { credentials: {} },
                        options.requestTimeoutMs,
                    );
                    return response.status === 403
                        ? { ok: true, detail: "HTTP 403" }
                        : { ok: false, detail: `GET ${url} from outside the allowed ranges: HTTP ${response.status}, not 403` };
                } catch (err) {
                    if (!isTlsVerificationError(err)) {
                        return { ok: true, detail: `no connection (${(err as Error).message})` };
                    }
                    if (options.client?.ca !== undefined) {
                        // The CA given is wrong: `retried` ends the run, saying so.
                        throw err;
                    }
                    // A certificate this machine does not trust is the Gateway answering, not refusing.
                    return {
                        ok: false,
                        detail: `GET ${url}: the Gateway answered, with a certificate not trusted here (${(err as Error).message}); ${TRUST_THE_STACK_CA}`,
                    };
                }
            }),
        ),
    );
}

/**
 * What a caller presents: `API_KEY` and `ID_TOKEN` from the environment, else the key from the stack's `access`
 * output when it was read with its secrets. The values are never printed.
 */
export function credentialsFrom(outputs: unknown, env: NodeJS.ProcessEnv): GatewayCredentials {
    const access = (outputs as { access?: { apiKey?: unknown; identity?: unknown } } | undefined)?.access;
    const fromOutputs = typeof access?.apiKey === "string" && access.apiKey !== "[secret]" ? access.apiKey : undefined;
    const apiKey = env.API_KEY || fromOutputs;
    if (access !== undefined && apiKey === undefined) {
        throw new CliError(
            "the stack requires its key: export API_KEY=$(pulumi stack output access --show-secrets --json | jq -r .apiKey)",
        );
    }
    if (access?.identity !== undefined && access.identity !== "api-key" && !env.ID_TOKEN) {
        throw new CliError(
            `the stack checks ${String(access.identity)} too: export ID_TOKEN=$(...) as its access.idTokenCommand output says`,
        );
    }
    return { ...(apiKey ? { apiKey } : {}), ...(env.ID_TOKEN ? { idToken: env.ID_TOKEN } : {}) };
}
