#!/usr/bin/env bash
# The Kubernetes manifests in deployments/kubernetes pass check_manifests.py (they parse; the
# DaemonSet, RuntimeClass and Namespace carry what the installer needs), and the checker itself
# rejects copies broken in one way each, naming the problem, so a passing run means something.
source "$(dirname "$0")/../e2e/lib/common.sh"

require_cmd python3
python3 -c 'import yaml' 2>/dev/null ||
  e2e_die "python3 cannot import yaml (apt-get install python3-yaml; scripts/install-deps.sh)"
checker="$NVCT_SOURCE_DIR/tests/deployments/check_manifests.py"
manifests="$NVCT_SOURCE_DIR/deployments/kubernetes"

out="$(python3 "$checker" "$manifests" 2>&1)" && rc=0 || rc=$?
echo "$out" | sed 's/^/# /'
check_eq "deployments/kubernetes passes the manifest check" 0 "$rc"
check_contains "the check saw the DaemonSet, RuntimeClass and Namespace" "checked 3 documents" "$out"

# mutate <name> <file> <python statement on d (the file's first document)> <expected problem>
mutate() {
  local name="$1" file="$2" statement="$3" want="$4" copy="$E2E_TMP/$1"
  rm -rf "$copy"
  cp -r "$manifests" "$copy"
  python3 - "$copy/$file" "$statement" <<'PY'
import sys, yaml
path, statement = sys.argv[1], sys.argv[2]
with open(path) as f:
    d = yaml.safe_load(f)
pod = d.get("spec", {}).get("template", {}).get("spec", {})
installer = (pod.get("containers") or [{}])[0]
exec(statement)
with open(path, "w") as f:
    yaml.safe_dump(d, f)
PY
  local got
  got="$(python3 "$checker" "$copy" 2>&1)" && rc=0 || rc=$?
  check_eq "$name: the checker fails" 1 "$rc"
  check_contains "$name: ... naming the problem" "$want" "$got"
}

mutate unprivileged daemonset.yaml 'installer["securityContext"]["privileged"] = False' \
  "the installer container is not privileged"
mutate selector-mismatch daemonset.yaml \
  'd["spec"]["selector"]["matchLabels"]["app.kubernetes.io/name"] = "other"' \
  "does not match the template's labels"
mutate toolkit-elsewhere daemonset.yaml \
  '[m.update(mountPath="/opt/nvidia") for m in installer["volumeMounts"] if m["name"] == "toolkit-root"]' \
  "hostPath /usr/local/nvidia is mounted at /opt/nvidia"
mutate no-run-containerd daemonset.yaml \
  'installer["volumeMounts"] = [m for m in installer["volumeMounts"] if m["mountPath"] != "/run/containerd"]' \
  "does not mount hostPath /run/containerd"
mutate dangling-mount daemonset.yaml 'pod["volumes"] = pod["volumes"][1:]' \
  "names no declared volume"
mutate no-image daemonset.yaml 'del installer["image"]' "no image"
mutate restart-without-hostpid daemonset.yaml 'pod["hostPID"] = False' "needs hostPID"
mutate bad-runtime daemonset.yaml \
  '[e.update(value="docker") for e in installer["env"] if e["name"] == "RUNTIME"]' \
  "RUNTIME='docker'"
mutate undeclared-namespace daemonset.yaml 'd["metadata"]["namespace"] = "elsewhere"' \
  "namespace 'elsewhere' is not declared"
mutate wrong-handler runtimeclass.yaml 'd["handler"] = "gpu"' "handler 'gpu', want 'nvidia'"
mutate old-runtimeclass-api runtimeclass.yaml 'd["apiVersion"] = "node.k8s.io/v1beta1"' \
  "want node.k8s.io/v1"
mutate nameless namespace.yaml 'del d["metadata"]["name"]' "metadata.name None"

# A file that is not YAML at all.
copy="$E2E_TMP/unparsable"
cp -r "$manifests" "$copy"
printf 'kind: [unclosed\n' >"$copy/broken.yaml"
got="$(python3 "$checker" "$copy" 2>&1)" && rc=0 || rc=$?
check_eq "unparsable file: the checker fails" 1 "$rc"
check_contains "unparsable file: ... naming it" "broken.yaml: does not parse" "$got"

e2e_finish
