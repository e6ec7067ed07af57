import * as path from "path";
import { OfflineRun, runOffline } from "../scripts/offline/run";
import { cachedOnce } from "./runCache";

const ROOT = path.resolve(__dirname, "..");

/** The offline run of `Pulumi.<stack>.yaml` as it ships, recorded once per jest run (each caller gets its own copy). */
export function shippedRun(stack: string): Promise<OfflineRun> {
    return cachedOnce(`shipped-${stack}`, () => runOffline(ROOT, stack));
}
