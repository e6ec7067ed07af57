import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { stringify } from "yaml";
import { IMAGES } from "@gke-tpu-inference/facts";

/** An object the gate asks the API server to create in a dry run, so that the webhooks under test are called with it. */
export interface WebhookProbe {
    apiVersion: string;
    kind: string;
    metadata: { name: string; namespace?: string };
    spec: Record<string, unknown>;
}

/** Arguments of {@link WebhookGate}. */
export interface WebhookGateArgs {
    /** Provider of the target cluster. */
    provider: k8s.Provider;
    /** Namespace the probe Job runs in: that of the chart that installs the webhooks. */
    namespace: pulumi.Input<string>;
    /** Objects to create with `--dry-run=server`: each passes the webhooks that objects of its kind pass. Nothing is persisted. */
    probes: WebhookProbe[];
    /** The API groups and plural resources of the probes, which the Job may create (dry runs need the create permission). */
    resources: Array<{ apiGroup: string; resources: string[] }>;
    /** The version of what installs the webhooks: a new one re-runs the probe (its pod template changes, so the Job is replaced). */
    version: string;
    /** What installs and serves the webhooks (charts, the firewall rule to their port); the probe starts after them. */
    dependsOn: pulumi.Input<pulumi.Resource>[];
    /** How long `pulumi up` waits for the webhooks to answer. Default {@link DEFAULT_TIMEOUT_SECONDS}. */
    timeoutSeconds?: number;
}

/** How long `pulumi up` waits for a gate by default: 20 minutes. */
const DEFAULT_TIMEOUT_SECONDS = 1200;

/** Kubernetes' backoff between a Job's failed pods: 10 s, doubling, at most 6 minutes. */
const JOB_BACKOFF = { firstSeconds: 10, maxSeconds: 360 };

/** Retries that keep the Job going past `seconds`, so that `pulumi up`'s own timeout, not the Job's backoff, ends the wait. */
export function backoffLimitFor(seconds: number): number {
    let waited = 0;
    let retries = 0;
    for (let delay = JOB_BACKOFF.firstSeconds; waited <= seconds; delay = Math.min(delay * 2, JOB_BACKOFF.maxSeconds)) {
        waited += delay;
        retries += 1;
    }
    return retries;
}

/**
 * Waits until admission and conversion webhooks answer, as cert-manager's own `startupapicheck` does (and, as it asks the
 * API server to create the probes, until the API serves their kinds: a CRD a GKE component installs later):
 * a Job runs `kubectl create --dry-run=server` on probe objects, so the API server calls each webhook
 * exactly as it will for the stack's own objects (TLS to the webhook's Service, the injected CA bundle,
 * the handler being registered). Pulumi's Helm v4 `Chart` runs no Helm hooks, and Pulumi retries a
 * create only when the kind is unknown or the object not found, never on a webhook error; a pod that
 * is Ready proves neither that the CA bundle is injected nor that the handler is registered. Pulumi
 * waits for a Job until it is `Complete` and fails the update if it is `Failed`, so every object that
 * depends on this gate is created only once its webhooks answer, and a webhook that never does stops
 * the update with the probe's own error.
 */
export class WebhookGate extends pulumi.ComponentResource {
    /** The probe Job: depend on it to be created after the webhooks answer. */
    public readonly ready: k8s.batch.v1.Job;

    constructor(name: string, args: WebhookGateArgs, opts?: pulumi.ComponentResourceOptions) {
        super("gke-tpu-inference:platform:WebhookGate", name, {}, opts);
        const childOpts = { parent: this, provider: args.provider };
        const metadata = (suffix: string) => ({ name: `${name}-${suffix}`, namespace: args.namespace });

        const account = new k8s.core.v1.ServiceAccount(`${name}-probe`, { metadata: metadata("probe") }, childOpts);
        const role = new k8s.rbac.v1.ClusterRole(
            `${name}-probe`,
            {
                metadata: { name: `${name}-probe` },
                rules: args.resources.map(({ apiGroup, resources }) => ({ apiGroups: [apiGroup], resources, verbs: ["create"] })),
            },
            childOpts,
        );
        const binding = new k8s.rbac.v1.ClusterRoleBinding(
            `${name}-probe`,
            {
                metadata: { name: `${name}-probe` },
                roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: role.metadata.name },
                subjects: [{ kind: "ServiceAccount", name: account.metadata.name, namespace: account.metadata.namespace }],
            },
            childOpts,
        );
        const manifests = new k8s.core.v1.ConfigMap(
            `${name}-probes`,
            {
                metadata: metadata("probes"),
                data: Object.fromEntries(args.probes.map((probe, index) => [`probe-${index}.yaml`, stringify(probe)])),
            },
            childOpts,
        );

        this.ready = new k8s.batch.v1.Job(
            `${name}-probe`,
            {
                metadata: {
                    ...metadata("probe"),
                    annotations: { "pulumi.com/timeoutSeconds": String(args.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS) },
                },
                spec: {
                    backoffLimit: backoffLimitFor(args.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS),
                    template: {
                        metadata: { labels: { "app.kubernetes.io/name": `${name}-probe`, "app.kubernetes.io/version": args.version } },
                        spec: {
                            serviceAccountName: account.metadata.name,
                            restartPolicy: "Never",
                            securityContext: { runAsNonRoot: true, runAsUser: 65532, seccompProfile: { type: "RuntimeDefault" } },
                            containers: [
                                {
                                    name: "probe",
                                    image: IMAGES.kubectl,
                                    command: ["kubectl", "create", "--dry-run=server", "--output=name", "--filename=/probes/"],
                                    env: [{ name: "HOME", value: "/tmp" }],
                                    securityContext: {
                                        allowPrivilegeEscalation: false,
                                        readOnlyRootFilesystem: true,
                                        capabilities: { drop: ["ALL"] },
                                    },
                                    resources: { requests: { cpu: "10m", memory: "32Mi" }, limits: { memory: "128Mi" } },
                                    volumeMounts: [
                                        { name: "probes", mountPath: "/probes", readOnly: true },
                                        // kubectl caches API discovery under $HOME.
                                        { name: "home", mountPath: "/tmp" },
                                    ],
                                },
                            ],
                            volumes: [
                                { name: "probes", configMap: { name: manifests.metadata.name } },
                                { name: "home", emptyDir: {} },
                            ],
                        },
                    },
                },
            },
            // The probe is refused until its permission exists; the webhooks under test come from `dependsOn`.
            { ...childOpts, dependsOn: [...args.dependsOn, binding] },
        );
        this.registerOutputs({});
    }
}
