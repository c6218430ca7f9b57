#!/usr/bin/env python3
"""Checks the Kubernetes manifests of deployments/kubernetes without kubectl.

Usage: check_manifests.py <dir>
Every *.yaml under <dir> must parse and every document must carry apiVersion, kind and a valid
metadata.name. Per kind:
  Namespace     apiVersion v1
  RuntimeClass  apiVersion node.k8s.io/v1, handler "nvidia" (a DNS-1123 label)
  DaemonSet     apiVersion apps/v1; its namespace is declared by a Namespace in <dir>;
                spec.selector.matchLabels is a non-empty subset of the template's labels; every
                container has a name and an image; the installer container is privileged and
                mounts the hostPath volumes / at /host, /usr/local/nvidia at /usr/local/nvidia
                and /run/containerd at /run/containerd; every mount names a declared volume;
                RUNTIME is containerd or crio; RESTART=true comes with hostPID; tolerations
                are a list.
Prints one line per problem and exits 1 when there is any, 0 otherwise.
"""
import pathlib
import re
import sys

import yaml

DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$")
# hostPath -> where the installer must see it.
REQUIRED_HOST_MOUNTS = {
    "/": "/host",
    "/usr/local/nvidia": "/usr/local/nvidia",
    "/run/containerd": "/run/containerd",
}

problems = []


def problem(where, text):
    problems.append(f"{where}: {text}")


def get(node, *keys):
    for key in keys:
        if not isinstance(node, dict):
            return None
        node = node.get(key)
    return node


def check_common(where, doc):
    for key in ("apiVersion", "kind"):
        if not isinstance(doc.get(key), str) or not doc.get(key):
            problem(where, f"missing {key}")
    name = get(doc, "metadata", "name")
    if not isinstance(name, str) or not DNS1123_SUBDOMAIN.match(name):
        problem(where, f"metadata.name {name!r} is missing or not a DNS-1123 subdomain")


def check_runtimeclass(where, doc):
    if doc.get("apiVersion") != "node.k8s.io/v1":
        problem(where, f"RuntimeClass apiVersion {doc.get('apiVersion')!r}, want node.k8s.io/v1")
    handler = doc.get("handler")
    if handler != "nvidia":
        problem(where, f"RuntimeClass handler {handler!r}, want 'nvidia'")
    elif not DNS1123_LABEL.match(handler):
        problem(where, f"handler {handler!r} is not a DNS-1123 label")


def env_of(container):
    env = {}
    for item in container.get("env") or []:
        if isinstance(item, dict) and "name" in item:
            env[item["name"]] = item.get("value")
    return env


def check_daemonset(where, doc, namespaces):
    if doc.get("apiVersion") != "apps/v1":
        problem(where, f"DaemonSet apiVersion {doc.get('apiVersion')!r}, want apps/v1")
    namespace = get(doc, "metadata", "namespace")
    if namespace is not None and namespace not in namespaces:
        problem(where, f"namespace {namespace!r} is not declared by a Namespace manifest")
    match = get(doc, "spec", "selector", "matchLabels")
    labels = get(doc, "spec", "template", "metadata", "labels") or {}
    if not isinstance(match, dict) or not match:
        problem(where, "spec.selector.matchLabels is missing or empty")
    else:
        for key, value in match.items():
            if labels.get(key) != value:
                problem(where, f"selector {key}={value} does not match the template's labels")
    pod = get(doc, "spec", "template", "spec") or {}
    containers = pod.get("containers")
    if not isinstance(containers, list) or not containers:
        problem(where, "spec.template.spec.containers is missing or empty")
        return
    volumes = {}
    for volume in pod.get("volumes") or []:
        if isinstance(volume, dict) and "name" in volume:
            volumes[volume["name"]] = volume
    installer = None
    for index, container in enumerate(containers):
        cwhere = f"{where}: container {index}"
        if not isinstance(container, dict):
            problem(cwhere, "not a mapping")
            continue
        if not container.get("name"):
            problem(cwhere, "no name")
        if not isinstance(container.get("image"), str) or not container.get("image"):
            problem(cwhere, "no image")
        for mount in container.get("volumeMounts") or []:
            if mount.get("name") not in volumes:
                problem(cwhere, f"volumeMount {mount.get('name')!r} names no declared volume")
        if container.get("name") == "installer":
            installer = container
    if installer is None:
        problem(where, "no container named 'installer'")
        return
    if get(installer, "securityContext", "privileged") is not True:
        problem(where, "the installer container is not privileged")
    mounted = {}
    for mount in installer.get("volumeMounts") or []:
        host_path = get(volumes.get(mount.get("name")), "hostPath", "path")
        if host_path is not None:
            mounted[host_path] = mount.get("mountPath")
    for host_path, mount_path in REQUIRED_HOST_MOUNTS.items():
        if host_path not in mounted:
            problem(where, f"the installer does not mount hostPath {host_path}")
        elif mounted[host_path] != mount_path:
            problem(where, f"hostPath {host_path} is mounted at {mounted[host_path]}, "
                    f"want {mount_path}")
    env = env_of(installer)
    if env.get("RUNTIME", "containerd") not in ("containerd", "crio"):
        problem(where, f"RUNTIME={env.get('RUNTIME')!r}, want containerd or crio")
    if env.get("HOST_ROOT", "/host") != "/host":
        problem(where, f"HOST_ROOT={env.get('HOST_ROOT')!r} but / is mounted at /host")
    if env.get("RESTART") == "true" and pod.get("hostPID") is not True:
        problem(where, "RESTART=true needs hostPID: true (the engine restarts through pid 1)")
    if not isinstance(pod.get("tolerations", []), list):
        problem(where, "tolerations is not a list")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: check_manifests.py <dir>")
    files = sorted(pathlib.Path(sys.argv[1]).glob("**/*.yaml"))
    if not files:
        sys.exit(f"no *.yaml under {sys.argv[1]}")
    docs = []
    for path in files:
        try:
            with open(path, encoding="utf-8") as f:
                loaded = [d for d in yaml.safe_load_all(f) if d is not None]
        except yaml.YAMLError as err:
            problem(str(path), f"does not parse: {err}")
            continue
        if not loaded:
            problem(str(path), "has no document")
        for index, doc in enumerate(loaded):
            where = f"{path}[{index}]"
            if not isinstance(doc, dict):
                problem(where, "is not a mapping")
                continue
            check_common(where, doc)
            docs.append((where, doc))
    namespaces = {get(d, "metadata", "name") for _, d in docs if d.get("kind") == "Namespace"}
    kinds = {}
    for where, doc in docs:
        kind = doc.get("kind")
        kinds[kind] = kinds.get(kind, 0) + 1
        if kind == "Namespace" and doc.get("apiVersion") != "v1":
            problem(where, f"Namespace apiVersion {doc.get('apiVersion')!r}, want v1")
        elif kind == "RuntimeClass":
            check_runtimeclass(where, doc)
        elif kind == "DaemonSet":
            check_daemonset(where, doc, namespaces)
    for kind in ("DaemonSet", "RuntimeClass"):
        if kinds.get(kind) != 1:
            problem(sys.argv[1], f"{kinds.get(kind, 0)} {kind} manifests, want 1")
    for line in problems:
        print(line)
    print(f"checked {len(docs)} documents in {len(files)} files: {len(problems)} problems")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
