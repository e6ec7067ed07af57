// Type-checking happens once, in `tsc --noEmit`; jest only transpiles (swc), which keeps
// the suite fast on a 2-core machine.
/** @type {import('jest').Config} */
module.exports = {
    testEnvironment: "node",
    roots: ["<rootDir>/test"],
    testMatch: ["**/*.test.ts"],
    transform: { "^.+\\.ts$": ["@swc/jest"] },
    // Once, before any test file: checks the pinned upstream files are there, and builds the policy pack if its sources changed.
    globalSetup: "<rootDir>/test/globalSetup.ts",
    // Each test file gets its own module registry, so the Pulumi runtime's global
    // mock state never leaks between files.
    maxWorkers: 2,
};
