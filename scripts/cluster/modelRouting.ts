/**
 * Pattern 2 from the outside: a request at the Gateway's root naming a model in its body must reach the service that
 * serves that name. vLLM answers a chat completion with the name it served in `model` (the base model's first served
 * name, or the adapter's), and with 404 for a name it does not serve, so a 200 naming the model is the proof.
 */
import type { Finding } from "./checks";
import { GatewayClient, gatewayRequest } from "./gatewayRequest";

/** The stack's `modelRouting` output, as smoke and doctor read it. */
export interface ModelRouting {
    /** `http://<gateway>/v1`. */
    url: string;
    /** Each name a client may send as `model`, and the service it reaches. */
    models: Record<string, string>;
}

/** The `modelRouting` output of a stack, when it has one well formed. */
export function modelRoutingFromOutputs(outputs: unknown): ModelRouting | undefined {
    const routing = (outputs as { modelRouting?: { url?: unknown; models?: unknown } } | undefined)?.modelRouting;
    if (typeof routing?.url !== "string" || routing.models === null || typeof routing.models !== "object") {
        return undefined;
    }
    const models = Object.entries(routing.models as Record<string, unknown>).filter(
        (entry): entry is [string, string] => typeof entry[1] === "string",
    );
    return { url: routing.url, models: Object.fromEntries(models) };
}

/** The path the check posts to, under the endpoint's URL. */
export const ROUTED_PATH = "/chat/completions";

/** One chat completion of one token for `modelName` through the Gateway's root endpoint. */
export async function routedToModel(
    url: string,
    modelName: string,
    timeoutMs: number,
    client: GatewayClient = { credentials: {} },
): Promise<Finding> {
    const target = `${url.replace(/\/+$/, "")}${ROUTED_PATH}`;
    const body = JSON.stringify({ model: modelName, messages: [{ role: "user", content: "Hello" }], max_tokens: 1 });
    const response = await gatewayRequest(target, { method: "POST", body }, client, timeoutMs);
    const { text } = response;
    let served: unknown;
    try {
        served = (JSON.parse(text) as { model?: unknown }).model;
    } catch {
        served = undefined;
    }
    if (response.status === 200 && served === modelName) {
        return { ok: true, detail: `POST ${target}: HTTP 200 from ${modelName}` };
    }
    const said = text.slice(0, 160).replace(/\s+/g, " ").trim();
    return {
        ok: false,
        detail:
            response.status === 200
                ? `POST ${target}: HTTP 200 but answered as ${JSON.stringify(served)}, not ${JSON.stringify(modelName)}`
                : `POST ${target}: HTTP ${response.status}${said ? `: ${said}` : ""}`,
    };
}
