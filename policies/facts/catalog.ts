/**
 * The one place where facts about GKE, TPU v6e and the pinned versions live. Every other
 * module reads them from here; each fact names its source so that a bump is a one-line,
 * reviewable change.
 */

/** Where a fact comes from. */
export const SOURCES = {
    planTpus: "https://cloud.google.com/kubernetes-engine/docs/concepts/plan-tpus (TPU v6e machine types and topologies)",
    seed003Zones: "shared/seeds/003 issue #2 (GKE TPU v6e zones, which differ from TPU VM zones)",
    seed003Gateway: "shared/seeds/003 issue #1 (only regional GatewayClasses serve InferencePool)",
    seedManifest: "shared/reference/llm-d-xks-gke/llmisvc-tpu.yaml (selectors, toleration, chip request)",
    gkeGatewayClasses: "https://cloud.google.com/kubernetes-engine/docs/how-to/gatewayclass-capabilities",
    gkeInferenceGateway: "https://cloud.google.com/kubernetes-engine/docs/concepts/about-gke-inference-gateway",
    nodeServiceAccount:
        "https://cloud.google.com/kubernetes-engine/docs/how-to/service-accounts#default-gke-service-agent (roles/container.defaultNodeServiceAccount); CIS GKE Benchmark v2.0.0 5.2.1",
    proxyOnlySubnet:
        "https://cloud.google.com/load-balancing/docs/proxy-only-subnets (purpose REGIONAL_MANAGED_PROXY, role ACTIVE, /23 recommended)",
    privateClusterFirewall:
        "https://cloud.google.com/kubernetes-engine/docs/how-to/private-clusters#add_firewall_rules (the control plane reaches nodes on 443 and 10250 only)",
    certManagerChart: "cert-manager v1.21.1 deploy/charts/cert-manager/values.yaml and README (oci://quay.io/jetstack/charts/cert-manager)",
    lwsChart: "kubernetes-sigs/lws v0.10.0 site/content/en/docs/installation/_index.md (chart 0.10.0, namespace lws-system) and charts/lws",
    kserveCharts:
        "kserve/kserve v0.20.0 charts/kserve-llmisvc-crd, kserve-llmisvc-resources, kserve-runtime-configs (Chart.yaml version v0.20.0)",
    kserveConfigResolution:
        "kserve/kserve v0.20.0 pkg/controller/v1alpha2/llmisvc/config_merge.go getConfig (the service's namespace first, then kserve)",
    kubeStateMetrics:
        'https://cloud.google.com/kubernetes-engine/docs/how-to/kube-state-metrics ("Requirements": GKE 1.27.2-gke.1200; "Metric format": PromQL names are the upstream ones; the DEPLOYMENT and HPA tables); hashicorp/terraform-provider-google release-7.46.0 website/docs/r/container_cluster.html.markdown:807 (monitoring_config.enable_components accepts DEPLOYMENT and HPA)',
    webhookPorts:
        "kserve v0.20.0 llmisvc-controller-manager containerPort 9443; lws v0.10.0 lws-webhook-service targetPort 9443; kedacore/charts keda 2.20.2 (cbb9bb8) values.yaml:345-352 (the operator's service account keda-operator), values.yaml:211 (admission webhooks on 9443 by default) and :532 (metrics API server portHttpsTarget 6443, behind APIService v1beta1.external.metrics.k8s.io, templates/metrics-server/apiservice.yaml)",
    vllmTpuImage: "DESIGN.md versions table (vllm/vllm-tpu at a fixed tag; the image runs as root)",
    eppImage:
        "llm-d/llm-d-router v0.10.0 Dockerfile.epp (ENTRYPOINT /app/epp) and pkg/epp/server/options.go; carries the ALPN h2 fix (gateway-api-inference-extension PR #2385)",
    bodyBasedRouter:
        "kubernetes-sigs/gateway-api-inference-extension v1.5.0 config/charts/body-based-routing (templates/bbr.yaml: Deployment and Service `body-based-router`, gRPC 9004 with appProtocol HTTP2, health 9005, `--streaming`; values.yaml: the body-field-to-header plugin writes `model` into X-Gateway-Model-Name, base-model-to-header follows; templates/rbac.yaml: ConfigMaps of its own namespace only), pkg/bbr/plugins/basemodelextractor (base_model_to_header.go: header X-Gateway-Base-Model-Name, empty for a name no ConfigMap lists; configmap_reconciler.go: label inference.networking.k8s.io/bbr-managed=true; adapters_store.go: data keys baseModel and adapters, a YAML list), templates/istio.yaml (behind Istio: an ext_proc filter inserted first on the Gateway, to cluster outbound|9004||body-based-router.<namespace>.svc.cluster.local, headers and trailers SEND, bodies FULL_DUPLEX_STREAMED, failure_mode_allow false, allow_mode_override true; a DestinationRule with TLS SIMPLE, insecureSkipVerify), site-src/guides/serving-multiple-inference-pools-latest.md (routes match X-Gateway-Base-Model-Name; every model and adapter name unique), .github/ISSUE_TEMPLATE/new-release.md:114-121 (charts/body-based-routing and bbr promoted to registry.k8s.io at the release tag)",
    gcpRoutingExtension:
        "shared/crds/gke-gateway-api/networking.gke.io_gcproutingextensions.yaml (one extension per chain; timeout 10ms-10000ms; authority required with backendRef; FullDuplexStreamed needs RequestBody and RequestTrailers events)",
    eppConfig:
        "llm-d/llm-d-router v0.10.0 deploy/config/epp-estimate-prefix-cache-config.yaml, apix/config/v1alpha1, pkg/epp/framework/plugins/flowcontrol/saturationdetector/utilization/config.go",
    kserveStorage:
        'kserve/kserve v0.20.0 pkg/controller/v1alpha2/llmisvc/workload_storage.go:96-104 (spec.storageInitializer.enabled false skips every download), :131-222 (pvc, oci, hf and s3 only; any other scheme fails with "unsupported schema in model URI")',
    runaiStreamer:
        "vllm-project/tpu-inference v0.27.0 requirements.txt:22 (runai-model-streamer[s3,gcs]==0.15.9, with gcsfs and google-cloud-storage; installed in the vllm-tpu image by docker/Dockerfile:80-81), tpu_inference/models/common/model_loader.py:697-700 (load_format runai_streamer), tests/e2e/test_runai_model_streamer_loader.py:61,72 (a gs:// model on TPU)",
    xlaCache:
        'vllm-project/tpu-inference v0.27.0 tpu_inference/runner/compilation_manager.py:65-68 (jax_compilation_cache_dir = VLLM_XLA_CACHE_PATH unless VLLM_DISABLE_COMPILE_CACHE); jax-ml/jax docs/persistent_compilation_cache.md "Google Cloud" (a gs:// bucket as the cache directory, in the workload\'s region, the shortest soft-delete policy and an age lifecycle rule: the cache has no eviction) and "How it works" (the key covers the HLO, the jaxlib version, XLA flags and the device topology)',
    jaxCacheThresholds:
        "jax-ml/jax jax-v0.11.0 (the jax tpu-inference v0.27.0 pins) jax/_src/config.py:1428-1444 (jax_persistent_cache_min_compile_time_secs defaults to 1.0; jax_persistent_cache_min_entry_size_bytes 0, -1 turning the size limit off), :745-750 (a float flag's default read from its upper-cased environment variable; the int flags alike), jax/_src/compiler.py:794-820 (only process 0 writes; a compile shorter than the minimum is not written; a failed write is a warning), jax/_src/lru_cache.py:140-152 (an entry that exists is never written again), docs/persistent_compilation_cache.md:31-33 (the quick start sets both to -1 and 0), :81-93 (thresholds), :120-148 (Google Cloud: an age lifecycle rule as the only eviction; several writers at once can hit Cloud Storage's rate limits); tpu-inference v0.27.0 tpu_inference/runner/compilation_manager.py:65-74 (it sets the thresholds only with VLLM_XLA_CHECK_RECOMPILATION)",
    modelCards:
        "Hugging Face model cards: Qwen/Qwen2.5-3B-Instruct (3.09B parameters, 36 layers), microsoft/Phi-3-mini-4k-instruct (3.8B, 32 layers), meta-llama/Llama-3.1-8B-Instruct (8.03B, 32 layers), meta-llama/Llama-3.1-70B-Instruct (70.6B, 80 layers), Qwen/Qwen2.5-72B-Instruct (72.7B: 72,706,203,648 in keras-team/keras-hub keras_hub/src/models/qwen/qwen_presets.py:51-57; 80 layers); weights in bf16, 2 bytes per parameter",
    modelConfigs:
        "each model's config.json on Hugging Face (num_hidden_layers, num_key_value_heads, hidden_size / num_attention_heads, max_position_embeddings), as mirrored in oumi-ai/oumi@2f02887 configs/recipes/llama3_1/README.md:9-38 (Llama 3.1 8B and 70B), NVIDIA/TensorRT-LLM@43b18bd tests/unittest/_torch/modeling/test_modeling_phi3.py:22-55 (Phi-3-mini-4k) and citsjtu2020/LLM-Prof@8434c8d sglang/Model_Config.md (Qwen2.5-3B); pytorch/torchtune torchtune/models/qwen2_5/_model_builders.py:317-340 (Qwen2.5-72B-Instruct: 80 layers, 64 heads, 8 KV heads, embed 8192, max_seq_len 32768), recipes/configs/qwen2_5/72B_lora.yaml:6 (downloaded without a token); gated: meta-llama's Llama 3.1 repositories serve files only after the Llama 3.1 Community License is accepted (huggingface_hub raises GatedRepoError, huggingface/huggingface_hub@v1.28.0 src/huggingface_hub/utils/_http.py:820-824)",
    tpuV6e: "https://docs.cloud.google.com/tpu/docs/v6e (System architecture: HBM capacity per chip 32 GB)",
    vllmMemory:
        "vllm-project/tpu-inference v0.27.0 tpu_inference/worker/tpu_worker.py:511-569 (KV cache = HBM x gpu_memory_utilization minus what is in use after loading; a ValueError when nothing is left); vllm-project/vllm vllm/config/cache.py (gpu_memory_utilization defaults to 0.9, 0.92 at 002f10e0), vllm/config/model.py ModelConfig.get_num_kv_heads (max(1, total KV heads // tensor-parallel size) per rank: heads replicated when fewer than ranks)",
    artifactRegistryRemote:
        "https://cloud.google.com/artifact-registry/docs/repositories/remote-repo (a remote repository proxies Docker Hub and caches what it serves: DOCKER_HUB); hashicorp/terraform-provider-google release-7.46.0 resource_artifact_registry_repository (remote_repository_config.docker_repository.public_repository)",
    imageStreaming:
        "https://cloud.google.com/kubernetes-engine/docs/how-to/image-streaming (node pool gcfsConfig; images in Artifact Registry; the Container File System API; containers start while the image streams, the whole image is cached on the node in the background)",
    kserveConditions:
        "kserve/kserve v0.20.0 pkg/apis/serving/v1alpha2/llm_inference_service_lifecycle.go:24-44 (Ready rolls up WorkloadsReady and RouterReady, each of its sub-conditions), :318-337 (RouterReady copies the first False sub-condition's reason and message)",
    kserveScaleOut:
        "kserve/kserve v0.20.0 pkg/controller/v1alpha2/llmisvc/workload_single_node.go:122-133 (the Deployment carries no strategy: RollingUpdate 25 %/25 % by default) and :332-348 (MainWorkloadReady copies the Deployment's Available), workload_multi_node.go:113-136 (WorkerWorkloadReady the LeaderWorkerSet's), llm_inference_service_lifecycle.go:84-128 (RouterReady rolls up the scheduler, Gateways, HTTPRoutes and InferencePool; Ready needs WorkloadsReady and RouterReady), workload_status.go:60-140 (status.workloads.primary.readyReplicas: the Deployment's availableReplicas, the LeaderWorkerSet's ready groups); kubernetes/kubernetes pkg/controller/deployment/sync.go:517-523 (Available while availableReplicas >= replicas - maxUnavailable) and util/deployment_util.go:851-870 (maxUnavailable rounds down); pulumi/pulumi-kubernetes v4.32.0 provider/pkg/metadata/overrides.go:100-160 (waitFor: a JSON list of condition= and jsonpath= expressions, all to hold), provider/pkg/jsonpath/jsonpath.go (RFC 9535 JSONPath; a path without a value matches when it selects something)",
    kserveChildNames:
        "kserve v0.20.0 config/llmisvcconfig/config-llm-scheduler.yaml and config-llm-router-route.yaml (ChildName suffixes, workload pod labels)",
    seed003Flags:
        "shared/seeds/003 issue #12 (vLLM TPU crash loop: unrecognized arguments: --prefix-cache-block-size); vLLM's parser has no such flag on any platform (vllm-project/vllm vllm/entrypoints/openai/cli_args.py and vllm/engine/arg_utils.py define --block-size and --enable-prefix-caching only)",
    vllmShutdown:
        "kserve/kserve v0.20.0 config/llmisvcconfig/config-llm-template.yaml: preStop sleep 15, terminationGracePeriodSeconds 60, --shutdown-timeout (vLLM >= 0.18.0, vllm-project/vllm#36666; pkg/controller/v1alpha2/llmisvc/config_merge.go shutdownTimeout = grace - preStop - min(5, grace)), --disable-access-log-for-endpoints /health,/metrics,/ping (vLLM >= 0.16.0, vllm-project/vllm#30011; FrontendArgs in vllm/entrypoints/openai/cli_args.py)",
    seed003Weights: "shared/seeds/003 issue #14 (prefix-cache-scorer 2.0, load-aware-scorer 1.0; queue 5, KV cache 80 %, staleness 200 ms)",
    seed000Alpn: "shared/seeds/000 (EPP gRPC over TLS without ALPN h2) and DESIGN.md versions table (first releases with the fix)",
    eppTls: "llm-d/llm-d-router v0.10.0 pkg/epp/server/options.go:153 and :226 (--secure-serving, on by default), pkg/epp/server/runserver.go:175-208 (its TLS gRPC server offers ALPN h2, with a self-signed certificate or the one in --cert-path); kserve/kserve v0.20.0 pkg/controller/v1alpha2/llmisvc/workload_tls_self_signed.go:60-182 (the `<name>-kserve-self-signed-certs` certificate is self-signed per service), llm_inference_service_types_func.go:38-45 (the EPP Service is `<name>-epp-service`), scheduler.go:242-290 (its ports keep the container port names: `grpc` on 9002)",
    eppExtProc:
        "llm-d/llm-d-router v0.10.0 README.md:47-50 (request_body_mode and response_body_mode: only FULL_DUPLEX_STREAMED is supported), config/charts/llm-d-router-standalone/values.yaml:144-160 (the EPP's Envoy filter: request and response headers SEND, bodies FULL_DUPLEX_STREAMED, trailers SEND); istio/istio 1.29.6 pilot/pkg/networking/core/route/route.go:514-545 (the same per-route override Istio writes for an InferencePool, with the trailers SEND a FULL_DUPLEX_STREAMED body requires), pilot/pkg/xds/filters/filters.go:172-197 (its listener filter skips everything until a route overrides it)",
    istio: "istio/istio 1.29.6 manifests/charts/README.md:11-13 (charts base and istiod at https://istio-release.storage.googleapis.com/charts), manifests/charts/base/values.yaml (CRDs, defaultRevision), manifests/charts/istio-control/istio-discovery/values.yaml:37 (pilot.env), pilot/pkg/features/experimental.go:208 (ENABLE_GATEWAY_API_INFERENCE_EXTENSION, off by default), releasenotes/notes/57219-final.yaml (inference.networking.k8s.io/v1 InferencePool supported), pilot/pkg/config/kube/gateway/deploymentcontroller.go:176-186 (class `istio`: a Deployment and a LoadBalancer Service per Gateway), manifests/charts/istio-control/istio-discovery/files/kube-gateway.yaml:327-357 (the Gateway's infrastructure annotations are the Service's), pilot/pkg/networking/core/route/route.go:1336-1341 (a route without timeouts has none)",
    extProcModes:
        "envoyproxy/data-plane-api@933d9ff (the API of Envoy 1.37, which istio 1.29.6 pins in go.mod:23) envoy/extensions/filters/http/ext_proc/v3/processing_mode.proto:42-43 (SKIP: do not send the header or trailer), :65-66 (NONE: do not send the body), :98-99 (FULL_DUPLEX_STREAMED needs its trailer mode SEND), ext_proc.proto:437-450 (ExtProcPerRoute disabled: true turns the filter off on a route), config/route/v3/route_components.proto:332-340 (typed_per_filter_config keyed by the filter's name); istio/istio 1.29.6 pilot/pkg/networking/core/envoyfilter/rc_patch.go:234-258,349-376 (an HTTP_ROUTE patch matched by route name, merged into the route); kubernetes-sigs/gateway-api-inference-extension v1.5.0 pkg/bbr/handlers/request.go:66-67 (a body that is not JSON: 400), server.go:141-148 (responses held until their end)",
    gcpRoutingExtensionMatch:
        "shared/crds/gke-gateway-api/networking.gke.io_gcproutingextensions.yaml (extensionChains[].matchCondition.celExpressions[].celMatcher, at most 512 characters; the first chain whose condition matches runs); https://cloud.google.com/service-extensions/docs/cel-matcher-language-reference (request.method; request.path, the URL path, the query apart in request.query)",
    istioRouteNames:
        "istio/istio 1.29.6 pilot/pkg/config/kube/gateway/conversion.go:106-112 (a rule's route is named by its `name`, else `<namespace>.<route>.<index>`), route_collections.go:91-121 (each rule's InferencePool ext_proc config keyed by that route name; a rule of several matches keeps one name), :855-864 (the maps of every route on a Gateway merged into one, a later route's entry replacing an earlier one of the same name), pilot/pkg/networking/core/route/route.go:514-546 (each Envoy route of that name calls the EPP of the map's entry); kserve/kserve v0.20.0 config/crd/full/serving.kserve.io_llminferenceserviceconfigs.yaml (rules[].name must match Gateway API's SectionName pattern, so it cannot hold a template)",
    istioPrivateCluster:
        "https://cloud.google.com/service-mesh/docs/private-cluster-open-port (a private cluster must open 15017 to istiod's sidecar injection and validation webhooks); istio/istio 1.29.6 manifests/charts/istio-control/istio-discovery/templates/validatingwebhookconfiguration.yaml:48-56 (validation fails open until istiod reaches its own webhook)",
    gkeServiceLoadBalancer:
        'https://cloud.google.com/kubernetes-engine/docs/concepts/service-load-balancer-parameters (networking.gke.io/load-balancer-type: "Internal" makes an internal passthrough Network Load Balancer; cloud.google.com/l4-rbs: "enabled" a backend service-based external one, the recommended external kind)',
    seed003Startup: "shared/seeds/003 issue #8 (4-6 minutes from pod creation to Ready: download plus XLA compilation)",
    tpuPricing: "https://cloud.google.com/tpu/pricing (TPU v6e Trillium, on-demand, US list price per chip-hour)",
    kserveMultiNode:
        "kserve/kserve v0.20.0 pkg/apis/serving/v1alpha2/llm_inference_service_validation.go:259-281 (a worker needs data or pipeline parallelism), llm_inference_service_types_func.go:102-117 (the group size is data/dataLocal or pipeline), pkg/controller/v1alpha2/llmisvc/config_merge.go:89-95 and :255-264 (the pipeline-parallel preset is looked up by name but not shipped: config/llmisvcconfig holds none), workload_multi_node.go:141-177 (LeaderWorkerSet `<name>-kserve-mn`, RecreateGroupOnPodRestart; only the leader carries kserve.io/component=workload when a template is set), :482-503 (the template's service account is kept), :616-631 (leaderworkerset.sigs.k8s.io/* annotations copied to the LeaderWorkerSet)",
    tpuMultiHost:
        "vllm-project/tpu-inference v0.27.0 tpu_inference/envs.py:227-228 (TPU_MULTIHOST_BACKEND, only `ray`), platforms/tpu_platform.py:360-386 (Ray executor on multi-host), executors/ray_distributed_executor.py:185-196 (pipeline-parallel size = TPU hosts in the Ray cluster, each a placement-group bundle of its chips), worker/tpu_worker.py:334-342 (multi-host PP on Ray: each host its own JAX cluster), docs/includes/parallelism.md (PP multi-host passing), examples/offload/gke/benchmarks/multi-host/deploy-baseline.yaml (LeaderWorkerSet: leader runs vLLM's multi-node-serving.sh leader then vllm serve, workers join with LWS_LEADER_ADDRESS; /dev/shm in memory); vllm-project/vllm@75162ed0 examples/ray_serving/multi-node-serving.sh:29 (ray_init_timeout defaults to 300 s), :100-111 (the leader polls every 5 s until the group has ray_cluster_size nodes, else exits 1), :58-68 (a worker retries joining for as long); docker/Dockerfile:55-59 (vLLM's tree at /workspace/vllm); kubernetes-sigs/lws v0.10.0 api/leaderworkerset/v1/leaderworkerset_types.go:27-29 and :67-75 (exclusive-topology annotation; LWS_LEADER_ADDRESS, LWS_GROUP_SIZE), docs/examples/vllm/TPU/lws.yaml (a 4x4 slice served by one group of 4), config/samples/leaderworkerset_exclusiveplacement.yaml (exclusive-topology cloud.google.com/gke-nodepool), pkg/utils/accelerators/tpu.go (TPU_WORKER_HOSTNAMES and TPU_WORKER_ID injected per group)",
    kserveStop: "kserve v0.20.0 pkg/constants/constants.go StopAnnotationKey and pkg/utils GetForceStopRuntime",
    kserveRouteMigration:
        'kserve/kserve v0.20.0 pkg/controller/v1alpha2/llmisvc/router.go:54-56 (AnnotationInferencePoolMigrated), :241 (route name ChildName(name, "-kserve-route")), :282-310 (v1 once migrated, v1 accepted or v1alpha2 rejected), router_discovery.go (ResolvedRefs False, reason InvalidKind)',
    gkePolicyStatus:
        "GKE reports an attached HealthCheckPolicy or GCPBackendPolicy with condition type Attached, status True (https://cloud.google.com/kubernetes-engine/docs/how-to/configure-gateway-resources; as read by skyhook-io/radar PR #1538); gateway-api v1.4.0 HTTPRoute status.parents[].conditions Accepted and ResolvedRefs",
    kubectlImage:
        "registry.k8s.io/kubectl, the official image published with every Kubernetes release from v1.28 (kumahq/kuma PR #14300; v1.34.1 digest sha256:59bafa07ff3a6d4b417e7633ddb9d79a9606ca98bf64bac080b3e65748669250 as pinned in public Dockerfiles)",
    gkeInferencePoolFloor:
        'https://llm-d.ai/docs/resources/gateway/gke and llm-d/llm-d guides/prereq/gateways/gke.md: "For GKE versions 1.34.0-gke.1626000 or later, the InferencePool CRD is automatically installed"',
    gcpNames:
        'hashicorp/terraform-provider-google release-7.46.0 (bridged by @pulumi/gcp 9.37.0 through google-beta 7.46.0): verify/validation.go ValidateGCEName (RFC 1035, 1-63), resource_google_service_account.go ValidateRFC1035Name(6, 30), resource_container_cluster.go "cannot be longer than 40 characters"',
    projectApis:
        'https://cloud.google.com/kubernetes-engine/docs/how-to/deploy-gke-inference-gateway ("Enable the Compute Engine API, the Network Services API" and the Kubernetes Engine API); IAM, Cloud Resource Manager and Cloud Monitoring for the node service account, its role grants and the dashboard',
    pulumiAwait:
        "pulumi/pulumi-kubernetes provider/pkg/await/await.go Creation (create retried only on NotFound and NoMatch errors) and job.go (a Job is ready when Complete, failed when Failed; default timeout 10 min)",
    vllmMetrics:
        "vllm-project/vllm vllm/v1/metrics/loggers.py PrometheusStatLogger (counters exposed with _total; label model_name); EPP: llm-d/llm-d-router v0.10.0 pkg/epp/metrics/llm_d_router_metrics.go (subsystem llm_d_epp; llmdEndpointLabels endpoint_name, namespace, port, which replace the deprecated pod_name), metrics on port 9090",
    gcpSubnetRanges:
        'https://cloud.google.com/vpc/docs/subnets ("Valid IPv4 ranges" and "Prohibited IPv4 subnet ranges" tables; "The minimum primary or secondary range size is eight IP addresses", /29)',
    gkeAliasIps:
        "https://cloud.google.com/kubernetes-engine/docs/concepts/alias-ips (Pod range /24 smallest to /9 largest; user-managed Service range /28 smallest to /16 largest); older GKE docs: no cluster range may overlap 172.17.0.0/16",
    gkeQuotas:
        'https://cloud.google.com/kubernetes-engine/quotas ("Nodes per node pool zone 1,000"); https://cloud.google.com/kubernetes-engine/docs/how-to/authorized-networks ("private clusters can have up to 100" authorized network CIDR ranges); private clusters\' control plane range: a /28 (gcloud --master-ipv4-cidr, terraform-provider-google master_ipv4_cidr_block IsCIDRNetwork(28, 28)) in RFC 1918',
    protectedNamespaces:
        "https://kubernetes.io/docs/concepts/overview/working-with-objects/namespaces (initial namespaces default, kube-node-lease, kube-public, kube-system; the kube- prefix is reserved); GoogleCloudPlatform/prometheus-engine pkg/operator/operator.go (gmp-system, gmp-public)",
    machineTypes:
        "https://cloud.google.com/compute/docs/instances/creating-instance-with-custom-machine-type (custom types of N4, N2, N2D, E2 and N1: custom-CPUS-MEM, SERIES-custom-CPUS-MEM[-ext], e2-custom-{micro,small,medium}-MEM); predefined SERIES-TYPE-VCPUS and the shared-core e2-micro/small/medium, f1-micro, g1-small; TPU machine types (ct4p-, ct5lp-, ct5p-, ct6e-, tpu7x-) carry the google.com/tpu NoSchedule taint",
    vllmEntrypoints:
        "vllm-project/vllm docker/Dockerfile, stage vllm-openai (the ENTRYPOINT starts the OpenAI-compatible server; a container's args are its flags); vllm-project/tpu-inference docker/Dockerfile:93-97 and docker/entrypoint.sh (vllm-tpu: args run as a command; none starts vllm.entrypoints.openai.api_server with the words of $VLLM_ARGS)",
    kserveDefaultGateway:
        "kserve/kserve v0.20.0 pkg/controller/v1alpha2/llmisvc/config_loader.go NewConfig (ingress config kserveIngressGateway, \"namespace/name\" or a name in KServe's namespace), charts/kserve-llmisvc-resources/values.yaml:200 (default kserve/kserve-ingress-gateway) and files/common/configmap-patch.yaml:70-73 (rendered into the inferenceservice-config ConfigMap's ingress key)",
} as const;

