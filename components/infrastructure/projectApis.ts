import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";
import { PROJECT_APIS, ProjectApi } from "@gke-tpu-inference/facts";
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
}

/**
 * The Google Cloud APIs the stack calls ({@link PROJECT_APIS}), enabled for the project and never
 * disabled on destroy: other workloads in the project may rely on them, and disabling Compute Engine
 * or Kubernetes Engine would take down more than this stack.
 */
export class ProjectApis extends pulumi.ComponentResource {
    private readonly services = new Map<ProjectApi, gcp.projects.Service>();

    constructor(name: string, args: ProjectApisArgs, opts?: pulumi.ComponentResourceOptions) {
        super(FROZEN_TYPE_TOKENS.ProjectApis, name, {}, opts);
        if (args.manage) {
            for (const [api, service] of Object.entries(PROJECT_APIS) as Array<[ProjectApi, string]>) {
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
        const service = this.services.get(api);
        return service ? [service] : [];
    }
}
