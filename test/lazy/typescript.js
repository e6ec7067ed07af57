"use strict";
module.exports = require("../../scripts/lazyModule")(require.resolve("typescript", { paths: [require.resolve("@pulumi/pulumi")] }));
