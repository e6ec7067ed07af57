// Lets Node run TypeScript without type-checking (tsc does that once, separately): every
// .ts file is transpiled by swc on require, with the options jest uses (.swcrc).
"use strict";
const fs = require("fs");
const path = require("path");
const swc = require("@swc/core");

const swcrc = JSON.parse(fs.readFileSync(path.join(__dirname, "..", ".swcrc"), "utf8"));
delete swcrc.$schema;

require.extensions[".ts"] = (module, filename) => {
    const source = fs.readFileSync(filename, "utf8");
    const { code } = swc.transformSync(source, { ...swcrc, filename, swcrc: false });
    module._compile(code, filename);
};
