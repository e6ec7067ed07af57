import * as gcp from "@pulumi/gcp";
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { GCP_NAME_RULES, MODEL_ARMOR, PROJECT_APIS, VLLM_HEALTH_PATH } from "@gke-tpu-inference/facts";
import { StackNames } from "../lib/names";
import { gatewayTargetRef } from "./targets";

/** Arguments of {@link ModelArmor}. */
export interface ModelArmorArgs {
    /** Provider of the target cluster. */
    provider: k8s.Provider;
    project: string;
    projectNumber: pulumi.Input<string>;
    /** The cluster's region, which Model Armor serves (the settings check it). */
    region: string;
    /** The Gateway the extension attaches to. */
    gateway: { namespace: pulumi.Input<string>; name: string };
    /** Enable Model Armor's API (off where a platform team manages APIs). */
    manageApi: boolean;
    /** Stack-qualified names: the template's ID is per stack, as two stacks may share a project and region. */
    names: StackNames;
    /** The Network Services API enabled: its service agent calls Model Armor for the load balancer. */
    networkServices: pulumi.Input<pulumi.Resource>[];
}

/** Every RAI category Model Armor filters, at medium confidence and above. */
const RAI_FILTERS = ["SEXUALLY_EXPLICIT", "HATE_SPEECH", "HARASSMENT", "DANGEROUS"];

/**
 * The requests the extension screens: every one but a health check. The Gateway routes nothing to vLLM but its key-guarded
 * API and its health check (routerRoute.ts), so whatever else reaches a model is screened, at the root or under a
 * service's prefixes, whatever its path; `request.path` carries no query string (it is `request.query`).
 */
export function screenedRequestsMatcher(): string {
    return `!request.path.endsWith('${VLLM_HEALTH_PATH}')`;
}

/**
 * Model Armor at GKE's Gateway: a template of filters (responsible-AI categories, prompt injection and jailbreak,
 * sensitive data, malicious URLs), the roles Google's guide grants the Service Extensions agent (once the Network
 * Services API has made it), and a GCPTrafficExtension that sends every request and response to a model through Model
 * Armor in the cluster's region, failing closed. Sources: `SOURCES.modelArmor` and `SOURCES.modelArmorAgent` in the
 * catalog.
 */
export class ModelArmor extends pulumi.ComponentResource {
    /** The template's resource name, `projects/…/locations/…/templates/…`. */
    public readonly templateName: pulumi.Output<string>;
    /** The extension: the Gateway waits for it, so that it never serves unscreened. */
    public readonly extension: k8s.apiextensions.CustomResource;

    constructor(name: string, args: ModelArmorArgs, opts?: pulumi.ComponentResourceOptions) {
        super("gke-tpu-inference:gateway:ModelArmor", name, {}, opts);
        const api = args.manageApi
            ? [
                  new gcp.projects.Service(
                      `${name}-api`,
                      { project: args.project, service: MODEL_ARMOR.api, disableOnDestroy: false },
                      { parent: this },
                  ),
              ]
            : [];
        const template = new gcp.modelarmor.Template(
            `${name}-template`,
            {
                project: args.project,
                location: args.region,
                templateId: args.names.name("screening", GCP_NAME_RULES.modelArmorTemplate),
                filterConfig: {
                    raiSettings: { raiFilters: RAI_FILTERS.map((filterType) => ({ filterType, confidenceLevel: "MEDIUM_AND_ABOVE" })) },
                    sdpSettings: { basicConfig: { filterEnforcement: "ENABLED" } },
                    piAndJailbreakFilterSettings: { filterEnforcement: "ENABLED", confidenceLevel: "MEDIUM_AND_ABOVE" },
                    maliciousUriFilterSettings: { filterEnforcement: "ENABLED" },
                },
            },
            { parent: this, dependsOn: api },
        );
        // The agent exists only once the Network Services API has made it: generateServiceIdentity makes it now (it
        // returns no email for this agent, whose address is fixed), so that no grant names an account not there yet.
        const agent = new gcp.projects.ServiceIdentity(
            `${name}-agent`,
            { project: args.project, service: PROJECT_APIS.networkServices },
            { parent: this, dependsOn: args.networkServices },
        );
        const grants = MODEL_ARMOR.serviceAgentRoles.map(
            (role) =>
                new gcp.projects.IAMMember(
                    `${name}-${role.split("/")[1].replace(/\./g, "-").toLowerCase()}`,
                    { project: args.project, role, member: pulumi.output(args.projectNumber).apply(MODEL_ARMOR.serviceAgent) },
                    { parent: this, dependsOn: [...api, agent] },
                ),
        );
        const templateName = pulumi.interpolate`projects/${args.project}/locations/${args.region}/templates/${template.templateId}`;
        this.extension = new k8s.apiextensions.CustomResource(
            `${name}-extension`,
            {
                apiVersion: "networking.gke.io/v1",
                kind: "GCPTrafficExtension",
                metadata: { name: `${args.gateway.name}-model-armor`, namespace: args.gateway.namespace },
                spec: {
                    targetRefs: [gatewayTargetRef(args.gateway.name)],
                    extensionChains: [
                        {
                            name: "model-armor",
                            matchCondition: { celExpressions: [{ celMatcher: screenedRequestsMatcher() }] },
                            extensions: [
                                {
                                    name: "model-armor",
                                    googleAPIServiceName: MODEL_ARMOR.serviceName(args.region),
                                    timeout: MODEL_ARMOR.timeout,
                                    supportedEvents: [...MODEL_ARMOR.supportedEvents],
                                    failOpen: false,
                                    metadata: {
                                        model_armor_settings: templateName.apply((template) =>
                                            JSON.stringify([
                                                {
                                                    model: "default",
                                                    user_prompt_template_id: template,
                                                    model_response_template_id: template,
                                                },
                                            ]),
                                        ),
                                    },
                                },
                            ],
                        },
                    ],
                },
            },
            { parent: this, provider: args.provider, dependsOn: [template, ...grants] },
        );
        this.templateName = templateName;
        this.registerOutputs({ templateName: this.templateName });
    }
}
