import Ajv, { ValidateFunction } from "ajv";
import standaloneCode from "ajv/dist/standalone";
import * as crypto from "crypto";
import * as fs from "fs";
import * as path from "path";
import { parseAllDocuments } from "yaml";
import { cachedAcrossRuns } from "./runCache";
import { sharedPath } from "./shared";

interface CrdVersion {
    name: string;
    schema?: { openAPIV3Schema?: Record<string, unknown> };
}

interface Crd {
    kind: string;
    spec: { group: string; names: { kind: string }; versions: CrdVersion[] };
}

type Schema = Record<string, unknown>;

/** The versions of what reads and compiles the schemas: a cached schema or validator is kept for these alone. */
const YAML_VERSION = `yaml ${(require("yaml/package.json") as { version: string }).version}`;
const AJV_VERSION = `ajv ${(require("ajv/package.json") as { version: string }).version}`;
/** How this file compiles a schema is part of what a compiled validator depends on. */
const THIS_FILE = fs.readFileSync(__filename, "utf8");

/**
 * Makes a structural schema reject unknown fields the way the API server's strict field
 * validation does: every object that lists its properties and does not preserve unknown
 * fields gets `additionalProperties: false`.
 */
function strict(schema: Schema): Schema {
    const out: Schema = {};
    for (const [key, value] of Object.entries(schema)) {
        if (key === "properties" && value && typeof value === "object") {
            out[key] = Object.fromEntries(Object.entries(value as Record<string, Schema>).map(([name, inner]) => [name, strict(inner)]));
        } else if ((key === "items" || key === "additionalProperties") && value && typeof value === "object") {
            out[key] = strict(value as Schema);
        } else if ((key === "anyOf" || key === "oneOf" || key === "allOf") && Array.isArray(value)) {
            // A structural schema's branches only add value checks to the fields declared beside them (Gateway API's
            // address `oneOf` lists `type` alone): they declare no fields, so they reject none.
            out[key] = value.map((inner: Schema) => (inner.properties ? branch(inner) : strict(inner)));
        } else {
            out[key] = value;
        }
    }
    if (out.properties && out.additionalProperties === undefined && out["x-kubernetes-preserve-unknown-fields"] !== true) {
        out.additionalProperties = false;
    }
    return out;
}

/** A `oneOf`/`anyOf`/`allOf` branch: its properties are checked strictly within, never closed to the others. */
function branch(schema: Schema): Schema {
    const { additionalProperties, ...rest } = strict(schema);
    return schema.additionalProperties !== undefined ? { ...rest, additionalProperties } : rest;
}

function walk(dir: string): string[] {
    return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
        const full = path.join(dir, entry.name);
        return entry.isDirectory() ? walk(full) : entry.name.endsWith(".yaml") ? [full] : [];
    });
}

/**
 * The root of a CRD's schema as the API server applies it: apiVersion, kind and metadata are always allowed there,
 * whether or not the CRD lists them (Istio's generated CRDs list only spec and status).
 */
function withObjectMeta(schema: Schema): Schema {
    const implicit = { apiVersion: { type: "string" }, kind: { type: "string" }, metadata: { type: "object" } };
    return { ...schema, properties: { ...implicit, ...((schema.properties as Record<string, Schema> | undefined) ?? {}) } };
}

/** Every schema of every version of the CRDs in `files` (each a path and its text), by `group/version:Kind`. */
function readSchemas(files: readonly string[]): Record<string, Schema> {
    const schemas: Record<string, Schema> = {};
    for (const text of files.map((file) => fs.readFileSync(file, "utf8"))) {
        for (const document of parseAllDocuments(text)) {
            // Conversion-webhook patches are CRD fragments without versions.
            const crd = document.toJSON() as Crd | null;
            if (crd?.kind !== "CustomResourceDefinition" || !Array.isArray(crd.spec?.versions)) {
                continue;
            }
            for (const version of crd.spec.versions) {
                const schema = version.schema?.openAPIV3Schema;
                if (schema) {
                    schemas[`${crd.spec.group}/${version.name}:${crd.spec.names.kind}`] = schema;
                }
            }
        }
    }
    return schemas;
}

