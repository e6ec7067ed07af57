import { createHash } from "crypto";
import type { MockCallArgs, MockResourceArgs, MockResourceResult, Mocks } from "@pulumi/pulumi/runtime/mocks";
import { InvokeAnswer, RecordedInvoke, defaultInvokeAnswers } from "./invokes";
import { NoOfflineAnswer } from "./recorder";

/**
 * Mock resource outputs shaped like the real providers' (GCP ids and self links, a cluster
 * endpoint and CA, service account emails, auto-names), so that Outputs flowing between
 * resources carry realistic values and the dependencies they imply. Deterministic: the
 * same program gives the same values on every run.
 */

/** Addresses from TEST-NET ranges (RFC 5737): realistic, never routable. */
export const MOCK_CLUSTER_ENDPOINT = "203.0.113.10";
export const MOCK_GATEWAY_ADDRESS = "198.51.100.20";
export const MOCK_CLUSTER_CA = Buffer.from("-----BEGIN CERTIFICATE-----\nMIIBoffline-preview\n-----END CERTIFICATE-----\n").toString(
    "base64",
);

const COMPUTE_API = "https://www.googleapis.com/compute/v1";

/** `name-xxxxxxx` as the engine auto-names, with a suffix derived from the stack, type and name instead of random. */
export function autoName(stack: string, type: string, name: string): string {
    return `${name}-${createHash("sha256").update(`${stack}::${type}::${name}`).digest("hex").slice(0, 7)}`;
}

type State = Record<string, unknown>;

function gcpState(args: MockResourceArgs, project: string, stack: string): MockResourceResult {
    const inputs = args.inputs as State;
    // A resource read by its ID (`Network.get`) is the one that ID names: its name is the ID's last segment.
    const read = typeof args.id === "string" && args.id !== "" ? args.id.split("/").pop() : undefined;
    const name = (inputs.name as string | undefined) ?? read ?? autoName(stack, args.type, args.name);
    const region = inputs.region as string | undefined;
    const location = inputs.location as string | undefined;
    const withName = { ...inputs, project, name };
    switch (args.type) {
        case "gcp:compute/network:Network": {
            const id = `projects/${project}/global/networks/${name}`;
            return { id, state: { ...withName, selfLink: `${COMPUTE_API}/${id}` } };
        }
        case "gcp:compute/subnetwork:Subnetwork": {
            const id = `projects/${project}/regions/${region}/subnetworks/${name}`;
            return { id, state: { ...withName, selfLink: `${COMPUTE_API}/${id}` } };
        }
        case "gcp:compute/router:Router": {
            const id = `projects/${project}/regions/${region}/routers/${name}`;
            return { id, state: { ...withName, selfLink: `${COMPUTE_API}/${id}` } };
        }
        case "gcp:compute/routerNat:RouterNat":
            return { id: `${project}/${region}/${inputs.router}/${name}`, state: withName };
        case "gcp:serviceaccount/account:Account": {
            const email = `${inputs.accountId}@${project}.iam.gserviceaccount.com`;
            return {
                id: `projects/${project}/serviceAccounts/${email}`,
                state: {
                    ...inputs,
                    project,
                    email,
                    name: `projects/${project}/serviceAccounts/${email}`,
                    member: `serviceAccount:${email}`,
                },
            };
        }
        case "gcp:projects/iAMMember:IAMMember":
            return { id: `${project}/${inputs.role}/${inputs.member}`, state: { ...inputs, etag: "BwYmockEtag=" } };
        case "gcp:container/cluster:Cluster": {
            const id = `projects/${project}/locations/${location}/clusters/${name}`;
            return {
                id,
                state: {
                    ...withName,
                    endpoint: MOCK_CLUSTER_ENDPOINT,
                    masterAuth: { clusterCaCertificate: MOCK_CLUSTER_CA },
                    selfLink: `https://container.googleapis.com/v1/${id}`,
                },
            };
        }
        case "gcp:monitoring/dashboard:Dashboard":
            return { id: `projects/${project}/dashboards/${autoName(stack, args.type, args.name).split("-").pop()}`, state: inputs };
        case "gcp:monitoring/alertPolicy:AlertPolicy": {
            const id = `projects/${project}/alertPolicies/${autoName(stack, args.type, args.name).split("-").pop()}`;
            return { id, state: { ...inputs, name: id } };
        }
        case "gcp:projects/service:Service":
            return { id: `${project}/${inputs.service}`, state: { ...inputs, project } };
        case "gcp:compute/address:Address": {
            // A reserved address's IP: the one the Gateway then reports.
            const id = `projects/${project}/regions/${region}/addresses/${name}`;
            return { id, state: { ...withName, address: MOCK_GATEWAY_ADDRESS, selfLink: `${COMPUTE_API}/${id}` } };
        }
        case "gcp:gkehub/membership:Membership": {
            const id = `projects/${project}/locations/${location ?? "global"}/memberships/${inputs.membershipId}`;
            return { id, state: { ...inputs, project, name: id } };
        }
        case "gcp:container/nodePool:NodePool":
            return { id: `${inputs.cluster}/nodePools/${name}`, state: withName };
        default:
            return { id: `projects/${project}/${args.type.split(":")[2]?.toLowerCase() ?? "resource"}/${name}`, state: withName };
    }
}

