/** The recorded cluster states the doctor's tests read, the names in them, and running the doctor over them. */
import * as path from "path";
import { DoctorTargets, runDoctor } from "../../scripts/doctor/diagnose";
import { Diagnosis } from "../../scripts/doctor/report";
import { clusterState } from "../fakeCluster";
import { memoryReader } from "../memoryCluster";

const ROOT = path.resolve(__dirname, "..", "..");
export const STATES = path.join(ROOT, "test", "fixtures", "cluster", "doctor");
/** States of the vLLM pod, recorded with KServe's view of a workload that is not available. */
export const POD_STATES = [
    "pending-selector",
    "pool-at-max",
    "stockout",
    "scale-up-quota",
    "scaling-up",
    "crashloop-unknown-flag",
    "bucket-forbidden",
    "tpu-out-of-memory",
    "hf-unauthorized",
    "oom-killed",
    "image-pull",
    "startup-probe-restarts",
    "pod-starting",
];
/** States of a stack secure by default, each recorded over `secure` (and behind Istio over `istio-healthy` and `istio-secure`). */
export const SECURE_STATES: Record<string, string[]> = {
    secure: [],
    "certificate-not-ready": ["doctor/secure"],
    "security-policy-missing": ["doctor/secure"],
    "istio-secure": ["doctor/secure", "doctor/istio-healthy"],
    "istio-open": ["doctor/secure", "doctor/istio-healthy", "doctor/istio-secure"],
};
export const overlaysOf = (state: string) => [
    ...(POD_STATES.includes(state) ? ["doctor/workload-not-ready"] : []),
    ...(SECURE_STATES[state] ?? []),
    `doctor/${state}`,
];
/** What the doctor is told of a state's stack: for a secure one, its Gateway and that it controls access and screens (GKE). */
export const targetsOf = (state: string): DoctorTargets =>
    state in SECURE_STATES
        ? {
              gateway: { namespace: "inference-gateway", name: "inference-gateway" },
              security: { modelArmor: !state.startsWith("istio") },
          }
        : {};
export const POD = "Pod llm-inference/qwen2-3b-kserve-6c8f9d7b54-x2x4p";
export const EPP = "Pod llm-inference/qwen2-3b-kserve-router-scheduler-7b5d6f8c9-q8w2n";
export const SERVICE = "LLMInferenceService llm-inference/qwen2-3b";
export const NOT_AVAILABLE: Finding = ["FAIL", SERVICE, "service ready", undefined];

/** Status, object, check and lesson of a diagnosis. */
export type Finding = [Diagnosis["status"], string, string, string | undefined];
export const finding = (diagnosis: Diagnosis): Finding => [diagnosis.status, diagnosis.object, diagnosis.check, diagnosis.lesson];
/** A few minutes after the recorded pods started, within their startup budget. */
export const NOW = { now: new Date("2026-11-20T10:05:00Z") };
export const notOk = async (targets: DoctorTargets, ...overlays: string[]) =>
    (await runDoctor(memoryReader(clusterState(...overlays)), targets, NOW)).filter((diagnosis) => diagnosis.status !== "OK").map(finding);
