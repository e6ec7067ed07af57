import { GatewaySettings } from "../settings/gateway";
import { installGkeGateway } from "./gkeProvider";
import { installIstioGateway } from "./istioProvider";
import { GatewayProviderContext, InstalledGatewayProvider } from "./provider";

/** What programs the Gateway: the module of the provider the settings chose, installed from the same context whichever it is. */
export function installGatewayProvider(gateway: GatewaySettings, context: GatewayProviderContext): InstalledGatewayProvider {
    switch (gateway.provider) {
        case "gke":
            return installGkeGateway({ ...context, gateway });
        case "istio":
            return installIstioGateway({ ...context, gateway });
    }
}
