/**
 * The copy Job's own script, run with python3 against stand-ins of huggingface_hub and google-cloud-storage
 * (test/fixtures/weights-copy): which files it copies, how many at once, how it waits for a grant, and how it refuses.
 */
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { COPY_JOB, COPY_SCRIPT } from "../../../components/workloads/modelWeights";

const FAKES = path.resolve(__dirname, "..", "..", "fixtures", "weights-copy");

/** Llama-3.1-70B-Instruct's layout in miniature: sharded safetensors, Meta's own checkpoint under original/, extra formats. */
const LLAMA_FILES: Record<string, string> = {
    "config.json": "{}",
    "generation_config.json": "{}",
    "tokenizer.json": "{}",
    "tokenizer_config.json": "{}",
    "special_tokens_map.json": "{}",
    "model.safetensors.index.json": "{}",
    "model-00001-of-00003.safetensors": "a".repeat(300),
    "model-00002-of-00003.safetensors": "b".repeat(300),
    "model-00003-of-00003.safetensors": "c".repeat(100),
    "original/consolidated.00.pth": "x".repeat(900),
    "original/params.json": "{}",
    "original/tokenizer.model": "t",
    "pytorch_model.bin": "y".repeat(700),
    LICENSE: "license",
};

interface Run {
    status: number | null;
    stdout: string;
    stderr: string;
    /** Objects in the fake bucket under the prefix. */
    staged: string[];
    /** The fakes' event log: downloads (with how many ran at once), uploads, refusals. */
    events: string[];
}

function copy(state: Record<string, unknown>, env: Record<string, string> = {}): Run {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "weights-copy-"));
    const bucketDir = path.join(dir, "bucket");
    const scratch = path.join(dir, "scratch");
    fs.mkdirSync(scratch);
    const stateFile = path.join(dir, "state.json");
    fs.writeFileSync(
        stateFile,
        JSON.stringify({ repo: "meta-llama/Llama-3.1-70B-Instruct", sha: "rev1", files: LLAMA_FILES, bucketDir, ...state }),
    );
    const run = spawnSync("python3", ["-c", COPY_SCRIPT], {
        encoding: "utf8",
        env: {
            PATH: process.env.PATH,
            PYTHONPATH: FAKES,
            PYTHONDONTWRITEBYTECODE: "1",
            FAKE_STATE: stateFile,
            HF_REPOSITORY: "meta-llama/Llama-3.1-70B-Instruct",
            BUCKET: "weights-bucket",
            PREFIX: "weights/meta-llama/Llama-3.1-70B-Instruct",
            MARKER: ".gke-tpu-inference-staged",
            WORKERS: String(COPY_JOB.workers),
            SCRATCH: scratch,
            SCRATCH_LIMIT_BYTES: String(COPY_JOB.scratchGi * 2 ** 30),
            REFUSED_EXIT_CODE: String(COPY_JOB.refusedExitCode),
            GRANT_WAIT_SECONDS: "5",
            GRANT_RETRY_SECONDS: "0",
            ...env,
        },
    });
    const prefixDir = path.join(bucketDir, "weights-bucket", "weights", "meta-llama", "Llama-3.1-70B-Instruct");
    const list = (at: string): string[] =>
        fs.existsSync(at)
            ? fs
                  .readdirSync(at, { withFileTypes: true })
                  .flatMap((entry) =>
                      entry.isDirectory() ? list(path.join(at, entry.name)).map((name) => `${entry.name}/${name}`) : [entry.name],
                  )
            : [];
    const log = `${stateFile}.log`;
    const result = {
        status: run.status,
        stdout: run.stdout,
        stderr: run.stderr,
        staged: list(prefixDir).sort(),
        events: fs.existsSync(log) ? fs.readFileSync(log, "utf8").trim().split("\n") : [],
    };
    fs.rmSync(dir, { recursive: true, force: true });
    return result;
}

