import * as path from "path";
import { buildIfStale } from "../scripts/offline/analyzer";
import { SHARED_FILES_MISSING, resolveSharedDir } from "../scripts/sharedDir";
import { createRunCacheDir } from "./runCache";
import { runAsTestCommand, startTypecheck } from "./typecheck";

/** jest.config.js `globalSetup`: runs once, before any test file. */
export default async function globalSetup(): Promise<void> {
    requireSharedFiles();
    if (runAsTestCommand()) {
        startTypecheck();
    }
    // Once, here: test files that start the pack in parallel must not each rebuild it over the others.
    await buildIfStale(path.resolve(__dirname, "..", "policies"));
    createRunCacheDir();
}

/** Stops the run before any test when the pinned upstream files the tests read resolve nowhere. */
export function requireSharedFiles(): void {
    if (resolveSharedDir() === undefined) {
        const error = new Error(SHARED_FILES_MISSING);
        // jest prints a failed globalSetup's stack: the message alone says what to do.
        error.stack = error.message;
        throw error;
    }
}
