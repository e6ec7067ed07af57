"use strict";
const path = require("path");
// Through the package's manifest: jest's resolver maps the bare name `typescript` to this file again.
const manifest = require.resolve("typescript/package.json", { paths: [require.resolve("@pulumi/pulumi")] });
module.exports = require("../../scripts/lazyModule").lazyModule(path.join(path.dirname(manifest), require(manifest).main));
