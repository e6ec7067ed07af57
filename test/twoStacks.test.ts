/**
 * Two stacks of the program in one project and region, as teams share one: every cloud name each creates is its own,
 * and the IAM bindings they share (the same role for the same member on the same resource) are exactly those
 * docs/explanation/security.md lists, since destroying either stack removes such a binding for both.
 */
import * as fs from "fs";
import * as path from "path";
import { Graph, runProgram } from "./harness";
import { evaluatePack } from "./support/wholePack";
import { SHARED_PROGRAMS, sharedProgram } from "./shippedStacks";

/** An IAM binding as GCP keys it: the resource granted on, the role, the member. */
function bindings(graph: Graph): string[] {
    return graph.resources
        .filter((resource) => /IamMember|IAMMember/.test(resource.type))
        .map((resource) => {
            const { project, bucket, repository, role, member } = resource.inputs as Record<string, string>;
            return `${resource.type.split(":")[1]} ${bucket ?? repository ?? project} ${role} ${member}`;
        });
}

describe("two stacks in one project and region", () => {
    let a: Graph;
    let b: Graph;
    beforeAll(async () => {
        // Model Armor, IAP and KEDA in both: every opt-in that grants on the project.
        a = new Graph(await sharedProgram("gkeGuarded"));
        b = await runProgram(SHARED_PROGRAMS.gkeGuarded.config, { ...SHARED_PROGRAMS.gkeGuarded.options, stack: "team-b" });
    });

    test("each has its own Model Armor template, Cloud Armor policy, cluster and bucket", () => {
        const names = (graph: Graph, type: string, field: string) => graph.ofType(type).map((resource) => resource.inputs[field]);
        for (const [type, field] of [
            ["gcp:modelarmor/template:Template", "templateId"],
            ["gcp:compute/regionSecurityPolicy:RegionSecurityPolicy", "name"],
            ["gcp:container/cluster:Cluster", "name"],
            ["gcp:storage/bucket:Bucket", "name"],
        ]) {
            const ofA = names(a, type, field);
            expect([type, ofA.length]).toEqual([type, 1]);
            expect(names(b, type, field).filter((name) => ofA.includes(name))).toEqual([]);
        }
        expect(names(a, "gcp:modelarmor/template:Template", "templateId")).toEqual(["tpu-inference-test-screening"]);
    });

    test("both pass the whole pack", async () => {
        for (const graph of [a, b]) {
            const mandatory = (await evaluatePack(graph.resources)).filter((violation) => violation.enforcementLevel === "mandatory");
            expect(mandatory.map((violation) => `${violation.policyName}: ${violation.message}`)).toEqual([]);
        }
    });

    test("the bindings they share are the project-wide grants the security page lists, and no others", () => {
        const ofA = new Set(bindings(a));
        const shared = bindings(b).filter((binding) => ofA.has(binding));
        const agent = "serviceAccount:service-471862438045@gcp-sa-dep.iam.gserviceaccount.com";
        expect(shared.sort()).toEqual(
            [
                "iap/webIamMember acme-inference roles/iap.httpsResourceAccessor user:me@example.com",
                "projects/iAMMember acme-inference roles/monitoring.viewer principal://iam.googleapis.com/projects/471862438045/locations/global/workloadIdentityPools/acme-inference.svc.id.goog/subject/ns/keda/sa/keda-operator",
                ...[
                    "roles/container.admin",
                    "roles/modelarmor.calloutUser",
                    "roles/serviceusage.serviceUsageConsumer",
                    "roles/modelarmor.user",
                ].map((role) => `projects/iAMMember acme-inference ${role} ${agent}`),
            ].sort(),
        );
        const page = fs.readFileSync(path.resolve(__dirname, "..", "docs", "explanation", "security.md"), "utf8");
        const section = page.slice(page.indexOf("## Shared by stacks in one project"));
        for (const role of new Set(shared.map((binding) => binding.split(" ")[2]))) {
            expect([role, section.includes(`\`${role}\``)]).toEqual([role, true]);
        }
    });
});
