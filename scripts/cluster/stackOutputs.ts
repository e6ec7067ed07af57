/** A stack's outputs, as `pulumi stack output --json` prints them, or from a file holding that JSON. */
import { execFileSync } from "child_process";
import * as fs from "fs";

/** Reads `file` when given, else asks the Pulumi CLI for `stack`'s outputs. */
export function readStackOutputs(source: { stack?: string; file?: string }): unknown {
    const json =
        source.file !== undefined
            ? fs.readFileSync(source.file, "utf8")
            : execFileSync("pulumi", ["stack", "output", "--json", "--stack", source.stack!], {
                  encoding: "utf8",
                  stdio: ["ignore", "pipe", "inherit"],
              });
    return JSON.parse(json);
}
