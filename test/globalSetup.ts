import { SHARED_FILES_MISSING, resolveSharedDir } from "../scripts/sharedDir";

/** jest.config.js `globalSetup`: runs once, before any test file. */
export default function globalSetup(): void {
    requireSharedFiles();
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
