import * as http from "http";
import { AddressInfo } from "net";
import { CliError } from "../../scripts/cli";
import { credentialHeaders } from "../../scripts/cluster/gatewayRequest";
import { credentialsFrom, runAccessChecks, runOutsideChecks, runSmoke, targetsFromOutputs } from "../../scripts/smoke";

const MODEL = "Qwen/Qwen2.5-3B-Instruct";
const FAST = { attempts: 2, intervalMs: 10, requestTimeoutMs: 2000 };
const KEY = "k3y-never-printed";

/** A loopback server playing the Gateway and vLLM behind it: `/v1` needs the key unless `open`; `refuseAll` plays Cloud Armor's 403. */
async function fakeGateway(mode: "checks-key" | "open" | "refuse-all" | "iap") {
    const seen: Array<{ path: string; authorization?: string; proxy?: string }> = [];
    const server = http.createServer((req, res) => {
        const path = (req.url ?? "").replace(/^\/llm-inference\/qwen/, "");
        seen.push({ path, authorization: req.headers.authorization, proxy: req.headers["proxy-authorization"] as string | undefined });
        if (mode === "refuse-all") {
            res.writeHead(403).end("Forbidden");
        } else if (mode === "iap" && req.headers["proxy-authorization"] === undefined) {
            // IAP sends a browser-less caller without a token to Google's sign-in.
            res.writeHead(302, { Location: "https://accounts.google.com/o/oauth2/v2/auth?client_id=1-a" }).end();
        } else if (path.startsWith("/v1") && mode === "checks-key" && req.headers.authorization !== `Bearer ${KEY}`) {
            res.writeHead(401, { "Content-Type": "application/json" }).end(JSON.stringify({ error: "Unauthorized" }));
        } else if (path === "/health") {
            res.writeHead(200).end();
        } else if (path === "/v1/models") {
            res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ data: [{ id: MODEL }] }));
        } else if (path === "/v1/completions") {
            res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ choices: [{ text: "!" }] }));
        } else {
            res.writeHead(404).end();
        }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    return {
        services: { qwen: { baseUrl: `http://127.0.0.1:${port}/llm-inference/qwen`, modelName: MODEL } },
        seen,
        close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
}

describe("smoke against a secured stack", () => {
    test("the key goes in Authorization, an ID token in Proxy-Authorization", () => {
        expect(credentialHeaders({ apiKey: "a", idToken: "t" })).toEqual({ Authorization: "Bearer a", "Proxy-Authorization": "Bearer t" });
        expect(credentialHeaders({})).toEqual({});
    });

    test("authenticated checks pass with the key; the same request without it is refused", async () => {
        const gateway = await fakeGateway("checks-key");
        try {
            const options = { ...FAST, client: { credentials: { apiKey: KEY } } };
            expect((await runSmoke(gateway.services, options)).map((result) => [result.check, result.ok])).toEqual([
                ["/health", true],
                ["/v1/models", true],
                ["/v1/completions", true],
            ]);
            expect(await runAccessChecks(gateway.services, options)).toEqual([
                { service: "qwen", check: "refused without credentials", ok: true, attempts: 1, detail: "HTTP 401" },
            ]);
            expect(gateway.seen.at(-1)).toEqual({ path: "/v1/models", authorization: undefined, proxy: undefined });
        } finally {
            await gateway.close();
        }
    });

    test("behind IAP, its 302 to Google's sign-in is a refusal; a redirect elsewhere, or the same 302 without IAP, is not", async () => {
        const gateway = await fakeGateway("iap");
        try {
            const options = { ...FAST, client: { credentials: { apiKey: KEY, idToken: "t" } } };
            expect(await runAccessChecks(gateway.services, options, "iap")).toEqual([
                { service: "qwen", check: "refused without credentials", ok: true, attempts: 1, detail: "HTTP 302 to IAP's sign-in" },
            ]);
            expect(await runAccessChecks(gateway.services, options, "api-key")).toEqual([
                expect.objectContaining({
                    ok: false,
                    detail: `GET ${gateway.services.qwen.baseUrl}/v1/models without credentials: HTTP 302, not 401 or 403`,
                }),
            ]);
        } finally {
            await gateway.close();
        }
        expect(
            targetsFromOutputs(
                {
                    models: { qwen: { baseUrl: "https://x/llm-inference/qwen", modelName: MODEL } },
                    access: { identity: "iap" },
                },
                { API_KEY: KEY, ID_TOKEN: "t" },
            ).identity,
        ).toBe("iap");
    });

    test("a model server that answers without the key fails the check, once", async () => {
        const gateway = await fakeGateway("open");
        try {
            expect(await runAccessChecks(gateway.services, { ...FAST, client: { credentials: { apiKey: KEY } } })).toEqual([
                {
                    service: "qwen",
                    check: "refused without credentials",
                    ok: false,
                    attempts: 1,
                    detail: `GET ${gateway.services.qwen.baseUrl}/v1/models without credentials: HTTP 200, not 401 or 403`,
                },
            ]);
        } finally {
            await gateway.close();
        }
    });

    test("--outside: 403 and no connection are refusals; an answer is not", async () => {
        const refusing = await fakeGateway("refuse-all");
        const open = await fakeGateway("open");
        try {
            const options = { ...FAST, client: { credentials: { apiKey: KEY } } };
            expect((await runOutsideChecks(refusing.services, options))[0]).toEqual(
                expect.objectContaining({ check: "refused outside the allowed ranges", ok: true, detail: "HTTP 403" }),
            );
            expect((await runOutsideChecks(open.services, options))[0]).toEqual(
                expect.objectContaining({
                    ok: false,
                    detail: `GET ${open.services.qwen.baseUrl}/v1/models from outside the allowed ranges: HTTP 200, not 403`,
                }),
            );
            const closed = { qwen: { baseUrl: "http://127.0.0.1:1/llm-inference/qwen", modelName: MODEL } };
            expect((await runOutsideChecks(closed, options))[0]).toEqual(
                expect.objectContaining({ ok: true, detail: expect.stringMatching(/^no connection \(/) }),
            );
        } finally {
            await refusing.close();
            await open.close();
        }
    });

    test("credentials come from API_KEY and ID_TOKEN, or the key from outputs read with their secrets; missing ones are named", () => {
        const access = { apiKey: "[secret]", identity: "api-key" };
        expect(credentialsFrom({ access }, { API_KEY: KEY })).toEqual({ apiKey: KEY });
        expect(credentialsFrom({ access: { ...access, apiKey: KEY } }, {})).toEqual({ apiKey: KEY });
        expect(() => credentialsFrom({ access }, {})).toThrow(
            new CliError("the stack requires its key: export API_KEY=$(pulumi stack output access --show-secrets --json | jq -r .apiKey)"),
        );
        expect(() => credentialsFrom({ access: { ...access, identity: "iap" } }, { API_KEY: KEY })).toThrow(
            new CliError("the stack checks iap too: export ID_TOKEN=$(...) as its access.idTokenCommand output says"),
        );
        expect(credentialsFrom({ access: { ...access, identity: "iap" } }, { API_KEY: KEY, ID_TOKEN: "t" })).toEqual({
            apiKey: KEY,
            idToken: "t",
        });
        // A stack without access control: no credentials asked for.
        expect(targetsFromOutputs({ models: { qwen: { baseUrl: "http://x", modelName: MODEL } } }, {}).credentials).toBeUndefined();
    });
});
