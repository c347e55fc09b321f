#!/usr/bin/env bash
# Build the wheel, install it into a fresh virtual environment and run it from another
# directory: the CLI, the knowledge base, the icons, the translations and the report schema
# must all load from the installed package. Then validate the desktop entry and metainfo
# when the freedesktop tools are installed (Debian: desktop-file-utils, appstream).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
python=${PYTHON:-python3}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
"$python" -m pip wheel --quiet --no-deps -w "$work/dist" "$here"
"$python" -m venv "$work/venv"
wheel=$(ls "$work"/dist/accelgui-*.whl)
"$work/venv/bin/pip" install --quiet "$wheel"          # the headless install: no Qt, no Numba
echo "headless install: $(du -sh "$work/venv" | cut -f1)"
cd "$work"
if "$work/venv/bin/python" -c 'import PySide6' 2>/dev/null; then echo "headless install has PySide6" >&2; exit 1; fi
"$work/venv/bin/accelgui" --schema | "$work/venv/bin/python" -c 'import json, sys; print("schema:", json.load(sys.stdin)["$id"])'
"$work/venv/bin/accelgui" --print-man >/dev/null && echo "man page: ok"
set +e; QT_QPA_PLATFORM=offscreen "$work/venv/bin/accelgui" 2>"$work/gui.err"; rc=$?; set -e
grep -q "accelgui\[gui\]" "$work/gui.err" && [ "$rc" = 2 ] && echo "app without the gui extra: says how to install it"
"$work/venv/bin/accelgui" --version
"$work/venv/bin/accelgui" --probe --format json | "$work/venv/bin/python" -c \
  'import json, sys; d = json.load(sys.stdin); print("probe:", len(d["probes"]), "probes,", len(d["routes"]), "routes")'
"$work/venv/bin/accelgui" --routes --lang zh --format json >/dev/null && echo "routes: ok"
"$work/venv/bin/python" - <<'PY'
from importlib.resources import files
for package, name in [("accelgui", "report.schema.json"),
                      ("accelgui.resources", "icons/accelgui.svg"),
                      ("accelgui.resources", "icons/accelgui-256.png"),
                      ("accelgui.resources", "translations/accelgui_zh_CN.qm"),
                      ("accelgui.resources.desktop", "io.github.accelgui.Accelgui.desktop"),
                      ("accelgui.resources.desktop", "io.github.accelgui.Accelgui.metainfo.xml"),
                      ("accelgui.l10n.en", "app.json"), ("accelgui.l10n.zh", "app.json"),
                      ("accelgui.knowledge", "schema.json")]:
    assert files(package).joinpath(name).is_file(), (package, name)
print("package data: ok")
PY
"$work/venv/bin/pip" install --quiet "$wheel[gui]"
QT_QPA_PLATFORM=offscreen "$work/venv/bin/python" -c \
  'from accelgui.gui.app import create_app; from accelgui.gui.main_window import MainWindow; print("gui imports: ok")'
if command -v desktop-file-validate >/dev/null; then
  desktop-file-validate "$here/resources/desktop/io.github.accelgui.Accelgui.desktop" && echo "desktop entry: ok"
fi
if command -v appstreamcli >/dev/null; then
  appstreamcli validate --no-net "$here/resources/desktop/io.github.accelgui.Accelgui.metainfo.xml"
fi
