/**
 * Lesson route-timeouts, the whole category: timeouts (`request`, `backendRequest`, both) on a rule of an HTTPRoute (v1
 * or v1beta1) attached to a GKE Gateway, in the service's own `spec.router.route`, in the well-known
 * LLMInferenceServiceConfig KServe reads (the stack's, or KServe's default when the stack ships none) or in a baseRef's
 * template are caught, however the objects are declared; rules without timeouts, and routes on another
 * implementation's Gateway, are left alone.
 */
import { disallowHttpRouteTimeoutsOnGke as policy, routeTimeoutMessages } from "../../../policies/disallowHttpRouteTimeoutsOnGke";
import { KSERVE } from "../../../policies/facts";
import { RecordedResource } from "../../../scripts/offline/recorder";
import { gateway, llmService, vllmContainer } from "../fixtures";
import { check, kube, resource } from "../harness";

type Obj = Record<string, unknown>;

const TIMEOUTS: Obj[] = [{ request: "0s" }, { backendRequest: "600s" }, { request: "600s", backendRequest: "600s" }, {}];
const DECLARED = ["CustomResource", "kubernetes:yaml/v2:ConfigGroup", "kubernetes:helm.sh/v4:Chart"];
const parentOf = (how: string) => (how === "CustomResource" ? undefined : resource(how, "manifests", {}));

const rules = (timeouts?: Obj) => [
    {
        name: "completions",
        backendRefs: [{ group: "inference.networking.k8s.io", kind: "InferencePool", name: "qwen-inference-pool" }],
        ...(timeouts !== undefined ? { timeouts } : {}),
    },
    { backendRefs: [{ name: "qwen-http", port: 8000 }] },
];

const route = (apiVersion: string, timeouts: Obj | undefined, how = "CustomResource") =>
    kube(
        apiVersion,
        "HTTPRoute",
        "route",
        {
            metadata: { name: "route", namespace: "models" },
            spec: { parentRefs: [{ name: "inference-gateway", namespace: "gateway" }], rules: rules(timeouts) },
        },
        { parent: parentOf(how) },
    );

/** An LLMInferenceServiceConfig `name` in `namespace` whose route template's rules carry `timeouts`. */
const config = (name: string, namespace: string, timeouts: Obj | undefined, how = "CustomResource") =>
    kube(
        "serving.kserve.io/v1alpha2",
        "LLMInferenceServiceConfig",
        `${namespace}/${name}`,
        { metadata: { name, namespace }, spec: { router: { route: { http: { spec: { rules: rules(timeouts) } } } } } },
        { parent: parentOf(how) },
    );

/** The service, with its own route rules, or naming base configs. */
function service(extra: { ownTimeouts?: Obj | null; baseRefs?: string[] } = {}): RecordedResource {
    const svc = llmService(vllmContainer(), { name: "qwen" });
    const spec = svc.inputs.spec as Obj & { router: Obj };
    if (extra.ownTimeouts !== undefined) {
        spec.router.route = { http: { spec: { rules: rules(extra.ownTimeouts ?? undefined) } } };
    }
    if (extra.baseRefs) {
        spec.baseRefs = extra.baseRefs.map((name) => ({ name }));
    }
    return svc;
}

const GKE = gateway();
const WELL_KNOWN = KSERVE.routerRouteConfigName;
const verdict = async (resources: RecordedResource[]) => (await check(policy, resources)).map((finding) => finding.message);

describe("lesson route-timeouts: every place a route's timeouts reach a GKE Gateway", () => {
    describe.each(DECLARED)("objects declared by %s", (how) => {
        test.each(["gateway.networking.k8s.io/v1", "gateway.networking.k8s.io/v1beta1"])(
            "an HTTPRoute %s: every timeouts spelling caught, none clean",
            async (apiVersion) => {
                for (const timeouts of TIMEOUTS) {
                    expect(await verdict([GKE, route(apiVersion, timeouts, how)])).toEqual([
                        routeTimeoutMessages.route("route", ["completions"]),
                    ]);
                }
                expect(await verdict([GKE, route(apiVersion, undefined, how)])).toEqual([]);
            },
        );

        test("the well-known route config in the service's namespace: with timeouts caught, without clean", async () => {
            for (const timeouts of TIMEOUTS) {
                expect(await verdict([GKE, config(WELL_KNOWN, "models", timeouts, how), service()])).toEqual([
                    routeTimeoutMessages.template("models/qwen", "models", `models/${WELL_KNOWN}`, ["completions"]),
                ]);
            }
            expect(await verdict([GKE, config(WELL_KNOWN, "models", undefined, how), service()])).toEqual([]);
        });

        test("a baseRef's route template: with timeouts caught, without clean", async () => {
            const safe = config(WELL_KNOWN, "models", undefined, how);
            for (const timeouts of TIMEOUTS) {
                expect(await verdict([GKE, safe, config("routes", "models", timeouts, how), service({ baseRefs: ["routes"] })])).toEqual([
                    routeTimeoutMessages.baseRef("models/qwen", "models/routes", ["completions"]),
                ]);
            }
            expect(await verdict([GKE, safe, config("routes", "models", undefined, how), service({ baseRefs: ["routes"] })])).toEqual([]);
        });
    });

    test("the service's own spec.router.route rules: with timeouts caught, without clean, over any template", async () => {
        for (const timeouts of TIMEOUTS) {
            expect(await verdict([GKE, service({ ownTimeouts: timeouts })])).toEqual([
                routeTimeoutMessages.service("models/qwen", ["completions"]),
            ]);
        }
        expect(await verdict([GKE, config(WELL_KNOWN, "models", { request: "0s" }), service({ ownTimeouts: null })])).toEqual([]);
    });

    test("KServe's own well-known config (none in the stack) writes timeouts: caught", async () => {
        expect(await verdict([GKE, service()])).toEqual([routeTimeoutMessages.kserveDefault("models/qwen", "models")]);
    });

    test("KServe's controller namespace's config serves a namespace without its own", async () => {
        expect(await verdict([GKE, config(WELL_KNOWN, KSERVE.namespace, { request: "0s" }), service()])).toEqual([
            routeTimeoutMessages.template("models/qwen", "models", `${KSERVE.namespace}/${WELL_KNOWN}`, ["completions"]),
        ]);
        expect(await verdict([GKE, config(WELL_KNOWN, KSERVE.namespace, undefined), service()])).toEqual([]);
    });

    test("not this lesson's: timeouts null, a route on Istio's Gateway, a stack without a GKE Gateway", async () => {
        expect(await verdict([GKE, route("gateway.networking.k8s.io/v1", null as unknown as Obj)])).toEqual([]);
        const istio = gateway("istio", "istio-gateway");
        const onIstio = route("gateway.networking.k8s.io/v1", { request: "0s" });
        (onIstio.inputs.spec as Obj).parentRefs = [{ name: "istio-gateway", namespace: "gateway" }];
        expect(await verdict([GKE, istio, onIstio])).toEqual([]);
        expect(await verdict([istio, route("gateway.networking.k8s.io/v1", { request: "0s" })])).toEqual([]);
    });
});
