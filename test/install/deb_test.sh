#!/usr/bin/env bash
# cpack -G DEB from the build folder: the package's name, version, the
# Debian packages it depends on (those the built parts link) and the files
# a user needs, under /usr.
#   deb_test.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
out="$build/test-deb"
rm -rf "$out" && mkdir -p "$out"
cpack -G DEB --config "$build/CPackConfig.cmake" -B "$out" > "$out/cpack.log" 2>&1 || {
  tail -30 "$out/cpack.log"
  exit 1
}
deb=$(ls "$out"/cudaperf_*.deb)
fail=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1"; fail=1; fi; }
fields=$(dpkg-deb -f "$deb" Package Version Depends Recommends)
echo "$fields"
contents=$(dpkg-deb -c "$deb" | awk '{print $6}')
check "package cudaperf" '[ "$(dpkg-deb -f "$deb" Package)" = cudaperf ]'
check "version from the project" '[ -n "$(dpkg-deb -f "$deb" Version)" ]'
for dependency in libc6 libstdc++6 libboost-json1.81.0; do
  check "depends on $dependency" 'dpkg-deb -f "$deb" Depends | tr -d " " | tr , "\n" | grep -qx "$dependency"'
done
if [ -f "$build/clang-plugin/cudaperf.so" ]; then
  check "depends on libclang-cpp19" 'dpkg-deb -f "$deb" Depends | grep -q libclang-cpp19'
  check "ships the plugin" 'grep -qx "./usr/lib/cudaperf/cudaperf.so" <<< "$contents"'
  check "ships cudaperf-features" 'grep -qx "./usr/bin/cudaperf-features" <<< "$contents"'
fi
if [ -f "$build/daemon/cudaperfd" ]; then
  check "depends on libsqlite3-0 and libspdlog1.10" 'dpkg-deb -f "$deb" Depends | grep -q libsqlite3-0 && dpkg-deb -f "$deb" Depends | grep -q libspdlog1.10'
  check "ships cudaperfd and its unit" 'grep -qx "./usr/bin/cudaperfd" <<< "$contents" && grep -qx "./usr/lib/systemd/system/cudaperfd.service" <<< "$contents"'
  check "ships the task suite" 'grep -qx "./usr/share/cudaperf/tasks/vector_add/task.json" <<< "$contents"'
fi
if [ -f "$build/daemon/cudaperf-judge" ]; then
  check "ships the judge in libexec" 'grep -qx "./usr/libexec/cudaperf/cudaperf-judge" <<< "$contents"'
fi
if [ -f "$build/trainer/cudaperf-train" ]; then
  check "depends on libtorch1.13" 'dpkg-deb -f "$deb" Depends | grep -q libtorch1.13'
  check "ships cudaperf-train" 'grep -qx "./usr/bin/cudaperf-train" <<< "$contents"'
fi
# The unit names the package's own paths.
unit=$(dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/lib/systemd/system/cudaperfd.service 2> /dev/null || true)
check "the unit starts /usr/bin/cudaperfd" 'grep -q "^ExecStart=/usr/bin/cudaperfd " <<< "$unit"'
echo "$(du -k "$deb" | cut -f1) KiB: $deb"
exit $fail
