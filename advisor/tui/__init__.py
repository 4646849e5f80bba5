"""`advisor tui`: a Textual face over the planner. It shows what advisor.session.planner computes; no model logic lives here."""