/** A TPU v6e slice shape GKE can build from one machine type. */
export interface TpuShape {
    /** Chip grid of the whole slice, as GKE's `tpuTopology` and the topology node label spell it. */
    readonly topology: string;
    /** TPU VMs (Kubernetes nodes) in one slice. */
    readonly hosts: number;
}

/** A TPU v6e machine type and the slice shapes GKE accepts for it. */
export interface TpuMachineType {
    /** TPU chips attached to one VM: what a pod requests as `google.com/tpu`. */
    readonly chipsPerVm: number;
    /** Shapes in order of size; the first is the single-host one. */
    readonly shapes: readonly TpuShape[];
}

/** TPU v6e (Trillium) machine types on GKE. Source: {@link SOURCES.planTpus}. */
export const TPU_V6E_MACHINE_TYPES: Readonly<Record<string, TpuMachineType>> = {
    "ct6e-standard-1t": { chipsPerVm: 1, shapes: [{ topology: "1x1", hosts: 1 }] },
    "ct6e-standard-4t": {
        chipsPerVm: 4,
        shapes: [
            { topology: "2x2", hosts: 1 },
            { topology: "4x4", hosts: 4 },
            { topology: "4x8", hosts: 8 },
            { topology: "8x8", hosts: 16 },
            { topology: "8x16", hosts: 32 },
            { topology: "16x16", hosts: 64 },
        ],
    },
    "ct6e-standard-8t": { chipsPerVm: 8, shapes: [{ topology: "2x4", hosts: 1 }] },
};

