#!/usr/bin/env python3
"""Test plumbing for the CRI tests: point a containerd 1.x drop-in written by
`nvidia-ctk runtime configure` at private directories.

    cri_config.py private <dropin.toml> <workdir> [<extra-dropin.toml> <handler> <annotation>...]

Reads the drop-in (containerd 1.6 replaces whole plugin tables with an imported file's, so the
CRI table of the drop-in is the one containerd uses), and rewrites it in place with:
  - cni.conf_dir = <workdir>/net.d, cni.bin_dir = /usr/lib/cni (Debian's plugins)
  - registry.config_path = <workdir>/certs.d (hosts.toml mirrors)
  - netns_mounts_under_state_dir = true (network namespaces under the private state dir)
  - restrict_oom_score_adj = true (sandboxes ask for oom_score_adj -998; where the test runs
    without CAP_SYS_RESOURCE, as in some VMs, runc's init fails with EACCES and "can't get final
    child's PID from pipe"; this keeps every container's value >= containerd's own)
and, when <extra-dropin.toml> is given, copies runtime <handler> from it (a second drop-in that
nvidia-ctk wrote for that handler name) and sets the handler's container_annotations to the
given patterns (containerd 1.6 has no CDI support of its own: it forwards a container's
annotations to the OCI spec only when the handler lists them; the NVIDIA runtime in cdi mode
reads the `cdi.k8s.io/` ones).

Only the keys above change; everything else nvidia-ctk wrote is written back with the same
values (stdlib tomllib reads it; a small writer below emits it).
"""
import re
import sys
import tomllib

CRI = "io.containerd.grpc.v1.cri"
BARE = re.compile(r"^[A-Za-z0-9_-]+$")


def key(k):
    return k if BARE.match(k) else '"' + k.replace("\\", "\\\\").replace('"', '\\"') + '"'


def value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, list):
        return "[" + ", ".join(value(x) for x in v) + "]"
    raise TypeError(f"unsupported TOML value {v!r}")


def emit(table, path, out):
    scalars = [(k, v) for k, v in table.items() if not isinstance(v, dict)]
    tables = [(k, v) for k, v in table.items() if isinstance(v, dict)]
    if path and (scalars or not tables):
        out.append("")
        out.append("[" + ".".join(key(p) for p in path) + "]")
    for k, v in scalars:
        out.append(f"{key(k)} = {value(v)}")
    for k, v in tables:
        emit(v, path + [k], out)


def main(argv):
    if len(argv) < 3 or argv[0] != "private":
        sys.exit(__doc__)
    dropin, work = argv[1], argv[2]
    with open(dropin, "rb") as f:
        doc = tomllib.load(f)
    cri = doc.setdefault("plugins", {}).setdefault(CRI, {})
    cni = cri.setdefault("cni", {})
    cni["bin_dir"] = "/usr/lib/cni"
    cni["conf_dir"] = f"{work}/net.d"
    cri.setdefault("registry", {})["config_path"] = f"{work}/certs.d"
    cri["netns_mounts_under_state_dir"] = True
    cri["restrict_oom_score_adj"] = True
    if len(argv) > 3:
        extra, handler, patterns = argv[3], argv[4], argv[5:]
        with open(extra, "rb") as f:
            other = tomllib.load(f)
        runtime = other["plugins"][CRI]["containerd"]["runtimes"][handler]
        if patterns:
            runtime["container_annotations"] = patterns
        cri.setdefault("containerd", {}).setdefault("runtimes", {})[handler] = runtime
    out = []
    if "version" in doc:
        out.append(f"version = {value(doc.pop('version'))}")
    emit(doc, [], out)
    with open(dropin, "w") as f:
        f.write("\n".join(out).lstrip("\n") + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
