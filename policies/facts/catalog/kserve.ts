/**
 * KServe's LLMInferenceService: its API, how it resolves configs and Gateways, the names of what it creates, its stop
 * annotation.
 */

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
     * The header a route template's model-routing rules match (`{{ .GlobalConfig.ModelBasedRoutingHeaderName }}`), with the
     * value `publishers/<namespace>/models/<model>`, unless inferenceservice-config's `ingress` names another. Source:
     * {@link SOURCES.kserveModelRoutingHeader}.
     */
    modelRoutingHeader: "X-Gateway-Model-Name",
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
    /** The ports KServe's well-known scheduler config gives a service's InferencePool, vLLM's. Source: {@link SOURCES.gkeHealthCheckPort}. */
    inferencePoolTargetPorts: [8000],
    /**
     * What the pool's gateway does when its endpoint picker does not answer, in KServe's well-known scheduler config:
     * route anyway (kserve v0.20.0 config/llmisvcconfig/config-llm-scheduler.yaml:10-11).
     */
    inferencePoolFailureMode: "FailOpen",
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

/** Names KServe gives the objects it creates for an LLMInferenceService. Source: {@link SOURCES.kserveChildNames}. */
export const KSERVE_CHILDREN = {
    inferencePoolSuffix: "-inference-pool",
    /** The endpoint picker's Service. Source: {@link SOURCES.eppTls}. */
    eppServiceSuffix: "-epp-service",
    /** The HTTPRoute KServe manages for a service. */
    routeSuffix: "-kserve-route",
    /** The Service KServe makes in front of a service's workload pods (kserve v0.20.0 pkg/controller/v1alpha2/llmisvc/workload.go:179). */
    workloadServiceSuffix: "-kserve-workload-svc",
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

/** KServe's annotation that stops a service's workloads and keeps its definition. Source: {@link SOURCES.kserveStop}. */
export const KSERVE_STOP_ANNOTATION = "serving.kserve.io/stop";