function kubernetesState(args: MockResourceArgs, stack: string): MockResourceResult {
    const inputs = args.inputs as State;
    const metadata = (inputs.metadata as State | undefined) ?? {};
    const name = (metadata.name as string | undefined) ?? autoName(stack, args.type, args.name);
    const namespace = metadata.namespace as string | undefined;
    // A programmed Gateway reports its load balancer's address.
    const status =
        args.type === "kubernetes:gateway.networking.k8s.io/v1:Gateway"
            ? { status: { addresses: [{ type: "IPAddress", value: MOCK_GATEWAY_ADDRESS }] } }
            : {};
    return {
        id: namespace ? `${namespace}/${name}` : name,
        state: { ...inputs, metadata: { ...metadata, name }, ...status },
    };
}

/** How the mocks answer. */
export interface MockOptions {
    /** The project a GCP resource or invoke without an explicit `project` lands in. */
    project: string;
    /** The stack, so that auto-names and server-assigned ids differ between stacks as they do in GCP. */
    stack: string;
    /** The AWS provider's region (aws:region), which AWS's identity functions answer with. */
    awsRegion?: string;
    /** Answers per invoke token that replace the defaults ({@link defaultInvokeAnswers}). */
    invokes?: Record<string, InvokeAnswer>;
    /** Called with every invoke the program makes. */
    onInvoke?: (invoke: RecordedInvoke) => void;
}

/** The mocks the offline preview and the tests run the program with. */
export function realisticMocks(options: MockOptions): Mocks {
    const { project, stack } = options;
    const answers = { ...defaultInvokeAnswers(project, options.awsRegion), ...options.invokes };
    return {
        newResource(args: MockResourceArgs): MockResourceResult {
            if (args.type.startsWith("pulumi:providers:")) {
                return { id: createHash("sha256").update(`${stack}::${args.name}`).digest("hex").slice(0, 32), state: args.inputs };
            }
            if (args.type.startsWith("gcp:")) {
                const made = gcpState(args, ((args.inputs as State).project as string | undefined) ?? project, stack);
                const id = args.id;
                // A read keeps the ID it was given, and the link it makes.
                return typeof id === "string" && id !== ""
                    ? {
                          id,
                          state: {
                              ...made.state,
                              // The API the mock's own link names (Compute Engine's, GKE's), with the ID read.
                              ...(typeof (made.state as State).selfLink === "string"
                                  ? {
                                        selfLink: id.startsWith("https://")
                                            ? id
                                            : `${String((made.state as State).selfLink).split("projects/")[0]}${id}`,
                                    }
                                  : {}),
                          },
                      }
                    : made;
            }
            if (args.type.startsWith("kubernetes:")) {
                return kubernetesState(args, stack);
            }
            if (args.type === "random:index/randomPassword:RandomPassword") {
                // A password the preview derives from the stack and the name: deterministic, and no secret of anyone's.
                return { id: `${args.name}-id`, state: { ...args.inputs, result: autoName(stack, args.type, args.name) } };
            }
            return { id: `${args.name}-id`, state: args.inputs };
        },
        call(args: MockCallArgs): Record<string, unknown> {
            options.onInvoke?.({ token: args.token, args: args.inputs });
            const answer = answers[args.token];
            if (answer === undefined) {
                throw new NoOfflineAnswer(
                    `the offline preview has no answer for ${args.token}; known: ${Object.keys(answers).sort().join(", ")}`,
                );
            }
            return answer(args.inputs);
        },
    };
}
