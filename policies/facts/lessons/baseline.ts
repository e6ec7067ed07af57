/**
 * The security baseline: what no inference stack on GKE should run without, whatever it serves. Its first part is
 * GKE's generic hardening (any cluster's nodes and protection); the second is the serving endpoint's own security.
 */
import { CLOUD_ARMOR, INTERNAL_GATEWAY_CLASSES, NODE_SERVICE_ACCOUNT_ROLES } from "../catalog";
import { Lesson } from "./lesson";

const HARDENING = "https://cloud.google.com/kubernetes-engine/docs/how-to/hardening-your-cluster";

/** GKE's generic hardening: nodes and the cluster's protection, the same for any workload. */
export const GKE_HARDENING_LESSONS = [
    {
        id: "workload-identity",
        title: "Pods get Google credentials through Workload Identity, never the node's service account",
        symptom: "Any pod on a node can call Google APIs as the node's service account.",
        cause: "Without Workload Identity and the GKE metadata server, every pod reads the node's credentials from the metadata server.",
        fix: "Set workloadIdentityConfig.workloadPool to <project>.svc.id.goog on the cluster and nodeConfig.workloadMetadataConfig.mode GKE_METADATA on every node pool.",
        prevention: "Workload Identity on the cluster, the GKE metadata server on every pool; each workload its own principal.",
        sources: [`${HARDENING} (Workload Identity)`, "https://cloud.google.com/kubernetes-engine/docs/how-to/workload-identity"],
    },
    {
        id: "private-nodes",
        title: "Nodes get no public IP addresses; they reach registries through Cloud NAT",
        symptom: "Nodes are reachable from the internet at public addresses.",
        cause: "A node with a public IP address is exposed to the internet whatever its firewall rules allow today.",
        fix: "Set privateClusterConfig.enablePrivateNodes true and give the network a Cloud NAT for image and model downloads.",
        prevention: "Private nodes, with a Cloud NAT.",
        sources: [`${HARDENING} (private nodes)`, "https://cloud.google.com/kubernetes-engine/docs/how-to/private-clusters"],
    },
    {
        id: "shielded-nodes",
        title: "Nodes boot verified: Shielded GKE nodes with Secure Boot",
        symptom: "A node with a tampered boot chain joins the cluster.",
        cause: "Without Shielded nodes and Secure Boot, nothing verifies a node's boot chain before it joins.",
        fix: "Leave enableShieldedNodes on the cluster (true) and set nodeConfig.shieldedInstanceConfig.enableSecureBoot true on every node pool.",
        prevention: "Shielded nodes with Secure Boot on every pool.",
        sources: [
            `${HARDENING} (Shielded GKE nodes, Secure Boot)`,
            "https://cloud.google.com/kubernetes-engine/docs/how-to/shielded-gke-nodes",
        ],
    },
    {
        id: "node-service-account",
        title: "Nodes run as a dedicated least-privilege service account, not Compute Engine's default",
        symptom: "Nodes run with the Compute Engine default service account and its broad project role.",
        cause: "The Compute Engine default service account is an Editor of the project by default; every node, and every pod that reaches its credentials, gets it.",
        fix: `Create a service account with ${NODE_SERVICE_ACCOUNT_ROLES.join(", ")} and set it as nodeConfig.serviceAccount on the cluster and every node pool.`,
        prevention: `A dedicated node service account with ${NODE_SERVICE_ACCOUNT_ROLES.join(", ")}.`,
        sources: [
            "https://cloud.google.com/kubernetes-engine/docs/how-to/service-accounts (roles/container.defaultNodeServiceAccount)",
            "CIS Google Kubernetes Engine Benchmark v2.0.0, 5.2.1",
        ],
    },
    {
        id: "deletion-protection",
        title: "Outside throwaway stacks, `pulumi destroy` or a replacement must not take the cluster with it",
        symptom: "A destroy, or a change that replaces the cluster, deletes it with every workload on it.",
        cause: "Without deletion protection GKE deletes a cluster on request, and Pulumi replaces a cluster for some changes.",
        fix: "Set deletionProtection true on the cluster, or list the stack in this policy's exemptStacks config.",
        prevention: "Deletion protection on, except in the dev stack.",
        sources: ["https://cloud.google.com/kubernetes-engine/docs/how-to/deleting-a-cluster (deletion protection)"],
    },
] as const satisfies readonly Lesson[];

