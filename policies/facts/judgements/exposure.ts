/**
 * Whether a Service reaches the internet without a Gateway, and what stands in front of it: a LoadBalancer Service's
 * own load balancer, or an Ingress's, judged as the controller that serves it reads its annotations. Sources:
 * {@link SOURCES.serviceExposure}.
 */
import { ALB_INGRESS, GKE_INGRESS, INGRESS_CLASS, INTERNAL_GATEWAY_CLASSES, ISTIO, LOAD_BALANCER_SERVICE, NGINX_INGRESS } from "../catalog";
import { istioGatewayServiceAnnotations, opensToInternet } from "./access";
import { isGkeGatewayClass } from "./gateway";
import { KubeProps } from "./objects";

/** What stands between the internet and a backend: nothing it can be reached by, a guard, nothing, or what the program does not show. */
export type Exposure =
    | { verdict: "internal" }
    /** `armor`: the Cloud Armor policy that guards it, whose rules decide whether it refuses anyone. */
    | { verdict: "guarded"; by: string; armor?: string }
    | { verdict: "open"; literalHeaders: string[] }
    | { verdict: "unknown"; why: string };

/** A comma-separated list, trimmed, without empty items. */
function list(value: unknown): string[] {
    return typeof value === "string"
        ? value
              .split(",")
              .map((item) => item.trim())
              .filter((item) => item !== "")
        : [];
}

/** A source-range allowlist that restricts: some ranges, none of them the whole internet. */
function restricts(ranges: readonly string[]): boolean {
    return ranges.length > 0 && !opensToInternet(ranges);
}

/** Go's strconv.ParseBool truth values, which the AWS Load Balancer Controller reads its boolean annotations with. */
const PARSE_BOOL_TRUE = ["1", "t", "T", "true", "TRUE", "True"];

/** True when a Service's annotations hand it to the AWS Load Balancer Controller (type nlb-ip, or external with a target type). */
function isAwsControllerType(annotations: KubeProps): boolean {
    const { key, nlbIp, external, targetTypeKey, targetTypes } = LOAD_BALANCER_SERVICE.awsControllerType;
    return (
        annotations[key] === nlbIp ||
        (annotations[key] === external && (targetTypes as readonly unknown[]).includes(annotations[targetTypeKey]))
    );
}

/** True when a LoadBalancer Service's load balancer stays inside the network, by any cloud's rule. */
function isInternalLoadBalancer(spec: KubeProps, annotations: KubeProps): boolean {
    const gkeKey = LOAD_BALANCER_SERVICE.gkeInternal.keys.find((key) => annotations[key] !== undefined);
    const awsInternal: unknown = annotations[LOAD_BALANCER_SERVICE.awsInternal];
    const awsScheme: unknown = annotations[LOAD_BALANCER_SERVICE.awsScheme.key];
    return (
        (LOAD_BALANCER_SERVICE.internalClasses as readonly unknown[]).includes(spec.loadBalancerClass) ||
        (gkeKey !== undefined && (LOAD_BALANCER_SERVICE.gkeInternal.values as readonly unknown[]).includes(annotations[gkeKey])) ||
        awsScheme === LOAD_BALANCER_SERVICE.awsScheme.internal ||
        // The controller's, by its class or its annotations, without a scheme: its default is internal.
        ((spec.loadBalancerClass === LOAD_BALANCER_SERVICE.awsControllerClass || isAwsControllerType(annotations)) &&
            awsScheme === undefined) ||
        // The older annotation counts only where no scheme is set: the controller reads the scheme first
        // (aws-load-balancer-controller pkg/service/model_build_load_balancer.go buildLoadBalancerSchemeViaAnnotation).
        (awsScheme === undefined &&
            ((typeof awsInternal === "string" && awsInternal !== "" && awsInternal !== "false") ||
                PARSE_BOOL_TRUE.includes(String(awsInternal)))) ||
        annotations[LOAD_BALANCER_SERVICE.azureInternal.key] === LOAD_BALANCER_SERVICE.azureInternal.value
    );
}

