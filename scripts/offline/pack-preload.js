// Preloaded (`node -r`) into the policy pack's process by the offline preview, to start it sooner; the pack's behaviour
// is untouched.
// - Node keeps V8's compiled code of each module the pack loads in os.tmpdir()/node-compile-cache
//   (module.enableCompileCache, Node 22.1), so the next start compiles nothing (the Pulumi SDK the runner loads is about
//   0.4 s of compiling). Node writes the cache when a process exits normally; the pack is stopped with SIGTERM, so it
//   writes it then.
// - npm's Arborist, which the SDK requires as it loads and only uses to serialize closures, loads on first use
//   (../lazyModule.js): about 0.15 s of the pack's start.
"use strict";
const Module = require("module");
const lazyModule = require("../lazyModule");

Module.enableCompileCache();
process.once("SIGTERM", () => {
    Module.flushCompileCache();
    process.exit(143);
});

const load = Module._load;
Module._load = function (request, parent, isMain) {
    if (request === "@npmcli/arborist") {
        return lazyModule(Module._resolveFilename(request, parent, isMain), (resolved) => load(resolved, parent, isMain));
    }
    return load.apply(this, arguments);
};
