"""input: data root, JSON files and templates -> validated, positioned values and the game model
(load, validate, model, kinds, templates)."""
