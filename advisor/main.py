"""The `advisor` command: one parser, and each command handed to the face that does it.

This is the composition root: the only module that knows both faces (cli/, tui/); the faces never
import each other, and nothing below them (render/, bench/, the core) imports a face.
"""

from __future__ import annotations

import os
import signal
import sys

from advisor import exit_interrupted, exit_terminated

# advisor's models use no pydantic plugins; looking for them scans every installed package's entry points
# when the first model is validated (about 60 ms of each command, benchmarks/bench_rules_quote.py).
# A user who sets the variable keeps their setting.
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")

from advisor.base.errors import UserError  # noqa: E402
from advisor.cli.parser import check_args, parser

# command -> (module, function): a command imports only its own face module
_COMMANDS = {
    "plan": ("advisor.cli.plan", "cmd_plan"),
    "workload": ("advisor.cli.plan", "cmd_workload"),
    "validate": ("advisor.cli.quote", "cmd_validate"),
    "recommend": ("advisor.cli.recommend", "cmd_recommend"),
    "import": ("advisor.cli.measure", "cmd_import"),
    "probe": ("advisor.cli.measure", "cmd_probe"),
    "doctor": ("advisor.cli.measure", "cmd_doctor"),
    "from-machine": ("advisor.cli.measure", "cmd_from_machine"),
    "compare": ("advisor.cli.measure", "cmd_compare"),
    "accuracy": ("advisor.cli.measure", "cmd_accuracy"),
    "export": ("advisor.cli.measure", "cmd_export"),
    "bench": ("advisor.cli.bench", "cmd_bench"),
    "tui": ("advisor.tui.launch", "cmd_tui"),
    "serve": ("advisor.tui.launch", "cmd_serve"),
}


def _command(name: str):
    import importlib

    if name not in _COMMANDS:
        return None
    module, function = _COMMANDS[name]
    return getattr(importlib.import_module(module), function)


class Terminated(BaseException):
    """SIGTERM while a command runs: raised like KeyboardInterrupt, so `finally` blocks and atomic
    writes clean up before the process ends with 143."""


# the signals that reached a running command. A signal's exception raised where Python cannot pass it on
# (inside an object's __del__, a weakref callback) is dropped by Python with an "Exception ignored" note
# and the command runs on to exit 0; the record is what makes such a run end as interrupted all the same
_CAUGHT: list[int] = []


def _raise_terminated(signum, frame):
    _CAUGHT.append(signum)
    raise Terminated()


def _raise_interrupted(signum, frame):
    _CAUGHT.append(signum)
    raise KeyboardInterrupt


def _unraisable(hook):
    """sys.unraisablehook while a command runs: an interrupt that landed where it could not be raised is
    kept quiet (it is recorded, and the command ends interrupted); anything else goes to `hook`."""

    def quiet(info) -> None:
        if isinstance(info.exc_value, (KeyboardInterrupt, Terminated)):
            return
        hook(info)

    return quiet


class _SafeStream:
    """stdout or stderr as a command writes to them: each write through advisor.base.text.for_output, so
    no control character but a colour reaches the terminal, whatever the text holds."""

    def __init__(self, stream) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        from advisor.base.text import for_output

        self._stream.write(for_output(text))
        return len(text)

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def _raise_on_interrupt(argv: list[str] | None = None) -> None:
    """From here on a Ctrl-C is a KeyboardInterrupt (caught in `main`): a running command's `finally`
    and atomic writes clean up before it ends. Only the loading-time handler is replaced: a caller's own
    (a test runner's) stays."""
    try:
        if signal.getsignal(signal.SIGINT) is exit_interrupted:
            signal.signal(signal.SIGINT, _raise_interrupted)
        if signal.getsignal(signal.SIGTERM) is exit_terminated:
            words = _words(sys.argv[1:] if argv is None else argv)
            # the app and its server handle SIGTERM themselves (they restore the terminal, end sessions)
            interactive = bool(words) and words[0] in ("tui", "serve")
            signal.signal(signal.SIGTERM, signal.SIG_DFL if interactive else _raise_terminated)
    except ValueError:  # not the main thread: signals are not ours to set
        pass


def _words(argv: list[str]) -> list[str]:
    """The arguments that are not flags (the command first), the language flag's value left out."""
    return [a for a in _language(list(argv))[1] if not a.startswith("-")]


def main(argv: list[str] | None = None) -> int:
    words = _words(sys.argv[1:] if argv is None else argv)
    interactive = bool(words) and words[0] in ("tui", "serve")  # the app draws its own screen
    streams = sys.stdout, sys.stderr, sys.unraisablehook
    if not interactive:
        sys.stdout = _SafeStream(sys.stdout)
        if words[:1] != ["bench"]:  # bench draws its progress on stderr (cursor moves)
            sys.stderr = _SafeStream(sys.stderr)
    sys.unraisablehook = _unraisable(sys.unraisablehook)
    del _CAUGHT[:]
    from advisor.i18n import language, set_language

    before = language()  # a caller in the same process (a test, an embedding) keeps its own language
    try:
        return _main(argv)
    finally:
        sys.stdout, sys.stderr, sys.unraisablehook = streams
        set_language(before)


