/**
 * What the stack's workloads need once they run: every call each makes to Google Cloud, with the upstream file and line
 * that makes it, the permission the call needs and what IAM checks that permission on; and the permissions of every role
 * the stack grants. A test reads both against the IAM bindings each shipped stack emits: every needed permission must be
 * granted on a resource whose condition admits the call, and no role may be granted beyond them.
 */
export * from "./contracts/iam";
export * from "./contracts/runtime";
export * from "./contracts/requestPaths";
