/**
 * The endpoint picker (EPP) behind Envoy's ext_proc: whether it serves TLS, and whether its image offers ALPN `h2` on
 * that TLS server. Field report: an EPP that served TLS without ALPN `h2` was refused by Envoy, and prefix-cache routing
 * silently stopped. Sources: {@link SOURCES.eppTls}, {@link SOURCES.seed000Alpn}.
 */
import { endpointPickerAlpn } from "../images";
import { commandWords } from "../vllmFlags";
import { KubeProps, knownWords, readKnown } from "./objects";

/**
 * Whether an EPP container serves its gRPC over TLS: on unless its command line says `--secure-serving=false`. The EPP
 * parses flags with pflag, where a boolean takes its value only after `=` (llm-d-router v0.10.0 pkg/epp/server/options.go:226).
 */
export function eppServesTls(container: KubeProps): boolean {
    const setting = commandWords(
        knownWords(() => container.command),
        knownWords(() => container.args),
    )
        .filter((word) => /^--?secure-serving(=|$)/.test(word))
        .pop();
    return setting === undefined || !/=(false|f|0|FALSE|False|F)$/.test(setting);
}

/**
 * How an EPP container stands: plain gRPC, or TLS from an image at or above the ALPN fix (`fixed`), below it
 * (`unfixed`), tagged with something other than a version (`unversioned`, as the field report's broken build was), or
 * pinned by digest alone (`digest`, which cannot move but says no version).
 */
export interface EndpointPickerVerdict {
    status: "plain" | "fixed" | "unfixed" | "unversioned" | "digest";
    image: string;
    /** The image repository's last segment, and its first release with ALPN `h2`. */
    repository: string;
    minimum: string;
}

/** The verdict on a container whose image is an EPP's (a repository `minimums` names), or undefined for any other container. */
export function judgeEndpointPicker(container: KubeProps, minimums: Readonly<Record<string, string>>): EndpointPickerVerdict | undefined {
    // An image a preview does not know yet (built in the same update) names no picker the pack knows.
    const image = readKnown(() => container.image).value;
    const alpn = typeof image === "string" ? endpointPickerAlpn(image, minimums) : undefined;
    if (alpn === undefined) {
        return undefined;
    }
    const status = !eppServesTls(container)
        ? "plain"
        : alpn.fixed === undefined
          ? "digest"
          : alpn.fixed
            ? "fixed"
            : alpn.version !== undefined
              ? "unfixed"
              : "unversioned";
    return { status, image: image as string, repository: alpn.repository, minimum: alpn.minimum };
}

/** Why an `unfixed` or `unversioned` EPP may break the Gateway's ext_proc; undefined for the others. */
export function endpointPickerProblem(verdict: EndpointPickerVerdict): string | undefined {
    const broken = `${verdict.repository} before v${verdict.minimum} serves TLS gRPC without ALPN h2, so the Gateway's ext_proc cannot reach it`;
    return verdict.status === "unfixed"
        ? broken
        : verdict.status === "unversioned"
          ? `its tag is no version, so nothing shows it has the fix: ${broken}`
          : undefined;
}
