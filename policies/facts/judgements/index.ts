/**
 * Judgements the policy pack and the live tools (the doctor, the smoke test) share, so that a lesson is judged one way
 * whether a preview or a cluster shows the object: pure functions over Kubernetes objects as plain data, importing
 * nothing but the facts.
 */
export * from "./objects";
export * from "./workloads";
export * from "./services";
export * from "./backends";
export * from "./gkePolicies";
export * from "./gateway";
export * from "./endpointPicker";
export * from "./extProc";
export * from "./capacity";
export * from "./access";
export * from "./istioAuthorization";
export * from "./routeMatching";
export * from "./kserveRoutes";
export * from "./kservePools";
export * from "./exposure";
export * from "./fleet";
export * from "./gkeVersions";