/** Every TPU v6e machine type's name starts with this, including ones the catalog does not list yet. Source: {@link SOURCES.planTpus}. */
export const TPU_V6E_MACHINE_TYPE_PREFIX = "ct6e-";

/**
 * Zones where GKE offers TPU v6e node pools. TPU VM availability is not GKE availability:
 * a zone that lists v6e for TPU VMs can still reject a GKE node pool. Source: {@link SOURCES.seed003Zones}.
 */
export const GKE_TPU_V6E_ZONES: readonly string[] = [
    "europe-west4-a",
    "us-central1-b",
    "us-east1-d",
    "us-east5-a",
    "us-east5-b",
    "us-south1-a",
    "us-south1-b",
];

/**
 * Kubernetes-side names of a TPU v6e node. GKE sets the two labels and the taint on every
 * TPU slice node itself (from the machine type and placement policy); a node pool must not
 * declare them. Source: {@link SOURCES.seedManifest}.
 */
export const TPU_NODE = {
    /** Node label naming the accelerator; its value for v6e is `tpu-v6e-slice` (not `tpu-v6e`, which is the TPU VM API's accelerator type). */
    acceleratorLabel: "cloud.google.com/gke-tpu-accelerator",
    acceleratorValue: "tpu-v6e-slice",
    /** Node label carrying the slice topology, e.g. `2x2`. */
    topologyLabel: "cloud.google.com/gke-tpu-topology",
    /** Extended resource a pod requests; it must equal the chips per VM. */
    resourceName: "google.com/tpu",
    /** The taint GKE puts on TPU nodes and pods must tolerate. */
    taint: { key: "google.com/tpu", value: "present", effect: "NoSchedule" },
} as const;