/** The serving endpoint's security: its credentials and who may reach it. */
export const SERVING_SECURITY_LESSONS = [
    {
        id: "plain-text-secrets",
        title: "Credentials live in Secrets, never in a pod's environment, a ConfigMap or a command line",
        symptom: "A token (HF_TOKEN) sits in plain text in the object, in Pulumi's state and in every preview.",
        cause: "A credential written into a pod spec, or into a ConfigMap a pod loads into its environment, is stored and shown in plain text wherever the object is.",
        fix: "Store the value with `pulumi config set --secret`, write it into a Kubernetes Secret, and reference it with env[].valueFrom.secretKeyRef (or envFrom.secretRef); on a command line use $(VAR) with such a variable.",
        prevention: "The Hugging Face token is a Pulumi secret, in a Kubernetes Secret the server reads by reference.",
        sources: ["https://kubernetes.io/docs/concepts/security/secrets-good-practices/"],
    },
    {
        id: "open-endpoint",
        title: "An inference endpoint on the internet is closed to everyone but its callers, and speaks HTTPS only",
        symptom: "Anyone who finds the address spends the TPUs and reads the prompts.",
        cause: "An external load balancer (a Gateway's, an Ingress's, a LoadBalancer Service's) answers every address on the internet: without an allowlist or an identity check in front of its backends, anyone can send requests, and over plain HTTP every prompt and completion crosses the network in clear text.",
        fix: `Give every backend of an external Gateway access control: on GKE a GCPBackendPolicy with spec.default.securityPolicy (a Cloud Armor policy that allows your ranges, default rule ${CLOUD_ARMOR.denyAction}) or iap.enabled; behind Istio an ALLOW AuthorizationPolicy whose targetRefs name the Gateway and whose every rule requires ipBlocks, remoteIpBlocks or requestPrincipals, or loadBalancerSourceRanges on the Gateway's Service. Serve the routes on an HTTPS listener and let the HTTP listener only redirect (RequestRedirect scheme https). An internal class (${INTERNAL_GATEWAY_CLASSES[0]}) keeps the address in the VPC. Without a Gateway, a LoadBalancer Service or an Ingress in front of vLLM needs the same: an internal load balancer, loadBalancerSourceRanges or the Ingress controller's allowlist, or authentication (a BackendConfig with IAP or Cloud Armor on GKE, the ALB's OIDC or Cognito, ingress-nginx's auth); a header compared with a value written in the program is not access control.`,
        prevention:
            "HTTPS only on a reserved address, with a certificate cert-manager issues; Cloud Armor (GKE) or the load balancer's firewall and an AuthorizationPolicy (Istio) let in allowedSourceRanges only (none until you set it) and limit each address per minute; every model server requires the stack's key; IAP, Google ID tokens and Model Armor are opt-in.",
        recovery:
            "set allowedSourceRanges to your network (pulumi config set --path 'allowedSourceRanges[0]' <CIDR>) and run `pulumi up`; `kubectl describe` the object the check names for its conditions",
        inspect:
            "kubectl get gateway,certificate -n inference-gateway; kubectl get gcpbackendpolicy -n llm-inference -o custom-columns=NAME:.metadata.name,ARMOR:.spec.default.securityPolicy,IAP:.spec.default.iap.enabled",
        sources: [
            "https://cloud.google.com/armor/docs/security-policy-overview",
            "https://docs.cloud.google.com/armor/docs/rate-limiting-overview",
            "https://cloud.google.com/kubernetes-engine/docs/how-to/configure-gateway-resources",
            "https://istio.io/latest/docs/tasks/security/authorization/authz-ingress/",
            "istio/api 1092f7f security/v1beta1/authorization_policy.proto:25-33 (no ALLOW policy: allow; an ALLOW policy: allow only what one matches)",
            "kubernetes-sigs/gateway-api v1.4.0 config/crd/standard/gateway.networking.k8s.io_httproutes.yaml:731-883 (RequestRedirect scheme https)",
            "vllm-project/vllm 00b005cf docs/usage/security.md (Do not rely exclusively on --api-key)",
        ],
    },
] as const satisfies readonly Lesson[];
