import { requirePinnedChartVersions as policy } from "../../policies/requirePinnedChartVersions";
import { UNKNOWN, check, resource } from "./harness";

const chart = (version: unknown) =>
    resource("kubernetes:helm.sh/v4:Chart", "cert-manager", {
        chart: "oci://quay.io/jetstack/charts/cert-manager",
        ...(version !== undefined ? { version } : {}),
    });

describe("require-pinned-chart-versions", () => {
    test("passes an exact version", async () => {
        expect(await check(policy, [chart("v1.21.1")])).toEqual([]);
    });

    test("fails a missing version and a range", async () => {
        expect(await check(policy, [chart(undefined)])).toEqual([
            {
                level: "mandatory",
                resource: "cert-manager",
                message: "Helm chart cert-manager (oci://quay.io/jetstack/charts/cert-manager) has version null; pin an exact release.",
            },
        ]);
        expect((await check(policy, [chart("^1.21")])).map((violation) => violation.message)).toEqual([
            'Helm chart cert-manager (oci://quay.io/jetstack/charts/cert-manager) has version "^1.21"; pin an exact release.',
        ]);
    });

    test("also reads v3 Charts and Releases; not applicable to other resources", async () => {
        expect(await check(policy, [resource("kubernetes:helm.sh/v3:Release", "r", { chart: "lws" })])).toHaveLength(1);
        expect(await check(policy, [resource("gcp:compute/network:Network", "vpc", {})])).toEqual([]);
    });

    test("preview: an unknown version is not a violation", async () => {
        expect((await check(policy, [chart(UNKNOWN)]))[0].level).toBe("advisory");
    });
});