/** GatewayClasses GKE provides. Only the regional ones serve InferencePool backends. */
export const GATEWAY_CLASSES = {
    /** Source: {@link SOURCES.seed003Gateway}, {@link SOURCES.gkeInferenceGateway}. */
    regional: ["gke-l7-regional-external-managed", "gke-l7-rilb"],
    /** Global classes: a Gateway gets an address but InferencePool backends never become healthy. */
    global: ["gke-l7-global-external-managed", "gke-l7-gxlb"],
} as const;

/**
 * GKE versions. The cluster is created at its release channel's default version, never at an exact
 * patch (GKE withdraws patches within months); the floor is checked against the channel's default at
 * preview.
 */
export const GKE_VERSION = {
    releaseChannel: "REGULAR",
    /** The first GKE version that installs the `inference.networking.k8s.io/v1` InferencePool CRD itself. Source: {@link SOURCES.gkeInferencePoolFloor}. */
    floor: "1.34.0-gke.1626000",
} as const;

/** GKE release channels the cluster may follow; whether a channel's default meets {@link GKE_VERSION.floor} is read from GKE at preview. */
export const RELEASE_CHANNELS: readonly string[] = ["RAPID", "REGULAR", "STABLE"];

/** GKE's limits that the settings check. Sources: {@link SOURCES.gkeQuotas}, {@link SOURCES.gkeAliasIps}, {@link SOURCES.gcpSubnetRanges}. */
export const GKE_LIMITS = {
    nodesPerPoolZone: 1000,
    /** Master authorized networks of a private cluster (this stack's nodes are private). */
    authorizedNetworks: 100,
    /** Prefix lengths: the smallest range is the longest prefix. */
    subnetRange: { smallest: 29, largest: 8 },
    podRange: { smallest: 24, largest: 9 },
    serviceRange: { smallest: 28, largest: 16 },
    controlPlaneRangePrefix: 28,
} as const;

/** An IPv4 range with what it is. */
export interface NamedRange {
    readonly cidr: string;
    readonly name: string;
}

/** IPv4 ranges by what GCP and GKE make of them. Sources: {@link SOURCES.gcpSubnetRanges}, {@link SOURCES.gkeAliasIps}. */
export const IPV4_RANGES = {
    /** Ranges no subnet may use. */
    prohibited: [
        { cidr: "0.0.0.0/8", name: "the current network (RFC 1122)" },
        { cidr: "127.0.0.0/8", name: "loopback (RFC 1122)" },
        { cidr: "169.254.0.0/16", name: "link-local (RFC 3927)" },
        { cidr: "224.0.0.0/4", name: "multicast (RFC 5771)" },
        { cidr: "255.255.255.255/32", name: "the limited broadcast address" },
        { cidr: "199.36.153.4/30", name: "Private Google Access's virtual IPs" },
        { cidr: "199.36.153.8/30", name: "Private Google Access's virtual IPs" },
    ],
    /** Ranges that are not public addresses, which GCP accepts for subnets. */
    private: [
        { cidr: "10.0.0.0/8", name: "RFC 1918" },
        { cidr: "172.16.0.0/12", name: "RFC 1918" },
        { cidr: "192.168.0.0/16", name: "RFC 1918" },
        { cidr: "100.64.0.0/10", name: "shared address space (RFC 6598)" },
        { cidr: "192.0.0.0/24", name: "IETF protocol assignments (RFC 6890)" },
        { cidr: "192.0.2.0/24", name: "TEST-NET-1 (RFC 5737)" },
        { cidr: "198.51.100.0/24", name: "TEST-NET-2 (RFC 5737)" },
        { cidr: "203.0.113.0/24", name: "TEST-NET-3 (RFC 5737)" },
        { cidr: "192.88.99.0/24", name: "IPv6-to-IPv4 relay (RFC 7526)" },
        { cidr: "198.18.0.0/15", name: "benchmark testing (RFC 2544)" },
        { cidr: "240.0.0.0/4", name: "reserved, class E (RFC 1112)" },
    ],
    /** The RFC 1918 ranges, which the control plane's range comes from. */
    rfc1918: ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"],
    /** Ranges no cluster range may overlap. */
    avoided: [{ cidr: "172.17.0.0/16", name: "Docker's default bridge, which GKE nodes use" }],
} as const satisfies Record<string, readonly (NamedRange | string)[]>;

/** A Helm chart pinned to one version. */
export interface PinnedChart {
    /** OCI reference of the chart, or its name in `repo`. */
    readonly chart: string;
    /** The HTTPS chart repository, for a chart not published as an OCI artifact. */
    readonly repo?: string;
    /** When the stack installs it, for a chart it does not always install. */
    readonly installedWhen?: string;
    readonly version: string;
    /** Namespace the chart's namespaced objects live in (KServe's charts hard-code `kserve`). */
    readonly namespace: string;
}

/** Platform charts. Sources: {@link SOURCES.certManagerChart}, {@link SOURCES.lwsChart}, {@link SOURCES.kserveCharts}. */
export const CHARTS = {
    certManager: { chart: "oci://quay.io/jetstack/charts/cert-manager", version: "v1.21.1", namespace: "cert-manager" },
    leaderWorkerSet: { chart: "oci://registry.k8s.io/lws/charts/lws", version: "0.10.0", namespace: "lws-system" },
    kserveLlmisvcCrd: { chart: "oci://ghcr.io/kserve/charts/kserve-llmisvc-crd", version: "v0.20.0", namespace: "kserve" },
    kserveLlmisvcResources: { chart: "oci://ghcr.io/kserve/charts/kserve-llmisvc-resources", version: "v0.20.0", namespace: "kserve" },
    kserveRuntimeConfigs: { chart: "oci://ghcr.io/kserve/charts/kserve-runtime-configs", version: "v0.20.0", namespace: "kserve" },
    /** Its operator's service account is `keda-operator`, the Workload Identity subject that reads Managed Prometheus. */
    keda: {
        chart: "keda",
        repo: "https://kedacore.github.io/charts",
        version: "2.20.2",
        namespace: "keda",
        installedWhen: "a model service autoscales",
    },
    /** Istio's CRDs (the base chart). Source: {@link SOURCES.istio}. */
    istioBase: {
        chart: "base",
        repo: "https://istio-release.storage.googleapis.com/charts",
        version: "1.29.6",
        namespace: "istio-system",
        installedWhen: "gatewayProvider is istio",
    },
    /** istiod, which programs the `istio` Gateway and its InferencePool routes. Source: {@link SOURCES.istio}. */
    istiod: {
        chart: "istiod",
        repo: "https://istio-release.storage.googleapis.com/charts",
        version: "1.29.6",
        namespace: "istio-system",
        installedWhen: "gatewayProvider is istio",
    },
} as const satisfies Record<string, PinnedChart>;

/**
 * Namespaces Kubernetes, GKE and this platform own, which the stack never creates or claims for its Gateway or model
 * services; every `kube-` name is Kubernetes'. Sources: {@link SOURCES.protectedNamespaces}, {@link CHARTS}.
 */
export const PROTECTED_NAMESPACES: readonly string[] = [
    "default",
    "kube-system",
    "kube-public",
    "kube-node-lease",
    "gmp-system",
    "gmp-public",
    ...new Set(Object.values(CHARTS).map((chart) => chart.namespace)),
];

