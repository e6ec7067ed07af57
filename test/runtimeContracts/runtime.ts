/** What each workload of the stack calls once it runs: Google Cloud APIs (with the permission each call needs), or only the Kubernetes API. */
import { SOURCES } from "@gke-tpu-inference/facts";
import { WorkloadContract } from "./iam";

/** The Run:ai model streamer in the vLLM TPU image, and the vLLM calls that use it. */
const RUNAI = "run-ai/runai-model-streamer@0.15.9 py/runai_model_streamer_gcs/runai_model_streamer_gcs/files/files.py";
/** The Cloud Storage file system JAX's persistent compilation cache writes through. */
const GCSFS = "fsspec/gcsfs@2026.1.0 gcsfs/core.py";

/**
 * Every workload the stack runs that calls Google Cloud, and what it calls. The Kubernetes-side workloads (the EPP, the
 * body-based router) call only the Kubernetes API, under RBAC that KServe and the router's chart grant: see
 * {@link CLUSTER_CONTRACTS}.
 */
export const RUNTIME_CONTRACTS = {
    modelServer: {
        workload: "vLLM TPU server (leader and workers of a multi-host group)",
        identity: "the service's Kubernetes service account <service>-server, through Workload Identity",
        when: "the weights calls when it streams them from Cloud Storage (staged hf:// or gs://); the cache calls when compilationCache is on",
        calls: [
            {
                request: "GET storage/v1/b/{bucket} (Client.get_bucket), before listing and again before every file it pulls",
                source: `${RUNAI}:47,68; vllm ModelConfig.maybe_pull_model_tokenizer_for_runai → ObjectStorageModel.pull_files (vllm/transformers_utils/runai_utils.py:83-99) at startup, before the config is read`,
                permission: "storage.buckets.get",
                on: "weightsBucket",
            },
            {
                request:
                    "GET storage/v1/b/{bucket}/o?prefix={model prefix}/ (Bucket.list_blobs), for the config and tokenizer and for the safetensors",
                source: `${RUNAI}:58-74 (the prefix always ends in one slash); vllm/model_executor/model_loader/runai_streamer_loader.py:76 (list_safetensors)`,
                permission: "storage.objects.list",
                on: "weightsBucket",
            },
            {
                request: "GET download/storage/v1/b/{bucket}/o/{object}?alt=media, whole files and tensor ranges",
                source: `${RUNAI}:49 (Blob.download_to_filename); run-ai/runai-model-streamer@0.15.9 cpp/gcs/client.cc:117 (ReadObject with a byte range)`,
                permission: "storage.objects.get",
                on: "weightsObject",
            },
            {
                request: "GET storage/v1/b/{bucket}/o/{entry} (exists) and its media (read), per compiled program",
                source: `jax-ml/jax@jax-v0.11.0 jax/_src/lru_cache.py:96-108 (get: exists, read_bytes); ${GCSFS}:572-574,1118-1137`,
                permission: "storage.objects.get",
                on: "cacheObject",
            },
            {
                request: "GET storage/v1/b/{bucket}/o?prefix={entry}/ after a miss (gcsfs's exists falls back to a listing)",
                source: `${GCSFS}:653-659,791-802`,
                permission: "storage.objects.list",
                on: "cacheBucket",
            },
            {
                request: "POST upload/storage/v1/b/{bucket}/o?uploadType=resumable, a new entry (no generation precondition)",
                source: `jax-ml/jax@jax-v0.11.0 jax/_src/lru_cache.py:147-152 (put: skipped when the entry exists, else write_bytes); ${GCSFS}:2167-2181`,
                permission: "storage.objects.create",
                on: "cacheObject",
            },
            {
                request: "the same upload over an entry another replica wrote meanwhile (check-then-write, no precondition)",
                source: `${SOURCES.gcsObjectInsert}; jax-ml/jax@jax-v0.11.0 jax/_src/lru_cache.py:147-152`,
                permission: "storage.objects.delete",
                on: "cacheObject",
            },
        ],
    },
    weightsCopy: {
        workload: "the copy Job of a staged hf:// model",
        identity: "its Kubernetes service account <service>-weights-copy, through Workload Identity",
        when: "for each hf:// model with stageWeights on",
        calls: [
            {
                request: "GET storage/v1/b/{bucket}/o/{marker} and its media: the staged revision",
                source: "the Job's script, components/workloads/weightsCopy.py (Blob.exists, Blob.download_as_text on the marker)",
                permission: "storage.objects.get",
                on: "weightsObject",
            },
            {
                request: "POST upload/storage/v1/b/{bucket}/o, each file and the marker",
                source: "components/workloads/weightsCopy.py (Blob.upload_from_filename per file, Blob.upload_from_string for the marker)",
                permission: "storage.objects.create",
                on: "weightsObject",
            },
            {
                request: "the same upload over a file of an older revision",
                source: SOURCES.gcsObjectInsert,
                permission: "storage.objects.delete",
                on: "weightsObject",
            },
        ],
    },
    keda: {
        workload: "KEDA's operator, evaluating each ScaledObject's Prometheus trigger",
        identity: "its Kubernetes service account keda-operator in the keda namespace, through Workload Identity",
        when: "when a model service autoscales",
        calls: [
            {
                request: "GET monitoring.googleapis.com/v1/projects/{project}/location/global/prometheus/api/v1/query",
                source: "kedacore/keda@v2.20.2 pkg/scalers/prometheus_scaler.go:124-132 (the operator's own Google credentials, scope monitoring.read), :204-220 (the query); https://cloud.google.com/stackdriver/docs/managed-prometheus/query-api-ui (roles/monitoring.viewer)",
                permission: "monitoring.timeSeries.list",
                on: "project",
            },
        ],
    },
    nodes: {
        workload: "the GKE nodes (system and TPU pools): kubelet, logging and metrics agents, image pulls",
        identity: "the stack's node service account",
        when: "always; the image calls when Docker Hub images are pulled through the remote repository, the streaming call with imageStreaming on",
        calls: [
            {
                request: "Cloud Logging entries.write",
                source: SOURCES.nodeServiceAccountLogging,
                permission: "logging.logEntries.create",
                on: "project",
            },
            {
                request: "Cloud Monitoring timeSeries.create",
                source: SOURCES.nodeServiceAccountLogging,
                permission: "monitoring.timeSeries.create",
                on: "project",
            },
            {
                request: "an image pull from REGION-docker.pkg.dev/PROJECT/REPOSITORY",
                source: SOURCES.artifactRegistryPull,
                permission: "artifactregistry.repositories.downloadArtifacts",
                on: "imageRepository",
            },
            {
                request: "the Container File System API streaming the image, billed to the project",
                source: SOURCES.imageStreamingNodeRole,
                permission: "serviceusage.services.use",
                on: "project",
            },
        ],
    },
    multiClusterGateway: {
        workload: "GKE's multi-cluster Gateway controller (Google-hosted), programming the fleet's Gateway from the config cluster",
        identity: "the multi-cluster Ingress service agent service-<project number>@gcp-sa-multiclusteringress.iam.gserviceaccount.com",
        when: "with a fleet, once the multiclusteringress feature names the config cluster's membership",
        calls: [
            // Its code is not public: the cluster calls are what reaching each member's Kubernetes API takes, the role being the one GKE's guide grants.
            {
                request: "GKE projects.locations.clusters.get of each member: its Kubernetes API's endpoint and credentials",
                source: `${SOURCES.multiClusterIngressAgent}; ${SOURCES.gkeApiPermissions}`,
                permission: "container.clusters.get",
                on: "project",
            },
            {
                request: "the same, reading each member's credentials",
                source: `${SOURCES.multiClusterIngressAgent}; ${SOURCES.gkeApiPermissions}`,
                permission: "container.clusters.getCredentials",
                on: "project",
            },
            // The cross-regional internal load balancer it builds from the Gateway, the routes and the import policies.
            ...(
                [
                    ["a global backend service per import", "compute.backendServices.create"],
                    ["a health check per import's HealthCheckPolicy", "compute.healthChecks.create"],
                    ["the URL map of the routes", "compute.urlMaps.create"],
                    ["the target HTTPS proxy of the listener", "compute.targetHttpsProxies.create"],
                    ["a global forwarding rule per region's address", "compute.globalForwardingRules.create"],
                    ["the members' NEGs attached to the backend service", "compute.networkEndpointGroups.use"],
                ] as const
            ).map(([request, permission]) => ({
                request: `Compute Engine: ${request}`,
                source: `${SOURCES.crossRegionInternalLoadBalancer}; ${SOURCES.multiClusterIngressAgentRole}`,
                permission,
                on: "project" as const,
            })),
        ],
    },
} as const satisfies Record<string, WorkloadContract>;

