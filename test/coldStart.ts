/** Shared by the tests of the cold-start estimate, the model store and the benchmark. */
import { stackNames } from "../components/lib/names";

/** One start's phases, as the estimate gives them: image, weights, server start, compilation, a multi-host group's forming, and their total. */
export function start(imagePull: number, weights: number, serverStart: number, compile: number, groupFormation = 0) {
    return {
        imagePull,
        groupFormation,
        weights,
        serverStart,
        compile,
        total: imagePull + groupFormation + weights + serverStart + compile,
    };
}

/** The dev stack's ModelStore arguments besides its models, cold-start settings and protection. */
export const STORE_ARGS = {
    project: "acme-inference",
    region: "europe-west4",
    names: stackNames("tpu-inference", "dev"),
    nodeServiceAccountEmail: "nodes@acme-inference.iam.gserviceaccount.com",
    dependsOn: [],
};
