#!/usr/bin/env bash
# Installs the Python packages npusim's tests and reference scripts use (numpy, ml_dtypes,
# pytest),
# if they are not importable yet. Safe to run repeatedly; used by the test suite and by .ci/run.
set -euo pipefail
PY=${PYTHON:-python3}
if "$PY" -c "import numpy, ml_dtypes, pytest" 2>/dev/null; then
  exit 0
fi
user_flag=""
if [ "$(id -u)" != "0" ]; then user_flag="--user"; fi
"$PY" -m pip install --quiet --disable-pip-version-check $user_flag numpy ml_dtypes pytest
"$PY" -c "import numpy, ml_dtypes, pytest"
