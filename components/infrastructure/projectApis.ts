import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";
import { PROJECT_APIS, ProjectApi, stackApis } from "@gke-tpu-inference/facts";
import { FROZEN_TYPE_TOKENS } from "../lib/typeTokens";

/** Arguments of {@link ProjectApis}. */
export interface ProjectApisArgs {
    /** The GCP project. */
    project: string;
    /**
     * Enable every API the stack needs (the default). Off for platform teams that manage a project's APIs
     * centrally: then nothing is enabled here and the preview checks instead that each one already is.
     */
    manage: boolean;
    /** Whether the stack builds a fleet, whose GKE Hub and multi-cluster Ingress APIs a single cluster never calls. Default false. */
    fleet?: boolean;
}

/**
 * The Google Cloud APIs the stack calls ({@link PROJECT_APIS}; the fleet's only in a fleet), enabled for the project and
 * never disabled on destroy: other workloads in the project may rely on them, and disabling Compute Engine or Kubernetes
 * Engine would take down more than this stack.
 */
export class ProjectApis extends pulumi.ComponentResource {
    private readonly apis: readonly ProjectApi[];
    private readonly services = new Map<ProjectApi, gcp.projects.Service>();

    constructor(name: string, args: ProjectApisArgs, opts?: pulumi.ComponentResourceOptions) {
        super(FROZEN_TYPE_TOKENS.ProjectApis, name, {}, opts);
        this.apis = stackApis(args.fleet ?? false);
        if (args.manage) {
            for (const api of this.apis) {
                const service = PROJECT_APIS[api];
                this.services.set(
                    api,
                    new gcp.projects.Service(
                        `${name}-${service.split(".")[0]}`,
                        { project: args.project, service, disableOnDestroy: false, disableDependentServices: false },
                        { parent: this },
                    ),
                );
            }
        }
        this.registerOutputs({ enabled: [...this.services.values()].map((service) => service.service) });
    }

    /** What a resource that calls `api` must wait for: the service that enables it, or nothing when the project's APIs are managed elsewhere. */
    dependencies(api: ProjectApi): pulumi.Resource[] {
        // Asking for an API the stack does not call is a wiring mistake: waiting on nothing would hide it.
        if (!this.apis.includes(api)) {
            throw new Error(`${PROJECT_APIS[api]} is not among the stack's APIs (${this.apis.join(", ")}): only a fleet calls it`);
        }
        const service = this.services.get(api);
        return service ? [service] : [];
    }
}
