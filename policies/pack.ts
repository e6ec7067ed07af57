/**
 * The policies of the pack, in one list that the pack (index.ts), the offline preview and the
 * tests share. Importing this module starts no policy server.
 */
import { ResourceValidationPolicy, StackValidationPolicy } from "@pulumi/policy";
import { disallowDefaultComputeServiceAccount } from "./disallowDefaultComputeServiceAccount";
import { disallowGpuOnlyVllmFlags } from "./disallowGpuOnlyVllmFlags";
import { disallowHttpRouteTimeoutsOnGke } from "./disallowHttpRouteTimeoutsOnGke";
import { disallowHttpsAppProtocolToVllm } from "./disallowHttpsAppProtocolToVllm";
import { disallowPlainTextSecretEnv } from "./disallowPlainTextSecretEnv";
import { disallowUnpinnedImages } from "./disallowUnpinnedImages";
import { enforceTpuStartupBudget } from "./enforceTpuStartupBudget";
import { requireAllTpuChips } from "./requireAllTpuChips";
import { requireDeletionProtection } from "./requireDeletionProtection";
import { requireFixedEndpointPickerImage } from "./requireFixedEndpointPickerImage";
import { requireGatewayApiOnCluster } from "./requireGatewayApiOnCluster";
import { requireHttpHealthCheckPolicy } from "./requireHttpHealthCheckPolicy";
import { requireHttpProbesForVllm } from "./requireHttpProbesForVllm";
import { requireLongInferenceBackendTimeout } from "./requireLongInferenceBackendTimeout";
import { requireLwsAndKServeBeforeModelServices } from "./requireLwsAndKServeBeforeModelServices";
import { requirePinnedChartVersions } from "./requirePinnedChartVersions";
import { requirePrivateNodes } from "./requirePrivateNodes";
import { requireRegionalGatewayClassForInference } from "./requireRegionalGatewayClassForInference";
import { requireRsaCaCertificates } from "./requireRsaCaCertificates";
import { requireShieldedNodes } from "./requireShieldedNodes";
import { requireSupportedTpuZone } from "./requireSupportedTpuZone";
import { requireTpuSelectorMatchingPool } from "./requireTpuSelectorMatchingPool";
import { requireWorkloadIdentity } from "./requireWorkloadIdentity";

export const PACK_NAME = "gke-tpu-inference";
// The version the pack publishes with: its package.json's.
export const PACK_VERSION: string = (require("./package.json") as { version: string }).version;

/** Every policy, in the order of the lessons table (DESIGN.md), then the security baseline. */
export const policies: Array<ResourceValidationPolicy | StackValidationPolicy> = [
    requireRegionalGatewayClassForInference, // 1
    requireSupportedTpuZone, // 2
    requireTpuSelectorMatchingPool, // 3
    requireGatewayApiOnCluster, // 4
    disallowHttpRouteTimeoutsOnGke, // 5
    requireHttpHealthCheckPolicy, // 6
    disallowHttpsAppProtocolToVllm, // 7
    requireLwsAndKServeBeforeModelServices, // 8
    enforceTpuStartupBudget, // 9
    disallowGpuOnlyVllmFlags, // 10
    disallowUnpinnedImages, // 12
    requirePinnedChartVersions, // 12
    requireRsaCaCertificates, // 13
    requireHttpProbesForVllm, // 14
    requireFixedEndpointPickerImage, // 15
    requireAllTpuChips, // 16
    requireLongInferenceBackendTimeout, // 17
    requireWorkloadIdentity,
    requirePrivateNodes,
    requireShieldedNodes,
    disallowDefaultComputeServiceAccount,
    requireDeletionProtection,
    disallowPlainTextSecretEnv,
];
