/** Lessons of the TPU nodes and the vLLM servers on them: zones, capacity, labels, chips, slices, starts, flags, probes (their scheme, and their path under an API key). */
import {
    CAPACITY_NODE_LABELS,
    CAPACITY_SOURCES,
    COLD_START_ANNOTATION,
    COMPUTE_CLASS,
    COLD_START_PESSIMISTIC_ANNOTATION,
    GKE_TPU_V6E_ZONES,
    MINIMUM_TPU_STARTUP_SECONDS,
    TPU_MULTI_HOST,
    TPU_NODE,
    SOURCES,
    TPU_REJECTED_VLLM_FLAGS,
    VLLM_API_KEY,
    VLLM_HEALTH_PATH,
    VLLM_TPU_LOADING,
} from "../catalog";
import { Lesson } from "./lesson";

export const TPU_LESSONS = [
    {
        id: "tpu-zones",
        title: "GKE offers TPU v6e node pools in fewer zones than TPU VMs are offered in",
        symptom: 'The TPU node pool fails with "Unsupported TPU configuration" in a zone where TPU v6e VMs are listed.',
        cause: "A zone that lists TPU v6e for TPU VMs can still refuse a GKE node pool; GKE's TPU v6e zones are a list of their own.",
        fix: `Set the node pool's nodeLocations (or a zonal cluster's location) to a GKE TPU v6e zone: ${GKE_TPU_V6E_ZONES.join(", ")}.`,
        prevention:
            "The zone is validated against the catalog's GKE TPU v6e zones, and the machine type is checked in the zone at preview.",
        inspect: "gcloud container node-pools describe <pool> --cluster <cluster> --region <region> --format='value(locations)'",
        sources: [
            "https://cloud.google.com/kubernetes-engine/docs/concepts/plan-tpus (TPU v6e availability on GKE)",
            "https://cloud.google.com/tpu/docs/regions-zones",
        ],
    },
    {
        id: "tpu-capacity",
        title: "GKE may have no TPU v6e capacity in the zone (GCE_STOCKOUT, ZONE_RESOURCE_POOL_EXHAUSTED)",
        symptom:
            'TPU pods stay Pending and the node pool cannot grow: GCE_STOCKOUT, ZONE_RESOURCE_POOL_EXHAUSTED, or FailedScaleUp "GCE out of resources".',
        cause: "A supported zone can still run out of TPU v6e capacity: on-demand TPU VMs are never preempted but not guaranteed either, and a quota increase does not help.",
        fix: `Give TPU pods more than one way to get capacity: a node pool per option (a reservation, on-demand, flex-start, spot), each with the label and NoSchedule taint ${COMPUTE_CLASS.label}=<class>, and a ComputeClass whose priorities name the pools in order, which the pods select; GKE's autoscaler then backs off an option that is out and tries the next. Otherwise wait and retry, or move to another supported zone.`,
        prevention:
            "tpuCapacity lists the options in the order GKE tries them: a node pool each and a ComputeClass that orders them (the prod stack falls back from on-demand to spot); the tpuCapacityPlan output shows the plan and each option's cost at preview.",
        recovery:
            "the ComputeClass moves to the plan's next option after GKE's backoff; add a fallback option to tpuCapacity (flex-start in its zones, spot), or wait and retry, or move to another supported zone",
        inspect: `kubectl get ${COMPUTE_CLASS.kind.toLowerCase()} <class> -o yaml; kubectl get events -n llm-inference --field-selector reason=FailedScaleUp`,
        sources: [
            "https://cloud.google.com/kubernetes-engine/docs/how-to/tpus (capacity: reservations, spot VMs)",
            CAPACITY_SOURCES.consumptionOptions,
            CAPACITY_SOURCES.computeClasses,
            CAPACITY_SOURCES.manualPools,
            CAPACITY_SOURCES.failedScaleUp,
        ],
    },
    {
        id: "tpu-selector",
        title: "TPU pods schedule only where the selector names GKE's own TPU labels (tpu-v6e-slice, the slice topology) in a zone with GKE TPU v6e pools",
        symptom: "TPU pods stay Pending forever: no node matches their selector.",
        cause: `GKE labels TPU v6e nodes ${TPU_NODE.acceleratorLabel}: ${TPU_NODE.acceleratorValue} (the TPU VM API's accelerator type is tpu-v6e) and ${TPU_NODE.topologyLabel}: the slice topology; a pod that selects another value, or a topology no pool has, is never placed. A pod that selects a ComputeClass (${COMPUTE_CLASS.label}) gets only the nodes its priorities give: the pools they name, which join the class by its label and NoSchedule taint, or the TPU shapes they list; one that selects spot, flex-start or a reservation (${CAPACITY_NODE_LABELS.spot}, ${CAPACITY_NODE_LABELS.flexStart}, ${CAPACITY_NODE_LABELS.reservationName}) only nodes bought that way.`,
        fix: `Select ${TPU_NODE.acceleratorLabel}: ${TPU_NODE.acceleratorValue} and ${TPU_NODE.topologyLabel}: the pool's topology (e.g. 2x2 for ct6e-standard-4t), with a nodeSelector or a required node affinity. To select a ComputeClass, declare it with priorities whose pools (or TPU shapes) match that accelerator and topology, and give each pool it names the class's label and taint ${COMPUTE_CLASS.label}=<class>:NoSchedule; select spot, flex-start or a reservation only where a pool of that kind exists.`,
        prevention: "Selectors and tolerations come from the catalog, from the TPU pool's own machine type and topology.",
        recovery: `select ${TPU_NODE.acceleratorLabel} and ${TPU_NODE.topologyLabel} as the TPU pool's nodes carry them (this stack derives them from the pool; \`pulumi up\`)`,
        inspect: `kubectl get nodes -L ${TPU_NODE.acceleratorLabel},${TPU_NODE.topologyLabel}`,
        sources: [
            "https://cloud.google.com/kubernetes-engine/docs/how-to/tpus (nodeSelector cloud.google.com/gke-tpu-accelerator and gke-tpu-topology)",
            CAPACITY_SOURCES.computeClasses,
            CAPACITY_SOURCES.manualPools,
            CAPACITY_SOURCES.nodeLabels,
        ],
    },
    {
        id: "all-tpu-chips",
        title: "A TPU container must request every chip of its VM",
        symptom: "A TPU pod that requests fewer chips than its VM has is never scheduled, or shares a VM it cannot use.",
        cause: `GKE hands out TPU VMs whole: a pod asks for ${TPU_NODE.resourceName} equal to the chips per VM of its topology.`,
        fix: `Set resources.limits (and requests, if set) ${TPU_NODE.resourceName} to the chips per VM: 1 for 1x1, 4 for 2x2 and multi-host shapes, 8 for 2x4.`,
        prevention: `The server requests ${TPU_NODE.resourceName} equal to the chips per VM of the pool's machine type.`,
        inspect: `kubectl describe pod <pod> | grep -A2 ${TPU_NODE.resourceName}`,
        sources: ["https://cloud.google.com/kubernetes-engine/docs/how-to/tpus (request all the TPU chips on the node)"],
    },
    {
        id: "whole-slice-groups",
        title: "A multi-host TPU slice works as one: a LeaderWorkerSet group of one pod per host, each group on one slice",
        symptom: "Pods of a multi-host slice wait for hosts that never join, or a group restarts again and again.",
        cause: "A multi-host slice serves one model only when one pod runs on each of its hosts as one group: single pods, a group smaller than the slice's hosts, or a group spread over two slices never form.",
        fix: `Give an LLMInferenceService on a multi-host topology spec.worker and parallelism whose group is the slice's hosts (pipeline: 4 on 4x4); a LeaderWorkerSet leaderWorkerTemplate.size of the slice's hosts. Annotate either with ${TPU_MULTI_HOST.exclusiveTopology.annotation}: ${TPU_MULTI_HOST.exclusiveTopology.key}.`,
        prevention:
            "A multi-host model runs one LeaderWorkerSet group per slice, of the slice's hosts, placed exclusively on one node pool.",
        recovery:
            "a pod of the group restarted and LeaderWorkerSet started the whole group again: the group's pods' previous logs say why (Ray not formed within the preset's wait, the startup probe, a worker crash)",
        sources: [
            "kubernetes-sigs/lws v0.10.0 docs/examples/vllm/TPU/lws.yaml (a 4x4 slice served by one group of 4)",
            "kubernetes-sigs/lws v0.10.0 config/samples/leaderworkerset_exclusiveplacement.yaml (exclusive-topology cloud.google.com/gke-nodepool)",
        ],
    },
    {
        id: "startup-budget",
        title: "A TPU pod needs 4–6 minutes (download, TPU start, XLA compilation) before vLLM answers; a shorter startup budget restarts it forever",
        symptom: "A TPU pod restarts before it ever becomes Ready: the startup or liveness probe kills it while it loads and compiles.",
        cause: "Downloading the weights, starting the TPU runtime and compiling the model's XLA programs take minutes before vLLM answers its health check; a probe that fires earlier restarts the container, which starts over.",
        fix: `Add a startupProbe on the same endpoint with a short period and periodSeconds x failureThreshold of at least twice the ${COLD_START_ANNOTATION} annotation, at least the ${COLD_START_PESSIMISTIC_ANNOTATION} annotation and at least ${MINIMUM_TPU_STARTUP_SECONDS} s, instead of a long fixed initialDelaySeconds.`,
        prevention: "A startup probe sized from the model's pessimistic start, never below 10 minutes.",
        recovery: `let the startup probe allow at least ${MINIMUM_TPU_STARTUP_SECONDS} s (this stack's builder does; the pack's enforce-tpu-startup-budget checks it)`,
        inspect: "kubectl get pods -n llm-inference -w; kubectl describe pod <pod>",
        sources: [
            "https://kubernetes.io/docs/concepts/configuration/liveness-readiness-startup-probes/ (a startup probe holds the liveness probe off)",
            "kserve/kserve v0.20.0 config/llmisvcconfig/config-llm-template.yaml (KServe's probes of vLLM)",
        ],
    },
    {
        id: "xla-cache",
        title: "Every start compiles the model again unless the XLA compilation cache outlives the pod",
        symptom: "Every restart, scale-out and resume spends the same minutes compiling before the server answers.",
        cause: `vLLM on TPU keeps compiled programs in JAX's persistent cache at ${VLLM_TPU_LOADING.compilationCacheEnv}; left at its default (under the container's home) or on an emptyDir, the cache goes with the pod.`,
        fix: `Set ${VLLM_TPU_LOADING.compilationCacheEnv} to a gs:// prefix the server's Workload Identity may read and write (per model, topology and image), or to a path on a persistent volume; do not set ${VLLM_TPU_LOADING.disableCacheEnv}.`,
        prevention: "The compilation cache lives in the stack's bucket, per model, topology and image.",
        sources: [
            "vllm-project/tpu-inference v0.27.0 tpu_inference/runner/compilation_manager.py:65-68 (the cache directory is VLLM_XLA_CACHE_PATH)",
            "jax-ml/jax docs/persistent_compilation_cache.md (a Cloud Storage bucket as the cache)",
        ],
    },
    {
        id: "tpu-autoscaling",
        title: "An autoscaler must not remove a TPU replica sooner than one takes to start, nor scale past what the TPU pools hold",
        symptom: "Replicas come and go without ever serving, or the autoscaler reports replicas that stay Pending.",
        cause: "A TPU replica takes minutes to start: an autoscaler whose scale-down window is shorter (Kubernetes' default is 300 s) throws away the warm-up it just paid for, and one whose maximum needs more nodes than the TPU pools it can land on hold leaves pods Pending. A replica on a multi-host slice takes every host of the slice: two replicas of a v6e 4x4 model need 8 nodes, not 2.",
        fix: "Set the autoscaler's scaleDown.stabilizationWindowSeconds (a ScaledObject's advanced.horizontalPodAutoscalerConfig.behavior) to at least the servers' startup budget, and keep the maximum replicas times the hosts of a replica's slice within the maxNodeCount of the TPU pools the servers can land on (their accelerator and topology, their ComputeClass's pools).",
        prevention:
            "KEDA's scale-down window is the service's startup budget, and the replicas' maxima, a whole slice each, fit the TPU pools.",
        sources: [
            "https://kubernetes.io/docs/tasks/run-application/horizontal-pod-autoscale/ (scale-down stabilization window, 300 s by default)",
            "https://keda.sh/docs/latest/reference/scaledobject-spec/ (advanced.horizontalPodAutoscalerConfig.behavior)",
        ],
    },
    {
        id: "vllm-flag",
        title: 'vLLM exits on a flag it does not know ("api_server.py: error: unrecognized arguments: --prefix-cache-block-size=16")',
        symptom: 'vLLM crash-loops at start: "api_server.py: error: unrecognized arguments: --prefix-cache-block-size=16".',
        cause: `vLLM's argument parser exits on a flag it does not know, and flags copied from GPU write-ups are not all vLLM's: ${Object.keys(TPU_REJECTED_VLLM_FLAGS).join(", ")} is no vLLM flag on any platform.`,
        fix: `Remove ${Object.keys(TPU_REJECTED_VLLM_FLAGS).join(", ")} from the container's command and args.`,
        prevention: "The server's flags come from one TPU builder, and the settings reject the known GPU-only flags.",
        recovery: "remove the flag from the model's extraArgs (the pack's disallow-gpu-only-vllm-flags names the known ones)",
        inspect: "kubectl logs -n llm-inference <pod> -c main | grep unrecognized",
        sources: [
            "vllm-project/vllm vllm/engine/arg_utils.py and vllm/entrypoints/openai/cli_args.py (--block-size and --enable-prefix-caching; no --prefix-cache-block-size)",
        ],
    },
    {
        id: "http-probes",
        title: "vLLM's probes must pass as the kubelet sends them: no HTTPS to plain HTTP, no /v1 path when vLLM requires an API key",
        symptom: "vLLM pods run but never become Ready; the probes fail with TLS errors, or with 401 Unauthorized.",
        cause: `KServe's templates probe vLLM over HTTPS when its TLS setting is on, and vLLM serves plain HTTP unless it is given a certificate. And a vLLM that requires an API key (--api-key, or ${VLLM_API_KEY.env} in its environment) refuses every request under ${VLLM_API_KEY.guardedPrefixes.join(", ")} without an Authorization: Bearer header, which the kubelet's probes do not send: a probe of /v1/models gets 401.`,
        fix: `Set httpGet.scheme to HTTP on the vLLM container's probes (or serve TLS with --ssl-certfile and --ssl-keyfile), and when it requires a key probe ${VLLM_HEALTH_PATH}, which vLLM answers without the key, never a path under ${VLLM_API_KEY.guardedPrefixes.join(", ")}.`,
        prevention: `The server's probes are HTTP on ${VLLM_HEALTH_PATH}, from the builder, so the key every model server requires never stands in their way.`,
        recovery: `its readiness probe never passed: kubectl describe pod shows the probe's answers; the probes must be HTTP on vLLM's port, on ${VLLM_HEALTH_PATH} when the server requires a key`,
        inspect: "kubectl get llminferenceservice -n llm-inference <name> -o yaml | grep -A3 httpGet",
        sources: [
            "kserve/kserve v0.20.0 config/llmisvcconfig/config-llm-template.yaml:207-225 (probe scheme HTTPS when EnableTLS)",
            SOURCES.vllmApiKey,
            "https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/pod-v1/#Probe (httpGet sends only the httpHeaders it is given)",
        ],
    },
] as const satisfies readonly Lesson[];