/**
 * Whether a Gateway's load balancer has an internet address. On GKE's classes the class alone decides (an internal
 * class, or not): "the GatewayClass configuration determines which load balancer GKE creates"
 * (https://cloud.google.com/kubernetes-engine/docs/how-to/configure-gateway-resources). Another implementation puts the
 * Gateway behind a Service that istiod makes: of type LoadBalancer unless the service-type annotation says ClusterIP or
 * NodePort, internal when its annotations (spec.infrastructure's, or the Gateway's own) say so by any cloud's rule.
 */
export function isExternalGateway(gateway: KubeProps): boolean {
    const className: unknown = gateway.spec?.gatewayClassName;
    if (isGkeGatewayClass(className)) {
        return !INTERNAL_GATEWAY_CLASSES.includes(className);
    }
    const annotations = istioGatewayServiceAnnotations(gateway);
    const type: unknown = gateway.metadata?.annotations?.[ISTIO.serviceTypeAnnotation] ?? annotations[ISTIO.serviceTypeAnnotation];
    return (type === undefined || type === "LoadBalancer") && !isInternalLoadBalancer({}, annotations);
}

/** A LoadBalancer Service's own exposure; undefined for any other Service type. */
export function loadBalancerServiceExposure(service: KubeProps): Exposure | undefined {
    const spec: KubeProps = service.spec ?? {};
    if (spec.type !== "LoadBalancer") {
        return undefined;
    }
    const annotations: KubeProps = service.metadata?.annotations ?? {};
    if (isInternalLoadBalancer(spec, annotations)) {
        return { verdict: "internal" };
    }
    const ranges =
        Array.isArray(spec.loadBalancerSourceRanges) && spec.loadBalancerSourceRanges.length > 0
            ? (spec.loadBalancerSourceRanges as unknown[]).filter((range): range is string => typeof range === "string")
            : LOAD_BALANCER_SERVICE.sourceRangeAnnotations.flatMap((key) => list(annotations[key]));
    if (restricts(ranges)) {
        return { verdict: "guarded", by: `source ranges ${ranges.join(", ")}` };
    }
    const tags = list(annotations[LOAD_BALANCER_SERVICE.azureAllowedServiceTags]);
    if (tags.length > 0) {
        return { verdict: "guarded", by: `Azure service tags ${tags.join(", ")}` };
    }
    return { verdict: "open", literalHeaders: [] };
}

/** The controller that serves an Ingress: GKE's, the AWS Load Balancer Controller, ingress-nginx, or another (by its class). */
export function ingressController(
    ingress: KubeProps,
    ingressClasses: ReadonlyMap<string, KubeProps>,
): "gke" | "gke-internal" | "alb" | "nginx" | { other: string } {
    const annotation: unknown = ingress.metadata?.annotations?.[INGRESS_CLASS.annotation];
    const defaultClass = [...ingressClasses.entries()].find(
        ([, props]) => props.metadata?.annotations?.[INGRESS_CLASS.defaultAnnotation.key] === INGRESS_CLASS.defaultAnnotation.value,
    )?.[0];
    const className: unknown = annotation ?? ingress.spec?.ingressClassName ?? defaultClass;
    if (className === undefined) {
        return "gke";
    }
    if (annotation === GKE_INGRESS.internalClass) {
        return "gke-internal";
    }
    if ((GKE_INGRESS.externalClasses as readonly unknown[]).includes(annotation)) {
        return "gke";
    }
    const controller: unknown = typeof className === "string" ? ingressClasses.get(className)?.spec?.controller : undefined;
    if (className === ALB_INGRESS.className || (INGRESS_CLASS.controllers.alb as readonly unknown[]).includes(controller)) {
        return "alb";
    }
    if (className === NGINX_INGRESS.className || controller === INGRESS_CLASS.controllers.nginx) {
        return "nginx";
    }
    return { other: String(className) };
}

