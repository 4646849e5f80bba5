#!/usr/bin/env bash
# advisor's message catalogs with Babel (docs/languages.md):
#   scripts/i18n.sh extract   the sentences of the code and the rules -> advisor/locale/advisor.pot
#   scripts/i18n.sh update    merge the .pot into each language's .po (new sentences come untranslated)
#   scripts/i18n.sh compile   each .po -> its .mo, which the package ships and reads at run time
#   scripts/i18n.sh           all three, in that order
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"  # babel.cfg names advisor.i18n's rule extractor
POT=advisor/locale/advisor.pot
step="${1:-all}"

# advisor's sentences are str.format templates, never %-templates: Babel takes "{row.pct}% of" for a
# %-format too (and flags it python-format); the flag is dropped so that no tool checks it as one
brace_only() {
    python - "$@" <<'PY'
import sys
from babel.messages.pofile import read_po, write_po
for path in sys.argv[1:]:
    with open(path, "rb") as f:
        cat = read_po(f)
    for m in cat:
        m.flags.discard("python-format")
    with open(path, "wb") as f:
        write_po(f, cat, width=110)
PY
}
if [[ $step == extract || $step == all ]]; then
    pybabel extract -F babel.cfg -k N_ --sort-by-file --project advisor --version 0.1.0 \
        --msgid-bugs-address "" --copyright-holder "advisor" -o "$POT" .
    brace_only "$POT"
fi
if [[ $step == update || $step == all ]]; then
    pybabel update -i "$POT" -d advisor/locale -D advisor --no-fuzzy-matching --width 110
    brace_only advisor/locale/*/LC_MESSAGES/advisor.po
fi
if [[ $step == compile || $step == all ]]; then
    # Babel's own compile would run its %-format check (see brace_only); this is the same write_mo it
    # calls, and tests/test_i18n.py checks the {placeholders} of every translation instead
    python -m advisor.i18n compile
fi
