"""`python -m advisor`: Ctrl-C is answered before anything else is imported.

Until `advisor.main.main` takes over (it turns SIGINT back into KeyboardInterrupt inside its own
`try`), a Ctrl-C while the modules load prints "advisor: interrupted" and exits 130, never an import
traceback.
"""

import signal

from advisor import exit_interrupted, exit_terminated

signal.signal(signal.SIGINT, exit_interrupted)
signal.signal(signal.SIGTERM, exit_terminated)

from advisor.main import main  # noqa: E402

code = main()
signal.signal(signal.SIGINT, exit_interrupted)  # a Ctrl-C while Python shuts down: the same one line
signal.signal(signal.SIGTERM, exit_terminated)
raise SystemExit(code)
