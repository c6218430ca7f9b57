#!/usr/bin/env python3
"""Builds OCI images for the CRI tests from local root filesystems (no registry, no network).

    cri_images.py build <spec.json> <layout-dir> [<archive.tar>]

<spec.json>: {"images": [{"ref": "img0", "name": "registry.k8s.io/pause:3.6",
                          "rootfs": "/path/to/rootfs",
                          "files": {"/etc/group": {"content": "...", "mode": 420,
                                                   "uid": 0, "gid": 0}},
                          "config": {"Entrypoint": [...], "Cmd": [...], "User": "1002",
                                     "Env": [...], "WorkingDir": "/", "Labels": {...}}}]}

Each image is one layer holding the rootfs (files owned by root, times zeroed, so the same
rootfs gives the same layer digest) plus, with "files", a second small layer with those files.
Layers are uncompressed tars (application/vnd.oci.image.layer.v1.tar), shared between images
that use the same rootfs. The result is an OCI image layout: index.json lists every manifest
with `org.opencontainers.image.ref.name` = ref (for `skopeo copy oci:<dir>:<ref>`) and
`io.containerd.image.name` = name (for `ctr images import`). With <archive.tar> the layout is
also written as a tar that `ctr images import` reads.
"""
import hashlib
import io
import json
import os
import sys
import tarfile

LAYER_MT = "application/vnd.oci.image.layer.v1.tar"
CONFIG_MT = "application/vnd.oci.image.config.v1+json"
MANIFEST_MT = "application/vnd.oci.image.manifest.v1+json"


class Layout:
    def __init__(self, path):
        self.path = path
        os.makedirs(os.path.join(path, "blobs", "sha256"), exist_ok=True)

    def put(self, data):
        digest = hashlib.sha256(data).hexdigest()
        blob = os.path.join(self.path, "blobs", "sha256", digest)
        if not os.path.exists(blob):
            with open(blob, "wb") as f:
                f.write(data)
        return "sha256:" + digest, len(data)


def _normalise(info):
    info.uid = info.gid = 0
    info.uname = info.gname = "root"
    info.mtime = 0
    return info


def rootfs_layer(rootfs):
    """An uncompressed tar of <rootfs>, sorted, root-owned, zero times; the diff ID = digest."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for dirpath, dirnames, filenames in os.walk(rootfs):
            dirnames.sort()
            for name in sorted(dirnames + filenames):
                full = os.path.join(dirpath, name)
                arc = os.path.relpath(full, rootfs)
                info = _normalise(tar.gettarinfo(full, arc))
                if info.isreg():
                    with open(full, "rb") as f:
                        tar.addfile(info, f)
                else:
                    tar.addfile(info)
    return buf.getvalue()


def files_layer(files):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path in sorted(files):
            spec = files[path]
            data = spec.get("content", "").encode()
            if "source" in spec:
                with open(spec["source"], "rb") as f:
                    data = f.read()
            info = _normalise(tarfile.TarInfo(path.lstrip("/")))
            info.size = len(data)
            info.mode = spec.get("mode", 0o644)
            info.uid, info.gid = spec.get("uid", 0), spec.get("gid", 0)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def build(spec_path, out, archive=None):
    with open(spec_path) as f:
        spec = json.load(f)
    layout = Layout(out)
    layer_cache = {}
    manifests = []
    for image in spec["images"]:
        rootfs = image["rootfs"]
        if rootfs not in layer_cache:
            layer_cache[rootfs] = rootfs_layer(rootfs)
        layers = [layer_cache[rootfs]]
        if image.get("files"):
            layers.append(files_layer(image["files"]))
        descs, diff_ids = [], []
        for data in layers:
            digest, size = layout.put(data)
            descs.append({"mediaType": LAYER_MT, "digest": digest, "size": size})
            diff_ids.append(digest)
        config = {
            "architecture": "amd64",
            "os": "linux",
            "config": image.get("config", {}),
            "rootfs": {"type": "layers", "diff_ids": diff_ids},
        }
        cdigest, csize = layout.put(json.dumps(config, sort_keys=True).encode())
        manifest = {
            "schemaVersion": 2,
            "mediaType": MANIFEST_MT,
            "config": {"mediaType": CONFIG_MT, "digest": cdigest, "size": csize},
            "layers": descs,
        }
        mdigest, msize = layout.put(json.dumps(manifest, sort_keys=True).encode())
        manifests.append({
            "mediaType": MANIFEST_MT, "digest": mdigest, "size": msize,
            "platform": {"architecture": "amd64", "os": "linux"},
            "annotations": {"org.opencontainers.image.ref.name": image["ref"],
                            "io.containerd.image.name": image["name"]},
        })
    with open(os.path.join(out, "oci-layout"), "w") as f:
        json.dump({"imageLayoutVersion": "1.0.0"}, f)
    with open(os.path.join(out, "index.json"), "w") as f:
        json.dump({"schemaVersion": 2, "manifests": manifests}, f, sort_keys=True)
    if archive:
        with tarfile.open(archive, "w") as tar:
            for name in ("oci-layout", "index.json", "blobs"):
                tar.add(os.path.join(out, name), name, filter=_normalise)


def main(argv):
    if len(argv) not in (3, 4) or argv[0] != "build":
        sys.exit(__doc__)
    build(*argv[1:])


if __name__ == "__main__":
    main(sys.argv[1:])
