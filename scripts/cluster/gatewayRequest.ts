/**
 * One HTTP(S) request through the inference Gateway as a caller makes it: the stack's CA trusted (the Gateway's
 * certificate is the stack's own), the key in `Authorization` and, with an identity check, the ID token in
 * `Proxy-Authorization`; no redirect followed, so that plain HTTP's redirect to HTTPS can be checked.
 */
import { X509Certificate } from "crypto";
import * as fs from "fs";
import * as http from "http";
import * as https from "https";
import { GOOGLE_ID_TOKEN } from "@gke-tpu-inference/facts";
import { CliError } from "../cli";

/** What a caller presents; each absent one is not sent. */
export interface GatewayCredentials {
    /** vLLM's key, sent as `Authorization: Bearer …`. */
    apiKey?: string;
    /** A Google ID token (IAP on GKE, RequestAuthentication on Istio), sent as `Proxy-Authorization: Bearer …`. */
    idToken?: string;
}

/** How requests reach the Gateway. */
export interface GatewayClient {
    /** PEM of the CA that signed the Gateway's certificate; absent: the system's trust store. */
    ca?: string;
    credentials: GatewayCredentials;
}

/** What came back. */
export interface GatewayResponse {
    status: number;
    text: string;
    location?: string;
}

/** Node's codes for a certificate the client does not trust (or that does not name the host): the server did answer. */
const TLS_VERIFICATION_CODES = new Set([
    "SELF_SIGNED_CERT_IN_CHAIN",
    "DEPTH_ZERO_SELF_SIGNED_CERT",
    "UNABLE_TO_GET_ISSUER_CERT",
    "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
    "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
    "CERT_UNTRUSTED",
    "CERT_HAS_EXPIRED",
    "CERT_NOT_YET_VALID",
    "ERR_TLS_CERT_ALTNAME_INVALID",
]);

/** True when `err` is this client refusing the Gateway's certificate: the Gateway answered, this machine did not trust it. */
export function isTlsVerificationError(err: unknown): boolean {
    const code = (err as { code?: unknown } | undefined)?.code;
    return typeof code === "string" && TLS_VERIFICATION_CODES.has(code);
}

/** The advice Node 24 adds to a certificate verification error's message (its `--use-system-ca` option). */
const NODE_SYSTEM_CA_HINT = /; if the root CA is installed locally, try running Node\.js with --use-system-ca$/;

/** What to do about a certificate the client refused, for a check's detail. */
export const TRUST_THE_STACK_CA =
    'trust the stack\'s CA: eval "$(pulumi stack output caCertificateCommand)" writes ca.crt, then pass --cacert ca.crt';

/** One PEM certificate block (RFC 7468 section 5's label). */
const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[^-]*-----END CERTIFICATE-----/g;

/**
 * The PEM of `--cacert FILE`, or a usage error naming it. Checked before any request: Node's `ca` option keeps the PEM
 * certificates it reads and drops the rest without a word (nodejs/node@00f666a:src/crypto/crypto_context.cc,
 * SecureContext::AddCACert), so a file of anything else would fail every request's verification, retried as if the
 * service were still starting.
 */
export function readCaFile(file: string): string {
    let pem: string;
    try {
        pem = fs.readFileSync(file, "utf8");
    } catch (err) {
        throw new CliError(`--cacert ${file}: ${(err as Error).message}`);
    }
    const blocks = pem.match(PEM_CERTIFICATE) ?? [];
    if (blocks.length === 0) {
        throw new CliError(
            `--cacert ${file} holds no PEM certificate (-----BEGIN CERTIFICATE-----): give the CA's certificate in PEM, as the stack's caCertificateCommand output writes it`,
        );
    }
    for (const block of blocks) {
        try {
            new X509Certificate(block);
        } catch (err) {
            throw new CliError(
                `--cacert ${file} holds a certificate that does not parse (${(err as Error).message}): write the CA's PEM again`,
            );
        }
    }
    return pem;
}

/** The headers `credentials` add to a request. */
export function credentialHeaders(credentials: GatewayCredentials): Record<string, string> {
    return {
        ...(credentials.apiKey !== undefined ? { Authorization: `Bearer ${credentials.apiKey}` } : {}),
        ...(credentials.idToken !== undefined ? { [GOOGLE_ID_TOKEN.header]: `${GOOGLE_ID_TOKEN.prefix}${credentials.idToken}` } : {}),
    };
}

/** Sends `method url` (with a JSON `body`) as `client` says; rejects on a connection failure, with a `TimeoutError` after `timeoutMs`. */
export function gatewayRequest(
    url: string,
    request: { method: string; body?: string },
    client: GatewayClient,
    timeoutMs: number,
): Promise<GatewayResponse> {
    const target = new URL(url);
    const headers = { ...credentialHeaders(client.credentials), ...(request.body ? { "Content-Type": "application/json" } : {}) };
    const send = target.protocol === "https:" ? https.request : http.request;
    return new Promise((resolve, reject) => {
        const req = send(target, { method: request.method, headers, ...(client.ca !== undefined ? { ca: client.ca } : {}) }, (res) => {
            let text = "";
            res.setEncoding("utf8");
            res.on("data", (chunk: string) => (text += chunk));
            res.on("end", () =>
                resolve({ status: res.statusCode ?? 0, text, ...(res.headers.location ? { location: res.headers.location } : {}) }),
            );
            res.on("error", reject);
        });
        req.setTimeout(timeoutMs, () => {
            const timeout = new Error(`no answer within ${timeoutMs} ms`);
            timeout.name = "TimeoutError";
            req.destroy(timeout);
        });
        req.on("error", (err: Error) => {
            if (isTlsVerificationError(err)) {
                // Node 24 appends a hint to install the CA system-wide; the stack's own CA is trusted by --cacert instead.
                err.message = err.message.replace(NODE_SYSTEM_CA_HINT, "");
            }
            reject(err);
        });
        req.end(request.body);
    });
}
