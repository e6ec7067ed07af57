/**
 * What the stack's workloads need once they run: every call each makes to Google Cloud, with the upstream file and line
 * that makes it, the permission the call needs and what IAM checks that permission on; and the permissions of every role
 * the stack grants. A test reads both against the IAM bindings each shipped stack emits: every needed permission must be
 * granted on a resource whose condition admits the call, and no role may be granted beyond them.
 */

/**
 * What IAM checks a permission on, as a grant must cover it. Cloud Storage checks `storage.buckets.get` and
 * `storage.objects.list` on the bucket (`projects/_/buckets/B`) and object reads and writes on the object
 * (`projects/_/buckets/B/objects/NAME`). Source: {@link CONTRACT_SOURCES.gcsResourceNames}.
 */
export type GrantScope =
    /** The bucket the model server streams its weights from. */
    | "weightsBucket"
    /** An object under the model's weights prefix. */
    | "weightsObject"
    /** The bucket holding the compilation cache. */
    | "cacheBucket"
    /** An object under the service's compilation cache prefix. */
    | "cacheObject"
    /** The stack's project. */
    | "project"
    /** The Artifact Registry repository the TPU pods' image is pulled through. */
    | "imageRepository";

/** One call a workload makes to a Google API. */
export interface GoogleApiCall {
    /** The request, as the API names it. */
    readonly request: string;
    /** Where upstream makes it (owner/repo@tag:path:line) or the document that says so. */
    readonly source: string;
    readonly permission: string;
    readonly on: GrantScope;
}

/** A workload the stack runs, the identity it calls Google as, and its calls. */
export interface WorkloadContract {
    readonly workload: string;
    /** Whose credentials the calls carry. */
    readonly identity: string;
    /** When the stack runs it, or makes these calls. */
    readonly when: string;
    readonly calls: readonly GoogleApiCall[];
}

/** Where the contracts' facts come from. */
export const CONTRACT_SOURCES = {
    gcsResourceNames:
        'https://cloud.google.com/iam/docs/conditions-attribute-reference#resource-name (a bucket is projects/_/buckets/B, an object projects/_/buckets/B/objects/O) and https://docs.cloud.google.com/iam/docs/downscoping-short-lived-credentials "Limit permissions when listing objects" (a list request is checked on the bucket; the list-prefix API attribute works only in Credential Access Boundaries: "If you use Cloud Storage API attributes in a conditional role binding, then Cloud Storage methods will work incorrectly and fail unexpectedly")',
    gcsConditionsNeedUniformAccess:
        'https://cloud.google.com/iam/docs/resource-types-with-conditional-roles (Cloud Storage buckets: "Available for buckets that use uniform bucket-level access")',
    iamRoles:
        "https://cloud.google.com/iam/docs/roles-permissions (each predefined role's permissions), as snapshotted by iann0036/iam-dataset@2073fa52 gcp/roles/<role>.json (2026-08-22)",
    gcsObjectInsert:
        "https://cloud.google.com/storage/docs/json_api/v1/objects/insert (storage.objects.create; writing over an existing name also needs storage.objects.delete)",
    imageStreaming:
        "https://cloud.google.com/kubernetes-engine/docs/how-to/image-streaming#requirements (images in Artifact Registry standard or remote repositories; a node service account other than the default needs roles/serviceusage.serviceUsageConsumer in the project hosting the image); terraform-google-modules/terraform-google-kubernetes-engine#2251 and PR #2262 (roles/container.defaultNodeServiceAccount lacks serviceusage.services.use)",
    nodeServiceAccount:
        "https://docs.cloud.google.com/kubernetes-engine/security/configure-node-service-accounts (nodes log and write metrics as their service account: roles/container.defaultNodeServiceAccount at least)",
    artifactRegistryPull:
        "https://cloud.google.com/artifact-registry/docs/access-control#permissions (pulling an image needs artifactregistry.repositories.downloadArtifacts on the repository)",
} as const;

/**
 * Each predefined role the stack grants, with every permission it carries. Source: {@link CONTRACT_SOURCES.iamRoles}.
 */
