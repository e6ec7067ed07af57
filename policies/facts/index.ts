/**
 * The facts the program, its policy pack and its live tools share: the catalog (GKE, TPU v6e, the pinned software,
 * each fact with its source), the readers of what programs write (image references, vLLM command lines), and the
 * judgements of Kubernetes objects the pack and the live tools both make, and the lesson registry they are all
 * about. The package lives inside the pack so that the pack can be published on its own.
 */
export * from "./catalog";
export * from "./images";
export * from "./vllmFlags";
export * from "./judgements";
export * from "./lessons";
