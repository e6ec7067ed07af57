import * as pulumi from "@pulumi/pulumi";
import { GOOGLE_ID_TOKEN } from "@gke-tpu-inference/facts";
import { opensToInternet } from "@gke-tpu-inference/facts";
import { GatewaySettings } from "../settings/gateway";

/** How a caller reads the key the stack generated into its shell. */
export const API_KEY_COMMAND = "export API_KEY=$(pulumi stack output access --show-secrets --json | jq -r .apiKey)";

/**
 * The `access` output: who is let in, and how a caller gets each credential; the key is a secret, shown only with
 * `--show-secrets`. A Gateway closed to everyone or open to the internet is also a warning of the preview.
 */
export function accessOutput(gateway: Pick<GatewaySettings, "access">, apiKey: pulumi.Output<string>, gatewayUrl: pulumi.Output<string>) {
    const { access } = gateway;
    const ranges = access.allowedSourceRanges;
    const publicToInternet = opensToInternet(ranges);
    const reachableFrom =
        ranges.length === 0
            ? "nobody: allowedSourceRanges is empty, so the Gateway refuses every request; set it to your network (pulumi config set --path 'allowedSourceRanges[0]' <CIDR>)"
            : publicToInternet
              ? "the whole internet (allowedSourceRanges has 0.0.0.0/0): only the key and the identity check stand between it and the models"
              : ranges.join(", ");
    if (ranges.length === 0) {
        void pulumi.log.warn(`the inference Gateway is closed: ${reachableFrom}`);
    } else if (publicToInternet) {
        void pulumi.log.warn(`the inference Gateway is open to ${reachableFrom}`);
    }
    return {
        reachableFrom,
        publicToInternet,
        rateLimitPerMinute: access.rateLimitPerMinute,
        identity: access.identity,
        apiKey,
        apiKeyCommand: API_KEY_COMMAND,
        ...(access.identity !== "api-key"
            ? {
                  idTokenCommand: gatewayUrl.apply(
                      (url) =>
                          `gcloud auth print-identity-token --impersonate-service-account=<ALLOWED_SA> --include-email --audiences=${access.identity === "iap" ? access.iapClientId : url}`,
                  ),
                  idTokenHeader: `${GOOGLE_ID_TOKEN.header}: ${GOOGLE_ID_TOKEN.prefix}<ID_TOKEN>`,
              }
            : {}),
        ...(access.modelArmor ? { screening: "Model Armor, failing closed" } : {}),
    };
}
