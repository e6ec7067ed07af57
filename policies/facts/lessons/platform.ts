/** Lessons of the platform under the models: LeaderWorkerSet, KServe and its conditions, cert-manager's CA, pinned software. */
import { CHARTS, IMAGES } from "../catalog";
import { Lesson } from "./lesson";

export const PLATFORM_LESSONS = [
    {
        id: "lws-missing",
        title: 'KServe needs LeaderWorkerSet installed first ("no matches for kind LeaderWorkerSet")',
        symptom: 'An LLMInferenceService is not Ready: "no matches for kind LeaderWorkerSet in version leaderworkerset.x-k8s.io/v1".',
        cause: "KServe's LLMInferenceService controller needs the LeaderWorkerSet CRD, which KServe does not install, and looks for it when it starts; LeaderWorkerSet's CRD is too large for a client-side apply.",
        fix: "Add dependsOn from each LLMInferenceService to what installs LeaderWorkerSet and KServe in the stack (their charts, releases or manifests), or to something that waits for them; apply LeaderWorkerSet's manifests server-side.",
        prevention: "LeaderWorkerSet's chart is installed, server-side, before KServe and every model service.",
        recovery: "install LeaderWorkerSet before KServe and the model services (this stack's platform layer does; `pulumi up`)",
        inspect: "kubectl get crd leaderworkersets.leaderworkerset.x-k8s.io",
        sources: [
            "https://lws.sigs.k8s.io/docs/installation/ (kubectl apply --server-side)",
            "kubernetes-sigs/lws v0.10.0 site/content/en/docs/installation/_index.md (the chart, namespace lws-system)",
        ],
    },
    {
        id: "platform-controllers",
        title: "KServe, LeaderWorkerSet and cert-manager must be installed and running before any model service",
        symptom:
            "Model services stay not Ready, or their objects are refused by a webhook, while a platform controller is missing or unavailable.",
        cause: "Every LLMInferenceService is reconciled by KServe's controller, which needs LeaderWorkerSet's controller and cert-manager's certificates; a missing or unavailable controller stops them all.",
        fix: "Install cert-manager, LeaderWorkerSet and KServe at pinned versions, and wait for their controllers (and webhooks) before creating model services.",
        prevention: "The platform layer installs the pinned charts and waits for each chart's webhooks before the objects of its kinds.",
        recovery: "`pulumi up` installs a missing chart; a failing controller's Deployment conditions and pod logs say why",
        inspect: "kubectl get deployments -n kserve; kubectl get deployments -n lws-system; kubectl get deployments -n cert-manager",
        sources: [
            "kserve/kserve v0.20.0 charts/kserve-llmisvc-resources (the LLMInferenceService controller and its webhooks, with cert-manager's certificates)",
            "https://lws.sigs.k8s.io/docs/installation/",
        ],
    },
    {
        id: "kserve-conditions",
        title: "KServe's Ready rolls up its parts: the first condition that is False names the one that is not ready",
        symptom:
            "An LLMInferenceService is not Ready, or a part KServe makes of it (its route, its endpoint picker, its pods) does not exist.",
        cause: "KServe's Ready rolls up WorkloadsReady and RouterReady, each rolling up its own parts (the workload, the scheduler, the Gateways, the HTTPRoutes, the InferencePool) and copying the first False one's reason and message.",
        fix: "Read the service's conditions: the first False one other than Ready, WorkloadsReady and RouterReady names the part and why.",
        prevention: "`pulumi up` waits until each service serves, and reports the conditions when it does not.",
        recovery: "the service's Ready conditions say why; the checks below name the part that is not ready",
        inspect: "kubectl get llminferenceservice -A; kubectl describe llminferenceservice -n llm-inference <name>",
        sources: [
            "kserve/kserve v0.20.0 pkg/apis/serving/v1alpha2/llm_inference_service_lifecycle.go:24-44 and :318-337 (Ready rolls up the parts; RouterReady copies the first False sub-condition)",
        ],
    },
    {
        id: "rsa-ca",
        title: "KServe expects an RSA CA; an ECDSA CA had to be recreated as RSA 2048",
        symptom: "KServe cannot sign a model service's certificates with an ECDSA CA, and the service never becomes Ready.",
        cause: "KServe's LLMInferenceService controller signs its workload certificates with the CA's key as an RSA key (SHA256WithRSA).",
        fix: "Set spec.privateKey.algorithm to RSA with size 2048 (or larger) on certificates with isCA: true.",
        prevention: "A self-signed root issues an RSA 2048 CA, behind a CA ClusterIssuer.",
        recovery: "recreate the CA Certificate with privateKey.algorithm RSA, size 2048 (this stack's CA is; `pulumi up` restores it)",
        inspect: "kubectl get certificate -n cert-manager tpu-inference-ca -o jsonpath='{.spec.privateKey}'",
        sources: [
            "https://github.com/opendatahub-io/kserve/pull/1895 (the LLMInferenceService CA signing path reads RSA keys and signs SHA256WithRSA)",
        ],
    },
    {
        id: "pinned-images",
        title: "Pin every image and chart: a `:latest` scheduler image changed under the deployment and rejected its flags",
        symptom:
            "A pod that ran yesterday crash-loops on flags it no longer accepts, or an image that was never published cannot be pulled.",
        cause: "A floating tag (`latest`, or none) or an unpinned chart installs whatever the registry holds at the next pull or update; a digest or tag that does not exist never pulls.",
        fix: "Pin every image to a version tag or a digest that exists (e.g. ghcr.io/llm-d/llm-d-router-endpoint-picker:v0.10.0), and every chart to an exact version; ranges and an empty version are not pinned.",
        prevention: `Every image and chart is pinned in the catalog (the EPP at ${IMAGES.endpointPicker}, KServe's charts at ${CHARTS.kserveLlmisvcResources.version}).`,
        recovery: "check the image reference (the model's image setting) and that the nodes may pull from its registry",
        inspect: "kubectl get deploy,pods -n llm-inference -o jsonpath='{..image}'",
        sources: ["https://kubernetes.io/docs/concepts/containers/images/#image-names (a tag other than latest, or a digest)"],
    },
] as const satisfies readonly Lesson[];