/** A workload's calls to the Kubernetes API, and who grants them. */
export interface ClusterContract {
    readonly workload: string;
    readonly calls: readonly string[];
    readonly grantedBy: string;
}

/** The serving path's workloads that call only the Kubernetes API; their RBAC comes with KServe and the router's chart. */
export const CLUSTER_CONTRACTS = {
    endpointPicker: {
        workload: "the llm-d endpoint picker (EPP) of each model service",
        calls: [
            "watch pods in the service's namespace (llm-d/llm-d-router@v0.10.0 pkg/epp/server/controller_manager.go:70-74)",
            "watch its InferencePool, inference.networking.k8s.io/v1, by name (:95-99)",
            "watch InferenceObjectives and InferenceModelRewrites of the namespace (:81-90)",
        ],
        grantedBy:
            "KServe's Role <service>-epp-role (kserve/kserve@v0.20.0 pkg/controller/v1alpha2/llmisvc/scheduler.go:736-756: pods, inference pools, objectives and rewrites, leases) and system:auth-delegator for its /metrics (:716-733)",
    },
    bodyBasedRouter: {
        workload: "the body-based router (Pattern 2)",
        calls: [
            "watch ConfigMaps labelled inference.networking.k8s.io/bbr-managed=true in its namespace (kubernetes-sigs/gateway-api-inference-extension@v1.5.0 pkg/bbr/plugins/basemodelextractor/configmap_reconciler.go:38-48)",
        ],
        grantedBy:
            "the chart's Role (config/charts/body-based-routing/templates/rbac.yaml:24-34: configmaps get, list, watch in its namespace)",
    },
} as const satisfies Record<string, ClusterContract>;
