/**
 * How a setting is declared: its Pulumi config type, its default, what it means and allows, and the zod schema that
 * checks its value; the schemas several areas share; and how a rule between settings is declared. Every message is
 * "<problem>; allowed: …", so that the error line names what would be accepted.
 */
import { z } from "zod";
import { PROTECTED_NAMESPACES } from "@gke-tpu-inference/facts";
import { Ipv4Range, networkRangeProblem, parseCidr } from "../lib/cidr";

/** Pulumi's project config types, as Pulumi.yaml declares them. */
export type ConfigType = "string" | "integer" | "boolean" | "object" | "array<string>" | "array<object>";

/** One setting: how Pulumi types it, its default, what it means and allows, and how its value is checked. */
export interface Setting {
    type: ConfigType;
    /** The value when the stack sets none, as Pulumi.yaml declares it (`""` where the value is derived, as the description says). */
    default: string | number | boolean | unknown[] | Record<string, unknown>;
    description: string;
    /** What the setting allows, as the settings reference and error messages say it. */
    allowed: string;
    /** Checks the value (already decoded from Pulumi's string by its type); every message is "<problem>; allowed: …". */
    schema: z.ZodType;
}

/** The checked values of a group of settings, by name. */
export type ValuesOf<S extends Record<string, Setting>> = { [K in keyof S]: z.output<S[K]["schema"]> };

/** A rule between settings, declared with the settings it reads so that it runs only once they are valid. */
export interface Rule<Values> {
    /** One line for the settings reference. */
    description: string;
    reads: readonly (keyof Values & string)[];
    /** Problems, each a whole line ("<key> = <value> …; allowed: …"). */
    check: (values: Values, key: (name: string) => string) => string[];
}

export const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** "<problem>; allowed: <allowed>", the second half of every error line. */
export function says(problem: string, allowed: string): string {
    return `${problem}; allowed: ${allowed}`;
}

export function oneOf(values: readonly string[], problem: string): z.ZodType<string> {
    return z
        .string({ error: says("is not a string", values.join(", ")) })
        .refine((value) => values.includes(value), { error: says(problem, values.join(", ")) });
}

export function wholeNumber(minimum: number, maximum: number, why: string): z.ZodType<number> {
    const allowed = `${minimum} to ${maximum} (${why})`;
    return z.number({ error: says("is not a whole number", allowed) }).superRefine((value, ctx) => {
        if (!Number.isSafeInteger(value)) {
            ctx.addIssue({
                code: "custom",
                message: says(
                    Number.isInteger(value) ? "is not a whole number JavaScript holds exactly" : "is not a whole number",
                    allowed,
                ),
            });
        } else if (value < minimum || value > maximum) {
            ctx.addIssue({ code: "custom", message: says(`is not a whole number from ${minimum} to ${maximum}`, allowed) });
        }
    });
}

export function bool(): z.ZodType<boolean> {
    return z.boolean({ error: says("is not a boolean", "true, false") });
}

export function dnsLabel(): z.ZodType<string> {
    const allowed = "at most 63 lowercase letters, digits and hyphens, starting and ending with a letter or digit";
    return z.string({ error: says("is not a string", allowed) }).regex(DNS_LABEL, { error: says("is not a DNS-1123 label", allowed) });
}

/** A namespace this stack creates and owns, which must not be one Kubernetes or the platform owns. */
export function ownedNamespace(): z.ZodType<string> {
    return dnsLabel().refine((value) => !PROTECTED_NAMESPACES.includes(value) && !value.startsWith("kube-"), {
        error: says(
            "is a namespace Kubernetes or the platform owns",
            `a namespace of this stack's own, not ${PROTECTED_NAMESPACES.join(", ")}`,
        ),
    });
}

/** A private IPv4 range that GCP accepts for a subnet, and that passes `fits` (the size GCP or GKE allows for its use). */
export function cidr(fits: (range: Ipv4Range) => string | undefined): z.ZodType<string> {
    const allowed = "an IPv4 CIDR block like 10.0.0.0/20 in a private range";
    return z.string({ error: says("is not a string", allowed) }).superRefine((value, ctx) => {
        const parsed = parseCidr(value);
        const problem = typeof parsed === "string" ? parsed : (networkRangeProblem(parsed) ?? fits(parsed));
        if (problem !== undefined) {
            ctx.addIssue({ code: "custom", message: problem.includes("; allowed:") ? problem : says(problem, allowed) });
        }
    });
}
