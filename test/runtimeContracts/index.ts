/**
 * The runtime contracts the tests read against what the stacks emit: each workload's calls to Google APIs with the
 * permissions IAM checks them by and every granted role's permissions (iam.ts, runtime.ts), and the request path per
 * gateway provider (requestPaths.ts). Test data, each line with its upstream source: the pack does not ship them.
 */
export * from "./iam";
export * from "./runtime";
export * from "./requestPaths";