/** The literal values an ALB rule condition compares a request header with, as `Header: value`. */
function albHeaderLiterals(annotations: KubeProps, service: string): string[] {
    const raw: unknown = annotations[`${ALB_INGRESS.conditionsPrefix}${service}`];
    let conditions: unknown;
    try {
        conditions = typeof raw === "string" ? JSON.parse(raw) : undefined;
    } catch {
        return [];
    }
    return (Array.isArray(conditions) ? (conditions as KubeProps[]) : [])
        .filter((condition) => condition?.field === "http-header" && Array.isArray(condition.httpHeaderConfig?.values))
        .flatMap((condition) =>
            (condition.httpHeaderConfig.values as unknown[]).map(
                (value) => `${condition.httpHeaderConfig.httpHeaderName}: ${String(value)}`,
            ),
        );
}

/** The header literals an nginx snippet compares (`$http_x_api_key != "value"`), which checks nothing while snippets are off. */
function nginxHeaderLiterals(annotations: KubeProps): string[] {
    return NGINX_INGRESS.snippets.flatMap((key) =>
        [...String(annotations[key] ?? "").matchAll(/\$http_([a-z0-9_]+)\s*!?=\s*"([^"]*)"/gi)].map(
            ([, header, value]) => `${header.replace(/_/g, "-")}: ${value}`,
        ),
    );
}

/** The BackendConfig a Service names for `port` (by its name or number), else its default one. */
export function backendConfigName(service: KubeProps, port: { name?: string; number?: number }): string | undefined {
    const annotations: KubeProps = service.metadata?.annotations ?? {};
    const key = GKE_INGRESS.backendConfigAnnotations.find((candidate) => typeof annotations[candidate] === "string");
    let parsed: KubeProps | undefined;
    try {
        parsed = key === undefined ? undefined : JSON.parse(annotations[key]);
    } catch {
        return undefined;
    }
    const ports: KubeProps = parsed?.ports ?? {};
    const named =
        (port.name !== undefined ? ports[port.name] : undefined) ?? (port.number !== undefined ? ports[String(port.number)] : undefined);
    return typeof named === "string" ? named : typeof parsed?.default === "string" ? parsed.default : undefined;
}

/** What around an Ingress decides its load balancer: the ALB scheme its class or group sets, the ingress-nginx controller's Service as the program configures it. */
export interface IngressSurroundings {
    /** The scheme of the ALB, where its IngressClassParams or another Ingress of its group sets one. */
    albScheme?: string;
    /** The ingress-nginx controller's Service, where a chart of the program describes it (type, annotations, source ranges). */
    nginxControllerService?: KubeProps;
}

/**
 * What stands in front of backend Service `service` of an Ingress served by `controller`: GKE's BackendConfig (Cloud
 * Armor or IAP; `backendConfig` is the one the Service names, undefined when the stack does not declare it), the ALB's
 * scheme, authentication, allowlist and WAF, ingress-nginx's allowlist and authentication. An ALB header condition or an
 * nginx snippet comparing a literal is no access control: the value is in the program.
 */