def _main(argv: list[str] | None) -> int:
    try:
        _raise_on_interrupt(argv)
        code = _run(argv)
        sys.stdout.flush()  # a reader that has gone (`| head`) shows here, not as a traceback at exit
        if _CAUGHT:  # interrupted where the exception could not be raised: still an interrupted run
            return _signalled(
                *(("terminated", 143) if _CAUGHT[0] == signal.SIGTERM else ("interrupted", 130))
            )
        return code
    except KeyboardInterrupt:
        # Ctrl-C (SIGINT): one line, the shell's 128 + SIGINT, no traceback
        return _signalled("interrupted", 130)
    except Terminated:
        return _signalled("terminated", 143)  # 128 + SIGTERM
    except BrokenPipeError:
        # output piped into a reader that stopped reading: end quietly, as `seq 1 99999 | head -1` does
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):
            pass  # stdout is not a file (a test's capture): nothing is flushed at exit
        return 141  # 128 + SIGPIPE, what a shell reports for a writer whose reader went away


def _signalled(what: str, code: int) -> int:
    try:
        print(f"advisor: {what}", file=sys.stderr)
    except (OSError, ValueError):  # stderr closed: the exit code still says it
        pass
    return code


def _language(argv: list[str]) -> tuple[str | None, list[str], str | None]:
    """`--lang CODE` (or `--lang=CODE`) taken out of the arguments wherever it stands (before or after
    the command), so that the help and the parser's own errors are in that language too. Returns the
    code, the other arguments, and an unknown code given (None when there is none)."""
    from advisor.i18n import LANGUAGES

    code, rest, error = None, [], None
    it = iter(argv)
    for a in it:
        if a == "--":
            rest += [a, *it]
            break
        if a == "--lang" or a.startswith("--lang="):
            value = a.partition("=")[2] if "=" in a else next(it, "")
            if value not in LANGUAGES:
                error = value
            else:
                code = value
            continue
        rest.append(a)
    return code, rest, error


def _run(argv: list[str] | None) -> int:
    from advisor.i18n import _, resolve, set_language

    flag, argv, error = _language(list(sys.argv[1:] if argv is None else argv))
    set_language(resolve(flag))
    if error is not None:
        from advisor.base.text import visible
        from advisor.i18n import LANGUAGES

        text = _("--lang {value}: advisor answers in {codes}").format(
            value=repr(visible(error[:20])), codes=", ".join(LANGUAGES)
        )
        print(_("advisor: error: {message}").format(message=text), file=sys.stderr)
        return 2
    ap = parser()
    args = ap.parse_args(argv)
    args.lang = flag
    # the command as run, for the commands a suggestion prints ("run: advisor workload ... --qlora")
    args.argv = list(argv)
    if not args.command:
        ap.print_help()
        return 0
    try:
        check_args(args)
        if args.command in ("tui", "serve"):  # the app has its own screen: nothing is printed over it
            return _command(args.command)(args)
        from advisor.base.notices import to

        # how an input was read (a part name taken as a catalog spelling), on stderr: stdout stays the
        # answer alone (--json)
        with to(lambda text: print(_("advisor: note: {message}").format(message=text), file=sys.stderr)):
            if args.command == "catalog":
                from advisor.cli.catalog import cmd_catalog

                return cmd_catalog(args, ap)
            if args.command == "rules":
                from advisor.cli.catalog import cmd_rules

                return cmd_rules(args, ap)
            command = _command(args.command)
            if command is not None:
                return command(args)
    except UserError as exc:
        print(_("advisor: error: {message}").format(message=exc.render()), file=sys.stderr)
        return 2
    except Exception as exc:
        problems = _validation_problems(exc)
        if problems is None:
            raise
        text = "\n".join(p.render() for p in problems)
        print(_("advisor: error: {message}").format(message=text), file=sys.stderr)
        return 2
    ap.print_help()
    return 2


def _validation_problems(exc: Exception):
    """A pydantic ValidationError that reached the top (a model built from flags without going through
    advisor.base.validation): the same plain field: message lines, exit 2, never a traceback. None for
    anything else, which is a bug and keeps its traceback."""
    if type(exc).__name__ != "ValidationError" or not type(exc).__module__.startswith("pydantic"):
        return None
    from advisor.base.validation import problems_from

    return problems_from(exc, None, None)  # type: ignore[arg-type]


if __name__ == "__main__":
    raise SystemExit(main())
