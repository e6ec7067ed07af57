// Preloaded (`node -r`) into the policy pack's process by the offline preview, to start it sooner; the pack's behaviour
// is untouched.
// - Node keeps V8's compiled code of each module the pack loads (module.enableCompileCache, Node 22.1), so the next
//   start compiles nothing (the Pulumi SDK the runner loads is about 0.4 s of compiling). In a folder of the pack's
//   own: the runner sets V8's --allow-natives-syntax before it loads the SDK and the pack (@pulumi/pulumi 3.270.0
//   cmd/run-policy-pack/index.js:100 loads runtime/closure/v8Hooks.js, whose line 28 sets it), a command only midway
//   through loading the SDK, and V8 rejects code compiled under other flags: sharing one folder, the pack and the
//   commands (ts-hook.js) would each reject and rewrite the other's.
// - Node writes the cache when a process exits normally, but the preview stops its pack with a signal, and kills it
//   when the preview exits first (children.ts): it is written once the pack serves, when it prints its port
//   (@pulumi/policy 1.21.0 server.js:128), all it starts with loaded; and again on SIGTERM, for what it loaded since.
// - npm's Arborist, which the SDK requires as it loads and only uses to serialize closures, loads on first use
//   (../lazyModule.js): about 0.15 s of the pack's start.
"use strict";
const Module = require("module");
const os = require("os");
const path = require("path");
const { loadOnFirstUse } = require("../lazyModule");

Module.enableCompileCache(path.join(os.tmpdir(), "node-compile-cache-policy-pack"));
const write = process.stdout.write;
process.stdout.write = function () {
    process.stdout.write = write;
    setImmediate(() => Module.flushCompileCache());
    return write.apply(this, arguments);
};
process.once("SIGTERM", () => {
    Module.flushCompileCache();
    process.exit(143);
});

// A pack whose parent is gone (killed with no time to stop its children, a jest worker forced out) stops too, rather
// than serve nobody: orphaned, its parent becomes another process.
const parent = process.ppid;
setInterval(() => process.ppid !== parent && process.exit(0), 1000).unref();

// The SDK whose runner this process runs: <sdk>/cmd/run-policy-pack/index.js.
loadOnFirstUse(["@npmcli/arborist"], path.resolve(process.argv[1], "..", "..", ".."));