export function ingressExposure(
    ingress: KubeProps,
    controller: ReturnType<typeof ingressController>,
    service: { name: string; props?: KubeProps },
    backendConfig: { name?: string; props?: KubeProps },
    around: IngressSurroundings = {},
): Exposure {
    const annotations: KubeProps = {
        ...(ingress.metadata?.annotations ?? {}),
        ...(around.albScheme !== undefined ? { [ALB_INGRESS.scheme.key]: around.albScheme } : {}),
    };
    if (controller === "gke-internal") {
        return { verdict: "internal" };
    }
    if (controller === "gke") {
        if (backendConfig.name === undefined) {
            return { verdict: "open", literalHeaders: [] };
        }
        if (backendConfig.props === undefined) {
            return { verdict: "unknown", why: `its Service names BackendConfig ${backendConfig.name}, which the program does not declare` };
        }
        const spec: KubeProps = backendConfig.props.spec ?? {};
        if (spec.iap?.enabled === true) {
            return { verdict: "guarded", by: `IAP (BackendConfig ${backendConfig.name})` };
        }
        if (typeof spec.securityPolicy?.name === "string" && spec.securityPolicy.name !== "") {
            return {
                verdict: "guarded",
                by: `Cloud Armor policy ${spec.securityPolicy.name} (BackendConfig ${backendConfig.name})`,
                armor: spec.securityPolicy.name,
            };
        }
        return { verdict: "open", literalHeaders: [] };
    }
    if (controller === "alb") {
        if (annotations[ALB_INGRESS.scheme.key] !== ALB_INGRESS.scheme.external) {
            return { verdict: "internal" };
        }
        const auth: unknown = service.props?.metadata?.annotations?.[ALB_INGRESS.authType.key] ?? annotations[ALB_INGRESS.authType.key];
        if ((ALB_INGRESS.authType.authenticating as readonly unknown[]).includes(auth)) {
            return { verdict: "guarded", by: `ALB authentication (${String(auth)})` };
        }
        if (annotations[ALB_INGRESS.securityGroups] !== undefined) {
            return {
                verdict: "unknown",
                why: `its load balancer takes the security groups ${String(annotations[ALB_INGRESS.securityGroups])}, whose rules the program does not show`,
            };
        }
        const cidrs = list(annotations[ALB_INGRESS.inboundCidrs]);
        if (restricts(cidrs)) {
            return { verdict: "guarded", by: `inbound CIDRs ${cidrs.join(", ")}` };
        }
        const waf: unknown = annotations[ALB_INGRESS.waf.key];
        if (typeof waf === "string" && waf !== "" && waf !== ALB_INGRESS.waf.off) {
            return { verdict: "unknown", why: `its load balancer takes the WAF web ACL ${waf}, whose rules the program does not show` };
        }
        return { verdict: "open", literalHeaders: albHeaderLiterals(annotations, service.name) };
    }
    if (controller === "nginx") {
        const controllerService = around.nginxControllerService && loadBalancerServiceExposure(around.nginxControllerService);
        if (around.nginxControllerService !== undefined && (controllerService === undefined || controllerService.verdict !== "open")) {
            return controllerService ?? { verdict: "internal" };
        }
        const ranges = NGINX_INGRESS.allowlists.flatMap((key) => list(annotations[key]));
        if (restricts(ranges)) {
            return { verdict: "guarded", by: `source ranges ${ranges.join(", ")}` };
        }
        const authType: unknown = annotations[NGINX_INGRESS.authType.key];
        if (
            (NGINX_INGRESS.authType.values as readonly unknown[]).includes(authType) &&
            annotations[NGINX_INGRESS.authType.secret] !== undefined
        ) {
            return { verdict: "guarded", by: `${String(authType)} authentication` };
        }
        if (typeof annotations[NGINX_INGRESS.authUrl] === "string") {
            return { verdict: "guarded", by: `external authentication at ${annotations[NGINX_INGRESS.authUrl]}` };
        }
        return { verdict: "open", literalHeaders: nginxHeaderLiterals(annotations) };
    }
    if ([...GKE_INGRESS.externalClasses, GKE_INGRESS.internalClass].includes(controller.other as never)) {
        // GKE's controller reads only the annotation (kubernetes/ingress-gce pkg/utils/utils.go IsGCEIngress).
        return {
            verdict: "unknown",
            why: `its class ${JSON.stringify(controller.other)} is named in spec.ingressClassName, which GKE's Ingress controller does not read (it reads the ${INGRESS_CLASS.annotation} annotation), so which controller serves it, if any, is not shown`,
        };
    }
    return { verdict: "unknown", why: `its class ${JSON.stringify(controller.other)} is served by a controller the pack does not know` };
}
