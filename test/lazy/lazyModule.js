// A module that loads when first used rather than when first required. The Pulumi SDK requires TypeScript and npm's
// Arborist as it loads (to serialize closures and to find a program's packages), which no test here uses; loading them
// is about a third of every test file's start. jest.config.js maps those two modules to this, so that they load only
// in a test that uses them, as they are.
"use strict";

/** A stand-in for the module at `resolvedPath` (an absolute path, which jest's module mapping leaves alone). */
module.exports = function lazyModule(resolvedPath) {
    let loaded;
    const real = () => (loaded ??= require(resolvedPath));
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
