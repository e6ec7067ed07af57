/**
 * The facts the program and its policy pack share: the catalog (GKE, TPU v6e, the pinned software,
 * each fact with its source) and the readers of what programs write (image references, vLLM command
 * lines). The package lives inside the pack so that the pack can be published on its own.
 */
export * from "./catalog";
export * from "./images";
export * from "./vllmFlags";
export * from "./contracts";
