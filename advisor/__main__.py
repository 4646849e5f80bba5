from __future__ import annotations

from advisor.cli import main

raise SystemExit(main())
