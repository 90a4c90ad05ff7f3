"""qa: checked games -> judgements: the rulebook rules (check), and preflight, what a print shop
checks, measured on the layouts, pages and PDFs."""
