/**
 * How a command that runs checks reports them (`npm run doctor`, `npm run smoke`): what needs attention first, grouped
 * by the part of the stack it concerns, passing checks only when asked, then one line of counts; or, with `--json`, one
 * JSON document of the same checks for a script.
 */
import { propertyLines } from "./properties";
import { Style, Terminal, wrap } from "./terminal";

export type CheckStatus = "FAIL" | "WARN" | "SKIPPED" | "OK";

/** One check as a report shows it. */
export interface ReportedCheck {
    status: CheckStatus;
    /** The part of the stack it concerns; the report groups by it. */
    area: string;
    /** What was checked, on what. */
    subject: string;
    /** What was seen. */
    message: string;
    /** Further lines by label (a lesson, the next step), shown under the check. */
    details?: Record<string, string>;
}

/** Worst first: the order in which statuses, and the areas holding them, are listed. */
const SEVERITY: readonly CheckStatus[] = ["FAIL", "WARN", "SKIPPED", "OK"];

const STATUS_STYLE: Record<CheckStatus, Style> = { FAIL: "red", WARN: "yellow", SKIPPED: "gray", OK: "green" };

/**
 * The status column, four spaces in: the longest status (SKIPPED) and a space, so that the subject and the details
 * start at the next four-space level.
 */
const STATUS_WIDTH = 8;

const severity = (check: { status: CheckStatus }) => SEVERITY.indexOf(check.status);

/** How many checks ended in each status. */
function countStatuses(checks: ReadonlyArray<{ status: CheckStatus }>): Record<CheckStatus, number> {
    const counts: Record<CheckStatus, number> = { FAIL: 0, WARN: 0, SKIPPED: 0, OK: 0 };
    for (const check of checks) {
        counts[check.status]++;
    }
    return counts;
}

/** `doctor: 2 failed, 1 warning, 33 OK`: failures and passes always, warnings and skipped checks when there are any. */
function summaryLine(command: string, checks: ReadonlyArray<{ status: CheckStatus }>): string {
    const counts = countStatuses(checks);
    const parts = [
        `${counts.FAIL} failed`,
        ...(counts.WARN > 0 ? [`${counts.WARN} warning${counts.WARN === 1 ? "" : "s"}`] : []),
        ...(counts.SKIPPED > 0 ? [`${counts.SKIPPED} skipped`] : []),
        `${counts.OK} OK`,
    ];
    return `${command}: ${parts.join(", ")}`;
}

/** One check: its status, then its subject and message wrapped under the subject, and its details aligned there too. */
function checkLines(check: ReportedCheck, terminal: Terminal): string[] {
    const lead = `    ${check.status.padEnd(STATUS_WIDTH)}`;
    const text = `${lead}${check.subject}${check.message ? `: ${check.message}` : ""}`;
    const [first, ...rest] = wrap(text, terminal.width, " ".repeat(lead.length));
    const details = check.details ? propertyLines(check.details, 3, { width: terminal.width, quoteStrings: false }) : [];
    return [first.replace(check.status, terminal.style(STATUS_STYLE[check.status], check.status)), ...rest, ...details];
}

/**
 * The report: areas with a failure first (then a warning, then a skipped check), each area's checks worst first; a
 * passing check only when `verbose`; then the summary line.
 */
export function formatChecks(command: string, checks: readonly ReportedCheck[], options: { verbose: boolean; terminal: Terminal }): string {
    const shown = checks.filter((check) => options.verbose || check.status !== "OK");
    const areas = [...new Set(shown.map((check) => check.area))];
    const worst = (area: string) => Math.min(...shown.filter((check) => check.area === area).map(severity));
    const blocks = areas
        .sort((a, b) => worst(a) - worst(b))
        .map((area) => [
            options.terminal.style("bold", area),
            ...shown
                .filter((check) => check.area === area)
                .sort((a, b) => severity(a) - severity(b))
                .flatMap((check) => checkLines(check, options.terminal)),
        ]);
    return [...blocks.flatMap((block) => [...block, ""]), summaryLine(command, checks), ""].join("\n");
}

/** `--json`: the counts and every check, as one document. */
export function checksJson<T extends { status: CheckStatus }>(checks: readonly T[]): string {
    const counts = countStatuses(checks);
    const summary = { failed: counts.FAIL, warnings: counts.WARN, skipped: counts.SKIPPED, ok: counts.OK };
    return `${JSON.stringify({ summary, checks }, null, 2)}\n`;
}
