// A module that loads when first used rather than when first required. The Pulumi SDK requires TypeScript and npm's
// Arborist as it loads (to serialize closures and to find a program's packages), which neither a policy pack, the
// offline preview nor a test here uses, and which are about a third of the SDK's load. The commands (ts-hook.js), the
// policy pack's process (offline/pack-preload.js) and jest (jest.config.js's moduleNameMapper, test/lazy/) stand this
// in for them, so that they load only if used.
"use strict";
const Module = require("module");

/** A stand-in for the module at `resolvedPath`, loaded by `load` (plain `require` by default) on first use. */
function lazyModule(resolvedPath, load = require) {
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
}

/**
 * Makes each of `requests`, where the Pulumi SDK in `sdkDir` finds it, a {@link lazyModule} in this process: the
 * stand-in waits in Node's module cache where the module would be, and the module takes its place on first use. A
 * request the SDK cannot resolve is left alone. (Not a hook on `require`: it would be the first frame outside Node of
 * every `require`, where Node looks to tell whether a package asked for a deprecated module, which it then leaves
 * unsaid: nodejs/node src/node_util.cc `IsInsideNodeModules`, for `punycode`'s DEP0040 in lib/punycode.js:6.)
 */
function loadOnFirstUse(requests, sdkDir) {
    for (const request of requests) {
        let resolved;
        try {
            resolved = require.resolve(request, { paths: [sdkDir] });
        } catch {
            continue;
        }
        if (require.cache[resolved]) {
            continue;
        }
        const standIn = new Module(resolved);
        standIn.filename = resolved;
        standIn.loaded = true;
        standIn.exports = lazyModule(resolved, () => {
            delete require.cache[resolved];
            return require(resolved);
        });
        require.cache[resolved] = standIn;
    }
}

module.exports = { lazyModule, loadOnFirstUse };