export const IAM_ROLE_PERMISSIONS: Readonly<Record<string, readonly string[]>> = {
    "roles/storage.objectViewer": [
        "resourcemanager.projects.get",
        "resourcemanager.projects.list",
        "storage.folders.get",
        "storage.folders.list",
        "storage.managedFolders.get",
        "storage.managedFolders.list",
        "storage.objects.get",
        "storage.objects.list",
    ],
    "roles/storage.objectUser": [
        "monitoring.timeSeries.create",
        "orgpolicy.policy.get",
        "resourcemanager.projects.get",
        "resourcemanager.projects.list",
        "storage.folders.create",
        "storage.folders.delete",
        "storage.folders.get",
        "storage.folders.list",
        "storage.folders.rename",
        "storage.managedFolders.create",
        "storage.managedFolders.delete",
        "storage.managedFolders.get",
        "storage.managedFolders.list",
        "storage.multipartUploads.abort",
        "storage.multipartUploads.create",
        "storage.multipartUploads.list",
        "storage.multipartUploads.listParts",
        "storage.objects.create",
        "storage.objects.createContext",
        "storage.objects.delete",
        "storage.objects.deleteContext",
        "storage.objects.get",
        "storage.objects.list",
        "storage.objects.move",
        "storage.objects.restore",
        "storage.objects.update",
        "storage.objects.updateContext",
    ],
    /** The smallest GA role with storage.buckets.get; it reads bucket metadata and lists object names, never object data. */
    "roles/storage.legacyBucketReader": [
        "storage.buckets.get",
        "storage.folders.get",
        "storage.folders.list",
        "storage.managedFolders.get",
        "storage.managedFolders.list",
        "storage.multipartUploads.list",
        "storage.objects.list",
    ],
    "roles/container.defaultNodeServiceAccount": [
        "autoscaling.sites.writeMetrics",
        "logging.logEntries.create",
        "monitoring.metricDescriptors.create",
        "monitoring.metricDescriptors.list",
        "monitoring.timeSeries.create",
        "monitoring.timeSeries.list",
    ],
    "roles/serviceusage.serviceUsageConsumer": [
        "monitoring.timeSeries.list",
        "serviceusage.consumerpolicy.analyze",
        "serviceusage.consumerpolicy.get",
        "serviceusage.contentsecuritypolicy.get",
        "serviceusage.effectivemcppolicy.get",
        "serviceusage.effectivepolicy.get",
        "serviceusage.groups.list",
        "serviceusage.groups.listExpandedMembers",
        "serviceusage.groups.listMembers",
        "serviceusage.mcppolicy.get",
        "serviceusage.operations.get",
        "serviceusage.quotas.get",
        "serviceusage.services.get",
        "serviceusage.services.list",
        "serviceusage.services.use",
        "serviceusage.values.test",
    ],
    "roles/artifactregistry.reader": [
        "artifactregistry.attachments.get",
        "artifactregistry.attachments.list",
        "artifactregistry.dockerimages.get",
        "artifactregistry.dockerimages.list",
        "artifactregistry.files.download",
        "artifactregistry.files.get",
        "artifactregistry.files.list",
        "artifactregistry.locations.get",
        "artifactregistry.locations.list",
        "artifactregistry.mavenartifacts.get",
        "artifactregistry.mavenartifacts.list",
        "artifactregistry.npmpackages.get",
        "artifactregistry.npmpackages.list",
        "artifactregistry.packages.get",
        "artifactregistry.packages.list",
        "artifactregistry.projectconfigs.get",
        "artifactregistry.projectsettings.get",
        "artifactregistry.pythonpackages.get",
        "artifactregistry.pythonpackages.list",
        "artifactregistry.repositories.downloadArtifacts",
        "artifactregistry.repositories.exportArtifacts",
        "artifactregistry.repositories.get",
        "artifactregistry.repositories.list",
        "artifactregistry.repositories.listEffectiveTags",
        "artifactregistry.repositories.listTagBindings",
        "artifactregistry.repositories.readViaVirtualRepository",
        "artifactregistry.rules.get",
        "artifactregistry.rules.list",
        "artifactregistry.tags.get",
        "artifactregistry.tags.list",
        "artifactregistry.versions.get",
        "artifactregistry.versions.list",
        "resourcemanager.projects.get",
    ],
    "roles/monitoring.viewer": [
        "cloudnotifications.activities.list",
        "monitoring.alertPolicies.get",
        "monitoring.alertPolicies.list",
        "monitoring.alertPolicies.listEffectiveTags",
        "monitoring.alertPolicies.listTagBindings",
        "monitoring.alerts.get",
        "monitoring.alerts.list",
        "monitoring.dashboards.get",
        "monitoring.dashboards.list",
        "monitoring.dashboards.listEffectiveTags",
        "monitoring.dashboards.listTagBindings",
        "monitoring.groups.get",
        "monitoring.groups.list",
        "monitoring.metricDescriptors.get",
        "monitoring.metricDescriptors.list",
        "monitoring.monitoredResourceDescriptors.get",
        "monitoring.monitoredResourceDescriptors.list",
        "monitoring.notificationChannelDescriptors.get",
        "monitoring.notificationChannelDescriptors.list",
        "monitoring.notificationChannels.get",
        "monitoring.notificationChannels.list",
        "monitoring.services.get",
        "monitoring.services.list",
        "monitoring.slos.get",
        "monitoring.slos.list",
        "monitoring.snoozes.get",
        "monitoring.snoozes.list",
        "monitoring.timeSeries.list",
        "monitoring.uptimeCheckConfigs.get",
        "monitoring.uptimeCheckConfigs.list",
        "opsconfigmonitoring.resourceMetadata.list",
        "resourcemanager.projects.get",
        "resourcemanager.projects.list",
        "stackdriver.projects.get",
        "stackdriver.resourceMetadata.list",
    ],
};

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
                source: `${CONTRACT_SOURCES.gcsObjectInsert}; jax-ml/jax@jax-v0.11.0 jax/_src/lru_cache.py:147-152`,
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
                source: "the Job's script, components/weightsCopy.py (Blob.exists, Blob.download_as_text on the marker)",
                permission: "storage.objects.get",
                on: "weightsObject",
            },
            {
                request: "POST upload/storage/v1/b/{bucket}/o, each file and the marker",
                source: "components/weightsCopy.py (Blob.upload_from_filename per file, Blob.upload_from_string for the marker)",
                permission: "storage.objects.create",
                on: "weightsObject",
            },
            {
                request: "the same upload over a file of an older revision",
                source: CONTRACT_SOURCES.gcsObjectInsert,
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
                source: CONTRACT_SOURCES.nodeServiceAccount,
                permission: "logging.logEntries.create",
                on: "project",
            },
            {
                request: "Cloud Monitoring timeSeries.create",
                source: CONTRACT_SOURCES.nodeServiceAccount,
                permission: "monitoring.timeSeries.create",
                on: "project",
            },
            {
                request: "an image pull from REGION-docker.pkg.dev/PROJECT/REPOSITORY",
                source: CONTRACT_SOURCES.artifactRegistryPull,
                permission: "artifactregistry.repositories.downloadArtifacts",
                on: "imageRepository",
            },
            {
                request: "the Container File System API streaming the image, billed to the project",
                source: CONTRACT_SOURCES.imageStreaming,
                permission: "serviceusage.services.use",
                on: "project",
            },
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

