import { ProjectApis } from "../../../components/infrastructure/projectApis";
import { record } from "../../harness";

describe("ProjectApis", () => {
    async function enabled(fleet: boolean | undefined) {
        let apis: ProjectApis | undefined;
        const graph = await record(() => {
            apis = new ProjectApis("apis", { project: "acme-inference", manage: true, ...(fleet === undefined ? {} : { fleet }) });
        });
        return { services: graph.ofType("gcp:projects/service:Service").map((service) => service.inputs.service), apis: apis! };
    }

    test("a fleet enables GKE Hub and the multi-cluster Ingress API; a single cluster neither, and asking for them is a wiring error", async () => {
        const single = await enabled(undefined);
        expect(single.services).not.toContain("gkehub.googleapis.com");
        expect(single.services).not.toContain("multiclusteringress.googleapis.com");
        expect(() => single.apis.dependencies("gkeHub")).toThrow(
            "gkehub.googleapis.com is not among the stack's APIs (compute, container, iam, resourceManager, networkServices, monitoring, storage, artifactRegistry, containerFilesystem): only a fleet calls it",
        );
        const fleet = await enabled(true);
        expect(fleet.services.slice(-2)).toEqual(["gkehub.googleapis.com", "multiclusteringress.googleapis.com"]);
        expect(fleet.services.slice(0, -2)).toEqual(single.services);
        expect(fleet.apis.dependencies("multiClusterIngress").map((service) => service.constructor.name)).toEqual(["Service"]);
    });
});
