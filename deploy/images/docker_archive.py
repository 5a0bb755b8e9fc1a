#!/usr/bin/env python3
"""Wraps one root filesystem tar as a one-layer Docker archive (the `docker save` layout Jib reads as tar://).

The layer is rewritten member by member with every mtime set to SOURCE_DATE_EPOCH and owners kept, so the archive's
bytes depend on the files alone. The image config sets PATH and JAVA_HOME for the runtime in /opt/java.
"""
import hashlib
import io
import json
import os
import sys
import tarfile

rootfs, out, tag = sys.argv[1:4]
epoch = int(os.environ["SOURCE_DATE_EPOCH"])


def normalized(src):
    buf = io.BytesIO()
    with tarfile.open(src) as tin, tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tout:
        for member in sorted(tin.getmembers(), key=lambda m: m.name):
            member.mtime = epoch
            member.pax_headers = {}
            data = tin.extractfile(member) if member.isfile() else None
            tout.addfile(member, data)
    return buf.getvalue()


layer = normalized(rootfs)
diff_id = "sha256:" + hashlib.sha256(layer).hexdigest()
created = __import__("datetime").datetime.fromtimestamp(epoch, __import__("datetime").timezone.utc)
config = {
    "architecture": "amd64",
    "os": "linux",
    "created": created.strftime("%Y-%m-%dT%H:%M:%SZ"),
    "config": {
        "Env": ["PATH=/opt/java/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                "JAVA_HOME=/opt/java", "LANG=C.UTF-8"],
        "User": "10001:10001",
        "WorkingDir": "/var/lib/busload",
    },
    "rootfs": {"type": "layers", "diff_ids": [diff_id]},
    "history": [{"created": created.strftime("%Y-%m-%dT%H:%M:%SZ"),
                 "created_by": "deploy/images/base.sh: mmdebstrap bookworm minbase + jlink runtime"}],
}
config_bytes = json.dumps(config, sort_keys=True, separators=(",", ":")).encode()
config_name = hashlib.sha256(config_bytes).hexdigest() + ".json"
manifest = json.dumps([{"Config": config_name, "RepoTags": [tag], "Layers": ["layer.tar"]}],
                      separators=(",", ":")).encode()


def add(tar, name, data):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mtime = epoch
    info.mode = 0o644
    tar.addfile(info, io.BytesIO(data))


with tarfile.open(out, "w", format=tarfile.PAX_FORMAT) as tar:
    add(tar, config_name, config_bytes)
    add(tar, "layer.tar", layer)
    add(tar, "manifest.json", manifest)
print(f"{out}: {tag}, layer {diff_id}, config sha256:{config_name[:-5]}")