/** Validates Kubernetes objects against the upstream CRD schemas in shared/crds and test/fixtures/crds (see SOURCES.txt in each). Compiles each schema once, on first use. */
export class CrdValidator {
    private readonly schemas: Map<string, Schema>;
    /** Each schema's digest, which names its compiled validator in the cache. */
    private readonly digests: Map<string, string>;
    private readonly compiled = new Map<string, ValidateFunction>();
    // The API server evaluates `pattern` with Go's RE2, which reads GKE's `[A-Za-z0-9-_:%...]` as written; JavaScript's
    // Unicode mode rejects `9-_` as a range, so the patterns compile in its legacy mode.
    // `optimize: false`: ajv's code optimization buys a faster validator with a slower compile (twice as slow for KServe's
    // CRDs), and a test validates each object once.
    private readonly ajv = new Ajv({
        strict: false,
        allErrors: true,
        validateFormats: false,
        unicodeRegExp: false,
        code: { source: true, optimize: false },
    });

    /** @param dirs folders of CRD YAML: the shared ones, and the few upstream CRDs this repository carries (SOURCES.txt there) */
    constructor(private readonly dirs: string[] = [sharedPath("crds"), path.join(__dirname, "fixtures", "crds")]) {
        // Parsing every CRD's YAML takes seconds: each test file that validates reads one parse, kept until a CRD file
        // changes (its size or modification time: reading and hashing the 8 MB each time would cost a third of a second).
        const files = dirs.flatMap(walk);
        const signatures = files.map((file) => {
            const stat = fs.statSync(file);
            return `${file} ${stat.size} ${stat.mtimeMs}`;
        });
        const key = `crd-schemas-${dirs.join("+").replace(/[^A-Za-z0-9]/g, "_")}`;
        const { schemas, digests } = cachedAcrossRuns(key, [YAML_VERSION, ...signatures], () => {
            const read = readSchemas(files);
            const digest = (schema: Schema) => crypto.createHash("sha256").update(JSON.stringify(schema)).digest("hex");
            return { schemas: read, digests: Object.fromEntries(Object.entries(read).map(([kind, schema]) => [kind, digest(schema)])) };
        });
        this.schemas = new Map(Object.entries(schemas));
        this.digests = new Map(Object.entries(digests));
    }

    /** `group/version:Kind` keys of every schema loaded. */
    get kinds(): string[] {
        return [...this.schemas.keys()].sort();
    }

    /** Error messages for `object` (empty when it is valid); throws when no schema covers its kind. */
    errors(object: { apiVersion?: unknown; kind?: unknown } & Record<string, unknown>): string[] {
        const key = `${object.apiVersion}:${object.kind}`;
        let validate = this.compiled.get(key);
        if (!validate) {
            const schema = this.schemas.get(key);
            if (!schema) {
                throw new Error(`no CRD schema for ${key} in ${this.dirs.join(" or ")}`);
            }
            // Compiling the big schemas (KServe's) takes seconds: each is compiled once, to standalone code that every test
            // file evaluates, kept until the schema, ajv or how this file compiles it changes.
            const source = cachedAcrossRuns(
                `crd-validator-${key.replace(/[^A-Za-z0-9]/g, "_")}`,
                [AJV_VERSION, THIS_FILE, this.digests.get(key)!],
                () => standaloneCode(this.ajv, this.ajv.compile(strict(withObjectMeta(schema)))),
            );
            const module = { exports: {} as { default?: ValidateFunction } };
            new Function("require", "module", "exports", source)(require, module, module.exports);
            validate = module.exports.default!;
            this.compiled.set(key, validate);
        }
        return validate(object)
            ? []
            : (validate.errors ?? []).map((error) => `${error.instancePath || "/"} ${error.message} ${JSON.stringify(error.params)}`);
    }
}
