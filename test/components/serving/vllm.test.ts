import * as fs from "fs";
import { parse } from "yaml";
import { VLLM_API_KEY } from "@gke-tpu-inference/facts";
import { endpointPickerContainer, prefixCacheEndpointPickerConfig, vllmArgs, vllmContainer } from "../../../components/serving/vllm";
import { sharedPath } from "../../shared";
import { PATTERN1, modelsFrom } from "../settings/parse";
import { ONE_VM } from "../workloads/modelServiceHarness";

const HTTP_PROBE = (path: string, periodSeconds: number, failureThreshold: number) => ({
    httpGet: { path, port: 8000, scheme: "HTTP" },
    periodSeconds,
    timeoutSeconds: 5,
    failureThreshold,
    successThreshold: 1,
});

describe("vLLM TPU container builder", () => {
    test("pattern 1: TP equal to the chips per VM, the context length, port 8000, KServe's drain and quiet access log, nothing vLLM rejects", () => {
        expect(vllmArgs(PATTERN1, ONE_VM)).toEqual([
            "/mnt/models",
            "--served-model-name",
            "Qwen/Qwen2.5-3B-Instruct",
            "publishers/{{ .ObjectMeta.Namespace }}/models/{{ .Spec.Model.Name }}",
            "--port=8000",
            "--shutdown-timeout=40",
            "--disable-access-log-for-endpoints=/health,/metrics,/ping",
            "--tensor-parallel-size=4",
            "--max-model-len=2048",
        ]);
    });

    test("pattern 3 adds prefix caching; extra args come last", () => {
        const [model] = modelsFrom([{ name: "q", pattern: "pattern3", extraArgs: ["--gpu-memory-utilization=0.9"] }]);
        expect(vllmArgs(model, { chipsPerVm: 8, hostsPerSlice: 1 }).slice(7)).toEqual([
            "--tensor-parallel-size=8",
            "--max-model-len=2048",
            "--enable-prefix-caching",
            "--gpu-memory-utilization=0.9",
        ]);
    });

    test("the container: the image as pulled, all chips requested and limited, a preStop pause before the drain, HTTP probes with the model's startup budget, root allowed", () => {
        expect(vllmContainer(PATTERN1, { shape: ONE_VM, image: PATTERN1.image, startupBudgetSeconds: 900 })).toEqual({
            name: "main",
            image: "docker.io/vllm/vllm-tpu:v0.27.0",
            command: ["vllm", "serve"],
            args: vllmArgs(PATTERN1, ONE_VM),
            ports: [{ containerPort: 8000, name: "http", protocol: "TCP" }],
            resources: { requests: { "google.com/tpu": "4" }, limits: { "google.com/tpu": "4" } },
            lifecycle: { preStop: { exec: { command: ["/bin/sleep", "15"] } } },
            startupProbe: HTTP_PROBE("/health", 5, 180),
            livenessProbe: HTTP_PROBE("/health", 10, 6),
            readinessProbe: HTTP_PROBE("/health", 5, 3),
            securityContext: { runAsNonRoot: false, runAsUser: 0 },
        });
    });

    test("with the key required, every probe asks a path vLLM does not guard: the kubelet sends no key, and a 401 would keep the pod out of service", () => {
        const container = vllmContainer(PATTERN1, {
            shape: ONE_VM,
            image: PATTERN1.image,
            startupBudgetSeconds: 900,
            apiKeySecret: "vllm-api-key",
        });
        expect(container.env).toEqual([
            { name: "VLLM_API_KEY", valueFrom: { secretKeyRef: { name: "vllm-api-key", key: "VLLM_API_KEY" } } },
        ]);
        const paths = [container.startupProbe, container.livenessProbe, container.readinessProbe].map((probe) => probe.httpGet.path);
        expect(paths).toEqual(["/health", "/health", "/health"]);
        expect(paths.filter((path) => VLLM_API_KEY.guardedPrefixes.some((prefix) => path.startsWith(prefix)))).toEqual([]);
    });
});

describe("endpoint picker", () => {
    test("pinned EPP image with secure serving on KServe's per-service certificate", () => {
        expect(endpointPickerContainer()).toEqual({
            name: "main",
            image: "ghcr.io/llm-d/llm-d-router-endpoint-picker:v0.10.0",
            command: [
                "/app/epp",
                "--pool-name",
                "{{ ChildName .ObjectMeta.Name `-inference-pool` }}",
                "--pool-namespace",
                "{{ .ObjectMeta.Namespace }}",
                "--zap-encoder",
                "json",
                "--grpc-port",
                "9002",
                "--grpc-health-port",
                "9003",
                "--secure-serving=true",
                "--cert-path=/var/run/kserve/tls",
                "--enable-cert-reload=true",
                "--metrics-endpoint-auth=false",
            ],
        });
    });

    test("pattern 3 config: the pinned EPP's prefix-cache sample with the production weights and explicit saturation thresholds", () => {
        const sample = parse(
            fs.readFileSync(sharedPath("reference", "llm-d-router-v0.10.0", "epp-estimate-prefix-cache-config.yaml"), "utf8"),
        );
        const config = prefixCacheEndpointPickerConfig();
        expect(config.apiVersion).toBe(sample.apiVersion);
        expect(config.kind).toBe(sample.kind);
        expect(config.plugins.filter((plugin) => plugin.type !== "utilization-detector")).toEqual(sample.plugins);
        expect(config.schedulingProfiles).toEqual([
            {
                name: "default",
                plugins: [
                    { pluginRef: "decode-filter" },
                    { pluginRef: "prefix-cache-scorer", weight: 2.0 },
                    { pluginRef: "load-aware-scorer", weight: 1.0 },
                    { pluginRef: "max-score-picker" },
                ],
            },
        ]);
        expect(config.plugins.find((plugin) => plugin.type === "utilization-detector")).toEqual({
            type: "utilization-detector",
            parameters: { queueDepthThreshold: 5, kvCacheUtilThreshold: 0.8, metricsStalenessThreshold: "200ms" },
        });
        expect(config.flowControl).toEqual({ saturationDetector: { pluginRef: "utilization-detector" } });
    });
});
