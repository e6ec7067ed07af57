/** What a bridged provider does with a resource's name when the program leaves it out, read off the program's own SDK. */

/**
 * Whether a GCP resource type takes a `name` input, which the provider then auto-names when the program leaves it out:
 * read off the program's own @pulumi/gcp, whose generated constructor copies each input (`resourceInputs["name"] =
 * args?.name`). Cached per type.
 */
export function gcpNameInputs(programDir: string): (type: string) => boolean {
    const known = new Map<string, boolean>();
    return (type) => {
        const [, module, member] = /^gcp:([^/:]+)\/[^:]+:(\w+)$/.exec(type) ?? [];
        if (member === undefined) {
            return false;
        }
        if (!known.has(type)) {
            let takesName = false;
            try {
                const classes = require(require.resolve(`@pulumi/gcp/${module}`, { paths: [programDir] })) as Record<string, unknown>;
                takesName = /resourceInputs\["name"\] = args(\?\.name| \? args\.name)/.test(String(classes[member]));
            } catch {
                // A program without @pulumi/gcp registers no GCP resource.
            }
            known.set(type, takesName);
        }
        return known.get(type)!;
    };
}
