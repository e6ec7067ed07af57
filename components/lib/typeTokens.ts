/**
 * The type tokens of the components under components/infrastructure/, which name the modules those components had
 * before the folder existed (`project`, `network`, `cluster`, `tpu`, `storage`) rather than `infrastructure`. A
 * component's type is part of its URN and of every descendant's: renaming one is safe only with the old type kept as an
 * alias (`aliases: [{ type }]`) for as long as any stack deployed before the rename may run `pulumi up`, which otherwise
 * replaces the VPC, the cluster and the TPU pools. The names buy nothing worth that, so they are frozen; every other
 * component's module is its folder's (`gke-tpu-inference:<folder>:<Class>`). test/urns.test.ts holds both rules.
 */
export const FROZEN_TYPE_TOKENS = {
    ProjectApis: "gke-tpu-inference:project:ProjectApis",
    Network: "gke-tpu-inference:network:Network",
    GkeCluster: "gke-tpu-inference:cluster:GkeCluster",
    TpuNodePool: "gke-tpu-inference:tpu:TpuNodePool",
    ModelStore: "gke-tpu-inference:storage:ModelStore",
} as const;
