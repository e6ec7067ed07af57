// Type-checking happens once, in tsc beside the tests (test/typecheck.ts); jest only transpiles (swc), which keeps
// the suite fast on a 2-core machine.
/** @type {import('jest').Config} */
module.exports = {
    // Node's, with the Pulumi SDK's own stack captures kept out of jest's source mapping (test/environment.ts).
    testEnvironment: "<rootDir>/test/environment.ts",
    roots: ["<rootDir>/test"],
    testMatch: ["**/*.test.ts"],
    transform: { "^.+\\.ts$": ["@swc/jest"] },
    // Modules the Pulumi SDK requires as it loads but no test uses, loaded on first use instead (scripts/lazyModule.js).
    // The corpus's public programs and their SDKs are previewed by npm run corpus, never imported by a test.
    modulePathIgnorePatterns: ["<rootDir>/test/corpus/programs/", "<rootDir>/test/corpus/sdks/"],
    moduleNameMapper: { "^typescript$": "<rootDir>/test/lazy/typescript.js", "^@npmcli/arborist$": "<rootDir>/test/lazy/arborist.js" },
    // Once, before any test file: checks the pinned upstream files are there, builds the policy pack if its sources
    // changed, and makes the folder where the first test file to compute what others need too leaves it for them (runCache.ts).
    globalSetup: "<rootDir>/test/globalSetup.ts",
    globalTeardown: "<rootDir>/test/globalTeardown.ts",
    // A test or hook that records a program or starts the policy pack takes seconds, and several times that on a loaded
    // machine; jest's default of 5 s fails them for the load, not for a fault.
    testTimeout: 60_000,
    // Each test file gets its own module registry, so the Pulumi runtime's global
    // mock state never leaks between files.
    maxWorkers: 2,
    // npm test starts jest with --max-semi-space-size=64 (package.json), which its workers inherit (jest-worker 30.5.2
    // build/index.js:767 forks them with the parent's execArgv): with V8's young generation at 64 MiB a semi-space
    // rather than 16 (Node's doc/api/cli.md, --max-semi-space-size), the tests spent 30% less time collecting garbage
    // (in band over test/lessons, test/pack and test/capacity.test.ts: 2.1 s, not 3.0).
};
