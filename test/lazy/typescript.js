"use strict";
module.exports = require("./lazyModule")(require.resolve("typescript", { paths: [require.resolve("@pulumi/pulumi")] }));
