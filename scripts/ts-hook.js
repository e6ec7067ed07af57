// Lets Node run TypeScript without type-checking (tsc does that once, separately): every .ts file is transpiled by swc
// on require, with the options jest uses (.swcrc), which put an inline source map in each.
"use strict";
const crypto = require("crypto");
const fs = require("fs");
const os = require("os");
const path = require("path");

// Before anything that needs a newer Node: one line naming the versions package.json's `engines` allows, not a stack trace.
const { nodeSatisfies } = require("./nodeVersion");
const engines = require("../package.json").engines.node;
if (!nodeSatisfies(process.versions.node, engines)) {
    process.stderr.write(`gke-tpu-inference needs Node.js ${engines} (package.json engines); this is Node.js ${process.versions.node}\n`);
    process.exit(2);
}

// With --debug, which prints stack traces, they point at the .ts lines of this project and of the programs it runs:
// Node maps them through each module's source map, for the modules loaded after this (Node's --enable-source-maps).
// Off otherwise: reading every module's source map costs a command's start about 0.4 s of CPU.
if (process.argv.includes("--debug")) {
    process.setSourceMapsEnabled(true);
}

// V8's compiled code of every module is kept in os.tmpdir()/node-compile-cache (Node 22.1), so a command's second
// start compiles nothing: the Pulumi SDK and providers alone are about 0.5 s of compiling.
require("module").enableCompileCache();

// The SDK's TypeScript and Arborist, which no command uses, load on first use (lazyModule.js): 0.25 s of the SDK's load.
const sdk = path.dirname(require.resolve("@pulumi/pulumi/package.json", { paths: [path.join(__dirname, "..")] }));
require("./lazyModule").loadOnFirstUse(["typescript", "@npmcli/arborist"], sdk);

const swcrc = JSON.parse(fs.readFileSync(path.join(__dirname, "..", ".swcrc"), "utf8"));
delete swcrc.$schema;

// swc's output of each source is kept too, keyed by what it depends on (the source, its path, the options, swc's
// version), so a second start transpiles nothing and loads no swc.
const cacheDir = path.join(os.tmpdir(), "gke-tpu-inference-swc");
const swcVersion = require("@swc/core/package.json").version;
let swc;

function transpile(source, filename) {
    const key = crypto
        .createHash("sha256")
        .update(JSON.stringify([swcVersion, swcrc, filename, source]))
        .digest("hex");
    const cached = path.join(cacheDir, `${key}.js`);
    try {
        return fs.readFileSync(cached, "utf8");
    } catch {
        swc ??= require("@swc/core");
        const { code } = swc.transformSync(source, { ...swcrc, filename, swcrc: false });
        fs.mkdirSync(cacheDir, { recursive: true });
        // Written whole or not at all: another command may be reading the cache.
        const partial = `${cached}.${process.pid}.partial`;
        fs.writeFileSync(partial, code);
        fs.renameSync(partial, cached);
        return code;
    }
}

require.extensions[".ts"] = (module, filename) => {
    module._compile(transpile(fs.readFileSync(filename, "utf8"), filename), filename);
};