/** KServe LLMInferenceService API facts. */
export const KSERVE = {
    /** Storage version of LLMInferenceService and LLMInferenceServiceConfig in v0.20 (v1alpha1 is still served). */
    apiVersion: "serving.kserve.io/v1alpha2",
    /**
     * The well-known config KServe merges into every service's HTTPRoute. A config of this name in the
     * service's own namespace wins over the one in `kserve`. Source: {@link SOURCES.kserveConfigResolution}.
     */
    routerRouteConfigName: "kserve-config-llm-router-route",
    /**
     * KServe's first HTTPRoute names the InferencePool group `inference.networking.x-k8s.io` and moves to
     * `inference.networking.k8s.io` once the Gateway reports ResolvedRefs=False/InvalidKind for it (or accepts v1),
     * recording the move, for good, in this annotation on the route. Source: {@link SOURCES.kserveRouteMigration}.
     */
    inferencePoolMigration: { annotation: "serving.kserve.io/inference-pool-migrated", value: "v1" },
    /**
     * The Gateway a service's route attaches to when the service names none: the `kserveIngressGateway` of the
     * `ingress` key of KServe's `inferenceservice-config` ConfigMap, which the controller chart renders from
     * `kserve.controller.gateway.ingressGateway.kserveGateway`. Source: {@link SOURCES.kserveDefaultGateway}.
     */
    defaultGateway: {
        configMap: "inferenceservice-config",
        chartValue: ["kserve", "controller", "gateway", "ingressGateway", "kserveGateway"],
        chartDefault: "kserve/kserve-ingress-gateway",
    },
    /**
     * The preset KServe merges under a service with a `worker` and pipeline parallelism. KServe v0.20.0 looks it up
     * (the service's namespace first) but ships none, so a service of that shape fails until one exists. Source:
     * {@link SOURCES.kserveMultiNode}.
     */
    pipelineParallelConfigName: "kserve-config-llm-worker-pipeline-parallel",
    /** The namespace KServe's controller runs in, which holds its well-known configs and its ConfigMap. Source: {@link SOURCES.kserveConfigResolution}. */
    namespace: "kserve",
    /**
     * An LLMInferenceService's conditions that only roll others up, with their reason and message; the others name the
     * part that is not ready. Source: {@link SOURCES.kserveConditions}.
     */
    rollUpConditions: ["Ready", "WorkloadsReady", "RouterReady"],
    /** The condition that rolls up the router alone: the Gateway, the HTTPRoutes accepted, the InferencePool, the EPP ready. */
    routerReadyCondition: "RouterReady",
    /**
     * The workload conditions that follow the Deployment's `Available` (or the LeaderWorkerSet's): False while fewer
     * replicas are available than the Deployment wants, which with 2 or 3 replicas (25 % maxUnavailable rounds to 0) is
     * every scale-out until its new replica serves. Source: {@link SOURCES.kserveScaleOut}.
     */
    workloadConditions: ["MainWorkloadReady", "WorkerWorkloadReady"],
    /** RFC 9535 JSONPath, as Pulumi's waitFor reads it: at least one replica (or multi-host group) of the primary workload ready. */
    primaryServingPath: "{.status[?@.primary.readyReplicas > 0]}",
} as const;

/**
 * What the vLLM images run when a container sets no `command`: `serverFlags` images start vLLM's OpenAI-compatible
 * server with the container's args as its flags; `command` images run the args as a command, and with none start the
 * server with the flags in the environment variable `flagsEnv`. By image name (the last path segment of its
 * repository). Source: {@link SOURCES.vllmEntrypoints}.
 */
export const VLLM_IMAGE_ENTRYPOINTS: Readonly<Record<string, { args: "serverFlags" | "command"; flagsEnv?: string }>> = {
    "vllm-openai": { args: "serverFlags" },
    "vllm-tpu": { args: "command", flagsEnv: "VLLM_ARGS" },
};

/**
 * How one vLLM TPU server spans the hosts of a multi-host slice: a Ray cluster across one LeaderWorkerSet group, one
 * pipeline stage per host, each stage tensor-parallel over its VM's chips. Source: {@link SOURCES.tpuMultiHost}.
 */
export const TPU_MULTI_HOST = {
    /** tpu-inference's switch to its Ray executor. */
    backendEnv: { name: "TPU_MULTIHOST_BACKEND", value: "ray" },
    /** vLLM's script that starts the Ray head and waits for the group, or joins a worker to it. */
    rayBootstrapScript: "/workspace/vllm/examples/ray_serving/multi-node-serving.sh",
    /** LeaderWorkerSet's environment on every pod of a group. */
    leaderAddressEnv: "LWS_LEADER_ADDRESS",
    groupSizeEnv: "LWS_GROUP_SIZE",
    /**
     * The event LeaderWorkerSet records on itself when a pod of a group restarted or went away: it deletes the leader, and
     * the whole group starts again (kubernetes-sigs/lws v0.10.0 pkg/controllers/pod_controller.go:204-265).
     */
    recreateGroupEvent: "RecreateGroup",
    /** LeaderWorkerSet's 1:1 placement of a group on one node pool, which on GKE is one multi-host slice. */
    exclusiveTopology: { annotation: "leaderworkerset.sigs.k8s.io/exclusive-topology", key: "cloud.google.com/gke-nodepool" },
    /**
     * How long the leader waits for its group to join Ray before it exits (and LeaderWorkerSet recreates the group): the
     * script's own default. The workers pull the image the leader already runs, on nodes GKE brings up with the slice.
     */
    rayGroupTimeoutSeconds: 300,
} as const;

/** Container images of the serving path. */
export const IMAGES = {
    /** vLLM built for TPU. Source: {@link SOURCES.vllmTpuImage}. */
    vllmTpu: "docker.io/vllm/vllm-tpu:v0.27.0",
    /** llm-d's endpoint picker (EPP). Source: {@link SOURCES.eppImage}. */
    endpointPicker: "ghcr.io/llm-d/llm-d-router-endpoint-picker:v0.10.0",
    /** Kubernetes' own kubectl image, for the webhook readiness probes; within one minor of the GKE floor. Source: {@link SOURCES.kubectlImage}. */
    kubectl: "registry.k8s.io/kubectl:v1.34.1",
} as const;

/** The model the field reports served, the default for a model service. */
export const DEFAULT_MODEL = { uri: "hf://Qwen/Qwen2.5-3B-Instruct", name: "Qwen/Qwen2.5-3B-Instruct" } as const;

/** The port vLLM serves its OpenAI-compatible API on, over plain HTTP. */
export const VLLM_PORT = 8000;

/**
 * How a vLLM pod stops, as KServe's default template has it: the pod gets 60 s; a 15 s preStop sleep lets the
 * Gateway and the EPP stop sending it requests; vLLM then drains in-flight requests for what is left after a 5 s
 * margin. Source: {@link SOURCES.vllmShutdown}.
 */
export const VLLM_SHUTDOWN = {
    terminationGracePeriodSeconds: 60,
    preStopSleepSeconds: 15,
    /** `--shutdown-timeout`: grace minus preStop minus KServe's 5 s margin. */
    drainSeconds: 60 - 15 - 5,
} as const;

/** Endpoints polled every few seconds (probes, health checks, scrapes) whose access-log lines are noise. Source: {@link SOURCES.vllmShutdown}. */
export const VLLM_QUIET_ENDPOINTS: readonly string[] = ["/health", "/metrics", "/ping"];

/**
 * Flags copied from GPU write-ups that vLLM on TPU rejects at startup ("unrecognized arguments"), each with why.
 * Source: {@link SOURCES.seed003Flags}.
 */
export const TPU_REJECTED_VLLM_FLAGS: Readonly<Record<string, string>> = {
    "--prefix-cache-block-size":
        'not a vLLM flag on any platform (vLLM sizes prefix-cache blocks with --block-size); vLLM exits with "unrecognized arguments"',
};

/** Names KServe gives the objects it creates for an LLMInferenceService. Source: {@link SOURCES.kserveChildNames}. */
export const KSERVE_CHILDREN = {
    inferencePoolSuffix: "-inference-pool",
    /** The endpoint picker's Service. Source: {@link SOURCES.eppTls}. */
    eppServiceSuffix: "-epp-service",
    /** The HTTPRoute KServe manages for a service. */
    routeSuffix: "-kserve-route",
    /** KServe's Go template for the name of the service's child with `suffix`, as its configs write it. */
    nameTemplate: (suffix: string) => `{{ ChildName .ObjectMeta.Name \`${suffix}\` }}`,
    /** Labels on the endpoint picker's pods of a service named `name`. */
    schedulerLabels: (name: string) => ({
        "app.kubernetes.io/component": "llminferenceservice-router-scheduler",
        "app.kubernetes.io/name": name,
        "app.kubernetes.io/part-of": "llminferenceservice",
    }),
    /**
     * The Deployment of a single-host service's workload (kserve v0.20.0 `workload_single_node.go:511-517`). KServe keeps
     * its replica count when the service sets no `replicas` (`workload.go:215-237`), so an autoscaler may own it.
     */
    workloadDeployment: (name: string) => `${name}-kserve`,
    /** The LeaderWorkerSet of a multi-host service's groups. Source: {@link SOURCES.kserveMultiNode}. */
    workloadLeaderWorkerSet: (name: string) => `${name}-kserve-mn`,
    /** Labels on every workload pod of a service named `name`. */
    workloadLabels: (name: string) => ({
        "app.kubernetes.io/name": name,
        "app.kubernetes.io/part-of": "llminferenceservice",
        "kserve.io/component": "workload",
    }),
    /** Labels on the worker pods of a multi-host service's groups; only the leader carries {@link workloadLabels}. Source: {@link SOURCES.kserveMultiNode}. */
    workerLabels: (name: string) => ({
        "app.kubernetes.io/component": "llminferenceservice-workload-worker",
        "app.kubernetes.io/name": name,
        "app.kubernetes.io/part-of": "llminferenceservice",
    }),
    /**
     * KServe's longest child-name suffix is 25 characters (`-kserve-self-signed-certs`); a service name of at most
     * 38 characters keeps every child name under Kubernetes' 63 without KServe's hashing, so names computed here match.
     */
    maxServiceNameLength: 38,
} as const;

/**
 * CRDs the platform needs, by `metadata.name` with the kind and version they serve, and who installs each: GKE (Gateway API, its
 * policies, and the v1 InferencePool from {@link GKE_VERSION.floor}) or one of this stack's charts. Source: each upstream CRD in
 * shared/crds (see its SOURCES.txt); the test checks every name against them.
 */