describe("the weights copy Job's script", () => {
    test("copies what vLLM reads, not Meta's original/ checkpoint nor other formats' weights, then the marker", () => {
        const run = copy({ firstTogether: COPY_JOB.workers }, { HF_TOKEN: "hf_test" });
        expect(run.stderr).toBe("");
        expect(run.status).toBe(0);
        expect(run.staged).toEqual([
            ".gke-tpu-inference-staged",
            "LICENSE",
            "config.json",
            "generation_config.json",
            "model-00001-of-00003.safetensors",
            "model-00002-of-00003.safetensors",
            "model-00003-of-00003.safetensors",
            "model.safetensors.index.json",
            "special_tokens_map.json",
            "tokenizer.json",
            "tokenizer_config.json",
        ]);
        expect(run.stdout.split("\n")[0]).toBe(
            "copying 10 files, 0.0 GB, of meta-llama/Llama-3.1-70B-Instruct@rev1 to gs://weights-bucket/weights/meta-llama/Llama-3.1-70B-Instruct, 4 at a time; " +
                "not read by vLLM: original/consolidated.00.pth, original/params.json, original/tokenizer.model, pytorch_model.bin",
        );
        // Several downloads at once, the largest first: the first four to start, which wait for one another, are the
        // shards and the largest of the rest (which of the four a busy machine's threads log first is theirs to say);
        // the marker last.
        expect(run.events.some((event) => / \(4 at once\)$/.test(event))).toBe(true);
        expect(
            run.events
                .slice(0, COPY_JOB.workers)
                .map((event) => event.split(" ")[1])
                .sort(),
        ).toEqual(["LICENSE", "model-00001-of-00003.safetensors", "model-00002-of-00003.safetensors", "model-00003-of-00003.safetensors"]);
        expect(run.events[run.events.length - 1]).toBe("upload weights/meta-llama/Llama-3.1-70B-Instruct/.gke-tpu-inference-staged");
    });

    test("waits for a new grant: Cloud Storage's first refusals are retried, the copy completes", () => {
        const run = copy({ forbidden: 3 }, { HF_TOKEN: "hf_test" });
        expect(run.status).toBe(0);
        expect(run.events.filter((event) => event.startsWith("forbidden"))).toHaveLength(3);
        expect(run.stdout).toContain(
            "reading the marker: Cloud Storage refused (403 storage.objects.get denied); waiting for the grant to apply",
        );
        expect(run.staged).toContain(".gke-tpu-inference-staged");
    });

    test("a grant that never applies ends the Job with what the account needs, for the Job to retry", () => {
        const run = copy({ forbidden: 1000 }, { HF_TOKEN: "hf_test", GRANT_WAIT_SECONDS: "0.2" });
        expect(run.status).toBe(1);
        expect(run.stderr.trim()).toBe(
            "reading the marker: Cloud Storage still refuses after 0 s (403 storage.objects.get denied); the Job's service account needs roles/storage.objectUser on gs://weights-bucket/weights/meta-llama/Llama-3.1-70B-Instruct/, which `pulumi up` grants",
        );
    });

    test("a gated model without a token, or with one that lacks access, is refused with what to do, and not retried", () => {
        const help =
            "accept its license on https://huggingface.co/meta-llama/Llama-3.1-70B-Instruct with the account whose token the stack holds, set that token with `pulumi config set --secret hfToken <TOKEN>`, and run `pulumi up`";
        const noToken = copy({ gated: "manual", token: "hf_granted" });
        expect(noToken.status).toBe(COPY_JOB.refusedExitCode);
        expect(noToken.stderr.trim()).toBe(
            `meta-llama/Llama-3.1-70B-Instruct is gated on Hugging Face and the stack holds no token: ${help}`,
        );
        const wrongToken = copy({ gated: "manual", token: "hf_granted" }, { HF_TOKEN: "hf_other" });
        expect(wrongToken.status).toBe(COPY_JOB.refusedExitCode);
        expect(wrongToken.stderr).toContain(`meta-llama/Llama-3.1-70B-Instruct is gated on Hugging Face and this token may not read `);
        expect(wrongToken.staged).toEqual([]);
    });

    test("a revoked token is refused, not retried", () => {
        const run = copy({ token: "hf_granted" }, { HF_TOKEN: "hf_revoked" });
        expect(run.status).toBe(COPY_JOB.refusedExitCode);
        expect(run.stderr.trim()).toMatch(
            /^Hugging Face refuses the stack's token, revoked or mistyped: accept its license on https:\/\/huggingface\.co\/meta-llama\/Llama-3\.1-70B-Instruct/,
        );
    });

    test("a file that fails ends the Job at once, naming it, for the Job to retry; the marker is not written", () => {
        const run = copy({ broken: ["model-00002-of-00003.safetensors"], downloadSeconds: 0.3 }, { HF_TOKEN: "hf_test" });
        expect(run.status).toBe(1);
        expect(run.stderr.trim()).toBe(
            "copying model-00002-of-00003.safetensors failed: OSError: connection reset while downloading model-00002-of-00003.safetensors",
        );
        expect(run.staged).not.toContain(".gke-tpu-inference-staged");
    });

    test("a shard larger than the scratch volume's limit is refused, whatever the node's disk", () => {
        const run = copy({}, { HF_TOKEN: "hf_test", SCRATCH_LIMIT_BYTES: "200" });
        expect(run.status).toBe(COPY_JOB.refusedExitCode);
        expect(run.stderr).toContain("largest file needs 0.0 GB of scratch space");
    });

    test("a repository without top-level safetensors is refused: the streamer reads nothing else", () => {
        const run = copy({ files: { "config.json": "{}", "pytorch_model.bin": "y" } }, { HF_TOKEN: "hf_test" });
        expect(run.status).toBe(COPY_JOB.refusedExitCode);
        expect(run.stderr.trim()).toBe(
            "meta-llama/Llama-3.1-70B-Instruct has no safetensors at its top level, the only weights the Run:ai streamer reads: set stageWeights to false (KServe then downloads it)",
        );
    });

    test("a rerun finds the marker naming the same revision and copies nothing", () => {
        const first = copy({}, { HF_TOKEN: "hf_test" });
        expect(first.status).toBe(0);
        // A fresh bucket holding only the marker of this revision.
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "weights-marker-"));
        const marker = path.join(dir, "weights-bucket", "weights", "meta-llama", "Llama-3.1-70B-Instruct", ".gke-tpu-inference-staged");
        fs.mkdirSync(path.dirname(marker), { recursive: true });
        fs.writeFileSync(marker, "rev1");
        const again = copy({ bucketDir: dir }, { HF_TOKEN: "hf_test" });
        fs.rmSync(dir, { recursive: true, force: true });
        expect(again.status).toBe(0);
        expect(again.stdout.trim()).toBe(
            "meta-llama/Llama-3.1-70B-Instruct@rev1 is already staged in gs://weights-bucket/weights/meta-llama/Llama-3.1-70B-Instruct",
        );
        expect(again.events.filter((event) => event.startsWith("download"))).toEqual([]);
    });
});