/** One hop of a request's way to vLLM, or of a health check, as the stack must build it. */
export interface RequestHop {
    /** What calls what. */
    readonly hop: string;
    readonly port: number;
    /** The protocol on the wire, and its TLS (with ALPN where it matters). */
    readonly protocol: string;
    /** How long it may take. */
    readonly timeout: string;
    /** What the caller does when the callee fails. */
    readonly failure: string;
    /** The object that selects or configures it. */
    readonly selectedBy: string;
    /** Where each fact comes from. */
    readonly source: string;
    /** Only with Pattern 2's body-based router. */
    readonly bodyBasedRouting?: true;
}

/** The hops every gateway provider shares: from the route's rules to vLLM, and the EPP. */
const SHARED_HOPS = {
    routeToPool: {
        hop: "Gateway → the service's InferencePool (model paths, model-routing headers)",
        port: 8000,
        protocol: "HTTP/1.1, plain",
        timeout: "the provider's (below)",
        failure: "no ready endpoint: 503",
        selectedBy:
            "the serving namespace's route template: unnamed rules, rewritten to /v1/...; KServe's InferencePool targets port 8000 on the workload pods",
        source: "kserve/kserve v0.20.0 config/llmisvcconfig/config-llm-router-route.yaml, config-llm-scheduler.yaml:8-24 (the pool's selector and targetPorts 8000)",
    },
    endpointPicker: {
        hop: "Gateway → the service's EPP (ext_proc, picks the replica)",
        port: 9002,
        protocol: "gRPC over TLS, ALPN h2 (the EPP's own certificate, not verified)",
        timeout: "per request, the proxy's ext_proc default",
        failure: "FailOpen: the pool's own endpoint choice",
        selectedBy:
            "KServe's InferencePool endpointPickerRef to <service>-epp-service:9002; the EPP's --grpc-port 9002 --secure-serving=true",
        source: "kserve/kserve v0.20.0 config/llmisvcconfig/config-llm-scheduler.yaml:10-16 (endpointPickerRef, FailOpen, port 9002); llm-d/llm-d-router v0.10.0 pkg/epp/server/runserver.go:175-208 (TLS with ALPN h2); shared/seeds/000 (without h2, routing silently stops)",
    },
    poolToVllm: {
        hop: "Gateway → vLLM (the replica the EPP picked)",
        port: 8000,
        protocol: "HTTP/1.1, plain",
        timeout: "the provider's (below)",
        failure: "the replica's error to the client",
        selectedBy: "vLLM's --port=8000 and container port 8000; probes HTTP on it",
        source: "components/vllm.ts; vllm-project/vllm FrontendArgs --port",
    },
    catchAll: {
        hop: "Gateway → <service>-http (/health, /v1/models, anything else under the service's paths)",
        port: 8000,
        protocol: "HTTP/1.1, plain (appProtocol http)",
        timeout: "the provider's (below)",
        failure: "no ready endpoint: 503",
        selectedBy: "the route template's catch-all rules; the stack's Service selects KServe's workload labels",
        source: "components/routerRoute.ts; kserve/kserve v0.20.0 config/llmisvcconfig/config-llm-scheduler.yaml:17-22 (the workload labels)",
    },
} as const satisfies Record<string, RequestHop>;