export const PLATFORM_CRDS: ReadonlyArray<{ name: string; kind: string; version: string; installedBy: string }> = [
    { name: "gatewayclasses.gateway.networking.k8s.io", kind: "GatewayClass", version: "v1", installedBy: "GKE (Gateway API)" },
    { name: "gateways.gateway.networking.k8s.io", kind: "Gateway", version: "v1", installedBy: "GKE (Gateway API)" },
    { name: "httproutes.gateway.networking.k8s.io", kind: "HTTPRoute", version: "v1", installedBy: "GKE (Gateway API)" },
    { name: "healthcheckpolicies.networking.gke.io", kind: "HealthCheckPolicy", version: "v1", installedBy: "GKE (Gateway API)" },
    { name: "gcpbackendpolicies.networking.gke.io", kind: "GCPBackendPolicy", version: "v1", installedBy: "GKE (Gateway API)" },
    {
        name: "inferencepools.inference.networking.k8s.io",
        kind: "InferencePool",
        version: "v1",
        installedBy: `GKE ${GKE_VERSION.floor} or later`,
    },
    { name: "leaderworkersets.leaderworkerset.x-k8s.io", kind: "LeaderWorkerSet", version: "v1", installedBy: "the LeaderWorkerSet chart" },
    {
        name: "llminferenceservices.serving.kserve.io",
        kind: "LLMInferenceService",
        version: "v1alpha2",
        installedBy: "the kserve-llmisvc-crd chart",
    },
    {
        name: "llminferenceserviceconfigs.serving.kserve.io",
        kind: "LLMInferenceServiceConfig",
        version: "v1alpha2",
        installedBy: "the kserve-llmisvc-crd chart",
    },
    { name: "certificates.cert-manager.io", kind: "Certificate", version: "v1", installedBy: "the cert-manager chart" },
    { name: "clusterissuers.cert-manager.io", kind: "ClusterIssuer", version: "v1", installedBy: "the cert-manager chart" },
];

/** The API group and kind of an InferencePool, as a Gateway API backend or policy target names it. Source: {@link SOURCES.gkeInferenceGateway}. */
export const INFERENCE_POOL_KIND = { group: "inference.networking.k8s.io", kind: "InferencePool" } as const;

/** Both API groups an InferencePool backend is named by: v1, and the alpha group KServe's first HTTPRoute names. Source: {@link SOURCES.kserveRouteMigration}. */
export const INFERENCE_POOL_GROUPS: readonly string[] = [INFERENCE_POOL_KIND.group, "inference.networking.x-k8s.io"];

/**
 * The body-based router of Pattern 2: the last release of gateway-api-inference-extension's BBR (its successor, llm-d's
 * payload processor, publishes only a `main` image). It reads `model` from each request body, looks the name up in the
 * ConfigMaps of its own namespace that carry {@link BODY_BASED_ROUTER.managedLabel} (`baseModel` and its `adapters`),
 * and sets {@link BODY_BASED_ROUTER.baseModelHeader} to the base model, or to nothing for a name none lists.
 * Source: {@link SOURCES.bodyBasedRouter}.
 */
export const BODY_BASED_ROUTER = {
    chart: {
        chart: "oci://registry.k8s.io/gateway-api-inference-extension/charts/body-based-routing",
        version: "v1.5.0",
        installedWhen: "bodyBasedRouting is on",
    },
    /** The chart's default image at that version. */
    image: "registry.k8s.io/gateway-api-inference-extension/bbr:v1.5.0",
    /** The chart's Deployment and Service (`bbr.name`). */
    name: "body-based-router",
    /** The label on the chart's pods, which its Service selects (templates/bbr.yaml:8-14), and the container's name (:18). */
    podLabels: { app: "body-based-router" },
    container: "bbr",
    grpcPort: 9004,
    healthPort: 9005,
    modelHeader: "X-Gateway-Model-Name",
    baseModelHeader: "X-Gateway-Base-Model-Name",
    managedLabel: "inference.networking.k8s.io/bbr-managed",
    /** Behind Istio: the chart's ext_proc filter, first in the Gateway's chain (templates/istio.yaml, values.yaml provider.istio). */
    istioFilter: { name: "envoy.filters.http.ext_proc.bbr", operation: "INSERT_FIRST" },
    /**
     * What the router reads: each request's headers, its body in the one mode it serves (with the trailers that mode needs),
     * and nothing of the response. The chart sends the response too, which the router holds until it ends before handing
     * it back unchanged (pkg/bbr/handlers/server.go:141-148, response.go:62-73): a streamed completion would arrive in one
     * piece. Envoy's SKIP sends no headers or trailers and NONE no body. Source: {@link SOURCES.extProcModes}.
     */
    processingMode: {
        request_header_mode: "SEND",
        request_body_mode: "FULL_DUPLEX_STREAMED",
        request_trailer_mode: "SEND",
        response_header_mode: "SKIP",
        response_body_mode: "NONE",
        response_trailer_mode: "SKIP",
    },
    /** Routing extensions are called before the route is chosen. Source: {@link SOURCES.gcpRoutingExtension}. */
    extension: {
        supportedEvents: ["RequestHeaders", "RequestBody", "RequestTrailers"],
        requestBodySendMode: "FullDuplexStreamed",
        /** Reading a JSON body's `model` takes milliseconds; the chart's own value. */
        timeout: "1s",
    },
} as const;

/** The EndpointPickerConfig schema the pinned EPP reads. Source: {@link SOURCES.eppConfig}. */
export const EPP_CONFIG_API_VERSION = "llm-d.ai/v1alpha1";

/** Prefix-cache-aware routing as the field report found it in production. Source: {@link SOURCES.seed003Weights}. */
export const PREFIX_CACHE_ROUTING = {
    /** The EPP plugin that scores endpoints by the prefix they hold. Source: {@link SOURCES.eppConfig}. */
    scorer: "prefix-cache-scorer",
    prefixCacheScorerWeight: 2.0,
    loadAwareScorerWeight: 1.0,
    queueDepthThreshold: 5,
    kvCacheUtilThreshold: 0.8,
    metricsStalenessThreshold: "200ms",
} as const;

/**
 * Endpoint picker images and the first release of each that offers ALPN `h2` on its TLS gRPC
 * server; older ones break Envoy/GKE ext_proc. Keyed by the image repository's last segment.
 * Source: {@link SOURCES.seed000Alpn}.
 */
export const EPP_MINIMUM_VERSIONS: Readonly<Record<string, string>> = {
    "llm-d-router-endpoint-picker": "0.9.0",
    "llm-d-inference-scheduler": "0.7.0",
};

/** The shortest startup budget a TPU vLLM pod needs before liveness may act. Source: {@link SOURCES.seed003Startup}. */
export const MINIMUM_TPU_STARTUP_SECONDS = 600;

/**
 * The annotation on a model server's resource (the stack puts it on each LLMInferenceService) carrying its estimated
 * first start in seconds, from which the program sizes the startup probe and the pack checks it.
 */
export const COLD_START_ANNOTATION = "gke-tpu-inference/cold-start-seconds";

/**
 * Beside it, the same start with every figure at its pessimistic value ({@link PESSIMISTIC_COLD_START}) and, on a
 * multi-host slice, the whole wait for the group's hosts: the start the startup budget must still cover.
 */
export const COLD_START_PESSIMISTIC_ANNOTATION = "gke-tpu-inference/cold-start-pessimistic-seconds";

/**
 * How much worse than its estimate a start may turn out: each throughput at a quarter and each duration four times its
 * figure, the compilation cache and image streaming missing. A margin, not a measurement: three of the figures have no
 * published value (the Run:ai streamer's throughput from Cloud Storage, the cached compile, the streamed image start).
 */
export const PESSIMISTIC_COLD_START = { factor: 4 } as const;

/**
 * The startup budget a TPU server needs before liveness may act, in whole minutes, never below `minimum`: twice its
 * estimated first start (the estimate's own figures are partly assumptions), and at least its pessimistic start where
 * one is known.
 */
export function tpuStartupBudgetSeconds(
    start: { firstSeconds: number; pessimisticSeconds?: number },
    minimum: number = MINIMUM_TPU_STARTUP_SECONDS,
): number {
    return Math.max(minimum, Math.ceil(Math.max(2 * start.firstSeconds, start.pessimisticSeconds ?? 0) / 60) * 60);
}

/** GCP's default backend timeout is 30 s; inference backends need at least this. */
export const MINIMUM_INFERENCE_BACKEND_TIMEOUT_SECONDS = 300;

/** GatewayClasses served by GKE's own Gateway controller start with this. Source: {@link SOURCES.gkeGatewayClasses}. */
export const GKE_GATEWAY_CLASS_PREFIX = "gke-l7-";

/** Chips on one VM for a TPU v6e topology (multi-host shapes use 4-chip VMs). Derived from {@link TPU_V6E_MACHINE_TYPES}. */
export function chipsPerVmForTopology(topology: string): number | undefined {
    return machineShapeForTopology(topology)?.machine.chipsPerVm;
}

/** The first machine type (in catalog order) offering `topology`, with that shape. */
function machineShapeForTopology(topology: string): { machine: TpuMachineType; shape: TpuShape } | undefined {
    for (const machine of Object.values(TPU_V6E_MACHINE_TYPES)) {
        const shape = machine.shapes.find((candidate) => candidate.topology === topology);
        if (shape !== undefined) {
            return { machine, shape };
        }
    }
    return undefined;
}

