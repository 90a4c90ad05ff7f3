"""serve: games -> a live preview page (`pnp serve`): every piece, sheet and error, updated as files are saved."""
