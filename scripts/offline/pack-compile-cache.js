// Preloaded (`node -r`) into the policy pack's process by the offline preview: Node keeps V8's compiled code of each
// module the pack loads in os.tmpdir()/node-compile-cache (module.enableCompileCache, Node 22.1), so the next start
// compiles nothing (the Pulumi SDK the runner loads is about 0.4 s of compiling). Node writes the cache when a process
// exits normally; the pack is stopped with SIGTERM, so it writes it then. The pack's behaviour is otherwise untouched.
"use strict";
const { enableCompileCache, flushCompileCache } = require("module");

enableCompileCache();
process.once("SIGTERM", () => {
    flushCompileCache();
    process.exit(143);
});
