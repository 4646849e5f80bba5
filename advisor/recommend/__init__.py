"""What should I buy: the builds of the catalog that run a job best for their price.

`recommend(question)` enumerates every compatible CPU x board x GPU model x GPU count of the catalog (the
lane allocator places the cards: it scores every placement the board's slots allow, with its sharing rules
and the CPU's lane budget, and keeps the best, so no other placement of the same parts can be faster at the
same price), prunes with bounds that need no prediction (the price against the budget, the job's memory
against the card's, the build's power against the room's circuit, a CPU that another CPU of the same board
beats on every figure the model uses at no higher price, and, for data-parallel training, k GPUs' speed at
most k times one GPU's against the fastest cheaper build already predicted), assesses the rest through
`advisor.assess` exactly as `advisor plan` and `advisor workload` do, and returns the Pareto front of price
against speed.
"""

from advisor.recommend.search import Answer, Candidate, Constraints, Counts, recommend

__all__ = ["Answer", "Candidate", "Constraints", "Counts", "recommend"]
