// Lets Node run TypeScript without type-checking (tsc does that once, separately): every
// .ts file is transpiled by swc on require, with the options jest uses (.swcrc).
"use strict";
const fs = require("fs");
const path = require("path");
const swc = require("@swc/core");

// V8's compiled code of every module is kept in os.tmpdir()/node-compile-cache (Node 22.1), so a command's second
// start compiles nothing: the Pulumi SDK and providers alone are about 0.5 s of compiling.
require("module").enableCompileCache();

const swcrc = JSON.parse(fs.readFileSync(path.join(__dirname, "..", ".swcrc"), "utf8"));
delete swcrc.$schema;

require.extensions[".ts"] = (module, filename) => {
    const source = fs.readFileSync(filename, "utf8");
    const { code } = swc.transformSync(source, { ...swcrc, filename, swcrc: false });
    module._compile(code, filename);
};
