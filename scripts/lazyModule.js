// A module that loads when first used rather than when first required. The Pulumi SDK requires TypeScript and npm's
// Arborist as it loads (to serialize closures and to find a program's packages), which neither a policy pack nor a test
// here uses, and which are about a third of the SDK's load. The policy pack's process (offline/pack-preload.js) and
// jest (jest.config.js's moduleNameMapper, test/lazy/) stand this in for them, so that they load only if used.
"use strict";

/** A stand-in for the module at `resolvedPath`, loaded by `load` (plain `require` by default) on first use. */
module.exports = function lazyModule(resolvedPath, load = require) {
    let loaded;
    const real = () => (loaded ??= load(resolvedPath));
    return new Proxy(
        {},
        {
            // Says it is an ES module, so that TypeScript's __importStar returns it as it is instead of copying (and so
            // loading) every export.
            get: (_, key) => (key === "__esModule" ? true : real()[key]),
            has: (_, key) => key in real(),
            ownKeys: () => Reflect.ownKeys(real()),
            getOwnPropertyDescriptor: (_, key) => {
                const descriptor = Object.getOwnPropertyDescriptor(real(), key);
                return descriptor && { ...descriptor, configurable: true };
            },
        },
    );
};
