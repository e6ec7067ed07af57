import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";
import { readLiveFacts } from "./components/infrastructure/preflight";
import { ProjectApis } from "./components/infrastructure/projectApis";
import { stackNames } from "./components/lib/names";
import { InferenceObservability } from "./components/observability/observability";
import { loadSettings } from "./components/settings/stack";
import { fleet } from "./components/stack/fleet";
import { singleCluster } from "./components/stack/singleCluster";
import { Context, name, network } from "./components/stack/stages";

/** The stack: settings are validated and the live facts read before the first resource is registered; then each layer. */
export = async () => {
    const settings = loadSettings();
    const isFleet = settings.fleet !== undefined;
    const withApis = await readLiveFacts(settings, new pulumi.Config().name, settings.manageProjectApis);
    const preflight = withApis(new ProjectApis(name, { project: settings.project, manage: settings.manageProjectApis, fleet: isFleet }));
    const names = stackNames(name, pulumi.getStack());
    const context: Context = {
        settings,
        where: { project: settings.project, region: settings.region },
        preflight,
        names,
        projectNumber: gcp.organizations.getProjectOutput({ projectId: settings.project }).number,
        label: (base) => base,
        network: network(settings, preflight, names),
    };
    const observability = new InferenceObservability(name, {
        project: settings.project,
        stack: pulumi.getStack(),
        models: settings.models,
        dependsOn: preflight.prerequisites("monitoring"),
    });
    return isFleet ? fleet(context, observability) : singleCluster(context, observability);
};
