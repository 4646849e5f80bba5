from __future__ import annotations

from advisor.main import main

raise SystemExit(main())
