// Whether this Node meets package.json's `engines`, read before anything that needs a newer Node is loaded (so plain
// JavaScript, no dependency).
"use strict";

/** Whether `version` (`22.13.1`) meets `range`: alternatives of `^X.Y.Z` (same major, at least X.Y.Z) or `>=X[.Y.Z]` joined by `||`. */
function nodeSatisfies(version, range) {
    const [major, minor, patch] = version.split(".").map(Number);
    return range.split("||").some((alternative) => {
        const match = /^\s*(\^|>=)\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?\s*$/.exec(alternative);
        if (!match) {
            return false;
        }
        const [, kind, boundMajor, boundMinor = "0", boundPatch = "0"] = match;
        const bound = [Number(boundMajor), Number(boundMinor), Number(boundPatch)];
        const atLeast = major > bound[0] || (major === bound[0] && (minor > bound[1] || (minor === bound[1] && patch >= bound[2])));
        return kind === "^" ? major === bound[0] && atLeast : atLeast;
    });
}

module.exports = { nodeSatisfies };
