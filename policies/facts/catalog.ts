/**
 * The one place where facts about GKE, TPU v6e and the pinned versions live, in a file per area. Every other module
 * reads them from here; each fact names its source (sources.ts) so that a bump is a one-line, reviewable change.
 */
export * from "./catalog/sources";
export * from "./catalog/tpu";
export * from "./catalog/gke";
export * from "./catalog/gateway";
export * from "./catalog/charts";
export * from "./catalog/kserve";
export * from "./catalog/vllm";
export * from "./catalog/epp";
export * from "./catalog/coldStart";
export * from "./catalog/observability";
export * from "./catalog/capacity";
export * from "./catalog/security";
export * from "./catalog/exposure";
export * from "./catalog/fleet";