/** TPU VMs in a slice of a TPU v6e topology (more than one: a multi-host slice). Derived from {@link TPU_V6E_MACHINE_TYPES}. */
export function hostsForTopology(topology: string): number | undefined {
    return machineShapeForTopology(topology)?.shape.hosts;
}

/**
 * What TPU v6e capacity costs, for the stack's cost estimate. One rate: the on-demand US list
 * price per chip-hour. Other regions, spot capacity and committed-use discounts differ; the
 * estimate says so. Not a live price: review it against the source when budgeting.
 * Source: {@link SOURCES.tpuPricing}.
 */
export const TPU_V6E_PRICE = {
    usdPerChipHour: 2.7,
    basis: "on-demand US list price per chip-hour; other regions, spot and commitments differ",
    reviewed: "2026-11-21",
} as const;

/** KServe's annotation that stops a service's workloads and keeps its definition. Source: {@link SOURCES.kserveStop}. */
export const KSERVE_STOP_ANNOTATION = "serving.kserve.io/stop";

/**
 * The inference signals a model service may scale on: a vLLM series summed over the service's replicas, and the default
 * target per replica, the thresholds at which the EPP treats a replica as saturated (the field report's production
 * values, {@link PREFIX_CACHE_ROUTING}). KEDA's Prometheus trigger divides the sum by the target (AverageValue) to get
 * the replicas. Source: {@link SOURCES.vllmMetrics}.
 */
export const AUTOSCALING_SIGNALS = {
    /** Requests waiting for a slot in vLLM's batch. */
    queue: { metric: "vllm:num_requests_waiting", defaultTarget: 5, maximumTarget: Number.MAX_SAFE_INTEGER },
    /** The share of the KV cache in use, 0 to 1. */
    kvCache: { metric: "vllm:kv_cache_usage_perc", defaultTarget: 0.8, maximumTarget: 1 },
} as const;

/** The Kubernetes service account KEDA's operator runs as, which its Prometheus scaler calls Google as. Source: {@link SOURCES.webhookPorts}. */
export const KEDA_OPERATOR_ACCOUNT = "keda-operator";

/**
 * On a ScaledObject, stops KEDA's scale loop and deletes its HPA, leaving the target as it is (kedacore/keda
 * controllers/keda/scaledobject_controller.go reconcileScaledObject); removing it resumes scaling.
 */
export const KEDA_PAUSED_ANNOTATION = "autoscaling.keda.sh/paused";

/** A key of {@link AUTOSCALING_SIGNALS}. */
export type AutoscalingSignal = keyof typeof AUTOSCALING_SIGNALS;

/** Prometheus series the dashboard and alerts read. Source: {@link SOURCES.vllmMetrics}. */
export const METRICS = {
    /** The label this stack's PodMonitorings copy each pod's `app.kubernetes.io/name` into: the model service a series is from. */
    serviceLabel: "model_service",
    vllm: {
        requestSuccess: "vllm:request_success_total",
        timeToFirstTokenBucket: "vllm:time_to_first_token_seconds_bucket",
        generationTokens: "vllm:generation_tokens_total",
        promptTokens: "vllm:prompt_tokens_total",
        requestsWaiting: "vllm:num_requests_waiting",
        kvCacheUsage: "vllm:kv_cache_usage_perc",
        prefixCacheHits: "vllm:prefix_cache_hits_total",
        prefixCacheQueries: "vllm:prefix_cache_queries_total",
    },
    epp: {
        schedulerAttempts: "llm_d_epp_scheduler_attempts_total",
        /** The label naming the endpoint a decision chose; `pod_name` is only on the deprecated `inference_extension_*` series. */
        endpointLabel: "endpoint_name",
        /** The EPP's metrics port (named `metrics` in KServe's scheduler template). */
        port: "metrics",
    },
    /**
     * GKE's managed kube state metrics (cluster monitoring components DEPLOYMENT and HPA), queried by their upstream names.
     * Source: {@link SOURCES.kubeStateMetrics}.
     */
    kubeState: {
        components: ["DEPLOYMENT", "HPA"],
        deploymentDesired: "kube_deployment_spec_replicas",
        deploymentAvailable: "kube_deployment_status_replicas_available",
        deploymentLabel: "deployment",
        hpaCurrent: "kube_horizontalpodautoscaler_status_current_replicas",
        hpaMax: "kube_horizontalpodautoscaler_spec_max_replicas",
        hpaLabel: "horizontalpodautoscaler",
    },
    /** KEDA names the HPA of ScaledObject `name` `keda-hpa-<name>` (keda v2.20.2 controllers/keda/hpa.go:395-402). */
    kedaHpaName: (scaledObject: string) => `keda-hpa-${scaledObject}`,
} as const;

/**
 * Ports the GKE control plane must reach on pods for this stack's admission webhooks (9443: KServe, LeaderWorkerSet and
 * KEDA) and for KEDA's external metrics API, which the HPA controller calls through the API aggregator (6443).
 * Source: {@link SOURCES.webhookPorts}.
 */
export const WEBHOOK_PORTS: readonly string[] = ["9443", "6443"];

/**
 * Istio as the stack's gateway provider. Source: {@link SOURCES.istio}.
 */
export const ISTIO = {
    gatewayClass: "istio",
    /** istiod's switch for InferencePool backends (and the ext_proc filter it writes for them). */
    inferenceExtensionEnv: "ENABLE_GATEWAY_API_INFERENCE_EXTENSION",
    /** istiod's webhooks listen here; a private cluster's control plane reaches it only through a firewall rule. Source: {@link SOURCES.istioPrivateCluster}. */
    webhookPort: "15017",
    /** The label that keeps a namespace's pods out of the mesh whatever istiod's injection default. */
    injectionLabel: { key: "istio-injection", disabled: "disabled" },
    /**
     * The Envoy route istiod makes of an HTTPRoute rule without a `name`: `<namespace>.<route>.<rule index>`. A named rule's
     * route takes the bare name, and istiod keys each route's InferencePool (which EPP it calls) by it across every route of
     * a Gateway, the newest winning: rules named alike in two routes share one EPP. Source: {@link SOURCES.istioRouteNames}.
     */
    generatedRouteName: (namespace: string, route: string, ruleIndex: number) => `${namespace}.${route}.${ruleIndex}`,
} as const;

/** How GKE makes a LoadBalancer Service's load balancer, by what a user asks for. Source: {@link SOURCES.gkeServiceLoadBalancer}. */
export const GKE_SERVICE_LOAD_BALANCER = {
    external: { "cloud.google.com/l4-rbs": "enabled" },
    internal: { "networking.gke.io/load-balancer-type": "Internal" },
} as const satisfies Record<string, Record<string, string>>;

/** The endpoint picker's ports: the Gateway's ext_proc calls and its gRPC health. Source: {@link SOURCES.eppTls}. */
export const EPP_PORTS = { grpc: 9002, health: 9003 } as const;

/**
 * What an Envoy ext_proc filter must send the EPP to pick an endpoint: the request's headers, its body (the model and
 * the prompt) in the one body mode the EPP supports, and the trailers that mode requires; the same for the response,
 * which carries the usage the EPP reads. The body-based router's chart sends the same. Sources: {@link SOURCES.eppExtProc},
 * {@link SOURCES.bodyBasedRouter}.
 */
export const INFERENCE_EXT_PROC_MODE = {
    request_header_mode: "SEND",
    request_body_mode: "FULL_DUPLEX_STREAMED",
    request_trailer_mode: "SEND",
    response_header_mode: "SEND",
    response_body_mode: "FULL_DUPLEX_STREAMED",
    response_trailer_mode: "SEND",
} as const;

/** Least-privilege role for a dedicated node service account. Source: {@link SOURCES.nodeServiceAccount}. */
export const NODE_SERVICE_ACCOUNT_ROLES: readonly string[] = ["roles/container.defaultNodeServiceAccount"];

/**
 * What a node service account other than Compute Engine's default needs besides, where a node pool streams images: the
 * permission to use the Container File System API (`serviceusage.services.use`), which the default node role lacks.
 * Source: `CONTRACT_SOURCES.imageStreaming` (contracts.ts).
 */
export const IMAGE_STREAMING_NODE_ROLES: readonly string[] = ["roles/serviceusage.serviceUsageConsumer"];

/** Proxy-only subnet settings for regional Envoy-based load balancers. Source: {@link SOURCES.proxyOnlySubnet}. */
export const PROXY_ONLY_SUBNET = {
    purpose: "REGIONAL_MANAGED_PROXY",
    role: "ACTIVE",
    /** Largest prefix length Google accepts; /23 is recommended. */
    maxPrefixLength: 26,
} as const;

/** The region a zone belongs to (`europe-west4-a` → `europe-west4`). */
export function regionOfZone(zone: string): string {
    return zone.replace(/-[a-z]$/, "");
}

/** The shape of `machineType` with `topology`, or undefined when the pair does not exist. */
export function findTpuShape(machineType: string, topology: string): TpuShape | undefined {
    return TPU_V6E_MACHINE_TYPES[machineType]?.shapes.find((shape) => shape.topology === topology);
}

/** The longest name a GCP resource type accepts for the names this stack chooses (lowercase letters, digits and hyphens, starting with a letter). */
export interface GcpNameRule {
    readonly description: string;
    readonly maxLength: number;
}

/** Naming rules of the project-global resources the stack names. Source: {@link SOURCES.gcpNames}. */
export const GCP_NAME_RULES = {
    compute: { description: "Compute Engine resource", maxLength: 63 },
    cluster: { description: "GKE cluster", maxLength: 40 },
    serviceAccount: { description: "service account ID", maxLength: 30 },
    /** Bucket names are global: room is left for a hyphen and a suffix of {@link COLD_START_STORAGE.bucketSuffixBytes} bytes in hex. */
    bucket: { description: "Cloud Storage bucket", maxLength: 63 - 9 },
    /** Artifact Registry repository IDs. */
    repository: { description: "Artifact Registry repository", maxLength: 63 },
} as const satisfies Record<string, GcpNameRule>;

