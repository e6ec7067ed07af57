"""Stages a Hugging Face model in Cloud Storage for vLLM's Run:ai streamer (the copy Job of components/modelWeights.ts).

Copies only what vLLM reads of the repository, several files at a time through local scratch space, and writes a
marker naming the revision last: a rerun with the same revision exits at once. A problem no retry can mend (a gated
model without access, a repository without safetensors) exits with REFUSED_EXIT_CODE, which fails the Job at once.
"""
import concurrent.futures
import os
import shutil
import sys
import tempfile
import time

from google.api_core import exceptions
from google.cloud import storage
from huggingface_hub import HfApi, hf_hub_download
from huggingface_hub.errors import GatedRepoError, HfHubHTTPError, RepositoryNotFoundError

REPO = os.environ["HF_REPOSITORY"]
BUCKET = os.environ["BUCKET"]
PREFIX = os.environ["PREFIX"]
MARKER = os.environ["MARKER"]
WORKERS = int(os.environ["WORKERS"])
SCRATCH = os.environ["SCRATCH"]
SCRATCH_LIMIT_BYTES = int(os.environ["SCRATCH_LIMIT_BYTES"])
REFUSED = int(os.environ["REFUSED_EXIT_CODE"])
GRANT_WAIT_SECONDS = float(os.environ["GRANT_WAIT_SECONDS"])
GRANT_RETRY_SECONDS = float(os.environ["GRANT_RETRY_SECONDS"])

# Weight formats a repository may carry besides safetensors; the streamer reads top-level *.safetensors only.
WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".tensors", ".gguf", ".ckpt", ".h5", ".msgpack", ".onnx", ".onnx_data")
TOKEN_HELP = (
    f"accept its license on https://huggingface.co/{REPO} with the account whose token the stack holds, "
    "set that token with `pulumi config set --secret hfToken <TOKEN>`, and run `pulumi up`"
)


def stop(message, code):
    """Ends the Job's pod at once, from any thread, with `message` as its last words (its termination message)."""
    print(message, file=sys.stderr, flush=True)
    os._exit(code)


def refuse(message):
    stop(message, REFUSED)


def wanted(names):
    """Every file vLLM reads: all but other formats' weights, nested weights and Meta's original/ checkpoint, and a
    consolidated copy beside sharded safetensors."""
    top = [name for name in names if "/" not in name and name.endswith(".safetensors")]
    sharded = any(not name.startswith("consolidated") for name in top)
    keep = []
    for name in names:
        if name.startswith("original/"):
            continue
        if name.endswith(WEIGHT_SUFFIXES) and not (name in top and not (sharded and name.startswith("consolidated"))):
            continue
        keep.append(name)
    return keep


def granted(call, what):
    """`call`, retrying Cloud Storage's 403 while a new IAM grant propagates (typically 2 minutes, up to 7 or more)."""
    deadline = time.monotonic() + GRANT_WAIT_SECONDS
    while True:
        try:
            return call()
        except exceptions.Forbidden as error:
            if time.monotonic() >= deadline:
                stop(
                    f"{what}: Cloud Storage still refuses after {GRANT_WAIT_SECONDS:.0f} s ({error}); the Job's service account "
                    f"needs roles/storage.objectUser on gs://{BUCKET}/{PREFIX}/, which `pulumi up` grants",
                    1,
                )
            print(f"{what}: Cloud Storage refused ({error}); waiting for the grant to apply", flush=True)
            time.sleep(GRANT_RETRY_SECONDS)


def main():
    try:
        info = HfApi().model_info(REPO, files_metadata=True)
    except GatedRepoError as error:
        refuse(f"{REPO} is gated on Hugging Face and this token may not read it: {TOKEN_HELP} ({error})")
    except RepositoryNotFoundError as error:
        refuse(f"Hugging Face has no {REPO} that this Job may read: check the model URI, or, for a private or gated model, {TOKEN_HELP} ({error})")
    except HfHubHTTPError as error:
        if getattr(error.response, "status_code", None) == 401:
            refuse(f"Hugging Face refuses the stack's token, revoked or mistyped: {TOKEN_HELP} ({error})")
        raise
    if info.gated and not os.environ.get("HF_TOKEN"):
        refuse(f"{REPO} is gated on Hugging Face and the stack holds no token: {TOKEN_HELP}")
    revision = info.sha
    bucket = storage.Client().bucket(BUCKET)
    marker = bucket.blob(f"{PREFIX}/{MARKER}")
    if granted(marker.exists, "reading the marker") and granted(marker.download_as_text, "reading the marker").strip() == revision:
        print(f"{REPO}@{revision} is already staged in gs://{BUCKET}/{PREFIX}", flush=True)
        return

    sizes = {sibling.rfilename: sibling.size or 0 for sibling in info.siblings}
    files = wanted(list(sizes))
    if not any(name.endswith(".safetensors") for name in files):
        refuse(f"{REPO} has no safetensors at its top level, the only weights the Run:ai streamer reads: set stageWeights to false (KServe then downloads it)")
    total, largest = sum(sizes[name] for name in files), max(sizes[name] for name in files)
    # The emptyDir's size limit, not the node's disk the volume reports: the kubelet evicts a pod that writes past it.
    free = min(shutil.disk_usage(SCRATCH).free, SCRATCH_LIMIT_BYTES)
    if largest > free:
        refuse(f"{REPO}'s largest file needs {largest / 1e9:.1f} GB of scratch space and {SCRATCH} has {free / 1e9:.1f} GB free")
    workers = max(1, min(WORKERS, free // max(largest, 1)))
    skipped = sorted(set(sizes) - set(files))
    print(
        f"copying {len(files)} files, {total / 1e9:.1f} GB, of {REPO}@{revision} to gs://{BUCKET}/{PREFIX}, {workers} at a time"
        + (f"; not read by vLLM: {', '.join(skipped)}" if skipped else ""),
        flush=True,
    )

    def copy(name):
        try:
            with tempfile.TemporaryDirectory(dir=SCRATCH) as scratch:
                try:
                    local = hf_hub_download(REPO, name, revision=revision, local_dir=scratch)
                except GatedRepoError as error:
                    refuse(f"{REPO} is gated on Hugging Face and this token may not read {name}: {TOKEN_HELP} ({error})")
                granted(lambda: bucket.blob(f"{PREFIX}/{name}").upload_from_filename(local), f"uploading {name}")
        except Exception as error:
            # At once, not after every other file: the Job's retry starts over from the marker.
            stop(f"copying {name} failed: {type(error).__name__}: {error}", 1)
        return name

    copied = 0
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        # The largest first, so that the last ones to finish are small.
        for done in concurrent.futures.as_completed([pool.submit(copy, name) for name in sorted(files, key=lambda name: -sizes[name])]):
            name = done.result()
            copied += sizes[name]
            print(f"copied {name} ({copied / 1e9:.1f} of {total / 1e9:.1f} GB)", flush=True)
    granted(lambda: marker.upload_from_string(revision), "writing the marker")
    print(f"{REPO}@{revision} staged in gs://{BUCKET}/{PREFIX}", flush=True)


if __name__ == "__main__":
    main()
