from __future__ import annotations

from advisor.cli.main import main

raise SystemExit(main())
