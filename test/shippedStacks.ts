import * as path from "path";
import { OfflineRun, runOffline } from "../scripts/offline/run";
import { Recording } from "../scripts/offline/run";
import { RecordOptions, runProgram } from "./harness";
import { cachedOnce } from "./runCache";

const ROOT = path.resolve(__dirname, "..");

/** The offline run of `Pulumi.<stack>.yaml` as it ships, recorded once per jest run (each caller gets its own copy). */
export function shippedRun(stack: string): Promise<OfflineRun> {
    return cachedOnce(`shipped-${stack}`, () => runOffline(ROOT, stack));
}

/** Configurations several test files record: each is recorded once per jest run. */
export const SHARED_PROGRAMS = {
    /** Two services, Pattern 3 and Pattern 1, and Pattern 2's body-based router, behind Istio. */
    istioRouted: {
        config: {
            gatewayProvider: "istio",
            tpuMaxNodes: "3",
            bodyBasedRouting: "true",
            models: JSON.stringify([
                { name: "qwen-pc", pattern: "pattern3", replicas: 2 },
                {
                    name: "phi",
                    pattern: "pattern1",
                    modelUri: "hf://microsoft/Phi-3-mini-4k-instruct",
                    modelName: "microsoft/Phi-3-mini-4k-instruct",
                },
            ]),
        },
        options: {},
    },
    /** Two services behind GKE's Gateway, one autoscaled (KEDA), with every opt-in guard: an allowlist, IAP and Model Armor. */
    gkeGuarded: {
        config: {
            tpuMaxNodes: "4",
            models: JSON.stringify([
                { name: "qwen", pattern: "pattern3", autoscaling: { minReplicas: 2, maxReplicas: 3 } },
                {
                    name: "phi",
                    pattern: "pattern1",
                    modelUri: "hf://microsoft/Phi-3-mini-4k-instruct",
                    modelName: "microsoft/Phi-3-mini-4k-instruct",
                },
            ]),
            allowedSourceRanges: '["203.0.113.0/24"]',
            gatewayIdentity: "iap",
            iapClientId: "123456789012-abc123.apps.googleusercontent.com",
            iapClientSecret: "s3cret",
            allowedIdentities: '["user:me@example.com"]',
            modelArmor: "true",
        },
        options: { secretKeys: ["iapClientSecret"] },
    },
} as const satisfies Record<string, { config: Record<string, string>; options: RecordOptions }>;

/** The recording of one of {@link SHARED_PROGRAMS}, once per jest run. */
export function sharedProgram(name: keyof typeof SHARED_PROGRAMS): Promise<Recording> {
    const { config, options } = SHARED_PROGRAMS[name];
    return cachedOnce(`program-${name}`, async () => (await runProgram(config, options)).recording);
}