/**
 * Google Cloud APIs the stack calls, by what calls them. The stack enables them (never disabling them on
 * destroy) unless `manageProjectApis` is off. Source: {@link SOURCES.projectApis}.
 */
export const PROJECT_APIS = {
    /** The VPC, subnets, router, NAT and firewall; the load balancers GKE's Gateway controller builds. */
    compute: "compute.googleapis.com",
    /** The cluster and its node pools. */
    container: "container.googleapis.com",
    /** The node service account. */
    iam: "iam.googleapis.com",
    /** The node service account's project role grants. */
    resourceManager: "cloudresourcemanager.googleapis.com",
    /** GKE Inference Gateway: without it GKE never accepts an InferencePool backend. */
    networkServices: "networkservices.googleapis.com",
    /** The dashboard, the alert policies and Managed Service for Prometheus. */
    monitoring: "monitoring.googleapis.com",
    /** The bucket of staged weights and the compilation cache. */
    storage: "storage.googleapis.com",
    /** The remote repository the vLLM image is pulled through. */
    artifactRegistry: "artifactregistry.googleapis.com",
    /** Image streaming on the TPU pool. Source: {@link SOURCES.imageStreaming}. */
    containerFilesystem: "containerfilesystem.googleapis.com",
} as const;

/** A key of {@link PROJECT_APIS}. */
export type ProjectApi = keyof typeof PROJECT_APIS;

/** A figure with where it comes from; `assumed` marks one no source gives, which the benchmark says plainly. */
export interface SourcedFigure {
    readonly value: number;
    readonly source: string;
    readonly assumed?: true;
}

/** What the stack knows of a model: its weights, its layers and, for the KV cache, its attention shape and longest context. */
export interface KnownModel {
    /** Size of its weights in GB (10^9 bytes), bf16. */
    readonly weightsGb: number;
    readonly layers: number;
    /** `num_key_value_heads` of its config. */
    readonly kvHeads: number;
    /** Width of one attention head: `hidden_size / num_attention_heads` where the config names no `head_dim`. */
    readonly headDim: number;
    /** `max_position_embeddings`: vLLM refuses a longer --max-model-len. */
    readonly maxContext: number;
    /** Hugging Face gates it: the repository serves files only to an account that accepted its license, with a token. */
    readonly gated: boolean;
}

/**
 * Models the catalog knows. Any other model names its size in its model entry (`weightsGb`, `layers`).
 * Sources: {@link SOURCES.modelCards}, {@link SOURCES.modelConfigs}.
 */
export const KNOWN_MODELS: Readonly<Record<string, KnownModel>> = {
    "Qwen/Qwen2.5-3B-Instruct": { weightsGb: 6.2, layers: 36, kvHeads: 2, headDim: 128, maxContext: 32768, gated: false },
    "microsoft/Phi-3-mini-4k-instruct": { weightsGb: 7.6, layers: 32, kvHeads: 32, headDim: 96, maxContext: 4096, gated: false },
    "meta-llama/Llama-3.1-8B-Instruct": { weightsGb: 16.1, layers: 32, kvHeads: 8, headDim: 128, maxContext: 131072, gated: true },
    "meta-llama/Llama-3.1-70B-Instruct": { weightsGb: 141.2, layers: 80, kvHeads: 8, headDim: 128, maxContext: 131072, gated: true },
    "Qwen/Qwen2.5-72B-Instruct": { weightsGb: 145.4, layers: 80, kvHeads: 8, headDim: 128, maxContext: 32768, gated: false },
};

/** How far an entry's `weightsGb` may differ from the catalog's figure for a known model (rounding, another shard format). */
export const KNOWN_WEIGHTS_TOLERANCE = 0.1;

/** TPU v6e's memory: high-bandwidth memory per chip, in GB. Source: {@link SOURCES.tpuV6e}. */
export const TPU_V6E_HBM_GB_PER_CHIP = 32;

/**
 * How vLLM on TPU shares a replica's memory. It caps what it uses at `--gpu-memory-utilization` of the chips' HBM and gives
 * the KV cache what the weights leave of that, refusing to start when nothing is left; the rest is the runtime's. The KV
 * cache must hold at least one sequence of `--max-model-len`, two values (key and value) per layer, KV head and head
 * dimension, in the model's dtype; with tensor parallelism each chip holds `max(1, kvHeads / chips)` heads, replicating
 * them where the model has fewer than chips. Source: {@link SOURCES.vllmMemory}.
 */
export const VLLM_MEMORY = {
    /** The flag's default at the older of the releases read; the check is no looser than vLLM. */
    defaultUtilization: 0.9,
    utilizationFlag: "--gpu-memory-utilization",
    /** bf16, the known models' dtype; `--kv-cache-dtype fp8` halves it. */
    bytesPerValue: 2,
    kvCacheDtypeFlag: "--kv-cache-dtype",
} as const;

/**
 * The field report's cold start of Qwen2.5-3B-Instruct on a v6e 2x2 VM (seed 003 #8): T+21 s storage initializer
 * image pulled, T+56 s weights downloaded from Hugging Face (35 s), T+86 s main container started (the vLLM image
 * pulled: 30 s), T+89 s API server up, T+180 s XLA compilation done (91 s), T+250 s Ready (a 240 s fixed probe delay).
 * Source: {@link SOURCES.seed003Startup}.
 */
export const FIELD_REPORT_COLD_START = {
    model: "Qwen/Qwen2.5-3B-Instruct",
    readySeconds: 250,
    initializerPullSeconds: 21,
    downloadSeconds: 35,
    imagePullSeconds: 30,
    serverStartSeconds: 3,
    compileSeconds: 91,
} as const;

/** Figures the cold-start estimate uses, each with its source or marked as an assumption. */
export const COLD_START_FIGURES = {
    huggingFaceGBps: {
        value: Number((KNOWN_MODELS[FIELD_REPORT_COLD_START.model].weightsGb / FIELD_REPORT_COLD_START.downloadSeconds).toFixed(3)),
        source: "seed 003 #8: 6.2 GB of Qwen2.5-3B-Instruct downloaded from Hugging Face in 35 s",
    },
    initializerPullSeconds: { value: FIELD_REPORT_COLD_START.initializerPullSeconds, source: "seed 003 #8 (T+21 s)" },
    imagePullSeconds: { value: FIELD_REPORT_COLD_START.imagePullSeconds, source: "seed 003 #8 (T+56 s to T+86 s)" },
    serverStartSeconds: { value: FIELD_REPORT_COLD_START.serverStartSeconds, source: "seed 003 #8 (T+86 s to T+89 s)" },
    compileSecondsPerLayer: {
        value: Number((FIELD_REPORT_COLD_START.compileSeconds / KNOWN_MODELS[FIELD_REPORT_COLD_START.model].layers).toFixed(3)),
        source: "seed 003 #8: 91 s for the 36 layers of Qwen2.5-3B-Instruct; compile time growing with the layers is an assumption",
        assumed: true,
    },
    streamedImageStartSeconds: {
        value: 10,
        source: "assumption: image streaming starts the container while the image streams (see the image streaming docs); no published figure for this image",
        assumed: true,
    },
    runaiStreamerGBps: {
        value: 1,
        source: "assumption: Run:ai model streamer reading Cloud Storage in the VM's region; no published figure for a TPU v6e VM",
        assumed: true,
    },
    cachedCompileFraction: {
        value: 0.1,
        source: "assumption: loading compiled programs from the JAX cache takes a tenth of compiling them; no published figure",
        assumed: true,
    },
} as const satisfies Record<string, SourcedFigure>;

/**
 * Cloud Storage layout of the stack's bucket: weights per source under `weights/`, the compilation cache per model,
 * topology and image under `xla-cache/`, expired after `cacheLifetimeDays` as JAX advises. Source: {@link SOURCES.xlaCache}.
 */
export const COLD_START_STORAGE = {
    bucketSuffixBytes: 4,
    weightsPrefix: "weights",
    cachePrefix: "xla-cache",
    /** Written by the copy Job once every file of a revision is in the bucket; holds the revision. */
    markerObject: ".gke-tpu-inference-staged",
    cacheLifetimeDays: 30,
    softDeleteSeconds: 7 * 24 * 3600,
} as const;

/** What the vLLM TPU image reads for the weights and the compilation cache. Sources: {@link SOURCES.runaiStreamer}, {@link SOURCES.xlaCache}. */
export const VLLM_TPU_LOADING = {
    streamerLoadFormat: "runai_streamer",
    /** The JAX compilation cache's directory; unset, vLLM's default under the container's home, gone with the container. */
    compilationCacheEnv: "VLLM_XLA_CACHE_PATH",
    /** A non-zero integer turns the compilation cache off. */
    disableCacheEnv: "VLLM_DISABLE_COMPILE_CACHE",
    /**
     * JAX's thresholds for writing an entry, as environment variables (each JAX flag reads its upper-cased name): by
     * default only compiles of at least 1 s are written, so every shorter one is compiled again on every start. The
     * cache's own quick start sets both off. Source: {@link SOURCES.jaxCacheThresholds}.
     */
    cacheThresholdEnv: { JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS: "0", JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES: "-1" },
} as const;

/** Docker Hub as an Artifact Registry remote repository names it. Source: {@link SOURCES.artifactRegistryRemote}. */
export const DOCKER_HUB = { remoteRepository: "DOCKER_HUB" } as const;
