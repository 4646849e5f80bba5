"""`advisor tui`: a Textual face over the planner. It shows what advisor.planner computes; no model logic lives here."""
