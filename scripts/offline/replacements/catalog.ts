/**
 * The inputs whose change makes a provider replace a resource instead of updating it in place (`+-` in `pulumi
 * preview`), for every custom resource type the program emits: one catalog, each rule cited to the provider's own
 * schema or source at the version package.json pins. The diff (diff.ts) applies it.
 *
 * Pins, and the source read for each where the pinned tag is not mirrored:
 * - @pulumi/gcp 9.37.0 bridges hashicorp/terraform-provider-google-beta 7.46.1 (pulumi/pulumi-gcp#4019, "Release
 *   v9.37.0"); read at its release-7.46.0 branch, 848beed88c (7.46.1 is not mirrored). No pulumi-gcp patch or resource
 *   override sets ForceNew (pulumi/pulumi-gcp@v9.35.0:patches, provider/resources.go), so Terraform's diff decides: the
 *   bridge replaces where it requires a new resource (pulumi/pulumi-terraform-bridge@v3.136.0:pkg/tfbridge/provider.go:1208,
 *   1241-1260), by terraform-plugin-sdk's rules (pulumi/terraform-plugin-sdk@7f1981c8, branch upstream-v2.38.1:
 *   helper/schema/schema.go, cited as SDK below).
 * - @pulumi/random 4.21.2 bridges hashicorp/terraform-provider-random f8d869dc98d9 (v3.9.0; pulumi/pulumi-random@v4.21.1:
 *   provider/shim/go.mod), which adds no override (provider/resources.go:60-62).
 * - @pulumi/kubernetes 4.34.2: pulumi/pulumi-kubernetes at 94977969d6 (2026-07-01; the 4.34.2 tag is not mirrored).
 *
 * Paths are input property paths as the Pulumi SDK names them (a block of at most one element is an object, a longer
 * list an array), joined by dots, with `[]` for each element of a list.
 */
import { GCP, GCP_GENERIC, RANDOM } from "./gcp";
import { KUBERNETES, KUBERNETES_IDENTITY, kubernetesProvider } from "./kubernetes";
import { ReplaceRule } from "./rules";

export type { Inputs, ReplaceContext, ReplaceOn, ReplaceRule } from "./rules";

const CATALOG: Record<string, ReplaceRule[]> = { ...GCP, ...RANDOM, ...KUBERNETES, "pulumi:providers:kubernetes": kubernetesProvider() };

/**
 * What replaces a resource of `type`: its catalog entry; for a Kubernetes kind outside the provider's table (custom
 * resources, a `*Patch`, whose kind the table does not hold: provider.go:1561-1566) its identity; for another GCP type
 * the generic rule; nothing for a component (the engine diffs its inputs itself and never replaces it:
 * pulumi/pulumi@1b5949891b:pkg/resource/deploy/step_generator.go:2934-2940) or another provider's type.
 */
export function replaceRules(type: string, custom: boolean): readonly ReplaceRule[] {
    if (!custom) {
        return [];
    }
    return CATALOG[type] ?? (type.startsWith("kubernetes:") ? KUBERNETES_IDENTITY : type.startsWith("gcp:") ? GCP_GENERIC : []);
}

/** The types the catalog lists by name. */
export const CATALOGUED_TYPES: ReadonlySet<string> = new Set(Object.keys(CATALOG));
