import { requireFixedEndpointPickerImage as policy } from "../../policies/requireFixedEndpointPickerImage";
import { clusterPatch, envoyFilter } from "./extProcFixtures";
import { llmService } from "./fixtures";
import { UNKNOWN, check, kube } from "./harness";

/** A DestinationRule `name` in `models` for `host`, with `tls` as its traffic policy's. */
function destinationRule(name: string, host: string, tls: Record<string, unknown> = { mode: "SIMPLE", insecureSkipVerify: true }) {
    return kube("networking.istio.io/v1", "DestinationRule", name, {
        metadata: { name, namespace: "models" },
        spec: { host, trafficPolicy: { tls } },
    });
}

/** A Deployment running the EPP `image` and the Service in front of it. */
function standaloneEndpointPicker(image: string) {
    const labels = { app: "scheduler" };
    return [
        kube("apps/v1", "Deployment", "scheduler", {
            metadata: { name: "scheduler", namespace: "models" },
            spec: { selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: "epp", image }] } } },
        }),
        kube("v1", "Service", "scheduler", {
            metadata: { name: "scheduler", namespace: "models" },
            spec: { selector: labels, ports: [{ port: 9002 }] },
        }),
    ];
}

function withScheduler(image: unknown) {
    const service = llmService();
    (service.inputs.spec as { router: { scheduler: unknown } }).router.scheduler = { template: { containers: [{ name: "main", image }] } };
    return service;
}

describe("require-fixed-endpoint-picker-image", () => {
    test("passes the pinned EPP and KServe's default", async () => {
        expect(await check(policy, [withScheduler("ghcr.io/llm-d/llm-d-router-endpoint-picker:v0.10.0")])).toEqual([]);
        expect(await check(policy, [withScheduler("ghcr.io/llm-d/llm-d-router-endpoint-picker:v0.9.0")])).toEqual([]);
        expect(await check(policy, [withScheduler("ghcr.io/llm-d/llm-d-inference-scheduler:v0.7.1")])).toEqual([]);
    });

    test("fails releases without the ALPN fix and unversioned builds", async () => {
        expect(await check(policy, [withScheduler("ghcr.io/llm-d/llm-d-inference-scheduler:v0.4.0")])).toEqual([
            {
                level: "mandatory",
                resource: "qwen",
                message:
                    "qwen spec.router.scheduler.template.containers[0] (main) runs ghcr.io/llm-d/llm-d-inference-scheduler:v0.4.0; llm-d-inference-scheduler before v0.7.0 serves TLS gRPC without ALPN h2, so the Gateway's ext_proc cannot reach it.",
            },
        ]);
        expect(await check(policy, [withScheduler("quay.io/acme/llm-d-inference-scheduler:e6b5db0")])).toHaveLength(1);
    });

    test("an old EPP that serves plain gRPC (--secure-serving=false) has no TLS to offer ALPN on; the flag takes its value only after =", async () => {
        const scheduler = (args: string[]) => {
            const service = llmService();
            (service.inputs.spec as { router: { scheduler: unknown } }).router.scheduler = {
                template: { containers: [{ name: "main", image: "ghcr.io/llm-d/llm-d-inference-scheduler:v0.4.0", args }] },
            };
            return service;
        };
        expect(await check(policy, [scheduler(["--grpc-port=9002", "--secure-serving=false"])])).toEqual([]);
        // pflag reads `--secure-serving false` as the flag on and a stray argument.
        expect(await check(policy, [scheduler(["--secure-serving", "false"])])).toHaveLength(1);
        expect(await check(policy, [scheduler(["--secure-serving=true"])])).toHaveLength(1);
    });

    test("behind Istio, the DestinationRule or EnvoyFilter cluster that speaks TLS to an unfixed EPP is reported too", async () => {
        const old = "ghcr.io/llm-d/llm-d-inference-scheduler:v0.4.0";
        const findings = await check(policy, [
            withScheduler(old),
            destinationRule("qwen-epp", "qwen-epp-service.models.svc.cluster.local"),
            ...standaloneEndpointPicker(old),
            envoyFilter("epp-tls", [clusterPatch("epp", "scheduler.models.svc.cluster.local", 9002, true)]),
        ]);
        expect(findings.map(({ resource, message }) => [resource, message.split(";")[0]])).toEqual([
            ["qwen", `qwen spec.router.scheduler.template.containers[0] (main) runs ${old}`],
            ["scheduler", `scheduler spec.template.spec.containers[0] (epp) runs ${old}`],
            ["qwen-epp", `DestinationRule models/qwen-epp speaks TLS to qwen-epp-service.models.svc.cluster.local, whose EPP runs ${old}`],
            [
                "epp-tls",
                `EnvoyFilter gateway/epp-tls spec.configPatches[0] adds cluster epp, TLS to scheduler.models.svc.cluster.local, whose EPP runs ${old}`,
            ],
        ]);
        expect(findings[2].message).toMatch(
            /; llm-d-inference-scheduler before v0\.7\.0 offers no ALPN h2, so Envoy's ext_proc over that TLS fails\.$/,
        );
    });

    test("behind Istio: TLS to a fixed EPP, plain text to an unfixed one, and TLS to other hosts are left alone", async () => {
        const fixed = await check(policy, [
            withScheduler("ghcr.io/llm-d/llm-d-router-endpoint-picker:v0.10.0"),
            destinationRule("qwen-epp", "qwen-epp-service"),
        ]);
        expect(fixed).toEqual([]);
        const plain = await check(policy, [
            withScheduler("ghcr.io/llm-d/llm-d-inference-scheduler:v0.4.0"),
            destinationRule("qwen-epp", "qwen-epp-service", { mode: "DISABLE" }),
        ]);
        expect(plain.map((finding) => finding.resource)).toEqual(["qwen"]);
        const other = await check(policy, [
            withScheduler("ghcr.io/llm-d/llm-d-inference-scheduler:v0.4.0"),
            destinationRule("vllm", "qwen-http"),
        ]);
        expect(other.map((finding) => finding.resource)).toEqual(["qwen"]);
    });

    test("the minimum versions come from pack config", async () => {
        const config = { [policy.name]: { minimumVersions: { "llm-d-router-endpoint-picker": "0.10.0" } } };
        expect(await check(policy, [withScheduler("ghcr.io/llm-d/llm-d-router-endpoint-picker:v0.9.0")], config)).toHaveLength(1);
    });

    test("not applicable: other images", async () => {
        expect(await check(policy, [withScheduler("docker.io/library/nginx:1.27")])).toEqual([]);
    });

    test("preview: an unknown image is not a violation", async () => {
        expect((await check(policy, [withScheduler(UNKNOWN)]))[0].level).toBe("advisory");
    });
});
