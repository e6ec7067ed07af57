"use strict";
module.exports = require("./lazyModule")(require.resolve("@npmcli/arborist", { paths: [require.resolve("@pulumi/pulumi")] }));
