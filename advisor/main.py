"""The `advisor` command: one parser, and each command handed to the face that does it.

This is the composition root: the only module that knows both faces (cli/, tui/); the faces never
import each other, and nothing below them (render/, bench/, the core) imports a face.
"""

from __future__ import annotations

import sys

from advisor.base.errors import UserError
from advisor.cli.parser import parser


def _commands() -> dict:
    from advisor.cli import bench, measure, plan, quote
    from advisor.tui.launch import cmd_serve, cmd_tui

    return {
        "plan": plan.cmd_plan,
        "workload": plan.cmd_workload,
        "validate": quote.cmd_validate,
        "import": measure.cmd_import,
        "probe": measure.cmd_probe,
        "from-machine": measure.cmd_from_machine,
        "compare": measure.cmd_compare,
        "accuracy": measure.cmd_accuracy,
        "bench": bench.cmd_bench,
        "tui": cmd_tui,
        "serve": cmd_serve,
    }


def main(argv: list[str] | None = None) -> int:
    ap = parser()
    args = ap.parse_args(argv)
    if not args.command:
        ap.print_help()
        return 0
    from advisor.findings import rules as rules_module

    # --rules holds for this command only: a caller running several commands in one process (the test
    # suite, a script) must not see one command's rule folders in the next
    rules_module.CLI_RULE_DIRS = tuple(getattr(args, "rules", None) or ())
    try:
        if args.command == "catalog":
            from advisor.cli.catalog import cmd_catalog

            return cmd_catalog(args, ap)
        if args.command == "rules":
            from advisor.cli.catalog import cmd_rules

            return cmd_rules(args, ap)
        command = _commands().get(args.command)
        if command is not None:
            return command(args)
    except UserError as exc:
        print(f"advisor: error: {exc.render()}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    finally:
        rules_module.CLI_RULE_DIRS = ()
    ap.print_help()
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
