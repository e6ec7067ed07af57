/**
 * What starts the commands and the policy pack sooner, each in the process it changes: the SDK's TypeScript and Arborist
 * loaded on first use (scripts/lazyModule.js), the pack started before the preview loads its program, and the pack's
 * compiled code kept in a folder of its own, written once it serves (scripts/offline/pack-preload.js).
 */
import * as childProcess from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { buildIfStale, servePack } from "../../scripts/offline/analyzer";
import { ROOT } from "../cli";
import { PACK_DIR } from "../workerPack";

/** What `script` prints, run by node with the TypeScript hook from the repository's root. */
const underHook = (script: string) =>
    childProcess.execFileSync(process.execPath, ["-r", "./scripts/ts-hook.js", "-e", script], { cwd: ROOT, encoding: "utf8" });

describe("the SDK's TypeScript and Arborist, which no command uses, load on first use", () => {
    test("the SDK loads without them; TypeScript loads when the SDK first uses it; a module the SDK cannot resolve is left alone", () => {
        const printed = underHook(`
            const { loadOnFirstUse } = require("./scripts/lazyModule");
            const loaded = (name) => Object.keys(require.cache).some((file) => file.includes("/node_modules/" + name + "/") && require.cache[file].exports.__esModule !== true);
            require("@pulumi/pulumi");
            console.log("after the SDK:", loaded("typescript"), loaded("@npmcli/arborist"));
            const shim = require("@pulumi/pulumi/typescript-shim");
            console.log("its version:", shim.version === require("typescript/package.json").version, loaded("typescript"));
            loadOnFirstUse(["no-such-module"], require("path").dirname(require.resolve("@pulumi/pulumi")));
            try { require("no-such-module"); } catch (err) { console.log(err.code); }
        `);
        expect(printed).toBe("after the SDK: false false\nits version: true true\nMODULE_NOT_FOUND\n");
    });
});

describe("the policy pack's process", () => {
    let tmpdir: string;
    const previous = process.env.TMPDIR;
    beforeAll(async () => {
        // A stale pack is built before it starts, a turn of the event loop later: built here, the start is what is timed.
        await buildIfStale(PACK_DIR);
        // The pack keeps its compiled code under os.tmpdir(), which TMPDIR sets.
        tmpdir = fs.mkdtempSync(path.join(os.tmpdir(), "pack-start-"));
        process.env.TMPDIR = tmpdir;
    });
    afterAll(() => {
        process.env.TMPDIR = previous;
    });

    test("starts before servePack returns, so that a preview loads its program beside it; its compiled code is written once it serves, in its own folder", async () => {
        // The module itself: a namespace import is a copy of it (swc's interop), which analyzer.ts does not call through.
        const spawned = jest.spyOn(require("child_process") as typeof childProcess, "spawn");
        const serving = servePack(PACK_DIR);
        expect(spawned).toHaveBeenCalledTimes(1);
        spawned.mockRestore();
        const { child } = await serving;
        try {
            const cache = path.join(tmpdir, "node-compile-cache-policy-pack");
            // Written after the port is printed, while the pack serves on.
            for (let waited = 0; !fs.existsSync(cache) && waited < 30_000; waited += 50) {
                await new Promise((resolve) => setTimeout(resolve, 50));
            }
            expect(child.exitCode).toBeNull();
            // Its own folder, not the one the commands share (the SDK's ts-node keeps a cache there too).
            expect(fs.readdirSync(tmpdir)).toContain("node-compile-cache-policy-pack");
            expect(fs.readdirSync(tmpdir)).not.toContain("node-compile-cache");
        } finally {
            child.kill();
        }
    });
});