/**
 * The way of a request through each gateway provider, hop by hop, and each health check. `test/requestPath.test.ts`
 * checks that the objects every shipped stack emits build each hop.
 */
export const REQUEST_PATHS = {
    gke: {
        clientToGateway: {
            hop: "client → GKE's regional Application Load Balancer (the Gateway's listener)",
            port: 80,
            protocol: "HTTP",
            timeout: "600 s per backend request (GCPBackendPolicy), GCP's default being 30 s",
            failure: "a backend without healthy endpoints: 503",
            selectedBy: "the Gateway of a regional class with an HTTP listener on 80",
            source: "https://cloud.google.com/kubernetes-engine/docs/concepts/about-gke-inference-gateway (regional classes serve InferencePool); shared/seeds/003 #1",
        },
        bodyBasedRouter: {
            hop: "load balancer → body-based router (routing extension, POSTs to the root's inference paths)",
            port: 9004,
            protocol: "gRPC over TLS (the chart's Service says appProtocol HTTP2; the router's self-signed certificate)",
            timeout: "1 s per call (the extension's timeout)",
            failure: "failOpen false: 500 for the root's requests only",
            selectedBy: "the GCPRoutingExtension's chain and its celMatcher",
            source: "shared/crds/gke-gateway-api/networking.gke.io_gcproutingextensions.yaml (failOpen, timeout, matchCondition); kubernetes-sigs/gateway-api-inference-extension v1.5.0 config/charts/body-based-routing/templates/bbr.yaml:86-89, pkg/bbr/server/options.go:68",
            bodyBasedRouting: true,
        },
        ...SHARED_HOPS,
        vllmHealthCheck: {
            hop: "load balancer health check → vLLM /health, for the pool and <service>-http",
            port: 8000,
            protocol: "HTTP, plain",
            timeout: "5 s, every 15 s",
            failure: "2 failures: the endpoint is unhealthy",
            selectedBy: "a HealthCheckPolicy per backend (USE_FIXED_PORT 8000, /health)",
            source: "shared/seeds/003 #5, #13 (GKE probes / over HTTPS otherwise); shared/crds/gke-gateway-api/networking.gke.io_healthcheckpolicies.yaml",
        },
        routerHealthCheck: {
            hop: "load balancer health check → body-based router",
            port: 9005,
            protocol: "gRPC health, plain",
            timeout: "GKE's default",
            failure: "the router endpoint is unhealthy",
            selectedBy: "a HealthCheckPolicy of type GRPC on the router's Service",
            source: "kubernetes-sigs/gateway-api-inference-extension v1.5.0 config/charts/body-based-routing/templates/gke.yaml (the chart's own), cmd/bbr/runner/health.go",
            bodyBasedRouting: true,
        },
    },
    istio: {
        clientToGateway: {
            hop: "client → the Gateway's passthrough Network Load Balancer → Istio's gateway Envoy",
            port: 80,
            protocol: "HTTP",
            timeout: "none: a route without timeouts has none",
            failure: "no healthy endpoint: 503",
            selectedBy: "the Gateway of class istio with an HTTP listener on 80; istiod's LoadBalancer Service",
            source: "istio/istio 1.29.6 pilot/pkg/config/kube/gateway/deploymentcontroller.go:176-186, pilot/pkg/networking/core/route/route.go:1336-1341",
        },
        bodyBasedRouter: {
            hop: "Envoy → body-based router (ext_proc filter, off on every per-service route)",
            port: 9004,
            protocol: "gRPC over TLS (DestinationRule SIMPLE, the router's self-signed certificate not verified)",
            timeout: "the ext_proc filter's default",
            failure: "failure_mode_allow false: the root's requests fail",
            selectedBy:
                "the EnvoyFilter (cluster outbound|9004||body-based-router.<namespace>.svc.cluster.local) and its HTTP_ROUTE patches",
            source: "kubernetes-sigs/gateway-api-inference-extension v1.5.0 config/charts/body-based-routing/templates/istio.yaml; istio/istio 1.29.6 pilot/pkg/networking/core/envoyfilter/rc_patch.go:234-258",
            bodyBasedRouting: true,
        },
        ...SHARED_HOPS,
    },
} as const satisfies Record<string, Record<string, RequestHop>>;
