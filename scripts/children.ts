/**
 * The child processes a command starts (the policy pack's server, say), stopped on every way the command can end:
 * its own exit, an uncaught error, SIGINT, SIGTERM, SIGHUP. A child left behind would hold memory and a port until
 * someone found it.
 */
import type { ChildProcess } from "child_process";

const children = new Set<ChildProcess>();

/** Stops every child still running, at once: the process may be exiting, with no time to wait for them. */
export function stopChildren(): void {
    for (const child of children) {
        child.kill("SIGKILL");
    }
    children.clear();
}

let watching = false;

/** Keeps `child` on the list of what this process stops on its way out, until it exits by itself. */
export function ownChild<T extends ChildProcess>(child: T): T {
    children.add(child);
    child.once("exit", () => {
        children.delete(child);
        // Nothing left to stop: the listener goes, so that a process loading this module many times (a jest worker,
        // one module registry per test file) does not collect one per load.
        if (children.size === 0 && watching) {
            watching = false;
            process.off("exit", stopChildren);
        }
    });
    if (!watching) {
        watching = true;
        process.once("exit", stopChildren);
    }
    return child;
}
