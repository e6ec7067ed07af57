"use strict";
module.exports = require("../../scripts/lazyModule").lazyModule(
    require.resolve("@npmcli/arborist", { paths: [require.resolve("@pulumi/pulumi")] }),
);
